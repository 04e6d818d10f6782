// The processes a sweep starts, both through ChildProcess (core/platform/child_process.h): a trial
// (`mlpwb sweep run-trial DIR ID`, its output appended to the trial's log, in a process group of its
// own so a Ctrl+C reaches the driver alone, which then stops the trials itself), and a short command
// whose output is read (sbatch, squeue).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace wb {
class ChildProcess;
}

namespace wb::sweep {

class TrialProcess {
public:
    // Starts argv (argv[0] a path, or a name searched on PATH) with stdin from /dev/null and stdout +
    // stderr appended to `logPath`. Throws IoError when the log cannot be opened (a symlink or anything
    // but a plain file of its own is refused: safe_open.h), ProcessError when the process cannot be
    // started.
    TrialProcess(const std::vector<std::string>& argv, const std::string& logPath);
    ~TrialProcess();  // a still running trial is terminated and reaped
    TrialProcess(TrialProcess&& other) noexcept;
    TrialProcess& operator=(TrialProcess&&) = delete;
    TrialProcess(const TrialProcess&) = delete;

    // The exit status once it has ended (the code, or 128 + the signal); nullopt while it runs.
    std::optional<int> poll();
    void terminate();  // SIGTERM to its group: the trainer stops between steps, the trial ends cancelled
    void kill();       // SIGKILL to its group: for one that did not stop when asked
    int wait();        // blocks until it ends

private:
    std::unique_ptr<ChildProcess> child_;
};

struct CommandResult {
    int exitCode = -1;  // -1: it could not be started
    std::string out, err;
};

// Runs argv (searched on PATH) to its end and returns what it printed (its stderr's last lines).
// Never throws for the command's own failure: the caller reads exitCode and err.
CommandResult runCommand(const std::vector<std::string>& argv);

}  // namespace wb::sweep
