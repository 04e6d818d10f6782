// The one table a framework backend consults: for each framework (torch, keras, jax), where its
// loop runs on an interpreter, which switches it ignores there, and the loop script itself. Each
// framework's rules live in <framework>_target.*, its generator in <framework>_script.*.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/model/execution_settings.h"
#include "core/run/framework_options.h"
#include "core/run/run_config.h"
#include "frameworks/python_interpreter.h"

namespace wb {

struct FrameworkLoop {
    std::string device = "cpu";  // where the loop runs: "cpu" | "cuda" (its --device)
    std::function<std::vector<IgnoredSwitch>(const ExecutionSettings&)> ignored;
    std::function<std::string(const RunConfig&)> script;
};

// The loop of `framework` for `options` on an interpreter that said `facts`. Unavailable facts
// (no interpreter or no framework) mean the CPU (or options.device) and the newest API. Throws
// ConfigError for a framework without a generator.
FrameworkLoop frameworkLoop(const std::string& framework, const FrameworkFacts& facts, const FrameworkOptions& options);

}  // namespace wb
