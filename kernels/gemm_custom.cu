// gemm=custom: the tiled SGEMM kernel and its launcher. The staging, accumulation and epilogue are
// gemm_custom.h's functions (shared with the CPU twin); this file adds the block's shared memory,
// its barriers and the grid.
#include <cuda_runtime.h>

#include "core/platform/errors.h"
#include "kernels/gemm_custom.h"

namespace wb {

namespace {

struct BlockBarrier {
    __device__ void operator()() const { __syncthreads(); }
};

// One kGemmTile x kGemmTile tile of C per block: blockIdx.x along n, blockIdx.y along m, blockIdx.z
// the slice of k (split.slices > 1: raw sums to the workspace; else the epilogue straight into C).
__global__ void __launch_bounds__(kGemmThreads) gemmKernel(const GemmArgs g, const GemmSplit split) {
    __shared__ gemm::Stage as;  // op(A) stage, (kGemmTileK, kGemmTile + 1)
    __shared__ gemm::Stage bs;  // op(B) stage
    gemm::blockThread(g, split, static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y),
                      static_cast<int>(blockIdx.z), as, bs, static_cast<int>(threadIdx.x), BlockBarrier{});
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
