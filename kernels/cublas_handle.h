// Move-only owner of a cuBLAS handle bound to one stream.
#pragma once

#include <cublas_v2.h>

#include <utility>

#include "kernels/cuda_check.h"

namespace wb {

class CublasHandle {
public:
    CublasHandle() { WB_CUBLAS_CHECK(cublasCreate(&handle_)); }
    ~CublasHandle() {
        if (handle_) (void)cublasDestroy(handle_);
    }
    CublasHandle(CublasHandle&& o) noexcept : handle_(std::exchange(o.handle_, nullptr)) {}
    CublasHandle& operator=(CublasHandle&& o) noexcept {
        std::swap(handle_, o.handle_);
        return *this;
    }
    CublasHandle(const CublasHandle&) = delete;
    CublasHandle& operator=(const CublasHandle&) = delete;

    cublasHandle_t get() const { return handle_; }
    void setStream(cudaStream_t stream) const { WB_CUBLAS_CHECK(cublasSetStream(handle_, stream)); }
    // CUBLAS_DEFAULT_MATH (fp32) or CUBLAS_TF32_TENSOR_OP_MATH (TF32 tensor cores for fp32 GEMMs).
    void setMathMode(cublasMath_t mode) const { WB_CUBLAS_CHECK(cublasSetMathMode(handle_, mode)); }

private:
    cublasHandle_t handle_ = nullptr;
};

}  // namespace wb
