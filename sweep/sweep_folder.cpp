#include "sweep/sweep_folder.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/platform/atomic_file.h"
#include "core/platform/errors.h"
#include "core/platform/json_file.h"
#include "core/platform/safe_open.h"
#include "core/run/run_record.h"
#include "sweep/folder_lock.h"
#include "sweep/sweep_metric.h"

namespace fs = std::filesystem;

namespace wb::sweep {

namespace {
std::string planPath(const std::string& dir) {
    return (fs::path(dir) / "sweep.json").string();
}

std::string alreadyASweep(const std::string& dir) {
    return dir + " already holds a sweep: use `mlpwb sweep resume " + dir + "`, or another --out";
}

// --out names the folder, so a link the user made there is followed; a file, a device is refused.
void makeSweepDir(const std::string& dir) {
    std::error_code ec;
    const auto status = fs::status(dir, ec);
    if (fs::exists(status) && !fs::is_directory(status))
        throw ConfigError(dir + " is not a folder: a sweep needs a new or empty folder of its own");
    fs::create_directories(dir, ec);
    if (ec) throw IoError("cannot create the sweep folder " + dir + ": " + ec.message());
}

// Whether DIR holds anything besides a driver lock (which a creating driver takes first).
bool holdsOtherFiles(const std::string& dir) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
        if (entry.path().filename() != "driver.lock") return true;
    return false;
}

void refuseUnlessEmpty(const std::string& dir) {
    if (SweepFolder::isSweepFolder(dir)) throw ConfigError(alreadyASweep(dir));
    if (holdsOtherFiles(dir)) throw ConfigError(dir + " exists and is not empty: a sweep needs a folder of its own");
}

// A folder of the sweep's own, made if missing: mkdir(2) never follows a link, and what is there
// already must be a folder itself.
void ownFolder(const std::string& path, const std::string& what) {
    if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST)
        throw IoError("cannot create " + what + " " + path + ": " + std::strerror(errno));
    refuseForeignFolder(path, what);
}

TrialStatus damaged(const std::string& why) {
    TrialStatus s;
    s.state = TrialState::Damaged;
    s.error = why + " (repair or remove it, then resume)";
    return s;
}
}  // namespace

SweepFolder::SweepFolder(std::string dir) : dir_(std::move(dir)) {
    const std::string path = planPath(dir_);
    try {
        plan_ = SweepPlan::fromJson(loadJsonFile(path, "sweep plan"));
    } catch (const DataError& e) {  // fromJson names the file by its name alone
        if (e.file() != "sweep.json") throw;
        throw DataError(path, e.reason());
    }
}

bool SweepFolder::isSweepFolder(const std::string& dir) {
    std::error_code ec;
    return fs::is_regular_file(planPath(dir), ec);
}

SweepFolder SweepFolder::create(const std::string& dir, const SweepPlan& plan) {
    if (isSweepFolder(dir)) throw ConfigError(alreadyASweep(dir));
    makeSweepDir(dir);
    refuseUnlessEmpty(dir);  // before the lock file is made: a refused folder is left as it was
    SweepFolder folder(dir, plan);
    std::string holder;
    auto lock = FolderLock::tryAcquire(folder.driverLockPath(), &holder);
    if (!lock) throw FolderBusy(dir + " is being driven by another mlpwb sweep (" + holder + ")");
    refuseUnlessEmpty(dir);  // again, under the lock: another driver may have filled it meanwhile
    for (const auto& trial : plan.trials) folder.ownTrialDir(trial.id);  // each exists before it runs (its log)
    saveJsonAtomically(plan.toJson(), planPath(dir), "sweep plan", Symlink::Refuse);  // last: then it is complete
    folder.driverLock_ = std::make_shared<const FolderLock>(std::move(*lock));
    return folder;
}

void SweepFolder::appendTrials(const std::vector<PlannedTrial>& trials) {
    SweepPlan grown = plan_;
    for (const auto& t : trials) {
        if (t.id != static_cast<int>(grown.trials.size()))
            throw ConfigError("trial " + std::to_string(t.id) + " does not follow the " +
                              std::to_string(grown.trials.size()) + " trials of " + dir_);
        grown.trials.push_back(t);
    }
    saveJsonAtomically(grown.toJson(), planPath(dir_), "sweep plan", Symlink::Refuse);
    plan_ = std::move(grown);
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

std::string SweepFolder::ownTrialDir(int id) const {
    ownFolder((fs::path(dir_) / "trials").string(), "the trials folder");
    ownFolder(trialDir(id), "the trial folder");
    return trialDir(id);
}

TrialStatus SweepFolder::readStatus(int id) const {
    const std::string path = statePath(id);
    struct stat st {};
    if (::lstat(trialDir(id).c_str(), &st) != 0) return {};  // no folder yet: pending
    try {
        refuseForeignFolder(trialDir(id), "the trial folder");
        if (::lstat(path.c_str(), &st) != 0) return {};  // no state yet: pending
        refuseForeignFile(path, "trial state");
        return TrialStatus::fromJson(loadJsonFile(path, "trial state"));
    } catch (const DataError& e) {  // a bad file; fromJson's errors name no file
        return damaged(e.file().empty() ? path + ": " + e.reason() : e.what());
    } catch (const Error& e) {  // a link, a folder, a device where the state belongs
        return damaged(e.what());
    }
}

void SweepFolder::writeStatus(int id, const TrialStatus& status) const {
    ownTrialDir(id);
    writeFileAtomically(statePath(id), status.toJson().dump(1) + "\n", "trial state", Symlink::Refuse);
}

TrialStatus SweepFolder::effectiveStatus(int id) const {
    TrialStatus s = readStatus(id);
    if (s.state != TrialState::Running || s.host != shortHostName() || FolderLock::isHeld(trialLockPath(id))) return s;
    // The lock is free: read again, since the trial may have finished (its last state written,
    // then its lock dropped) between the two looks.
    s = readStatus(id);
    if (s.state == TrialState::Running) {
        s.state = TrialState::Failed;
        s.error = "interrupted: no process holds its lock (killed, or the machine restarted)";
    }
    return s;
}

std::optional<std::string> SweepFolder::recordProblem(int id, RunStatus expected) const {
    try {
        const RunRecord record = RunRecord::load(recordPath(id));
        if (record.status != expected) return "its record says " + toString(record.status);
        return std::nullopt;
    } catch (const std::exception& e) {
        return std::string("its record cannot be read: ") + e.what();
    }
}

TrialRow SweepFolder::view(const PlannedTrial& trial, nlohmann::json figures) const {
    TrialRow v{&trial, effectiveStatus(trial.id), std::move(figures), std::nullopt};
    const RunStatus expected = v.status.state == TrialState::Stopped ? RunStatus::Stopped : RunStatus::Completed;
    if (endedAsAsked(v.status.state) &&
        (!v.figures.is_object() || v.figures.value("record_status", "") != toString(expected))) {
        v.status.state = TrialState::Failed;  // a record truncated, removed or replaced since: resume runs it
        v.status.error = recordProblem(trial.id, expected).value_or("its record cannot be read");
    }
    if (v.status.state == TrialState::Completed) v.metric = metricValue(v.figures, plan_.metric.name);
    return v;
}

std::vector<TrialRow> SweepFolder::views() const {
    std::vector<TrialRow> views;
    for (const auto& trial : plan_.trials) {
        nlohmann::json figures;
        std::error_code ec;
        if (fs::exists(recordPath(trial.id), ec)) {
            try {
                figures = summaryFigures(RunRecord::load(recordPath(trial.id)));
            } catch (const std::exception&) {  // damaged, or being replaced where rename is not atomic
                figures = nullptr;
            }
        }
        views.push_back(view(trial, std::move(figures)));
    }
    return views;
}

std::vector<int> SweepFolder::unfinishedIds() const {
    std::vector<int> ids;
    for (const auto& trial : plan_.trials) {
        const auto state = readStatus(trial.id).state;
        if (state == TrialState::Damaged) continue;
        if (!isDone(trial.id, state)) ids.push_back(trial.id);
    }
    return ids;
}

bool SweepFolder::isDone(int id, TrialState state) const {
    if (state == TrialState::Completed) return !recordProblem(id);
    return state == TrialState::Stopped && !recordProblem(id, RunStatus::Stopped);
}

std::vector<int> SweepFolder::damagedIds() const {
    std::vector<int> ids;
    for (const auto& trial : plan_.trials)
        if (readStatus(trial.id).state == TrialState::Damaged) ids.push_back(trial.id);
    return ids;
}

std::optional<std::size_t> bestTrial(const std::vector<TrialRow>& views, const Metric& metric) {
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < views.size(); ++i)
        if (views[i].metric && (!best || better(*views[i].metric, *views[best.value()].metric, metric.goal))) best = i;
    return best;
}

}  // namespace wb::sweep
