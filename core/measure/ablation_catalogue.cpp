// The catalogue of fixes an ablation applies: the built-in ones, "switch=value" ones, and the plan.
#include "core/measure/ablation_catalogue.h"

#include <set>

#include "core/model/execution_settings.h"
#include "core/platform/errors.h"
#include "core/run/framework_options.h"

namespace wb {

namespace {
constexpr int kMaxRepeats = 100;

// The fixes that are not one switch's (those come from the switch table, execution_settings.h):
// several switches at once, then the torch backend's options.
std::vector<AblationFix> otherFixes() {
    return {
        {"fused",
         "forward, loss, backward and update of a step in a few fused kernels with the project's own GEMMs; "
         "they compute in fp32, so this fix also undoes a mixed-precision step before it",
         {{"launch", "fused"}, {"gemm", "custom"}, {"precision", "fp32"}}},
        {"persistent",
         "the whole epoch in one resident kernel, weights and optimizer state on chip between steps, no launch "
         "per step (needs device_resident data, gemm=custom, fp32)",
         {{"launch", "persistent"}, {"gemm", "custom"}, {"precision", "fp32"}, {"data_path", "device_resident"}}},
        // The founding post's other knobs: options of the torch backend, not shared switches. The
        // DataLoader's act only while it is used (data_path=per_sample_gather): try them with --alone.
        {"torch_workers",
         "DataLoader(num_workers=2): two worker processes gather and collate the rows (torch backend)",
         {{"torch.num_workers", "2"}}},
        {"torch_prefetch",
         "DataLoader(num_workers=2, prefetch_factor=4): workers keep four batches each ready (torch backend)",
         {{"torch.num_workers", "2"}, {"torch.prefetch_factor", "4"}}},
        {"torch_pin_memory",
         "DataLoader(pin_memory=True): batches collated into pinned memory for faster copies (torch, CUDA)",
         {{"torch.pin_memory", "true"}}},
        {"torch_script",
         "the model compiled with TorchScript, torch.jit.script (torch backend)",
         {{"torch.script_model", "true"}}},
    };
}

std::vector<AblationFix> makeFixes() {
    std::vector<AblationFix> all;
    for (const auto& spec : switchSpecs())
        if (!spec.fixValue.empty()) all.push_back({spec.name, spec.fixHelp, {{spec.name, spec.fixValue}}});
    for (auto& fix : otherFixes()) all.push_back(std::move(fix));
    return all;
}
}  // namespace

const std::vector<AblationFix>& ablationFixes() {
    static const std::vector<AblationFix> all = makeFixes();
    return all;
}

std::vector<std::string> defaultFixOrder() {
    std::vector<std::string> names;
    for (const auto& f : ablationFixes())
        if (!isTorchFix(f)) names.push_back(f.name);
    return names;
}

bool isTorchFix(const AblationFix& fix) {
    for (const auto& [name, value] : fix.sets)
        if (isTorchOption(name)) return true;
    return false;
}

AblationFix ablationFixByName(const std::string& name) {
    for (const auto& f : ablationFixes())
        if (f.name == name) return f;
    const auto eq = name.find('=');
    if (eq == std::string::npos) {
        std::string valid;
        for (const auto& f : ablationFixes()) valid += (valid.empty() ? "" : ", ") + f.name;
        throw ConfigError("unknown fix '" + name + "' (valid: " + valid + ", or switch=value)");
    }
    const std::string sw = name.substr(0, eq), value = name.substr(eq + 1);
    if (isTorchOption(sw)) {
        TorchOptions check;
        setTorchOption(check, sw, value);  // throws ConfigError for an unknown option or value
        return {name, "set the torch option " + sw + " to " + value, {{sw, value}}};
    }
    ExecutionSettings check;
    setSwitch(check, sw, value);  // throws ConfigError for an unknown switch or value
    return {name, "set " + sw + " to " + value, {{sw, value}}};
}

void AblationPlan::validate() const {
    presetByName(baseline);
    for (const auto& f : fixes) ablationFixByName(f);
    if (repeats < 1 || repeats > kMaxRepeats)
        throw ConfigError("repeats must be from 1 to " + std::to_string(kMaxRepeats) + ", not " +
                          std::to_string(repeats));
    if (!(target > 0 && target < 1)) throw ConfigError("the target half-width must lie between 0 and 100 %");
    if (!(budgetSeconds >= 0 && budgetSeconds <= 86400))
        throw ConfigError("the time budget must be from 0 to 86,400 s (0: no rounds beyond --repeats)");
}

int plannedRuns(const AblationPlan& plan) {
    const std::set<std::string> unique(plan.fixes.begin(), plan.fixes.end());
    const std::size_t steps = 1 + plan.fixes.size() + (plan.alone ? unique.size() : 0);
    return static_cast<int>(steps) * plan.repeats;
}

}  // namespace wb
