#include "core/model/execution_settings.h"

#include <algorithm>
#include <cctype>

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

// Describes one switch of `s`: its name, current value and all values.
template <typename E>
SwitchDescription describe(const std::string& name, const EnumNames<E>& table, E value) {
    return {name, enumName(table, value), enumNameList(table)};
}

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

std::vector<SwitchDescription> describeSwitches(const ExecutionSettings& s) {
    return {describe("data_path", kDataPathNames, s.dataPath),
            describe("launch", kLaunchNames, s.launch),
            describe("loss", kLossNames, s.loss),
            describe("zero_grad", kZeroGradNames, s.zeroGrad),
            describe("optimizer_kernel", kOptimizerKernelNames, s.optimizerKernel),
            describe("precision", kPrecisionNames, s.precision),
            describe("gemm", kGemmNames, s.gemm)};
}

std::string switchValue(const ExecutionSettings& s, const std::string& name) {
    for (const auto& d : describeSwitches(s))
        if (d.name == name) return d.value;
    throw ConfigError("unknown execution switch '" + name + "'");
}

void setSwitch(ExecutionSettings& s, const std::string& name, const std::string& value) {
    if (name == "data_path")
        s.dataPath = enumFromName(kDataPathNames, value, name);
    else if (name == "launch")
        s.launch = enumFromName(kLaunchNames, value, name);
    else if (name == "loss")
        s.loss = enumFromName(kLossNames, value, name);
    else if (name == "zero_grad")
        s.zeroGrad = enumFromName(kZeroGradNames, value, name);
    else if (name == "optimizer_kernel")
        s.optimizerKernel = enumFromName(kOptimizerKernelNames, value, name);
    else if (name == "precision")
        s.precision = enumFromName(kPrecisionNames, value, name);
    else if (name == "gemm")
        s.gemm = enumFromName(kGemmNames, value, name);
    else
        throw ConfigError("unknown execution switch '" + name + "'");
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
