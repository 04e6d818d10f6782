// An ablation's result: step and status names, the savings, and its JSON and CSV files.
#include "core/measure/ablation_result.h"
#include "core/platform/csv_field.h"

#include <fstream>
#include <sstream>

#include "core/platform/atomic_file.h"
#include "core/platform/enum_names.h"
#include "core/platform/errors.h"
#include "core/platform/json_fields.h"
#include "core/platform/json_file.h"

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
nlohmann::json orNull(const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// A regression has no accuracy: null, as in its epochs.
nlohmann::json finalToJson(const StepFinal& f) {
    nlohmann::json j = {
        {"train_loss", f.trainLoss},
        {"train_accuracy", f.trainRegression ? nlohmann::json(nullptr) : nlohmann::json(f.trainAccuracy)},
        {"val_loss", orNull(f.valLoss)},
        {"val_accuracy", f.trainRegression ? nlohmann::json(nullptr) : orNull(f.valAccuracy)}};
    // Classification writes no regression keys, so files of binary ablations stay as they were.
    if (f.trainRegression) writeRegression(j, kTrainRegressionKeys, *f.trainRegression);
    if (f.valRegression) writeRegression(j, kValRegressionKeys, *f.valRegression);
    return j;
}

StepFinal finalFromJson(const nlohmann::json& f) {
    StepFinal final{requiredField<double>(f, "train_loss"), optionalField<double>(f, "train_accuracy").value_or(0.0),
                    optionalField<double>(f, "val_loss"), optionalField<double>(f, "val_accuracy")};
    final.trainRegression = readRegression(f, kTrainRegressionKeys);
    final.valRegression = readRegression(f, kValRegressionKeys);
    return final;
}

nlohmann::json stepToJson(const AblationStep& s) {
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& r : s.runs) runs.push_back(r.toJson());
    const nlohmann::json final = s.final ? finalToJson(*s.final) : nlohmann::json(nullptr);
    nlohmann::json j = {{"name", s.name},
                        {"fix", s.fix},
                        {"description", s.description},
                        {"status", toString(s.status)},
                        {"message", s.message},
                        {"settings", s.settings},
                        {"torch", s.torch},
                        {"measured", s.measured()},
                        {"median_epoch_ms", s.medianEpochMs},
                        {"min_epoch_ms", s.minEpochMs},
                        {"max_epoch_ms", s.maxEpochMs},
                        {"saved_ms", s.savedMs},
                        {"share", orNull(s.share)},
                        {"final", final},
                        {"runs", runs}};
    if (!s.notes.empty()) j["notes"] = s.notes;
    return j;
}

AblationStep stepFromJson(const nlohmann::json& j) {
    AblationStep s;
    s.name = requiredField<std::string>(j, "name");
    s.fix = j.value("fix", "");
    s.description = j.value("description", "");
    s.status = stepStatusFromString(j.value("status", "ran"));
    s.message = j.value("message", "");
    if (j.contains("notes")) s.notes = j.at("notes").get<std::vector<SwitchNote>>();
    if (j.contains("settings")) s.settings = j.at("settings").get<ExecutionSettings>();
    if (j.contains("torch") && j.at("torch").is_object()) s.torch = j.at("torch").get<TorchOptions>();
    const nlohmann::json runs = j.value("runs", nlohmann::json::array());
    for (std::size_t i = 0; i < runs.size(); ++i) {
        try {
            s.runs.push_back(RunRecord::fromJson(runs[i]));
        } catch (const DataError& e) {
            throw JsonFieldError("runs[" + std::to_string(i) + "]", e.reason());
        }
    }
    s.medianEpochMs = requiredField<double>(j, "median_epoch_ms");
    s.minEpochMs = j.value("min_epoch_ms", s.medianEpochMs);
    s.maxEpochMs = j.value("max_epoch_ms", s.medianEpochMs);
    s.savedMs = j.value("saved_ms", 0.0);
    s.share = optionalField<double>(j, "share");
    if (j.contains("final") && j.at("final").is_object()) {
        const auto& f = j.at("final");
        s.final = withinField("final", [&] { return finalFromJson(f); });
    }
    return s;
}

nlohmann::json combinationsToJson(const AblationResult& r) {
    nlohmann::json subsets = nlohmann::json::array();
    for (const SubsetLevel& s : r.subsets)
        subsets.push_back({{"mask", s.mask},
                           {"fixes", s.fixes},
                           {"step", s.step ? nlohmann::json(*s.step) : nlohmann::json(nullptr)},
                           {"round_ms", s.roundMs}});
    return {{"note", r.combinations}, {"fixes", r.subsetFixes}, {"subsets", subsets}};
}

// Bounded by what the runner writes (AblationPlan::kMaxShapleyFixes fixes, 2^k subsets,
// kMaxRoundsInFile rounds: attribute()'s bootstrap grows as k 2^k times the rounds), and every index
// checked against the steps: the file comes from elsewhere.
void combinationsFromJson(const nlohmann::json& j, AblationResult& r) {
    r.combinations = fieldOr<std::string>(j, "note", "");
    r.subsetFixes = fieldOr(j, "fixes", std::vector<std::size_t>{});
    constexpr auto kMaxFixes = static_cast<std::size_t>(AblationPlan::kMaxShapleyFixes);
    if (r.subsetFixes.size() > kMaxFixes)
        throw JsonFieldError("fixes", "more than " + std::to_string(kMaxFixes) + " fixes");
    for (std::size_t i : r.subsetFixes)
        if (i == 0 || i >= r.steps.size()) throw JsonFieldError("fixes", "no cumulative step " + std::to_string(i));
    const nlohmann::json list = fieldOr(j, "subsets", nlohmann::json::array());
    const std::size_t masks = std::size_t{1} << r.subsetFixes.size();
    if (!list.is_array() || list.size() > masks)
        throw JsonFieldError("subsets", "expected a list of at most " + std::to_string(masks) + " subsets");
    for (std::size_t i = 0; i < list.size(); ++i)
        r.subsets.push_back(withinField("subsets[" + std::to_string(i) + "]", [&] {
            const nlohmann::json& e = list[i];
            SubsetLevel s;
            s.mask = requiredField<unsigned>(e, "mask");
            if (s.mask >= masks) throw JsonFieldError("mask", "names a fix the list does not hold");
            s.fixes = fieldOr(e, "fixes", std::vector<std::string>{});
            s.step = optionalField<std::size_t>(e, "step");
            if (s.step && *s.step >= r.steps.size()) throw JsonFieldError("step", "no such step");
            s.roundMs = requiredField<std::vector<double>>(e, "round_ms");
            if (s.roundMs.size() > AblationResult::kMaxRoundsInFile)
                throw JsonFieldError("round_ms", "too many rounds");
            return s;
        }));
}

// The task of an ablation written before results named theirs: its first recorded run's.
Task taskOfRuns(const std::vector<AblationStep>& steps) {
    for (const auto& s : steps)
        if (!s.runs.empty()) return s.runs.front().dataset.task;
    return Task::Binary;
}

// Step by step, so that an error names the one at fault: "steps[2].median_epoch_ms: expected a number".
std::vector<AblationStep> stepsFromJson(const nlohmann::json& list, const std::string& key) {
    if (!list.is_array()) throw JsonFieldError(key, std::string("expected a list, found ") + kindOf(list));
    std::vector<AblationStep> steps;
    for (std::size_t i = 0; i < list.size(); ++i)
        steps.push_back(withinField(key + "[" + std::to_string(i) + "]", [&] { return stepFromJson(list[i]); }));
    return steps;
}
}  // namespace

std::optional<double> StepFinal::quality(QualityMetric q, bool validation) const {
    EpochMetrics last;  // what the final metrics came from: the epoch's rule applies as it is
    last.trainAccuracy = trainAccuracy;
    last.valAccuracy = valAccuracy;
    last.trainRegression = trainRegression;
    last.valRegression = valRegression;
    return qualityValue(q, last, validation);
}

std::vector<std::string> AblationStep::noteLines() const {
    std::vector<std::string> lines;
    for (const SwitchNote& n : notes) lines.push_back(n.name + " " + n.reason);
    return lines;
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
    const AblationStep* fixed = fixedLoop();
    return fixed ? steps.front().medianEpochMs - fixed->medianEpochMs : 0.0;
}

const AblationStep* AblationResult::seedLoop() const {
    return !steps.empty() && steps.front().measured() ? &steps.front() : nullptr;
}

const AblationStep* AblationResult::fixedLoop() const {
    // The seed loop too, once some fix was measured against it: where every fix costs time, the
    // fastest loop measured is the seed loop itself.
    const AblationStep* fastest = nullptr;
    bool fixMeasured = false;
    for (std::size_t i = 0; i < steps.size(); ++i) {
        if (!steps[i].measured()) continue;
        fixMeasured = fixMeasured || i > 0;
        if (!fastest || steps[i].medianEpochMs < fastest->medianEpochMs) fastest = &steps[i];
    }
    return seedLoop() && fixMeasured ? fastest : nullptr;
}

std::vector<const AblationStep*> AblationResult::leftOut() const {
    std::vector<const AblationStep*> after;
    const AblationStep* fixed = fixedLoop();
    if (!fixed) return after;
    for (const AblationStep* s = fixed + 1; s < steps.data() + steps.size(); ++s)
        if (s->measured()) after.push_back(s);
    return after;
}

TimeSpread AblationStep::spread() const {
    std::vector<const RunRecord*> measured;
    for (const auto& r : runs) measured.push_back(&r);
    return timeSpread(measured).value_or(timeSpread(medianEpochMs, minEpochMs, maxEpochMs, 0));
}

std::optional<SpeedComparison> AblationResult::gapComparison() const {
    const AblationStep* last = fixedLoop();
    if (!last) return std::nullopt;
    return compareSpeed(steps.front().spread(), last->spread());
}

void AblationResult::updateSavings() {
    const double gap = totalGapMs();
    // A gap inside the spread of the repeats is no difference: its parts get no percentages.
    const auto comparison = gapComparison();
    const bool measurable = comparison && comparison->measurable;
    // (+ 0.0 turns the -0 of "saved nothing out of a negative gap" into 0.)
    auto shareOf = [gap, measurable](double saved) {
        return gap != 0.0 && measurable ? std::optional<double>(saved / gap + 0.0) : std::nullopt;
    };
    // Shares are of the fixed loop's gap: the steps after it (left out of it) have none.
    const AblationStep* fixed = fixedLoop();
    for (std::size_t i = 0; i < steps.size(); ++i) {
        steps[i].savedMs = i == 0 ? 0.0 : steps[i - 1].medianEpochMs - steps[i].medianEpochMs;
        const bool inFixedLoop = fixed && &steps[i] <= fixed;
        steps[i].share = i == 0 || !inFixedLoop ? std::nullopt : shareOf(steps[i].savedMs);
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
    nlohmann::json j = {{"schema", kSchema},
                        {"baseline", plan.baseline},
                        {"plan",
                         {{"baseline", plan.baseline},
                          {"fixes", plan.fixes},
                          {"repeats", plan.repeats},
                          {"alone", plan.alone},
                          {"target", plan.target},
                          {"budget_s", plan.budgetSeconds},
                          {"shapley", plan.shapley},
                          {"leave_one_out", plan.leaveOneOut}}},
                        {"rounds", rounds},
                        {"machine", machine ? machine->toJson() : nlohmann::json()},
                        {"precision", precision},
                        {"status", toString(status)},
                        {"message", message},
                        {"backend", backend},
                        {"device", device},
                        {"task", toString(task)},
                        {"config", config},
                        {"total_gap_ms", totalGapMs()},
                        {"steps", cumulative},
                        {"alone", single}};
    if (!subsets.empty() || !combinations.empty()) j["combinations"] = combinationsToJson(*this);
    return j;
}

AblationResult AblationResult::fromJson(const nlohmann::json& j) {
    // find, not value(): value() throws json's own error where "schema" is not a string (found by fuzz_records).
    const auto schema = j.is_object() ? j.find("schema") : j.end();
    if (!j.is_object() || schema == j.end() || !schema->is_string() || schema->get<std::string>() != kSchema)
        throw DataError("", "not an ablation result (expected schema '" + std::string(kSchema) + "')");
    try {
        AblationResult r;
        const nlohmann::json plan = j.value("plan", nlohmann::json::object());
        r.plan.baseline = plan.value("baseline", j.value("baseline", r.plan.baseline));
        r.plan.fixes = plan.value("fixes", std::vector<std::string>{});
        r.plan.repeats = fieldOr(plan, "repeats", 1);
        r.plan.alone = plan.value("alone", false);
        r.plan.target = fieldOr(plan, "target", r.plan.target);
        r.plan.budgetSeconds = fieldOr(plan, "budget_s", r.plan.budgetSeconds);
        r.plan.shapley = fieldOr(plan, "shapley", false);  // files before it measured no subsets
        r.plan.leaveOneOut = fieldOr(plan, "leave_one_out", false);
        r.rounds = fieldOr(j, "rounds", r.plan.repeats);
        r.precision = fieldOr<std::string>(j, "precision", "");
        if (j.contains("machine") && j.at("machine").is_object())
            r.machine = withinField("machine", [&] { return MachineLoad::fromJson(j.at("machine")); });
        r.status = enumFromName(kAblationStatusNames, j.value("status", "completed"), "ablation status");
        r.message = j.value("message", "");
        r.backend = j.value("backend", "");
        r.device = j.value("device", "");
        r.config = withinField("config", [&] { return fieldOr(j, "config", RunConfig{}); });
        r.steps = stepsFromJson(requiredField<nlohmann::json>(j, "steps"), "steps");
        r.alone = stepsFromJson(j.value("alone", nlohmann::json::array()), "alone");
        if (j.contains("combinations") && !j.at("combinations").is_null())
            withinField("combinations", [&] { combinationsFromJson(j.at("combinations"), r); });
        r.task = j.contains("task") ? taskFromString(j.at("task").get<std::string>()) : taskOfRuns(r.steps);
        return r;
    } catch (const JsonFieldError& e) {
        throw DataError("", std::string("invalid ablation result: ") + e.what());
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
    std::ostringstream out;
    out.precision(9);
    auto opt = [&out](const std::optional<double>& v) -> std::ostream& { return v ? out << *v : out; };
    // A regression's columns come last, as in the runs' CSV: the columns before keep their places.
    out << "section,step,fix,status,runs,median_epoch_ms,min_epoch_ms,max_epoch_ms,saved_ms,share,train_loss,"
           "train_accuracy,val_loss,val_accuracy,message,train_mse,train_mae,train_r2,val_mse,val_mae,val_r2\n";
    auto regression = [&out](const std::optional<RegressionMetrics>& r) {
        if (r)
            out << ',' << r->mse << ',' << r->mae << ',' << r->r2;
        else
            out << ",,,";
    };
    auto line = [&](const char* section, const AblationStep& s) {
        out << section << ',' << csv::field(s.name) << ',' << csv::field(s.fix) << ',' << toString(s.status) << ','
            << s.runs.size() << ',' << s.medianEpochMs << ',' << s.minEpochMs << ',' << s.maxEpochMs << ',' << s.savedMs
            << ',';
        opt(s.share) << ',';
        const std::optional<StepFinal>& f = s.final;
        if (f) {
            out << f->trainLoss << ',';
            opt(f->quality(QualityMetric::Accuracy)) << ',';  // empty for a regression
            opt(f->valLoss) << ',';
            opt(f->quality(QualityMetric::Accuracy, true)) << ',';
        } else {
            out << ",,,,";
        }
        out << csv::field(s.message);
        regression(f ? f->trainRegression : std::nullopt);
        regression(f ? f->valRegression : std::nullopt);
        out << '\n';
    };
    for (const auto& s : steps) line("cumulative", s);
    for (const auto& s : alone) line("alone", s);
    writeFileAtomically(path, out.str(), "ablation CSV");
}

}  // namespace wb
