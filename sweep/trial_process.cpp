#include "trial_process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "errors.h"
#include "safe_open.h"

namespace wb::sweep {

namespace {
std::vector<char*> argvPointers(const std::vector<std::string>& argv) {
    std::vector<char*> p;
    p.reserve(argv.size() + 1);
    for (const auto& a : argv) p.push_back(const_cast<char*>(a.c_str()));
    p.push_back(nullptr);
    return p;
}

int exitStatusOf(int status) {
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// In the child, before exec: only async-signal-safe calls.
[[noreturn]] void execChild(char* const* argv, int out, int err, bool ownGroup, bool searchPath) {
    if (ownGroup) ::setpgid(0, 0);
    ::signal(SIGINT, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    ::signal(SIGPIPE, SIG_DFL);
    const int devNull = ::open("/dev/null", O_RDONLY);
    if (devNull >= 0) ::dup2(devNull, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    if (searchPath)
        ::execvp(argv[0], argv);
    else
        ::execv(argv[0], argv);
    static const char msg[] = "mlpwb: cannot start the program\n";
    (void)!::write(2, msg, sizeof msg - 1);
    ::_exit(127);
}
}  // namespace

TrialProcess::TrialProcess(const std::vector<std::string>& argv, const std::string& logPath) {
    const int log = openOwnFile(logPath, O_WRONLY | O_CREAT | O_APPEND, "the trial log");
    auto args = argvPointers(argv);
    pid_ = ::fork();
    if (pid_ == 0) execChild(args.data(), log, log, true, false);
    const int forkErrno = errno;
    ::close(log);
    if (pid_ < 0) throw IoError(std::string("cannot start a trial: ") + std::strerror(forkErrno));
    ::setpgid(pid_, pid_);  // also here: no race with a terminate() before the child ran setpgid
}

TrialProcess::TrialProcess(TrialProcess&& other) noexcept : pid_(other.pid_), status_(other.status_) {
    other.pid_ = -1;
}

TrialProcess::~TrialProcess() {
    if (pid_ > 0 && !status_) {
        terminate();
        wait();
    }
}

std::optional<int> TrialProcess::poll() {
    if (status_ || pid_ <= 0) return status_;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) status_ = exitStatusOf(status);
    return status_;
}

void TrialProcess::terminate() {
    if (pid_ > 0 && !status_) ::kill(-pid_, SIGTERM);
}

void TrialProcess::kill() {
    if (pid_ > 0 && !status_) ::kill(-pid_, SIGKILL);
}

int TrialProcess::wait() {
    while (!status_ && pid_ > 0) {
        int status = 0;
        const pid_t r = ::waitpid(pid_, &status, 0);
        if (r == pid_) status_ = exitStatusOf(status);
        if (r < 0 && errno != EINTR) status_ = -1;
    }
    return status_.value_or(-1);
}

CommandResult runCommand(const std::vector<std::string>& argv) {
    CommandResult result;
    int out[2], err[2];
    if (::pipe2(out, O_CLOEXEC) != 0) return result;
    if (::pipe2(err, O_CLOEXEC) != 0) {
        ::close(out[0]);
        ::close(out[1]);
        return result;
    }
    auto args = argvPointers(argv);
    const pid_t pid = ::fork();
    if (pid == 0) execChild(args.data(), out[1], err[1], false, true);
    ::close(out[1]);
    ::close(err[1]);
    if (pid < 0) {
        ::close(out[0]);
        ::close(err[0]);
        return result;
    }
    pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    std::string* sinks[2] = {&result.out, &result.err};
    int open = 2;
    while (open > 0) {
        if (::poll(fds, 2, -1) < 0 && errno != EINTR) break;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            char buffer[4096];
            const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
            if (n > 0) {
                sinks[i]->append(buffer, static_cast<std::size_t>(n));
            } else if (n == 0 || errno != EINTR) {
                ::close(fds[i].fd);
                fds[i].fd = -1;
                --open;
            }
        }
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    result.exitCode = exitStatusOf(status);
    return result;
}

}  // namespace wb::sweep
