// A run's workload: what must be equal for two runs' speeds to be compared — the data (content hash
// and the prepared split), the model, the optimizer, the batch size and the epochs. The backend,
// the switches, the machine and the device are what a comparison is about, so they are not in it.
#pragma once

#include <optional>
#include <string>

#include "core/run/run_record.h"

namespace wb {

// The first way `other`'s workload differs from `baseline`'s, in words for the user ("different data
// (bc.csv vs builtin)", "different model (64-32 relu vs 20-10 tanh)"), or nullopt when they match.
// A fact one record lacks (a peer without a content hash) is compared by what both have.
std::optional<std::string> workloadDifference(const RunRecord& baseline, const RunRecord& other);

}  // namespace wb
