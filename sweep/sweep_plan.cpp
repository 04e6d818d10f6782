#include "sweep/sweep_plan.h"

#include "core/platform/errors.h"
#include "core/platform/json_fields.h"
#include "sweep/early_termination.h"

namespace wb::sweep {

namespace {
// {"name", "goal"} and "target" where the spec gives one.
nlohmann::json metricJson(const Metric& m) {
    nlohmann::json j = {{"name", m.name}, {"goal", toString(m.goal)}};
    if (m.target) j["target"] = *m.target;
    return j;
}
}  // namespace

nlohmann::json SweepPlan::toJson() const {
    nlohmann::json trialList = nlohmann::json::array();
    for (const auto& t : trials)
        trialList.push_back({{"id", t.id},
                             {"point", t.point},
                             {"repeat", t.repeat},
                             {"name", t.name},
                             {"parameters", t.parameters},
                             {"args", t.args},
                             {"config", t.config},
                             {"suggestion", t.suggestion}});
    return {{"schema", kSchema},
            {"name", name},
            {"spec_file", specFile},
            {"spec", specText},
            {"method", toString(method)},
            {"metric", metricJson(metric)},
            {"parameters", parameterNames},
            {"repeats", repeats},
            {"run_cap", runCap ? nlohmann::json(*runCap) : nlohmann::json(nullptr)},
            {"early_terminate", earlyTerminate ? earlyTerminationJson(*earlyTerminate) : nlohmann::json(nullptr)},
            {"base_args", baseArgs},
            {"engine", engine},
            {"trials", trialList}};
}

int PlannedTrial::threads() const {
    // The configuration was checked when the trial list was made (and is again by run-trial); a
    // folder from elsewhere that says something else here gets the default.
    try {
        return fieldOr<int>(config, "threads", 0);
    } catch (const JsonFieldError&) {
        return 0;
    }
}

int PlannedTrial::epochs() const {
    try {
        return fieldOr<int>(fieldOr(config, "train", nlohmann::json::object()), "epochs", 0);
    } catch (const JsonFieldError&) {
        return 0;
    }
}

namespace {
PlannedTrial trialFromJson(const nlohmann::json& t) {
    if (!t.is_object()) throw JsonFieldError("", std::string("expected an object, found ") + kindOf(t));
    PlannedTrial trial;
    trial.id = requiredField<int>(t, "id");
    trial.point = requiredField<int>(t, "point");
    trial.repeat = requiredField<int>(t, "repeat");
    trial.name = requiredField<std::string>(t, "name");
    trial.parameters = requiredField<nlohmann::json>(t, "parameters");
    trial.args = requiredField<std::vector<std::string>>(t, "args");
    trial.config = requiredField<nlohmann::json>(t, "config");  // checked by run-trial, which trains it
    trial.suggestion = fieldOr(t, "suggestion", nlohmann::json());
    return trial;
}

SweepPlan planFromJson(const nlohmann::json& j) {
    SweepPlan p;
    p.name = fieldOr<std::string>(j, "name", "");
    p.specFile = requiredField<std::string>(j, "spec_file");
    p.specText = requiredField<std::string>(j, "spec");
    const auto method = requiredField<std::string>(j, "method");
    p.method = method == "random" ? Method::Random : method == "bayes" ? Method::Bayes : Method::Grid;
    const auto metric = requiredField<nlohmann::json>(j, "metric");
    withinField("metric", [&] {
        p.metric.name = requiredField<std::string>(metric, "name");
        p.metric.goal = requiredField<std::string>(metric, "goal") == "maximize" ? Goal::Maximize : Goal::Minimize;
        p.metric.target = optionalField<double>(metric, "target");
    });
    p.parameterNames = requiredField<std::vector<std::string>>(j, "parameters");
    p.repeats = fieldOr(j, "repeats", 1);
    p.runCap = optionalField<int>(j, "run_cap");
    if (const auto e = optionalField<nlohmann::json>(j, "early_terminate"))
        p.earlyTerminate = withinField("early_terminate", [&] { return earlyTerminationFromJson(*e); });
    p.baseArgs = requiredField<std::vector<std::string>>(j, "base_args");
    p.engine = fieldOr(j, "engine", nlohmann::json::object());
    const auto trials = requiredField<nlohmann::json>(j, "trials");
    if (!trials.is_array()) throw JsonFieldError("trials", std::string("expected an array, found ") + kindOf(trials));
    for (std::size_t i = 0; i < trials.size(); ++i) {
        const std::string where = "trials[" + std::to_string(i) + "]";
        p.trials.push_back(withinField(where, [&] { return trialFromJson(trials[i]); }));
        if (p.trials.back().id != static_cast<int>(i))
            throw JsonFieldError(where + ".id",
                                 "trial ids are not 0, 1, 2, ... (found " + std::to_string(p.trials.back().id) + ")");
    }
    return p;
}
}  // namespace

SweepPlan SweepPlan::fromJson(const nlohmann::json& j) {
    if (!j.is_object() || !j.contains("schema") || j.at("schema") != kSchema)
        throw DataError("sweep.json", std::string("not a sweep plan (schema ") + kSchema + " expected)");
    try {
        return planFromJson(j);
    } catch (const JsonFieldError& e) {
        throw DataError("sweep.json", std::string("invalid sweep plan: ") + e.what());
    }
}

}  // namespace wb::sweep
