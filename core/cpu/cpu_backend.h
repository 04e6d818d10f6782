// The CPU backend: one batch at a time through CpuMlp (tiled kernels for the CPU target chosen at
// start, cpu_target.h; Eigen for the element-wise maths), no allocation per step. It is also the numerical
// reference the CUDA backend is tested against.
#pragma once

#include <memory>
#include <vector>

#include "core/run/backend.h"

namespace wb {

std::unique_ptr<Backend> makeCpuBackend();
BackendInfo probeCpuBackend();
std::string cpuModelName();
// The switches the CPU backend ignores under `s`, with the reasons (its Backend::notApplicable).
std::vector<IgnoredSwitch> cpuIgnoredSwitches(const ExecutionSettings& s);

}  // namespace wb
