// Running a sweep's trials on an engine, for `mlpwb sweep` (a new sweep) and `mlpwb sweep resume`:
// the local pool with its progress bar and Ctrl+C, or a SLURM job array followed to its end.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sweep/sweep_folder.h"

namespace CLI {
class App;
}

namespace wb::cli {

struct EngineChoice {
    std::string kind = "local";  // local | slurm
    // local
    std::optional<int> jobs;
    bool exclusive = false;
    // slurm
    std::vector<std::string> slurmArgs;
    int maxParallel = 0;
    bool follow = true;  // wait for the array's end, printing progress
};

// The engine options of `mlpwb sweep` and `mlpwb sweep resume` (--engine, --jobs, --exclusive,
// --slurm-arg, --max-parallel, --no-follow).
void bindEngine(CLI::App& cmd, EngineChoice& engine, bool& noFollow);

// The threads of the widest of trials `ids` (`--threads 0`, all cores, counts as `allCores`): what
// every trial is given room for (the local pool's slots, a SLURM task's CPUs), whatever its place.
int widestThreads(const sweep::SweepPlan& plan, const std::vector<int>& ids, int allCores);

// The engine a sweep folder was started with (sweep.json's "engine"), as a default for resume. Throws
// DataError for an engine of the wrong shape, ConfigError (naming it) for a SLURM option with a line
// break or a NUL byte (sweep::checkSbatchArgs), which would inject a shell line into the batch script.
EngineChoice engineOf(const sweep::SweepPlan& plan);
// sweep.json's "engine"; throws ConfigError, as engineOf, for such a --slurm-arg (before anything is
// written: `mlpwb sweep` makes it before the folder).
nlohmann::json toJson(const EngineChoice& e);

// The cores the local pool may fill (the CPUs this process may run on).
int usableCores();

// Threads per trial under `engine` when neither the base options nor a parameter set --threads:
// the local pool's choice, or the SLURM --cpus-per-task (default 1).
int defaultTrialThreads(const EngineChoice& engine, int trials, std::optional<int> threads);

// Runs `ids` of the folder; the caller holds its driver lock. Returns the exit code: 0 when each
// ran to completion, 8 when one failed, 130 when stopped (Ctrl+C, SIGTERM).
int runOnEngine(const sweep::SweepFolder& folder, const std::vector<int>& ids, const EngineChoice& engine);

// The path of this mlpwb, for the trial processes and the batch script.
std::string selfPath();

}  // namespace wb::cli
