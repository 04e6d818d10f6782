// The result of an ablation: its steps (levels, savings, runs) and its files, JSON schema
// "mlpwb.ablation/1" (see docs/ARCHITECTURE.md) and a CSV table. No Qt, no CUDA.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/measure/ablation_catalogue.h"
#include "core/measure/speed_comparison.h"
#include "core/model/execution_settings.h"
#include "core/model/precision_note.h"
#include "core/platform/machine_load.h"
#include "core/run/framework_options.h"
#include "core/run/quality_metric.h"
#include "core/run/run_record.h"

namespace wb {

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

// The final metrics of a step (from its last run), as EpochMetrics holds them: a classification's
// accuracy, a regression's MSE, MAE and R^2 (JSON "train_r2" etc.; its accuracy is written as null).
struct StepFinal {
    double trainLoss = 0;
    double trainAccuracy = 0;
    std::optional<double> valLoss;
    std::optional<double> valAccuracy;
    std::optional<RegressionMetrics> trainRegression{}, valRegression{};  // null for classification

    // The value of metric `q` (quality_metric.h) on the training rows or the validation split.
    std::optional<double> quality(QualityMetric q, bool validation = false) const;
};

struct AblationStep {
    // The fix of the closing step the runner adds when some fixes cost time: every fix but those.
    static constexpr const char* kWithoutCostly = "without_costly";

    std::string name;         // "baseline" or the fix's "switch=value, ..." as applied, e.g. "launch=graph_step"
    std::string fix;          // the fix's name; empty for the baseline
    std::string description;  // what the fix does, in a line; the preset's description for the baseline
    StepStatus status = StepStatus::Ran;
    std::string message;  // why refused, not applicable or failed; notes otherwise
    // What to expect of a step that runs, as data ({switch, reason}; JSON "notes", absent when empty):
    // e.g. precision at widths too small for a faster multiply to shorten a step (precision_note.h).
    std::vector<SwitchNote> notes;
    ExecutionSettings settings;   // the settings after this step (what ran, when it ran)
    TorchOptions torch;           // the torch backend's options after this step
    std::vector<RunRecord> runs;  // one per repeat; empty when the step did not run
    // Median over the runs of each run's median epoch ms (warm-up excluded, as RunRecord::summary);
    // for a step that did not run, the previous step's level.
    double medianEpochMs = 0;
    double minEpochMs = 0;  // the spread over the repeats: min and max of the runs' medians
    double maxEpochMs = 0;
    double savedMs = 0;              // previous level - this level (alone steps: baseline - this)
    std::optional<double> share;     // savedMs / the total gap (seed - fixed loop); null when the gap is no
                                     // difference, and for a step after the fixed loop
    std::optional<StepFinal> final;  // null when the step did not run

    // Each note as a line, its switch's name then its reason ("precision cannot help at widths ..."):
    // what the CLI's table and the GUI's Ablation tab show.
    std::vector<std::string> noteLines() const;
    bool measured() const { return !runs.empty(); }
    // Its level with the spread of its runs (one run: of its epochs), as compareSpeed takes it.
    TimeSpread spread() const;
};

// A combination of the fixes the engine honoured, measured so that the attribution need not follow
// one order (ablation_attribution.h: Shapley values, leave-one-out). Bit i of `mask` is
// AblationResult::subsetFixes[i]; mask 0 is the seed loop.
struct SubsetLevel {
    unsigned mask = 0;
    std::vector<std::string> fixes;   // its fixes' step names, for a reader of the file
    std::optional<std::size_t> step;  // the cumulative step whose runs measured it (none measured twice)
    // Per round, the median epoch ms of its run: entry i stands for round i + 1 (a subset measured
    // from a later round on made the rounds it missed up in that round: AblationRunner's runRound).
    std::vector<double> roundMs;
};

enum class AblationStatus { Running, Completed, Cancelled, Failed };
std::string toString(AblationStatus s);

struct AblationResult {
    static constexpr const char* kSchema = "mlpwb.ablation/1";
    AblationPlan plan;
    RunConfig config;     // the common configuration (execution = the baseline's)
    std::string backend;  // "cpu", "cuda"
    // The data's task (JSON "task"; files without it: the task of the first recorded run, else binary).
    Task task = Task::Binary;
    std::string device;
    AblationStatus status = AblationStatus::Running;
    std::string message;
    int rounds = 0;                      // the rounds made (repeats, and more where the plan's target asked for them)
    std::optional<MachineLoad> machine;  // the machine's state over the ablation (null in older files)
    std::string precision;               // how well the medians are known, and why the rounds stopped, in words
    std::vector<AblationStep> steps;     // the baseline first, then the fixes cumulatively
    std::vector<AblationStep> alone;     // each fix alone on top of the baseline (plan.alone)
    // The honoured fixes the subsets combine (indices into steps: the cumulative steps that ran, in
    // plan order; bit i of a mask is subsetFixes[i]), and the subsets measured: every one of the 2^k
    // (Shapley values), or the leave-one-out ones (every fix but one, with all of them and the seed
    // loop); empty where none were. `combinations` says which, or why none, in words. JSON
    // "combinations": {"note", "fixes", "subsets": [{"mask", "fixes", "step", "round_ms"}]}, absent
    // where there is nothing to say (files written before it load with none).
    std::vector<std::size_t> subsetFixes;
    std::vector<SubsetLevel> subsets;
    std::string combinations;
    static constexpr std::size_t kMaxRoundsInFile = 128;  // a file's round_ms beyond it is refused

    // The rounds made, or the plan's repeats where the result does not say (one made by hand).
    int roundsMade() const { return rounds > 0 ? rounds : plan.repeats; }
    // The seed loop and the fixed loop: the baseline once it ran, and the fastest measured cumulative
    // step, the seed loop included (null until a step after it ran). Not the last step: a fix that
    // costs time on this engine (graph capture on a CPU) leaves the steps from it on slower, and the
    // loop to recommend is the fastest one measured; where every fix costs time, the seed loop.
    const AblationStep* seedLoop() const;
    const AblationStep* fixedLoop() const;
    // The measured cumulative steps after the fixed loop: fixes it leaves out (measured only on top
    // of a slower step).
    std::vector<const AblationStep*> leftOut() const;
    // Seed loop level - fixed loop level; 0 before both ran. Equal to the sum of the savedMs of the
    // steps up to the fixed loop.
    double totalGapMs() const;
    // The metric the views and tables show beside the loss: the task's (qualityFor).
    QualityMetric quality() const { return qualityFor(task); }
    // The baseline against the last measured step, with the spread of their repeats (one run: of its
    // epochs); null before two steps are measured.
    std::optional<SpeedComparison> gapComparison() const;
    // Recomputes savedMs and share of every step from the levels (called after every step). Shares
    // are null when the total gap lies inside the spread (no measurable difference).
    void updateSavings();

    nlohmann::json toJson() const;
    static AblationResult fromJson(const nlohmann::json& j);  // throws DataError
    void save(const std::string& path) const;                 // atomic; throws IoError
    static AblationResult load(const std::string& path);      // throws DataError
    // One line per step (cumulative, then alone): the table of the CLI and the GUI's CSV export.
    void saveCsv(const std::string& path) const;  // throws IoError
};

}  // namespace wb
