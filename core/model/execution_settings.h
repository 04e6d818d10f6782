// The execution switches: each one is a suspected cause of the founding Keras-vs-PyTorch gap.
// See docs/ARCHITECTURE.md, "Execution settings", for what each value reproduces.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/model/math_ops.h"

namespace wb {

enum class DataPath { PerSampleGather, PageableCopy, PinnedAsync, DeviceResident };
// Persistent: one cooperative kernel per epoch (kernels/persistent_epoch.h), the Fastest preset's.
enum class Launch { EagerSync, Eager, GraphStep, Fused, Persistent };
enum class ZeroGrad { Twice, Once, None };
enum class OptimizerKernel { PerTensor, MultiTensor };
enum class Precision { Fp32, Tf32, Bf16, Fp16 };
enum class Gemm { Cublas, Custom };

struct ExecutionSettings {
    DataPath dataPath = DataPath::DeviceResident;
    Launch launch = Launch::Eager;
    LossKind loss = LossKind::BceWithLogits;
    ZeroGrad zeroGrad = ZeroGrad::Once;
    OptimizerKernel optimizerKernel = OptimizerKernel::PerTensor;
    Precision precision = Precision::Fp32;
    Gemm gemm = Gemm::Cublas;

    // Why this combination cannot run, in a sentence; nullopt when it can.
    std::optional<std::string> refusal() const;
    // Throws ConfigError with refusal() when there is one.
    void validate() const;
    bool operator==(const ExecutionSettings&) const = default;
};

// One value of a switch: its name ("device_resident") and what it reproduces, in a sentence.
struct SwitchValue {
    std::string name;
    std::string help;
};

// One switch, described once: the execution panel (its row, tooltips, values), mlpwb's options and
// their help, the ablation's fix named after it, the sweep's parameters and the report all read this
// table. Adding a switch is one entry here (execution_settings.cpp) plus what each backend does with
// it (core/cpu/, kernels/, each framework's script generator under frameworks/).
struct SwitchSpec {
    std::string name;                 // "data_path": the record's key and a sweep's parameter
    std::string label;                // "Data path": the execution panel's row
    std::string help;                 // what the switch is about (the row's tooltip, --help)
    std::vector<SwitchValue> values;  // every value, in the enum's order
    // The ablation's fix named after this switch: the value it sets from the seed loop's, and what
    // that does in a sentence. Empty for a switch without a fix of its own (gemm changes only inside
    // the fused and persistent fixes, ablation_catalogue.h).
    std::string fixValue;
    std::string fixHelp;
    std::function<std::string(const ExecutionSettings&)> get;
    std::function<void(ExecutionSettings&, const std::string&)> set;  // throws ConfigError for a bad value

    std::string option() const;  // the command line's option: "--data-path"
    std::vector<std::string> valueNames() const;
    const SwitchValue* findValue(const std::string& value) const;  // nullptr for an unknown one
};
// Every switch, in the order the panel, the record and the ablation list them.
const std::vector<SwitchSpec>& switchSpecs();
const SwitchSpec& switchSpec(const std::string& name);  // throws ConfigError naming the valid ones

// One switch as the user sees it: its name, its current value, and every value it can take.
struct SwitchDescription {
    std::string name;                 // "data_path"
    std::string value;                // "per_sample_gather"
    std::vector<std::string> values;  // all values, in the order of the enum
};
std::vector<SwitchDescription> describeSwitches(const ExecutionSettings& s);
// Sets switch `name` to `value` (both as in describeSwitches); throws ConfigError for unknown ones.
void setSwitch(ExecutionSettings& s, const std::string& name, const std::string& value);
// The value switch `name` has in `s` (as in describeSwitches); throws ConfigError for an unknown one.
std::string switchValue(const ExecutionSettings& s, const std::string& name);

// A switch a backend ignores, and why: {"launch", "a CPU launches no kernels"}.
struct IgnoredSwitch {
    std::string name;    // the switch, as in describeSwitches ("launch")
    std::string reason;  // a sentence for the user
    bool operator==(const IgnoredSwitch&) const = default;
};
// The reason `name` is ignored in `list`, or nullptr.
const IgnoredSwitch* findIgnored(const std::vector<IgnoredSwitch>& list, const std::string& name);

struct Preset {
    std::string name;         // the user's vocabulary, e.g. "Seed PyTorch loop"
    std::string description;  // one line
    ExecutionSettings settings;
    // The engine whose own code it describes ("keras": the founding Keras fit), empty for any. Its
    // switches may equal some step of another engine's loop, which it does not name.
    std::string backend;
};
const std::vector<Preset>& presets();
const Preset& presetByName(const std::string& name);  // case-insensitive; throws ConfigError
// The preset whose settings equal `s`, or nullopt ("custom"). Given the engine a run ran on, only a
// preset for any engine or for that one: a torch run with the Keras fit's switches is no Keras fit.
std::optional<std::string> matchingPreset(const ExecutionSettings& s, const std::string& backend = "");

std::string toString(DataPath v);
std::string toString(Launch v);
std::string toString(LossKind v);
std::string toString(ZeroGrad v);
std::string toString(OptimizerKernel v);
std::string toString(Precision v);
std::string toString(Gemm v);
LossKind lossKindFromString(const std::string& s);  // throws ConfigError

void to_json(nlohmann::json& j, const ExecutionSettings& s);
void from_json(const nlohmann::json& j, ExecutionSettings& s);
// {"switch": "launch", "reason": "..."}
void to_json(nlohmann::json& j, const IgnoredSwitch& s);
void from_json(const nlohmann::json& j, IgnoredSwitch& s);

}  // namespace wb
