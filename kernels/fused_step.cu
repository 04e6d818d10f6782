// The fused training step's kernel and launchers. The arithmetic lives in fused_step.h (shared with
// the CPU twin); this file holds only what is GPU-specific: the block's shared memory, the barriers,
// and the "last block to finish" hand-offs of the two-level reduction.
#include <cuda_runtime.h>

#include "core/platform/errors.h"
#include "kernels/fused_step.h"

namespace wb {

namespace {

struct BlockBarrier {
    __device__ void operator()() const { __syncthreads(); }
};

// Whether this block is the last of `expected` to take a ticket from `counter`; the last one resets
// the counter for the next launch. The writes every thread made before are made visible to the
// block that wins (the threadfence-reduction pattern of the CUDA programming guide).
__device__ bool lastToArrive(unsigned int* counter, unsigned int expected) {
    __shared__ bool last;
    __threadfence();  // this thread's global writes are visible device-wide before the ticket is taken
    __syncthreads();
    if (threadIdx.x == 0) {
        last = atomicAdd(counter, 1u) == expected - 1;
        if (last) *counter = 0;  // every other block has taken its ticket already
    }
    __syncthreads();
    if (last) __threadfence();  // order the reads of the other blocks' results after the ticket
    return last;
}

// One training step: one block per tile of rows (gridDim.x = blocksFor(plan, batchRows)),
// kFusedThreads threads, fusedSharedBytes(plan) bytes of dynamic shared memory.
__global__ void __launch_bounds__(kFusedThreads) fusedStepKernel(const FusedStepArgs a) {
    extern __shared__ float shared[];  // FusedTileLayout
    __shared__ int stepT;
    __shared__ float stepSize, bc2Sqrt;
    __shared__ bool firstStep;

    const fused::Lanes lanes{static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x)};
    const fused::ScratchView v(a.scratch, a.plan.scratch);
    const int block = static_cast<int>(blockIdx.x);
    const int blocks = static_cast<int>(gridDim.x);
    fused::runTile(a, v, block, shared, lanes, BlockBarrier{});

    const int group = block / kFusedGroupBlocks;
    const int groups = fused::groupsFor(blocks);
    const int groupFirst = group * kFusedGroupBlocks;
    const int groupSize = blocks - groupFirst < kFusedGroupBlocks ? blocks - groupFirst : kFusedGroupBlocks;
    if (!lastToArrive(v.counters + 1 + group, static_cast<unsigned int>(groupSize))) return;
    fused::reduceGroup(a, v, group, blocks, lanes);

    if (!lastToArrive(v.counters, static_cast<unsigned int>(groups))) return;
    if (threadIdx.x == 0) {
        stepT = *a.stepCount + 1;
        const stepmath::StepScalars s = stepmath::stepScalars(a.optimizer, stepT);
        stepSize = s.stepSize;
        bc2Sqrt = s.bc2Sqrt;
        firstStep = s.firstStep;
    }
    __syncthreads();
    stepmath::StepScalars s;
    s.stepSize = stepSize;
    s.bc2Sqrt = bc2Sqrt;
    s.firstStep = firstStep;
    fused::finalUpdate(a, v, groups, s, stepT, lanes);
}

void throwOnLaunchError(const char* what) {
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) throw DeviceError(cudaGetErrorName(e), std::string(what) + ": " + cudaGetErrorString(e));
}

}  // namespace

void launchFusedStep(const FusedStepArgs& args, void* stream) {
    checkFusedArgs(args);
    const int blocks = fused::blocksFor(args.plan, args.batchRows);
    fusedStepKernel<<<blocks, kFusedThreads, fusedSharedBytes(args.plan), static_cast<cudaStream_t>(stream)>>>(args);
    throwOnLaunchError("fused training step launch failed");
}

void launchFusedEpoch(const FusedStepArgs& args, std::int64_t rows, int batch, void* stream) {
    if (batch < 1) throw ConfigError("fused epoch: the batch must have at least one row");
    FusedStepArgs a = args;
    for (std::int64_t start = 0; start < rows; start += batch) {
        a.firstRow = args.firstRow + start;
        a.batchRows = static_cast<int>(rows - start < batch ? rows - start : batch);
        launchFusedStep(a, stream);
    }
}

}  // namespace wb
