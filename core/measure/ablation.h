// Ablation: from a baseline preset, apply the fixes one at a time (and optionally each alone on top of
// the baseline), train every step for real through the Trainer on the same prepared data, model,
// initial weights and seed, and measure what each fix saved. The result is the data of a waterfall:
// baseline level - last level = the sum of the steps' savings, exactly by construction.
// The runner is here; the fixes and the plan are in ablation_catalogue.h, the result and its files in
// ablation_result.h (both included). No Qt, no CUDA.
#pragma once

#include <functional>
#include <string>

#include "core/data/dataset.h"
#include "core/data/prepare.h"
#include "core/measure/ablation_catalogue.h"
#include "core/measure/ablation_result.h"
#include "core/run/backend.h"
#include "core/run/run_config.h"

namespace wb {

struct AblationCallbacks {
    // Before each run: the step's index in the plan (0 = baseline; alone steps follow the cumulative
    // ones, then the closing step without the costly fixes, then the subsets measured for the
    // attribution, AblationResult::subsets), its name, the run's number for that step (1-based: the
    // round, or a make-up run of a step that joined late), and the number of runs planned as far as
    // is known now (it grows as configurations join the rounds; more rounds may follow where the
    // target asks for them).
    std::function<void(int step, const std::string& name, int repeat, int plannedRuns)> onRunStarted;
    std::function<void(const EpochMetrics&)> onEpoch;
    // After every run of a step (and once for a step that did not run), with the result so far (levels
    // and savings already updated).
    std::function<void(const AblationResult&, const AblationStep&)> onStepFinished;
};

// Runs `plan` on `base` (data, model, optimizer, training, backend; its execution is replaced by each
// step's). `data` is `dataset` prepared once. Every run gets a fresh backend from the registry.
// Round 1 runs every step once, deciding what is applied; rounds 2..repeats (and more within the
// plan's target and budget) run the measured steps again in the same order, so the load of a busy
// machine spreads over all steps. Steps that join later (the closing step, the subsets of the
// honoured fixes) are measured inside the rounds too. onStepFinished is called after every run of a
// step.
// Throws ConfigError for a bad plan or config before anything runs; every later failure is recorded.
AblationResult runAblation(const AblationPlan& plan, const RunConfig& base, const Dataset& dataset,
                           const PreparedData& data, const CancelFlag& cancel, const AblationCallbacks& callbacks = {});

}  // namespace wb
