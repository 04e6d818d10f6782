// Shapley values of fixes: what each fix saves, averaged over every order in which the fixes could be
// applied, from the measured level of every subset of them. Unlike the savings of one order (the
// waterfall), they do not depend on the order, and they still sum to the whole gap, by construction:
// two fixes that save the same time (either alone removes it) get half of it each. With the levels
// measured in rounds, their intervals come from the same paired bootstrap as the ablation's
// (bootstrap_interval.h). No Qt, no CUDA.
#pragma once

#include <vector>

#include "core/measure/bootstrap_interval.h"

namespace wb {

// The most fixes Shapley values are computed over: 2^k subsets, each measured (errors.h's ConfigError
// beyond it; an ablation measures them for far fewer, AblationPlan::kMaxShapleyFixes).
constexpr int kMaxShapleyFixes = 12;

// levels[mask]: the level (ms per epoch) of the seed loop with the fixes whose bits are set in `mask`
// applied (bit i: fix i), 2^k values. Fix i's value is its saving averaged over the orders:
//   phi_i = sum over S not holding i of |S|! (k - 1 - |S|)! / k! * (levels[S] - levels[S + i]),
// and the k values sum to levels[0] - levels[2^k - 1] (up to rounding). Throws ConfigError unless the
// levels number 2^k for some k from 1 to kMaxShapleyFixes.
std::vector<double> shapleyValues(const std::vector<double>& levels);

// The k fixes' Shapley values with their intervals, from per-round levels: perRound[mask][round],
// the median epoch ms of each subset's run in each round. The levels are the medians over the rounds;
// the intervals a bootstrap that resamples the rounds as wholes, the same picks for every subset, so
// the subsets timed in one round stay paired. Every subset needs the rounds every other has (the
// fewest are used). Throws ConfigError as shapleyValues.
struct ShapleyEstimate {
    std::vector<double> values;       // per fix, from the subsets' medians
    std::vector<Interval> intervals;  // per fix
    int rounds = 0;                   // the rounds resampled
};
ShapleyEstimate shapleyEstimate(const std::vector<std::vector<double>>& perRound,
                                double confidence = kIntervalConfidence);

}  // namespace wb
