// registerCudaBackend: "cuda" into this program's registry, for the tests that link the backend
// statically. The programs load it as a plugin instead (cuda_plugin.cpp, core/train/plugin_loader.h); this
// file is not part of the plugin, so the plugin holds no code that reaches a registry of its own.
#include "kernels/cuda_backend.h"

namespace wb {

void registerCudaBackend() {
    static const bool registered = [] {
        BackendRegistry::instance().add("cuda", probeCudaBackend, makeCudaBackend, cudaIgnoredSwitches);
        return true;
    }();
    (void)registered;
}

}  // namespace wb
