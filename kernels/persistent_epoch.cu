// The persistent epoch's kernel, its grid barrier and its launcher. The block program lives in
// persistent_body.h (shared with the CPU twin); this file holds only what is GPU-specific: the
// dynamic shared memory, __syncthreads, the flag barrier across blocks, the cp.async prefetch and
// the cooperative launch.
#include <cuda_pipeline.h>
#include <cuda_runtime.h>
#include <cuda/atomic>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "core/platform/errors.h"
#include "kernels/cuda_check.h"
#include "kernels/persistent_body.h"
#include "kernels/persistent_epoch.h"

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

// Phase stamps, in measurement builds only (CMake option WB_PERSISTENT_STAMPS): lane 0 of block 0
// and of the last block (the loss owner) notes clock64() at each phase boundary of the first
// kStampSteps steps, and the launcher prints each phase's median after the epoch (it waits for it).
// Every phase ends in a __syncthreads, so lane 0's clock marks the whole block's progress.
enum Stamp { kStepStart, kComputed, kArrived1, kPrefetched, kWaited1, kReduced, kArrived2, kWaited2, kStamps };
#ifdef WB_PERSISTENT_STAMPS
constexpr int kStampSteps = 64;
__device__ long long stampClocks[2][kStampSteps][kStamps];  // (block 0 | last block, step, stamp)
__device__ void stamp(int step, Stamp k) {
    const int which = blockIdx.x == 0 ? 0 : (blockIdx.x + 1 == gridDim.x ? 1 : -1);
    if (threadIdx.x == 0 && which >= 0 && step < kStampSteps) stampClocks[which][step][k] = clock64();
}
// Inside the compute phase, block 0 only: a stamp after each of its barriers (a layer of the
// forward pass, then of the backward pass; for the seed: 3 + 3).
constexpr int kSubStamps = 8;
__device__ long long subClocks[kStampSteps][kSubStamps];
struct StampingBarrier {
    int step;
    int* count;  // this thread's barriers so far in the step
    __device__ void operator()() const {
        __syncthreads();
        if (blockIdx.x == 0 && threadIdx.x == 0 && step < kStampSteps && *count < kSubStamps)
            subClocks[step][*count] = clock64();
        ++*count;
    }
};
#else
__device__ void stamp(int /*step*/, Stamp /*k*/) {}
#endif

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
        stamp(s, kStepStart);
#ifdef WB_PERSISTENT_STAMPS
        int barriers = 0;
        ps::computePhase(a, st, block, sm, lanes, StampingBarrier{s, &barriers});
#else
        ps::computePhase(a, st, block, sm, lanes, BlockBarrier{});
#endif
        stamp(s, kComputed);
        gridArrive(flags, ps::computedGeneration(st.t));
        stamp(s, kArrived1);
        if (s + 1 < steps && block < ps::stepAt(a, s + 1).tiles)
            ps::stageRows(a, ps::stepAt(a, s + 1), block, sm, lanes, AsyncCopy{});  // lands while we wait
        __pipeline_commit();
        stamp(s, kPrefetched);
        gridWait(flags, ps::computedGeneration(st.t));
        stamp(s, kWaited1);
        ps::reducePhase(a, st, block, sm, lanes, BlockBarrier{});
        stamp(s, kReduced);
        if (s + 1 == steps) break;
        gridArrive(flags, ps::publishedGeneration(st.t));
        stamp(s, kArrived2);
        gridWait(flags, ps::publishedGeneration(st.t));
        stamp(s, kWaited2);
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

#ifdef WB_PERSISTENT_STAMPS
double medianOf(std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
}

// After an epoch (waits for it), on stderr: per block noted, the median over its full steps but the
// last (which ends early) of each phase, then of block 0's compute barriers, in microseconds at the
// device's clock rate. Phase k ends at stamp k; "refresh" runs from the previous step's wait2.
void printStamps(const PersistentArgs& a, cudaStream_t stream) {
    static long long clocks[2][kStampSteps][kStamps], sub[kStampSteps][kSubStamps];
    WB_CUDA_CHECK(cudaStreamSynchronize(stream));
    WB_CUDA_CHECK(cudaMemcpyFromSymbol(clocks, stampClocks, sizeof(clocks)));
    WB_CUDA_CHECK(cudaMemcpyFromSymbol(sub, subClocks, sizeof(sub)));
    int device = 0, khz = 0;
    WB_CUDA_CHECK(cudaGetDevice(&device));
    WB_CUDA_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device));
    const int steps = std::min(static_cast<int>(persistent::stepsOf(a)) - 1, kStampSteps - 1);
    if (steps < 1) return;
    const auto us = [khz](long long from, long long to) { return static_cast<double>(to - from) * 1e3 / khz; };
    static const char* names[kStamps] = {"refresh", "compute", "arrive1", "prefetch",
                                         "wait1",   "reduce",  "arrive2", "wait2"};
    for (int which = 0; which < 2; ++which) {
        const auto& c = clocks[which];
        std::fprintf(stderr, "persistent stamps (%s, %d steps, us):", which == 0 ? "block 0" : "last block", steps);
        for (int k = 0; k < kStamps; ++k) {
            std::vector<double> t;
            for (int s = 1; s <= steps; ++s) t.push_back(us(k == 0 ? c[s - 1][kWaited2] : c[s][k - 1], c[s][k]));
            std::fprintf(stderr, " %s %.2f", names[k], medianOf(t));
        }
        std::vector<double> step;
        for (int s = 1; s <= steps; ++s) step.push_back(us(c[s - 1][kStepStart], c[s][kStepStart]));
        std::fprintf(stderr, " | step %.2f\n", medianOf(step));
    }
    std::fprintf(stderr, "persistent stamps (block 0 compute, us): from the step's start to each barrier:");
    for (int k = 0; k < kSubStamps && sub[1][k] != 0; ++k) {  // 0: a barrier this model's phase never reached
        std::vector<double> t;
        for (int s = 1; s <= steps; ++s) t.push_back(us(clocks[0][s][kStepStart], sub[s][k]));
        std::fprintf(stderr, " %.2f", medianOf(t));
    }
    std::fprintf(stderr, "\n");
}
#endif

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
#ifdef WB_PERSISTENT_STAMPS
    printStamps(args, static_cast<cudaStream_t>(stream));
#endif
}

}  // namespace wb
