// A child process in a process group of its own, with its stdout read line by line and the tail of
// its stderr kept for error messages: the one way the workbench starts a program (a framework's
// training loop in the user's Python, verify's isolated children, a sweep's sbatch and squeue).
// Arguments are a vector, never a shell line.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "core/platform/cancel_flag.h"

namespace wb {

class ChildProcess {
public:
    // Where the child's stdin comes from: /dev/null, or a channel that writeLine() writes to.
    enum class Input { None, Channel };
    // Starts argv[0] (searched on PATH when it has no '/'). Throws FrameworkError when it cannot be
    // started (no such file, not executable).
    explicit ChildProcess(const std::vector<std::string>& argv, Input input = Input::None);
    ~ChildProcess();  // ends the whole process group: the child if it still runs, and what it left
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;

    enum class Read { Line, EndOfOutput, Cancelled, TimedOut };
    // Waits for the next complete stdout line (without the newline), checking `cancel` every 50 ms.
    // `cancel` may be null; `timeout` bounds the wait. Throws FrameworkError for a line over 16 MiB
    // (a program writing without newlines would otherwise fill the memory).
    Read readLine(std::string& line, const CancelFlag* cancel,
                  std::chrono::milliseconds timeout = std::chrono::hours(24 * 365));

    // Writes `line` and a newline to the child's stdin (Input::Channel). Throws FrameworkError when the
    // child is gone or was started without a channel.
    void writeLine(const std::string& line);
    // Forgets the stderr kept so far: a kept interpreter's next loop reports its own errors only.
    void clearStderrTail();

    // SIGTERM to the whole group (the interpreter and any DataLoader workers), SIGKILL after `grace`.
    void terminate(std::chrono::milliseconds grace = std::chrono::milliseconds(300));
    // Waits for the exit (terminating it after `timeout`); returns the exit status: the code, or
    // 128 + signal for a kill. Idempotent.
    int wait(std::chrono::milliseconds timeout = std::chrono::seconds(30));
    bool running();
    // "exited with status 1" / "was killed by signal 9 (Killed)".
    std::string describeExit();
    // The last lines the process wrote to stderr (at most ~30 lines, 4 KiB), oldest first.
    std::string stderrTail() const;

private:
    void drain(int fd, bool isStdout);
    bool reap(bool block);

    pid_t pid_ = -1;
    int inFd_ = -1, outFd_ = -1, errFd_ = -1;
    std::string outBuffer_, errPartial_;
    std::deque<std::string> errLines_;
    std::optional<int> status_;  // waitpid status once reaped
};

}  // namespace wb
