// Kernels of the eager and graph paths; see step_kernels.h. One thread per element unless said.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>

#include "core/platform/errors.h"
#include "kernels/cuda_check.h"
#include "kernels/step_kernels.h"

namespace wb {

namespace {
constexpr int kThreads = 256;

unsigned blocksFor(std::size_t count) {
    const std::size_t blocks = (count + kThreads - 1) / kThreads;
    return static_cast<unsigned>(blocks < 65535 * 16 ? (blocks > 0 ? blocks : 1) : 65535 * 16);
}

__device__ inline bool finite(float v) {
    return isfinite(v);
}

__global__ void beginEpochKernel(DeviceCounters* c) {
    c->lossSum = 0.0;
    c->correct = 0;
    c->squaredError = 0.0;
    c->absoluteError = 0.0;
    c->weightSum = 0.0;
    c->epochStep = 0;
    c->nonFiniteStep = 0;
}

__global__ void beginStepKernel(DeviceCounters* c) {
    c->epochStep += 1;
    c->stepLoss = 0.0;
    c->foundInf = 0;
}

template <typename H>
__device__ inline H toHalf(float v);
template <>
__device__ inline __half toHalf<__half>(float v) {
    return __float2half_rn(v);
}
template <>
__device__ inline __nv_bfloat16 toHalf<__nv_bfloat16>(float v) {
    return __float2bfloat16_rn(v);
}

template <typename H>
__global__ void biasActivationKernel(float* z, const float* bias, float* y, H* yHalf, int halfLd, Activation a, int n,
                                     int width) {
    const auto w = static_cast<std::size_t>(width);
    const std::size_t count = static_cast<std::size_t>(n) * w;
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
         i += std::size_t{gridDim.x} * blockDim.x) {
        const std::size_t col = i % w;
        const float v = z[i] + bias[col];
        z[i] = v;
        if (!y) continue;
        const float out = stepmath::activate(a, v);
        y[i] = out;
        if (yHalf) yHalf[(i / w) * static_cast<std::size_t>(halfLd) + col] = toHalf<H>(out);
    }
}

// One block of kThreads: the batch's sum of class weights w[labels[i]] (n) in double, each thread
// over rows i, i + kThreads, ..., then a fixed tree; c->batchWeight = that sum as a float, which the
// CPU's stepmath::batchWeightSum matches to rounding.
__global__ void batchWeightKernel(LossSpec spec, const float* labels, int n, DeviceCounters* c) {
    __shared__ double part[kThreads];
    double sum = 0.0;
    for (int i = static_cast<int>(threadIdx.x); i < n; i += kThreads)
        sum += static_cast<double>(stepmath::classWeightOf(spec, labels[i]));
    part[threadIdx.x] = sum;
    __syncthreads();
    for (int half = kThreads / 2; half > 0; half /= 2) {
        if (static_cast<int>(threadIdx.x) < half) part[threadIdx.x] += part[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) c->batchWeight = static_cast<float>(part[0]);
}

// One block of kThreads: each thread takes rows i, i + kThreads, ...; the block sums in shared memory,
// then one atomic add per block (the order of the block sums varies, at double precision).
// Per block: each thread's rows through stepmath::rowLoss, then a tree sum of the loss, the right
// predictions, a regression's errors and the class weights, added to the counters once per block.
// With class weights and gradients, invN = 1 / c->batchWeight (batchWeightKernel ran first).
__global__ void lossKernel(LossSpec spec, const float* logits, const float* labels, float* dlogits, int n,
                           DeviceCounters* c, bool useLossScale) {
    __shared__ double lossPart[kThreads], squaredPart[kThreads], absolutePart[kThreads], weightPart[kThreads];
    __shared__ unsigned rightPart[kThreads];
    const bool weighted = spec.classWeights != nullptr;
    const float invN = 1.0f / ((weighted && dlogits) ? c->batchWeight : static_cast<float>(n));
    const float scale = useLossScale ? c->lossScale : 1.0f;
    const int k = spec.outputs;
    double loss = 0.0, squared = 0.0, absolute = 0.0, weight = 0.0;
    unsigned right = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const std::size_t row = static_cast<std::size_t>(i) * static_cast<std::size_t>(k);
        const stepmath::RowLoss r =
            stepmath::rowLoss(spec, logits + row, labels[i], invN, scale, dlogits ? dlogits + row : nullptr);
        loss += static_cast<double>(r.loss);
        squared += static_cast<double>(r.squaredError);
        absolute += static_cast<double>(r.absoluteError);
        weight += static_cast<double>(r.weight);
        right += r.right ? 1u : 0u;
    }
    lossPart[threadIdx.x] = loss;
    squaredPart[threadIdx.x] = squared;
    absolutePart[threadIdx.x] = absolute;
    weightPart[threadIdx.x] = weight;
    rightPart[threadIdx.x] = right;
    __syncthreads();
    for (int half = kThreads / 2; half > 0; half /= 2) {
        if (static_cast<int>(threadIdx.x) < half) {
            lossPart[threadIdx.x] += lossPart[threadIdx.x + half];
            squaredPart[threadIdx.x] += squaredPart[threadIdx.x + half];
            absolutePart[threadIdx.x] += absolutePart[threadIdx.x + half];
            weightPart[threadIdx.x] += weightPart[threadIdx.x + half];
            rightPart[threadIdx.x] += rightPart[threadIdx.x + half];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        atomicAdd(&c->stepLoss, lossPart[0]);
        atomicAdd(&c->lossSum, lossPart[0]);
        atomicAdd(&c->correct, static_cast<unsigned long long>(rightPart[0]));
        if (spec.task == Task::Regression) {
            atomicAdd(&c->squaredError, squaredPart[0]);
            atomicAdd(&c->absoluteError, absolutePart[0]);
        }
        if (weighted) atomicAdd(&c->weightSum, weightPart[0]);
    }
}

__global__ void activationBackwardKernel(Activation a, const float* z, const float* y, float* d, std::size_t count) {
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
         i += std::size_t{gridDim.x} * blockDim.x)
        d[i] = stepmath::activationBackward(a, z[i], y[i], d[i]);
}

// One block per column j; its threads stride over the rows and reduce in shared memory (a fixed
// order, so deterministic).
__global__ void biasGradKernel(const float* dz, float* db, int n, int width, bool accumulate) {
    __shared__ float part[kThreads];
    const int j = blockIdx.x;
    float sum = 0.0f;
    for (int r = threadIdx.x; r < n; r += blockDim.x) sum += dz[static_cast<std::size_t>(r) * width + j];
    part[threadIdx.x] = sum;
    __syncthreads();
    for (int half = kThreads / 2; half > 0; half /= 2) {
        if (static_cast<int>(threadIdx.x) < half) part[threadIdx.x] += part[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) db[j] = accumulate ? db[j] + part[0] : part[0];
}

// Copy blockIdx.y of `copies`; the blocks along x stride over its padded destination.
template <typename H>
__global__ void toHalfPaddedKernel(const HalfCopies copies) {
    const HalfCopy& c = copies.copy[blockIdx.y];
    H* dst = static_cast<H*>(c.dst);
    const auto ld = static_cast<std::size_t>(c.ld);
    const std::size_t count = static_cast<std::size_t>(c.dstRows) * ld;
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
         i += std::size_t{gridDim.x} * blockDim.x) {
        const std::size_t r = i / ld, k = i % ld;
        const bool real = r < static_cast<std::size_t>(c.rows) && k < static_cast<std::size_t>(c.cols);
        dst[i] = toHalf<H>(real ? c.src[r * static_cast<std::size_t>(c.cols) + k] : 0.0f);
    }
}

__global__ void gatherRowsKernel(const float* x, const float* y, const std::uint32_t* index, std::int64_t first, int n,
                                 int cols, float* xOut, float* yOut) {
    const std::size_t count = static_cast<std::size_t>(n) * static_cast<std::size_t>(cols);
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
         i += std::size_t{gridDim.x} * blockDim.x) {
        const std::size_t r = i / static_cast<std::size_t>(cols), k = i % static_cast<std::size_t>(cols);
        const std::size_t src = index[first + static_cast<std::int64_t>(r)];
        xOut[i] = x[src * static_cast<std::size_t>(cols) + k];
        if (k == 0) yOut[r] = y[src];
    }
}

__global__ void unscaleGradsKernel(float* grads, std::size_t count, DeviceCounters* c) {
    const float inv = 1.0f / c->lossScale;
    bool bad = false;
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
         i += std::size_t{gridDim.x} * blockDim.x) {
        const float g = grads[i] * inv;
        grads[i] = g;
        bad = bad || !finite(g);
    }
    if (bad) c->foundInf = 1;  // a benign race: every writer writes 1
}

__global__ void optimizerBeginStepKernel(stepmath::OptimizerScalars s, DeviceCounters* c) {
    if (!isfinite(c->stepLoss) && c->nonFiniteStep == 0) c->nonFiniteStep = c->epochStep;
    if (c->foundInf) return;  // this step's update is skipped; t does not advance
    c->optimizerStep += 1;
    c->scalars = stepmath::stepScalars(s, c->optimizerStep);
}

__global__ void optimizerUpdateKernel(stepmath::OptimizerScalars s, float* params, const float* grads, float* state0,
                                      float* state1, float* state2, std::size_t offset, std::size_t count,
                                      const DeviceCounters* c) {
    if (c->foundInf) return;
    const stepmath::StepScalars t = c->scalars;
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
         i += std::size_t{gridDim.x} * blockDim.x)
        stepmath::updateElement(s, t, params, grads, state0, state1, state2, offset + i);
}

__global__ void updateLossScaleKernel(DeviceCounters* c) {
    constexpr int kGrowthInterval = 2000;  // torch.cuda.amp.GradScaler's defaults
    if (c->foundInf) {
        c->lossScale *= 0.5f;
        c->goodSteps = 0;
    } else if (++c->goodSteps == kGrowthInterval) {
        c->lossScale *= 2.0f;
        c->goodSteps = 0;
    }
}
}  // namespace

void launchBeginEpoch(DeviceCounters* c, cudaStream_t stream) {
    beginEpochKernel<<<1, 1, 0, stream>>>(c);
    WB_KERNEL_CHECK("beginEpoch");
}

void launchBeginStep(DeviceCounters* c, cudaStream_t stream) {
    beginStepKernel<<<1, 1, 0, stream>>>(c);
    WB_KERNEL_CHECK("beginStep");
}

void launchBiasActivation(float* z, const float* bias, float* y, void* yHalf, int halfLd, HalfKind half, Activation a,
                          int n, int width, cudaStream_t stream) {
    const unsigned blocks = blocksFor(static_cast<std::size_t>(n) * static_cast<std::size_t>(width));
    if (half == HalfKind::Fp16)
        biasActivationKernel<__half>
            <<<blocks, kThreads, 0, stream>>>(z, bias, y, static_cast<__half*>(yHalf), halfLd, a, n, width);
    else
        biasActivationKernel<__nv_bfloat16>
            <<<blocks, kThreads, 0, stream>>>(z, bias, y, static_cast<__nv_bfloat16*>(yHalf), halfLd, a, n, width);
    WB_KERNEL_CHECK("biasActivation");
}

void launchLoss(const LossSpec& spec, const float* logits, const float* labels, float* dlogits, int n,
                DeviceCounters* c, bool useLossScale, cudaStream_t stream) {
    if (spec.classWeights && dlogits) {  // the batch's weight sum, before any gradient is written
        batchWeightKernel<<<1, kThreads, 0, stream>>>(spec, labels, n, c);
        WB_KERNEL_CHECK("batchWeight");
    }
    const unsigned blocks = blocksFor(static_cast<std::size_t>(n)) < 64 ? blocksFor(static_cast<std::size_t>(n)) : 64;
    lossKernel<<<blocks, kThreads, 0, stream>>>(spec, logits, labels, dlogits, n, c, useLossScale);
    WB_KERNEL_CHECK("loss");
}

void launchActivationBackward(Activation a, const float* z, const float* y, float* d, int n, int width,
                              cudaStream_t stream) {
    const std::size_t count = static_cast<std::size_t>(n) * static_cast<std::size_t>(width);
    activationBackwardKernel<<<blocksFor(count), kThreads, 0, stream>>>(a, z, y, d, count);
    WB_KERNEL_CHECK("activationBackward");
}

void launchBiasGrad(const float* dz, float* db, int n, int width, bool accumulate, cudaStream_t stream) {
    biasGradKernel<<<static_cast<unsigned>(width), kThreads, 0, stream>>>(dz, db, n, width, accumulate);
    WB_KERNEL_CHECK("biasGrad");
}

void launchToHalfPadded(const HalfCopies& copies, HalfKind half, cudaStream_t stream) {
    if (copies.count < 1 || copies.count > kMaxHalfCopies) throw ConfigError("toHalfPadded: 1 to 8 copies per launch");
    std::size_t largest = 0;
    for (int i = 0; i < copies.count; ++i)
        largest = std::max(
            largest, static_cast<std::size_t>(copies.copy[i].dstRows) * static_cast<std::size_t>(copies.copy[i].ld));
    const dim3 grid(blocksFor(largest), static_cast<unsigned>(copies.count));
    if (half == HalfKind::Fp16)
        toHalfPaddedKernel<__half><<<grid, kThreads, 0, stream>>>(copies);
    else
        toHalfPaddedKernel<__nv_bfloat16><<<grid, kThreads, 0, stream>>>(copies);
    WB_KERNEL_CHECK("toHalfPadded");
}

void launchGatherRows(const float* x, const float* y, const std::uint32_t* index, std::int64_t first, int n, int cols,
                      float* xOut, float* yOut, cudaStream_t stream) {
    const std::size_t count = static_cast<std::size_t>(n) * static_cast<std::size_t>(cols);
    gatherRowsKernel<<<blocksFor(count), kThreads, 0, stream>>>(x, y, index, first, n, cols, xOut, yOut);
    WB_KERNEL_CHECK("gatherRows");
}

void launchUnscaleGrads(float* grads, std::size_t count, DeviceCounters* c, cudaStream_t stream) {
    unscaleGradsKernel<<<blocksFor(count), kThreads, 0, stream>>>(grads, count, c);
    WB_KERNEL_CHECK("unscaleGrads");
}

void launchOptimizerBeginStep(const stepmath::OptimizerScalars& s, DeviceCounters* c, cudaStream_t stream) {
    optimizerBeginStepKernel<<<1, 1, 0, stream>>>(s, c);
    WB_KERNEL_CHECK("optimizerBeginStep");
}

void launchOptimizerUpdate(const stepmath::OptimizerScalars& s, float* params, const float* grads, float* state0,
                           float* state1, float* state2, std::size_t offset, std::size_t count, const DeviceCounters* c,
                           cudaStream_t stream) {
    optimizerUpdateKernel<<<blocksFor(count), kThreads, 0, stream>>>(s, params, grads, state0, state1, state2, offset,
                                                                     count, c);
    WB_KERNEL_CHECK("optimizerUpdate");
}

void launchUpdateLossScale(DeviceCounters* c, cudaStream_t stream) {
    updateLossScaleKernel<<<1, 1, 0, stream>>>(c);
    WB_KERNEL_CHECK("updateLossScale");
}

}  // namespace wb
