#include "sweep_plan.h"

#include "errors.h"

namespace wb::sweep {

nlohmann::json SweepPlan::toJson() const {
    nlohmann::json trialList = nlohmann::json::array();
    for (const auto& t : trials)
        trialList.push_back({{"id", t.id},
                             {"point", t.point},
                             {"repeat", t.repeat},
                             {"name", t.name},
                             {"parameters", t.parameters},
                             {"args", t.args},
                             {"config", t.config}});
    return {{"schema", kSchema},
            {"name", name},
            {"spec_file", specFile},
            {"spec", specText},
            {"method", toString(method)},
            {"metric", {{"name", metric.name}, {"goal", toString(metric.goal)}}},
            {"parameters", parameterNames},
            {"repeats", repeats},
            {"base_args", baseArgs},
            {"engine", engine},
            {"trials", trialList}};
}

SweepPlan SweepPlan::fromJson(const nlohmann::json& j) {
    if (!j.is_object() || j.value("schema", "") != kSchema)
        throw DataError("sweep.json", std::string("not a sweep plan (schema ") + kSchema + " expected)");
    try {
        SweepPlan p;
        p.name = j.value("name", "");
        p.specFile = j.at("spec_file").get<std::string>();
        p.specText = j.at("spec").get<std::string>();
        p.method = j.at("method").get<std::string>() == "random" ? Method::Random : Method::Grid;
        p.metric.name = j.at("metric").at("name").get<std::string>();
        p.metric.goal = j.at("metric").at("goal").get<std::string>() == "maximize" ? Goal::Maximize : Goal::Minimize;
        p.parameterNames = j.at("parameters").get<std::vector<std::string>>();
        p.repeats = j.value("repeats", 1);
        p.baseArgs = j.at("base_args").get<std::vector<std::string>>();
        p.engine = j.value("engine", nlohmann::json::object());
        for (const auto& t : j.at("trials"))
            p.trials.push_back({t.at("id").get<int>(), t.at("point").get<int>(), t.at("repeat").get<int>(),
                                t.at("name").get<std::string>(), t.at("parameters"),
                                t.at("args").get<std::vector<std::string>>(), t.at("config")});
        for (std::size_t i = 0; i < p.trials.size(); ++i)
            if (p.trials[i].id != static_cast<int>(i)) throw DataError("sweep.json", "trial ids are not 0, 1, 2, ...");
        return p;
    } catch (const nlohmann::json::exception& e) {
        throw DataError("sweep.json", std::string("invalid sweep plan: ") + e.what());
    }
}

}  // namespace wb::sweep
