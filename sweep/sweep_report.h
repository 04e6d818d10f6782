// What a sweep found: the best trial, and each parameter's effect on the metric (its value per
// parameter value: median and spread over the completed trials that had it). `mlpwb sweep report`
// and the GUI's Sweeps view print the same report.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/sweep_folder.h"

namespace wb::sweep {

struct ValueEffect {
    nlohmann::json value;                    // the parameter's value
    int trials = 0;                          // trials with this value
    int completed = 0;                       // ... of which completed with a metric
    std::optional<double> median, min, max;  // of the metric over those
};

struct ParameterEffect {
    std::string name;
    std::vector<ValueEffect> values;  // numbers ascending, other values in the order they appear
    // max - min of the per-value medians: how much choosing this parameter well moves the metric.
    std::optional<double> medianRange;
};

struct SweepReport {
    std::string sweepName;
    Metric metric;
    int total = 0, completed = 0, failed = 0, cancelled = 0, running = 0, pending = 0;
    int stopped = 0;             // stopped at a rung by the early termination
    int damaged = 0;             // state files that cannot be read (trial_state.h)
    bool sharedTimings = false;  // some trial's timing was measured beside others
    std::optional<int> bestId;
    std::string bestName;
    nlohmann::json bestParameters;
    std::optional<double> bestMetric;
    std::vector<ParameterEffect> effects;  // in the spec's parameter order
    // Early termination: describe() of the rule ("" without one), the epochs every trial is
    // configured for, and those the stopped trials did not train.
    std::string earlyTermination;
    long plannedEpochs = 0, savedEpochs = 0;

    double savedPercent() const {
        return plannedEpochs > 0 ? 100.0 * static_cast<double>(savedEpochs) / static_cast<double>(plannedEpochs) : 0.0;
    }
};

// "20 trials stopped at a rung: 3412 of 5400 epochs saved (63 %)"; "" for a sweep without early
// termination.
std::string savedEpochsText(const SweepReport& report);

SweepReport makeReport(const SweepPlan& plan, const std::vector<TrialRow>& views);

std::string reportText(const SweepReport& report);
// One line per (parameter, value): parameter,value,trials,completed,median,min,max (the metric's).
std::string reportCsv(const SweepReport& report);
nlohmann::json reportJson(const SweepReport& report);

// W&B's metric.target: "metric.target 0.3 reached by trial 4 (val_loss 0.29)" when a completed trial
// of `views` other than `except` reached it (no new trial starts then), else nullopt.
std::optional<std::string> targetReachedBy(const std::vector<TrialRow>& views, const Metric& metric, int except = -1);

// The metric a table shows for a trial: a completed one's, and a stopped one's at its rung (which
// ranks nowhere: only completed trials compete for best).
std::optional<double> shownMetric(const TrialRow& row, const Metric& metric);

// A value as a table shows it: numbers without trailing zeros, text as it is.
std::string valueText(const nlohmann::json& value);
// A metric value with 4 significant figures ("-" for none).
std::string figureText(const std::optional<double>& v);

}  // namespace wb::sweep
