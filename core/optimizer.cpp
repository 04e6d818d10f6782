#include "optimizer.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "enum_names.h"
#include "errors.h"

namespace wb {

namespace {
const EnumNames<OptimizerKind> kOptimizerNames = {{OptimizerKind::Adam, "adam"},
                                                  {OptimizerKind::AdamW, "adamw"},
                                                  {OptimizerKind::Sgd, "sgd"},
                                                  {OptimizerKind::RmsProp, "rmsprop"}};

// torch.optim.Adam / AdamW (single-tensor path). Scalars are computed in double as PyTorch does in
// Python, then applied in float as its float kernels do.
class Adam final : public Optimizer {
public:
    Adam(const OptimizerSpec& s, std::size_t n, bool decoupled)
        : s_(s), decoupled_(decoupled), m_(n, 0.0f), v_(n, 0.0f) {}

    void beginStep() override {
        ++step_;
        const double bc1 = 1.0 - std::pow(s_.beta1, static_cast<double>(step_));
        const double bc2 = 1.0 - std::pow(s_.beta2, static_cast<double>(step_));
        stepSize_ = static_cast<float>(s_.lr / bc1);
        bc2Sqrt_ = static_cast<float>(std::sqrt(bc2));
    }

    void update(float* p, const float* g, std::size_t offset, std::size_t n) override {
        if (decoupled_) {  // AdamW: decay the weight itself, before the update
            const float decay = static_cast<float>(1.0 - s_.lr * s_.weightDecay);
            for (std::size_t i = offset; i < offset + n; ++i) p[i] *= decay;
        }
        // Without branches in the loop body, so the compiler vectorises it.
        if (!decoupled_ && s_.weightDecay != 0.0)
            adamUpdate<true>(p, g, offset, n);
        else
            adamUpdate<false>(p, g, offset, n);
    }

private:
    // Adam's moment and parameter update; kL2: Adam's weight decay, added to the gradient.
    template <bool kL2>
    void adamUpdate(float* p, const float* g, std::size_t offset, std::size_t n) {
        const auto b1 = static_cast<float>(s_.beta1), b2 = static_cast<float>(s_.beta2);
        const auto eps = static_cast<float>(s_.eps), wd = static_cast<float>(s_.weightDecay);
        const float stepSize = stepSize_, bc2Sqrt = bc2Sqrt_;  // locals: no aliasing with p
        float* m = m_.data();
        float* v = v_.data();
        for (std::size_t i = offset; i < offset + n; ++i) {
            float grad = g[i];
            if constexpr (kL2) grad += wd * p[i];
            m[i] = m[i] * b1 + grad * (1.0f - b1);
            v[i] = v[i] * b2 + grad * grad * (1.0f - b2);
            const float denom = std::sqrt(v[i]) / bc2Sqrt + eps;
            p[i] -= stepSize * (m[i] / denom);
        }
    }

private:
    OptimizerSpec s_;
    bool decoupled_;
    std::vector<float> m_, v_;  // (paramCount) first and second moments
    float stepSize_ = 0, bc2Sqrt_ = 1;
};

// torch.optim.SGD with momentum, dampening, Nesterov and weight decay.
class Sgd final : public Optimizer {
public:
    Sgd(const OptimizerSpec& s, std::size_t n) : s_(s), buf_(s.momentum != 0.0 ? n : 0, 0.0f) {}
    void beginStep() override { ++step_; }

    void update(float* p, const float* g, std::size_t offset, std::size_t n) override {
        const auto lr = static_cast<float>(s_.lr), wd = static_cast<float>(s_.weightDecay);
        const auto mu = static_cast<float>(s_.momentum), damp = static_cast<float>(s_.dampening);
        for (std::size_t i = offset; i < offset + n; ++i) {
            float d = g[i];
            if (wd != 0.0f) d += wd * p[i];
            if (mu != 0.0f) {
                float& b = buf_[i];
                b = (step_ == 1) ? d : b * mu + d * (1.0f - damp);  // the buffer starts as a copy
                d = s_.nesterov ? d + mu * b : b;
            }
            p[i] -= lr * d;
        }
    }

private:
    OptimizerSpec s_;
    std::vector<float> buf_;  // (paramCount) momentum buffer, empty without momentum
};

// torch.optim.RMSprop, plain or centred, with optional momentum.
class RmsProp final : public Optimizer {
public:
    RmsProp(const OptimizerSpec& s, std::size_t n)
        : s_(s), sq_(n, 0.0f), avg_(s.centered ? n : 0, 0.0f), buf_(s.momentum > 0 ? n : 0, 0.0f) {}
    void beginStep() override { ++step_; }

    void update(float* p, const float* g, std::size_t offset, std::size_t n) override {
        const auto lr = static_cast<float>(s_.lr), wd = static_cast<float>(s_.weightDecay);
        const auto a = static_cast<float>(s_.alpha), eps = static_cast<float>(s_.eps);
        const auto mu = static_cast<float>(s_.momentum);
        for (std::size_t i = offset; i < offset + n; ++i) {
            float grad = g[i];
            if (wd != 0.0f) grad += wd * p[i];
            sq_[i] = sq_[i] * a + grad * grad * (1.0f - a);
            float denom;
            if (s_.centered) {
                avg_[i] = avg_[i] * a + grad * (1.0f - a);
                denom = std::sqrt(sq_[i] - avg_[i] * avg_[i]) + eps;
            } else {
                denom = std::sqrt(sq_[i]) + eps;
            }
            if (mu > 0.0f) {
                buf_[i] = buf_[i] * mu + grad / denom;
                p[i] -= lr * buf_[i];
            } else {
                p[i] -= lr * (grad / denom);
            }
        }
    }

private:
    OptimizerSpec s_;
    std::vector<float> sq_, avg_, buf_;  // (paramCount) square average, gradient average, momentum
};

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

std::unique_ptr<Optimizer> makeOptimizer(const OptimizerSpec& spec, std::size_t paramCount) {
    spec.validate();
    switch (spec.kind) {
        case OptimizerKind::Adam: return std::make_unique<Adam>(spec, paramCount, false);
        case OptimizerKind::AdamW: return std::make_unique<Adam>(spec, paramCount, true);
        case OptimizerKind::Sgd: return std::make_unique<Sgd>(spec, paramCount);
        case OptimizerKind::RmsProp: return std::make_unique<RmsProp>(spec, paramCount);
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
    s = OptimizerSpec::defaults(optimizerKindFromString(j.at("type").get<std::string>()));
    s.lr = j.value("lr", s.lr);
    s.beta1 = j.value("beta1", s.beta1);
    s.beta2 = j.value("beta2", s.beta2);
    s.eps = j.value("eps", s.eps);
    s.weightDecay = j.value("weight_decay", s.weightDecay);
    s.momentum = j.value("momentum", s.momentum);
    s.dampening = j.value("dampening", s.dampening);
    s.nesterov = j.value("nesterov", s.nesterov);
    s.alpha = j.value("alpha", s.alpha);
    s.centered = j.value("centered", s.centered);
}

}  // namespace wb
