// The local engine: a pool of trial processes on this machine that keeps every core busy without
// oversubscribing it (the threads of the trials running at once never exceed the cores).
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sweep/sweep_folder.h"

namespace wb::sweep {

struct PoolSize {
    int jobs = 1;     // trials at once
    int threads = 1;  // CPU threads per trial
};

// jobs x threads <= cores. Defaults: one thread per trial and one trial per core; --exclusive:
// one trial at a time with every core. Only what the user gave is kept as given (then the other
// figure is fitted to the cores; both given may oversubscribe, and that is the user's choice).
PoolSize choosePool(int cores, int trials, std::optional<int> jobs, std::optional<int> threads, bool exclusive);

// How the epoch times of a trial run in this pool were measured (TrialStatus::timing).
std::string poolTiming(const PoolSize& pool, int cores);

struct LocalProgress {
    int total = 0, finished = 0, running = 0, failed = 0;  // failed: ended, or left, not completed
};

struct LocalEngineOptions {
    // The command that runs one trial, less its id: {"/usr/bin/mlpwb", "sweep", "run-trial", DIR, ...}.
    std::vector<std::string> trialCommand;
    int jobs = 1;   // the most trials at once
    int cores = 1;  // the budget of threads: a trial weighs its config's threads (0: all cores)
    std::function<void(const LocalProgress&)> onProgress;  // after every change, from the driver's thread
    // One line for a trial this pool could not run to a state of its own: another process runs it,
    // its log or folder was refused, or it ended without writing its end (a full disk: the last
    // line of its log, "... No space left on device", is then its error).
    std::function<void(int id, const std::string& problem)> onProblem;
    int secondsToStop = 10;  // after SIGTERM, a trial that has not ended is killed (SIGKILL)
};

// Runs the trials `ids` of `folder` and returns when each of the processes it started has ended.
// A trial that another process is running (its lock held) is left to it, never waited for. When
// `cancel` becomes true, the running trials are sent SIGTERM (they end `cancelled`, their records
// saved; one still there `secondsToStop` later is killed) and the pending ones stay pending for
// `resume`. Returns the progress at the end.
LocalProgress runLocal(const SweepFolder& folder, const std::vector<int>& ids, const LocalEngineOptions& options,
                       const std::atomic<bool>& cancel);

}  // namespace wb::sweep
