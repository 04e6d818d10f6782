// `mlpwb sweep` and `mlpwb sweep resume` for method: bayes: batches of trials suggested by Optuna
// (sweep/bayes_search.h), appended to the folder and run on the engine, batch after batch, until
// run_cap trials have run, a trial reaches metric.target, or the user stops it. A batch is as many
// trials as the engine runs at once: the local pool's jobs, or a SLURM array's --max-parallel
// (kSlurmBatch without one).
#pragma once

#include <string>
#include <vector>

#include "cli/sweep_engine_run.h"
#include "sweep/sweep_folder.h"

namespace wb::cli {

inline constexpr int kSlurmBatch = 4;

// Before anything runs: checks that `python` imports optuna and that the engine follows its trials
// (the next batch needs their results). ConfigError otherwise, with the command that installs Optuna.
// `python` comes from the user's own command line or environment (a new sweep's --python, resume's
// --python, $MLPWB_PYTHON), never from a sweep folder, which may come from elsewhere.
void checkBayesCanRun(const std::string& python, const EngineChoice& engine);

// Runs `unfinished` (what an earlier driver left: a kill -9 repeats no completed trial), then asks
// and runs batch after batch. The caller holds the driver lock. Returns the exit code as runOnEngine.
int driveBayes(sweep::SweepFolder& folder, const std::string& python, const std::vector<int>& unfinished,
               const EngineChoice& engine);

}  // namespace wb::cli
