// Every combination of the execution switches that the settings validation accepts: what
// `mlpwb verify` and the gpu tests walk through. CUDA-free.
#pragma once

#include <string>
#include <vector>

#include "core/model/execution_settings.h"

namespace wb {

// All combinations of every value of every switch, without those ExecutionSettings::refusal()
// refuses, in a fixed order (data_path varies slowest, gemm fastest).
std::vector<ExecutionSettings> validCombinations();

// The number of combinations before the refusals (the product of the value counts).
std::size_t combinationCount();

// "data_path=device_resident launch=fused loss=... gemm=custom": one line per combination.
std::string describeCombination(const ExecutionSettings& s);

}  // namespace wb
