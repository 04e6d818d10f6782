// What a generated JAX loop targets (the device, the installed JAX), which switches the JAX loop
// cannot express there, and what it runs instead.
#pragma once

#include <string>
#include <vector>

#include "core/model/execution_settings.h"
#include "core/run/framework_options.h"
#include "frameworks/python_interpreter.h"

namespace wb {

struct JaxTarget {
    std::string device = "cpu";  // "cpu" | "cuda" (JAX's gpu platform)
    std::string version;         // the installed JAX, for the reasons; empty = not known
};

// The target for `options` on an interpreter that said `facts` (device auto: the GPU when seen).
JaxTarget jaxTargetFor(const FrameworkFacts& facts, const FrameworkOptions& options);
// The switches of `s` the JAX loop cannot express on `target`, each with the reason.
std::vector<IgnoredSwitch> jaxIgnoredSwitches(const ExecutionSettings& s, const JaxTarget& target);
// `s` with every ignored switch replaced by what the loop runs instead (precision=fp16 -> fp32 on a CPU, ...).
ExecutionSettings jaxEffectiveSettings(const ExecutionSettings& s, const JaxTarget& target);

}  // namespace wb
