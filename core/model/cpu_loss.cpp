#include "core/model/cpu_loss.h"

#include <algorithm>
#include <string>

#include <Eigen/Core>

#include "core/model/step_math.h"
#include "core/platform/errors.h"

namespace wb {

namespace {
using Array = Eigen::Map<Eigen::ArrayXf>;
using ConstArray = Eigen::Map<const Eigen::ArrayXf>;
// Logs of a block of probabilities on the stack (1 KiB each, in L1).
constexpr std::size_t kBlock = 256;
using Block = Eigen::Array<float, Eigen::Dynamic, 1, 0, kBlock, 1>;
Eigen::Index idx(std::size_t i) {
    return static_cast<Eigen::Index>(i);
}
}  // namespace

BatchLoss::BatchLoss(std::size_t capacity) : prob_(capacity), loss_(capacity) {}

double BatchLoss::operator()(LossKind kind, const float* logits, const float* labels, std::size_t n, float* dlogits,
                             std::size_t& correct, std::size_t batchRows) {
    if (n > prob_.size()) throw ConfigError("batch of " + std::to_string(n) + " rows exceeds the loss' capacity");
    const auto len = static_cast<Eigen::Index>(n);
    const ConstArray z(logits, len);
    float* p = prob_.data();     // (n) first exp(-z), then sigmoid(z)
    float* loss = loss_.data();  // (n) first the transcendental term of the loss, then the loss
    Array(p, len) = (-z).exp();
    for (std::size_t i = 0; i < n; ++i) p[i] = stepmath::sigmoidFrom(p[i]);
    if (kind == LossKind::BceWithLogits) {
        Array(loss, len) = (-z.abs()).exp().log1p();  // log(1 + exp(-|z|))
        for (std::size_t i = 0; i < n; ++i) loss[i] = stepmath::bceWithLogitsFrom(logits[i], labels[i], loss[i]);
    } else {
        for (std::size_t first = 0; first < n; first += kBlock) {
            const std::size_t count = std::min(kBlock, n - first);
            const ConstArray pb(p + first, static_cast<Eigen::Index>(count));
            Block logP = pb.log(), log1mP = (1.0f - pb).log();  // (count) each
            for (std::size_t i = 0; i < count; ++i)
                loss[first + i] = stepmath::sigmoidBceFrom(labels[first + i], logP[idx(i)], log1mP[idx(i)]);
        }
    }
    if (dlogits) {
        const float invN = 1.0f / static_cast<float>(batchRows ? batchRows : n);
        for (std::size_t i = 0; i < n; ++i) dlogits[i] = stepmath::lossGrad(kind, labels[i], p[i], invN);
    }
    std::size_t right = 0;
    for (std::size_t i = 0; i < n; ++i) right += stepmath::isCorrect(p[i], labels[i]) ? 1 : 0;
    correct = right;
    double sum = 0.0;  // in double and in order, as lossAndGrad sums
    for (std::size_t i = 0; i < n; ++i) sum += loss[i];
    return sum;
}

}  // namespace wb
