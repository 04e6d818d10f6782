// The three matrix products of a linear layer, with the library chosen by `gemm` and the arithmetic
// by `precision`. Row-major shapes (as PyTorch stores them): x (n, in), w (out, in), z (n, out).
//   forward:    z  = x w^T
//   weightGrad: gw = dz^T x          (added to gw when `accumulate`)
//   inputGrad:  dx = dz w
// fp32 and tf32 read the float operands; bf16 and fp16 read the 16-bit copies (xh, wh, dzh), stored
// padded as layer_products.h's paddedWidth says, and accumulate and write in fp32 (mixed precision
// with fp32 master weights).
#pragma once

#include <cublas_v2.h>

#include "core/model/execution_settings.h"
#include "kernels/layer_products.h"

namespace wb {

struct GemmOperand {
    const float* f32 = nullptr;  // the fp32 values
    const void* f16 = nullptr;   // the same values rounded to 16 bits, padded (mixed precision only)
};

class LayerGemm {
public:
    // `handle` is bound to the stream the products run on; `stream` is for the custom kernels.
    LayerGemm(cublasHandle_t handle, cudaStream_t stream, Precision precision, Gemm gemm);

    void forward(GemmOperand x, GemmOperand w, float* z, int n, int in, int out) const;
    void weightGrad(GemmOperand dz, GemmOperand x, float* gw, int n, int in, int out, bool accumulate) const;
    void inputGrad(GemmOperand dz, GemmOperand w, float* dx, int n, int in, int out) const;

    bool mixed() const { return precision_ == Precision::Fp16 || precision_ == Precision::Bf16; }

    // Scratch for the custom products' split-K (gemmWorkspaceBytes), owned by the caller, who sizes it
    // for the largest product it will ask for. A product that needs more than `bytes` runs unsplit.
    // One buffer serves every product: they run in order on one stream.
    void useWorkspace(float* workspace, std::size_t bytes) {
        workspace_ = workspace;
        workspaceBytes_ = bytes;
    }

private:
    // C = op(A) op(B) + beta C in cuBLAS's column-major terms (layer_products.h says which is which).
    void cublasProduct(const ColumnMajorProduct& p, GemmOperand a, GemmOperand b, float beta, float* c) const;
    void custom(GemmArgs g) const;

    cublasHandle_t handle_;
    cudaStream_t stream_;
    Precision precision_;
    Gemm gemm_;
    float* workspace_ = nullptr;
    std::size_t workspaceBytes_ = 0;
};

}  // namespace wb
