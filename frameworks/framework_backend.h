// The framework backends (torch, keras, jax): the configured training runs in the
// real framework, in a subprocess of the user's Python, on the core's prepared data and initial
// weights, streaming one JSON line per epoch that becomes the usual EpochResult.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/run/backend.h"
#include "frameworks/python_interpreter.h"

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
// preferred interpreter reports, or for the CPU and the newest API when that is not known). Asks
// the interpreter: for a configuration the user gives on this machine (`mlpwb export`), never for one
// read from a file.
std::string frameworkScript(const RunConfig& config);
// The same loop for an interpreter that said `facts`, asking nothing: a report's or an exported
// run's loop, from what its record says (recordedFrameworkFacts).
std::string frameworkScript(const RunConfig& config, const FrameworkFacts& facts);
// What a RunRecord's environment says of `framework` as it ran (the keys the framework backends
// write: framework, <framework>_version, framework_device, python...): unavailable facts (the CPU and
// the newest API) when the record is not a run of that framework.
FrameworkFacts recordedFrameworkFacts(const std::string& framework,
                                      const std::map<std::string, std::string>& environment);

}  // namespace wb
