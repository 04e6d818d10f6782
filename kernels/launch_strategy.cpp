#include "kernels/launch_strategy.h"

#include <algorithm>
#include <string>

#include "core/platform/errors.h"
#include "kernels/cuda_check.h"

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

// What a mode whose one kernel runs the whole step (fused) or epoch (persistent) ignores: `what` is
// that kernel in words, `path` the mode's name. The validation note is named "validation", not
// "launch": the launch switch itself is honoured; what runs differently is the validation pass,
// which is no switch.
std::vector<IgnoredSwitch> oneKernelIgnores(const ExecutionSettings& s, const std::string& what,
                                            const std::string& path) {
    std::vector<IgnoredSwitch> out;
    if (s.zeroGrad != ZeroGrad::None)
        out.push_back({"zero_grad", what + " writes its gradients into its own scratch, there is nothing to zero"});
    out.push_back({"optimizer_kernel", what + " applies the optimizer inside its one kernel"});
    out.push_back({"validation", "the " + path + " path has no evaluation kernel; validation runs cuBLAS fp32"});
    return out;
}
std::vector<IgnoredSwitch> fusedIgnores(const ExecutionSettings& s) {
    return oneKernelIgnores(s, "the fused step", "fused");
}
std::vector<IgnoredSwitch> persistentIgnores(const ExecutionSettings& s) {
    return oneKernelIgnores(s, "the persistent epoch", "persistent");
}

const LaunchMode kModes[] = {
    {Launch::EagerSync, makeEagerLaunch, false, honoursEverySwitch},
    {Launch::Eager, makeEagerLaunch, false, honoursEverySwitch},
    {Launch::GraphStep, makeGraphStepLaunch, false, honoursEverySwitch},
    {Launch::Fused, makeFusedLaunch, true, fusedIgnores},
    {Launch::Persistent, makePersistentLaunch, true, persistentIgnores},
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
