#include "backend.h"

#include "cpu_backend.h"
#include "errors.h"

namespace wb {

BackendRegistry::BackendRegistry() {
    add("cpu", probeCpuBackend, [](int) { return makeCpuBackend(); });
}

BackendRegistry& BackendRegistry::instance() {
    static BackendRegistry registry;
    return registry;
}

void BackendRegistry::add(std::string name, Probe probe, Factory factory) {
    entries_.push_back({std::move(name), std::move(probe), std::move(factory)});
}

std::vector<BackendInfo> BackendRegistry::list() const {
    std::vector<BackendInfo> infos;
    for (const auto& e : entries_) infos.push_back(e.probe());
    return infos;
}

std::unique_ptr<Backend> BackendRegistry::create(const std::string& name, int device) const {
    for (const auto& e : entries_) {
        if (e.name != name) continue;
        const BackendInfo info = e.probe();
        if (!info.available) throw DeviceError("", name + " backend unavailable: " + info.reason);
        return e.factory(device);
    }
    if (name == "cuda") throw DeviceError("", "cuda backend unavailable: this build has no CUDA backend (WB_CUDA=OFF)");
    throw ConfigError("unknown backend '" + name + "'");
}

}  // namespace wb
