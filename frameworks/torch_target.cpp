#include "frameworks/torch_target.h"

#include "frameworks/switch_rules.h"

namespace wb {

namespace {
using TorchRule = SwitchRule<TorchTarget>;

bool onCpu(const TorchTarget& t) {
    return t.device == "cpu";
}

const std::vector<TorchRule>& rules() {
    static const std::vector<TorchRule> kRules = {
        {"data_path",
         [](const ExecutionSettings& s, const TorchTarget& t) {
             return onCpu(t) && (s.dataPath == DataPath::PageableCopy || s.dataPath == DataPath::PinnedAsync);
         },
         [](const TorchTarget&) {
             return std::string(
                 "on the CPU the rows already live where the model runs: there is no copy to a device, "
                 "pageable or pinned; the rows are sliced in place (device_resident)");
         },
         [](ExecutionSettings& s) { s.dataPath = DataPath::DeviceResident; }},
        {"launch", [](const ExecutionSettings& s, const TorchTarget&) { return s.launch == Launch::Fused; },
         [](const TorchTarget&) {
             return std::string(
                 "PyTorch has no whole-step fused kernel of its own; the step runs eagerly (launch=eager)");
         },
         [](ExecutionSettings& s) { s.launch = Launch::Eager; }},
        {"launch", [](const ExecutionSettings& s, const TorchTarget&) { return s.launch == Launch::Persistent; },
         [](const TorchTarget&) {
             return std::string(
                 "PyTorch has no whole-epoch persistent kernel of its own; the step runs eagerly (launch=eager)");
         },
         [](ExecutionSettings& s) { s.launch = Launch::Eager; }},
        {"launch",
         [](const ExecutionSettings& s, const TorchTarget& t) {
             return s.launch == Launch::GraphStep && !t.hasCompile;
         },
         [](const TorchTarget& t) {
             return "torch.compile needs PyTorch 2.0 or newer; this interpreter has PyTorch " + t.version +
                    ", so the step runs eagerly (launch=eager)";
         },
         [](ExecutionSettings& s) { s.launch = Launch::Eager; }},
        {"precision",
         [](const ExecutionSettings& s, const TorchTarget& t) {
             return onCpu(t) && (s.precision == Precision::Tf32 || s.precision == Precision::Fp16);
         },
         [](const TorchTarget&) {
             return std::string(
                 "TF32 and fp16 autocast with GradScaler are CUDA features; on the CPU the loop runs "
                 "in fp32 (bf16 autocast works on a CPU)");
         },
         [](ExecutionSettings& s) { s.precision = Precision::Fp32; }},
        {"gemm", [](const ExecutionSettings& s, const TorchTarget&) { return s.gemm == Gemm::Custom; },
         [](const TorchTarget&) {
             return std::string("PyTorch picks its own matrix-product kernels (MKL/oneDNN on a CPU, cuBLAS on a GPU)");
         },
         [](ExecutionSettings& s) { s.gemm = Gemm::Cublas; }},
    };
    return kRules;
}
}  // namespace

TorchTarget torchTargetFor(const FrameworkFacts& facts, const FrameworkOptions& options) {
    TorchTarget t;
    t.device = options.device == "auto" ? (facts.cuda ? "cuda" : "cpu") : options.device;
    t.version = facts.version;
    t.hasCompile = facts.version.empty() || facts.versionAtLeast(2, 0);
    return t;
}

std::vector<IgnoredSwitch> torchIgnoredSwitches(const ExecutionSettings& s, const TorchTarget& target) {
    return ignoredByRules(rules(), s, target);
}

ExecutionSettings torchEffectiveSettings(const ExecutionSettings& s, const TorchTarget& target) {
    return effectiveUnderRules(rules(), s, target);
}

}  // namespace wb
