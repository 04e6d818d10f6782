#include "cpu_tile_kernels.h"

#include <cstring>

namespace wb {

namespace {
// kLanes floats as one value, one vector register (GCC and Clang vector extension): `vector * scalar`
// broadcasts the scalar, and with FMA (-march=native) `acc += s * v` is one fused multiply-add.
// (Plain loops over a compile-time width were unrolled to scalar code by GCC 12, not vectorised.)
using Lanes = float __attribute__((vector_size(kLanes * sizeof(float))));

// Unaligned load and store. By reference, not by value: passing vectors wider than the baseline
// ABI's by value draws -Wpsabi.
void load(Lanes& v, const float* p) {
    std::memcpy(&v, p, sizeof v);
}
void store(float* p, const Lanes& v) {
    std::memcpy(p, &v, sizeof v);
}

// Register blocks. Every loop over a compile-time extent below is unrolled by the compiler, which
// keeps `acc` in vector registers: kRowBlock × 2 or kInnerBlock × 2 of them, plus a few operands,
// within the 32 registers of AVX-512 or the 16 of AVX2/SSE.
#if defined(__AVX512F__)
constexpr std::size_t kRowBlock = 8;    // output rows per block in multiplyRows
constexpr std::size_t kInnerBlock = 8;  // weight-gradient rows per block in accumulateTransposedProduct
#else
constexpr std::size_t kRowBlock = 4;
constexpr std::size_t kInnerBlock = 4;
#endif

// out[0..R) = a[0..R) · b over `inner`, for one block of W columns.
template <std::size_t R, std::size_t W>
void multiplyBlock(const float* a, std::size_t lda, std::size_t inner, const float* b, std::size_t ldb,
                   const float* bias, float* out, std::size_t ldo) {
    constexpr std::size_t V = W / kLanes;  // registers per row
    Lanes acc[R][V] = {};
    for (std::size_t k = 0; k < inner; ++k) {
        Lanes bk[V];  // one row of b
        for (std::size_t v = 0; v < V; ++v) load(bk[v], b + k * ldb + v * kLanes);
        for (std::size_t r = 0; r < R; ++r) {
            const float ark = a[r * lda + k];
            for (std::size_t v = 0; v < V; ++v) acc[r][v] += ark * bk[v];
        }
    }
    Lanes biasLanes[V] = {};  // (W) zero without a bias
    if (bias)
        for (std::size_t v = 0; v < V; ++v) load(biasLanes[v], bias + v * kLanes);
    for (std::size_t r = 0; r < R; ++r)
        for (std::size_t v = 0; v < V; ++v) store(out + r * ldo + v * kLanes, acc[r][v] + biasLanes[v]);
}

// All column blocks of R rows: two registers wide while they fit, then one.
template <std::size_t R>
void multiplyRowBlock(const float* a, std::size_t lda, std::size_t inner, const float* b, std::size_t ldb,
                      std::size_t width, const float* bias, float* out, std::size_t ldo) {
    std::size_t c = 0;
    for (; c + 2 * kLanes <= width; c += 2 * kLanes)
        multiplyBlock<R, 2 * kLanes>(a, lda, inner, b + c, ldb, bias ? bias + c : nullptr, out + c, ldo);
    if (c < width) multiplyBlock<R, kLanes>(a, lda, inner, b + c, ldb, bias ? bias + c : nullptr, out + c, ldo);
}

// acc[0..K) += a[:, 0..K)ᵀ · d over `rows` rows, for one block of W columns.
template <std::size_t K, std::size_t W>
void accumulateBlock(const float* a, std::size_t lda, std::size_t rows, const float* d, std::size_t ldd, float* acc,
                     std::size_t ldacc) {
    constexpr std::size_t V = W / kLanes;  // registers per row
    Lanes sum[K][V] = {};
    for (std::size_t r = 0; r < rows; ++r) {
        const float* ar = a + r * lda;  // (K) the block's inputs of row r
        Lanes dr[V];                    // the block's output gradients of row r
        for (std::size_t v = 0; v < V; ++v) load(dr[v], d + r * ldd + v * kLanes);
        for (std::size_t k = 0; k < K; ++k)
            for (std::size_t v = 0; v < V; ++v) sum[k][v] += ar[k] * dr[v];
    }
    for (std::size_t k = 0; k < K; ++k)
        for (std::size_t v = 0; v < V; ++v) {
            float* row = acc + k * ldacc + v * kLanes;
            Lanes old;
            load(old, row);
            store(row, old + sum[k][v]);
        }
}

template <std::size_t K>
void accumulateInnerBlock(const float* a, std::size_t lda, std::size_t rows, const float* d, std::size_t ldd,
                          std::size_t width, float* acc, std::size_t ldacc) {
    std::size_t c = 0;
    for (; c + 2 * kLanes <= width; c += 2 * kLanes)
        accumulateBlock<K, 2 * kLanes>(a, lda, rows, d + c, ldd, acc + c, ldacc);
    if (c < width) accumulateBlock<K, kLanes>(a, lda, rows, d + c, ldd, acc + c, ldacc);
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
    for (std::size_t c = 0; c < width; c += kLanes) {
        Lanes sum, dr;
        load(sum, sums + c);
        for (std::size_t r = 0; r < rows; ++r) {
            load(dr, d + r * ldd + c);
            sum += dr;
        }
        store(sums + c, sum);
    }
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

}  // namespace wb
