#include "sweep/trial_process.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>

#include "core/platform/child_process.h"
#include "core/platform/errors.h"
#include "core/platform/safe_open.h"

namespace wb::sweep {

namespace {
constexpr auto kForever = std::chrono::hours(24 * 365);

// The log's descriptor, closed once the child has its copy.
struct LogFile {
    int fd;
    explicit LogFile(const std::string& path) : fd(openOwnFile(path, O_WRONLY | O_CREAT | O_APPEND, "the trial log")) {}
    ~LogFile() { ::close(fd); }
    LogFile(const LogFile&) = delete;
    LogFile& operator=(const LogFile&) = delete;
};
}  // namespace

TrialProcess::TrialProcess(const std::vector<std::string>& argv, const std::string& logPath) {
    const LogFile log(logPath);
    ChildProcess::Options options;
    options.stdoutFd = log.fd;
    options.stderrFd = log.fd;
    child_ = std::make_unique<ChildProcess>(argv, options);
}

TrialProcess::TrialProcess(TrialProcess&& other) noexcept = default;

TrialProcess::~TrialProcess() {
    if (child_ && !child_->tryWait()) {
        child_->askToStop();
        child_->wait(kForever);
    }
}

std::optional<int> TrialProcess::poll() {
    return child_ ? child_->tryWait() : std::nullopt;
}

void TrialProcess::terminate() {
    if (child_) child_->askToStop();
}

void TrialProcess::kill() {
    if (child_) child_->kill();
}

int TrialProcess::wait() {
    return child_ ? child_->wait(kForever) : -1;
}

CommandResult runCommand(const std::vector<std::string>& argv) {
    CommandResult result;
    try {
        ChildProcess child(argv);
        std::string line;
        while (child.readLine(line, nullptr) == ChildProcess::Read::Line) result.out += line + "\n";
        result.exitCode = child.wait(std::chrono::hours(24));
        result.err = child.stderrTail();
    } catch (const ProcessError& e) {  // it could not be started, or wrote an unbounded line
        result.err = e.what();
    }
    return result;
}

}  // namespace wb::sweep
