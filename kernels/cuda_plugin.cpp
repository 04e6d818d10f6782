// libmlpwb-cuda.so's one exported symbol: hands the CUDA backend to the program that loaded it
// (core/run/backend_plugin.h has the contract, core/train/plugin_loader.h the search).
#include <cstring>
#include <exception>
#include <string>

#include "core/run/backend_plugin.h"
#include "kernels/cuda_backend.h"

#ifndef WB_VERSION
#error "WB_VERSION must be defined"
#endif

extern "C" __attribute__((visibility("default"))) const char* mlpwb_register_backend(
    int abi, const char* version, const wb::BackendPluginHost* host) noexcept {
    static std::string refusal;  // what the returned pointer points to
    try {
        // Only the plain arguments are read until both sides are known to be one build.
        if (abi != wb::kBackendPluginAbi || version == nullptr || std::strcmp(version, WB_VERSION) != 0) {
            refusal =
                "the plugin is for mlp-workbench " WB_VERSION ", plugin ABI " + std::to_string(wb::kBackendPluginAbi);
            return refusal.c_str();
        }
        wb::BackendRegistration cuda{"cuda", wb::probeCudaBackend, wb::makeCudaBackend, wb::cudaIgnoredSwitches};
        host->add(host->context, &cuda);
        return nullptr;
    } catch (const std::exception& e) {  // no exception crosses the extern "C" boundary
        refusal = std::string("the CUDA plugin failed to register: ") + e.what();
        return refusal.c_str();
    }
}
