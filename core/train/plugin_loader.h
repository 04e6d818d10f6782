// Finds and loads backend plugins at run time, so that a program runs on any machine and gains the
// CUDA backend only where it is installed and its libraries load.
//
// Why a plugin: linked in, the CUDA runtime and cuBLAS cost ~200 MB of memory in every mlpwb run
// (even `mlpwb --version`), and neither program starts where those libraries are missing, so the
// Debian package had to be built without CUDA. Now mlpwb and mlp-workbench link no CUDA library;
// libmlpwb-cuda.so (kernels/, built when the CUDA toolkit is found; the package
// mlp-workbench-cuda) holds the backend and is opened with dlopen at start-up.
//
// Where it is looked for, first match wins:
//   1. $MLPWB_PLUGIN_DIR, when set;
//   2. the directory of the running program (a build tree: build/cli, build/gui);
//   3. the install directory, <libdir>/mlp-workbench (/usr/lib/<multiarch>/mlp-workbench from the package).
// A file that is found but cannot be loaded (libcublas.so.13 missing, another version's plugin, not
// a shared object) is reported, not skipped: the user learns why the backend they installed is off.
//
// The file is opened when "cuda" is first asked about (`mlpwb info`, a CUDA run, the GUI's backend
// list), not at start-up: `mlpwb --version`, `mlpwb presets` or a CPU run never map the CUDA
// libraries (~200 MB) into memory.
//
// In every outcome "cuda" is in the registry: the plugin's backend (available, or why not: "no
// NVIDIA driver"), or a stand-in that is unavailable with the reason (the dlerror text, which names
// the missing library). The stand-in's notApplicable throws DeviceError "cuda backend not installed:
// <reason>". Nothing here throws or crashes; CPU and framework backends are unaffected.
#pragma once

#include <string>
#include <vector>

#include "core/run/backend_plugin.h"

namespace wb {

inline constexpr const char* kCudaPluginFile = "libmlpwb-cuda.so";

// The outcome of loading one plugin file.
struct PluginLoad {
    std::string path;                           // the file tried; empty when no directory had it
    std::string error;                          // why it was not loaded; empty when it was
    std::vector<BackendRegistration> backends;  // what the plugin registered (empty on error)
};

// The directories searched, in order (see above); the ones that are not set are left out.
std::vector<std::string> backendPluginDirs();

// Loads `file` from the first of `dirs` that has it and collects what it registers. A loaded
// plugin stays loaded for the life of the process (its code runs behind the registrations).
PluginLoad loadBackendPlugin(const std::vector<std::string>& dirs, const std::string& file);

// Backend `name`, unavailable with `reason`: its notApplicable and factory throw DeviceError.
BackendRegistration unavailableBackend(const std::string& name, const std::string& reason);

// What loading `file` from `dirs` gives the registry: the plugin's backends, or "cuda" unavailable
// with the reason.
std::vector<BackendRegistration> pluginBackends(const std::vector<std::string>& dirs, const std::string& file);

// Adds "cuda" to BackendRegistry::instance(), served by libmlpwb-cuda.so from backendPluginDirs() (as
// they are now), which is loaded on the first call of its probe, factory or notApplicable.
// Calling it again does nothing.
void registerBackendPlugins();

}  // namespace wb
