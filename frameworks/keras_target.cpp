#include "frameworks/keras_target.h"

#include "frameworks/switch_rules.h"

namespace wb {

namespace {
using KerasRule = SwitchRule<KerasTarget>;

bool onCpu(const KerasTarget& t) {
    return t.device == "cpu";
}

bool always(const ExecutionSettings&, const KerasTarget&) {
    return true;
}

// fit feeds its batches from host arrays through its own tf.data pipeline; the only other data
// path it offers is a tf.data.Dataset built row by row (per_sample_gather).
std::vector<KerasRule> dataPathRules() {
    return {
        {"data_path",
         [](const ExecutionSettings& s, const KerasTarget& t) {
             return onCpu(t) && (s.dataPath == DataPath::PageableCopy || s.dataPath == DataPath::PinnedAsync);
         },
         because<KerasTarget>("on the CPU the rows already live where the model runs: there is no copy to a "
                              "device; fit slices its batches from the arrays in place (device_resident)"),
         [](ExecutionSettings& s) { s.dataPath = DataPath::DeviceResident; }},
        {"data_path",
         [](const ExecutionSettings& s, const KerasTarget& t) {
             return !onCpu(t) && (s.dataPath == DataPath::DeviceResident || s.dataPath == DataPath::PinnedAsync);
         },
         because<KerasTarget>("model.fit feeds every batch from host memory through its own tf.data pipeline, "
                              "which prefetches; Keras offers neither resident rows nor pinned memory to ask "
                              "for (pageable_copy)"),
         [](ExecutionSettings& s) { s.dataPath = DataPath::PageableCopy; }},
    };
}

std::vector<KerasRule> otherRules() {
    return {
        {"launch", [](const ExecutionSettings& s, const KerasTarget&) { return s.launch == Launch::Eager; },
         because<KerasTarget>("Keras has one eager mode, run_eagerly=True, which waits for every step "
                              "(launch=eager_sync); without it fit runs its step as a tf.function graph "
                              "(launch=graph_step)"),
         [](ExecutionSettings& s) { s.launch = Launch::GraphStep; }},
        {"launch", [](const ExecutionSettings& s, const KerasTarget&) { return s.launch == Launch::Persistent; },
         because<KerasTarget>("Keras has no whole-epoch persistent kernel; its nearest is the train step compiled "
                              "by XLA into a few fused kernels (launch=fused)"),
         [](ExecutionSettings& s) { s.launch = Launch::Fused; }},
        {"zero_grad", always,
         because<KerasTarget>("Keras computes each step's gradients afresh with a GradientTape: there are no "
                              "accumulated gradient buffers to zero"),
         [](ExecutionSettings& s) { s.zeroGrad = ZeroGrad::None; }},
        {"optimizer_kernel", always,
         because<KerasTarget>("Keras' optimizers update each variable inside the compiled train step; there "
                              "is no per-tensor or multi-tensor choice to make"),
         [](ExecutionSettings& s) { s.optimizerKernel = OptimizerKernel::PerTensor; }},
        {"precision",
         [](const ExecutionSettings& s, const KerasTarget& t) {
             return onCpu(t) && (s.precision == Precision::Tf32 || s.precision == Precision::Fp16);
         },
         because<KerasTarget>("TF32 and the mixed_float16 policy with loss scaling are GPU features; on the "
                              "CPU the loop runs in fp32 (the mixed_bfloat16 policy works on a CPU)"),
         [](ExecutionSettings& s) { s.precision = Precision::Fp32; }},
        {"gemm", [](const ExecutionSettings& s, const KerasTarget&) { return s.gemm == Gemm::Custom; },
         because<KerasTarget>("TensorFlow picks its own matrix-product kernels (oneDNN/Eigen on a CPU, cuBLAS "
                              "or XLA's on a GPU)"),
         [](ExecutionSettings& s) { s.gemm = Gemm::Cublas; }},
    };
}

const std::vector<KerasRule>& rules() {
    static const std::vector<KerasRule> kRules = [] {
        std::vector<KerasRule> all = dataPathRules();
        for (auto& r : otherRules()) all.push_back(std::move(r));
        return all;
    }();
    return kRules;
}
}  // namespace

KerasTarget kerasTargetFor(const FrameworkFacts& facts, const FrameworkOptions& options) {
    KerasTarget t;
    t.device = options.device == "auto" ? (facts.cuda ? "cuda" : "cpu") : options.device;
    t.version = facts.version;
    return t;
}

std::vector<IgnoredSwitch> kerasIgnoredSwitches(const ExecutionSettings& s, const KerasTarget& target) {
    return ignoredByRules(rules(), s, target);
}

ExecutionSettings kerasEffectiveSettings(const ExecutionSettings& s, const KerasTarget& target) {
    return effectiveUnderRules(rules(), s, target);
}

}  // namespace wb
