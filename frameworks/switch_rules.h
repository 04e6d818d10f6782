// The shape every framework's target file shares: a list of rules, each naming a switch value the
// framework's loop cannot express on a target, why, and what the loop runs instead.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/model/execution_settings.h"

namespace wb {

// One rule: when it applies, switch `name` is ignored for `reason` and `fallback` runs instead.
template <class Target>
struct SwitchRule {
    const char* name;
    std::function<bool(const ExecutionSettings&, const Target&)> applies;
    std::function<std::string(const Target&)> reason;
    std::function<void(ExecutionSettings&)> fallback;
};

// The switches of `s` that `rules` ignore on `target`, each with the reason.
template <class Target>
std::vector<IgnoredSwitch> ignoredByRules(const std::vector<SwitchRule<Target>>& rules, const ExecutionSettings& s,
                                          const Target& target) {
    std::vector<IgnoredSwitch> ignored;
    for (const auto& r : rules)
        if (r.applies(s, target)) ignored.push_back({r.name, r.reason(target)});
    return ignored;
}

// `s` with every ignored switch replaced by its fallback (each rule judged on `s` as asked).
template <class Target>
ExecutionSettings effectiveUnderRules(const std::vector<SwitchRule<Target>>& rules, const ExecutionSettings& s,
                                      const Target& target) {
    ExecutionSettings effective = s;
    for (const auto& r : rules)
        if (r.applies(s, target)) r.fallback(effective);
    return effective;
}

// A rule's reason that does not depend on the target.
template <class Target>
std::function<std::string(const Target&)> because(std::string text) {
    return [text = std::move(text)](const Target&) { return text; };
}

}  // namespace wb
