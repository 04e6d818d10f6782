// gemm=custom: the project's own tiled SGEMM, row-major, with the transposes an MLP's forward and
// backward passes need and an optional fused epilogue (bias, then activation):
//   C (m, n) = f( alpha op(A) op(B) + beta C + bias )
//   forward   Z (batch, out) = X (batch, in) W^T        transB, bias, activation (Z kept in `pre`)
//   backward  dW (out, in)   = dZ^T (out, batch) X      transA
//             dX (batch, in) = dZ (batch, out) W        no transpose
//
// The kernel: one block of kGemmThreads (16 x 16) threads per kGemmTile x kGemmTile tile of C;
// per step of kGemmTileK along k, the block stages op(A)'s and op(B)'s tiles in shared memory
// (k-major, rows padded by one float so neither the staging writes nor the inner loop's reads
// collide on a bank; out-of-range elements are staged as 0, so any m, n, k works), then each
// thread accumulates its 2 x 2 outputs (rows ty, ty + 16; columns tx, tx + 16) in k order.
// Each output is one thread's sum in ascending k, so the CPU twin (gemmTwin, gemm_twin.cpp),
// running the same staging and accumulation functions with one lane, computes what the kernel does.
//
// Split-K, deterministic: when C has few tiles but k is long (the weight gradients: k = batch rows)
// and the caller gives a workspace, blockIdx.z takes one slice of k (a whole number of stages);
// each slice writes its raw sums to the workspace (split, m, n), and a second kernel adds the
// slices in slice order and applies the epilogue. No atomics, so runs are bit-identical.
//
// CUDA-free header: the stream is an opaque void*; launchGemm lives in gemm_custom.cu.
#pragma once

#include <cstddef>
#include <limits>

#include "core/model/model.h"
#include "core/model/step_math.h"

namespace wb {

constexpr int kGemmTile = 32;      // rows and columns of C per block
constexpr int kGemmTileK = 32;     // depth of one shared-memory stage
constexpr int kGemmThreadsX = 16;  // threads per block along n
constexpr int kGemmThreads = 256;  // 16 x 16; each computes 2 x 2 outputs
constexpr int kGemmMaxGridY = 65535;

struct GemmArgs {
    int m = 0, n = 0, k = 0;
    float alpha = 1.0f;
    const float* a = nullptr;  // op(A) (m, k): A is (m, lda >= k) row-major, or (k, lda >= m) when transA
    int lda = 0;
    bool transA = false;
    const float* b = nullptr;  // op(B) (k, n): B is (k, ldb >= n) row-major, or (n, ldb >= k) when transB
    int ldb = 0;
    bool transB = false;
    float beta = 0.0f;   // C is read only when beta != 0 (so it may hold anything otherwise)
    float* c = nullptr;  // (m, ldc >= n)
    int ldc = 0;
    const float* bias = nullptr;  // optional (n): added to every row
    float* pre = nullptr;         // optional (m, ldc): the value before the activation
    bool activate = false;        // apply `activation` last
    Activation activation = Activation::Identity;
    float* workspace = nullptr;  // optional (gemmWorkspaceBytes): enables split-K; null: never split
};

// How a product is cut along k: `slices` slices of `sliceK` (a multiple of kGemmTileK) each.
struct GemmSplit {
    int slices = 1;
    int sliceK = 0;
};

// The split the launcher and the twin use for `g` (1 slice without a workspace).
GemmSplit gemmSplit(const GemmArgs& g);
// Bytes of workspace that split-K would use for this shape (0 when it would not split); allocate
// at least this much and pass it as `workspace` to let the product split.
std::size_t gemmWorkspaceBytes(const GemmArgs& g);

// Throws ConfigError for negative sizes, leading dimensions too small for the shapes, missing
// pointers, or an m too large for the grid.
void checkGemmArgs(const GemmArgs& g);
// Launches the GEMM on `stream` (a cudaStream_t; null for the default stream); asynchronous.
// Throws DeviceError when the launch fails. Defined in gemm_custom.cu (only in builds with CUDA).
void launchGemm(const GemmArgs& g, void* stream);
// The CPU twin: the same tiles, staging and accumulation order, host pointers.
void gemmTwin(const GemmArgs& g);

// ---- Shared by the kernel and the twin -------------------------------------------------------------
namespace gemm {

// A stage of one operand: kGemmTileK rows of k, kGemmTile (+1 padding) columns of m or n.
using Stage = float[kGemmTileK][kGemmTile + 1];

// op(A)[i][p] and op(B)[p][j], 0 outside the matrix.
WB_HD inline float opA(const GemmArgs& g, int i, int p) {
    if (i >= g.m || p >= g.k) return 0.0f;
    return g.transA ? g.a[static_cast<std::size_t>(p) * static_cast<std::size_t>(g.lda) + static_cast<std::size_t>(i)]
                    : g.a[static_cast<std::size_t>(i) * static_cast<std::size_t>(g.lda) + static_cast<std::size_t>(p)];
}
WB_HD inline float opB(const GemmArgs& g, int p, int j) {
    if (p >= g.k || j >= g.n) return 0.0f;
    return g.transB ? g.b[static_cast<std::size_t>(j) * static_cast<std::size_t>(g.ldb) + static_cast<std::size_t>(p)]
                    : g.b[static_cast<std::size_t>(p) * static_cast<std::size_t>(g.ldb) + static_cast<std::size_t>(j)];
}

// Stages op(A)[row0.., k0..] and op(B)[k0.., col0..]. Element e of a stage goes to lane
// e % stride; consecutive lanes read consecutive addresses of the stored matrix (coalesced).
WB_HD inline void stageTiles(const GemmArgs& g, int row0, int col0, int k0, Stage& as, Stage& bs, int lane,
                             int stride) {
    constexpr int kElements = kGemmTile * kGemmTileK;
    for (int e = lane; e < kElements; e += stride) {
        // Stored row-major with k fastest unless transposed: let the fastest index follow memory.
        const int fast = e % kGemmTile, slow = e / kGemmTile;
        const int pa = g.transA ? slow : fast, ia = g.transA ? fast : slow;
        as[pa][ia] = opA(g, row0 + ia, k0 + pa);
        const int pb = g.transB ? fast : slow, jb = g.transB ? slow : fast;
        bs[pb][jb] = opB(g, k0 + pb, col0 + jb);
    }
}

// One thread's 2 x 2 outputs, rows ty + 16 r and columns tx + 16 c of the tile, over one stage.
WB_HD inline void accumulate(const Stage& as, const Stage& bs, int tx, int ty, float acc[2][2]) {
    for (int p = 0; p < kGemmTileK; ++p) {
        const float a0 = as[p][ty], a1 = as[p][ty + kGemmThreadsX];
        const float b0 = bs[p][tx], b1 = bs[p][tx + kGemmThreadsX];
        acc[0][0] += a0 * b0;
        acc[0][1] += a0 * b1;
        acc[1][0] += a1 * b0;
        acc[1][1] += a1 * b1;
    }
}

// C[i][j] = f(alpha acc + beta C[i][j] + bias[j]), for an (i, j) inside C.
WB_HD inline void epilogue(const GemmArgs& g, int i, int j, float acc) {
    if (i >= g.m || j >= g.n) return;
    const std::size_t at = static_cast<std::size_t>(i) * static_cast<std::size_t>(g.ldc) + static_cast<std::size_t>(j);
    float v = g.alpha * acc;
    if (g.beta != 0.0f) v += g.beta * g.c[at];
    if (g.bias) v += g.bias[j];
    if (g.pre) g.pre[at] = v;
    g.c[at] = g.activate ? stepmath::activate(g.activation, v) : v;
}

// Split-K: slice z's raw sum for (i, j) into the workspace (slices, m, n).
WB_HD inline void storePartial(const GemmArgs& g, int z, int i, int j, float acc) {
    if (i >= g.m || j >= g.n) return;
    g.workspace[(static_cast<std::size_t>(z) * static_cast<std::size_t>(g.m) + static_cast<std::size_t>(i)) *
                    static_cast<std::size_t>(g.n) +
                static_cast<std::size_t>(j)] = acc;
}

// Split-K: the slices of element e = i * n + j added in slice order, then the epilogue.
WB_HD inline void reducePartials(const GemmArgs& g, int slices, std::size_t e) {
    const std::size_t plane = static_cast<std::size_t>(g.m) * static_cast<std::size_t>(g.n);
    float acc = 0.0f;
    for (int z = 0; z < slices; ++z) acc += g.workspace[static_cast<std::size_t>(z) * plane + e];
    const auto n = static_cast<std::size_t>(g.n);
    epilogue(g, static_cast<int>(e / n), static_cast<int>(e % n), acc);
}

// One thread's whole part of block (bx, by, z) of the grid (x along n, y along m, z the slice of k):
// per stage of k, stage with the others, barrier, accumulate its 2 x 2 outputs, barrier; then
// store them, to C through the epilogue or, when split, to the workspace. `as` and `bs` are the
// block's shared stages; `barrier` is __syncthreads on the device.
template <typename Barrier>
WB_HD void blockThread(const GemmArgs& g, const GemmSplit& split, int bx, int by, int z, Stage& as, Stage& bs, int lane,
                       Barrier barrier) {
    const int tx = lane % kGemmThreadsX, ty = lane / kGemmThreadsX;
    const int row0 = by * kGemmTile, col0 = bx * kGemmTile;
    const int kEnd = g.k < (z + 1) * split.sliceK ? g.k : (z + 1) * split.sliceK;
    float acc[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};
    for (int k0 = z * split.sliceK; k0 < kEnd; k0 += kGemmTileK) {
        stageTiles(g, row0, col0, k0, as, bs, lane, kGemmThreads);
        barrier();
        accumulate(as, bs, tx, ty, acc);
        barrier();  // the next stage overwrites what this one read
    }
    for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 2; ++c) {
            const int i = row0 + ty + r * kGemmThreadsX, j = col0 + tx + c * kGemmThreadsX;
            if (split.slices > 1)
                storePartial(g, z, i, j, acc[r][c]);
            else
                epilogue(g, i, j, acc[r][c]);
        }
}

}  // namespace gemm

// The whole product on the host in the kernel's structure, block after block of launchGemm's grid,
// each run by runBlock(body), which calls body(lane, barrier) once for each of the block's
// kGemmThreads lanes (tests/tst_gemm_lanes.cpp: lanes taking turns, as the GPU's threads would),
// then split-K's second pass. The stages are poisoned with NaN before each block.
template <typename RunBlock>
void gemmOnHost(const GemmArgs& g, RunBlock runBlock) {
    checkGemmArgs(g);
    if (g.m == 0 || g.n == 0) return;
    const GemmSplit split = gemmSplit(g);
    gemm::Stage as, bs;
    for (int z = 0; z < split.slices; ++z)
        for (int by = 0; by * kGemmTile < g.m; ++by)
            for (int bx = 0; bx * kGemmTile < g.n; ++bx) {
                for (auto* stage : {&as, &bs})
                    for (auto& row : *stage)
                        for (float& e : row) e = std::numeric_limits<float>::quiet_NaN();
                runBlock(
                    [&](int lane, auto barrier) { gemm::blockThread(g, split, bx, by, z, as, bs, lane, barrier); });
            }
    if (split.slices <= 1) return;
    const std::size_t elements = static_cast<std::size_t>(g.m) * static_cast<std::size_t>(g.n);
    for (std::size_t e = 0; e < elements; ++e) gemm::reducePartials(g, split.slices, e);
}

}  // namespace wb
