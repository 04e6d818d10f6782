#include "frameworks/framework_loop.h"

#include "core/platform/errors.h"
#include "frameworks/jax_script.h"
#include "frameworks/keras_script.h"
#include "frameworks/torch_script.h"

namespace wb {

namespace {
// Binds one framework's target to its rules and its generator.
template <class Target, class Ignored, class Script>
FrameworkLoop bind(Target target, Ignored ignored, Script script) {
    return {target.device, [target, ignored](const ExecutionSettings& s) { return ignored(s, target); },
            [target, script](const RunConfig& c) { return script(c, target); }};
}
}  // namespace

FrameworkLoop frameworkLoop(const std::string& framework, const FrameworkFacts& facts,
                            const FrameworkOptions& options) {
    const FrameworkFacts known = facts.available ? facts : FrameworkFacts{};
    if (framework == "torch") return bind(torchTargetFor(known, options), torchIgnoredSwitches, torchScript);
    if (framework == "keras") return bind(kerasTargetFor(known, options), kerasIgnoredSwitches, kerasScript);
    if (framework == "jax") return bind(jaxTargetFor(known, options), jaxIgnoredSwitches, jaxScript);
    throw ConfigError("no training loop for framework '" + framework + "' (valid: torch, keras, jax)");
}

}  // namespace wb
