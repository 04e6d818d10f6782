// The persistent epoch's host side shared by the launcher and the CPU twin: what is refused and
// why, the plan (grid, tile height, ownership, shared-memory and scratch layouts), the Adam bias
// correction table and the argument checks.
#include <algorithm>
#include <string>
#include <vector>

#include "core/platform/errors.h"
#include "kernels/persistent_epoch.h"

namespace wb {

namespace {
constexpr std::size_t kScratchAlign = 256;
constexpr std::size_t kSharedAlign = 16;

std::size_t alignUp(std::size_t n, std::size_t to) {
    return (n + to - 1) / to * to;
}

PersistentSharedLayout sharedLayout(const FusedShape& s, int rows, int ownerQuads, int quadBatch, int maxGroups) {
    PersistentSharedLayout m;
    std::size_t at = alignUp(sizeof(FusedStepArgs), kSharedAlign);
    const auto groups = static_cast<std::size_t>(maxGroups);
    m.groupLoss = at;
    at += groups * sizeof(double);
    m.epochLoss = at;
    at += sizeof(double);
    m.stepLoss = at;
    at += sizeof(double);
    m.epochCorrect = at;
    at += sizeof(unsigned long long);
    m.nonFinite = at;
    at += sizeof(std::uint32_t);
    m.groupCorrect = at;
    at += groups * sizeof(std::uint32_t);
    m.floatBase = alignUp(at, kSharedAlign);
    m.tile = fusedTileLayout(s, rows);
    int f = m.tile.floats;
    m.labels = f;
    f += rows;
    m.ownerParams = f;
    f += 4 * ownerQuads;
    for (int& k : m.ownerState) {
        k = f;
        f += 4 * ownerQuads;
    }
    m.groupSums = f;
    f += 4 * quadBatch * maxGroups;
    m.bytes = alignUp(m.floatBase + static_cast<std::size_t>(f) * sizeof(float), kSharedAlign);
    return m;
}

PersistentScratchLayout scratchLayout(int maxTiles, int gradStride, int grid) {
    PersistentScratchLayout c;
    const auto tiles = static_cast<std::size_t>(maxTiles);
    std::size_t at = 0;
    c.partial = at;
    at = alignUp(at + tiles * static_cast<std::size_t>(gradStride) * sizeof(float), kScratchAlign);
    c.tileLoss = at;
    at = alignUp(at + tiles * sizeof(double), kScratchAlign);
    c.tileCorrect = at;
    at = alignUp(at + tiles * sizeof(std::uint32_t), kScratchAlign);
    c.flags = at;
    at = alignUp(at + static_cast<std::size_t>(grid) * sizeof(std::uint32_t), kScratchAlign);
    c.bytes = at;
    return c;
}

int gridFor(const PersistentDevice& dev) {
    return std::min({dev.smCount * std::min(dev.blocksPerSm, kPersistentBlocksPerSm), kPersistentMaxGrid});
}

// The plan for a tile height of `rows`, without checking that it fits.
PersistentPlan planFor(const FusedShape& shape, int batch, int grid, int rows, int stateCount) {
    PersistentPlan p;
    p.shape = shape;
    p.batch = batch;
    p.grid = grid;
    p.tileRows = rows;
    p.maxTiles = (batch + rows - 1) / rows;
    p.maxGroups = fused::groupsFor(p.maxTiles);
    p.gradStride = (shape.paramCount + 3) / 4 * 4;
    p.quads = p.gradStride / 4;
    p.ownerQuads = (p.quads + grid - 1) / grid;
    // One lane per (quad, group) of a batch: more quads at once would only queue on the same lanes.
    p.quadBatch = std::max(1, std::min(p.ownerQuads, kPersistentThreads / p.maxGroups));
    p.stateCount = stateCount;
    p.smem = sharedLayout(shape, rows, p.ownerQuads, p.quadBatch, p.maxGroups);
    p.scratch = scratchLayout(p.maxTiles, p.gradStride, grid);
    return p;
}

// The tallest tile (at most `most` rows) whose plan fits the shared memory; 0 if none.
int tileRowsFor(const FusedShape& shape, int batch, int grid, int most, std::size_t sharedBytes) {
    for (int rows = most; rows >= 1; --rows)
        if (planFor(shape, batch, grid, rows, 0).smem.bytes <= sharedBytes) return rows;
    return 0;
}

int wantedTileRows(int batch, int grid, int maxTileRows) {
    int rows = std::min((batch + grid - 1) / grid, kPersistentMaxTileRows);
    if (maxTileRows > 0) rows = std::min(rows, maxTileRows);
    return rows;
}

std::string kib(std::size_t bytes) {
    return std::to_string((bytes + 1023) / 1024) + " KiB";
}

void requireNonNull(const void* p, const char* what) {
    if (!p) throw ConfigError(std::string("persistent epoch: the ") + what + " buffer is missing");
}
}  // namespace

std::optional<std::string> persistentRefusal(const ModelSpec& model, std::size_t inputs, const OptimizerSpec& opt,
                                             Precision precision, int batch, const PersistentDevice& dev) {
    (void)opt;  // every optimizer's element update runs on the owners (stepmath::updateValues)
    model.validate();
    if (precision != Precision::Fp32)
        return "launch=persistent computes in fp32 only (its tiles run on CUDA cores, where " + toString(precision) +
               " would add conversions and no speed at these widths); choose precision=fp32";
    if (inputs == 0) return "launch=persistent needs at least one input feature";
    if (batch < 1) return "launch=persistent needs a batch of at least one row";
    if (model.hidden.size() + 1 > static_cast<std::size_t>(kPersistentMaxLayers))
        return "launch=persistent supports at most " + std::to_string(kPersistentMaxLayers - 1) +
               " hidden layers; this model has " + std::to_string(model.hidden.size());
    if (!dev.cooperativeLaunch) return "launch=persistent needs a device that supports cooperative launches";
    if (dev.smCount < 1 || dev.blocksPerSm < 1)
        return "launch=persistent cannot keep one block of " + std::to_string(kPersistentThreads) +
               " threads resident on each multiprocessor of this device";
    if (inputs > dev.sharedBytesPerBlock / sizeof(float))
        return "launch=persistent keeps every weight in shared memory; " + std::to_string(inputs) +
               " input features are too many";
    const FusedShape shape = fusedShapeOf(model, inputs, LossKind::BceWithLogits);
    const int grid = gridFor(dev);
    if (tileRowsFor(shape, batch, grid, 1, dev.sharedBytesPerBlock) == 0) {
        const std::size_t need = planFor(shape, batch, grid, 1, 0).smem.bytes;
        return "launch=persistent keeps all " + std::to_string(shape.paramCount) +
               " parameters, one tile of activations and each block's share of the optimizer state in shared "
               "memory; this model needs " +
               kib(need) + " per block even with one row per tile, the device has " + kib(dev.sharedBytesPerBlock);
    }
    return std::nullopt;
}

PersistentPlan makePersistentPlan(const ModelSpec& model, std::size_t inputs, LossKind loss, const OptimizerSpec& opt,
                                  int batch, const PersistentDevice& dev, int maxTileRows) {
    if (const auto why = persistentRefusal(model, inputs, opt, Precision::Fp32, batch, dev)) throw ConfigError(*why);
    if (maxTileRows < 0) throw ConfigError("persistent epoch: the tile cap must not be negative (0: none)");
    const FusedShape shape = fusedShapeOf(model, inputs, loss);
    const int grid = gridFor(dev);
    const int rows = tileRowsFor(shape, batch, grid, wantedTileRows(batch, grid, maxTileRows), dev.sharedBytesPerBlock);
    const int states = stepmath::optimizerStateCount(stepmath::optimizerScalars(opt));
    return planFor(shape, batch, grid, rows, states);
}

std::vector<stepmath::StepScalars> persistentStepTable(const stepmath::OptimizerScalars& opt, std::int64_t firstStep,
                                                       std::int64_t count) {
    if (firstStep < 0 || count < 0) throw ConfigError("persistent epoch: a step table needs a range of steps");
    std::vector<stepmath::StepScalars> table(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i)
        table[static_cast<std::size_t>(i)] = stepmath::stepScalars(opt, static_cast<long>(firstStep + 1 + i));
    return table;
}

std::int64_t persistentSteps(const PersistentPlan& plan, std::int64_t rows) {
    return (rows + plan.batch - 1) / plan.batch;
}

void checkPersistentArgs(const PersistentArgs& a) {
    if (a.plan.grid < 1 || a.plan.tileRows < 1 || a.plan.batch < 1)
        throw ConfigError("persistent epoch: the plan is empty (use makePersistentPlan)");
    if (a.rows < 1) throw ConfigError("persistent epoch: an epoch needs at least one row");
    if (a.firstRow < 0 || a.stepsDone < 0) throw ConfigError("persistent epoch: negative first row or step count");
    const std::int64_t last = a.stepsDone + persistentSteps(a.plan, a.rows);
    if (last > a.tableLength)
        throw ConfigError("persistent epoch: the step table holds " + std::to_string(a.tableLength) +
                          " steps; this epoch ends at step " + std::to_string(last));
    if (2 * last > 0xffffffffLL) throw ConfigError("persistent epoch: too many steps for the barrier generations");
    requireNonNull(a.params, "parameter");
    requireNonNull(a.stepTable, "step table");
    requireNonNull(a.x, "feature");
    requireNonNull(a.y, "label");
    requireNonNull(a.lossSum, "loss sum");
    requireNonNull(a.correct, "correct count");
    requireNonNull(a.scratch, "scratch");
    const char* names[3] = {"first optimizer state", "second optimizer state", "third optimizer state"};
    const float* states[3] = {a.state0, a.state1, a.state2};
    const stepmath::OptimizerScalars& o = a.optimizer;
    const bool rmsprop = o.kind == OptimizerKind::RmsProp;
    const bool adam = o.kind == OptimizerKind::Adam || o.kind == OptimizerKind::AdamW;
    // As checkFusedArgs: m and v (Adam), the momentum buffer (SGD), the square average (RMSprop),
    // then RMSprop's gradient average (centred) and momentum buffer.
    const bool used[3] = {adam || rmsprop || (o.kind == OptimizerKind::Sgd && o.momentum != 0.0f),
                          adam || (rmsprop && o.centered), rmsprop && o.momentum > 0.0f};
    for (int k = 0; k < 3; ++k)
        if (used[k]) requireNonNull(states[k], names[k]);
}

FusedStepArgs persistentFusedView(const PersistentArgs& a) {
    FusedStepArgs v;
    v.plan.shape = a.plan.shape;
    v.plan.tile = a.plan.smem.tile;
    v.plan.batchCapacity = a.plan.batch;
    v.optimizer = a.optimizer;
    v.firstRow = 0;  // the block's labels are tile-local: label r is y[r]
    v.batchRows = a.plan.batch;
    return v;
}

}  // namespace wb
