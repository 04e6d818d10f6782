// A child process in a process group of its own, with its stdout read line by line and the tail of
// its stderr kept for error messages, or its output sent to a file descriptor of the caller's: the
// one way the workbench starts a program (a framework's training loop in the user's Python, verify's
// isolated children, a sweep's trials, sbatch and squeue, `mlpwb report`'s mlp-workbench).
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
    struct Options {
        Input input = Input::None;
        // Where its stdout and its stderr go: -1, a pipe this object reads (readLine, stderrTail);
        // else a file descriptor of the caller's, which the child gets as it is (a trial's log for
        // both; our own 1 and 2 to hand a program the terminal). The caller still closes it.
        int stdoutFd = -1;
        int stderrFd = -1;
    };
    // Starts argv[0] (searched on PATH when it has no '/'). Throws ProcessError, naming the program,
    // when it cannot be started (no such file, not executable).
    explicit ChildProcess(const std::vector<std::string>& argv, Input input = Input::None);
    ChildProcess(const std::vector<std::string>& argv, const Options& options);
    ~ChildProcess();  // ends the whole process group: the child if it still runs, and what it left
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;

    enum class Read { Line, EndOfOutput, Cancelled, TimedOut };
    // Waits for the next complete stdout line (without the newline), checking `cancel` every 50 ms.
    // `cancel` may be null; `timeout` bounds the wait. Throws ProcessError for a line over 16 MiB
    // (a program writing without newlines would otherwise fill the memory). EndOfOutput at once
    // when stdout goes to a file descriptor.
    Read readLine(std::string& line, const CancelFlag* cancel,
                  std::chrono::milliseconds timeout = std::chrono::hours(24 * 365));

    // Writes `line` and a newline to the child's stdin (Input::Channel). Throws ProcessError when the
    // child is gone or was started without a channel.
    void writeLine(const std::string& line);
    // Forgets the stderr kept so far: a kept interpreter's next loop reports its own errors only.
    void clearStderrTail();

    // SIGTERM to the whole group (the interpreter and any DataLoader workers), SIGKILL after `grace`.
    void terminate(std::chrono::milliseconds grace = std::chrono::milliseconds(300));
    // Without waiting, while it runs: SIGTERM to the whole group (a trial stops between steps and
    // saves its state), or SIGKILL (one that did not stop when asked).
    void askToStop();
    void kill();
    // Waits for the exit (terminating it after `timeout`); returns the exit status: the code, or
    // 128 + signal for a kill. Idempotent.
    int wait(std::chrono::milliseconds timeout = std::chrono::seconds(30));
    // The exit status once it has ended, nullopt while it runs; never blocks. What its pipes hold is
    // read meanwhile, so a child that writes does not stall on a full pipe (wait() afterwards collects
    // the rest of its stderr).
    std::optional<int> tryWait();
    bool running();
    // "exited with status 1" / "was killed by signal 9 (Killed)".
    std::string describeExit();
    // The last lines the process wrote to stderr (at most ~30 lines, 4 KiB), oldest first.
    std::string stderrTail() const;

private:
    void drain(int fd, bool isStdout);
    void drainReady(int waitMs);
    bool reap(bool block);
    int exitCode() const;
    void signalGroup(int signal);

    std::string program_;  // argv[0], for the messages
    pid_t pid_ = -1;
    int inFd_ = -1, outFd_ = -1, errFd_ = -1;
    std::string outBuffer_, errPartial_;
    std::deque<std::string> errLines_;
    std::optional<int> status_;  // waitpid status once reaped
};

}  // namespace wb
