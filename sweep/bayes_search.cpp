#include "sweep/bayes_search.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/platform/child_process.h"
#include "core/platform/errors.h"
#include "core/platform/json_fields.h"
#include "core/platform/json_file.h"
#include "sweep/sweep_folder.h"
#include "sweep/sweep_metric.h"
#include "sweep/trial_points.h"

namespace wb::sweep {

namespace {
// One JSON line in, one JSON line out. The study lives in memory only: the folder is the record.
constexpr const char* kScript = R"PY(
import json, math, sys, warnings
import optuna
from optuna.distributions import CategoricalDistribution, FloatDistribution
optuna.logging.set_verbosity(optuna.logging.WARNING)
warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)  # multivariate TPE
req = json.loads(sys.stdin.readline())
dists = {}
for p in req["space"]:
    if p["kind"] == "unit":
        dists[p["name"]] = FloatDistribution(0.0, 1.0)
    else:
        dists[p["name"]] = CategoricalDistribution(list(range(p["count"])))
lists = sum(1 for p in req["space"] if p["kind"] == "choice")
name, note = "TPESampler", ""
if 2 * lists < len(req["space"]):
    try:
        import scipy, torch  # what GPSampler needs once past its random start
        name = "GPSampler"
    except Exception as e:
        note = "GPSampler needs torch and scipy in %s (%s): TPESampler instead" % (sys.executable, e)
State = optuna.trial.TrialState


def told(t):
    """The folder's trial as the study's, or None where it teaches nothing."""
    params = {k: v for k, v in t["params"].items() if k in dists}
    if set(params) != set(dists):
        return None
    value = t.get("value")
    finite = value is not None and math.isfinite(value)
    try:
        if t["state"] == "complete" and finite:
            return optuna.trial.create_trial(params=params, distributions=dists, value=value)
        if t["state"] == "pruned":
            steps = {t["step"]: value} if finite else {}
            return optuna.trial.create_trial(params=params, distributions=dists, state=State.PRUNED,
                                             intermediate_values=steps)
        if t["state"] == "running":
            return optuna.trial.create_trial(params=params, distributions=dists, state=State.RUNNING)
        return optuna.trial.create_trial(params=params, distributions=dists, state=State.FAIL)
    except ValueError:
        return None  # a value outside its distribution (a folder edited by hand)


def suggest(sampler_name):
    # TPE models the parameters jointly (multivariate: Optuna 5's default, asked by name for the older
    # ones): a good learning rate depends on the batch size.
    joint = {"multivariate": True} if sampler_name == "TPESampler" else {}
    sampler = getattr(optuna.samplers, sampler_name)(seed=req["seed"], n_startup_trials=req["startup"], **joint)
    study = optuna.create_study(direction=req["direction"], sampler=sampler)
    for t in req["trials"]:
        trial = told(t)
        if trial is not None:
            study.add_trial(trial)
    points = []
    for _ in range(req["count"]):
        asked = study.ask(dists)
        points.append({k: asked.params[k] for k in dists})
    return points


try:
    points = suggest(name)
except Exception as e:  # GP past its random start on a torch too old for it, ...
    if name != "GPSampler":
        raise
    note = "GPSampler failed in %s (%s: %s): TPESampler instead" % (sys.executable, type(e).__name__, e)
    name = "TPESampler"
    points = suggest(name)
print(json.dumps({"sampler": name, "note": note, "optuna": optuna.__version__, "points": points}), flush=True)
)PY";

// How a trial is told to the study (bayes_search.h's table).
nlohmann::json toldTrial(const TrialRow& row, const Metric& metric) {
    nlohmann::json t = {{"params", row.trial->suggestion}, {"value", nullptr}, {"step", 0}};
    switch (row.status.state) {
        case TrialState::Completed:
            t["state"] = "complete";
            t["value"] = orNull(row.metric);
            break;
        case TrialState::Stopped:
            t["state"] = "pruned";
            t["value"] = orNull(metricValue(row.figures, metric.name));
            t["step"] = row.status.stoppedAtEpoch;
            break;
        case TrialState::Pending:
        case TrialState::Running: t["state"] = "running"; break;
        default: t["state"] = "fail";
    }
    return t;
}

// Reads the one line the script answers, or throws with its stderr.
std::string answerOf(ChildProcess& child, const std::string& python) {
    std::string line;
    const auto read = child.readLine(line, nullptr, std::chrono::minutes(10));
    if (read == ChildProcess::Read::Line) return line;
    const std::string why =
        read == ChildProcess::Read::TimedOut ? "gave no answer in 10 minutes" : child.describeExit();
    child.terminate();
    throw ProcessError(python, "Optuna " + why + ": " + child.stderrTail());
}
}  // namespace

const char* optunaScript() {
    return kScript;
}

std::string checkOptuna(const std::string& python) {
    const std::string install = python + " -m pip install optuna";
    std::string line;
    try {
        ChildProcess child({python, "-c", "import optuna; print(optuna.__version__)"});
        if (child.readLine(line, nullptr, std::chrono::minutes(2)) == ChildProcess::Read::Line && child.wait() == 0)
            return line;
        throw ConfigError("method: bayes asks Optuna for its trials, and " + python + " cannot import optuna (" +
                          child.stderrTail() + "): " + install);
    } catch (const ProcessError& e) {
        throw ConfigError("method: bayes asks Optuna for its trials in " + python + ", which cannot be started (" +
                          e.what() + "): give --python, or " + install);
    }
}

nlohmann::json studyRequest(const Spec& spec, const std::vector<TrialRow>& views, int count) {
    nlohmann::json trials = nlohmann::json::array();
    for (const auto& row : views)
        if (!row.trial->suggestion.is_null()) trials.push_back(toldTrial(row, spec.metric));
    const int runCap = spec.runCap.value_or(kStartupTrials);
    return {{"space", searchSpace(spec)},
            {"direction", toString(spec.metric.goal)},
            {"seed", (spec.seed + views.size()) % (std::uint64_t(1) << 32)},
            {"startup", std::clamp(runCap / 5, 2, kStartupTrials)},
            {"count", count},
            {"trials", trials}};
}

Suggestions askOptuna(const std::string& python, const nlohmann::json& request) {
    ChildProcess child({python, "-c", kScript}, ChildProcess::Input::Channel);
    child.writeLine(request.dump());
    const nlohmann::json answer = parseJsonText(answerOf(child, python), "Optuna's answer", "suggestions");
    child.wait();
    Suggestions s;
    try {
        s.sampler = requiredField<std::string>(answer, "sampler");
        s.note = fieldOr<std::string>(answer, "note", "");
        s.optunaVersion = fieldOr<std::string>(answer, "optuna", "");
        s.points = requiredList<nlohmann::json>(answer, "points");
    } catch (const JsonFieldError& e) {
        throw DataError("Optuna's answer", e.what());
    }
    if (s.points.size() != request.at("count").get<std::size_t>())
        throw DataError("Optuna's answer",
                        "asked for " + request.at("count").dump() + " points, got " + std::to_string(s.points.size()));
    return s;
}

}  // namespace wb::sweep
