#include "kernels/cuda_check.h"

#include <string>

#include "core/platform/errors.h"

namespace wb {

namespace {
// "cuda_backend.cpp:120: cudaMalloc(&p, n) failed: out of memory"
std::string where(const char* call, const char* file, int line) {
    std::string path = file;
    const auto slash = path.find_last_of('/');
    if (slash != std::string::npos) path = path.substr(slash + 1);
    return path + ":" + std::to_string(line) + ": " + call + " failed";
}
}  // namespace

void throwCudaError(cudaError_t status, const char* call, const char* file, int line) {
    // The runtime keeps a failed call's error as the thread's "last error" until it is read; unread,
    // the next kernel check (cudaGetLastError) would report this out-of-memory as its own failure,
    // in the next run. An error that broke the context is returned again by every later call anyway.
    (void)cudaGetLastError();
    throw DeviceError(cudaGetErrorName(status), where(call, file, line) + ": " + cudaGetErrorString(status));
}

const char* cublasStatusName(cublasStatus_t status) {
    switch (status) {
        case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
        case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
        case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
        case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
        case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
        case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
        case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
        case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
        case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
        case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
    }
    return "CUBLAS_STATUS_UNKNOWN";
}

void throwCublasError(cublasStatus_t status, const char* call, const char* file, int line) {
    throw DeviceError(cublasStatusName(status), where(call, file, line));
}

}  // namespace wb
