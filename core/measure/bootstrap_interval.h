// How well a statistic of repeated timings is known: a percentile bootstrap over the rounds of a
// measurement (hyperfine and criterion.rs report the same kind of interval). The rounds are
// resampled as wholes, so a statistic that compares configurations timed in the same round (an
// ablation runs every step once per round) keeps each round's pairing, and a slow stretch of a busy
// machine that hit every configuration of one round moves them together. Deterministic: the same
// timings give the same interval. No Qt, no CUDA.
#pragma once

#include <functional>
#include <vector>

namespace wb {

// A two-sided interval [low, high] at `confidence` (0.95: the 2.5th and 97.5th percentiles of the
// resampled statistic).
struct Interval {
    double low = 0;
    double high = 0;
    bool overlaps(const Interval& other) const { return low <= other.high && other.low <= high; }
};

constexpr double kIntervalConfidence = 0.95;
constexpr int kBootstrapResamples = 2000;

// The interval of `statistic` over kBootstrapResamples resamples of the round indices 0..rounds-1
// (drawn with replacement; `statistic` receives each resample's picks, `rounds` of them). With one
// round there is nothing to resample: the interval is the statistic's one value, of no width, and
// says nothing about the spread (callers check the rounds before they rank anything).
Interval bootstrapInterval(int rounds, const std::function<double(const std::vector<int>& picks)>& statistic,
                           double confidence = kIntervalConfidence);

// The median of `values` at the picks (a resample's indices into them).
double medianAt(const std::vector<double>& values, const std::vector<int>& picks);

// The interval of the median of `values`, each value one round.
Interval medianInterval(const std::vector<double>& values, double confidence = kIntervalConfidence);

}  // namespace wb
