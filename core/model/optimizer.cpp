#include "core/model/optimizer.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "core/model/optimizer_loops.h"
#include "core/model/step_math.h"
#include "core/platform/enum_names.h"
#include "core/platform/errors.h"
#include "core/platform/json_fields.h"

namespace wb {

namespace {
const EnumNames<OptimizerKind> kOptimizerNames = {{OptimizerKind::Adam, "adam"},
                                                  {OptimizerKind::AdamW, "adamw"},
                                                  {OptimizerKind::Sgd, "sgd"},
                                                  {OptimizerKind::RmsProp, "rmsprop"}};

// Every update is step_math.h's element formula in a loop (optimizer_loops.h), run through
// `loops`: the build's baseline copy, or a CPU target's.

// torch.optim.Adam / AdamW (single-tensor path). Scalars are computed in double as PyTorch does in
// Python, then applied in float as its float kernels do.
class Adam final : public Optimizer {
public:
    Adam(const OptimizerSpec& s, std::size_t n, const OptimizerLoops& loops)
        : loops_(loops), s_(stepmath::optimizerScalars(s)), m_(n, 0.0f), v_(n, 0.0f) {}

    void beginStep() override { t_ = stepmath::stepScalars(s_, ++step_); }

    void update(float* p, const float* g, std::size_t offset, std::size_t n) override {
        loops_.adam(s_, t_, p, g, m_.data(), v_.data(), offset, n);
    }

private:
    const OptimizerLoops& loops_;
    stepmath::OptimizerScalars s_;
    std::vector<float> m_, v_;  // (paramCount) first and second moments
    stepmath::StepScalars t_;
};

// torch.optim.SGD with momentum, dampening, Nesterov and weight decay.
class Sgd final : public Optimizer {
public:
    Sgd(const OptimizerSpec& s, std::size_t n, const OptimizerLoops& loops)
        : loops_(loops), s_(stepmath::optimizerScalars(s)), buf_(s.momentum != 0.0 ? n : 0, 0.0f) {}
    void beginStep() override { t_ = stepmath::stepScalars(s_, ++step_); }

    void update(float* p, const float* g, std::size_t offset, std::size_t n) override {
        loops_.sgd(s_, t_, p, g, buf_.empty() ? nullptr : buf_.data(), offset, n);
    }

private:
    const OptimizerLoops& loops_;
    stepmath::OptimizerScalars s_;
    std::vector<float> buf_;  // (paramCount) momentum buffer, empty without momentum
    stepmath::StepScalars t_;
};

// torch.optim.RMSprop, plain or centred, with optional momentum.
class RmsProp final : public Optimizer {
public:
    RmsProp(const OptimizerSpec& s, std::size_t n, const OptimizerLoops& loops)
        : loops_(loops),
          s_(stepmath::optimizerScalars(s)),
          sq_(n, 0.0f),
          avg_(s.centered ? n : 0, 0.0f),
          buf_(s.momentum > 0 ? n : 0, 0.0f) {}
    void beginStep() override { ++step_; }

    void update(float* p, const float* g, std::size_t offset, std::size_t n) override {
        loops_.rmsprop(s_, p, g, sq_.data(), avg_.empty() ? nullptr : avg_.data(), buf_.empty() ? nullptr : buf_.data(),
                       offset, n);
    }

private:
    const OptimizerLoops& loops_;
    stepmath::OptimizerScalars s_;
    std::vector<float> sq_, avg_, buf_;  // (paramCount) square average, gradient average, momentum
};

// The build's baseline copies of the loops (kBaselineLoops), for everyone but the CPU backend.
WB_DEFINE_OPTIMIZER_LOOPS(kBaselineLoops);

void requireRange(double value, double lo, double hi, const std::string& what) {
    if (!(value >= lo && value <= hi) || !std::isfinite(value))
        throw ConfigError(what + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                          std::to_string(value));
}
}  // namespace

OptimizerSpec OptimizerSpec::defaults(OptimizerKind kind) {
    OptimizerSpec s;
    s.kind = kind;
    if (kind == OptimizerKind::RmsProp) s.lr = 1e-2;
    if (kind == OptimizerKind::AdamW) s.weightDecay = 1e-2;
    return s;
}

void OptimizerSpec::validate() const {
    if (!(lr > 0.0) || !std::isfinite(lr))
        throw ConfigError("learning rate must be positive, got " + std::to_string(lr));
    requireRange(beta1, 0.0, 0.999999, "beta1");
    requireRange(beta2, 0.0, 0.999999, "beta2");
    requireRange(eps, 0.0, 1.0, "eps");
    requireRange(weightDecay, 0.0, 1.0, "weight decay");
    requireRange(momentum, 0.0, 1.0, "momentum");
    requireRange(dampening, 0.0, 1.0, "dampening");
    requireRange(alpha, 0.0, 1.0, "alpha");
    if (kind == OptimizerKind::Sgd && nesterov && (momentum <= 0.0 || dampening != 0.0))
        throw ConfigError("Nesterov momentum requires a momentum above 0 and zero dampening (as in PyTorch)");
}

const OptimizerLoops& baselineOptimizerLoops() {
    return kBaselineLoops;
}

std::unique_ptr<Optimizer> makeOptimizer(const OptimizerSpec& spec, std::size_t paramCount,
                                         const OptimizerLoops& loops) {
    spec.validate();
    switch (spec.kind) {
        case OptimizerKind::Adam:
        case OptimizerKind::AdamW: return std::make_unique<Adam>(spec, paramCount, loops);
        case OptimizerKind::Sgd: return std::make_unique<Sgd>(spec, paramCount, loops);
        case OptimizerKind::RmsProp: return std::make_unique<RmsProp>(spec, paramCount, loops);
    }
    throw ConfigError("unknown optimizer");
}

std::string toString(OptimizerKind k) {
    return enumName(kOptimizerNames, k);
}
OptimizerKind optimizerKindFromString(const std::string& s) {
    return enumFromName(kOptimizerNames, s, "optimizer");
}

void to_json(nlohmann::json& j, const OptimizerSpec& s) {
    j = {{"type", toString(s.kind)},
         {"lr", s.lr},
         {"beta1", s.beta1},
         {"beta2", s.beta2},
         {"eps", s.eps},
         {"weight_decay", s.weightDecay},
         {"momentum", s.momentum},
         {"dampening", s.dampening},
         {"nesterov", s.nesterov},
         {"alpha", s.alpha},
         {"centered", s.centered}};
}

void from_json(const nlohmann::json& j, OptimizerSpec& s) {
    s = OptimizerSpec::defaults(optimizerKindFromString(requiredField<std::string>(j, "type")));
    s.lr = fieldOr(j, "lr", s.lr);
    s.beta1 = fieldOr(j, "beta1", s.beta1);
    s.beta2 = fieldOr(j, "beta2", s.beta2);
    s.eps = fieldOr(j, "eps", s.eps);
    s.weightDecay = fieldOr(j, "weight_decay", s.weightDecay);
    s.momentum = fieldOr(j, "momentum", s.momentum);
    s.dampening = fieldOr(j, "dampening", s.dampening);
    s.nesterov = fieldOr(j, "nesterov", s.nesterov);
    s.alpha = fieldOr(j, "alpha", s.alpha);
    s.centered = fieldOr(j, "centered", s.centered);
}

}  // namespace wb
