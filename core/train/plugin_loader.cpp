#include "core/train/plugin_loader.h"

#include <dlfcn.h>

#include <cstdlib>
#include <exception>
#include <filesystem>
#include <memory>
#include <system_error>
#include <utility>

#include "core/platform/errors.h"

// Set by core/CMakeLists.txt for this file: the program's version (the plugin must have the same),
// the install directory of plugins, and whether this build made the CUDA plugin.
#ifndef WB_VERSION
#error "WB_VERSION must be defined"
#endif
#ifndef WB_PLUGIN_INSTALL_DIR
#error "WB_PLUGIN_INSTALL_DIR must be defined"
#endif
#ifndef WB_CUDA_PLUGIN_BUILT
#define WB_CUDA_PLUGIN_BUILT 0
#endif

namespace wb {

namespace {
namespace fs = std::filesystem;

// The directory of the running program, or empty where /proc is not mounted.
std::string programDir() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : exe.parent_path().string();
}

std::string dlError(const char* fallback) {
    const char* text = dlerror();
    return text != nullptr ? std::string(text) : std::string(fallback);
}

// The program's side of BackendPluginHost: keeps what the plugin registers.
void collect(void* context, BackendRegistration* registration) {
    static_cast<std::vector<BackendRegistration>*>(context)->push_back(std::move(*registration));
}

// Calls the plugin's entry point; an empty result and `error` set when it refuses.
std::vector<BackendRegistration> callEntry(BackendPluginEntry entry, const std::string& path, std::string& error) {
    std::vector<BackendRegistration> backends;
    const BackendPluginHost host{&backends, collect};
    try {
        if (const char* refusal = entry(kBackendPluginAbi, WB_VERSION, &host)) {
            error = path + " does not fit this program (mlp-workbench " WB_VERSION ", plugin ABI " +
                    std::to_string(kBackendPluginAbi) + "): " + refusal;
            backends.clear();
        }
    } catch (const std::exception& e) {  // the plugin catches its own; this is the last guard
        error = path + " failed to register: " + e.what();
        backends.clear();
    }
    return backends;
}

std::string joinDirs(const std::vector<std::string>& dirs) {
    std::string text;
    for (const auto& d : dirs) text += (text.empty() ? "" : ", ") + d;
    return text.empty() ? "no directory" : text;
}

// Why no plugin file was found, in the user's words.
std::string notFoundReason(const std::vector<std::string>& dirs, const std::string& file) {
    const std::string where = file + " is in none of: " + joinDirs(dirs);
    if (WB_CUDA_PLUGIN_BUILT == 0)
        return "this build has no CUDA backend (configure with a CUDA toolkit, WB_CUDA=ON; " + where + ")";
    return "the CUDA backend is not installed (install the package mlp-workbench-cuda, or set MLPWB_PLUGIN_DIR; " +
           where + ")";
}
}  // namespace

std::vector<std::string> backendPluginDirs() {
    std::vector<std::string> dirs;
    if (const char* env = std::getenv("MLPWB_PLUGIN_DIR"); env != nullptr && *env != '\0') dirs.emplace_back(env);
    if (std::string dir = programDir(); !dir.empty()) dirs.push_back(std::move(dir));
    dirs.emplace_back(WB_PLUGIN_INSTALL_DIR);
    return dirs;
}

PluginLoad loadBackendPlugin(const std::vector<std::string>& dirs, const std::string& file) {
    PluginLoad load;
    for (const auto& dir : dirs) {
        std::error_code ec;
        const fs::path candidate = fs::path(dir) / file;
        if (fs::exists(candidate, ec)) {
            load.path = candidate.string();
            break;
        }
    }
    if (load.path.empty()) {
        load.error = notFoundReason(dirs, file);
        return load;
    }
    // RTLD_NOW: a missing symbol fails here, with its name, not later in a run. RTLD_LOCAL: the
    // plugin's copy of the core code stays its own and never replaces the program's symbols.
    void* handle = dlopen(load.path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        load.error = "the plugin " + load.path + " cannot be loaded: " + dlError("dlopen failed");
        return load;
    }
    void* symbol = dlsym(handle, kBackendPluginEntry);
    if (symbol == nullptr) {
        load.error = load.path + " is not an MLP Workbench backend plugin: " + dlError("no entry point");
        dlclose(handle);
        return load;
    }
    // dlsym hands back a data pointer; POSIX guarantees it converts to the function's pointer.
    const auto entry = reinterpret_cast<BackendPluginEntry>(symbol);  // NOLINT(*-reinterpret-cast)
    load.backends = callEntry(entry, load.path, load.error);
    if (load.backends.empty()) {
        if (load.error.empty()) load.error = load.path + " registered no backend";
        dlclose(handle);
    }
    // Loaded: the handle is never closed, the registered functions live in the plugin.
    return load;
}

BackendRegistration unavailableBackend(const std::string& name, const std::string& reason) {
    BackendRegistration r;
    r.name = name;
    r.probe = [name, reason] {
        BackendInfo info;
        info.name = name;
        info.reason = reason;
        return info;
    };
    r.factory = [name, reason](int /*device*/) -> std::unique_ptr<Backend> {
        throw DeviceError("", name + " backend not installed: " + reason);
    };
    r.ignored = [name, reason](const ExecutionSettings& /*s*/) -> std::vector<IgnoredSwitch> {
        throw DeviceError("", name + " backend not installed: " + reason);
    };
    return r;
}

std::vector<BackendRegistration> pluginBackends(const std::vector<std::string>& dirs, const std::string& file) {
    PluginLoad load = loadBackendPlugin(dirs, file);
    if (load.error.empty()) return std::move(load.backends);
    std::vector<BackendRegistration> stand;
    stand.push_back(unavailableBackend("cuda", load.error));
    return stand;
}

namespace {
// The plugin's "cuda", or a stand-in saying why there is none; loaded on the first call, from any
// thread (the GUI's worker creates backends), once per process.
const BackendRegistration& loadedCuda(const std::vector<std::string>& dirs) {
    static const BackendRegistration cuda = [&dirs] {
        for (auto& r : pluginBackends(dirs, kCudaPluginFile))
            if (r.name == "cuda") return std::move(r);
        return unavailableBackend("cuda", std::string(kCudaPluginFile) + " brings no cuda backend");
    }();
    return cuda;
}
}  // namespace

void registerBackendPlugins() {
    static const bool registered = [] {
        // The directories as they are at start-up; the plugin itself is loaded on first use.
        auto dirs = std::make_shared<const std::vector<std::string>>(backendPluginDirs());
        BackendRegistry::instance().add(
            "cuda", [dirs] { return loadedCuda(*dirs).probe(); },
            [dirs](int device) { return loadedCuda(*dirs).factory(device); },
            [dirs](const ExecutionSettings& s) { return loadedCuda(*dirs).ignored(s); });
        return true;
    }();
    (void)registered;
}

}  // namespace wb
