#include "core/platform/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <thread>

#include "core/platform/errors.h"

extern char** environ;

namespace wb {

namespace {
using Clock = std::chrono::steady_clock;
constexpr std::size_t kTailLines = 30, kTailBytes = 4096;
// A loop's lines are one JSON object of an epoch's figures each: a few hundred bytes.
constexpr std::size_t kMaxLineBytes = std::size_t{16} << 20;

void closeFd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

// The two ends of what joins the child to us, each closed with the pair unless it was handed on: a
// pipe for its stdout or stderr, or for its stdin a socket pair rather than a pipe, so that a write
// to a child that has gone fails with EPIPE (send's MSG_NOSIGNAL) instead of raising SIGPIPE in the
// whole process.
struct Ends {
    enum class Kind { Pipe, Channel };
    int ours = -1, theirs = -1;
    Ends(Kind kind, const std::string& program) {
        int fds[2];
        const bool pipe = kind == Kind::Pipe;
        if ((pipe ? ::pipe2(fds, O_CLOEXEC) : ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds)) != 0)
            throw ProcessError(program, std::string("cannot create a ") + (pipe ? "pipe for " : "channel to ") +
                                            program + ": " + std::strerror(errno));
        ours = fds[0];    // a pipe's read end; the channel's end we write to
        theirs = fds[1];  // a pipe's write end; the child's end of the channel
    }
    ~Ends() {
        closeFd(ours);
        closeFd(theirs);
    }
    Ends(const Ends&) = delete;
    Ends& operator=(const Ends&) = delete;
};

// posix_spawn's file actions and attributes for one child: its own process group, the default
// handling of the signals that end it, and its standard streams.
class SpawnSetup {
public:
    SpawnSetup() {
        posix_spawn_file_actions_init(&actions_);
        posix_spawnattr_init(&attr_);
        // A group of its own, so that Stop reaches DataLoader workers too, and Ctrl+C in a terminal
        // reaches only us (we end the child ourselves).
        posix_spawnattr_setpgroup(&attr_, 0);
        sigset_t defaults;
        sigemptyset(&defaults);
        sigaddset(&defaults, SIGINT);
        sigaddset(&defaults, SIGTERM);
        sigaddset(&defaults, SIGPIPE);
        posix_spawnattr_setsigdefault(&attr_, &defaults);
        posix_spawnattr_setflags(&attr_, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
    }
    ~SpawnSetup() {
        posix_spawn_file_actions_destroy(&actions_);
        posix_spawnattr_destroy(&attr_);
    }
    SpawnSetup(const SpawnSetup&) = delete;
    SpawnSetup& operator=(const SpawnSetup&) = delete;

    // The child's descriptor `target` is `fd` (kept as it is when they are the same), or /dev/null
    // for an fd of -1.
    void give(int fd, int target) {
        if (fd < 0)
            posix_spawn_file_actions_addopen(&actions_, target, "/dev/null",
                                             target == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0);
        else if (fd != target)
            posix_spawn_file_actions_adddup2(&actions_, fd, target);
    }

    // The child's pid; 0 with `error` set when it could not be started.
    pid_t start(const std::vector<std::string>& argv, int& error) {
        std::vector<char*> args;
        args.reserve(argv.size() + 1);
        for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        pid_t pid = 0;
        error = ::posix_spawnp(&pid, args[0], &actions_, &attr_, args.data(), environ);
        return error == 0 ? pid : 0;
    }

private:
    posix_spawn_file_actions_t actions_{};
    posix_spawnattr_t attr_{};
};
}  // namespace

ChildProcess::ChildProcess(const std::vector<std::string>& argv, Input input) : ChildProcess(argv, Options{input}) {}

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const Options& options) {
    if (argv.empty()) throw ProcessError("", "no program to start");
    program_ = argv[0];
    std::optional<Ends> out, err, in;
    if (options.stdoutFd < 0) out.emplace(Ends::Kind::Pipe, program_);
    if (options.stderrFd < 0) err.emplace(Ends::Kind::Pipe, program_);
    if (options.input == Input::Channel) in.emplace(Ends::Kind::Channel, program_);
    SpawnSetup setup;
    setup.give(in ? in->theirs : -1, STDIN_FILENO);
    setup.give(out ? out->theirs : options.stdoutFd, STDOUT_FILENO);
    setup.give(err ? err->theirs : options.stderrFd, STDERR_FILENO);
    int error = 0;
    const pid_t pid = setup.start(argv, error);
    if (pid == 0) throw ProcessError(program_, "cannot start " + program_ + ": " + std::strerror(error));
    pid_ = pid;
    // The parent keeps its ends; the child's are closed with the pipes.
    if (out) std::swap(outFd_, out->ours);
    if (err) std::swap(errFd_, err->ours);
    if (in) std::swap(inFd_, in->ours);
}

ChildProcess::~ChildProcess() {
    if (running()) terminate();
    // Whatever is left of the group ends too: a DataLoader worker, or the child of a script whose shell
    // has exited. (A group's id is not reused while any member of it lives.)
    if (pid_ >= 0) ::kill(-pid_, SIGKILL);
    reap(true);
    closeFd(inFd_);
    closeFd(outFd_);
    closeFd(errFd_);
}

void ChildProcess::writeLine(const std::string& line) {
    if (inFd_ < 0) throw ProcessError(program_, program_ + " was started without an input channel");
    const std::string text = line + "\n";
    for (std::size_t sent = 0; sent < text.size();) {
        const ssize_t n = ::send(inFd_, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw ProcessError(program_, "cannot write to " + program_ + ": " + std::strerror(errno));
        sent += static_cast<std::size_t>(n);
    }
}

void ChildProcess::clearStderrTail() {
    errLines_.clear();
    errPartial_.clear();
}

void ChildProcess::drain(int fd, bool isStdout) {
    char chunk[8192];
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n <= 0) {
        if (n == 0 || (errno != EINTR && errno != EAGAIN)) closeFd(isStdout ? outFd_ : errFd_);
        return;
    }
    if (isStdout) {
        outBuffer_.append(chunk, static_cast<std::size_t>(n));
        return;
    }
    errPartial_.append(chunk, static_cast<std::size_t>(n));
    for (std::size_t nl; (nl = errPartial_.find('\n')) != std::string::npos;) {
        errLines_.push_back(errPartial_.substr(0, std::min<std::size_t>(nl, kTailBytes)));
        errPartial_.erase(0, nl + 1);
        if (errLines_.size() > kTailLines) errLines_.pop_front();
    }
    if (errPartial_.size() > kTailBytes) errPartial_.erase(0, errPartial_.size() - kTailBytes);
}

ChildProcess::Read ChildProcess::readLine(std::string& line, const CancelFlag* cancel,
                                          std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    for (;;) {
        if (const auto nl = outBuffer_.find('\n'); nl != std::string::npos) {
            line = outBuffer_.substr(0, nl);
            outBuffer_.erase(0, nl + 1);
            return Read::Line;
        }
        if (outBuffer_.size() > kMaxLineBytes)  // a program that writes without a newline, unbounded
            throw ProcessError(program_, program_ + " wrote a line longer than " + std::to_string(kMaxLineBytes >> 20) +
                                             " MiB to its standard output");
        if (outFd_ < 0) {  // stdout closed: whatever is left without a newline is the last line
            if (outBuffer_.empty()) return Read::EndOfOutput;
            line = std::move(outBuffer_);
            outBuffer_.clear();
            return Read::Line;
        }
        if (cancel && cancel->load(std::memory_order_relaxed)) return Read::Cancelled;
        if (Clock::now() >= deadline) return Read::TimedOut;
        // stderr is drained too: a child blocked on a full stderr pipe would never finish its line.
        pollfd fds[2] = {{outFd_, POLLIN, 0}, {errFd_, POLLIN, 0}};
        const int ready = ::poll(fds, errFd_ >= 0 ? 2 : 1, 50);
        if (ready < 0 && errno != EINTR)
            throw ProcessError(program_, "cannot wait for the output of " + program_ + ": " + std::strerror(errno));
        if (ready <= 0) continue;
        if (errFd_ >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) drain(errFd_, false);
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) drain(outFd_, true);
    }
}

bool ChildProcess::reap(bool block) {
    if (status_) return true;
    if (pid_ < 0) return true;
    int status = 0;
    pid_t r;
    do {
        r = ::waitpid(pid_, &status, block ? 0 : WNOHANG);
    } while (r < 0 && errno == EINTR);
    if (r == pid_) status_ = status;
    return status_.has_value();
}

bool ChildProcess::running() {
    return pid_ >= 0 && !reap(false);
}

void ChildProcess::signalGroup(int signal) {
    if (running()) ::kill(-pid_, signal);  // never the group of a child already reaped
}

void ChildProcess::askToStop() {
    signalGroup(SIGTERM);
}

void ChildProcess::kill() {
    signalGroup(SIGKILL);
}

void ChildProcess::terminate(std::chrono::milliseconds grace) {
    if (pid_ < 0) return;
    ::kill(-pid_, SIGTERM);  // the group: workers a DataLoader forked end with the interpreter
    const auto deadline = Clock::now() + grace;
    while (running() && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ::kill(-pid_, SIGKILL);  // also any worker that outlived its parent
    reap(true);
}

int ChildProcess::wait(std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    while (running()) {
        if (Clock::now() >= deadline) {
            terminate();
            break;
        }
        drainReady(20);  // a child that still writes must not block on a full pipe while we wait
    }
    // The rest of a traceback written just before the exit; bounded, in case a worker the child
    // left behind still holds the pipe open.
    for (int i = 0; i < 50 && errFd_ >= 0; ++i) {
        pollfd fd = {errFd_, POLLIN, 0};
        if (::poll(&fd, 1, 20) > 0) drain(errFd_, false);
    }
    reap(true);
    return exitCode();
}

std::optional<int> ChildProcess::tryWait() {
    drainReady(0);
    if (running()) return std::nullopt;
    return exitCode();
}

// What the pipes hold, read into the buffers (a bounded number of chunks: a child that never stops
// writing does not keep us here); waits up to `waitMs` for the first to arrive.
void ChildProcess::drainReady(int waitMs) {
    for (int round = 0; round < 16; ++round) {
        pollfd fds[2] = {{outFd_, POLLIN, 0}, {errFd_, POLLIN, 0}};  // a closed one (-1) is skipped
        if (::poll(fds, 2, round == 0 ? waitMs : 0) <= 0) return;
        if (fds[0].revents) drain(outFd_, true);
        if (fds[1].revents) drain(errFd_, false);
    }
}

int ChildProcess::exitCode() const {
    if (!status_) return -1;
    if (WIFEXITED(*status_)) return WEXITSTATUS(*status_);
    if (WIFSIGNALED(*status_)) return 128 + WTERMSIG(*status_);
    return -1;
}

std::string ChildProcess::describeExit() {
    const int code = wait();
    if (status_ && WIFSIGNALED(*status_)) {
        const int sig = WTERMSIG(*status_);
        return "was killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
    }
    return "exited with status " + std::to_string(code);
}

std::string ChildProcess::stderrTail() const {
    std::string tail;
    for (const auto& l : errLines_) tail += l + "\n";
    tail += errPartial_;
    if (tail.size() > kTailBytes) tail.erase(0, tail.size() - kTailBytes);
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
    return tail;
}

}  // namespace wb
