// Ablation: from a baseline preset, apply the fixes one at a time (and optionally each alone on top of
// the baseline), train every step for real through the Trainer on the same prepared data, model,
// initial weights and seed, and measure what each fix saved. The result is the data of a waterfall:
// baseline level - last level = the sum of the steps' savings, exactly by construction.
// JSON schema "mlpwb.ablation/1" (see DESIGN.md); no Qt, no CUDA.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "backend.h"
#include "dataset.h"
#include "execution_settings.h"
#include "prepare.h"
#include "run_config.h"
#include "run_record.h"

namespace wb {

// One fix: a name the user picks ("launch") and the switches it sets ({"launch", "graph_step"}).
struct AblationFix {
    std::string name;
    std::string description;                                // one line, for tables and tooltips
    std::vector<std::pair<std::string, std::string>> sets;  // switch name -> value (describeSwitches names)
};

// The built-in fixes in their default order: data_path, launch, loss, zero_grad, optimizer_kernel,
// precision, fused.
const std::vector<AblationFix>& ablationFixes();
std::vector<std::string> defaultFixOrder();
// A built-in fix by name, or a custom one written "switch=value" (e.g. "precision=bf16").
// Throws ConfigError for an unknown name, switch or value.
AblationFix ablationFixByName(const std::string& name);

struct AblationPlan {
    std::string baseline = "Seed PyTorch loop";          // a preset name
    std::vector<std::string> fixes = defaultFixOrder();  // applied cumulatively, in this order
    int repeats = 3;        // runs per step, in rounds (every step once, then again): the spread of the waterfall
    bool alone = false;     // also each fix alone on top of the baseline
    void validate() const;  // throws ConfigError
};

// What became of a step. Only `Ran` steps have runs; every other step keeps the previous level, so it
// shows in the waterfall as a bar of height zero with the reason.
enum class StepStatus {
    Ran,            // trained `repeats` times
    Refused,        // the combination is refused (ExecutionSettings::refusal or the backend): not applied
    NotApplicable,  // every switch the fix changes is ignored by this backend: applied, not run
    Failed,         // a run failed or diverged: not applied
    Cancelled,      // stopped by the user: the ablation ends here
};
std::string toString(StepStatus s);
StepStatus stepStatusFromString(const std::string& s);  // throws ConfigError

// The final metrics of a step (from its last run).
struct StepFinal {
    double trainLoss = 0;
    double trainAccuracy = 0;
    std::optional<double> valLoss;
    std::optional<double> valAccuracy;
};

struct AblationStep {
    std::string name;         // "baseline" or the fix's "switch=value, ..." as applied, e.g. "launch=graph_step"
    std::string fix;          // the fix's name; empty for the baseline
    std::string description;  // what the fix does, in a line; the preset's description for the baseline
    StepStatus status = StepStatus::Ran;
    std::string message;          // why refused, not applicable or failed; notes otherwise
    ExecutionSettings settings;   // the settings after this step (what ran, when it ran)
    std::vector<RunRecord> runs;  // one per repeat; empty when the step did not run
    // Median over the runs of each run's median epoch ms (warm-up excluded, as RunRecord::summary);
    // for a step that did not run, the previous step's level.
    double medianEpochMs = 0;
    double minEpochMs = 0;  // the spread over the repeats: min and max of the runs' medians
    double maxEpochMs = 0;
    double savedMs = 0;              // previous level - this level (alone steps: baseline - this)
    std::optional<double> share;     // savedMs / the total gap; null when the gap is zero
    std::optional<StepFinal> final;  // null when the step did not run

    bool measured() const { return !runs.empty(); }
};

enum class AblationStatus { Running, Completed, Cancelled, Failed };
std::string toString(AblationStatus s);

struct AblationResult {
    static constexpr const char* kSchema = "mlpwb.ablation/1";
    AblationPlan plan;
    nlohmann::json config;  // the common RunConfig (execution = the baseline's)
    std::string backend;    // "cpu", "cuda"
    std::string device;
    AblationStatus status = AblationStatus::Running;
    std::string message;
    std::vector<AblationStep> steps;  // the baseline first, then the fixes cumulatively
    std::vector<AblationStep> alone;  // each fix alone on top of the baseline (plan.alone)

    // Baseline level - last level; 0 without steps. Equal to the sum of steps[1..].savedMs.
    double totalGapMs() const;
    // Recomputes savedMs and share of every step from the levels (called after every step).
    void updateSavings();

    nlohmann::json toJson() const;
    static AblationResult fromJson(const nlohmann::json& j);  // throws DataError
    void save(const std::string& path) const;                 // atomic; throws IoError
    static AblationResult load(const std::string& path);      // throws DataError
    // One line per step (cumulative, then alone): the table of the CLI and the GUI's CSV export.
    void saveCsv(const std::string& path) const;  // throws IoError
};

struct AblationCallbacks {
    // Before each run: the step's index in the plan (0 = baseline; alone steps follow the cumulative
    // ones), its name, the repeat (1-based), and the number of runs planned in all.
    std::function<void(int step, const std::string& name, int repeat, int plannedRuns)> onRunStarted;
    std::function<void(const EpochMetrics&)> onEpoch;
    // After every run of a step (and once for a step that did not run), with the result so far (levels
    // and savings already updated).
    std::function<void(const AblationResult&, const AblationStep&)> onStepFinished;
};

// Runs `plan` on `base` (data, model, optimizer, training, backend; its execution is replaced by each
// step's). `data` is `dataset` prepared once. Every run gets a fresh backend from the registry.
// Round 1 runs every step once, deciding what is applied; rounds 2..repeats run the measured steps
// again in the same order, so the load of a busy machine spreads over all steps. onStepFinished is
// called after every run of a step.
// Throws ConfigError for a bad plan or config before anything runs; every later failure is recorded.
AblationResult runAblation(const AblationPlan& plan, const RunConfig& base, const Dataset& dataset,
                           const PreparedData& data, const CancelFlag& cancel, const AblationCallbacks& callbacks = {});

// The total number of runs `plan` may make (each step x repeats).
int plannedRuns(const AblationPlan& plan);

}  // namespace wb
