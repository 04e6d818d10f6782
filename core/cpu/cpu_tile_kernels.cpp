// The register-tiled products (with the activations and the optimizer's loops), compiled once per
// CPU target in one translation unit: Highway's
// foreach_target.h includes this file again for each target, with HWY_NAMESPACE naming the target
// (N_AVX2, N_AVX3, N_EMU128) and its instruction set switched on for the functions between
// HWY_BEFORE_NAMESPACE and HWY_AFTER_NAMESPACE (a target pragma, not a -march flag). Why so, and not
// this file compiled three times with three -march flags: every inline function and template a
// translation unit emits (std::vector's, Eigen's) is a weak symbol the linker keeps one copy of, so
// with per-file -march flags the baseline code could end up calling an AVX-512 copy of std::min and
// crash with SIGILL on an older CPU. Under the pragma only the functions written here get the
// target's instructions; the headers' code stays the build's baseline (docs/ARCHITECTURE.md).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "core/cpu/cpu_tile_kernels.cpp"
#include "core/cpu/cpu_hwy_targets.h"
// The two lines above come first: foreach_target.h reads them.
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cstring>

#include "core/cpu/cpu_tile_kernels.h"
// The activations of the same target (it opens and closes its own HWY_NAMESPACE).
#include "core/cpu/cpu_activation_kernels-inl.h"
#include "core/model/optimizer_loops.h"

HWY_BEFORE_NAMESPACE();
namespace wb {
namespace HWY_NAMESPACE {

namespace {
// This pass's target: kLanes floats per vector register, and the register blocks. Every loop over a
// compile-time extent below is unrolled by the compiler, which keeps the accumulators in vector
// registers: kRowBlock × 2 or kInnerBlock × 2 of them, plus a few operands, within the 32 registers
// of AVX-512 or the 16 of AVX2/SSE.
// AVX3 and the later AVX-512 targets (Highway numbers better targets with lower bits).
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
constexpr CpuTarget kTarget = CpuTarget::V4;
constexpr std::size_t kLanes = 16;
constexpr std::size_t kRowBlock = 8;    // output rows per block in multiplyRows
constexpr std::size_t kInnerBlock = 8;  // weight-gradient rows per block in accumulateTransposedProduct
#elif HWY_TARGET == HWY_AVX2
constexpr CpuTarget kTarget = CpuTarget::V3;
constexpr std::size_t kLanes = 8;
constexpr std::size_t kRowBlock = 4;
constexpr std::size_t kInnerBlock = 4;
#else  // the baseline: SSE2 on x86-64, whatever the build's flags give elsewhere
constexpr CpuTarget kTarget = CpuTarget::Baseline;
constexpr std::size_t kLanes = 4;
constexpr std::size_t kRowBlock = 4;
constexpr std::size_t kInnerBlock = 4;
#endif
constexpr std::size_t kPadLanes = kLanes / 2;

// kLanes floats as one value, one vector register (GCC and Clang vector extension): `vector * scalar`
// broadcasts the scalar, and with FMA (AVX2 and AVX-512 targets) `acc += s * v` is one fused
// multiply-add.
// (Plain loops over a compile-time width were unrolled to scalar code by GCC 12, not vectorised.)
// HalfLanes: the half register that ends a block whose width is an odd multiple of kPadLanes.
using Lanes = float __attribute__((vector_size(kLanes * sizeof(float))));
using HalfLanes = float __attribute__((vector_size(kPadLanes * sizeof(float))));

// Unaligned load and store. By reference, not by value: passing vectors wider than the baseline
// ABI's by value draws -Wpsabi.
template <typename V>
void load(V& v, const float* p) {
    std::memcpy(&v, p, sizeof v);
}
template <typename V>
void store(float* p, const V& v) {
    std::memcpy(p, &v, sizeof v);
}

// One block of columns: V full registers, then H (0 or 1) half registers; W floats in all.
template <std::size_t V, std::size_t H>
struct Columns {
    static constexpr std::size_t kWidth = V * kLanes + H * kPadLanes;
    Lanes full[V > 0 ? V : 1];
    HalfLanes half;

    void zero() {
        for (std::size_t v = 0; v < V; ++v) full[v] = Lanes{};
        half = HalfLanes{};
    }
    void loadFrom(const float* p) {
        for (std::size_t v = 0; v < V; ++v) load(full[v], p + v * kLanes);
        if (H) load(half, p + V * kLanes);
    }
    void storeTo(float* p) const {
        for (std::size_t v = 0; v < V; ++v) store(p + v * kLanes, full[v]);
        if (H) store(p + V * kLanes, half);
    }
    // *this += s · x, a fused multiply-add per register.
    void addScaled(float s, const Columns& x) {
        for (std::size_t v = 0; v < V; ++v) full[v] += s * x.full[v];
        if (H) half += s * x.half;
    }
    void add(const Columns& x) {
        for (std::size_t v = 0; v < V; ++v) full[v] += x.full[v];
        if (H) half += x.half;
    }
};

// Calls body.template operator()<V, H>(c) for each block of columns of a padded `width`: blocks of
// two full registers while they fit, then the rest as one block (full, half, or full + half).
template <typename Body>
void forColumnBlocks(std::size_t width, Body&& body) {
    std::size_t c = 0;
    for (; c + 2 * kLanes <= width; c += 2 * kLanes) body.template operator()<2, 0>(c);
    const std::size_t rest = width - c;  // 0, kPadLanes, kLanes or kLanes + kPadLanes
    if (rest == kLanes + kPadLanes)
        body.template operator()<1, 1>(c);
    else if (rest == kLanes)
        body.template operator()<1, 0>(c);
    else if (rest == kPadLanes)
        body.template operator()<0, 1>(c);
}

// out[0..R) = a[0..R) · b (+ bias) over `inner`, for one block of columns.
template <std::size_t R, std::size_t V, std::size_t H>
void multiplyBlock(const float* a, std::size_t lda, std::size_t inner, const float* b, std::size_t ldb,
                   const float* bias, float* out, std::size_t ldo) {
    using Block = Columns<V, H>;
    Block acc[R];
    for (Block& r : acc) r.zero();
    for (std::size_t k = 0; k < inner; ++k) {
        Block bk;  // one row of b
        bk.loadFrom(b + k * ldb);
        for (std::size_t r = 0; r < R; ++r) acc[r].addScaled(a[r * lda + k], bk);
    }
    Block biasLanes;  // zero without a bias
    biasLanes.zero();
    if (bias) biasLanes.loadFrom(bias);
    for (std::size_t r = 0; r < R; ++r) {
        acc[r].add(biasLanes);
        acc[r].storeTo(out + r * ldo);
    }
}

// All column blocks of R rows.
template <std::size_t R>
void multiplyRowBlock(const float* a, std::size_t lda, std::size_t inner, const float* b, std::size_t ldb,
                      std::size_t width, const float* bias, float* out, std::size_t ldo) {
    forColumnBlocks(width, [&]<std::size_t V, std::size_t H>(std::size_t c) {
        multiplyBlock<R, V, H>(a, lda, inner, b + c, ldb, bias ? bias + c : nullptr, out + c, ldo);
    });
}

// acc[0..K) += a[:, 0..K)ᵀ · d over `rows` rows, for one block of columns.
template <std::size_t K, std::size_t V, std::size_t H>
void accumulateBlock(const float* a, std::size_t lda, std::size_t rows, const float* d, std::size_t ldd, float* acc,
                     std::size_t ldacc) {
    using Block = Columns<V, H>;
    Block sum[K];
    for (Block& k : sum) k.zero();
    for (std::size_t r = 0; r < rows; ++r) {
        const float* ar = a + r * lda;  // (K) the block's inputs of row r
        Block dr;                       // the block's output gradients of row r
        dr.loadFrom(d + r * ldd);
        for (std::size_t k = 0; k < K; ++k) sum[k].addScaled(ar[k], dr);
    }
    for (std::size_t k = 0; k < K; ++k) {
        Block old;
        old.loadFrom(acc + k * ldacc);
        old.add(sum[k]);
        old.storeTo(acc + k * ldacc);
    }
}

template <std::size_t K>
void accumulateInnerBlock(const float* a, std::size_t lda, std::size_t rows, const float* d, std::size_t ldd,
                          std::size_t width, float* acc, std::size_t ldacc) {
    forColumnBlocks(width, [&]<std::size_t V, std::size_t H>(std::size_t c) {
        accumulateBlock<K, V, H>(a, lda, rows, d + c, ldd, acc + c, ldacc);
    });
}
}  // namespace

void multiplyRows(const float* a, std::size_t lda, std::size_t rows, std::size_t inner, const float* b, std::size_t ldb,
                  std::size_t width, const float* bias, float* out, std::size_t ldo) {
    std::size_t r = 0;
    for (; r + kRowBlock <= rows; r += kRowBlock)
        multiplyRowBlock<kRowBlock>(a + r * lda, lda, inner, b, ldb, width, bias, out + r * ldo, ldo);
    for (; r < rows; ++r)  // the last rows, one at a time
        multiplyRowBlock<1>(a + r * lda, lda, inner, b, ldb, width, bias, out + r * ldo, ldo);
}

void accumulateTransposedProduct(const float* a, std::size_t lda, std::size_t rows, std::size_t inner, const float* d,
                                 std::size_t ldd, std::size_t width, float* acc, std::size_t ldacc) {
    if (rows == 0) return;  // nothing to add (and `a` may be null: no offsets from it)
    std::size_t k = 0;
    for (; k + kInnerBlock <= inner; k += kInnerBlock)
        accumulateInnerBlock<kInnerBlock>(a + k, lda, rows, d, ldd, width, acc + k * ldacc, ldacc);
    if (k + 4 <= inner) {  // the last inputs in smaller blocks
        accumulateInnerBlock<4>(a + k, lda, rows, d, ldd, width, acc + k * ldacc, ldacc);
        k += 4;
    }
    if (k + 2 <= inner) {
        accumulateInnerBlock<2>(a + k, lda, rows, d, ldd, width, acc + k * ldacc, ldacc);
        k += 2;
    }
    if (k < inner) accumulateInnerBlock<1>(a + k, lda, rows, d, ldd, width, acc + k * ldacc, ldacc);
}

void accumulateColumnSums(const float* d, std::size_t ldd, std::size_t rows, std::size_t width, float* sums) {
    forColumnBlocks(width, [&]<std::size_t V, std::size_t H>(std::size_t c) {
        Columns<V, H> sum, dr;
        sum.loadFrom(sums + c);
        for (std::size_t r = 0; r < rows; ++r) {
            dr.loadFrom(d + r * ldd + c);
            sum.add(dr);
        }
        sum.storeTo(sums + c);
    });
}

void copyRows(const float* src, std::size_t lds, std::size_t rows, std::size_t cols, float* dst, std::size_t ldd) {
    const std::size_t whole = cols / kLanes * kLanes;
    for (std::size_t r = 0; r < rows; ++r) {
        const float* from = src + r * lds;
        float* to = dst + r * ldd;
        Lanes v;
        for (std::size_t c = 0; c < whole; c += kLanes) {
            load(v, from + c);
            store(to + c, v);
        }
        for (std::size_t c = whole; c < cols; ++c) to[c] = from[c];
    }
}

// The optimizer's update loops (model/optimizer_loops.h), compiled for this target.
WB_DEFINE_OPTIMIZER_LOOPS(kOptimizerLoops);

const CpuKernels kKernels{kTarget,
                          HWY_TARGET,
                          kLanes,
                          kPadLanes,
                          kRowBlock,
                          kInnerBlock,
                          &multiplyRows,
                          &accumulateTransposedProduct,
                          &accumulateColumnSums,
                          &copyRows,
                          &activation::activate,
                          &activation::activationBackward,
                          &kOptimizerLoops};

}  // namespace HWY_NAMESPACE
}  // namespace wb
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace wb {

std::vector<const CpuKernels*> compiledCpuKernels() {
    std::vector<const CpuKernels*> all;  // best first
#if HWY_TARGETS & HWY_AVX3_DL
    all.push_back(&N_AVX3_DL::kKernels);
#endif
#if HWY_TARGETS & HWY_AVX3
    all.push_back(&N_AVX3::kKernels);
#endif
#if HWY_TARGETS & HWY_AVX2
    all.push_back(&N_AVX2::kKernels);
#endif
#if HWY_TARGETS & HWY_SSE4
    all.push_back(&N_SSE4::kKernels);
#endif
#if HWY_TARGETS & HWY_SSSE3
    all.push_back(&N_SSSE3::kKernels);
#endif
#if HWY_TARGETS & HWY_EMU128
    all.push_back(&N_EMU128::kKernels);
#endif
#if HWY_TARGETS & HWY_SCALAR
    all.push_back(&N_SCALAR::kKernels);
#endif
    return all;
}

}  // namespace wb
#endif  // HWY_ONCE
