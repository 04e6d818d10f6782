// The three matrix products of a linear layer as each GEMM library is asked for them, kept CUDA-free so
// the index arithmetic is tested on the CPU (tests/tst_layer_products.cpp). Row-major buffers, as
// PyTorch stores them: x (n, in), w (out, in), z and dz (n, out), gw (out, in), dx (n, in).
//   forward:    z  = x w^T
//   weightGrad: gw = dz^T x   (+ gw when accumulating)
//   inputGrad:  dx = dz w
#pragma once

#include "kernels/gemm_custom.h"

namespace wb {

// cuBLAS is column-major: a row-major (r, c) buffer is its transpose, column-major with leading
// dimension c. So each product is asked for transposed: C^T = op(A) op(B) with
//   forward:    z^T (out, n)  = op_T(w as (in, out), ld in)  op_N(x as (in, n), ld in)
//   weightGrad: gw^T (in, out) = op_N(x as (in, n), ld in)   op_T(dz as (out, n), ld out)
//   inputGrad:  dx^T (in, n)  = op_N(w as (in, out), ld in)  op_N(dz as (out, n), ld out)
struct ColumnMajorProduct {
    bool transA = false, transB = false;
    int m = 0, n = 0, k = 0;  // C (m, n) = op(A) (m, k) op(B) (k, n)
    int lda = 0, ldb = 0, ldc = 0;
};
// A = w, B = x, C = z.
ColumnMajorProduct forwardProduct(int n, int in, int out);
// A = x, B = dz, C = gw.
ColumnMajorProduct weightGradProduct(int n, int in, int out);
// A = w, B = dz, C = dx.
ColumnMajorProduct inputGradProduct(int n, int in, int out);

// The mixed-precision products read 16-bit copies stored padded, so every 16-bit leading dimension
// is a multiple of kHalfPad elements (16 bytes) and the reductions run over padded lengths: the
// seed's widths 61, 20, 10, 1 (ld 122, 40, 20, 2 bytes) otherwise rule out cuBLAS's aligned
// tensor-core kernels. Padded shapes, P(w) = paddedWidth(w), all padding zero:
//   x, f(z) (n, P(in))    w (P(out), P(in))    dz (n, P(out))
// A zero pad adds 0 * 0 to a sum, so the results equal the unpadded products'. The fp32 outputs
// (z, gw, dx) keep their unpadded shapes and leading dimensions (the master buffers).
constexpr int kHalfPad = 8;
int paddedWidth(int width);
// A = w (ld P(in)), B = x (ld P(in)), k = P(in).
ColumnMajorProduct paddedForwardProduct(int n, int in, int out);
// A = x (ld P(in)), B = dz (ld P(out)); k = n, m = in: only gw's real rows are written.
ColumnMajorProduct paddedWeightGradProduct(int n, int in, int out);
// A = w (ld P(in)), B = dz (ld P(out)), k = P(out).
ColumnMajorProduct paddedInputGradProduct(int n, int in, int out);

// gemm=custom (gemm_custom.h) is row-major like the buffers, so the products are asked for directly.
GemmArgs customForward(const float* x, const float* w, float* z, int n, int in, int out);
GemmArgs customWeightGrad(const float* dz, const float* x, float* gw, int n, int in, int out, bool accumulate);
GemmArgs customInputGrad(const float* dz, const float* w, float* dx, int n, int in, int out);

}  // namespace wb
