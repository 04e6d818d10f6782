// The fully fused training step (launch=fused): forward, loss, backward and the optimizer update of
// one step in ONE kernel launch, the activations of each tile kept in shared memory, for any small
// MLP (up to kFusedMaxLayers linear layers, any widths that fit the shared-memory budget), both
// losses and every optimizer, in fp32.
//
// Design (the two kernels of a step, forward and backward with the update, folded into one launch):
//   * One block of kFusedThreads threads per tile of `tileRows` batch rows (16 when it fits):
//     it copies all weights and its rows of x into shared memory, runs the forward pass layer by
//     layer (z and f(z) of every hidden layer stay in shared memory), the loss and d(loss)/d(logit)
//     per row, then the backward pass, writing its tile's weight and bias gradients — a sum over
//     its rows in row order — to its own slot of a per-block partial buffer in global memory.
//   * Deterministic two-level reduction, no float atomics: blocks form groups of kFusedGroupBlocks;
//     the last block of a group to finish (__threadfence + an atomic ticket) sums its group's
//     partials in block order; the last group to finish sums the group partials in group order
//     and applies the optimizer to every parameter, adds the step's loss and correct count to the
//     device accumulators, and advances the device step counter. The result does not depend on
//     which block finishes last, so a run is bit-identical across repeats.
//   * Every output element (an activation, a delta, a gradient, a parameter) is computed by ONE
//     thread in a fixed order, so the arithmetic is independent of the thread count: the CPU twin
//     (fusedStepTwin, kernels/fused_twin.cpp) runs the same WB_HD functions below with one "lane"
//     and the same tile partition and reduction order, and the tests exercise exactly that.
//
// This header is CUDA-free (the stream is an opaque void*), so the twin, the CudaBackend and the
// tests include it from g++; only launchFusedStep/launchFusedEpoch live in fused_step.cu.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/model/math_ops.h"
#include "core/model/model.h"
#include "core/model/optimizer.h"
#include "core/model/step_math.h"

namespace wb {

constexpr int kFusedMaxLayers = 8;           // linear layers, output included (so up to 7 hidden)
constexpr int kFusedThreads = 512;           // threads per block
constexpr int kFusedGroupBlocks = 8;         // blocks per first-level reduction group
constexpr int kFusedFinalBatch = 16;         // group partials the final reduction loads at once
constexpr int kFusedPreferredTileRows = 16;  // rows per block when the shared memory allows
// Bytes of dynamic shared memory per block: under the 48 KiB a launch may use without opting in,
// with room left for the kernel's few static shared variables.
constexpr std::size_t kFusedSharedBudget = 47 * 1024;

// The model as the fused kernel sees it.
struct FusedShape {
    int layerCount = 0;                      // linear layers, 1..kFusedMaxLayers
    int widths[kFusedMaxLayers + 1] = {};    // {inputs, hidden..., 1}
    int weightOffset[kFusedMaxLayers] = {};  // MlpParams' layout: weight (out, in), then bias (out)
    int paramCount = 0;
    Activation activation = Activation::Tanh;  // of every hidden layer
    LossKind loss = LossKind::BceWithLogits;
};

// Where each buffer of one tile lives in the block's shared memory, in floats.
struct FusedTileLayout {
    int tileRows = 0;                  // R
    int weight[kFusedMaxLayers] = {};  // (out, weightLd[l]) rows padded to an odd stride: no bank conflicts
    int weightLd[kFusedMaxLayers] = {};
    int bias[kFusedMaxLayers] = {};  // (out)
    int act[kFusedMaxLayers] =
        {};  // the input of layer l, (R, widths[l]): act[0] the x tile, act[l] = f(z) of layer l-1
    int pre[kFusedMaxLayers] = {};  // z of layer l, (R, widths[l+1]); overwritten by d(loss)/dz in the backward pass
    int rowLoss = 0;                // (R) per-row loss
    int rowCorrect = 0;             // (R) 1 where the prediction is right
    int floats = 0;                 // total
};

// The global scratch buffer, byte offsets (each 256-aligned). Sized for `maxBlocks` tiles.
struct FusedScratchLayout {
    int maxBlocks = 0;
    int maxGroups = 0;
    int gradStride = 0;            // floats per partial-gradient row: paramCount rounded up to a multiple of 4
    std::size_t counters = 0;      // (1 + maxGroups) uint32: [0] groups done, [1 + g] blocks of group g done
    std::size_t blockGrad = 0;     // (maxBlocks, gradStride) float: each tile's gradient sum
    std::size_t groupGrad = 0;     // (maxGroups, gradStride) float
    std::size_t blockLoss = 0;     // (maxBlocks) double
    std::size_t groupLoss = 0;     // (maxGroups) double
    std::size_t blockCorrect = 0;  // (maxBlocks) uint32
    std::size_t groupCorrect = 0;  // (maxGroups) uint32
    std::size_t bytes = 0;         // total
};

// Everything the kernel needs to know about shapes, fixed for a run (passed by value to the kernel).
struct FusedPlan {
    FusedShape shape;
    FusedTileLayout tile;
    FusedScratchLayout scratch;
    int batchCapacity = 0;  // the most rows one step may have
};

// The model as the fused kernels see it: widths, parameter offsets, activation and loss.
FusedShape fusedShapeOf(const ModelSpec& model, std::size_t inputs, LossKind loss);
// The shared-memory layout of one tile of `rows` rows (see FusedTileLayout): odd weight strides, so
// the lanes reading W[j][k] for consecutive j hit distinct banks. The persistent kernel uses it too.
FusedTileLayout fusedTileLayout(const FusedShape& s, int rows);

// Why the fused path cannot train this model (too many layers, or weights plus one tile do not
// fit the shared memory), in a sentence; nullopt when it can.
std::optional<std::string> fusedSupports(const ModelSpec& model, std::size_t inputs);
// The plan for `model` on `inputs` features with batches of up to `batchCapacity` rows.
// `tileRows` (for tuning; 0 = kFusedPreferredTileRows) is an upper bound: the plan takes the
// largest power of two not above it whose tile fits the shared memory. Throws ConfigError with
// fusedSupports' sentence when unsupported, or for a capacity below 1 or tileRows outside 0..64.
FusedPlan makeFusedPlan(const ModelSpec& model, std::size_t inputs, LossKind loss, int batchCapacity, int tileRows = 0);
// Bytes of the global scratch buffer the plan needs. Zero it once before the first launch
// (cudaMemset); every launch leaves its counters at zero again. Zero it again after a failed launch.
std::size_t fusedScratchBytes(const FusedPlan& plan);
// Bytes of dynamic shared memory per block (at most kFusedSharedBudget).
std::size_t fusedSharedBytes(const FusedPlan& plan);

// One training step. Device pointers for launchFusedStep, host pointers for fusedStepTwin.
struct FusedStepArgs {
    FusedPlan plan;
    stepmath::OptimizerScalars optimizer;  // stepmath::optimizerScalars(spec)
    float* params = nullptr;               // (paramCount) MlpParams' flat layout, updated in place
    float* state0 = nullptr;               // (paramCount) each: optimizer state in stepmath::optimizerStateCount's
    float* state1 = nullptr;               //   order, zero before the first step; null where the optimizer has none
    float* state2 = nullptr;
    int* stepCount = nullptr;                 // (1) steps done so far; the step runs as t = *stepCount + 1 and stores t
    const float* x = nullptr;                 // (dataRows, inputs) row-major
    const float* y = nullptr;                 // (dataRows) labels in {0, 1}
    const std::uint32_t* rowIndex = nullptr;  // optional (dataRows): batch row i is row rowIndex[firstRow + i]
    std::int64_t firstRow = 0;                // the batch's first row (in rowIndex, or in x and y without it)
    int batchRows = 0;                        // rows of this step, 1..plan.batchCapacity
    double* lossSum = nullptr;                // (1) += the step's summed per-sample loss
    unsigned long long* correct = nullptr;    // (1) += the step's right predictions
    int* nonFiniteStep = nullptr;             // optional (1): set to t by the first step whose loss is not finite, if 0
    double* stepLoss = nullptr;               // optional (1): the step's summed loss
    void* scratch = nullptr;                  // (fusedScratchBytes(plan)) zeroed once
};

// Throws ConfigError when `args` do not fit its plan (rows outside 1..capacity, missing buffers).
void checkFusedArgs(const FusedStepArgs& args);

// Launches one step on `stream` (a cudaStream_t; null for the default stream). Asynchronous; throws
// DeviceError when the launch fails. Defined in fused_step.cu (only in builds with CUDA).
void launchFusedStep(const FusedStepArgs& args, void* stream);
// Launches every step of an epoch back to back on `stream` (capturable as one CUDA graph): the
// rows [args.firstRow, args.firstRow + rows) in batches of `batch` (the last one partial).
void launchFusedEpoch(const FusedStepArgs& args, std::int64_t rows, int batch, void* stream);

// The CPU twin: the same step with host pointers, the same tiles, arithmetic and reduction order.
void fusedStepTwin(const FusedStepArgs& args);
void fusedEpochTwin(const FusedStepArgs& args, std::int64_t rows, int batch);

// ---- The per-tile functions shared by the kernel and the twin ------------------------------------
namespace fused {

// The threads of a block as a loop: a unit of work u runs on the lane with u % stride == first.
// The kernel passes {threadIdx.x, blockDim.x}; the twin {0, 1}.
struct Lanes {
    int first = 0;
    int stride = 1;
};

WB_HD inline int blocksFor(const FusedPlan& plan, int batchRows) {
    return (batchRows + plan.tile.tileRows - 1) / plan.tile.tileRows;
}
WB_HD inline int groupsFor(int blocks) {
    return (blocks + kFusedGroupBlocks - 1) / kFusedGroupBlocks;
}
// Whether a double is neither infinite nor NaN (portable to the device without <cmath>).
WB_HD inline bool isFinite(double v) {
    return v - v == 0.0;
}

// Reads of data another block wrote during this launch go to L2, never a stale L1 line.
template <typename T>
WB_HD inline T loadCrossBlock(const T* p) {
#ifdef __CUDA_ARCH__
    return __ldcg(p);
#else
    return *p;
#endif
}

// Four consecutive floats of a partial-gradient row (16-byte aligned: rows are gradStride long).
struct Four {
    float v[4];
};
WB_HD inline Four loadFour(const float* p) {
#ifdef __CUDA_ARCH__
    const float4 q = __ldcg(reinterpret_cast<const float4*>(p));
    return Four{{q.x, q.y, q.z, q.w}};
#else
    return Four{{p[0], p[1], p[2], p[3]}};
#endif
}
WB_HD inline void storeFour(float* p, const Four& f) {
#ifdef __CUDA_ARCH__
    *reinterpret_cast<float4*>(p) = make_float4(f.v[0], f.v[1], f.v[2], f.v[3]);
#else
    for (int c = 0; c < 4; ++c) p[c] = f.v[c];
#endif
}

// sum += rows[0..count) of four floats each (row i at base + i * stride), in row order. All loads
// are issued before the first add (count <= N), so they overlap in flight.
template <int N>
WB_HD inline void addRows(Four& sum, const float* base, std::size_t stride, int count) {
    Four part[N] = {};
    for (int i = 0; i < N; ++i)
        if (i < count) part[i] = loadFour(base + static_cast<std::size_t>(i) * stride);
    for (int i = 0; i < N; ++i)
        if (i < count)
            for (int c = 0; c < 4; ++c) sum.v[c] += part[i].v[c];
}

// Typed pointers into the scratch buffer.
struct ScratchView {
    std::uint32_t* counters;
    float* blockGrad;
    float* groupGrad;
    double* blockLoss;
    double* groupLoss;
    std::uint32_t* blockCorrect;
    std::uint32_t* groupCorrect;

    WB_HD ScratchView(void* scratch, const FusedScratchLayout& s)
        : counters(at<std::uint32_t>(scratch, s.counters)),
          blockGrad(at<float>(scratch, s.blockGrad)),
          groupGrad(at<float>(scratch, s.groupGrad)),
          blockLoss(at<double>(scratch, s.blockLoss)),
          groupLoss(at<double>(scratch, s.groupLoss)),
          blockCorrect(at<std::uint32_t>(scratch, s.blockCorrect)),
          groupCorrect(at<std::uint32_t>(scratch, s.groupCorrect)) {}

    template <typename T>
    WB_HD static T* at(void* base, std::size_t offset) {
        return reinterpret_cast<T*>(static_cast<unsigned char*>(base) + offset);
    }
};

// The data row of batch row i.
WB_HD inline std::int64_t sourceRow(const FusedStepArgs& a, int i) {
    const std::int64_t r = a.firstRow + i;
    return a.rowIndex ? static_cast<std::int64_t>(a.rowIndex[r]) : r;
}

// Phase 1: every layer's weights and biases, and the tile's `rows` rows of x (from batch row `first`).
WB_HD inline void loadTile(const FusedStepArgs& a, int first, int rows, float* sm, Lanes lanes) {
    const FusedShape& s = a.plan.shape;
    const FusedTileLayout& t = a.plan.tile;
    for (int l = 0; l < s.layerCount; ++l) {
        const int in = s.widths[l], out = s.widths[l + 1];
        const float* src = a.params + s.weightOffset[l];  // (out, in) weight, then (out) bias
        const int weights = out * in;
        for (int u = lanes.first; u < weights + out; u += lanes.stride) {
            if (u < weights)
                sm[t.weight[l] + (u / in) * t.weightLd[l] + u % in] = src[u];
            else
                sm[t.bias[l] + (u - weights)] = src[u];
        }
    }
    const int in0 = s.widths[0];
    float* xTile = sm + t.act[0];  // (R, in0)
    for (int u = lanes.first; u < rows * in0; u += lanes.stride)
        xTile[u] = a.x[sourceRow(a, first + u / in0) * in0 + u % in0];
}

// The output layer's per-row tail: loss, correctness, and d(mean loss)/d(logit) in place of z.
WB_HD inline void lossAndSeed(const FusedStepArgs& a, int first, int r, float z, float* sm) {
    const FusedTileLayout& t = a.plan.tile;
    const float label = a.y[sourceRow(a, first + r)];
    const float p = stepmath::sigmoid(z);
    const float invN = 1.0f / static_cast<float>(a.batchRows);
    sm[t.rowLoss + r] = stepmath::sampleLoss(a.plan.shape.loss, z, label, p);
    sm[t.rowCorrect + r] = stepmath::isCorrect(p, label) ? 1.0f : 0.0f;
    sm[t.pre[a.plan.shape.layerCount - 1] + r] = stepmath::lossGrad(a.plan.shape.loss, label, p, invN);
}

// Phase 2, layer l: z = act W^T + b for each (row, output) unit; hidden layers also store f(z);
// the output layer (one unit per row) goes on to the loss.
WB_HD inline void forwardLayer(const FusedStepArgs& a, int l, int first, int rows, float* sm, Lanes lanes) {
    const FusedShape& s = a.plan.shape;
    const FusedTileLayout& t = a.plan.tile;
    const int in = s.widths[l], out = s.widths[l + 1], ld = t.weightLd[l];
    const bool output = l == s.layerCount - 1;
    const float* act = sm + t.act[l];   // (R, in)
    const float* w = sm + t.weight[l];  // (out, ld)
    const float* b = sm + t.bias[l];    // (out)
    for (int u = lanes.first; u < rows * out; u += lanes.stride) {
        const int r = u / out, j = u % out;
        const float* xr = act + r * in;
        const float* wj = w + j * ld;
        float acc = 0.0f;
        for (int k = 0; k < in; ++k) acc += xr[k] * wj[k];
        const float z = acc + b[j];
        if (output) {
            lossAndSeed(a, first, r, z, sm);  // out == 1, so u == r
        } else {
            sm[t.pre[l] + u] = z;
            sm[t.act[l + 1] + u] = stepmath::activate(s.activation, z);
        }
    }
}

// Weight gradients one unit computes: kGradRun consecutive outputs j of one input k, so each row's
// act[r][k] is read once for all of them (each gradient is still one sum over the rows, in row order).
constexpr int kGradRun = 4;

// Phase 3, layer l (from the last down): with dz = d(loss)/dz of layer l in pre[l],
//   grad W[j][k] = sum over rows of dz[r][j] act[r][k], grad b[j] = sum over rows of dz[r][j]
// into this block's partial gradient `grad` (paramCount), and, below the first layer, the delta of
// layer l-1: (dz W)[r][k] f'(z[r][k]) in place of its z. The two kinds of unit touch disjoint
// buffers, so they share one phase.
WB_HD inline void backwardLayer(const FusedStepArgs& a, int l, int rows, float* sm, float* grad, Lanes lanes) {
    const FusedShape& s = a.plan.shape;
    const FusedTileLayout& t = a.plan.tile;
    const int in = s.widths[l], out = s.widths[l + 1], ld = t.weightLd[l];
    const float* dz = sm + t.pre[l];      // (R, out)
    const float* act = sm + t.act[l];     // (R, in)
    const float* w = sm + t.weight[l];    // (out, ld)
    float* g = grad + s.weightOffset[l];  // (out, in) weight gradient, then (out) bias gradient
    const int weights = out * in, runs = (out + kGradRun - 1) / kGradRun;
    const int runUnits = runs * in, gradUnits = runUnits + out;
    const int units = gradUnits + (l > 0 ? rows * in : 0);
    for (int u = lanes.first; u < units; u += lanes.stride) {
        if (u < runUnits) {
            const int k = u % in, j0 = (u / in) * kGradRun;
            const int n = out - j0 < kGradRun ? out - j0 : kGradRun;
            float acc[kGradRun] = {};
            if (n == kGradRun) {
                for (int r = 0; r < rows; ++r) {
                    const float x = act[r * in + k];
                    const float* d = dz + r * out + j0;
                    for (int c = 0; c < kGradRun; ++c) acc[c] += d[c] * x;
                }
            } else {  // the last, shorter run: no condition inside the sums (it would change their rounding)
                for (int c = 0; c < n; ++c)
                    for (int r = 0; r < rows; ++r) acc[c] += dz[r * out + j0 + c] * act[r * in + k];
            }
            for (int c = 0; c < n; ++c) g[(j0 + c) * in + k] = acc[c];
        } else if (u < gradUnits) {
            const int j = u - runUnits;
            float acc = 0.0f;
            for (int r = 0; r < rows; ++r) acc += dz[r * out + j];
            g[weights + j] = acc;
        } else {
            const int v = u - gradUnits, r = v / in, k = v % in;
            float acc = 0.0f;
            for (int j = 0; j < out; ++j) acc += dz[r * out + j] * w[j * ld + k];
            float* prev = sm + t.pre[l - 1];  // (R, in): z of layer l-1, becomes its delta
            prev[v] = stepmath::activationBackward(s.activation, prev[v], act[v], acc);
        }
    }
}

// The tile's loss sum (in double, row order) and correct count into its scratch slot (lane 0).
WB_HD inline void tileTotals(const FusedStepArgs& a, const ScratchView& v, int block, int rows, const float* sm,
                             Lanes lanes) {
    if (lanes.first != 0) return;
    double loss = 0.0;
    std::uint32_t right = 0;
    for (int r = 0; r < rows; ++r) {
        loss += static_cast<double>(sm[a.plan.tile.rowLoss + r]);
        right += sm[a.plan.tile.rowCorrect + r] != 0.0f ? 1u : 0u;
    }
    v.blockLoss[block] = loss;
    v.blockCorrect[block] = right;
}

// One block's whole tile: load, forward, loss, backward; `barrier` separates the phases
// (__syncthreads on the device, nothing in the twin).
template <typename Barrier>
WB_HD void runTile(const FusedStepArgs& a, const ScratchView& v, int block, float* sm, Lanes lanes, Barrier barrier) {
    const int layers = a.plan.shape.layerCount;
    const int first = block * a.plan.tile.tileRows;
    const int left = a.batchRows - first;
    const int rows = left < a.plan.tile.tileRows ? left : a.plan.tile.tileRows;
    float* grad = v.blockGrad + static_cast<std::size_t>(block) * static_cast<std::size_t>(a.plan.scratch.gradStride);
    for (int p = a.plan.shape.paramCount + lanes.first; p < a.plan.scratch.gradStride; p += lanes.stride)
        grad[p] = 0.0f;  // the row's padding, so the reductions never read uninitialised memory
    loadTile(a, first, rows, sm, lanes);
    barrier();
    for (int l = 0; l < layers; ++l) {
        forwardLayer(a, l, first, rows, sm, lanes);
        barrier();
    }
    tileTotals(a, v, block, rows, sm, lanes);
    for (int l = layers - 1; l >= 0; --l) {
        backwardLayer(a, l, rows, sm, grad, lanes);
        if (l > 0) barrier();
    }
}

// First-level reduction: group `group`'s block partials summed in block order, four parameters
// per unit.
WB_HD inline void reduceGroup(const FusedStepArgs& a, const ScratchView& v, int group, int blocks, Lanes lanes) {
    const auto stride = static_cast<std::size_t>(a.plan.scratch.gradStride);
    const int b0 = group * kFusedGroupBlocks;
    const int count = b0 + kFusedGroupBlocks < blocks ? kFusedGroupBlocks : blocks - b0;
    const float* rows = v.blockGrad + static_cast<std::size_t>(b0) * stride;
    float* out = v.groupGrad + static_cast<std::size_t>(group) * stride;
    for (int q = lanes.first; q < a.plan.scratch.gradStride / 4; q += lanes.stride) {
        const auto at = static_cast<std::size_t>(4 * q);
        Four sum{{0.0f, 0.0f, 0.0f, 0.0f}};
        addRows<kFusedGroupBlocks>(sum, rows + at, stride, count);
        storeFour(out + at, sum);
    }
    if (lanes.first != 0) return;
    double loss = 0.0;
    std::uint32_t right = 0;
    for (int b = b0; b < b0 + count; ++b) {
        loss += loadCrossBlock(v.blockLoss + b);
        right += loadCrossBlock(v.blockCorrect + b);
    }
    v.groupLoss[group] = loss;
    v.groupCorrect[group] = right;
}

// The optimizer on parameters [first, first + count), count <= 4, with their gradients: every load
// first, then the element updates on registers, then the stores (so the loads overlap in flight).
WB_HD inline void updateFour(const FusedStepArgs& a, const stepmath::StepScalars& st, int first, int count,
                             const Four& grad) {
    float p[4] = {}, s0[4] = {}, s1[4] = {}, s2[4] = {};
    for (int c = 0; c < 4; ++c) {  // constant bounds and a guard: the arrays stay in registers
        if (c >= count) continue;
        const auto i = static_cast<std::size_t>(first + c);
        p[c] = a.params[i];
        if (a.state0) s0[c] = a.state0[i];
        if (a.state1) s1[c] = a.state1[i];
        if (a.state2) s2[c] = a.state2[i];
    }
    for (int c = 0; c < 4; ++c)
        if (c < count) stepmath::updateValues(a.optimizer, st, p[c], grad.v[c], s0[c], s1[c], s2[c]);
    for (int c = 0; c < 4; ++c) {  // constant bounds and a guard: the arrays stay in registers
        if (c >= count) continue;
        const auto i = static_cast<std::size_t>(first + c);
        a.params[i] = p[c];
        if (a.state0) a.state0[i] = s0[c];
        if (a.state1) a.state1[i] = s1[c];
        if (a.state2) a.state2[i] = s2[c];
    }
}

// Second level and the update: each parameter's gradient summed over the groups in group order,
// then the optimizer element; lane 0 adds the step's loss and correct count and stores t.
WB_HD inline void finalUpdate(const FusedStepArgs& a, const ScratchView& v, int groups, const stepmath::StepScalars& st,
                              int t, Lanes lanes) {
    const auto stride = static_cast<std::size_t>(a.plan.scratch.gradStride);
    const int params = a.plan.shape.paramCount;
    for (int q = lanes.first; 4 * q < params; q += lanes.stride) {
        const auto at = static_cast<std::size_t>(4 * q);
        Four grad{{0.0f, 0.0f, 0.0f, 0.0f}};
        for (int g0 = 0; g0 < groups; g0 += kFusedFinalBatch) {
            const int count = g0 + kFusedFinalBatch < groups ? kFusedFinalBatch : groups - g0;
            addRows<kFusedFinalBatch>(grad, v.groupGrad + static_cast<std::size_t>(g0) * stride + at, stride, count);
        }
        updateFour(a, st, 4 * q, params - 4 * q < 4 ? params - 4 * q : 4, grad);
    }
    if (lanes.first != 0) return;
    double loss = 0.0;
    unsigned long long right = 0;
    for (int gi = 0; gi < groups; ++gi) {
        loss += loadCrossBlock(v.groupLoss + gi);
        right += loadCrossBlock(v.groupCorrect + gi);
    }
    *a.lossSum += loss;
    *a.correct += right;
    if (a.stepLoss) *a.stepLoss = loss;
    if (a.nonFiniteStep && !isFinite(loss) && *a.nonFiniteStep == 0) *a.nonFiniteStep = t;
    *a.stepCount = t;
}

}  // namespace fused

// One step on the host in the kernel's structure: every block's tile, then every group's reduction,
// then the update, each run by runBlock(body), which calls body(fused::Lanes, barrier) once for
// every lane of one block. The twin (fusedStepTwin) runs one lane with no barrier; the lane tests
// (tests/tst_fused_lanes.cpp) run kFusedThreads lanes taking turns, as the GPU's threads would.
// Each block's shared memory is poisoned first: a read of anything the tile did not write turns
// the results into NaN, which the tests see.
template <typename RunBlock>
void fusedStepOnHost(const FusedStepArgs& a, RunBlock runBlock) {
    checkFusedArgs(a);
    const fused::ScratchView v(a.scratch, a.plan.scratch);
    const int blocks = fused::blocksFor(a.plan, a.batchRows);
    const int groups = fused::groupsFor(blocks);
    std::vector<float> shared(static_cast<std::size_t>(a.plan.tile.floats));  // one block's, reused
    for (int b = 0; b < blocks; ++b) {
        std::fill(shared.begin(), shared.end(), std::numeric_limits<float>::quiet_NaN());
        runBlock([&](fused::Lanes lanes, auto barrier) { fused::runTile(a, v, b, shared.data(), lanes, barrier); });
    }
    for (int g = 0; g < groups; ++g)
        runBlock([&](fused::Lanes lanes, auto) { fused::reduceGroup(a, v, g, blocks, lanes); });
    const int t = *a.stepCount + 1;
    const stepmath::StepScalars s = stepmath::stepScalars(a.optimizer, t);
    runBlock([&](fused::Lanes lanes, auto) { fused::finalUpdate(a, v, groups, s, t, lanes); });
}

}  // namespace wb
