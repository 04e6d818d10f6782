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

struct Pipe {
    int read = -1, write = -1;
    Pipe() {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0)
            throw FrameworkError(std::string("cannot create a pipe: ") + std::strerror(errno));
        read = fds[0];
        write = fds[1];
    }
};

void closeFd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

// The child's stdin when the parent writes to it: a socket pair rather than a pipe, so that a write to
// a child that has gone fails with EPIPE (send's MSG_NOSIGNAL) instead of raising SIGPIPE in the
// whole process.
struct Channel {
    int parent = -1, child = -1;
    Channel() {
        int fds[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
            throw FrameworkError(std::string("cannot create a channel: ") + std::strerror(errno));
        parent = fds[0];
        child = fds[1];
    }
};
}  // namespace

ChildProcess::ChildProcess(const std::vector<std::string>& argv, Input input) {
    if (argv.empty()) throw FrameworkError("no program to start");
    Pipe out, err;
    std::optional<Channel> in;
    if (input == Input::Channel) in.emplace();
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    if (in)
        posix_spawn_file_actions_adddup2(&actions, in->child, STDIN_FILENO);
    else
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out.write, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err.write, STDERR_FILENO);
    // A group of its own, so that Stop reaches DataLoader workers too, and Ctrl+C in a terminal
    // reaches only us (we end the child ourselves).
    posix_spawnattr_setpgroup(&attr, 0);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);

    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const int rc = ::posix_spawnp(&pid_, args[0], &actions, &attr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(out.write);
    ::close(err.write);
    if (in) ::close(in->child);
    if (rc != 0) {
        ::close(out.read);
        ::close(err.read);
        if (in) ::close(in->parent);
        pid_ = -1;
        throw FrameworkError("cannot start " + argv[0] + ": " + std::strerror(rc));
    }
    outFd_ = out.read;
    errFd_ = err.read;
    if (in) inFd_ = in->parent;
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
    if (inFd_ < 0) throw FrameworkError("the child was started without an input channel");
    const std::string text = line + "\n";
    for (std::size_t sent = 0; sent < text.size();) {
        const ssize_t n = ::send(inFd_, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw FrameworkError(std::string("cannot write to the child: ") + std::strerror(errno));
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
            throw FrameworkError("the program wrote a line longer than " + std::to_string(kMaxLineBytes >> 20) +
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
        if (ready < 0 && errno != EINTR) throw FrameworkError(std::string("poll failed: ") + std::strerror(errno));
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
        // Keep reading: a child that still writes must not block on a full pipe while we wait.
        pollfd fds[2] = {{outFd_, POLLIN, 0}, {errFd_, POLLIN, 0}};
        if (::poll(fds, 2, 20) > 0) {
            if (fds[0].revents) drain(outFd_, true);
            if (fds[1].revents) drain(errFd_, false);
        }
    }
    // The rest of a traceback written just before the exit; bounded, in case a worker the child
    // left behind still holds the pipe open.
    for (int i = 0; i < 50 && errFd_ >= 0; ++i) {
        pollfd fd = {errFd_, POLLIN, 0};
        if (::poll(&fd, 1, 20) > 0) drain(errFd_, false);
    }
    reap(true);
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
