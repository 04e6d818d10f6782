#include "sweep_folder.h"

#include <csignal>

#include <cerrno>
#include <cstdio>
#include <filesystem>

#include "atomic_file.h"
#include "errors.h"
#include "json_file.h"
#include "run_record.h"
#include "sweep_metric.h"

namespace fs = std::filesystem;

namespace wb::sweep {

namespace {
std::string planPath(const std::string& dir) {
    return (fs::path(dir) / "sweep.json").string();
}

bool processIsGone(long pid) {
    return pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}
}  // namespace

SweepFolder::SweepFolder(std::string dir)
    : dir_(std::move(dir)), plan_(SweepPlan::fromJson(loadJsonFile(planPath(dir_), "sweep plan"))) {}

bool SweepFolder::isSweepFolder(const std::string& dir) {
    std::error_code ec;
    return fs::is_regular_file(planPath(dir), ec);
}

SweepFolder SweepFolder::create(const std::string& dir, const SweepPlan& plan) {
    std::error_code ec;
    if (isSweepFolder(dir))
        throw ConfigError(dir + " already holds a sweep: use `mlpwb sweep resume " + dir + "`, or another --out");
    if (fs::exists(dir, ec) && !fs::is_empty(dir, ec))
        throw ConfigError(dir + " exists and is not empty: a sweep needs a folder of its own");
    fs::create_directories(fs::path(dir) / "trials", ec);
    if (ec) throw IoError("cannot create the sweep folder " + dir + ": " + ec.message());
    SweepFolder folder(dir, plan);
    for (const auto& trial : plan.trials) {  // each trial's folder exists before anything runs it (its log)
        fs::create_directories(folder.trialDir(trial.id), ec);
        if (ec) throw IoError("cannot create " + folder.trialDir(trial.id) + ": " + ec.message());
    }
    saveJsonAtomically(plan.toJson(), planPath(dir), "sweep plan");  // last: a folder with it is complete
    return folder;
}

std::string SweepFolder::trialDir(int id) const {
    char name[16];
    std::snprintf(name, sizeof name, "%04d", id);
    return (fs::path(dir_) / "trials" / name).string();
}
std::string SweepFolder::recordPath(int id) const {
    return trialDir(id) + "/run.json";
}
std::string SweepFolder::statePath(int id) const {
    return trialDir(id) + "/state.json";
}
std::string SweepFolder::logPath(int id) const {
    return trialDir(id) + "/log.txt";
}
std::string SweepFolder::trialLockPath(int id) const {
    return trialDir(id) + "/trial.lock";
}
std::string SweepFolder::driverLockPath() const {
    return (fs::path(dir_) / "driver.lock").string();
}

TrialStatus SweepFolder::readStatus(int id) const {
    std::error_code ec;
    if (!fs::exists(statePath(id), ec)) return {};
    try {
        return TrialStatus::fromJson(loadJsonFile(statePath(id), "trial state"));
    } catch (const DataError&) {
        return {};  // written atomically, so only a hand-edited file gets here: run the trial again
    }
}

void SweepFolder::writeStatus(int id, const TrialStatus& status) const {
    std::error_code ec;
    fs::create_directories(trialDir(id), ec);
    if (ec) throw IoError("cannot create " + trialDir(id) + ": " + ec.message());
    writeFileAtomically(statePath(id), status.toJson().dump(1) + "\n", "trial state");
}

TrialStatus SweepFolder::effectiveStatus(int id) const {
    TrialStatus s = readStatus(id);
    if (s.state == TrialState::Running && s.host == shortHostName() && processIsGone(s.pid)) {
        s.state = TrialState::Failed;
        s.error = "interrupted: its process (pid " + std::to_string(s.pid) + ") is gone";
    }
    return s;
}

std::vector<TrialView> SweepFolder::views() const {
    std::vector<TrialView> views;
    for (const auto& trial : plan_.trials) {
        TrialView v{&trial, effectiveStatus(trial.id), nullptr, std::nullopt};
        std::error_code ec;
        if (fs::exists(recordPath(trial.id), ec)) {
            try {
                v.figures = summaryFigures(RunRecord::load(recordPath(trial.id)));
            } catch (const Error&) {
                v.figures = nullptr;  // a record being replaced on a filesystem without atomic rename
            }
        }
        if (v.status.state == TrialState::Completed && !v.figures.is_null())
            v.metric = metricValue(v.figures, plan_.metric.name);
        views.push_back(std::move(v));
    }
    return views;
}

std::vector<int> SweepFolder::unfinishedIds() const {
    std::vector<int> ids;
    for (const auto& trial : plan_.trials)
        if (readStatus(trial.id).state != TrialState::Completed) ids.push_back(trial.id);
    return ids;
}

std::optional<std::size_t> bestTrial(const std::vector<TrialView>& views, const Metric& metric) {
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < views.size(); ++i)
        if (views[i].metric && (!best || better(*views[i].metric, *views[best.value()].metric, metric.goal))) best = i;
    return best;
}

}  // namespace wb::sweep
