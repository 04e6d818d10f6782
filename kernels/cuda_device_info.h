// Facts about a CUDA device and the CUDA versions in use, for `mlpwb info` and the RunRecord
// environment. Host code; throws DeviceError (cuda_check.h) when a query fails.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace wb {

struct CudaDeviceFacts {
    int index = 0;
    std::string name;          // "NVIDIA H200"
    int major = 0, minor = 0;  // compute capability
    double memoryGiB = 0;      // total global memory
    int multiprocessors = 0;
    std::string summary() const;  // "NVIDIA H200, compute capability 9.0, 139.8 GiB, 132 SMs"
};
CudaDeviceFacts cudaDeviceFacts(int device);

// 12040 -> "12.4"
std::string cudaVersionString(int version);

// driver, runtime and cuBLAS versions, e.g. {"cuda_driver", "12.4"}.
std::vector<std::pair<std::string, std::string>> cudaVersionFacts();

}  // namespace wb
