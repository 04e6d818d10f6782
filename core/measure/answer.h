// The founding question answered on this machine: for every engine that can train here (our cpu
// and cuda backends, PyTorch, Keras, JAX), the seed loop, the fixed loop and the ablation between
// them, with repeats, all on the same data, model and initial weights; then a conclusion derived
// from the numbers. What `mlpwb answer` and the GUI's "Answer the question" run. No Qt, no CUDA.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/measure/ablation.h"
#include "core/run/backend.h"
#include "core/run/engines.h"  // installHint, the engines the answer asks

namespace wb {

// What to run on each engine: one ablation from the seed loop with the default fixes, `repeats`
// runs per step of `epochs` epochs each (the epoch times are the question, not the final loss, so a
// few epochs after the warm-up give the medians). The defaults answer the founding workload with all
// four engines of a 2-core machine in under 3 minutes (bench/RESULTS.md): 6 epochs a run (5 timed),
// 30 s an engine, each framework's interpreter kept between its runs (core/train/keep_warm.h).
struct AnswerPlan {
    std::vector<std::string> engines;  // the backends to ask, in this order; empty = every one registered
    int repeats = 3;                   // rounds at least (AblationPlan::repeats)
    int epochs = 6;
    double target = 0.05;       // more rounds until every median is known to ±5 % ...
    double budgetSeconds = 30;  // ... while an engine's ablation has spent less than this
    // The attribution beyond the one order (AblationPlan's): Shapley values where half the budget
    // allows, else leave-one-out where the budget allows (each engine's file says which, and why
    // not); each fix alone when asked (a run per fix and round, most of them as slow as the seed loop).
    bool alone = false, leaveOneOut = true, shapley = true;

    void validate() const;  // throws ConfigError
    // The plan engine `engine` runs: from its seed loop (seedPreset), the default fixes in their
    // order, less those that would change nothing there.
    AblationPlan ablation(const std::string& engine) const;
    // The preset an engine's seed loop is: Keras's is the founding Keras code ("Seed Keras fit",
    // model.fit on the arrays), every other engine's the founding PyTorch loop.
    static std::string seedPreset(const std::string& engine);
};

// One engine's part of the answer.
struct AnswerEngine {
    std::string engine;  // "cpu", "cuda", "torch", "keras", "jax"
    bool available = false;
    std::string device;                      // what it ran on, when available
    std::string reason;                      // why not, when unavailable
    std::string install;                     // the command that makes it available ("pip install jax"); empty when none
    std::optional<AblationResult> ablation;  // null until it ran (or when it could not)

    // The seed loop's level against the fixed loop's, with the spread; null before both ran.
    std::optional<SpeedComparison> gap() const { return ablation ? ablation->gapComparison() : std::nullopt; }
    // The measured step with the largest share of the gap, when its interval is clear of every
    // other cause's (ablation_attribution.h); null when the gap is no difference, or the causes
    // cannot be told apart.
    const AblationStep* largestCause() const;
};

// The founding question in numbers, where both PyTorch's and Keras's seed loops were measured:
// Keras's fit against the PyTorch loop, and PyTorch's fixed loop against Keras's fit, each with the
// spread of their repeats (compareSpeed, the rule of every other comparison).
struct FoundingComparison {
    const AnswerEngine* torch = nullptr;
    const AnswerEngine* keras = nullptr;
    SpeedComparison kerasFit;    // PyTorch's seed loop against Keras's fit: ratio > 1, Keras's fit is faster
    SpeedComparison fixedTorch;  // Keras's fit against PyTorch's fixed loop: ratio > 1, the fixed loop is faster
};

enum class AnswerStatus { Running, Completed, Cancelled, Failed };
std::string toString(AnswerStatus s);

struct Answer {
    static constexpr const char* kSchema = "mlpwb.answer/1";
    AnswerPlan plan;
    RunConfig config;  // the common configuration (its execution is each step's); each run records its data
    AnswerStatus status = AnswerStatus::Running;
    std::string message;
    std::vector<AnswerEngine> engines;  // available ones first, in the plan's order, then the others

    // The plain-language conclusion, one sentence per line, from the numbers alone: the largest gap
    // and its largest cause, each engine's speed-up or "no measurable difference", the fastest
    // epoch here, and what could not be measured with the command that would make it measurable.
    std::vector<std::string> conclusion() const;
    // Null unless PyTorch's and Keras's seed loops both ran (and PyTorch's fixed loop).
    std::optional<FoundingComparison> founding() const;
    const AnswerEngine* engine(const std::string& name) const;  // null when the answer has none of that name

    nlohmann::json toJson() const;
    static Answer fromJson(const nlohmann::json& j);  // throws DataError
    void save(const std::string& path) const;         // atomic; throws IoError
    static Answer load(const std::string& path);      // throws DataError
};

// The engines of `plan` as the probes answer (`infos`: BackendRegistry::list()), available first.
std::vector<AnswerEngine> answerEngines(const AnswerPlan& plan, const std::vector<BackendInfo>& infos);

// How long runAnswer will take on one engine, at most: its seed loop (as a rule its slowest step)
// trained for two epochs, start-up included, scaled to the plan's epochs and runs. Null when that
// run failed (the answer will say why).
struct AnswerEstimate {
    std::string engine;
    std::optional<double> seconds;
};
// Trains for real (each available engine's start-up plus two epochs); stops early on `cancel`.
std::vector<AnswerEstimate> estimateAnswer(const AnswerPlan& plan, const std::vector<AnswerEngine>& engines,
                                           const RunConfig& base, const Dataset& dataset, const PreparedData& data,
                                           const CancelFlag& cancel);

struct AnswerCallbacks {
    // Before each run: the engine, the step's name, its round, and the runs done and planned in all
    // (the engine measuring now as its runner plans it so far, the others by their plans: an estimate
    // that grows as configurations join the rounds and shrinks where fixes do not apply).
    std::function<void(const std::string& engine, const std::string& step, int repeat, int done, int planned)>
        onRunStarted;
    std::function<void(const Answer&)> onProgress;  // after each step of each engine (the answer so far)
};

// Runs each available engine's ablation of `base` on `dataset` (prepared once as `data`), one engine
// after another, and records each, whatever becomes of the others: an engine that fails is recorded
// with its message and the next one runs. Stops at the first cancelled run.
Answer runAnswer(const AnswerPlan& plan, std::vector<AnswerEngine> engines, const RunConfig& base,
                 const Dataset& dataset, const PreparedData& data, const CancelFlag& cancel,
                 const AnswerCallbacks& callbacks = {});

// What a front end hears of answerQuestion, in order.
struct AnswerSteps {
    std::function<void(const std::vector<AnswerEngine>&)> onEngines;  // which engines, available or not
    // The estimate of each engine's time; returns whether to go on and measure (false: the estimate
    // was all that was asked, or it was cancelled). Null: no estimate, straight to the runs.
    std::function<bool(const std::vector<AnswerEstimate>&)> onEstimate;
    AnswerCallbacks runs;
};
// The answer from start to end, the one sequence the CLI and the GUI share: the engines the registry
// probes, their estimate, then every engine's ablation, each framework's interpreter kept from its
// estimate to its last run (KeepWarm). Nullopt when onEstimate said not to go on.
std::optional<Answer> answerQuestion(const AnswerPlan& plan, const RunConfig& base, const Dataset& dataset,
                                     const PreparedData& data, const CancelFlag& cancel, const AnswerSteps& steps);

}  // namespace wb
