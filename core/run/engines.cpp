#include "core/run/engines.h"

#include <algorithm>

namespace wb {

const std::vector<EngineFacts>& engines() {
    static const std::vector<EngineFacts> table = {
        {"cpu", "CPU", "our CPU backend", false, "", ""},
        {"cuda", "CUDA", "our CUDA backend", false, "sudo apt-get install mlp-workbench-cuda",
         "needs an NVIDIA GPU with its driver, and the mlp-workbench-cuda package"},
        {"torch", "PyTorch", "PyTorch", true,
         "sudo apt-get install python3-torch (for /usr/bin/python3), or in a virtual environment: pip install torch",
         ""},
        {"keras", "Keras", "Keras", true, "pip install tensorflow-cpu keras", ""},
        {"jax", "JAX", "JAX", true, "pip install jax", ""},
    };
    return table;
}

const EngineFacts* findEngine(const std::string& name) {
    const auto& all = engines();
    const auto it = std::find_if(all.begin(), all.end(), [&](const EngineFacts& e) { return e.name == name; });
    return it == all.end() ? nullptr : &*it;
}

std::string engineNameList() {
    std::string list;
    for (const EngineFacts& e : engines()) list += (list.empty() ? "" : ", ") + e.name;
    return list;
}

std::string engineLabel(const std::string& name) {
    const EngineFacts* e = findEngine(name);
    return e ? e->label : name;
}

std::string engineProse(const std::string& name) {
    const EngineFacts* e = findEngine(name);
    return e ? e->prose : name;
}

bool isFrameworkBackend(const std::string& name) {
    const EngineFacts* e = findEngine(name);
    return e && e->framework;
}

std::string installHint(const std::string& name, const std::string& reason) {
    const EngineFacts* e = findEngine(name);
    if (!e) return {};
    if (!e->needs.empty() && reason.find("not installed") == std::string::npos) return e->needs;
    return e->install;
}

}  // namespace wb
