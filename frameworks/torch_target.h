// What a generated PyTorch loop targets (the device, what the installed PyTorch can do), which
// switches it therefore cannot honour, and what it runs instead.
#pragma once

#include <string>
#include <vector>

#include "core/model/execution_settings.h"
#include "core/run/framework_options.h"
#include "frameworks/python_interpreter.h"

namespace wb {

struct TorchTarget {
    std::string device = "cpu";  // "cpu" | "cuda"
    bool hasCompile = true;      // torch.compile exists (PyTorch 2.0 or newer)
    std::string version;         // the installed PyTorch, for the reasons; empty = not known
};

// The target for `options` on an interpreter that said `facts` (device auto: CUDA when seen).
TorchTarget torchTargetFor(const FrameworkFacts& facts, const FrameworkOptions& options);
// The switches of `s` the PyTorch loop cannot express on `target`, each with the reason.
std::vector<IgnoredSwitch> torchIgnoredSwitches(const ExecutionSettings& s, const TorchTarget& target);
// `s` with every ignored switch replaced by what the loop runs instead (launch=fused -> eager, ...).
ExecutionSettings torchEffectiveSettings(const ExecutionSettings& s, const TorchTarget& target);

}  // namespace wb
