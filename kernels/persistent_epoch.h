// launch=persistent: ONE cooperative kernel runs every step of an epoch (issue 18, item 2).
// Checked on its CPU twin (tests/tst_persistent_twin.cpp) and on an H200 (mlpwb verify, compute-sanitizer,
// bit-identical repeats; bench/RESULTS.md): the Fastest preset's launch.
//
// How the CudaBackend's persistent strategy (persistent_launch.cpp) calls it:
//   setup (once per run):
//     dev    = queryPersistentDevice(deviceIndex);                    // SMs, occupancy, shared memory
//     if (auto why = persistentRefusal(model, inputs, opt, precision, batch, dev)) refuse(*why);
//     plan   = makePersistentPlan(model, inputs, loss, batch, dev);
//     table  = persistentStepTable(optimizerScalars(opt), 0, epochs * stepsPerEpoch);   // upload once
//     scratch: cudaMalloc(persistentScratchBytes(plan)) and cudaMemset it to 0 (the flags must start
//     at 0 whenever stepsDone restarts at 0); params, state0/1 (m, v), x, y, rowIndex as the fused
//     path holds them; lossSum (double), correct (u64), nonFiniteStep (int), stepLoss (double),
//     stepCount (int) device scalars.
//   each epoch: ONE call, launchPersistentEpoch(args, stream), with args.rows = the epoch's rows,
//     args.rowIndex = this epoch's shuffled order (or null), args.stepsDone = the steps of the
//     earlier epochs (the host counts them: every epoch has ceil(rows / batch) steps). It returns at
//     once (asynchronous); the epoch has then updated params and the optimizer state in place and
//     added its summed loss to *lossSum and its right predictions to *correct, set *stepLoss to its
//     last step's summed loss, *stepCount to stepsDone + steps, and *nonFiniteStep to the first
//     step t whose loss was not finite (if it was 0). Phases are not separable: report the total.
//
// The kernel (persistent_epoch.cu; the arithmetic is persistent_body.h, shared with the CPU twin):
//   * Grid: one block of kPersistentThreads per SM (smCount x min(occupancy, kPersistentBlocksPerSm)),
//     all co-resident (cudaLaunchCooperativeKernel). A step's batch is cut into tiles of
//     ceil(batch / grid) rows (fewer when the shared memory cannot hold them); tile k runs on block
//     k % grid, so for the seed on an H200 every block has one tile of 16 rows per step.
//   * Per step, per block: forward and backward of its tiles with the fused step's own functions
//     (fused_step.h), the weights in shared memory; each tile's gradient sum (row order) goes to a
//     (maxTiles, gradStride) partial buffer in global memory.
//   * Reduce-scatter: the parameters are cut into quads of 4; block b owns quads
//     [b * ownerQuads, (b + 1) * ownerQuads) and keeps their values and optimizer state in shared
//     memory for the whole epoch. After a grid barrier, each owner sums its quads' tile partials in
//     the fused step's order (groups of kFusedGroupBlocks tiles, then the groups in order), applies
//     the optimizer (bias corrections from the host's table), and publishes the new values to
//     `params`. After a second grid barrier every block reloads all weights (one L2 round trip).
//   * Grid barrier: one flag per block in global memory, monotonic: a block's lane 0 stores the
//     generation 2t-1 (partials of step t written) or 2t (its quads of step t published) with a
//     release store after __syncthreads; the waiting block polls every flag with acquire loads
//     (lane i polls flag i), then __syncthreads. No __threadfence in every thread, no atomics.
//   * While a block waits for the partials, the next step's x and y rows of its first tile are
//     copied into shared memory asynchronously (cp.async), so the next forward pass starts at once.
//   * Loss and correct counts: the last block sums the tiles' (double) losses per step and keeps
//     the epoch's totals in shared memory; they are written once, at the end of the epoch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model/execution_settings.h"
#include "core/model/model.h"
#include "core/model/optimizer.h"
#include "core/model/step_math.h"
#include "kernels/fused_step.h"

namespace wb {

constexpr int kPersistentThreads = 512;                 // threads per block (256: 0.90 ms/epoch, not 0.76, on an H200)
constexpr int kPersistentMaxLayers = kFusedMaxLayers;   // linear layers, output included
constexpr int kPersistentBlocksPerSm = 1;               // more blocks per SM: more flags to poll, smaller tiles
constexpr int kPersistentMaxGrid = kPersistentThreads;  // one polling lane per flag
constexpr int kPersistentMaxTileRows = 256;             // the largest tile; more rows per block loop over tiles

// What the plan needs to know about the device (queryPersistentDevice fills it on a GPU; the tests
// make one up).
struct PersistentDevice {
    int smCount = 0;
    int blocksPerSm = 0;                  // occupancy of the kernel at sharedBytesPerBlock (0: cannot run)
    std::size_t sharedBytesPerBlock = 0;  // the opt-in maximum of dynamic shared memory per block
    bool cooperativeLaunch = false;       // cudaDevAttrCooperativeLaunch
};

// A block's dynamic shared memory, in bytes from its start (16-aligned regions):
//   [0, view)            a FusedStepArgs: the fused step's functions read shapes and layout from it
//   doubles              groupLoss (maxGroups), epochLoss, stepLoss      (loss owner only)
//   u64/u32              epochCorrect (u64), nonFinite (u32), groupCorrect (maxGroups u32)
//   floats (from floatBase; offsets in floats):
//     tile               a FusedTileLayout of tileRows rows (weights, x tile, z/f(z), row loss)
//     labels             (tileRows) the tile's y
//     ownerParams        (ownerQuads * 4) the owned parameters
//     ownerState[3]      (ownerQuads * 4) each: the owned optimizer state (stateCount of them used)
//     groupSums          (quadBatch, maxGroups, 4) group partial sums of a batch of owned quads
struct PersistentSharedLayout {
    std::size_t view = 0;
    std::size_t groupLoss = 0, epochLoss = 0, stepLoss = 0;
    std::size_t epochCorrect = 0, nonFinite = 0, groupCorrect = 0;
    std::size_t floatBase = 0;
    FusedTileLayout tile;
    int labels = 0, ownerParams = 0, ownerState[3] = {}, groupSums = 0;
    std::size_t bytes = 0;
};

// The global scratch buffer, byte offsets (256-aligned regions).
struct PersistentScratchLayout {
    std::size_t partial = 0;      // (maxTiles, gradStride) float: each tile's gradient sum
    std::size_t tileLoss = 0;     // (maxTiles) double
    std::size_t tileCorrect = 0;  // (maxTiles) u32
    std::size_t flags = 0;        // (grid) u32: each block's barrier generation; zero at setup
    std::size_t bytes = 0;
};

struct PersistentPlan {
    FusedShape shape;
    int batch = 0;       // rows per step (the last step of an epoch may have fewer)
    int grid = 0;        // blocks
    int tileRows = 0;    // rows per tile
    int maxTiles = 0;    // tiles of a full step
    int maxGroups = 0;   // groups of kFusedGroupBlocks tiles of a full step
    int gradStride = 0;  // paramCount rounded up to a multiple of 4
    int quads = 0;       // gradStride / 4
    int ownerQuads = 0;  // quads per owning block
    int quadBatch = 0;   // owned quads reduced at once (their group sums fill the shared groupSums)
    int stateCount = 0;  // optimizer state buffers in use (stepmath::optimizerStateCount)
    PersistentSharedLayout smem;
    PersistentScratchLayout scratch;
};

// Why the persistent path cannot train this configuration, in a sentence; nullopt when it can.
std::optional<std::string> persistentRefusal(const ModelSpec& model, std::size_t inputs, const OptimizerSpec& opt,
                                             Precision precision, int batch, const PersistentDevice& dev);
// The plan; throws ConfigError with persistentRefusal's sentence. `maxTileRows` (0: no cap) caps the
// tile height below what the SM count asks for (tests and tuning).
PersistentPlan makePersistentPlan(const ModelSpec& model, std::size_t inputs, LossKind loss, const OptimizerSpec& opt,
                                  int batch, const PersistentDevice& dev, int maxTileRows = 0);
// Steps t = firstStep + 1 .. firstStep + count: entry i holds step (firstStep + 1 + i)'s scalars.
std::vector<stepmath::StepScalars> persistentStepTable(const stepmath::OptimizerScalars& opt, std::int64_t firstStep,
                                                       std::int64_t count);
// Steps of an epoch of `rows` rows.
std::int64_t persistentSteps(const PersistentPlan& plan, std::int64_t rows);

// One epoch. Device pointers for launchPersistentEpoch, host pointers for the twin.
struct PersistentArgs {
    PersistentPlan plan;
    stepmath::OptimizerScalars optimizer;
    float* params = nullptr;  // (paramCount) MlpParams' layout; also where owners publish each step
    float* state0 = nullptr;  // (paramCount) each, stepmath::optimizerStateCount's order; null if unused
    float* state1 = nullptr;
    float* state2 = nullptr;
    const stepmath::StepScalars* stepTable = nullptr;  // (tableLength) entry t-1: step t's scalars
    std::int64_t tableLength = 0;
    std::int64_t stepsDone = 0;               // steps of earlier epochs; this epoch's first is stepsDone + 1
    const float* x = nullptr;                 // (dataRows, inputs) row-major
    const float* y = nullptr;                 // (dataRows) labels in {0, 1}
    const std::uint32_t* rowIndex = nullptr;  // optional (dataRows): row i of the epoch is rowIndex[firstRow + i]
    std::int64_t firstRow = 0;
    std::int64_t rows = 0;                  // rows of this epoch (>= 1)
    double* lossSum = nullptr;              // (1) += the epoch's summed per-sample loss
    unsigned long long* correct = nullptr;  // (1) += the epoch's right predictions
    int* nonFiniteStep = nullptr;           // optional (1): first step t with a non-finite loss, if 0
    double* stepLoss = nullptr;             // optional (1): the last step's summed loss
    int* stepCount = nullptr;               // optional (1): set to stepsDone + steps
    void* scratch = nullptr;                // (plan.scratch.bytes), zeroed at setup
};

// Throws ConfigError when `args` do not fit the plan (no rows, missing buffers, a short table).
void checkPersistentArgs(const PersistentArgs& args);

// The fused step's argument block each block keeps in shared memory: shapes and tile layout of the
// plan, the optimizer; the per-step fields (batchRows, y) are set by the block.
FusedStepArgs persistentFusedView(const PersistentArgs& args);

// Host side of a device: SM count, opt-in shared memory, cooperative launch, and the kernel's
// occupancy at that shared memory. Throws DeviceError. Defined in persistent_epoch.cu.
PersistentDevice queryPersistentDevice(int device);
// One epoch on `stream` (a cudaStream_t; null for the default stream): one cooperative launch.
// Asynchronous; throws DeviceError when the launch fails, ConfigError for bad args.
void launchPersistentEpoch(const PersistentArgs& args, void* stream);

}  // namespace wb
