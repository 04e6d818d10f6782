// The contract between a program (mlpwb, mlp-workbench) and a backend plugin (libmlpwb-cuda.so):
// one extern "C" entry point, looked up with dlsym by plugin_loader.cpp. CUDA-free: both sides
// include it.
//
// The plugin is built from the same sources as the program and links its own copy of the core code
// it computes with, but never registers into a registry of its own: the program hands it `host`,
// whose `add` stores the plugin's backends on the program's side, and the program adds them to its
// BackendRegistry::instance(). C++ types (std::string, std::function, Backend) cross the boundary,
// so the two must come from one build: the entry point refuses a program of another plugin ABI or
// another version, reading only its plain arguments (abi, version) before it touches `host`.
#pragma once

#include <string>

#include "core/run/backend.h"

namespace wb {

// Raise when anything that crosses the boundary changes (this header, backend.h and what it includes).
inline constexpr int kBackendPluginAbi = 1;

// One backend a plugin brings: what BackendRegistry::add takes.
struct BackendRegistration {
    std::string name;
    BackendRegistry::Probe probe;
    BackendRegistry::Factory factory;
    BackendRegistry::IgnoredFn ignored;
};

// The program's side of the call. `add` is the program's function: it takes `registration` by move.
struct BackendPluginHost {
    void* context = nullptr;
    void (*add)(void* context, BackendRegistration* registration) = nullptr;
};

// The entry point's name and type (plugin_loader.cpp looks it up by this name).
inline constexpr const char* kBackendPluginEntry = "mlpwb_register_backend";
// Returns nullptr after calling host->add for each of its backends, else why it refused (a string
// owned by the plugin, valid until the next call): another ABI or version than the program's.
using BackendPluginEntry = const char* (*)(int abi, const char* version, const BackendPluginHost* host);

}  // namespace wb
