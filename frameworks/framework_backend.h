// The framework backends (torch, keras, jax): the configured training runs in the
// real framework, in a subprocess of the user's Python, on the core's prepared data and initial
// weights, streaming one JSON line per epoch that becomes the usual EpochResult.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend.h"

namespace wb {

// Adds "torch", "keras" and "jax" to BackendRegistry::instance(); calling it
// again does nothing. Their probes ask the interpreter of resolvePython() (cached per interpreter).
void registerFrameworkBackends();

// Whether `framework` can run on the preferred interpreter, and if not, why. Never throws.
BackendInfo probeFrameworkBackend(const std::string& framework);
// A backend for `framework`; the interpreter is the run's `framework.python`, else resolvePython().
std::unique_ptr<Backend> makeFrameworkBackend(const std::string& framework);
// The switches `framework` ignores under `s` on the preferred interpreter and its device.
std::vector<IgnoredSwitch> frameworkIgnoredSwitches(const std::string& framework, const ExecutionSettings& s);

// The loop script for `config` on its framework (as the backend would run it, on the device the
// preferred interpreter reports, or for the CPU and the newest API when that is not known).
std::string frameworkScript(const RunConfig& config);

}  // namespace wb
