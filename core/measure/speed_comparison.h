// Spread, not noise: how fast a set of runs is (the median of their per-run median epoch times and
// its range), and whether one set is measurably faster than another or the difference lies inside
// the spread. The GUI's Speedup chart, Compare and the ablation's shares use this one rule.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/run/run_record.h"

namespace wb {

// The level of one configuration over its repeats, in ms per epoch (warm-up excluded).
struct TimeSpread {
    double median = 0;  // of the runs' medians
    double low = 0;     // with repeats: the fastest run's median; with one run: its fastest timed epoch
    double high = 0;    // with repeats: the slowest run's median; with one run: its slowest timed epoch
    int runs = 0;
};
// Null when no run has a timed epoch.
std::optional<TimeSpread> timeSpread(const std::vector<const RunRecord*>& runs);
// From levels measured elsewhere (an ablation step's median, min and max over its repeats).
TimeSpread timeSpread(double median, double low, double high, int runs);

struct SpeedComparison {
    double ratio = 1;         // baseline median / candidate median: > 1 means the candidate is faster
    double ratioLow = 1;      // the range over the repeats: baseline.low / candidate.high
    double ratioHigh = 1;     // ... baseline.high / candidate.low
    bool measurable = false;  // the two spreads do not overlap
    // "2.41× faster (2.30–2.55×)", "1.60× slower (...)", or "no measurable difference (0.93–1.12×)".
    std::string label() const;
};
SpeedComparison compareSpeed(const TimeSpread& baseline, const TimeSpread& candidate);

}  // namespace wb
