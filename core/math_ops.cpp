#include "math_ops.h"

#include <algorithm>

#include <Eigen/Core>

namespace wb {

namespace {
using ArrayMap = Eigen::Map<Eigen::ArrayXf>;
using ConstArrayMap = Eigen::Map<const Eigen::ArrayXf>;

constexpr float kInvSqrt2 = 0.70710678118654752f;
constexpr float kInvSqrt2Pi = 0.39894228040143268f;

// PyTorch's default (exact) GELU: x * Phi(x).
float gelu(float x) {
    return 0.5f * x * (1.0f + std::erf(x * kInvSqrt2));
}
float geluGrad(float x) {
    return 0.5f * (1.0f + std::erf(x * kInvSqrt2)) + x * kInvSqrt2Pi * std::exp(-0.5f * x * x);
}

float sigmoid(float z) {
    return 1.0f / (1.0f + std::exp(-z));
}
}  // namespace

void activate(Activation a, float* z, std::size_t n) {
    ArrayMap v(z, static_cast<Eigen::Index>(n));
    switch (a) {
        case Activation::Tanh: v = v.tanh(); break;  // Eigen vectorises tanh for float
        case Activation::Relu: v = v.max(0.0f); break;
        case Activation::Sigmoid: v = v.logistic(); break;
        case Activation::Gelu: v = v.unaryExpr([](float x) { return gelu(x); }); break;
        case Activation::Identity: break;
    }
}

void activationBackward(Activation a, const float* z, const float* y, float* dy, std::size_t n) {
    const auto len = static_cast<Eigen::Index>(n);
    ArrayMap d(dy, len);
    ConstArrayMap out(y, len);
    ConstArrayMap in(z, len);
    switch (a) {
        case Activation::Tanh: d *= 1.0f - out.square(); break;
        case Activation::Relu: d = (in > 0.0f).select(d, 0.0f); break;
        case Activation::Sigmoid: d *= out * (1.0f - out); break;
        case Activation::Gelu: d *= in.unaryExpr([](float x) { return geluGrad(x); }); break;
        case Activation::Identity: break;
    }
}

namespace {
// Per-sample loss in float, as PyTorch computes it; `p` = sigmoid(z) is passed in because the
// caller needs it anyway.
inline float lossOf(LossKind kind, float z, float y, float p) {
    if (kind == LossKind::BceWithLogits)  // max(z,0) - z y + log(1 + exp(-|z|)): finite for any finite z
        return std::max(z, 0.0f) - z * y + std::log1p(std::exp(-std::abs(z)));
    const float logP = std::max(std::log(p), -100.0f);  // BCELoss clamps each log at -100
    const float log1mP = std::max(std::log(1.0f - p), -100.0f);
    return -(y * logP + (1.0f - y) * log1mP);
}
}  // namespace

double sampleLoss(LossKind kind, float logit, float label) {
    return lossOf(kind, logit, label, sigmoid(logit));
}

double lossAndGrad(LossKind kind, const float* logits, const float* labels, std::size_t n, float* dlogits,
                   std::size_t* correct) {
    double sum = 0.0;
    std::size_t right = 0;
    const float invN = 1.0f / static_cast<float>(n);
    for (std::size_t i = 0; i < n; ++i) {
        const float z = logits[i];
        const float y = labels[i];
        const float p = sigmoid(z);
        sum += lossOf(kind, z, y, p);
        right += ((p >= 0.5f) == (y >= 0.5f)) ? 1 : 0;
        if (!dlogits) continue;
        if (kind == LossKind::BceWithLogits) {
            dlogits[i] = (p - y) * invN;
        } else {
            // BCELoss backward, then the sigmoid's: exactly PyTorch's two separate steps.
            const float dp = (p - y) / std::max((1.0f - p) * p, 1e-12f) * invN;
            dlogits[i] = dp * (p * (1.0f - p));
        }
    }
    if (correct) *correct = right;
    return sum;
}

}  // namespace wb
