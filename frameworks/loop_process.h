// The process a framework's training loop runs in: an interpreter of its own, started for the loop and
// ended with it; or, while a KeepWarm lives (core/train/keep_warm.h), an interpreter kept from the loops
// before, which runs the loop's script on request (runpy), so that importing PyTorch, TensorFlow or
// JAX (2-6 s on a laptop-class CPU) is paid once per ablation rather than once per run. The loop's
// lines are the same either way: the script's "ready" line, one line an epoch.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/platform/child_process.h"
#include "core/platform/errors.h"
#include "core/run/backend.h"  // CancelFlag

namespace wb {

class LoopProcess {
public:
    // Runs `script` with `args` in `python`, for `framework` on `device` (which interpreters may be
    // shared: one of the same interpreter, framework and device). Throws FrameworkError when the
    // interpreter cannot be started (ChildProcess's ProcessError, with the framework named), as
    // readLine() and finish() do for a line without end.
    LoopProcess(const std::string& python, const std::string& framework, const std::string& device,
                const std::string& script, const std::vector<std::string>& args);
    // A kept interpreter whose loop ended cleanly goes back for the next loop (while a KeepWarm
    // lives); any other interpreter ends, with whatever it started.
    ~LoopProcess();
    LoopProcess(const LoopProcess&) = delete;
    LoopProcess& operator=(const LoopProcess&) = delete;

    // The loop's next stdout line; EndOfOutput once the loop has ended (its status: finish()).
    ChildProcess::Read readLine(std::string& line, const CancelFlag* cancel);
    // Waits for the loop's end (at most `timeout`) and returns its exit status (0: completed).
    int finish(std::chrono::milliseconds timeout);
    // Ends the loop now (Stop): the interpreter with it, kept or not.
    void terminate();
    // "exited with status 1" / "was killed by signal 9 (Killed)": how the loop ended.
    std::string describeEnd();
    std::string stderrTail() const { return child_->stderrTail(); }
    // How the interpreter came to run this loop, for the run's record: "new", or "kept (loop N)".
    std::string interpreter() const;

    // Interpreters kept for the next loop now (for tests and diagnostics).
    static std::size_t keptInterpreters();

private:
    void start(const std::string& python, const std::string& script, const std::vector<std::string>& args);
    ChildProcess::Read readLineFor(std::string& line, const CancelFlag* cancel, std::chrono::milliseconds timeout);
    ChildProcess::Read nextLine(std::string& line, const CancelFlag* cancel, std::chrono::milliseconds timeout);
    FrameworkError loopError(const ProcessError& e) const;

    std::string key_;
    std::string framework_;
    std::unique_ptr<ChildProcess> child_;
    bool kept_ = false;         // a kept interpreter runs the loop on request
    int loop_ = 1;              // the loop's number in its interpreter
    std::optional<int> ended_;  // a kept loop's status, once its end line came
};

}  // namespace wb
