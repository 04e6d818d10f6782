// The ablation runner: trains the baseline and every fix through the Trainer and records each step.
#include "core/measure/ablation.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <new>
#include <set>

#include "core/measure/ablation_attribution.h"
#include "core/measure/ablation_subsets.h"
#include "core/measure/bootstrap_interval.h"
#include "core/platform/errors.h"
#include "core/run/task_metrics.h"
#include "core/train/keep_warm.h"
#include "core/train/trainer.h"

namespace wb {

namespace {
// The value of switch or torch option `name` in a step.
std::string valueOf(const AblationStep& step, const std::string& name) {
    return isTorchOption(name) ? torchOptionValue(step.torch, name) : switchValue(step.settings, name);
}

std::string stepName(const AblationFix& fix) {
    std::string name;
    for (const auto& [sw, value] : fix.sets) {
        if (!name.empty()) name += ", ";
        name += sw;
        name += '=';
        name += value;
    }
    return name;
}

StepFinal finalOf(const RunRecord& record) {
    const EpochMetrics& last = record.epochs.back();
    return {last.trainLoss,   last.trainAccuracy,   last.valLoss,
            last.valAccuracy, last.trainRegression, last.valRegression};
}

// Level and spread of a step from its runs: the median, min and max of the runs' own medians.
void measure(AblationStep& step) {
    std::vector<double> medians;
    for (const auto& run : step.runs)
        if (auto m = run.summary().medianEpochMs) medians.push_back(*m);
    step.medianEpochMs = median(medians).value_or(0.0);
    step.minEpochMs = medians.empty() ? 0.0 : *std::min_element(medians.begin(), medians.end());
    step.maxEpochMs = medians.empty() ? 0.0 : *std::max_element(medians.begin(), medians.end());
    if (!step.runs.empty() && !step.runs.back().epochs.empty()) step.final = finalOf(step.runs.back());
}

// A step that does not run keeps the level it starts from (a bar of height zero).
void keepLevel(AblationStep& step, double level) {
    step.medianEpochMs = step.minEpochMs = step.maxEpochMs = level;
}

// Runs the ablation's steps; one object so that the shared state (plan, result, callbacks) is in one place.
class AblationRunner {
public:
    AblationRunner(const AblationPlan& plan, const RunConfig& base, const Dataset& dataset, const PreparedData& data,
                   const CancelFlag& cancel, const AblationCallbacks& callbacks)
        : plan_(plan), base_(base), dataset_(dataset), data_(data), cancel_(cancel), callbacks_(callbacks) {}

    AblationResult run() {
        started_ = std::chrono::steady_clock::now();
        result_.plan = plan_;
        RunConfig common = base_;
        common.execution = presetByName(plan_.baseline).settings;
        result_.config = common;
        result_.task = data_.task;  // what the views show beside the loss follows it
        // The device the probe names; the first backend created names the one it runs on (base_.device).
        const BackendInfo info = BackendRegistry::instance().requireAvailable(base_.backend);
        result_.backend = info.name;
        result_.device = info.device;

        const Preset& preset = presetByName(plan_.baseline);
        AblationStep baseline;
        baseline.name = "baseline";
        baseline.description = preset.name + ": " + preset.description;
        baseline.settings = preset.settings;
        baseline.torch = base_.framework.torch;
        runStep(baseline, 0);
        if (!finishStep(result_.steps, std::move(baseline))) return finish();
        if (!result_.steps.back().measured()) return fail("the baseline did not run: " + result_.steps.back().message);

        int index = 1;
        for (const auto& name : plan_.fixes)
            if (!applyFix(result_.steps, ablationFixByName(name), result_.steps.back(), index++)) return finish();
        if (plan_.alone) {
            std::set<std::string> done;
            for (const auto& name : plan_.fixes)
                if (done.insert(name).second &&
                    !applyFix(result_.alone, ablationFixByName(name), result_.steps.front(), index++))
                    return finish();
        }
        if (!repeatRounds()) return finish();
        result_.status = AblationStatus::Completed;
        return finish();
    }

private:
    // Applies `fix` on top of `from` as the next step of `steps`; false when the ablation must stop.
    bool applyFix(std::vector<AblationStep>& steps, const AblationFix& fix, const AblationStep& from, int index) {
        AblationStep step;
        step.name = stepName(fix);
        step.fix = fix.name;
        step.description = fix.description;
        step.settings = from.settings;
        step.torch = from.torch;
        const double level = from.medianEpochMs;
        std::vector<std::string> changed;
        for (const auto& [name, value] : fix.sets) {
            if (valueOf(step, name) != value) changed.push_back(name);
            if (isTorchOption(name))
                setTorchOption(step.torch, name, value);
            else
                setSwitch(step.settings, name, value);
        }
        if (auto refused = step.settings.refusal()) {
            step.status = StepStatus::Refused;
            step.message = *refused;
            step.settings = from.settings;  // a refused fix is not applied: the next fix starts from `from`
            step.torch = from.torch;
            keepLevel(step, level);
        } else if (auto ignored = ignoredByBackend(from, step, changed)) {
            step.status = StepStatus::NotApplicable;
            step.message = *ignored;
            keepLevel(step, level);
        } else {
            if (changed.empty()) step.message = "changes no switch (already set): any difference is noise";
            addNotes(step, changed);
            runStep(step, index);
            if (step.status != StepStatus::Ran) {
                if (step.status != StepStatus::Cancelled) {
                    step.settings = from.settings;
                    step.torch = from.torch;
                }
                keepLevel(step, level);
            }
        }
        return finishStep(steps, std::move(step));
    }

    // The layer widths the runs train: the output layer is the data's task's.
    std::vector<int> modelWidths() const {
        ModelSpec model = base_.model;
        model.outputs = data_.outputs();
        return model.widths(data_.cols);
    }

    // The notes of a step about to run: what the switches it changed can do here (precision_note.h),
    // and what the loss switch means on K classes.
    void addNotes(AblationStep& step, const std::vector<std::string>& changed) const {
        const auto changes = [&](const char* sw) {
            return std::find(changed.begin(), changed.end(), sw) != changed.end();
        };
        if (changes("loss") && data_.task == Task::Multiclass) step.notes.push_back(multiclassLossNote());
        if (!changes("precision")) return;
        if (auto note = precisionNote(result_.backend, step.settings, modelWidths(), base_.train.batchSize))
            step.notes.push_back(*note);
    }

    // Why the backend ignores every switch in `changed` (each one's reason), or nullopt when it honours
    // one of them. A switch is ignored when the backend ignores its old or its new value (precision
    // fp16 -> fp32 on the CPU changes nothing, though fp32 itself is "applicable").
    // A fix that changes nothing is not "not applicable": it runs, and shows it did nothing.
    std::optional<std::string> ignoredByBackend(const AblationStep& from, const AblationStep& to,
                                                const std::vector<std::string>& changed) {
        if (changed.empty()) return std::nullopt;
        const ExecutionSettings &before = from.settings, &after = to.settings;
        const BackendRegistry& registry = BackendRegistry::instance();
        auto ignoredAfter = registry.notApplicable(result_.backend, after);
        auto ignoredBefore = registry.notApplicable(result_.backend, before);
        if (data_.task == Task::Regression) {  // the loss switch names a classification loss's forms
            ignoredAfter.push_back(regressionLossSwitch());
            ignoredBefore.push_back(regressionLossSwitch());
        }
        std::string reasons;
        for (const auto& sw : changed) {
            if (isTorchOption(sw)) {
                const auto why = torchOptionIgnored(sw, after);
                if (!why) return std::nullopt;
                reasons += (reasons.empty() ? "" : "; ") + sw + "=" + torchOptionValue(to.torch, sw) + ": " + *why;
                continue;
            }
            // Each reason as "switch=value: why", the value of the settings that ignore it.
            const IgnoredSwitch* why = findIgnored(ignoredAfter, sw);
            const ExecutionSettings* ignoring = &after;
            if (!why) {
                why = findIgnored(ignoredBefore, sw);
                ignoring = &before;
            }
            if (!why) return std::nullopt;
            reasons += (reasons.empty() ? "" : "; ") + sw + "=" + switchValue(*ignoring, sw) + ": " + why->reason;
        }
        return "not applicable on the " + result_.backend + " backend: " + reasons;
    }

    // Why torch option `name` does nothing under `s` on this ablation's backend, or nullopt.
    std::optional<std::string> torchOptionIgnored(const std::string& name, const ExecutionSettings& s) const {
        if (result_.backend != "torch")
            return "an option of PyTorch's own loop, which the " + result_.backend + " backend does not run";
        if (isDataLoaderOption(name) && s.dataPath != DataPath::PerSampleGather)
            return "the loop uses no DataLoader with data_path=" + toString(s.dataPath);
        return std::nullopt;
    }

    // Trains the step once more (run `repeat`); sets its status, runs and level. False when the run did not
    // complete: the status says why (refused, failed, cancelled) and the runs are kept as they were.
    bool runOnce(AblationStep& step, int index, int repeat) {
        RunConfig config = base_;
        config.execution = step.settings;
        config.framework.torch = step.torch;
        config.name = step.fix.empty() ? plan_.baseline : step.name;
        ++runsStarted_;
        roundRunsLeft_ = std::max(0, roundRunsLeft_ - 1);
        if (callbacks_.onRunStarted) callbacks_.onRunStarted(index, step.name, repeat, plannedNow());
        ++runsMade_;
        RunRecord record;
        try {
            auto backend = BackendRegistry::instance().create(config.backend, config.device);
            result_.device = backend->deviceName();
            Trainer trainer(config, dataset_, data_, *backend);
            TrainerCallbacks cb;
            if (callbacks_.onEpoch)
                cb.onEpoch = [this](const EpochMetrics& m, const RunRecord&) { callbacks_.onEpoch(m); };
            record = trainer.run(cancel_, cb);
        } catch (const ConfigError& e) {  // the backend refuses the combination at set-up
            step.status = StepStatus::Refused;
            step.message = e.what();
            return false;
        } catch (const std::bad_alloc&) {
            step.status = StepStatus::Failed;
            step.message = "out of memory";
            return false;
        } catch (const std::exception& e) {
            step.status = StepStatus::Failed;
            step.message = e.what();
            return false;
        }
        if (record.status != RunStatus::Completed) {
            step.status = record.status == RunStatus::Cancelled ? StepStatus::Cancelled : StepStatus::Failed;
            step.message = "run " + std::to_string(repeat) + " " + toString(record.status) +
                           (record.message.empty() ? "" : ": " + record.message);
            return false;
        }
        step.runs.push_back(std::move(record));
        step.status = StepStatus::Ran;
        measure(step);
        return true;
    }

    // The first run of a step (round 1); a step whose run does not complete has no runs.
    void runStep(AblationStep& step, int index) {
        if (!runOnce(step, index, 1)) step.runs.clear();
    }

    // Rounds 2..repeats run every measured step once more, in the same order, so that a slow stretch of a
    // busy machine spreads over all steps instead of landing on one; then more rounds while a median is
    // known less well than the plan's target and the budget has room for one more round. After every
    // round late steps may join (the subsets of the honoured fixes after round 1, the closing step
    // without the costly fixes once they are named); a late step that
    // joined after the last round wanted gets one more round, so that it is measured among the others
    // and not after them. False when the ablation must stop.
    bool repeatRounds() {
        result_.rounds = 1;
        if (!addLateSteps()) return false;
        for (;;) {
            const bool owed = lateStepOwed();
            const std::string stop = owed || result_.rounds < plan_.repeats ? "" : whyStop(widestMedian());
            if (!stop.empty()) {
                result_.precision = stop;
                return true;
            }
            if (!runRound(result_.rounds + 1) || !addLateSteps()) return false;
        }
    }

    // A step measured in the rounds: where it lives, the index the callbacks name it by, and whether it
    // joined the rounds late (made up then).
    struct RoundStep {
        AblationStep* step;
        int index;
        bool late;
    };

    // The steps a round runs, in order: the cumulative ones (the closing step last), the alone ones,
    // the subsets measured here.
    // Indices: the plan's cumulative steps 0.., the alone steps after them, the closing step after those,
    // then the subsets measured for the attribution (slots_).
    // (Pointers stay valid through a round: no step is added during one.)
    std::vector<RoundStep> roundSteps() {
        std::vector<RoundStep> order;
        const std::size_t planned = plannedSteps();
        for (std::size_t i = 0; i < result_.steps.size(); ++i)
            if (result_.steps[i].status == StepStatus::Ran)
                order.push_back({&result_.steps[i], i < planned ? static_cast<int>(i) : lateIndex(), i >= planned});
        for (std::size_t i = 0; i < result_.alone.size(); ++i)
            if (result_.alone[i].status == StepStatus::Ran)
                order.push_back({&result_.alone[i], static_cast<int>(planned + i), false});
        for (std::size_t i = 0; i < slots_.size(); ++i)
            if (slots_[i].measuredHere() && slots_[i].own.status == StepStatus::Ran)
                order.push_back({&slots_[i].own, lateIndex() + 1 + static_cast<int>(i), true});
        return order;
    }
    std::size_t plannedSteps() const { return 1 + plan_.fixes.size(); }
    int lateIndex() const { return static_cast<int>(plannedSteps() + result_.alone.size()); }

    // Whether a late step has fewer runs than the rounds made (it joined after the last round).
    bool lateStepOwed() {
        for (const RoundStep& s : roundSteps())
            if (s.late && static_cast<int>(s.step->runs.size()) < result_.rounds) return true;
        return false;
    }

    // Round `round`: every step once. A late step that joined before it makes up the rounds it
    // missed in it, one run before each step's run (the first steps of the round) and the rest just
    // before its own, so that its runs are spread among the others' and not bunched after them.
    // Its runs stay in the order they were made: run i stands for round i + 1, so attribute() pairs
    // its make-up runs with the rounds it missed (made later in time: the drift between them is not
    // paired away) and its later runs with the rounds they were made in.
    bool runRound(int round) {
        const std::vector<RoundStep> order = roundSteps();
        const auto behind = [round](const RoundStep& s) {
            return s.late && s.step->status == StepStatus::Ran && static_cast<int>(s.step->runs.size()) < round - 1;
        };
        countRound(order, round);
        for (const RoundStep& s : order) {
            const auto lagging = std::find_if(order.begin(), order.end(), behind);
            if (lagging != order.end() && !makeUp(*lagging, round)) return false;
            while (behind(s))
                if (!makeUp(s, round)) return false;
            if (s.step->status != StepStatus::Ran) continue;  // a make-up run failed: it no longer counts
            if (!rerun(*s.step, s.index, round, round)) return false;
        }
        result_.rounds = round;
        return true;
    }

    // For the progress: the runs round `round` makes (every measured configuration once, and the
    // runs a late step makes up).
    void countRound(const std::vector<RoundStep>& order, int round) {
        currentRound_ = round;
        perRound_ = 0;
        int makeUps = 0;
        for (const RoundStep& s : order) {
            if (s.step->status != StepStatus::Ran) continue;
            ++perRound_;
            if (s.late) makeUps += std::max(0, round - 1 - static_cast<int>(s.step->runs.size()));
        }
        roundRunsLeft_ = perRound_ + makeUps;
    }

    // The runs planned as far as is known now: those started, the rest of this round, and one round
    // of every measured configuration for each of the plan's repeats still to come. More rounds may
    // follow while a median is wider than the target; never fewer than the plan's own count.
    int plannedNow() const {
        const int roundsLeft = std::max(0, plan_.repeats - currentRound_);
        return std::max(plannedRuns(plan_), runsStarted_ + roundRunsLeft_ + perRound_ * roundsLeft);
    }

    // One make-up run of a late step, during round `round`.
    bool makeUp(const RoundStep& s, int round) {
        return rerun(*s.step, s.index, round, static_cast<int>(s.step->runs.size()) + 1);
    }

    // The steps that join the rounds late, after round result_.rounds: the subsets of the honoured
    // fixes after round 1 (which decides what is honoured), the closing step once costly fixes are
    // named. False when the ablation must stop.
    bool addLateSteps() {
        if (result_.rounds == 1) addCombinations();
        const bool go = withoutCostlyFixes();
        syncSubsets();
        return go;
    }

    // The honoured fixes: the plan's cumulative steps after the baseline that ran in round 1.
    std::vector<std::size_t> honouredFixes() const {
        std::vector<std::size_t> honoured;
        for (std::size_t i = 1; i < result_.steps.size() && i < plannedSteps(); ++i)
            if (result_.steps[i].measured()) honoured.push_back(i);
        return honoured;
    }

    // Whether `added` more configurations, measured in every round from round 2 on, fit the budget
    // with the rounds the ablation makes at least (max(repeats, kRoundsToRank)), at the time per run
    // round 1 took. `optional` (the Shapley subsets, measured unasked): they need a budget, and must
    // fit half of it, so that the rounds the target asks for keep the other half. Why not, in `why`.
    bool fitsBudget(std::size_t added, bool optional, std::string& why) const {
        if (plan_.budgetSeconds <= 0) {
            if (optional) why = "no time budget to measure them in";
            return !optional;
        }
        const double budget = optional ? plan_.budgetSeconds / 2 : plan_.budgetSeconds;
        const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
        const double perRun = spent / std::max(1, runsMade_);
        const int rounds = std::max(plan_.repeats, Attribution::kRoundsToRank);
        std::size_t measured = 0;
        for (const auto* steps : {&result_.steps, &result_.alone})
            measured += static_cast<std::size_t>(std::count_if(
                steps->begin(), steps->end(), [](const AblationStep& s) { return s.status == StepStatus::Ran; }));
        const double need = perRun * static_cast<double>(static_cast<std::size_t>(rounds - 1) * measured +
                                                         static_cast<std::size_t>(rounds) * added);
        if (spent + need <= budget) return true;
        why = "their " + std::to_string(added) + " more configurations in " + std::to_string(rounds) +
              " rounds would need about " + std::to_string(static_cast<int>(std::lround(spent + need))) + " s, over " +
              (optional ? "half the " : "the ") + std::to_string(static_cast<int>(plan_.budgetSeconds)) + " s budget";
        return false;
    }

    // After round 1: the subsets of the honoured fixes the plan asks for and the budget allows (the
    // plan's `shapley` and `leaveOneOut`), as slots measured from round 2 on; what was decided and
    // why, in result_.combinations.
    void addCombinations() {
        if (!plan_.shapley && !plan_.leaveOneOut) return;
        const std::vector<std::size_t> honoured = honouredFixes();
        const auto k = static_cast<unsigned>(honoured.size());
        if (k < 2) {
            result_.combinations = "no combinations measured: fewer than two fixes honoured by this engine";
            return;
        }
        const unsigned all = (1U << k) - 1;
        std::string why;
        if (plan_.shapley) {
            if (k > static_cast<unsigned>(AblationPlan::kMaxShapleyFixes)) {
                why = std::to_string(k) + " fixes honoured, more than the " +
                      std::to_string(AblationPlan::kMaxShapleyFixes) + " whose subsets are measured";
            } else {
                std::vector<unsigned> masks;
                for (unsigned m = 0; m <= all; ++m) masks.push_back(m);
                std::vector<SubsetSlot> slots = subsetSlots(result_, data_.task, masks, honoured);
                const std::size_t added = newConfigurations(slots);
                if (slots.empty()) {
                    why = "a subset of the fixes is refused";
                } else if (fitsBudget(added, true, why)) {
                    adopt(honoured, std::move(slots),
                          "every subset of the " + std::to_string(k) + " honoured fixes measured in the rounds (" +
                              std::to_string(added) + " beside the cumulative steps): Shapley values");
                    return;
                }
            }
            result_.combinations = "no Shapley values: " + why;
        }
        if (!plan_.leaveOneOut) return;
        std::vector<unsigned> masks = {0, all};
        for (unsigned p = 0; p < k; ++p) masks.push_back(all & ~(1U << p));
        std::vector<SubsetSlot> slots = subsetSlots(result_, data_.task, masks, honoured);
        std::string whyNot;
        if (slots.empty())
            whyNot = "every fix but one is refused for some fix";
        else if (fitsBudget(newConfigurations(slots), false, whyNot))
            return adopt(honoured, std::move(slots),
                         (result_.combinations.empty() ? "" : result_.combinations + "; ") +
                             "every honoured fix but one, for each of the " + std::to_string(k) +
                             ", measured in the rounds: leave-one-out");
        result_.combinations += (result_.combinations.empty() ? "" : "; ") + std::string("no leave-one-out: ") + whyNot;
    }

    void adopt(const std::vector<std::size_t>& honoured, std::vector<SubsetSlot> slots, const std::string& note) {
        result_.subsetFixes = honoured;
        slots_ = std::move(slots);
        result_.combinations = note;
    }

    // result_.subsets from the slots: every subset with its rounds as measured so far.
    void syncSubsets() { result_.subsets = subsetLevels(result_, slots_); }

    // A fix that costs time on this engine (graph capture on a CPU) leaves every later cumulative
    // step slower, so the fastest of them may lack fixes that help. One more step: every applied fix
    // but those whose interval lies below zero, added once attribute() names them (after
    // Attribution::kRoundsToRank rounds at the soonest) and measured in the rounds from then on, as
    // many times as the others (runRound). The fixed loop is then the fastest of all. Not added once
    // the rounds reached their most (the rounds it would need to join are not made). False when the
    // ablation must stop.
    bool withoutCostlyFixes() {
        if (result_.steps.size() > plannedSteps() || result_.rounds >= AblationPlan::kMaxRounds) return true;
        const Attribution a = attribute(result_);
        if (a.costly.empty() || result_.status == AblationStatus::Cancelled) return true;
        AblationStep step;
        step.settings = result_.steps.back().settings;
        step.torch = result_.steps.back().torch;
        std::string names;
        for (std::size_t i : a.costly) {
            const AblationStep& costly = result_.steps[a.causes[i].step];
            const AblationStep& before = result_.steps[a.causes[i].step - 1];
            for (const auto& [name, value] : ablationFixByName(costly.fix).sets) {
                if (valueOf(step, name) != value) continue;  // a later fix set it again: that one stays
                if (isTorchOption(name))
                    setTorchOption(step.torch, name, valueOf(before, name));
                else
                    setSwitch(step.settings, name, valueOf(before, name));
            }
            names += (names.empty() ? "" : ", ") + costly.name;
        }
        if (step.settings.refusal()) return true;  // the rest cannot run without it: the fastest step stands
        step.name = "without " + names;
        step.fix = AblationStep::kWithoutCostly;
        step.description = "every fix applied but those that cost time on this engine";
        keepLevel(step, result_.steps.back().medianEpochMs);  // no runs yet: the level before it
        for (SubsetSlot& slot : slots_)  // a subset measured it already, in the same rounds: its runs are the step's
            if (slot.measuredHere() && sameConfiguration(result_, data_.task, slot.own, step)) {
                step.runs = std::move(slot.own.runs);
                step.status = slot.own.status;
                if (step.measured()) measure(step);
                slot.step = result_.steps.size();
                break;
            }
        return finishStep(result_.steps, std::move(step));
    }

    // The step whose median is known least well: its 95 % interval's half-width, relative to it.
    struct Widest {
        const AblationStep* step = nullptr;
        double halfWidth = 0;  // infinity with one run: no interval at all
    };
    // (The subsets measured for the attribution do not count: they ride along in the rounds the steps
    // ask for, so that measuring them never makes more rounds; their intervals say what they got.)
    Widest widestMedian() const {
        Widest widest;
        for (const auto* steps : {&result_.steps, &result_.alone})
            for (const auto& s : *steps) {
                if (!s.measured() || s.medianEpochMs <= 0) continue;
                std::vector<double> medians;
                medians.reserve(s.runs.size());
                for (const auto& run : s.runs)
                    if (const auto m = run.summary().medianEpochMs) medians.push_back(*m);
                const Interval i = medianInterval(medians);
                const double half = medians.size() < 2 ? std::numeric_limits<double>::infinity()
                                                       : (i.high - i.low) / 2 / s.medianEpochMs;
                if (!widest.step || half > widest.halfWidth) widest = {&s, half};
            }
        return widest;
    }

    // Why no more rounds are made, in words; empty while another round is wanted and affordable.
    std::string whyStop(const Widest& widest) const {
        std::string rounds = std::to_string(result_.rounds) + " round" + (result_.rounds == 1 ? "" : "s");
        const auto percent = [](double f) { return std::to_string(static_cast<int>(std::lround(f * 100))) + " %"; };
        if (!widest.step) return rounds;
        const std::string worst =
            std::isinf(widest.halfWidth)
                ? "one run per step gives no interval"
                : "the widest interval is \u00b1" + percent(widest.halfWidth) + " (" + widest.step->name + ")";
        if (widest.halfWidth <= plan_.target)
            return "every median known to \u00b1" + percent(plan_.target) +
                   " or better (95 % bootstrap interval) after " + rounds;
        if (plan_.budgetSeconds <= 0) return rounds + ": " + worst + "; a time budget would add rounds";
        if (result_.rounds >= AblationPlan::kMaxRounds) return rounds + ", the most made: " + worst;
        const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
        if (spent + spent / result_.rounds > plan_.budgetSeconds)
            return "the time budget (" + std::to_string(static_cast<int>(plan_.budgetSeconds)) + " s) allowed " +
                   rounds + ": " + worst;
        return "";
    }

    // One more run of a measured step (its run number `repeat`, during round `round`); false when the
    // ablation must stop (cancelled, or the baseline failed).
    bool rerun(AblationStep& step, int index, int round, int repeat) {
        const std::string note = step.message;
        const bool completed = runOnce(step, index, repeat);
        if (!completed && step.status == StepStatus::Cancelled) {
            step.status = StepStatus::Ran;  // the runs it completed still stand
            step.message = note;
            result_.status = AblationStatus::Cancelled;
            result_.message = "cancelled during round " + std::to_string(round) + ", step '" + step.name + "'";
        } else if (!completed) {
            // A run that failed only now: the step no longer counts (later steps ran with it applied).
            step.runs.clear();
            step.final.reset();
            step.message += "; later steps ran with this fix applied";
        }
        relevel();
        result_.updateSavings();
        if (callbacks_.onStepFinished) callbacks_.onStepFinished(result_, step);
        if (result_.status == AblationStatus::Cancelled) return false;
        if (!result_.steps.front().measured()) {
            result_.status = AblationStatus::Failed;
            result_.message = "the baseline failed in round " + std::to_string(round) + ": " + step.message;
            return false;
        }
        return true;
    }

    // Every step that did not run keeps the level before it: the previous step's, or the baseline's for an
    // alone step.
    void relevel() {
        for (std::size_t i = 1; i < result_.steps.size(); ++i)
            if (!result_.steps[i].measured()) keepLevel(result_.steps[i], result_.steps[i - 1].medianEpochMs);
        for (auto& s : result_.alone)
            if (!s.measured()) keepLevel(s, result_.steps.front().medianEpochMs);
    }

    // Adds the step, updates the savings and reports it; false when the ablation must stop.
    bool finishStep(std::vector<AblationStep>& steps, AblationStep step) {
        const bool cancelled = step.status == StepStatus::Cancelled;
        steps.push_back(std::move(step));
        result_.updateSavings();
        if (callbacks_.onStepFinished) callbacks_.onStepFinished(result_, steps.back());
        if (cancelled) {
            result_.status = AblationStatus::Cancelled;
            result_.message = "cancelled during step '" + steps.back().name + "'";
        }
        return !cancelled;
    }

    AblationResult fail(const std::string& message) {
        result_.status = AblationStatus::Failed;
        result_.message = message;
        return finish();
    }

    AblationResult finish() {
        result_.machine = load_.finish();
        syncSubsets();
        relevel();
        result_.updateSavings();
        return std::move(result_);
    }

    const AblationPlan& plan_;
    const RunConfig& base_;
    const Dataset& dataset_;
    const PreparedData& data_;
    const CancelFlag& cancel_;
    const AblationCallbacks& callbacks_;
    AblationResult result_;
    std::chrono::steady_clock::time_point started_;
    LoadMeter load_;  // from the runner's start: the machine's state over the whole ablation
    // The progress (plannedNow): runs started, the round being made, the configurations it measures
    // and the runs of it still to start.
    int runsStarted_ = 0;
    int currentRound_ = 1;
    int perRound_ = 0;
    int roundRunsLeft_ = 0;
    int runsMade_ = 0;
    std::vector<SubsetSlot> slots_;  // the subsets measured for the attribution (AblationResult::subsets)
};
}  // namespace

AblationResult runAblation(const AblationPlan& plan, const RunConfig& base, const Dataset& dataset,
                           const PreparedData& data, const CancelFlag& cancel, const AblationCallbacks& callbacks) {
    plan.validate();
    RunConfig check = base;
    check.execution = presetByName(plan.baseline).settings;
    check.validate();
    const KeepWarm warm;  // one interpreter per framework for all the runs, not one per run
    return AblationRunner(plan, base, dataset, data, cancel, callbacks).run();
}

}  // namespace wb
