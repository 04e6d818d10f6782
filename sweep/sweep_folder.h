// A sweep folder: the single source of truth of a sweep, wherever its trials run.
//
//   DIR/sweep.json              the spec as given and the numbered trial list (sweep_plan.h)
//   DIR/driver.lock             held by the one `mlpwb sweep` driving the folder
//   DIR/trials/0007/state.json  the trial's state (trial_state.h), written atomically
//   DIR/trials/0007/run.json    its RunRecord, rewritten after every epoch (as `mlpwb train --out`)
//   DIR/trials/0007/log.txt     what the trial printed
//   DIR/trials/0007/trial.lock  held by the process running the trial
//
// Every file is written by one process at a time and replaced atomically, so a kill -9 of a driver
// or a trial leaves a folder that `resume` can finish.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep_plan.h"
#include "trial_state.h"

namespace wb::sweep {

// One trial as status, report and the GUI see it.
struct TrialView {
    const PlannedTrial* trial = nullptr;
    TrialStatus status;            // a `running` trial whose process is gone reads as failed
    nlohmann::json figures;        // summaryFigures() of its RunRecord; null without one
    std::optional<double> metric;  // the sweep's metric, for a completed trial
};

class SweepFolder {
public:
    // Opens an existing sweep folder. Throws DataError when DIR has no readable sweep.json.
    explicit SweepFolder(std::string dir);
    // Creates DIR (and its parents) and writes sweep.json. Refuses (ConfigError) a folder that
    // already holds a sweep or any other file: a sweep never mixes with other results.
    static SweepFolder create(const std::string& dir, const SweepPlan& plan);
    // True when DIR holds a sweep.json.
    static bool isSweepFolder(const std::string& dir);

    const std::string& dir() const { return dir_; }
    const SweepPlan& plan() const { return plan_; }
    std::string trialDir(int id) const;
    std::string recordPath(int id) const;
    std::string statePath(int id) const;
    std::string logPath(int id) const;
    std::string trialLockPath(int id) const;
    std::string driverLockPath() const;

    // The trial's state file as written (pending where there is none yet).
    TrialStatus readStatus(int id) const;
    void writeStatus(int id, const TrialStatus& status) const;  // atomic; throws IoError
    // readStatus, with a trial marked running on this host whose process is gone read as failed
    // ("interrupted"): a kill -9 leaves no trial `running` for ever.
    TrialStatus effectiveStatus(int id) const;

    // Every trial, in id order, with its state, figures and metric.
    std::vector<TrialView> views() const;
    // The ids whose trials are not completed: what `resume` runs.
    std::vector<int> unfinishedIds() const;

private:
    SweepFolder(std::string dir, SweepPlan plan) : dir_(std::move(dir)), plan_(std::move(plan)) {}
    std::string dir_;
    SweepPlan plan_;
};

// The index of the best trial among `views` (completed, with a metric), or nullopt.
std::optional<std::size_t> bestTrial(const std::vector<TrialView>& views, const Metric& metric);

}  // namespace wb::sweep
