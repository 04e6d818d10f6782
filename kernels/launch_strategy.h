// How the CUDA backend queues one epoch, one small strategy per `launch` mode, chosen once at setup.
// The backend keeps what every mode shares (the device MLP, the batch source, the stream, the epoch's
// events and the one read of the device's sums per epoch); a strategy owns what only its mode needs
// (per-step events, captured graphs, the fused plan and scratch) and says which phases it can time.
//   eager_sync, eager  eager_launch.cpp      one launch per op; eager_sync also reads each step's loss
//   graph_step         graph_step_launch.cpp one CUDA graph per step (per batch address, size and role)
//   fused              fused_launch.cpp      one fused kernel per step; on resident data one graph per epoch
//   persistent         persistent_launch.cpp one cooperative kernel per epoch (the Fastest preset's)
// A new mode is one more file with a make*Launch factory and one row in launch_strategy.cpp's table.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/run/backend.h"
#include "kernels/batch_source.h"
#include "kernels/device_mlp.h"

namespace wb {

// What the backend shares with its strategy; everything outlives the strategy.
struct LaunchContext {
    int device = 0;  // the CUDA device index (a mode that sizes its grid by the device asks it)
    const TrainingProblem* problem = nullptr;
    DeviceMlp* mlp = nullptr;
    BatchSource* source = nullptr;
    cudaStream_t stream = nullptr;
    DeviceCounters* hostCounters = nullptr;  // (1) pinned: where the epoch's sums land for the host
    std::size_t rows = 0;                    // training rows
    int steps = 0;                           // steps per epoch, the last one partial when rows % batch != 0

    // Rows of step `step` (the batch, or what is left for the last step).
    int rowsOf(int step) const;
    // How many times zero_grad runs per step (zero_grad: twice 2, once 1, none 0).
    int zeroings() const;
    // Queues the copy of the device's counters into hostCounters (capturable: the target is pinned).
    void queueCounterCopy() const;
};

// What a strategy queued for one epoch.
struct EpochRun {
    int stepsRun = 0;                  // fewer than steps when cancelled or stopped
    std::optional<int> hostNonFinite;  // eager_sync: the 1-based step whose loss the host saw was not finite
    bool countersQueued = false;       // the counter copy is already queued (inside a graph)
};

class LaunchStrategy {
public:
    virtual ~LaunchStrategy() = default;
    LaunchStrategy() = default;
    LaunchStrategy(const LaunchStrategy&) = delete;
    LaunchStrategy& operator=(const LaunchStrategy&) = delete;

    // Queues one epoch over the training rows in `order` (null: file order) on the context's stream:
    // the reset of the epoch's sums (DeviceMlp::beginEpoch), then every step, checking `cancel`
    // between steps. Does not wait for the device, except where the mode itself does (eager_sync).
    virtual EpochRun runEpoch(const std::vector<std::uint32_t>* order, const CancelFlag& cancel) = 0;
    // The phases of the epoch just run (its events complete), or null where the mode fuses them.
    virtual std::optional<PhaseTimes> phases(int /*stepsRun*/, double /*deviceMs*/) const { return std::nullopt; }
    // Called once per epoch, after its counters were read: the 1-based step of this epoch whose loss
    // was first not finite, 0 if none. The device marks epoch steps; the fused kernel marks its
    // optimizer step t, so its strategy counts the steps of earlier epochs.
    virtual int nonFiniteStepOf(const DeviceCounters& c) { return c.nonFiniteStep; }
};

// The strategy of `ctx.problem->execution.launch`.
std::unique_ptr<LaunchStrategy> makeLaunchStrategy(const LaunchContext& ctx);
// Whether the mode brings its own products, so the DeviceMlp only evaluates (in cuBLAS fp32).
bool launchHasOwnProducts(Launch launch);
// The switches the mode of `s.launch` ignores, with the reasons (needs no device).
std::vector<IgnoredSwitch> launchIgnoredSwitches(const ExecutionSettings& s);

// The modes, each in its own file.
std::unique_ptr<LaunchStrategy> makeEagerLaunch(const LaunchContext& ctx);
std::unique_ptr<LaunchStrategy> makeGraphStepLaunch(const LaunchContext& ctx);
std::unique_ptr<LaunchStrategy> makeFusedLaunch(const LaunchContext& ctx);
std::unique_ptr<LaunchStrategy> makePersistentLaunch(const LaunchContext& ctx);

}  // namespace wb
