// Matrix products (and the activations and optimizer loops) for skinny MLP layers on a few rows at a time (a tile that
// stays in L1 cache), compiled once per CPU target into one binary (cpu_target.h chooses which runs).
//
// Why not Eigen's GEMM: for a batch of 2048 rows × 61 inputs times a 61 × 20 weight matrix, Eigen
// spends about half its time packing the batch operand into its blocked layout. These kernels read
// the rows as they lie and keep the accumulators in registers: each output row block is a few
// SIMD registers wide (the output width, padded), and the compiler vectorises over it.
//
// Conventions: matrices are row-major with an explicit leading dimension (ld, the distance between
// rows in floats). A "padded" width is a multiple of padLanes, half a vector register of the target:
// a block of columns is one or two full registers plus at most one half register, so a 20-wide layer
// costs 24 lanes, not 32, on AVX-512 (on CPUs that run a 256-bit FMA at the same lane rate as a
// 512-bit one, as AMD's Zen 4 does, the half register is nearly free). Columns beyond the true width
// hold zeros in the weight operands, so they compute zeros (or values nobody reads). Summation over
// the inner dimension runs in a fixed order, so results are deterministic for a given input and
// target (targets differ in their rounding: only AVX2 and AVX-512 fuse multiply and add).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/cpu/cpu_target.h"
#include "core/model/model.h"
#include "core/model/optimizer.h"

namespace wb {

// One target's kernels and the shapes they were built for.
struct CpuKernels {
    CpuTarget target;
    std::int64_t hwyTarget;  // Highway's bit for the instruction set compiled (HWY_AVX2, ...)
    std::size_t lanes;       // floats per vector register
    std::size_t padLanes;    // the granularity of every padded width: half a register
    std::size_t rowBlock;    // output rows per register block of multiplyRows
    std::size_t innerBlock;  // weight-gradient rows per register block of accumulateTransposedProduct

    // out = a · b (+ bias), over `rows` rows.
    //   a:    (rows, inner), leading dimension lda
    //   b:    (inner, width), leading dimension ldb; width is padded (a multiple of padLanes)
    //   bias: (width) or nullptr
    //   out:  (rows, width), leading dimension ldo
    void (*multiplyRows)(const float* a, std::size_t lda, std::size_t rows, std::size_t inner, const float* b,
                         std::size_t ldb, std::size_t width, const float* bias, float* out, std::size_t ldo);

    // acc += aᵀ · d, the weight gradient of a layer summed over `rows` rows.
    //   a:   (rows, inner), leading dimension lda (the layer's input)
    //   d:   (rows, width), leading dimension ldd; width is padded (the gradient w.r.t. the layer's output)
    //   acc: (inner, width), leading dimension ldacc (the transposed weight gradient)
    void (*accumulateTransposedProduct)(const float* a, std::size_t lda, std::size_t rows, std::size_t inner,
                                        const float* d, std::size_t ldd, std::size_t width, float* acc,
                                        std::size_t ldacc);

    // sums += the column sums of d (rows, width), leading dimension ldd, width padded: the bias gradient.
    void (*accumulateColumnSums)(const float* d, std::size_t ldd, std::size_t rows, std::size_t width, float* sums);

    // dst (rows, cols), leading dimension ldd = src (rows, cols), leading dimension lds. For short
    // rows, where a memcpy call per row would cost more than the copy.
    void (*copyRows)(const float* src, std::size_t lds, std::size_t rows, std::size_t cols, float* dst,
                     std::size_t ldd);

    // model/math_ops.h's activate() and activationBackward() for this target: the same contract,
    // the target's rounding (tanh and sigmoid through Highway's vector exp on AVX2 and AVX-512).
    void (*activate)(Activation a, float* z, std::size_t n, float* saved);
    void (*activationBackward)(Activation a, const float* z, const float* y, float* dy, std::size_t n,
                               const float* saved);

    // The optimizer's update loops for this target (model/optimizer.h: give them to makeOptimizer).
    const OptimizerLoops* optimizerLoops;

    // `width` rounded up to a multiple of padLanes.
    std::size_t paddedWidth(std::size_t width) const { return (width + padLanes - 1) / padLanes * padLanes; }
};

// Every target this binary holds kernels for, best first (whether this CPU runs them or not).
std::vector<const CpuKernels*> compiledCpuKernels();

}  // namespace wb
