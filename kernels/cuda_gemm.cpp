#include "cuda_gemm.h"

#include "cuda_check.h"
#include "errors.h"
#include "gemm_custom.h"

namespace wb {

// How row-major products map to cuBLAS's column-major ones: a row-major (r, c) matrix is its transpose
// in column-major with leading dimension c, so for z = x w^T we ask for z^T (out, n) = w (out, in) x^T:
//   z^T = op_T(W: col-major (in, out), ld in) * op_N(X^T: col-major (in, n), ld in), ldc out.
// gw (out, in) row-major = gw^T (in, out) col-major = x^T dz:
//   op_N(X^T: (in, n), ld in) * op_T(dz^T: (out, n), ld out), ldc in.
// dx (n, in) row-major = dx^T (in, n) col-major = w^T dz^T:
//   op_N(W^T: (in, out), ld in) * op_N(dz^T: (out, n), ld out), ldc in.

LayerGemm::LayerGemm(cublasHandle_t handle, cudaStream_t stream, Precision precision, Gemm gemm)
    : handle_(handle), stream_(stream), precision_(precision), gemm_(gemm) {
    if (gemm_ == Gemm::Custom && mixed())  // the settings refuse it too; the custom kernel is fp32 only
        throw ConfigError("gemm=custom computes in fp32 only, not " + toString(precision));
}

namespace {
// gemm=custom (gemm_custom.h) is row-major like our buffers: C (m, n) = op(A) (m, k) op(B) (k, n).
void customProduct(const float* a, int lda, bool transA, const float* b, int ldb, bool transB, float* c, int ldc, int m,
                   int n, int k, float beta, cudaStream_t stream) {
    GemmArgs g;
    g.m = m;
    g.n = n;
    g.k = k;
    g.a = a;
    g.lda = lda;
    g.transA = transA;
    g.b = b;
    g.ldb = ldb;
    g.transB = transB;
    g.beta = beta;
    g.c = c;
    g.ldc = ldc;
    checkGemmArgs(g);
    launchGemm(g, stream);
}
}  // namespace

void LayerGemm::cublasProduct(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, GemmOperand a, int lda,
                              GemmOperand b, int ldb, float beta, float* c, int ldc) const {
    const float alpha = 1.0f;
    if (!mixed()) {  // fp32, or tf32 through the handle's math mode
        WB_CUBLAS_CHECK(cublasSgemm(handle_, ta, tb, m, n, k, &alpha, a.f32, lda, b.f32, ldb, &beta, c, ldc));
        return;
    }
    const cudaDataType_t type = precision_ == Precision::Fp16 ? CUDA_R_16F : CUDA_R_16BF;
    WB_CUBLAS_CHECK(cublasGemmEx(handle_, ta, tb, m, n, k, &alpha, a.f16, type, lda, b.f16, type, ldb, &beta, c,
                                 CUDA_R_32F, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

void LayerGemm::forward(GemmOperand x, GemmOperand w, float* z, int n, int in, int out) const {
    if (gemm_ == Gemm::Custom)  // z (n, out) = x (n, in) w^T, w stored (out, in)
        return customProduct(x.f32, in, false, w.f32, in, true, z, out, n, out, in, 0.0f, stream_);
    cublasProduct(CUBLAS_OP_T, CUBLAS_OP_N, out, n, in, w, in, x, in, 0.0f, z, out);
}

void LayerGemm::weightGrad(GemmOperand dz, GemmOperand x, float* gw, int n, int in, int out, bool accumulate) const {
    if (gemm_ == Gemm::Custom)  // gw (out, in) = dz^T x, dz stored (n, out), x (n, in)
        return customProduct(dz.f32, out, true, x.f32, in, false, gw, in, out, in, n, accumulate ? 1.0f : 0.0f,
                             stream_);
    cublasProduct(CUBLAS_OP_N, CUBLAS_OP_T, in, out, n, x, in, dz, out, accumulate ? 1.0f : 0.0f, gw, in);
}

void LayerGemm::inputGrad(GemmOperand dz, GemmOperand w, float* dx, int n, int in, int out) const {
    if (gemm_ == Gemm::Custom)  // dx (n, in) = dz (n, out) w (out, in)
        return customProduct(dz.f32, out, false, w.f32, in, false, dx, in, n, in, out, 0.0f, stream_);
    cublasProduct(CUBLAS_OP_N, CUBLAS_OP_N, in, n, out, w, in, dz, out, 0.0f, dx, in);
}

}  // namespace wb
