// The numbered trial list of a sweep: the grid's points in the file's order (the last parameter
// varies fastest; with early_terminate, in an order drawn with the seed), or run_cap random
// samples, each repeated `repeats` times. Deterministic: the
// same file (and seed) gives the same list on every machine.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/sweep_spec.h"

namespace wb::sweep {

struct TrialPoint {
    int id = 0;                          // 0-based, the SLURM array index too
    int point = 0;                       // which point of the grid or sample; repeats of one point share it
    int repeat = 0;                      // 0 .. repeats-1
    std::vector<ParameterValue> values;  // one per parameter of the spec, in its order
};

inline constexpr int kMaxTrials = 100000;
inline constexpr std::uint64_t kManyTrials = UINT64_MAX;  // a count past 2^64 - 1 (it saturates there)

// The points of the sweep (the grid's product of each parameter's count of values, or run_cap) and
// its trials (points x repeats), computed from the counts alone, without expanding a value: what a
// file can ask for is bounded before any work grows with it. kManyTrials where it overflows.
std::uint64_t countPoints(const Spec& spec);
std::uint64_t countTrials(const Spec& spec);

// Throws ConfigError (naming the file, and `parameters:`'s line for a grid) when the sweep has more
// than kMaxTrials trials. The CLI calls it before it checks any value.
void checkTrialCount(const Spec& spec);

// The numbered trials; throws as checkTrialCount, before expanding anything. None for method: bayes,
// whose trials are suggested batch by batch (bayes_search.h).
std::vector<TrialPoint> expandTrials(const Spec& spec);

// Bayes: what Optuna searches, one entry per parameter with more than one value, in the spec's order:
// {"name", "kind": "choice", "count": k} for a list (an index into it) or {"name", "kind": "unit"} for a
// range (u in [0, 1], the value drawValue(draw, u): W&B's meaning, so a log range is searched on its
// log scale and an int range in whole numbers).
nlohmann::json searchSpace(const Spec& spec);
// The point a suggestion ({"lr": 0.42, "optimizer": 1}, as searchSpace describes) stands for; a
// parameter of one value takes it. Throws DataError (naming the parameter) for one that does not fit.
std::vector<ParameterValue> suggestedPoint(const Spec& spec, const nlohmann::json& suggestion);

}  // namespace wb::sweep
