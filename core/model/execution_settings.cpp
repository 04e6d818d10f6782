#include "core/model/execution_settings.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/platform/enum_names.h"
#include "core/platform/errors.h"

namespace wb {

namespace {
const EnumNames<DataPath> kDataPathNames = {{DataPath::PerSampleGather, "per_sample_gather"},
                                            {DataPath::PageableCopy, "pageable_copy"},
                                            {DataPath::PinnedAsync, "pinned_async"},
                                            {DataPath::DeviceResident, "device_resident"}};
const EnumNames<Launch> kLaunchNames = {{Launch::EagerSync, "eager_sync"},
                                        {Launch::Eager, "eager"},
                                        {Launch::GraphStep, "graph_step"},
                                        {Launch::Fused, "fused"},
                                        {Launch::Persistent, "persistent"}};
const EnumNames<LossKind> kLossNames = {{LossKind::SigmoidBce, "sigmoid_bce"},
                                        {LossKind::BceWithLogits, "bce_with_logits"}};
const EnumNames<ZeroGrad> kZeroGradNames = {
    {ZeroGrad::Twice, "twice"}, {ZeroGrad::Once, "once"}, {ZeroGrad::None, "none"}};
const EnumNames<OptimizerKernel> kOptimizerKernelNames = {{OptimizerKernel::PerTensor, "per_tensor"},
                                                          {OptimizerKernel::MultiTensor, "multi_tensor"}};
const EnumNames<Precision> kPrecisionNames = {
    {Precision::Fp32, "fp32"}, {Precision::Tf32, "tf32"}, {Precision::Bf16, "bf16"}, {Precision::Fp16, "fp16"}};
const EnumNames<Gemm> kGemmNames = {{Gemm::Cublas, "cublas"}, {Gemm::Custom, "custom"}};

// What a switch's entry says in words (SwitchSpec's fields of the same names).
struct SwitchWords {
    std::string name, label, help, fixValue, fixHelp;
};

// A switch's entry, its get and set made from the member it reads and the names of its values;
// `valueHelp` says what each value reproduces, in the order of `names`.
template <typename E>
SwitchSpec makeSwitch(const SwitchWords& words, E ExecutionSettings::*member, const EnumNames<E>& names,
                      const std::vector<std::string>& valueHelp) {
    SwitchSpec spec;
    spec.name = words.name;
    spec.label = words.label;
    spec.help = words.help;
    spec.fixValue = words.fixValue;
    spec.fixHelp = words.fixHelp;
    if (valueHelp.size() != names.size())
        throw std::logic_error("switch " + spec.name + ": one help text per value, in the enum's order");
    for (std::size_t i = 0; i < names.size(); ++i) spec.values.push_back({names[i].second, valueHelp[i]});
    spec.get = [member, &names](const ExecutionSettings& s) { return enumName(names, s.*member); };
    spec.set = [member, &names, what = spec.name](ExecutionSettings& s, const std::string& value) {
        s.*member = enumFromName(names, value, what);
    };
    return spec;
}

// The table, one constant per switch (switchSpecs() lists them in this order).
const SwitchSpec kDataPathSwitch = makeSwitch(
    {"data_path", "Data path",
     "How each batch reaches the model. The founding PyTorch loop's DataLoader fetched and "
     "collated rows one by one.",
     "device_resident", "data on the device once and batches sliced from it: no per-sample gather, no per-batch copy"},
    &ExecutionSettings::dataPath, kDataPathNames,
    {"Gather and collate the rows of every batch one by one, like a DataLoader over a TensorDataset",
     "Copy every batch to the GPU from ordinary (pageable) memory and wait for it",
     "Copy batches from pinned memory on a second stream, overlapped with compute",
     "Copy the whole data set to the device once; batches are views of it"});
const char* const kPersistentHelp =
    "The whole epoch in one resident kernel, the weights and optimizer state on chip between steps "
    "(needs device_resident data, gemm=custom, fp32)";
const SwitchSpec kLaunchSwitch = makeSwitch(
    {"launch", "Launch",
     "How the work of a step is started on the GPU: one launch per operation, with or without a "
     "wait every step, one captured graph, a few fused kernels, or one resident kernel per "
     "epoch (the Fastest preset's).",
     "graph_step", "the whole step captured once as a graph and replayed (a static graph), no host sync per step"},
    &ExecutionSettings::launch, kLaunchNames,
    {"One launch per operation and a host sync every step (like calling loss.item())",
     "One launch per operation, no sync inside the epoch",
     "The whole step captured once as a CUDA Graph and replayed (a static graph, like tf.function)",
     "The whole step in one or a few fused kernels", kPersistentHelp});
const SwitchSpec kLossSwitch =
    makeSwitch({"loss", "Loss",
                "Sigmoid followed by BCELoss (as in the founding loop) or the fused, numerically stable "
                "BCEWithLogitsLoss.",
                "bce_with_logits", "BCEWithLogitsLoss on the logit instead of a separate Sigmoid + BCELoss"},
               &ExecutionSettings::loss, kLossNames,
               {"Sigmoid + BCELoss, log clamped at -100 as PyTorch does",
                "BCEWithLogitsLoss: sigmoid and loss fused, stable for large logits"});
const SwitchSpec kZeroGradSwitch =
    makeSwitch({"zero_grad", "zero_grad",
                "How often gradients are cleared each step. The founding loop called "
                "model.zero_grad() and optimizer.zero_grad(): twice.",
                "none", "gradients written, not accumulated: no zeroing (the founding loop zeroed them twice)"},
               &ExecutionSettings::zeroGrad, kZeroGradNames,
               {"model.zero_grad() and optimizer.zero_grad(), as in the founding loop", "One zero_grad per step",
                "No zeroing: the backward pass writes gradients instead of adding to them"});
const SwitchSpec kOptimizerKernelSwitch =
    makeSwitch({"optimizer_kernel", "Optimizer kernel",
                "One update launch per parameter tensor, or one for all of them (PyTorch's "
                "foreach/fused optimizers).",
                "multi_tensor", "one optimizer update for all parameter tensors (PyTorch foreach/fused)"},
               &ExecutionSettings::optimizerKernel, kOptimizerKernelNames,
               {"One optimizer update per parameter tensor", "One optimizer update for all parameters at once"});
const SwitchSpec kPrecisionSwitch =
    makeSwitch({"precision", "Precision",
                "The number format of the matrix products: fp32, TF32 tensor cores, or mixed precision "
                "with fp32 master weights.",
                "fp16", "mixed precision: fp16 products, fp32 master weights, dynamic loss scaling (GradScaler)"},
               &ExecutionSettings::precision, kPrecisionNames,
               {"Full single precision", "TF32 tensor-core matrix products (fp32 storage)",
                "bfloat16 mixed precision with fp32 master weights",
                "fp16 mixed precision with fp32 master weights and dynamic loss scaling (like GradScaler)"});
const SwitchSpec kGemmSwitch = makeSwitch(
    {"gemm", "Matrix products", "Who computes the matrix products: cuBLAS or the project's own kernels.", "", ""},
    &ExecutionSettings::gemm, kGemmNames, {"NVIDIA's cuBLAS library", "The project's own matrix-product kernels"});

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// launch=persistent runs the whole epoch in one kernel: what that kernel cannot do.
// Checked before the general rules, so a persistent run hears the persistent reason.
std::optional<std::string> persistentRefusal(const ExecutionSettings& s) {
    if (s.dataPath != DataPath::DeviceResident)
        return "launch=persistent runs a whole epoch in one kernel that reads every row from device memory; "
               "gathered or copied batches would need the host between steps: choose data_path=device_resident";
    if (s.gemm == Gemm::Cublas)
        return "launch=persistent brings its own matrix products (the fused step's, inside its one kernel), so it "
               "cannot use cuBLAS: choose gemm=custom";
    if (s.precision != Precision::Fp32)
        return "launch=persistent computes in fp32 only (its tiles run on CUDA cores, where " + toString(s.precision) +
               " would add conversions and no speed at these widths): choose precision=fp32";
    return std::nullopt;
}

ExecutionSettings make(DataPath d, Launch l, LossKind loss, ZeroGrad z, OptimizerKernel o, Precision p, Gemm g) {
    return ExecutionSettings{d, l, loss, z, o, p, g};
}
}  // namespace

std::optional<std::string> ExecutionSettings::refusal() const {
    if (launch == Launch::Persistent)
        if (auto why = persistentRefusal(*this)) return why;
    if (launch == Launch::Fused && gemm == Gemm::Cublas)
        return "the fused path brings its own matrix products, so it cannot use cuBLAS: choose gemm=custom";
    if (gemm == Gemm::Custom && precision == Precision::Tf32)
        return "TF32 is a tensor-core mode of cuBLAS; the custom matrix products have no TF32 path";
    if (gemm == Gemm::Custom && (precision == Precision::Fp16 || precision == Precision::Bf16))
        return "the project's own matrix products (and the fused step built on them) compute in fp32; "
               "bf16/fp16 mixed precision runs on cuBLAS's tensor cores: choose gemm=cublas";
    if (loss == LossKind::SigmoidBce && (precision == Precision::Fp16 || precision == Precision::Bf16))
        return "Sigmoid + BCELoss is unsafe under mixed precision (PyTorch's autocast refuses it too): "
               "use loss=bce_with_logits";
    return std::nullopt;
}

void ExecutionSettings::validate() const {
    if (auto why = refusal()) throw ConfigError("execution settings refused: " + *why);
}

std::string SwitchSpec::option() const {
    std::string option = "--" + name;
    std::replace(option.begin(), option.end(), '_', '-');
    return option;
}

std::vector<std::string> SwitchSpec::valueNames() const {
    std::vector<std::string> names;
    for (const auto& v : values) names.push_back(v.name);
    return names;
}

const SwitchValue* SwitchSpec::findValue(const std::string& value) const {
    const auto it = std::find_if(values.begin(), values.end(), [&value](const auto& v) { return v.name == value; });
    return it == values.end() ? nullptr : &*it;
}

const std::vector<SwitchSpec>& switchSpecs() {
    static const std::vector<SwitchSpec> all = {kDataPathSwitch,        kLaunchSwitch,    kLossSwitch, kZeroGradSwitch,
                                                kOptimizerKernelSwitch, kPrecisionSwitch, kGemmSwitch};
    return all;
}

const SwitchSpec& switchSpec(const std::string& name) {
    std::string valid;
    for (const auto& spec : switchSpecs()) {
        if (spec.name == name) return spec;
        valid += (valid.empty() ? "" : ", ") + spec.name;
    }
    throw ConfigError("unknown execution switch '" + name + "' (valid: " + valid + ")");
}

std::vector<SwitchDescription> describeSwitches(const ExecutionSettings& s) {
    std::vector<SwitchDescription> out;
    for (const auto& spec : switchSpecs()) out.push_back({spec.name, spec.get(s), spec.valueNames()});
    return out;
}

std::string switchValue(const ExecutionSettings& s, const std::string& name) {
    return switchSpec(name).get(s);
}

void setSwitch(ExecutionSettings& s, const std::string& name, const std::string& value) {
    switchSpec(name).set(s, value);
}

const std::vector<Preset>& presets() {
    using enum DataPath;
    static const std::vector<Preset> all = {
        {"Seed PyTorch loop",
         "the founding PyTorch loop: DataLoader gathers rows, a sync every step, Sigmoid+BCELoss, zero_grad twice",
         make(PerSampleGather, Launch::EagerSync, LossKind::SigmoidBce, ZeroGrad::Twice, OptimizerKernel::PerTensor,
              Precision::Fp32, Gemm::Cublas),
         ""},
        // The founding post's Keras code: model.fit(x_train, y_train, batch_size=2048) on the arrays,
        // compiled as Keras 2 did (the step a tf.function graph, no XLA), the loss on the logit, fp32.
        // The Keras engine's seed loop in the answer: what the PyTorch loop was ~7x slower than.
        {"Seed Keras fit",
         "the founding Keras code: model.fit on the arrays, its step traced once into a graph, BCE on the logit",
         make(DeviceResident, Launch::GraphStep, LossKind::BceWithLogits, ZeroGrad::None, OptimizerKernel::PerTensor,
              Precision::Fp32, Gemm::Cublas),
         "keras"},
        {"Seed answer's fixes",
         "what the founding answer proposed: data on the device, no sync, BCEWithLogitsLoss, one zero_grad, fp16",
         make(DeviceResident, Launch::Eager, LossKind::BceWithLogits, ZeroGrad::Once, OptimizerKernel::PerTensor,
              Precision::Fp16, Gemm::Cublas),
         ""},
        {"Static graph (Keras-like)",
         "data on the device, each step captured once as a graph and replayed, one optimizer launch",
         make(DeviceResident, Launch::GraphStep, LossKind::BceWithLogits, ZeroGrad::None, OptimizerKernel::MultiTensor,
              Precision::Fp32, Gemm::Cublas),
         ""},
        // launch=persistent since its first GPU run (an H200): every combination verified, no sanitizer
        // error, bit-identical repeats, 0.73 ms per seed epoch against the fused path's 0.99 (bench/RESULTS.md).
        {"Fastest",
         "the persistent path: every step of an epoch in one resident kernel, the weights and the optimizer "
         "state on chip between steps, fp32",
         make(DeviceResident, Launch::Persistent, LossKind::BceWithLogits, ZeroGrad::None, OptimizerKernel::MultiTensor,
              Precision::Fp32, Gemm::Custom),
         ""},
    };
    return all;
}

const Preset& presetByName(const std::string& name) {
    std::string valid;
    for (const auto& p : presets()) {
        if (lower(p.name) == lower(name)) return p;
        valid += (valid.empty() ? "'" : ", '") + p.name + "'";
    }
    throw ConfigError("unknown preset '" + name + "' (valid: " + valid + ")");
}

std::optional<std::string> matchingPreset(const ExecutionSettings& s, const std::string& backend) {
    for (const auto& p : presets())
        if (p.settings == s && (backend.empty() || p.backend.empty() || p.backend == backend)) return p.name;
    return std::nullopt;
}

std::string toString(DataPath v) {
    return enumName(kDataPathNames, v);
}
std::string toString(Launch v) {
    return enumName(kLaunchNames, v);
}
std::string toString(LossKind v) {
    return enumName(kLossNames, v);
}
std::string toString(ZeroGrad v) {
    return enumName(kZeroGradNames, v);
}
std::string toString(OptimizerKernel v) {
    return enumName(kOptimizerKernelNames, v);
}
std::string toString(Precision v) {
    return enumName(kPrecisionNames, v);
}
std::string toString(Gemm v) {
    return enumName(kGemmNames, v);
}
LossKind lossKindFromString(const std::string& s) {
    return enumFromName(kLossNames, s, "loss");
}

const IgnoredSwitch* findIgnored(const std::vector<IgnoredSwitch>& list, const std::string& name) {
    const auto it = std::find_if(list.begin(), list.end(), [&name](const IgnoredSwitch& i) { return i.name == name; });
    return it == list.end() ? nullptr : &*it;
}

void to_json(nlohmann::json& j, const ExecutionSettings& s) {
    j = nlohmann::json::object();
    for (const auto& d : describeSwitches(s)) j[d.name] = d.value;
}

void from_json(const nlohmann::json& j, ExecutionSettings& s) {
    s = ExecutionSettings{};
    for (const auto& [name, value] : j.items()) setSwitch(s, name, value.get<std::string>());
}

void to_json(nlohmann::json& j, const IgnoredSwitch& s) {
    j = {{"switch", s.name}, {"reason", s.reason}};
}

void from_json(const nlohmann::json& j, IgnoredSwitch& s) {
    s.name = j.at("switch").get<std::string>();
    s.reason = j.value("reason", "");
}

}  // namespace wb
