// Matrix products for skinny MLP layers on a few rows at a time (a tile that stays in L1 cache).
//
// Why not Eigen's GEMM: for a batch of 2048 rows × 61 inputs times a 61 × 20 weight matrix, Eigen
// spends about half its time packing the batch operand into its blocked layout. These kernels read
// the rows as they lie and keep the accumulators in registers: each output row block is a few
// SIMD registers wide (the output width, padded), and the compiler vectorises over it.
//
// Conventions: matrices are row-major with an explicit leading dimension (ld, the distance between
// rows in floats). A "padded" width is a multiple of kPadLanes, half a vector register: a block of
// columns is one or two full registers plus at most one half register, so a 20-wide layer costs 24
// lanes, not 32 (on AVX-512 CPUs that run a 256-bit FMA at the same lane rate as a 512-bit one, as
// AMD's Zen 4 does, the half register is nearly free). Columns beyond the true width hold zeros in
// the weight operands, so they compute zeros (or values nobody reads). Summation over the inner
// dimension runs in a fixed order, so results are deterministic for a given input.
#pragma once

#include <cstddef>

namespace wb {

// Floats per vector register of the target (-march).
#if defined(__AVX512F__)
inline constexpr std::size_t kLanes = 16;
#elif defined(__AVX__)
inline constexpr std::size_t kLanes = 8;
#else
inline constexpr std::size_t kLanes = 4;
#endif

// The granularity of every padded width: half a vector register.
inline constexpr std::size_t kPadLanes = kLanes / 2;

// `width` rounded up to a multiple of kPadLanes.
constexpr std::size_t paddedWidth(std::size_t width) {
    return (width + kPadLanes - 1) / kPadLanes * kPadLanes;
}

// out = a · b (+ bias), over `rows` rows.
//   a:    (rows, inner), leading dimension lda
//   b:    (inner, width), leading dimension ldb; width is padded (a multiple of kPadLanes)
//   bias: (width) or nullptr
//   out:  (rows, width), leading dimension ldo
void multiplyRows(const float* a, std::size_t lda, std::size_t rows, std::size_t inner, const float* b, std::size_t ldb,
                  std::size_t width, const float* bias, float* out, std::size_t ldo);

// acc += aᵀ · d, the weight gradient of a layer summed over `rows` rows.
//   a:   (rows, inner), leading dimension lda (the layer's input)
//   d:   (rows, width), leading dimension ldd; width is padded (the gradient w.r.t. the layer's output)
//   acc: (inner, width), leading dimension ldacc (the transposed weight gradient)
void accumulateTransposedProduct(const float* a, std::size_t lda, std::size_t rows, std::size_t inner, const float* d,
                                 std::size_t ldd, std::size_t width, float* acc, std::size_t ldacc);

// sums += the column sums of d (rows, width), leading dimension ldd, width padded: the bias gradient.
void accumulateColumnSums(const float* d, std::size_t ldd, std::size_t rows, std::size_t width, float* sums);

// dst (rows, cols), leading dimension ldd = src (rows, cols), leading dimension lds. For short rows,
// where a memcpy call per row would cost more than the copy.
void copyRows(const float* src, std::size_t lds, std::size_t rows, std::size_t cols, float* dst, std::size_t ldd);

}  // namespace wb
