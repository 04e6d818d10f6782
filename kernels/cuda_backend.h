// The CUDA backend's entry points, in a CUDA-free header: front ends and tests include it (when built
// with WB_WITH_CUDA) without nvcc or the CUDA headers.
#pragma once

#include <memory>
#include <vector>

#include "core/run/backend.h"

namespace wb {

// Adds "cuda" to BackendRegistry::instance(); calling it again does nothing. For the tests that link
// wb_cuda; the programs load libmlpwb-cuda.so instead (core/train/plugin_loader.h).
void registerCudaBackend();

// Whether a device is usable and, if not, why ("CUDA unavailable: no NVIDIA driver"). Never throws.
BackendInfo probeCudaBackend();

// A backend on device `device` (0-based). Throws DeviceError for a device that does not exist.
std::unique_ptr<Backend> makeCudaBackend(int device);

// The switches the CUDA backend ignores under `s`, with the reasons (its Backend::notApplicable);
// needs no device.
std::vector<IgnoredSwitch> cudaIgnoredSwitches(const ExecutionSettings& s);

}  // namespace wb
