#include "core/measure/ablation_subsets.h"

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "core/run/backend.h"
#include "core/run/task_metrics.h"

namespace wb {

namespace {
// The configuration of r's seed loop with the honoured fixes of `mask` applied, in plan order.
AblationStep configurationOf(const AblationResult& r, unsigned mask, const std::vector<std::size_t>& honoured) {
    AblationStep c;
    c.settings = r.steps.front().settings;
    c.torch = r.steps.front().torch;
    for (std::size_t p = 0; p < honoured.size(); ++p) {
        if (((mask >> p) & 1U) == 0) continue;
        for (const auto& [name, value] : ablationFixByName(r.steps[honoured[p]].fix).sets) {
            if (isTorchOption(name))
                setTorchOption(c.torch, name, value);
            else
                setSwitch(c.settings, name, value);
        }
    }
    return c;
}

// The settings as r's backend runs them: every switch it ignores at the seed loop's value.
ExecutionSettings asRun(const AblationResult& r, Task task, const ExecutionSettings& s) {
    std::vector<IgnoredSwitch> ignored = BackendRegistry::instance().notApplicable(r.backend, s);
    if (task == Task::Regression) ignored.push_back(regressionLossSwitch());
    ExecutionSettings run = s;
    for (const IgnoredSwitch& sw : ignored) setSwitch(run, sw.name, switchValue(r.steps.front().settings, sw.name));
    return run;
}

// A slot's own step: "combination loss=bce_with_logits + zero_grad=none", at the seed loop's level
// until it runs.
AblationStep ownStep(const AblationResult& r, AblationStep c, unsigned mask, const std::vector<std::size_t>& honoured) {
    std::string name;
    for (std::size_t p = 0; p < honoured.size(); ++p)
        if ((mask >> p) & 1U) name += (name.empty() ? "" : " + ") + r.steps[honoured[p]].name;
    c.name = "combination " + (name.empty() ? std::string("(no fix)") : name);
    c.fix = "combination";
    c.description = "a subset of the honoured fixes, for their attribution beyond one order";
    c.medianEpochMs = c.minEpochMs = c.maxEpochMs = r.steps.front().medianEpochMs;
    return c;
}
}  // namespace

bool sameConfiguration(const AblationResult& r, Task task, const AblationStep& a, const AblationStep& b) {
    return nlohmann::json(asRun(r, task, a.settings)) == nlohmann::json(asRun(r, task, b.settings)) &&
           nlohmann::json(a.torch) == nlohmann::json(b.torch);
}

std::vector<SubsetSlot> subsetSlots(const AblationResult& r, Task task, const std::vector<unsigned>& masks,
                                    const std::vector<std::size_t>& honoured) {
    std::vector<SubsetSlot> slots;
    for (unsigned mask : masks) {
        SubsetSlot slot;
        slot.mask = mask;
        AblationStep c = configurationOf(r, mask, honoured);
        if (c.settings.refusal()) return {};
        for (std::size_t i = 0; i < r.steps.size() && !slot.step; ++i)
            if (r.steps[i].measured() && sameConfiguration(r, task, r.steps[i], c)) slot.step = i;
        for (std::size_t j = 0; j < slots.size() && slot.measuredHere(); ++j)
            if (slots[j].measuredHere() && sameConfiguration(r, task, slots[j].own, c)) slot.sameAs = j;
        if (slot.measuredHere()) slot.own = ownStep(r, std::move(c), mask, honoured);
        slots.push_back(std::move(slot));
    }
    return slots;
}

std::size_t newConfigurations(const std::vector<SubsetSlot>& slots) {
    return static_cast<std::size_t>(
        std::count_if(slots.begin(), slots.end(), [](const SubsetSlot& s) { return s.measuredHere(); }));
}

std::vector<SubsetLevel> subsetLevels(const AblationResult& r, const std::vector<SubsetSlot>& slots) {
    std::vector<SubsetLevel> levels;
    for (const SubsetSlot& slot : slots) {
        const SubsetSlot& source = slot.sameAs ? slots[*slot.sameAs] : slot;
        SubsetLevel level;
        level.mask = slot.mask;
        for (std::size_t p = 0; p < r.subsetFixes.size(); ++p)
            if ((slot.mask >> p) & 1U) level.fixes.push_back(r.steps[r.subsetFixes[p]].name);
        level.step = source.step;
        const AblationStep& measured = source.step ? r.steps[*source.step] : source.own;
        for (const auto& run : measured.runs)
            if (const auto m = run.summary().medianEpochMs) level.roundMs.push_back(*m);
        levels.push_back(std::move(level));
    }
    return levels;
}

}  // namespace wb
