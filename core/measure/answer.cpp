// The answer's engines, runner and file; its conclusion is in answer_conclusion.cpp.
#include "core/measure/answer.h"

#include <algorithm>
#include <chrono>
#include <numeric>

#include "core/measure/ablation_attribution.h"
#include "core/platform/enum_names.h"
#include "core/platform/errors.h"
#include "core/platform/json_fields.h"
#include "core/platform/json_file.h"
#include "core/train/keep_warm.h"
#include "core/train/trainer.h"

namespace wb {

namespace {
const EnumNames<AnswerStatus> kAnswerStatusNames = {{AnswerStatus::Running, "running"},
                                                    {AnswerStatus::Completed, "completed"},
                                                    {AnswerStatus::Cancelled, "cancelled"},
                                                    {AnswerStatus::Failed, "failed"}};

// Every engine the answer knows (core/run/engines.h), in the order it asks them.
std::vector<std::string> allEngineNames() {
    std::vector<std::string> names;
    for (const EngineFacts& e : engines()) names.push_back(e.name);
    return names;
}

// Whether `fix` sets some switch of `seed` to another value (torch options: always, as no preset
// sets them).
bool changesSomething(const AblationFix& fix, const ExecutionSettings& seed) {
    for (const auto& [name, value] : fix.sets) {
        if (isTorchOption(name)) return true;
        ExecutionSettings changed = seed;
        setSwitch(changed, name, value);
        if (!(changed == seed)) return true;
    }
    return false;
}
}  // namespace

std::string toString(AnswerStatus s) {
    return enumName(kAnswerStatusNames, s);
}

void AnswerPlan::validate() const {
    if (repeats < 1 || repeats > 100)
        throw ConfigError("answer: repeats must be 1-100, not " + std::to_string(repeats));
    ablation("").validate();  // the target and the budget
    if (epochs < 2 || epochs > 100000)
        throw ConfigError("answer: epochs must be at least 2 (a warm-up and a timed epoch), not " +
                          std::to_string(epochs));
    for (const auto& e : engines)
        if (!findEngine(e)) throw ConfigError("answer: unknown engine '" + e + "' (" + engineNameList() + ")");
    // One engine twice would compare it with itself, and its runs would overlap no other engine's.
    for (auto e = engines.begin(); e != engines.end(); ++e)
        if (std::find(engines.begin(), e, *e) != e)
            throw ConfigError("answer: engine '" + *e + "' is named twice; name each engine once");
}

std::string AnswerPlan::seedPreset(const std::string& engine) {
    return engine == "keras" ? "Seed Keras fit" : AblationPlan{}.baseline;
}

AblationPlan AnswerPlan::ablation(const std::string& engine) const {
    AblationPlan p;
    p.baseline = seedPreset(engine);
    p.fixes.clear();
    const ExecutionSettings& seed = presetByName(p.baseline).settings;
    for (const auto& name : defaultFixOrder())
        if (changesSomething(ablationFixByName(name), seed)) p.fixes.push_back(name);
    p.repeats = repeats;
    p.target = target;
    p.budgetSeconds = budgetSeconds;
    p.alone = alone;
    p.leaveOneOut = leaveOneOut;
    p.shapley = shapley;
    return p;
}

const AnswerEngine* Answer::engine(const std::string& name) const {
    const auto it =
        std::find_if(engines.begin(), engines.end(), [&](const AnswerEngine& e) { return e.engine == name; });
    return it == engines.end() ? nullptr : &*it;
}

std::optional<FoundingComparison> Answer::founding() const {
    FoundingComparison f{engine("torch"), engine("keras"), {}, {}};
    if (!f.torch || !f.keras || !f.torch->gap() || !f.keras->ablation || !f.keras->ablation->seedLoop())
        return std::nullopt;
    const AblationResult &torch = *f.torch->ablation, &keras = *f.keras->ablation;
    f.kerasFit = compareSpeed(torch.seedLoop()->spread(), keras.seedLoop()->spread());
    f.fixedTorch = compareSpeed(keras.seedLoop()->spread(), torch.fixedLoop()->spread());
    return f;
}

const AblationStep* AnswerEngine::largestCause() const {
    if (!ablation) return nullptr;
    const Attribution a = attribute(*ablation);
    if (!a.largest || !ablation->steps[a.causes[*a.largest].step].share) return nullptr;
    return &ablation->steps[a.causes[*a.largest].step];
}

std::vector<AnswerEngine> answerEngines(const AnswerPlan& plan, const std::vector<BackendInfo>& infos) {
    const std::vector<std::string> wanted = plan.engines.empty() ? allEngineNames() : plan.engines;
    std::vector<AnswerEngine> available, missing;
    for (const auto& name : wanted) {
        AnswerEngine e;
        e.engine = name;
        const auto info =
            std::find_if(infos.begin(), infos.end(), [&](const BackendInfo& i) { return i.name == name; });
        if (info == infos.end()) {
            e.reason = "this build has no " + name + " backend";
        } else {
            e.available = info->available;
            e.device = info->device;
            e.reason = info->reason;
        }
        if (!e.available) e.install = installHint(name, e.reason);
        (e.available ? available : missing).push_back(std::move(e));
    }
    available.insert(available.end(), std::make_move_iterator(missing.begin()), std::make_move_iterator(missing.end()));
    return available;
}

std::vector<AnswerEstimate> estimateAnswer(const AnswerPlan& plan, const std::vector<AnswerEngine>& engines,
                                           const RunConfig& base, const Dataset& dataset, const PreparedData& data,
                                           const CancelFlag& cancel) {
    plan.validate();
    std::vector<AnswerEstimate> estimates;
    for (const AnswerEngine& engine : engines) {
        if (!engine.available || cancel.load()) continue;
        const AblationPlan ablation = plan.ablation(engine.engine);
        RunConfig probe = base;
        probe.name = "answer estimate";
        probe.backend = engine.engine;
        probe.execution = presetByName(ablation.baseline).settings;
        probe.train.epochs = 2;
        AnswerEstimate estimate{engine.engine, std::nullopt};
        try {
            const auto start = std::chrono::steady_clock::now();
            auto backend = BackendRegistry::instance().create(engine.engine, probe.device);
            Trainer trainer(probe, dataset, data, *backend, "");
            const RunRecord record = trainer.run(cancel, {});
            const double totalMs =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
            if (record.status == RunStatus::Completed && record.epochs.size() == 2) {
                const double epochMs = record.epochs[1].wallMs;
                const double firstMs = std::max(0.0, totalMs - epochMs);  // start-up and the warm-up epoch
                // The rounds asked for, or the budget for more: the rounds stop once it is spent.
                const double rounds = plannedRuns(ablation) * (firstMs + (plan.epochs - 1) * epochMs) / 1000.0;
                estimate.seconds = std::max(rounds, std::min(plan.budgetSeconds, rounds * AblationPlan::kMaxRounds /
                                                                                     std::max(1, plan.repeats)));
            }
        } catch (const Error&) {  // the answer's own run will fail the same way, and record why
        }
        estimates.push_back(estimate);
    }
    return estimates;
}

Answer runAnswer(const AnswerPlan& plan, std::vector<AnswerEngine> engines, const RunConfig& base,
                 const Dataset& dataset, const PreparedData& data, const CancelFlag& cancel,
                 const AnswerCallbacks& callbacks) {
    plan.validate();
    RunConfig config = base;
    config.train.epochs = plan.epochs;
    Answer answer;
    answer.plan = plan;
    answer.config = config;
    answer.engines = std::move(engines);
    int available = 0;
    std::vector<int> planned(answer.engines.size(), 0);  // each engine's runs, as far as is known
    for (std::size_t i = 0; i < answer.engines.size(); ++i)
        if (answer.engines[i].available) {
            ++available;
            planned[i] = plannedRuns(plan.ablation(answer.engines[i].engine));
        }
    int done = 0;
    answer.status = AnswerStatus::Completed;
    for (std::size_t i = 0; i < answer.engines.size(); ++i) {
        AnswerEngine& engine = answer.engines[i];
        if (!engine.available) continue;
        RunConfig engineConfig = config;
        engineConfig.backend = engine.engine;
        AblationCallbacks steps;
        steps.onRunStarted = [&](int, const std::string& step, int repeat, int plannedHere) {
            planned[i] = plannedHere;
            if (callbacks.onRunStarted)
                callbacks.onRunStarted(engine.engine, step, repeat, done,
                                       std::accumulate(planned.begin(), planned.end(), 0));
            ++done;
        };
        steps.onStepFinished = [&](const AblationResult& partial, const AblationStep&) {
            engine.ablation = partial;
            if (callbacks.onProgress) callbacks.onProgress(answer);
        };
        try {
            engine.ablation = runAblation(plan.ablation(engine.engine), engineConfig, dataset, data, cancel, steps);
        } catch (const Error& e) {  // a configuration this engine refuses: recorded, the others still run
            engine.ablation.reset();
            engine.reason = e.what();
        }
        if (callbacks.onProgress) callbacks.onProgress(answer);
        if (engine.ablation && engine.ablation->status == AblationStatus::Cancelled) {
            answer.status = AnswerStatus::Cancelled;
            answer.message = "cancelled during the " + engine.engine + " ablation";
            break;
        }
    }
    if (answer.status == AnswerStatus::Completed && available == 0) {
        answer.status = AnswerStatus::Failed;
        answer.message = "no engine can train here";
    }
    return answer;
}

nlohmann::json Answer::toJson() const {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& e : engines) {
        nlohmann::json j = {{"engine", e.engine}, {"available", e.available}};
        if (!e.device.empty()) j["device"] = e.device;
        if (!e.reason.empty()) j["reason"] = e.reason;
        if (!e.install.empty()) j["install"] = e.install;
        j["ablation"] = e.ablation ? e.ablation->toJson() : nlohmann::json(nullptr);
        list.push_back(std::move(j));
    }
    return {{"schema", kSchema},
            {"plan",
             {{"engines", plan.engines},
              {"repeats", plan.repeats},
              {"epochs", plan.epochs},
              {"target", plan.target},
              {"budget_s", plan.budgetSeconds},
              {"alone", plan.alone},
              {"leave_one_out", plan.leaveOneOut},
              {"shapley", plan.shapley}}},
            {"status", toString(status)},
            {"message", message},
            {"config", config},
            {"engines", list},
            {"conclusion", conclusion()}};  // for readers without this code; recomputed on load
}

Answer Answer::fromJson(const nlohmann::json& j) {
    const auto schema = j.is_object() ? j.find("schema") : j.end();
    if (!j.is_object() || schema == j.end() || !schema->is_string() || schema->get<std::string>() != kSchema)
        throw DataError("", "not an answer (expected schema '" + std::string(kSchema) + "')");
    try {
        Answer a;
        const nlohmann::json plan = j.value("plan", nlohmann::json::object());
        a.plan.engines = plan.value("engines", std::vector<std::string>{});
        a.plan.repeats = fieldOr(plan, "repeats", a.plan.repeats);
        a.plan.target = fieldOr(plan, "target", a.plan.target);
        a.plan.budgetSeconds = fieldOr(plan, "budget_s", a.plan.budgetSeconds);
        a.plan.epochs = fieldOr(plan, "epochs", a.plan.epochs);
        a.plan.alone = fieldOr(plan, "alone", false);
        a.plan.leaveOneOut = fieldOr(plan, "leave_one_out", false);  // files before it measured none
        a.plan.shapley = fieldOr(plan, "shapley", true);
        a.status = enumFromName(kAnswerStatusNames, j.value("status", "completed"), "answer status");
        a.message = j.value("message", "");
        a.config = withinField("config", [&] { return fieldOr(j, "config", RunConfig{}); });
        for (const auto& item : requiredField<nlohmann::json>(j, "engines")) {
            AnswerEngine e;
            e.engine = requiredField<std::string>(item, "engine");
            e.available = item.value("available", false);
            e.device = item.value("device", "");
            e.reason = item.value("reason", "");
            e.install = item.value("install", "");
            if (item.contains("ablation") && !item.at("ablation").is_null())
                e.ablation = AblationResult::fromJson(item.at("ablation"));
            a.engines.push_back(std::move(e));
        }
        return a;
    } catch (const JsonFieldError& e) {
        throw DataError("", std::string("invalid answer: ") + e.what());
    } catch (const nlohmann::json::exception& e) {
        throw DataError("", std::string("invalid answer: ") + e.what());
    } catch (const ConfigError& e) {
        throw DataError("", std::string("invalid answer: ") + e.what());
    }
}

void Answer::save(const std::string& path) const {
    saveJsonAtomically(toJson(), path, "answer");
}

Answer Answer::load(const std::string& path) {
    const nlohmann::json j = loadJsonFile(path, "answer");
    try {
        return fromJson(j);
    } catch (const DataError& e) {
        throw DataError(path, e.reason());
    }
}

std::optional<Answer> answerQuestion(const AnswerPlan& plan, const RunConfig& base, const Dataset& dataset,
                                     const PreparedData& data, const CancelFlag& cancel, const AnswerSteps& steps) {
    const std::vector<AnswerEngine> engines = answerEngines(plan, BackendRegistry::instance().list());
    if (steps.onEngines) steps.onEngines(engines);
    const KeepWarm warm;
    if (steps.onEstimate && !steps.onEstimate(estimateAnswer(plan, engines, base, dataset, data, cancel)))
        return std::nullopt;
    return runAnswer(plan, engines, base, dataset, data, cancel, steps.runs);
}

}  // namespace wb
