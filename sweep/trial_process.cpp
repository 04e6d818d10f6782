#include "sweep/trial_process.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "core/platform/child_process.h"
#include "core/platform/errors.h"
#include "core/platform/safe_open.h"

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
    try {
        ChildProcess child(argv);
        std::string line;
        while (child.readLine(line, nullptr) == ChildProcess::Read::Line) result.out += line + "\n";
        result.exitCode = child.wait(std::chrono::hours(24));
        result.err = child.stderrTail();
    } catch (const Error& e) {  // it could not be started, or wrote an unbounded line
        result.err = e.what();
    }
    return result;
}

}  // namespace wb::sweep
