#include "kernels/layer_products.h"

namespace wb {

ColumnMajorProduct forwardProduct(int n, int in, int out) {
    return {true, false, out, n, in, in, in, out};
}

ColumnMajorProduct weightGradProduct(int n, int in, int out) {
    return {false, true, in, out, n, in, out, in};
}

ColumnMajorProduct inputGradProduct(int n, int in, int out) {
    return {false, false, in, n, out, in, out, in};
}

int paddedWidth(int width) {
    return (width + kHalfPad - 1) / kHalfPad * kHalfPad;
}

ColumnMajorProduct paddedForwardProduct(int n, int in, int out) {
    const int pin = paddedWidth(in);
    return {true, false, out, n, pin, pin, pin, out};
}

ColumnMajorProduct paddedWeightGradProduct(int n, int in, int out) {
    return {false, true, in, out, n, paddedWidth(in), paddedWidth(out), in};
}

ColumnMajorProduct paddedInputGradProduct(int n, int in, int out) {
    const int pin = paddedWidth(in), pout = paddedWidth(out);
    return {false, false, in, n, pout, pin, pout, in};
}

namespace {
// C (m, n) = op(A) (m, k) op(B) (k, n) + beta C, all row-major.
GemmArgs rowMajor(const float* a, int lda, bool transA, const float* b, int ldb, bool transB, float* c, int ldc, int m,
                  int n, int k, float beta) {
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
    return g;
}
}  // namespace

GemmArgs customForward(const float* x, const float* w, float* z, int n, int in, int out) {
    // z (n, out) = x (n, in) op(w): w is stored (out, in), so transB with ldb = in.
    return rowMajor(x, in, false, w, in, true, z, out, n, out, in, 0.0f);
}

GemmArgs customWeightGrad(const float* dz, const float* x, float* gw, int n, int in, int out, bool accumulate) {
    // gw (out, in) = op(dz) (out, n) x (n, in): dz is stored (n, out), so transA with lda = out.
    return rowMajor(dz, out, true, x, in, false, gw, in, out, in, n, accumulate ? 1.0f : 0.0f);
}

GemmArgs customInputGrad(const float* dz, const float* w, float* dx, int n, int in, int out) {
    // dx (n, in) = dz (n, out) w (out, in).
    return rowMajor(dz, out, false, w, in, false, dx, in, n, in, out, 0.0f);
}

}  // namespace wb
