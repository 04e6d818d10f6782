// The persistent epoch's block program, as __host__ __device__ functions of (block, lanes): the
// kernel (persistent_epoch.cu) calls them with __syncthreads and the flag grid barrier between
// them; the CPU twin (persistent_twin.h) calls the very same functions block after block, the grid
// barrier emulated by running every block's phase before any block's next phase. The tile
// arithmetic is the fused step's (fused_step.h), so both paths share one formula for everything.
//
// A block's program for an epoch of S steps:
//   startBlock, stage(step 0), loadWeights
//   for each step t:  computePhase, ARRIVE(2t-1), prefetch(next step)  | grid barrier
//                     reducePhase (owners: sum, update, publish), ARRIVE(2t) | grid barrier
//                     refreshPhase (reload every weight)               (not after the last step)
//   finishBlock
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/model/step_math.h"
#include "kernels/fused_step.h"
#include "kernels/persistent_epoch.h"

namespace wb::persistent {

using fused::Four;
using fused::Lanes;

// One step of the epoch.
struct Step {
    std::int64_t first = 0;  // the step's first row (in rowIndex, or in x and y without it)
    int rows = 0;            // rows of the step
    int tiles = 0;           // tiles of the step
    int groups = 0;          // groups of kFusedGroupBlocks tiles
    std::int64_t t = 0;      // the optimizer's step number, 1-based over the run
};

WB_HD inline int stepsOf(const PersistentArgs& a) {
    return static_cast<int>((a.rows + a.plan.batch - 1) / a.plan.batch);
}

WB_HD inline Step stepAt(const PersistentArgs& a, int s) {
    Step st;
    const std::int64_t done = static_cast<std::int64_t>(s) * a.plan.batch;
    st.first = a.firstRow + done;
    st.rows = a.rows - done < a.plan.batch ? static_cast<int>(a.rows - done) : a.plan.batch;
    st.tiles = (st.rows + a.plan.tileRows - 1) / a.plan.tileRows;
    st.groups = fused::groupsFor(st.tiles);
    st.t = a.stepsDone + s + 1;
    return st;
}

// The generations a block's flag takes in step t: its tiles' partials are written (2t-1), its
// quads are published (2t). Monotonic over the run, so no flag is ever reset between steps.
WB_HD inline std::uint32_t computedGeneration(std::int64_t t) {
    return static_cast<std::uint32_t>(2 * t - 1);
}
WB_HD inline std::uint32_t publishedGeneration(std::int64_t t) {
    return static_cast<std::uint32_t>(2 * t);
}

// Typed views of a block's shared memory (PersistentSharedLayout) and of the global scratch.
struct Shared {
    unsigned char* base;

    template <typename T>
    WB_HD T* at(std::size_t offset) const {
        return reinterpret_cast<T*>(base + offset);
    }
    WB_HD FusedStepArgs& view() const { return *at<FusedStepArgs>(0); }
    WB_HD float* floats(const PersistentPlan& p) const { return at<float>(p.smem.floatBase); }
    WB_HD float* floats(const PersistentPlan& p, int offset) const { return floats(p) + offset; }
};

struct Scratch {
    float* partial;              // (maxTiles, gradStride)
    double* tileLoss;            // (maxTiles)
    std::uint32_t* tileCorrect;  // (maxTiles)
    std::uint32_t* flags;        // (grid)
};

WB_HD inline Scratch scratchOf(const PersistentArgs& a) {
    auto* b = static_cast<unsigned char*>(a.scratch);
    const PersistentScratchLayout& s = a.plan.scratch;
    return Scratch{reinterpret_cast<float*>(b + s.partial), reinterpret_cast<double*>(b + s.tileLoss),
                   reinterpret_cast<std::uint32_t*>(b + s.tileCorrect), reinterpret_cast<std::uint32_t*>(b + s.flags)};
}

// The fused functions' view of the scratch: a tile's partial is their "block" gradient row.
WB_HD inline fused::ScratchView fusedScratchOf(const PersistentArgs& a) {
    FusedScratchLayout s;
    s.blockGrad = a.plan.scratch.partial;
    s.blockLoss = a.plan.scratch.tileLoss;
    s.blockCorrect = a.plan.scratch.tileCorrect;
    return fused::ScratchView(a.scratch, s);
}

// ---- Ownership ---------------------------------------------------------------------------------

WB_HD inline int ownedFirst(const PersistentPlan& p, int block) {
    return block * p.ownerQuads;
}
WB_HD inline int ownedCount(const PersistentPlan& p, int block) {
    const int left = p.quads - ownedFirst(p, block);
    return left <= 0 ? 0 : (left < p.ownerQuads ? left : p.ownerQuads);
}
// The block that sums the loss: the last, whose slice of parameters is the shortest.
WB_HD inline bool ownsLoss(const PersistentPlan& p, int block) {
    return block == p.grid - 1;
}
// The global state buffer k (0..2), null where the optimizer has none.
WB_HD inline float* stateBuffer(const PersistentArgs& a, int k) {
    return k == 0 ? a.state0 : (k == 1 ? a.state1 : a.state2);
}

// ---- Phases ------------------------------------------------------------------------------------

// The start of the epoch: the fused view copied into shared memory (all lanes, word by word), the
// owned parameters and optimizer state loaded, the loss owner's totals read.
template <typename Barrier>
WB_HD void startBlock(const PersistentArgs& a, const FusedStepArgs& view, int block, Shared sm, Lanes lanes,
                      Barrier barrier) {
    const PersistentPlan& p = a.plan;
    const auto* src = reinterpret_cast<const std::uint32_t*>(&view);
    auto* dst = sm.at<std::uint32_t>(0);
    for (int u = lanes.first; u < static_cast<int>(sizeof(FusedStepArgs) / 4); u += lanes.stride) dst[u] = src[u];
    barrier();
    if (lanes.first == 0) {
        sm.view().y = sm.floats(p, p.smem.labels);  // labels[r] = y of the tile's row r (firstRow 0, no index)
        sm.view().batchRows = stepAt(a, 0).rows;
    }
    const int first = 4 * ownedFirst(p, block), count = 4 * ownedCount(p, block);
    for (int u = lanes.first; u < count; u += lanes.stride) {
        const bool real = first + u < p.shape.paramCount;  // the last quad may be partial
        sm.floats(p, p.smem.ownerParams)[u] = real ? a.params[first + u] : 0.0f;
        for (int k = 0; k < 3; ++k) {
            const float* g = stateBuffer(a, k);
            sm.floats(p, p.smem.ownerState[k])[u] = real && g ? g[first + u] : 0.0f;
        }
    }
    if (ownsLoss(p, block) && lanes.first == 0) {
        *sm.at<double>(p.smem.epochLoss) = *a.lossSum;
        *sm.at<unsigned long long>(p.smem.epochCorrect) = *a.correct;
        *sm.at<std::uint32_t>(p.smem.nonFinite) = a.nonFiniteStep ? static_cast<std::uint32_t>(*a.nonFiniteStep) : 0u;
        *sm.at<double>(p.smem.stepLoss) = 0.0;
    }
}

// Every layer's weights and biases from `params` (published by their owners) into the tile layout.
WB_HD inline void loadWeights(const PersistentArgs& a, Shared sm, Lanes lanes) {
    const FusedShape& s = a.plan.shape;
    const FusedTileLayout& t = a.plan.smem.tile;
    float* f = sm.floats(a.plan);
    for (int l = 0; l < s.layerCount; ++l) {
        const int in = s.widths[l], out = s.widths[l + 1];
        const float* src = a.params + s.weightOffset[l];  // (out, in) weight, then (out) bias
        const int weights = out * in;
        for (int u = lanes.first; u < weights + out; u += lanes.stride) {
            const float w = fused::loadCrossBlock(src + u);
            if (u < weights)
                f[t.weight[l] + (u / in) * t.weightLd[l] + u % in] = w;
            else
                f[t.bias[l] + (u - weights)] = w;
        }
    }
}

// Tile `tile` of step `st`: its x rows (rows, inputs) into the x tile and its labels (rows) into
// `labels`, each element through copy(dst, src): a plain copy, or cp.async for a prefetch.
template <typename Copy>
WB_HD void stageRows(const PersistentArgs& a, const Step& st, int tile, Shared sm, Lanes lanes, Copy copy) {
    const PersistentPlan& p = a.plan;
    const int first = tile * p.tileRows;
    const int rows = st.rows - first < p.tileRows ? st.rows - first : p.tileRows;
    const int in = p.shape.widths[0];
    float* xTile = sm.floats(p, p.smem.tile.act[0]);  // (rows, in)
    float* labels = sm.floats(p, p.smem.labels);      // (rows)
    for (int u = lanes.first; u < rows * (in + 1); u += lanes.stride) {
        const int r = u < rows * in ? u / in : u - rows * in;
        const std::int64_t i = st.first + first + r;
        const std::int64_t row = a.rowIndex ? static_cast<std::int64_t>(a.rowIndex[i]) : i;
        if (u < rows * in)
            copy(xTile + u, a.x + row * in + u % in);
        else
            copy(labels + r, a.y + row);
    }
}

// Forward, loss and backward of one staged tile with the fused step's functions; the tile's gradient
// sum goes to its partial row, its loss and correct count to its slots.
template <typename Barrier>
WB_HD void computeTile(const PersistentArgs& a, int tile, int rows, Shared sm, Lanes lanes, Barrier barrier) {
    const PersistentPlan& p = a.plan;
    const FusedStepArgs& v = sm.view();
    float* tileMem = sm.floats(p);
    float* grad = scratchOf(a).partial + static_cast<std::size_t>(tile) * static_cast<std::size_t>(p.gradStride);
    for (int u = p.shape.paramCount + lanes.first; u < p.gradStride; u += lanes.stride) grad[u] = 0.0f;
    for (int l = 0; l < p.shape.layerCount; ++l) {
        fused::forwardLayer(v, l, 0, rows, tileMem, lanes);
        barrier();
    }
    fused::tileTotals(v, fusedScratchOf(a), tile, rows, tileMem, lanes);
    for (int l = p.shape.layerCount - 1; l >= 0; --l) {
        fused::backwardLayer(v, l, rows, tileMem, grad, lanes);
        barrier();
    }
}

// Every tile of step `st` this block runs (tile k runs on block k % grid). The first is already
// staged (by the previous step's prefetch, or at the start); the others are staged here.
template <typename Barrier>
WB_HD void computePhase(const PersistentArgs& a, const Step& st, int block, Shared sm, Lanes lanes, Barrier barrier) {
    const PersistentPlan& p = a.plan;
    for (int tile = block; tile < st.tiles; tile += p.grid) {
        if (tile != block) {
            stageRows(a, st, tile, sm, lanes, [](float* d, const float* s) { *d = *s; });
            barrier();
        }
        const int rows = st.rows - tile * p.tileRows < p.tileRows ? st.rows - tile * p.tileRows : p.tileRows;
        computeTile(a, tile, rows, sm, lanes, barrier);
    }
}

// The loss owner's part of the first half of the reduction: group g's tile losses (double, tile
// order) and correct counts.
WB_HD inline void lossGroup(const PersistentArgs& a, const Step& st, int g, Shared sm) {
    const Scratch s = scratchOf(a);
    const int t0 = g * kFusedGroupBlocks;
    const int t1 = t0 + kFusedGroupBlocks < st.tiles ? t0 + kFusedGroupBlocks : st.tiles;
    double loss = 0.0;
    std::uint32_t right = 0;
    for (int t = t0; t < t1; ++t) {
        loss += fused::loadCrossBlock(s.tileLoss + t);
        right += fused::loadCrossBlock(s.tileCorrect + t);
    }
    sm.at<double>(a.plan.smem.groupLoss)[g] = loss;
    sm.at<std::uint32_t>(a.plan.smem.groupCorrect)[g] = right;
}

// The loss owner's second half: the step's loss and count from the groups in order, into the totals.
WB_HD inline void lossTotals(const PersistentArgs& a, const Step& st, Shared sm) {
    const PersistentSharedLayout& l = a.plan.smem;
    double loss = 0.0;
    unsigned long long right = 0;
    for (int g = 0; g < st.groups; ++g) {
        loss += sm.at<double>(l.groupLoss)[g];
        right += sm.at<std::uint32_t>(l.groupCorrect)[g];
    }
    *sm.at<double>(l.epochLoss) += loss;
    *sm.at<unsigned long long>(l.epochCorrect) += right;
    *sm.at<double>(l.stepLoss) = loss;
    std::uint32_t& nonFinite = *sm.at<std::uint32_t>(l.nonFinite);
    if (!fused::isFinite(loss) && nonFinite == 0) nonFinite = static_cast<std::uint32_t>(st.t);
}

// Owned quad u (local index): its gradient from the group sums in `slot`, in group order, the
// optimizer on its (up to 4) parameters in shared memory, and the new values published to `params`.
WB_HD inline void updateQuad(const PersistentArgs& a, const Step& st, int block, int u, int slot, Shared sm) {
    const PersistentPlan& p = a.plan;
    const float* sums = sm.floats(p, p.smem.groupSums) + static_cast<std::size_t>(slot * p.maxGroups * 4);
    Four grad{{0.0f, 0.0f, 0.0f, 0.0f}};
    for (int g = 0; g < st.groups; ++g)
        for (int c = 0; c < 4; ++c) grad.v[c] += sums[4 * g + c];
    const stepmath::StepScalars scalars = a.stepTable[st.t - 1];
    const int first = 4 * (ownedFirst(p, block) + u);
    float* values = sm.floats(p, p.smem.ownerParams) + 4 * u;
    float* s0 = sm.floats(p, p.smem.ownerState[0]) + 4 * u;
    float* s1 = sm.floats(p, p.smem.ownerState[1]) + 4 * u;
    float* s2 = sm.floats(p, p.smem.ownerState[2]) + 4 * u;
    for (int c = 0; c < 4; ++c) {
        if (first + c >= p.shape.paramCount) break;
        stepmath::updateValues(a.optimizer, scalars, values[c], grad.v[c], s0[c], s1[c], s2[c]);
        a.params[first + c] = values[c];
    }
}

// Group g's partial sum of owned quad u (the fused step's first level: its tiles in order) into `slot`.
WB_HD inline void groupSum(const PersistentArgs& a, const Step& st, int block, int u, int g, int slot, Shared sm) {
    const PersistentPlan& p = a.plan;
    const auto stride = static_cast<std::size_t>(p.gradStride);
    const int t0 = g * kFusedGroupBlocks;
    const int count = t0 + kFusedGroupBlocks < st.tiles ? kFusedGroupBlocks : st.tiles - t0;
    const std::size_t at =
        static_cast<std::size_t>(t0) * stride + 4 * static_cast<std::size_t>(ownedFirst(p, block) + u);
    Four sum{{0.0f, 0.0f, 0.0f, 0.0f}};
    fused::addRows<kFusedGroupBlocks>(sum, scratchOf(a).partial + at, stride, count);
    float* out = sm.floats(p, p.smem.groupSums) + static_cast<std::size_t>((slot * p.maxGroups + g) * 4);
    for (int c = 0; c < 4; ++c) out[c] = sum.v[c];
}

// The owners' half of the step, over the owned quads in batches of plan.quadBatch (the group sums
// of a batch fill the shared groupSums): (1) one lane per (quad, group) sums the group's tiles, and
// the loss owner's lanes the loss groups; (2) one lane per quad sums the groups in order, updates
// and publishes; one lane totals the loss. Every lane runs the same number of batches (barriers).
template <typename Barrier>
WB_HD void reducePhase(const PersistentArgs& a, const Step& st, int block, Shared sm, Lanes lanes, Barrier barrier) {
    const PersistentPlan& p = a.plan;
    const int owned = ownedCount(p, block);
    for (int q0 = 0; q0 == 0 || q0 < owned; q0 += p.quadBatch) {
        const int n = owned - q0 < p.quadBatch ? owned - q0 : p.quadBatch;
        const bool loss = ownsLoss(p, block) && q0 == 0;
        const int quadUnits = n * st.groups;
        for (int u = lanes.first; u < quadUnits + (loss ? st.groups : 0); u += lanes.stride) {
            if (u < quadUnits)
                groupSum(a, st, block, q0 + u / st.groups, u % st.groups, u / st.groups, sm);
            else
                lossGroup(a, st, u - quadUnits, sm);
        }
        barrier();
        for (int u = lanes.first; u < n + (loss ? 1 : 0); u += lanes.stride) {
            if (u < n)
                updateQuad(a, st, block, q0 + u, u, sm);
            else
                lossTotals(a, st, sm);
        }
        barrier();  // before the next batch's group sums overwrite these
    }
}

// Before the next step: every weight reloaded (its owners published it), the step's row count set.
WB_HD inline void refreshPhase(const PersistentArgs& a, const Step& next, Shared sm, Lanes lanes) {
    loadWeights(a, sm, lanes);
    if (lanes.first == 0) sm.view().batchRows = next.rows;
}

// The end of the epoch: the owned optimizer state back to global memory (the parameters were
// published every step); the loss owner writes the epoch's totals, once.
WB_HD inline void finishBlock(const PersistentArgs& a, int block, Shared sm, Lanes lanes) {
    const PersistentPlan& p = a.plan;
    const int first = 4 * ownedFirst(p, block), count = 4 * ownedCount(p, block);
    for (int u = lanes.first; u < count && first + u < p.shape.paramCount; u += lanes.stride)
        for (int k = 0; k < 3; ++k)
            if (float* g = stateBuffer(a, k)) g[first + u] = sm.floats(p, p.smem.ownerState[k])[u];
    if (!ownsLoss(p, block) || lanes.first != 0) return;
    *a.lossSum = *sm.at<double>(p.smem.epochLoss);
    *a.correct = *sm.at<unsigned long long>(p.smem.epochCorrect);
    if (a.stepLoss) *a.stepLoss = *sm.at<double>(p.smem.stepLoss);
    if (a.nonFiniteStep) *a.nonFiniteStep = static_cast<int>(*sm.at<std::uint32_t>(p.smem.nonFinite));
    if (a.stepCount) *a.stepCount = static_cast<int>(a.stepsDone + stepsOf(a));
}

}  // namespace wb::persistent
