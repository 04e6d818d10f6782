// What a generated Keras loop targets (the device, the installed Keras), which switches Keras'
// model.fit cannot express there, and what the loop runs instead.
#pragma once

#include <string>
#include <vector>

#include "core/model/execution_settings.h"
#include "core/run/framework_options.h"
#include "frameworks/python_interpreter.h"

namespace wb {

struct KerasTarget {
    std::string device = "cpu";  // "cpu" | "cuda" (TensorFlow's GPU)
    std::string version;         // the installed Keras, for the reasons; empty = not known
};

// The target for `options` on an interpreter that said `facts` (device auto: the GPU when seen).
KerasTarget kerasTargetFor(const FrameworkFacts& facts, const FrameworkOptions& options);
// The switches of `s` the Keras loop cannot express on `target`, each with the reason.
std::vector<IgnoredSwitch> kerasIgnoredSwitches(const ExecutionSettings& s, const KerasTarget& target);
// `s` with every ignored switch replaced by what the loop runs instead (launch=eager -> graph_step, ...).
ExecutionSettings kerasEffectiveSettings(const ExecutionSettings& s, const KerasTarget& target);

}  // namespace wb
