// Ablation steps with timings made by hand, for the suites that read levels, intervals and charts
// off them (attribution, the shares chart, the exported fixed loop): a finished run whose timed
// epochs all take `ms`, and a step measured once per round.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "core/measure/ablation_result.h"

namespace timed_step_fixture {

// A completed run of three timed epochs at `ms` each, after a warm-up ten times as long (left out
// of its median, as every run's first epoch is): its median epoch is `ms`.
inline wb::RunRecord runAt(double ms) {
    wb::RunRecord r;
    r.status = wb::RunStatus::Completed;
    for (int i = 0; i < 4; ++i) {
        wb::EpochMetrics e;
        e.epoch = i + 1;
        e.warmup = i == 0;
        e.wallMs = i == 0 ? ms * 10 : ms;
        e.trainLoss = 0.5;
        r.epochs.push_back(e);
    }
    return r;
}

// A step (the seed loop when named "baseline", else the fix of its name) measured once per round,
// round r at rounds[r] ms: its level the median of those, its spread their min and max.
inline wb::AblationStep stepOf(const std::string& name, const std::vector<double>& rounds) {
    wb::AblationStep s;
    s.name = name;
    s.fix = name == "baseline" ? "" : name;
    s.description = "what " + name + " does";
    for (double ms : rounds) s.runs.push_back(runAt(ms));
    std::vector<double> sorted = rounds;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t mid = sorted.size() / 2;
    s.medianEpochMs = sorted.size() % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    s.minEpochMs = sorted.front();
    s.maxEpochMs = sorted.back();
    s.final = wb::StepFinal{0.5, 0.8, std::nullopt, std::nullopt};
    return s;
}

}  // namespace timed_step_fixture
