#include "frameworks/jax_target.h"

#include "frameworks/switch_rules.h"

namespace wb {

namespace {
using JaxRule = SwitchRule<JaxTarget>;

bool onCpu(const JaxTarget& t) {
    return t.device == "cpu";
}

bool always(const ExecutionSettings&, const JaxTarget&) {
    return true;
}

const std::vector<JaxRule>& rules() {
    static const std::vector<JaxRule> kRules = {
        {"data_path",
         [](const ExecutionSettings& s, const JaxTarget& t) {
             return onCpu(t) && (s.dataPath == DataPath::PageableCopy || s.dataPath == DataPath::PinnedAsync);
         },
         because<JaxTarget>("on the CPU the rows already live where the model runs: there is no copy to a "
                            "device; the rows are sliced in place (device_resident)"),
         [](ExecutionSettings& s) { s.dataPath = DataPath::DeviceResident; }},
        {"data_path",
         [](const ExecutionSettings& s, const JaxTarget& t) {
             return !onCpu(t) && s.dataPath == DataPath::PinnedAsync;
         },
         because<JaxTarget>("JAX offers no pinned host buffers to stage a user's rows in; jax.device_put copies "
                            "each batch from ordinary host memory (pageable_copy)"),
         [](ExecutionSettings& s) { s.dataPath = DataPath::PageableCopy; }},
        {"launch", [](const ExecutionSettings& s, const JaxTarget&) { return s.launch == Launch::Persistent; },
         because<JaxTarget>("JAX has no whole-epoch persistent kernel; its nearest is the whole epoch as one jit "
                            "of lax.scan, which XLA still runs step by step (launch=fused)"),
         [](ExecutionSettings& s) { s.launch = Launch::Fused; }},
        {"zero_grad", always,
         because<JaxTarget>("jax.grad returns each step's gradients as fresh values: there are no gradient "
                            "buffers to zero"),
         [](ExecutionSettings& s) { s.zeroGrad = ZeroGrad::None; }},
        {"optimizer_kernel", always,
         because<JaxTarget>("the update is written over the whole parameter tree inside the jitted step, where "
                            "XLA fuses it; there is no per-tensor or multi-tensor choice to make"),
         [](ExecutionSettings& s) { s.optimizerKernel = OptimizerKernel::MultiTensor; }},
        {"precision",
         [](const ExecutionSettings& s, const JaxTarget& t) {
             return onCpu(t) && (s.precision == Precision::Tf32 || s.precision == Precision::Fp16);
         },
         because<JaxTarget>("TF32 and fp16 with loss scaling are GPU practices; on the CPU the loop runs in "
                            "fp32 (bf16 works on a CPU)"),
         [](ExecutionSettings& s) { s.precision = Precision::Fp32; }},
        {"gemm", [](const ExecutionSettings& s, const JaxTarget&) { return s.gemm == Gemm::Custom; },
         because<JaxTarget>("XLA picks its own matrix-product kernels (Eigen/oneDNN on a CPU, cuBLAS or its "
                            "own on a GPU)"),
         [](ExecutionSettings& s) { s.gemm = Gemm::Cublas; }},
    };
    return kRules;
}
}  // namespace

JaxTarget jaxTargetFor(const FrameworkFacts& facts, const FrameworkOptions& options) {
    JaxTarget t;
    t.device = options.device == "auto" ? (facts.cuda ? "cuda" : "cpu") : options.device;
    t.version = facts.version;
    return t;
}

std::vector<IgnoredSwitch> jaxIgnoredSwitches(const ExecutionSettings& s, const JaxTarget& target) {
    return ignoredByRules(rules(), s, target);
}

ExecutionSettings jaxEffectiveSettings(const ExecutionSettings& s, const JaxTarget& target) {
    return effectiveUnderRules(rules(), s, target);
}

}  // namespace wb
