// A sweep folder: the single source of truth of a sweep, wherever its trials run.
//
//   DIR/sweep.json              the spec as given and the numbered trial list (sweep_plan.h)
//   DIR/driver.lock             held by the one `mlpwb sweep` driving the folder
//   DIR/trials/0007/state.json  the trial's state (trial_state.h), written atomically
//   DIR/trials/0007/run.json    its RunRecord, rewritten after every epoch (as `mlpwb train --out`)
//   DIR/trials/0007/rungs.json  its metric at each early-termination rung it reached, and the
//                               decision (early_termination.h)
//   DIR/trials/0007/log.txt     what the trial printed
//   DIR/trials/0007/trial.lock  held by the process running the trial
//
// Every file is written by one process at a time and replaced atomically, so a kill -9 of a driver
// or a trial leaves a folder that `resume` can finish.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/platform/errors.h"
#include "core/run/run_record.h"
#include "sweep/sweep_plan.h"
#include "sweep/trial_state.h"

namespace wb::sweep {

class FolderLock;

// The folder is driven by another `mlpwb sweep` (its lock is held): what() names the holder.
class FolderBusy : public Error {
public:
    using Error::Error;
};

// One trial as status, report and the GUI see it.
struct TrialRow {
    const PlannedTrial* trial = nullptr;
    TrialStatus status;            // effectiveStatus(): an interrupted trial reads as failed
    nlohmann::json figures;        // summaryFigures() of its RunRecord; null without one
    std::optional<double> metric;  // the sweep's metric, for a completed trial
};

class SweepFolder {
public:
    // Opens an existing sweep folder. Throws DataError when DIR has no readable sweep.json.
    explicit SweepFolder(std::string dir);
    // Creates DIR (and its parents), takes its driver lock, and only then checks that it is empty
    // and writes the trial folders and sweep.json: of two drivers given one new folder, one goes on
    // and the other gets FolderBusy or ConfigError. The returned folder (and every copy of it) holds
    // the driver lock. Refuses (ConfigError) a path that is no folder, or a folder that already
    // holds a sweep or any other file: a sweep never mixes with other results.
    static SweepFolder create(const std::string& dir, const SweepPlan& plan);
    // True when DIR holds a sweep.json.
    static bool isSweepFolder(const std::string& dir);

    const std::string& dir() const { return dir_; }
    const SweepPlan& plan() const { return plan_; }
    // Method bayes: appends `trials` (numbered on from the last) to the plan and rewrites sweep.json
    // atomically, no link followed. Only the driver, which holds driver.lock, calls it.
    void appendTrials(const std::vector<PlannedTrial>& trials);

    // Paths only. Nothing inside a sweep folder is written through a link: whoever writes there
    // first calls ownTrialDir, and files are opened with openOwnFile or written with Symlink::Refuse.
    std::string trialDir(int id) const;
    std::string recordPath(int id) const;
    std::string statePath(int id) const;
    std::string logPath(int id) const;
    std::string trialLockPath(int id) const;
    std::string driverLockPath() const;

    // The trial's folder, made if missing, after checking that neither trials/ nor it is a
    // symlink or a file: IoError naming it. What writes into the folder calls this first.
    std::string ownTrialDir(int id) const;

    // The trial's state file as written: pending where there is none yet; Damaged, with the reason
    // as its error, where it cannot be read (never an exception: one bad file blocks no other).
    TrialStatus readStatus(int id) const;
    void writeStatus(int id, const TrialStatus& status) const;  // atomic, no link followed; IoError
    // readStatus, with a trial marked running on this host whose lock is free read as failed
    // ("interrupted"): a kill -9 or a reboot leaves no trial `running` for ever, and a pid that now
    // belongs to another process fools nobody. On another host, where a filesystem may not carry
    // locks, a running trial stays running (SLURM's queue settles those: slurm_engine.h).
    TrialStatus effectiveStatus(int id) const;

    // Every trial, in id order. A state that says completed over a record that is not reads as
    // failed, with the reason.
    std::vector<TrialRow> views() const;
    // One trial's view from its record's summaryFigures (null without a readable record).
    TrialRow view(const PlannedTrial& trial, nlohmann::json figures) const;
    // Why the trial's run.json is no record of `expected` status (missing, truncated, another
    // status), or nullopt. A state that says completed (stopped) counts only with such a record.
    std::optional<std::string> recordProblem(int id, RunStatus expected = RunStatus::Completed) const;
    // Done for good: completed with a completed record, or stopped by the sweep's early termination
    // with a stopped one. `state` is the trial's readStatus().
    bool isDone(int id, TrialState state) const;
    // The ids whose trials are not done (a completed state with a record that is not, too) and not
    // damaged: what `resume` runs. A stopped trial is never run again.
    std::vector<int> unfinishedIds() const;
    // The damaged ones, which `resume` leaves for the user to repair.
    std::vector<int> damagedIds() const;

private:
    SweepFolder(std::string dir, SweepPlan plan) : dir_(std::move(dir)), plan_(std::move(plan)) {}
    std::string dir_;
    SweepPlan plan_;
    std::shared_ptr<const FolderLock> driverLock_;  // held from create(); none for an opened folder
};

// The index of the best trial among `views` (completed, with a metric), or nullopt.
std::optional<std::size_t> bestTrial(const std::vector<TrialRow>& views, const Metric& metric);

}  // namespace wb::sweep
