#include "launch_strategy.h"

#include <algorithm>

#include "cuda_check.h"
#include "errors.h"

namespace wb {

namespace {
// One row per launch mode: its factory, whether it brings its own products, and what it ignores.
struct LaunchMode {
    Launch launch;
    std::unique_ptr<LaunchStrategy> (*make)(const LaunchContext&);
    bool ownProducts;
    std::vector<IgnoredSwitch> (*ignored)(const ExecutionSettings&);
};

std::vector<IgnoredSwitch> honoursEverySwitch(const ExecutionSettings&) {
    return {};
}

const LaunchMode kModes[] = {
    {Launch::EagerSync, makeEagerLaunch, false, honoursEverySwitch},
    {Launch::Eager, makeEagerLaunch, false, honoursEverySwitch},
    {Launch::GraphStep, makeGraphStepLaunch, false, honoursEverySwitch},
    {Launch::Fused, makeFusedLaunch, true, fusedIgnoredSwitches},
    {Launch::Persistent, makePersistentLaunch, true, persistentIgnoredSwitches},
};

const LaunchMode& modeOf(Launch launch) {
    const auto* m = std::find_if(std::begin(kModes), std::end(kModes),
                                 [&](const LaunchMode& mode) { return mode.launch == launch; });
    if (m == std::end(kModes)) throw ConfigError("the CUDA backend has no strategy for launch=" + toString(launch));
    return *m;
}
}  // namespace

int LaunchContext::rowsOf(int step) const {
    const auto batch = static_cast<std::size_t>(problem->batchSize);
    const std::size_t first = static_cast<std::size_t>(step) * batch;
    return static_cast<int>(std::min(batch, rows - first));
}

int LaunchContext::zeroings() const {
    const ZeroGrad z = problem->execution.zeroGrad;
    return z == ZeroGrad::Twice ? 2 : z == ZeroGrad::Once ? 1 : 0;
}

void LaunchContext::queueCounterCopy() const {
    WB_CUDA_CHECK(
        cudaMemcpyAsync(hostCounters, mlp->counters(), sizeof(DeviceCounters), cudaMemcpyDeviceToHost, stream));
}

std::unique_ptr<LaunchStrategy> makeLaunchStrategy(const LaunchContext& ctx) {
    return modeOf(ctx.problem->execution.launch).make(ctx);
}

bool launchHasOwnProducts(Launch launch) {
    return modeOf(launch).ownProducts;
}

std::vector<IgnoredSwitch> launchIgnoredSwitches(const ExecutionSettings& s) {
    return modeOf(s.launch).ignored(s);
}

}  // namespace wb
