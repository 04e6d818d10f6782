#include "ablation.h"

#include <algorithm>
#include <fstream>
#include <new>
#include <set>

#include "enum_names.h"
#include "errors.h"
#include "json_file.h"
#include "trainer.h"

namespace wb {

namespace {
const EnumNames<StepStatus> kStepStatusNames = {{StepStatus::Ran, "ran"},
                                                {StepStatus::Refused, "refused"},
                                                {StepStatus::NotApplicable, "not_applicable"},
                                                {StepStatus::Failed, "failed"},
                                                {StepStatus::Cancelled, "cancelled"}};
const EnumNames<AblationStatus> kAblationStatusNames = {{AblationStatus::Running, "running"},
                                                        {AblationStatus::Completed, "completed"},
                                                        {AblationStatus::Cancelled, "cancelled"},
                                                        {AblationStatus::Failed, "failed"}};
constexpr int kMaxRepeats = 100;

// The value switch `name` has in `s` (names as describeSwitches gives them).
std::string switchValue(const ExecutionSettings& s, const std::string& name) {
    for (const auto& d : describeSwitches(s))
        if (d.name == name) return d.value;
    throw ConfigError("unknown execution switch '" + name + "'");
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

// The backend's reason for ignoring switch `sw` under `s`, or empty when it honours it. Backends word
// each reason "switch=value: why".
std::string ignoredBecause(const std::vector<std::string>& notApplicable, const std::string& sw) {
    for (const auto& why : notApplicable)
        if (why.rfind(sw + "=", 0) == 0) return why;
    return {};
}

StepFinal finalOf(const RunRecord& record) {
    const EpochMetrics& last = record.epochs.back();
    return {last.trainLoss, last.trainAccuracy, last.valLoss, last.valAccuracy};
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

nlohmann::json orNull(const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

std::optional<double> optionalDouble(const nlohmann::json& j, const char* key) {
    if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
    return j.at(key).get<double>();
}

nlohmann::json stepToJson(const AblationStep& s) {
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& r : s.runs) runs.push_back(r.toJson());
    nlohmann::json final = nullptr;
    if (s.final)
        final = {{"train_loss", s.final->trainLoss},
                 {"train_accuracy", s.final->trainAccuracy},
                 {"val_loss", orNull(s.final->valLoss)},
                 {"val_accuracy", orNull(s.final->valAccuracy)}};
    return {{"name", s.name},
            {"fix", s.fix},
            {"description", s.description},
            {"status", toString(s.status)},
            {"message", s.message},
            {"settings", s.settings},
            {"measured", s.measured()},
            {"median_epoch_ms", s.medianEpochMs},
            {"min_epoch_ms", s.minEpochMs},
            {"max_epoch_ms", s.maxEpochMs},
            {"saved_ms", s.savedMs},
            {"share", orNull(s.share)},
            {"final", final},
            {"runs", runs}};
}

AblationStep stepFromJson(const nlohmann::json& j) {
    AblationStep s;
    s.name = j.at("name").get<std::string>();
    s.fix = j.value("fix", "");
    s.description = j.value("description", "");
    s.status = stepStatusFromString(j.value("status", "ran"));
    s.message = j.value("message", "");
    if (j.contains("settings")) s.settings = j.at("settings").get<ExecutionSettings>();
    for (const auto& r : j.value("runs", nlohmann::json::array())) s.runs.push_back(RunRecord::fromJson(r));
    s.medianEpochMs = j.at("median_epoch_ms").get<double>();
    s.minEpochMs = j.value("min_epoch_ms", s.medianEpochMs);
    s.maxEpochMs = j.value("max_epoch_ms", s.medianEpochMs);
    s.savedMs = j.value("saved_ms", 0.0);
    s.share = optionalDouble(j, "share");
    if (j.contains("final") && j.at("final").is_object()) {
        const auto& f = j.at("final");
        s.final = StepFinal{f.at("train_loss").get<double>(), f.at("train_accuracy").get<double>(),
                            optionalDouble(f, "val_loss"), optionalDouble(f, "val_accuracy")};
    }
    return s;
}

// Runs the ablation's steps; one object so that the shared state (probe backend, counters) is in one place.
class AblationRunner {
public:
    AblationRunner(const AblationPlan& plan, const RunConfig& base, const Dataset& dataset, const PreparedData& data,
                   const CancelFlag& cancel, const AblationCallbacks& callbacks)
        : plan_(plan),
          base_(base),
          dataset_(dataset),
          data_(data),
          cancel_(cancel),
          callbacks_(callbacks),
          probe_(BackendRegistry::instance().create(base.backend, base.device)) {}

    AblationResult run() {
        result_.plan = plan_;
        RunConfig common = base_;
        common.execution = presetByName(plan_.baseline).settings;
        result_.config = common;
        result_.backend = probe_->name();
        result_.device = probe_->deviceName();

        const Preset& preset = presetByName(plan_.baseline);
        AblationStep baseline;
        baseline.name = "baseline";
        baseline.description = preset.name + ": " + preset.description;
        baseline.settings = preset.settings;
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
        const double level = from.medianEpochMs;
        std::vector<std::string> changed;
        for (const auto& [sw, value] : fix.sets) {
            if (switchValue(step.settings, sw) != value) changed.push_back(sw);
            setSwitch(step.settings, sw, value);
        }
        if (auto refused = step.settings.refusal()) {
            step.status = StepStatus::Refused;
            step.message = *refused;
            step.settings = from.settings;  // a refused fix is not applied: the next fix starts from `from`
            keepLevel(step, level);
        } else if (auto ignored = ignoredByBackend(from.settings, step.settings, changed)) {
            step.status = StepStatus::NotApplicable;
            step.message = *ignored;
            keepLevel(step, level);
        } else {
            if (changed.empty()) step.message = "changes no switch (already set): any difference is noise";
            runStep(step, index);
            if (step.status != StepStatus::Ran) {
                if (step.status != StepStatus::Cancelled) step.settings = from.settings;
                keepLevel(step, level);
            }
        }
        return finishStep(steps, std::move(step));
    }

    // Why the backend ignores every switch in `changed` (each one's reason), or nullopt when it honours
    // one of them. A switch is ignored when the backend ignores its old or its new value (precision
    // fp16 -> fp32 on the CPU changes nothing, though fp32 itself is "applicable").
    // A fix that changes nothing is not "not applicable": it runs, and shows it did nothing.
    std::optional<std::string> ignoredByBackend(const ExecutionSettings& before, const ExecutionSettings& after,
                                                const std::vector<std::string>& changed) {
        if (changed.empty()) return std::nullopt;
        const auto ignoredAfter = probe_->notApplicable(after);
        const auto ignoredBefore = probe_->notApplicable(before);
        std::string reasons;
        for (const auto& sw : changed) {
            std::string why = ignoredBecause(ignoredAfter, sw);
            if (why.empty()) why = ignoredBecause(ignoredBefore, sw);
            if (why.empty()) return std::nullopt;
            reasons += (reasons.empty() ? "" : "; ") + why;
        }
        return "not applicable on the " + probe_->name() + " backend: " + reasons;
    }

    // Trains the step once more (run `repeat`); sets its status, runs and level. False when the run did not
    // complete: the status says why (refused, failed, cancelled) and the runs are kept as they were.
    bool runOnce(AblationStep& step, int index, int repeat) {
        RunConfig config = base_;
        config.execution = step.settings;
        config.name = step.fix.empty() ? plan_.baseline : step.name;
        if (callbacks_.onRunStarted) callbacks_.onRunStarted(index, step.name, repeat, plannedRuns(plan_));
        RunRecord record;
        try {
            auto backend = BackendRegistry::instance().create(config.backend, config.device);
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
    // busy machine spreads over all steps instead of landing on one. False when the ablation must stop.
    bool repeatRounds() {
        for (int round = 2; round <= plan_.repeats; ++round)
            for (auto* steps : {&result_.steps, &result_.alone})
                for (std::size_t i = 0; i < steps->size(); ++i) {
                    AblationStep& step = (*steps)[i];
                    if (step.status != StepStatus::Ran) continue;
                    const std::size_t offset = steps == &result_.steps ? 0 : result_.steps.size();
                    if (!rerun(step, static_cast<int>(offset + i), round)) return false;
                }
        return true;
    }

    // One more run of a measured step; false when the ablation must stop (cancelled, or the baseline failed).
    bool rerun(AblationStep& step, int index, int round) {
        const std::string note = step.message;
        const bool completed = runOnce(step, index, round);
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
    std::unique_ptr<Backend> probe_;  // asked which switches it ignores; never trains
    AblationResult result_;
};
}  // namespace

const std::vector<AblationFix>& ablationFixes() {
    static const std::vector<AblationFix> all = {
        {"data_path",
         "data on the device once and batches sliced from it: no per-sample gather, no per-batch copy",
         {{"data_path", "device_resident"}}},
        {"launch",
         "the whole step captured once as a graph and replayed (a static graph), no host sync per step",
         {{"launch", "graph_step"}}},
        {"loss",
         "BCEWithLogitsLoss on the logit instead of a separate Sigmoid + BCELoss",
         {{"loss", "bce_with_logits"}}},
        {"zero_grad",
         "gradients written, not accumulated: no zeroing (the founding loop zeroed them twice)",
         {{"zero_grad", "none"}}},
        {"optimizer_kernel",
         "one optimizer update for all parameter tensors (PyTorch foreach/fused)",
         {{"optimizer_kernel", "multi_tensor"}}},
        {"precision",
         "mixed precision: fp16 products, fp32 master weights, dynamic loss scaling (GradScaler)",
         {{"precision", "fp16"}}},
        {"fused",
         "forward, loss, backward and update of a step in a few fused kernels with the project's own GEMMs; "
         "they compute in fp32, so this fix also undoes a mixed-precision step before it",
         {{"launch", "fused"}, {"gemm", "custom"}, {"precision", "fp32"}}},
    };
    return all;
}

std::vector<std::string> defaultFixOrder() {
    std::vector<std::string> names;
    for (const auto& f : ablationFixes()) names.push_back(f.name);
    return names;
}

AblationFix ablationFixByName(const std::string& name) {
    for (const auto& f : ablationFixes())
        if (f.name == name) return f;
    const auto eq = name.find('=');
    if (eq == std::string::npos) {
        std::string valid;
        for (const auto& f : ablationFixes()) valid += (valid.empty() ? "" : ", ") + f.name;
        throw ConfigError("unknown fix '" + name + "' (valid: " + valid + ", or switch=value)");
    }
    const std::string sw = name.substr(0, eq), value = name.substr(eq + 1);
    ExecutionSettings check;
    setSwitch(check, sw, value);  // throws ConfigError for an unknown switch or value
    return {name, "set " + sw + " to " + value, {{sw, value}}};
}

void AblationPlan::validate() const {
    presetByName(baseline);
    for (const auto& f : fixes) ablationFixByName(f);
    if (repeats < 1 || repeats > kMaxRepeats)
        throw ConfigError("repeats must be from 1 to " + std::to_string(kMaxRepeats) + ", not " +
                          std::to_string(repeats));
}

int plannedRuns(const AblationPlan& plan) {
    const std::set<std::string> unique(plan.fixes.begin(), plan.fixes.end());
    const std::size_t steps = 1 + plan.fixes.size() + (plan.alone ? unique.size() : 0);
    return static_cast<int>(steps) * plan.repeats;
}

std::string toString(StepStatus s) {
    return enumName(kStepStatusNames, s);
}
StepStatus stepStatusFromString(const std::string& s) {
    return enumFromName(kStepStatusNames, s, "step status");
}
std::string toString(AblationStatus s) {
    return enumName(kAblationStatusNames, s);
}

double AblationResult::totalGapMs() const {
    return steps.empty() ? 0.0 : steps.front().medianEpochMs - steps.back().medianEpochMs;
}

void AblationResult::updateSavings() {
    const double gap = totalGapMs();
    // (+ 0.0 turns the -0 of "saved nothing out of a negative gap" into 0.)
    auto shareOf = [gap](double saved) { return gap != 0.0 ? std::optional<double>(saved / gap + 0.0) : std::nullopt; };
    for (std::size_t i = 0; i < steps.size(); ++i) {
        steps[i].savedMs = i == 0 ? 0.0 : steps[i - 1].medianEpochMs - steps[i].medianEpochMs;
        steps[i].share = i == 0 ? std::nullopt : shareOf(steps[i].savedMs);
    }
    const double base = steps.empty() ? 0.0 : steps.front().medianEpochMs;
    for (auto& s : alone) {
        s.savedMs = base - s.medianEpochMs;
        s.share = shareOf(s.savedMs);
    }
}

nlohmann::json AblationResult::toJson() const {
    nlohmann::json cumulative = nlohmann::json::array(), single = nlohmann::json::array();
    for (const auto& s : steps) cumulative.push_back(stepToJson(s));
    for (const auto& s : alone) single.push_back(stepToJson(s));
    return {{"schema", kSchema},
            {"baseline", plan.baseline},
            {"plan",
             {{"baseline", plan.baseline}, {"fixes", plan.fixes}, {"repeats", plan.repeats}, {"alone", plan.alone}}},
            {"status", toString(status)},
            {"message", message},
            {"backend", backend},
            {"device", device},
            {"config", config},
            {"total_gap_ms", totalGapMs()},
            {"steps", cumulative},
            {"alone", single}};
}

AblationResult AblationResult::fromJson(const nlohmann::json& j) {
    if (!j.is_object() || j.value("schema", "") != kSchema)
        throw DataError("", "not an ablation result (expected schema '" + std::string(kSchema) + "')");
    try {
        AblationResult r;
        const nlohmann::json plan = j.value("plan", nlohmann::json::object());
        r.plan.baseline = plan.value("baseline", j.value("baseline", r.plan.baseline));
        r.plan.fixes = plan.value("fixes", std::vector<std::string>{});
        r.plan.repeats = plan.value("repeats", 1);
        r.plan.alone = plan.value("alone", false);
        r.status = enumFromName(kAblationStatusNames, j.value("status", "completed"), "ablation status");
        r.message = j.value("message", "");
        r.backend = j.value("backend", "");
        r.device = j.value("device", "");
        r.config = j.value("config", nlohmann::json::object());
        for (const auto& s : j.at("steps")) r.steps.push_back(stepFromJson(s));
        for (const auto& s : j.value("alone", nlohmann::json::array())) r.alone.push_back(stepFromJson(s));
        return r;
    } catch (const nlohmann::json::exception& e) {
        throw DataError("", std::string("invalid ablation result: ") + e.what());
    } catch (const ConfigError& e) {
        throw DataError("", std::string("invalid ablation result: ") + e.what());
    }
}

void AblationResult::save(const std::string& path) const {
    saveJsonAtomically(toJson(), path, "ablation result");
}

AblationResult AblationResult::load(const std::string& path) {
    const nlohmann::json j = loadJsonFile(path, "ablation result");
    try {
        return fromJson(j);
    } catch (const nlohmann::json::exception& e) {
        throw DataError(path, std::string("invalid ablation result: ") + e.what());
    } catch (const DataError& e) {
        throw DataError(path, e.reason());
    }
}

void AblationResult::saveCsv(const std::string& path) const {
    std::ofstream out(path, std::ios::trunc);
    if (!out) throw IoError("cannot write '" + path + "'");
    out.precision(9);
    auto opt = [&out](const std::optional<double>& v) -> std::ostream& { return v ? out << *v : out; };
    auto quoted = [](const std::string& text) {
        std::string q = "\"";
        for (char c : text) q += c == '"' ? std::string("\"\"") : std::string(1, c);
        return q + "\"";
    };
    out << "section,step,fix,status,runs,median_epoch_ms,min_epoch_ms,max_epoch_ms,saved_ms,share,train_loss,"
           "train_accuracy,val_loss,val_accuracy,message\n";
    auto line = [&](const char* section, const AblationStep& s) {
        out << section << ',' << quoted(s.name) << ',' << s.fix << ',' << toString(s.status) << ',' << s.runs.size()
            << ',' << s.medianEpochMs << ',' << s.minEpochMs << ',' << s.maxEpochMs << ',' << s.savedMs << ',';
        opt(s.share) << ',';
        if (s.final) {
            out << s.final->trainLoss << ',' << s.final->trainAccuracy << ',';
            opt(s.final->valLoss) << ',';
            opt(s.final->valAccuracy) << ',';
        } else {
            out << ",,,,";
        }
        out << quoted(s.message) << '\n';
    };
    for (const auto& s : steps) line("cumulative", s);
    for (const auto& s : alone) line("alone", s);
    if (!out.flush()) throw IoError("cannot write '" + path + "'");
}

AblationResult runAblation(const AblationPlan& plan, const RunConfig& base, const Dataset& dataset,
                           const PreparedData& data, const CancelFlag& cancel, const AblationCallbacks& callbacks) {
    plan.validate();
    RunConfig check = base;
    check.execution = presetByName(plan.baseline).settings;
    check.validate();
    return AblationRunner(plan, base, dataset, data, cancel, callbacks).run();
}

}  // namespace wb
