#include "kernels/cuda_device_info.h"

#include <cstdio>

#include "kernels/cuda_check.h"

namespace wb {

std::string CudaDeviceFacts::summary() const {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%s, compute capability %d.%d, %.1f GiB, %d SMs", name.c_str(), major, minor,
                  memoryGiB, multiprocessors);
    return buf;
}

CudaDeviceFacts cudaDeviceFacts(int device) {
    cudaDeviceProp prop{};
    WB_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    CudaDeviceFacts f;
    f.index = device;
    f.name = prop.name;
    f.major = prop.major;
    f.minor = prop.minor;
    f.memoryGiB = static_cast<double>(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0);
    f.multiprocessors = prop.multiProcessorCount;
    return f;
}

std::string cudaVersionString(int version) {
    return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::vector<std::pair<std::string, std::string>> cudaVersionFacts() {
    int driver = 0, runtime = 0;
    WB_CUDA_CHECK(cudaDriverGetVersion(&driver));
    WB_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    int major = 0, minor = 0, patch = 0;
    WB_CUBLAS_CHECK(cublasGetProperty(MAJOR_VERSION, &major));
    WB_CUBLAS_CHECK(cublasGetProperty(MINOR_VERSION, &minor));
    WB_CUBLAS_CHECK(cublasGetProperty(PATCH_LEVEL, &patch));
    return {{"cuda_driver", cudaVersionString(driver)},
            {"cuda_runtime", cudaVersionString(runtime)},
            {"cublas", std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch)}};
}

}  // namespace wb
