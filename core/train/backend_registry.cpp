#include "core/run/backend.h"

#include "core/cpu/cpu_backend.h"
#include "core/platform/errors.h"

namespace wb {

namespace {
std::unique_ptr<Backend> cpuFactory(int /*device*/) {
    return makeCpuBackend();
}
}  // namespace

BackendRegistry::BackendRegistry() {
    add("cpu", probeCpuBackend, cpuFactory, cpuIgnoredSwitches);
}

BackendRegistry& BackendRegistry::instance() {
    static BackendRegistry registry;
    return registry;
}

void BackendRegistry::add(std::string name, Probe probe, Factory factory, IgnoredFn ignored) {
    entries_.push_back({std::move(name), std::move(probe), std::move(factory), std::move(ignored)});
}

std::vector<BackendInfo> BackendRegistry::list() const {
    std::vector<BackendInfo> infos;
    for (const auto& e : entries_) infos.push_back(e.probe());
    return infos;
}

const BackendRegistry::Entry& BackendRegistry::entry(const std::string& name) const {
    for (const auto& e : entries_)
        if (e.name == name) return e;
    if (name == "cuda") throw DeviceError("", "cuda backend unavailable: this build has no CUDA backend (WB_CUDA=OFF)");
    throw ConfigError("unknown backend '" + name + "'");
}

BackendInfo BackendRegistry::requireAvailable(const std::string& name) const {
    BackendInfo info = entry(name).probe();
    if (!info.available) throw DeviceError("", name + " backend unavailable: " + info.reason);
    return info;
}

std::unique_ptr<Backend> BackendRegistry::create(const std::string& name, int device) const {
    requireAvailable(name);
    return entry(name).factory(device);
}

std::vector<IgnoredSwitch> BackendRegistry::notApplicable(const std::string& name, const ExecutionSettings& s) const {
    return entry(name).ignored(s);
}

}  // namespace wb
