// The numbered trial list of a sweep: the grid's points in the file's order (the last parameter
// varies fastest), or run_cap random samples, each repeated `repeats` times. Deterministic: the
// same file (and seed) gives the same list on every machine.
#pragma once

#include <vector>

#include "sweep_spec.h"

namespace wb::sweep {

struct TrialPoint {
    int id = 0;                          // 0-based, the SLURM array index too
    int point = 0;                       // which point of the grid or sample; repeats of one point share it
    int repeat = 0;                      // 0 .. repeats-1
    std::vector<ParameterValue> values;  // one per parameter of the spec, in its order
};

// Throws ConfigError (naming the file) when the grid would exceed kMaxTrials.
std::vector<TrialPoint> expandTrials(const Spec& spec);

inline constexpr int kMaxTrials = 100000;

}  // namespace wb::sweep
