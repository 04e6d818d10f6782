// The persistent epoch's kernel, its grid barrier and its launcher. The block program lives in
// persistent_body.h (shared with the CPU twin); this file holds only what is GPU-specific: the
// dynamic shared memory, __syncthreads, the flag barrier across blocks, the cp.async prefetch and
// the cooperative launch.
#include <cuda_pipeline.h>
#include <cuda_runtime.h>
#include <cuda/atomic>

#include "cuda_check.h"
#include "errors.h"
#include "persistent_body.h"
#include "persistent_epoch.h"

namespace wb {

namespace {

namespace ps = persistent;

struct BlockBarrier {
    __device__ void operator()() const { __syncthreads(); }
};

// The next step's rows into shared memory without waiting: 4-byte cp.async copies, committed as one
// group that the block waits for just before it uses them.
struct AsyncCopy {
    __device__ void operator()(float* dst, const float* src) const { __pipeline_memcpy_async(dst, src, sizeof(float)); }
};

using Flag = cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device>;

// This block has reached `generation`: every lane's writes so far (ordered before lane 0 by the
// __syncthreads) are released to the device with lane 0's one store. No fence in every thread.
__device__ void gridArrive(std::uint32_t* flags, std::uint32_t generation) {
    __syncthreads();
    if (threadIdx.x == 0) Flag(flags[blockIdx.x]).store(generation, cuda::std::memory_order_release);
}

// Waits until every block has reached `generation`: lane i polls block i's flag with acquire loads
// (the grid has at most kPersistentThreads blocks), then the block's lanes meet. Data of other blocks
// is read afterwards with ld.cg (fused::loadCrossBlock), never a stale L1 line.
__device__ void gridWait(std::uint32_t* flags, std::uint32_t generation) {
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
        const Flag flag(flags[b]);
        while (flag.load(cuda::std::memory_order_acquire) < generation) __nanosleep(20);
    }
    __syncthreads();
}

// One epoch: gridDim.x = plan.grid blocks, all resident; kPersistentThreads threads;
// plan.smem.bytes of dynamic shared memory (PersistentSharedLayout).
__global__ void __launch_bounds__(kPersistentThreads, 1)
    persistentEpochKernel(const __grid_constant__ PersistentArgs a, const __grid_constant__ FusedStepArgs view) {
    extern __shared__ float4 dynamicShared[];
    const ps::Shared sm{reinterpret_cast<unsigned char*>(dynamicShared)};
    const fused::Lanes lanes{static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x)};
    const int block = static_cast<int>(blockIdx.x);
    const int steps = ps::stepsOf(a);
    std::uint32_t* flags = ps::scratchOf(a).flags;

    ps::startBlock(a, view, block, sm, lanes, BlockBarrier{});
    __syncthreads();
    if (block < ps::stepAt(a, 0).tiles) ps::stageRows(a, ps::stepAt(a, 0), block, sm, lanes, AsyncCopy{});
    __pipeline_commit();
    ps::loadWeights(a, sm, lanes);
    __pipeline_wait_prior(0);
    __syncthreads();
    for (int s = 0; s < steps; ++s) {
        const ps::Step st = ps::stepAt(a, s);
        ps::computePhase(a, st, block, sm, lanes, BlockBarrier{});
        gridArrive(flags, ps::computedGeneration(st.t));
        if (s + 1 < steps && block < ps::stepAt(a, s + 1).tiles)
            ps::stageRows(a, ps::stepAt(a, s + 1), block, sm, lanes, AsyncCopy{});  // lands while we wait
        __pipeline_commit();
        gridWait(flags, ps::computedGeneration(st.t));
        ps::reducePhase(a, st, block, sm, lanes, BlockBarrier{});
        if (s + 1 == steps) break;
        gridArrive(flags, ps::publishedGeneration(st.t));
        gridWait(flags, ps::publishedGeneration(st.t));
        ps::refreshPhase(a, ps::stepAt(a, s + 1), sm, lanes);
        __pipeline_wait_prior(0);
        __syncthreads();
    }
    __syncthreads();
    ps::finishBlock(a, block, sm, lanes);
}

// Lets the kernel use `bytes` of dynamic shared memory (above 48 KiB needs the opt-in).
void allowSharedBytes(std::size_t bytes) {
    WB_CUDA_CHECK(cudaFuncSetAttribute(persistentEpochKernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(bytes)));
}

int residentBlocksPerSm(std::size_t sharedBytes) {
    allowSharedBytes(sharedBytes);
    int blocks = 0;
    WB_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, persistentEpochKernel, kPersistentThreads, sharedBytes));
    return blocks;
}

}  // namespace

PersistentDevice queryPersistentDevice(int device) {
    PersistentDevice d;
    int cooperative = 0, optin = 0;
    WB_CUDA_CHECK(cudaSetDevice(device));
    WB_CUDA_CHECK(cudaDeviceGetAttribute(&d.smCount, cudaDevAttrMultiProcessorCount, device));
    WB_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
    WB_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    d.cooperativeLaunch = cooperative != 0;
    d.sharedBytesPerBlock = static_cast<std::size_t>(optin);
    // At the most shared memory a plan may take, so every plan this device accepts is resident too.
    d.blocksPerSm = residentBlocksPerSm(d.sharedBytesPerBlock);
    return d;
}

void launchPersistentEpoch(const PersistentArgs& args, void* stream) {
    checkPersistentArgs(args);
    const PersistentPlan& p = args.plan;
    int device = 0, sms = 0;
    WB_CUDA_CHECK(cudaGetDevice(&device));
    WB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const int resident = sms * residentBlocksPerSm(p.smem.bytes);
    if (p.grid > resident)
        throw DeviceError("cudaErrorCooperativeLaunchTooLarge",
                          "persistent epoch: " + std::to_string(p.grid) + " blocks cannot all be resident (at most " +
                              std::to_string(resident) + " on this device); plan for this device");
    PersistentArgs a = args;
    FusedStepArgs view = persistentFusedView(args);
    void* params[] = {&a, &view};
    WB_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(persistentEpochKernel), dim3(p.grid),
                                              dim3(kPersistentThreads), params, p.smem.bytes,
                                              static_cast<cudaStream_t>(stream)));
    WB_KERNEL_CHECK("persistentEpochKernel");
}

}  // namespace wb
