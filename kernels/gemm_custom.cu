// gemm=custom: the tiled SGEMM kernel and its launcher. The staging, accumulation and epilogue are
// gemm_custom.h's functions (shared with the CPU twin); this file adds the block's shared memory,
// its barriers and the grid.
#include <cuda_runtime.h>

#include "errors.h"
#include "gemm_custom.h"

namespace wb {

namespace {

// One kGemmTile x kGemmTile tile of C per block: blockIdx.x along n, blockIdx.y along m.
__global__ void __launch_bounds__(kGemmThreads) gemmKernel(const GemmArgs g) {
    __shared__ gemm::Stage as;  // op(A) stage, (kGemmTileK, kGemmTile + 1)
    __shared__ gemm::Stage bs;  // op(B) stage
    const int lane = static_cast<int>(threadIdx.x);
    const int tx = lane % kGemmThreadsX, ty = lane / kGemmThreadsX;
    const int row0 = static_cast<int>(blockIdx.y) * kGemmTile, col0 = static_cast<int>(blockIdx.x) * kGemmTile;
    float acc[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};
    for (int k0 = 0; k0 < g.k; k0 += kGemmTileK) {
        gemm::stageTiles(g, row0, col0, k0, as, bs, lane, kGemmThreads);
        __syncthreads();
        gemm::accumulate(as, bs, tx, ty, acc);
        __syncthreads();  // the next stage overwrites what this one read
    }
    for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 2; ++c)
            gemm::epilogue(g, row0 + ty + r * kGemmThreadsX, col0 + tx + c * kGemmThreadsX, acc[r][c]);
}

}  // namespace

void launchGemm(const GemmArgs& g, void* stream) {
    checkGemmArgs(g);
    if (g.m == 0 || g.n == 0) return;  // an empty C: nothing to write
    const dim3 grid(static_cast<unsigned>((g.n + kGemmTile - 1) / kGemmTile),
                    static_cast<unsigned>((g.m + kGemmTile - 1) / kGemmTile));
    gemmKernel<<<grid, kGemmThreads, 0, static_cast<cudaStream_t>(stream)>>>(g);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        throw DeviceError(cudaGetErrorName(e), std::string("custom GEMM launch failed: ") + cudaGetErrorString(e));
}

}  // namespace wb
