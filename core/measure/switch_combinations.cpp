#include "core/measure/switch_combinations.h"

namespace wb {

namespace {
// Calls `visit` with every combination of switch values, odometer style over describeSwitches().
template <typename Visit>
void forEachCombination(Visit&& visit) {
    const std::vector<SwitchDescription> switches = describeSwitches(ExecutionSettings{});
    std::vector<std::size_t> digit(switches.size(), 0);
    for (;;) {
        ExecutionSettings s;
        for (std::size_t i = 0; i < switches.size(); ++i) setSwitch(s, switches[i].name, switches[i].values[digit[i]]);
        visit(s);
        std::size_t i = switches.size();
        while (i > 0) {  // the last switch turns fastest
            --i;
            if (++digit[i] < switches[i].values.size()) break;
            digit[i] = 0;
            if (i == 0) return;
        }
    }
}
}  // namespace

std::vector<ExecutionSettings> validCombinations() {
    std::vector<ExecutionSettings> valid;
    forEachCombination([&](const ExecutionSettings& s) {
        if (!s.refusal()) valid.push_back(s);
    });
    return valid;
}

std::size_t combinationCount() {
    std::size_t n = 1;
    for (const auto& d : describeSwitches(ExecutionSettings{})) n *= d.values.size();
    return n;
}

std::string describeCombination(const ExecutionSettings& s) {
    std::string line;
    for (const auto& d : describeSwitches(s)) line += (line.empty() ? "" : " ") + d.name + "=" + d.value;
    return line;
}

}  // namespace wb
