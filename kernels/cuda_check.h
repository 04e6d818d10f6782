// Checking macros: every CUDA runtime call, cuBLAS call and kernel launch goes through one of them.
// A failure throws wb::DeviceError naming the call, the file, the line and the library's error name,
// so a run ends `failed` with that message instead of crashing.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

namespace wb {

[[noreturn]] void throwCudaError(cudaError_t status, const char* call, const char* file, int line);
[[noreturn]] void throwCublasError(cublasStatus_t status, const char* call, const char* file, int line);
const char* cublasStatusName(cublasStatus_t status);

inline void checkCuda(cudaError_t status, const char* call, const char* file, int line) {
    if (status != cudaSuccess) throwCudaError(status, call, file, line);
}
inline void checkCublas(cublasStatus_t status, const char* call, const char* file, int line) {
    if (status != CUBLAS_STATUS_SUCCESS) throwCublasError(status, call, file, line);
}

}  // namespace wb

#define WB_CUDA_CHECK(call) ::wb::checkCuda((call), #call, __FILE__, __LINE__)
#define WB_CUBLAS_CHECK(call) ::wb::checkCublas((call), #call, __FILE__, __LINE__)
// After a kernel launch (<<<...>>> returns nothing): reports a bad configuration or an earlier fault.
#define WB_KERNEL_CHECK(name) ::wb::checkCuda(cudaGetLastError(), "kernel " name, __FILE__, __LINE__)
