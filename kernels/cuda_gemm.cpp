#include "kernels/cuda_gemm.h"

#include "core/platform/errors.h"
#include "kernels/cuda_check.h"
#include "kernels/layer_products.h"

namespace wb {

LayerGemm::LayerGemm(cublasHandle_t handle, cudaStream_t stream, Precision precision, Gemm gemm)
    : handle_(handle), stream_(stream), precision_(precision), gemm_(gemm) {
    if (gemm_ == Gemm::Custom && mixed())  // the settings refuse it too; the custom kernel is fp32 only
        throw ConfigError("gemm=custom computes in fp32 only, not " + toString(precision));
}

void LayerGemm::cublasProduct(const ColumnMajorProduct& p, GemmOperand a, GemmOperand b, float beta, float* c) const {
    const float alpha = 1.0f;
    const cublasOperation_t ta = p.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t tb = p.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
    if (!mixed()) {  // fp32, or tf32 through the handle's math mode
        WB_CUBLAS_CHECK(
            cublasSgemm(handle_, ta, tb, p.m, p.n, p.k, &alpha, a.f32, p.lda, b.f32, p.ldb, &beta, c, p.ldc));
        return;
    }
    const cudaDataType_t type = precision_ == Precision::Fp16 ? CUDA_R_16F : CUDA_R_16BF;
    WB_CUBLAS_CHECK(cublasGemmEx(handle_, ta, tb, p.m, p.n, p.k, &alpha, a.f16, type, p.lda, b.f16, type, p.ldb, &beta,
                                 c, CUDA_R_32F, p.ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

void LayerGemm::custom(GemmArgs g) const {
    const std::size_t need = gemmWorkspaceBytes(g);
    if (workspace_ && need > 0 && need <= workspaceBytes_) g.workspace = workspace_;  // lets it split k
    checkGemmArgs(g);
    launchGemm(g, stream_);
}

void LayerGemm::forward(GemmOperand x, GemmOperand w, float* z, int n, int in, int out) const {
    if (gemm_ == Gemm::Custom) return custom(customForward(x.f32, w.f32, z, n, in, out));
    cublasProduct(mixed() ? paddedForwardProduct(n, in, out) : forwardProduct(n, in, out), w, x, 0.0f, z);
}

void LayerGemm::weightGrad(GemmOperand dz, GemmOperand x, float* gw, int n, int in, int out, bool accumulate) const {
    if (gemm_ == Gemm::Custom) return custom(customWeightGrad(dz.f32, x.f32, gw, n, in, out, accumulate));
    cublasProduct(mixed() ? paddedWeightGradProduct(n, in, out) : weightGradProduct(n, in, out), x, dz,
                  accumulate ? 1.0f : 0.0f, gw);
}

void LayerGemm::inputGrad(GemmOperand dz, GemmOperand w, float* dx, int n, int in, int out) const {
    if (gemm_ == Gemm::Custom) return custom(customInputGrad(dz.f32, w.f32, dx, n, in, out));
    cublasProduct(mixed() ? paddedInputGradProduct(n, in, out) : inputGradProduct(n, in, out), w, dz, 0.0f, dx);
}

}  // namespace wb
