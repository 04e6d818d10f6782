#include "cpu_loss.h"

#include <string>

#include <Eigen/Core>

#include "errors.h"

namespace wb {

namespace {
using Array = Eigen::Map<Eigen::ArrayXf>;
using ConstArray = Eigen::Map<const Eigen::ArrayXf>;
}  // namespace

BatchLoss::BatchLoss(std::size_t capacity) : prob_(capacity), loss_(capacity) {}

double BatchLoss::operator()(LossKind kind, const float* logits, const float* labels, std::size_t n, float* dlogits,
                             std::size_t& correct) {
    if (n > prob_.size()) throw ConfigError("batch of " + std::to_string(n) + " rows exceeds the loss' capacity");
    const auto len = static_cast<Eigen::Index>(n);
    ConstArray z(logits, len), y(labels, len);
    Array p(prob_.data(), len), loss(loss_.data(), len);
    p = 1.0f / (1.0f + (-z).exp());
    if (kind == LossKind::BceWithLogits)  // max(z,0) - z y + log(1 + exp(-|z|)): finite for any finite z
        loss = z.max(0.0f) - z * y + (-z.abs()).exp().log1p();
    else  // BCELoss clamps each log at -100
        loss = -(y * p.log().max(-100.0f) + (1.0f - y) * (1.0f - p).log().max(-100.0f));

    if (dlogits) {
        const float invN = 1.0f / static_cast<float>(n);
        Array d(dlogits, len);
        if (kind == LossKind::BceWithLogits)
            d = (p - y) * invN;
        else  // BCELoss backward, then the sigmoid's: exactly PyTorch's two separate steps
            d = (p - y) / ((1.0f - p) * p).max(1e-12f) * invN * (p * (1.0f - p));
    }
    correct = static_cast<std::size_t>(((p >= 0.5f) == (y >= 0.5f)).count());
    double sum = 0.0;  // in double and in order, as lossAndGrad sums
    for (std::size_t i = 0; i < n; ++i) sum += loss_[i];
    return sum;
}

}  // namespace wb
