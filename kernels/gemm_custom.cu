// gemm=custom: the tiled SGEMM kernel and its launcher. The staging, accumulation and epilogue are
// gemm_custom.h's functions (shared with the CPU twin); this file adds the block's shared memory,
// its barriers and the grid.
#include <cuda_runtime.h>

#include "errors.h"
#include "gemm_custom.h"

namespace wb {

namespace {

// One kGemmTile x kGemmTile tile of C per block: blockIdx.x along n, blockIdx.y along m, blockIdx.z
// the slice of k (split.slices > 1: raw sums to the workspace; else the epilogue straight into C).
__global__ void __launch_bounds__(kGemmThreads) gemmKernel(const GemmArgs g, const GemmSplit split) {
    __shared__ gemm::Stage as;  // op(A) stage, (kGemmTileK, kGemmTile + 1)
    __shared__ gemm::Stage bs;  // op(B) stage
    const int lane = static_cast<int>(threadIdx.x);
    const int tx = lane % kGemmThreadsX, ty = lane / kGemmThreadsX;
    const int row0 = static_cast<int>(blockIdx.y) * kGemmTile, col0 = static_cast<int>(blockIdx.x) * kGemmTile;
    const int z = static_cast<int>(blockIdx.z);
    const int kEnd = g.k < (z + 1) * split.sliceK ? g.k : (z + 1) * split.sliceK;
    float acc[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};
    for (int k0 = z * split.sliceK; k0 < kEnd; k0 += kGemmTileK) {
        gemm::stageTiles(g, row0, col0, k0, as, bs, lane, kGemmThreads);
        __syncthreads();
        gemm::accumulate(as, bs, tx, ty, acc);
        __syncthreads();  // the next stage overwrites what this one read
    }
    for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 2; ++c) {
            const int i = row0 + ty + r * kGemmThreadsX, j = col0 + tx + c * kGemmThreadsX;
            if (split.slices > 1)
                gemm::storePartial(g, z, i, j, acc[r][c]);
            else
                gemm::epilogue(g, i, j, acc[r][c]);
        }
}

// Split-K's second pass: one thread per element of C, the slices added in order, then the epilogue.
__global__ void __launch_bounds__(kGemmThreads) gemmReduceKernel(const GemmArgs g, int slices) {
    const std::size_t e = static_cast<std::size_t>(blockIdx.x) * kGemmThreads + threadIdx.x;
    if (e < static_cast<std::size_t>(g.m) * static_cast<std::size_t>(g.n)) gemm::reducePartials(g, slices, e);
}

void throwOnLaunchError() {
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        throw DeviceError(cudaGetErrorName(e), std::string("custom GEMM launch failed: ") + cudaGetErrorString(e));
}

}  // namespace

void launchGemm(const GemmArgs& g, void* stream) {
    checkGemmArgs(g);
    if (g.m == 0 || g.n == 0) return;  // an empty C: nothing to write
    const auto s = static_cast<cudaStream_t>(stream);
    const GemmSplit split = gemmSplit(g);
    const dim3 grid(static_cast<unsigned>((g.n + kGemmTile - 1) / kGemmTile),
                    static_cast<unsigned>((g.m + kGemmTile - 1) / kGemmTile), static_cast<unsigned>(split.slices));
    gemmKernel<<<grid, kGemmThreads, 0, s>>>(g, split);
    throwOnLaunchError();
    if (split.slices <= 1) return;
    const std::size_t elements = static_cast<std::size_t>(g.m) * static_cast<std::size_t>(g.n);
    gemmReduceKernel<<<static_cast<unsigned>((elements + kGemmThreads - 1) / kGemmThreads), kGemmThreads, 0, s>>>(
        g, split.slices);
    throwOnLaunchError();
}

}  // namespace wb
