// The fused step's host side shared with the launcher (plans, limits, argument checks) and its CPU
// twin: the same per-tile functions as fused_step.cu's kernel (fused_step.h), run block after
// block with one lane, then the same two-level reduction in the same order.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/platform/errors.h"
#include "kernels/fused_step.h"

namespace wb {

namespace {
constexpr std::size_t kScratchAlign = 256;

std::size_t alignUp(std::size_t n) {
    return (n + kScratchAlign - 1) / kScratchAlign * kScratchAlign;
}

std::size_t bytesOf(const FusedTileLayout& t) {
    return static_cast<std::size_t>(t.floats) * sizeof(float);
}

FusedScratchLayout scratchLayout(const FusedShape& s, int tileRows, int batchCapacity) {
    FusedScratchLayout c;
    c.maxBlocks = (batchCapacity + tileRows - 1) / tileRows;
    c.maxGroups = fused::groupsFor(c.maxBlocks);
    const auto blocks = static_cast<std::size_t>(c.maxBlocks), groups = static_cast<std::size_t>(c.maxGroups);
    c.gradStride = (s.paramCount + 3) / 4 * 4;
    const auto stride = static_cast<std::size_t>(c.gradStride);
    std::size_t at = 0;
    c.counters = at;
    at = alignUp(at + (1 + groups) * sizeof(std::uint32_t));
    c.blockGrad = at;
    at = alignUp(at + blocks * stride * sizeof(float));
    c.groupGrad = at;
    at = alignUp(at + groups * stride * sizeof(float));
    c.blockLoss = at;
    at = alignUp(at + blocks * sizeof(double));
    c.groupLoss = at;
    at = alignUp(at + groups * sizeof(double));
    c.blockCorrect = at;
    at = alignUp(at + blocks * sizeof(std::uint32_t));
    c.groupCorrect = at;
    at = alignUp(at + groups * sizeof(std::uint32_t));
    c.bytes = at;
    return c;
}

// The largest tile (a power of two, at most `most` rows) whose weights and activations fit the
// budget; 0 if none.
int tileRowsFor(const FusedShape& s, int most = kFusedPreferredTileRows) {
    int rows = 1;
    while (rows * 2 <= most) rows *= 2;
    for (; rows >= 1; rows /= 2)
        if (bytesOf(fusedTileLayout(s, rows)) <= kFusedSharedBudget) return rows;
    return 0;
}

void requireNonNull(const void* p, const char* what) {
    if (!p) throw ConfigError(std::string("fused step: the ") + what + " buffer is missing");
}
}  // namespace

FusedShape fusedShapeOf(const ModelSpec& model, std::size_t inputs, LossKind loss) {
    const std::vector<int> widths = model.widths(inputs);
    FusedShape s;
    s.layerCount = static_cast<int>(widths.size()) - 1;
    s.activation = model.activation;
    s.loss = loss;
    int offset = 0;
    for (int l = 0; l < s.layerCount; ++l) {
        s.widths[l] = widths[static_cast<std::size_t>(l)];
        s.weightOffset[l] = offset;
        offset += widths[static_cast<std::size_t>(l)] * widths[static_cast<std::size_t>(l) + 1] +
                  widths[static_cast<std::size_t>(l) + 1];
    }
    s.widths[s.layerCount] = widths.back();
    s.paramCount = offset;
    return s;
}

FusedTileLayout fusedTileLayout(const FusedShape& s, int rows) {
    FusedTileLayout t;
    t.tileRows = rows;
    int at = 0;
    for (int l = 0; l < s.layerCount; ++l) {
        const int in = s.widths[l], out = s.widths[l + 1];
        t.weightLd[l] = in | 1;  // an odd stride: the 32 lanes reading W[j][k] for consecutive j hit 32 banks
        t.weight[l] = at;
        at += out * t.weightLd[l];
        t.bias[l] = at;
        at += out;
    }
    t.act[0] = at;
    at += rows * s.widths[0];
    for (int l = 0; l < s.layerCount; ++l) {
        t.pre[l] = at;
        at += rows * s.widths[l + 1];
        if (l + 1 < s.layerCount) {
            t.act[l + 1] = at;
            at += rows * s.widths[l + 1];
        }
    }
    t.rowLoss = at;
    at += rows;
    t.rowCorrect = at;
    at += rows;
    t.floats = at;
    return t;
}

std::optional<std::string> fusedSupports(const ModelSpec& model, std::size_t inputs) {
    model.validate();
    if (inputs == 0) return "the fused path needs at least one input feature";
    if (model.hidden.size() + 1 > static_cast<std::size_t>(kFusedMaxLayers))
        return "the fused path supports at most " + std::to_string(kFusedMaxLayers - 1) +
               " hidden layers; this model has " + std::to_string(model.hidden.size());
    // Bound the widths before multiplying them in int (the shared-memory test below is the real limit).
    if (inputs > kFusedSharedBudget / sizeof(float))
        return "the fused path keeps each layer's weights in shared memory; " + std::to_string(inputs) +
               " input features are too many";
    const FusedShape s = fusedShapeOf(model, inputs, LossKind::BceWithLogits);
    if (tileRowsFor(s) == 0) {
        const std::size_t need = bytesOf(fusedTileLayout(s, 1));
        return "the fused path keeps all " + std::to_string(s.paramCount) +
               " parameters and one tile of activations in " + std::to_string(kFusedSharedBudget / 1024) +
               " KiB of shared memory per block; this model needs " + std::to_string((need + 1023) / 1024) +
               " KiB even with one row per tile";
    }
    return std::nullopt;
}

FusedPlan makeFusedPlan(const ModelSpec& model, std::size_t inputs, LossKind loss, int batchCapacity, int tileRows) {
    if (const auto why = fusedSupports(model, inputs)) throw ConfigError(*why);
    if (batchCapacity < 1) throw ConfigError("fused step: the batch capacity must be at least 1");
    if (tileRows < 0 || tileRows > 64) throw ConfigError("fused step: tile rows must be between 1 and 64 (0: default)");
    FusedPlan plan;
    plan.shape = fusedShapeOf(model, inputs, loss);
    plan.tile =
        fusedTileLayout(plan.shape, tileRowsFor(plan.shape, tileRows == 0 ? kFusedPreferredTileRows : tileRows));
    plan.scratch = scratchLayout(plan.shape, plan.tile.tileRows, batchCapacity);
    plan.batchCapacity = batchCapacity;
    return plan;
}

std::size_t fusedScratchBytes(const FusedPlan& plan) {
    return plan.scratch.bytes;
}

std::size_t fusedSharedBytes(const FusedPlan& plan) {
    return bytesOf(plan.tile);
}

void checkFusedArgs(const FusedStepArgs& a) {
    if (a.batchRows < 1 || a.batchRows > a.plan.batchCapacity)
        throw ConfigError("fused step: a batch of " + std::to_string(a.batchRows) + " rows is outside 1.." +
                          std::to_string(a.plan.batchCapacity));
    if (a.firstRow < 0) throw ConfigError("fused step: the first row must not be negative");
    requireNonNull(a.params, "parameter");
    requireNonNull(a.stepCount, "step counter");
    requireNonNull(a.x, "feature");
    requireNonNull(a.y, "label");
    requireNonNull(a.lossSum, "loss sum");
    requireNonNull(a.correct, "correct count");
    requireNonNull(a.scratch, "scratch");
    const stepmath::OptimizerScalars& o = a.optimizer;
    const bool adam = o.kind == OptimizerKind::Adam || o.kind == OptimizerKind::AdamW;
    if (adam || o.kind == OptimizerKind::RmsProp || (o.kind == OptimizerKind::Sgd && o.momentum != 0.0f))
        requireNonNull(a.state0, "first optimizer state");
    if (adam || (o.kind == OptimizerKind::RmsProp && o.centered)) requireNonNull(a.state1, "second optimizer state");
    if (o.kind == OptimizerKind::RmsProp && o.momentum > 0.0f) requireNonNull(a.state2, "third optimizer state");
}

void fusedStepTwin(const FusedStepArgs& a) {
    fusedStepOnHost(a, [](auto&& body) { body(fused::Lanes{}, [] {}); });
}

void fusedEpochTwin(const FusedStepArgs& args, std::int64_t rows, int batch) {
    if (batch < 1) throw ConfigError("fused epoch: the batch must have at least one row");
    FusedStepArgs a = args;
    for (std::int64_t start = 0; start < rows; start += batch) {
        a.firstRow = args.firstRow + start;
        a.batchRows = static_cast<int>(std::min<std::int64_t>(batch, rows - start));
        fusedStepTwin(a);
    }
}

}  // namespace wb
