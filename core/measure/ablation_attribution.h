// Which fix removed how much of the gap, and how sure that is: every measured step of an ablation
// with the time it saved and its share of the gap, each with its bootstrap interval over the rounds
// (bootstrap_interval.h); the largest cause named only when its interval is clear of every other's;
// the fixes that cost time on this engine. What the answer's conclusion, the CLI and the views read
// instead of ranking point values of one order. No Qt, no CUDA.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/measure/ablation_result.h"
#include "core/measure/bootstrap_interval.h"

namespace wb {

// A run far off its step's other runs (a stall of a busy machine): kept in the record and shown,
// and held at its step's median while the intervals are resampled, so that one stall cannot decide
// which cause is the largest. Far off: more than kOutlierScore robust deviations (1.4826 x the
// median absolute deviation, at least 1 % of the median) from the step's median.
struct OutlierRun {
    std::size_t step = 0;  // its index in AblationResult::steps
    int round = 0;         // 1-based
    double ms = 0;         // its median epoch time
    double stepMedianMs = 0;
};
constexpr double kOutlierScore = 5.0;

// One measured cumulative step after the seed loop.
struct CauseShare {
    std::size_t step = 0;         // its index in AblationResult::steps
    double savedMs = 0;           // the level before it (the previous measured step's) minus its own
    Interval saved;               // savedMs's interval
    bool inFixedLoop = false;     // at or before the fixed loop (the fastest measured step)
    std::optional<double> share;  // savedMs / the gap, for a step in the fixed loop, where the gap is measurable
    Interval shareInterval;
    // Beside the one order, for a cause that is one of the combined fixes (AblationResult::subsetFixes),
    // where the subsets were measured: its Shapley value (its saving averaged over every order of the
    // combined fixes; the values sum to Attribution::shapleyGapMs), its saving alone on the seed loop
    // (from the subsets, else from the plan's alone step), and what it saves on top of all the other
    // combined fixes (leave-one-out: level of all but it - level of all; below zero where it costs
    // time with the others applied). Each with its interval, by the
    // same paired bootstrap over the rounds (the subsets' rounds resampled raw: no run held as an
    // outlier, the medians resist one stall).
    std::optional<double> shapley;
    Interval shapleyInterval;
    std::optional<double> alone;
    Interval aloneInterval;
    std::optional<double> leaveOneOut;
    Interval leaveOneOutInterval;
};

// Two causes that save the same time, in part: either alone saves more than it does once the other
// is applied (the gather and the copy: either alone removes the per-batch copy). Measured where the
// seed loop, each alone and both together were: ms = saving(first alone) + saving(second alone) -
// saving(both), above zero by its whole interval. What explains a share above 100 % or below 0 in
// one order.
struct SharedSaving {
    std::size_t first = 0;  // indices into Attribution::causes, first < second
    std::size_t second = 0;
    double ms = 0;
    Interval interval;
};

struct Attribution {
    int rounds = 0;  // the rounds every measured step ran in (the bootstrap resamples these)
    double confidence = kIntervalConfidence;
    Interval gap;                        // seed loop - fixed loop, ms per epoch
    std::vector<CauseShare> causes;      // in the order they were applied
    std::optional<std::size_t> largest;  // index into causes: the largest saving, clear of every other's
    std::vector<std::size_t> notApart;   // without a largest: the causes that could each be it
    std::vector<std::size_t> costly;     // causes whose interval lies below zero: they cost time here
    std::vector<OutlierRun> outliers;    // in step order
    // Where every subset was measured: the seed loop's level minus that of all the combined fixes,
    // what the causes' Shapley values sum to (the fixed loop's gap where no fix costs time).
    std::optional<double> shapleyGapMs;
    std::vector<SharedSaving> shared;        // the pairs of causes that save the same time, clearly
    static constexpr int kRoundsToRank = 3;  // fewer rounds cannot tell one cause from another

    // Whether the causes can be ranked at all: enough rounds for an interval.
    bool canRank() const { return rounds >= kRoundsToRank; }
};

// The attribution of `r`'s cumulative steps (the alone steps are not causes of the cumulative gap).
// Empty causes before two steps are measured.
Attribution attribute(const AblationResult& r);

}  // namespace wb
