#include "task_loss.h"

#include <cmath>
#include <string>

#include "errors.h"
#include "step_math.h"

namespace wb {

LossSpec lossSpecOf(const PreparedData& data, const ModelSpec& model, const ExecutionSettings& settings) {
    return {data.task, settings.loss, model.regressionLoss, data.outputs()};
}

LossSums& LossSums::operator+=(const LossSums& o) {
    loss += o.loss;
    correct += o.correct;
    squaredError += o.squaredError;
    absoluteError += o.absoluteError;
    return *this;
}

TaskLoss::TaskLoss(const LossSpec& spec, std::size_t capacity)
    : spec_(spec),
      binary_(spec.task == Task::Binary ? capacity : 0),
      exps_(static_cast<std::size_t>(spec.outputs)) {
    if (spec.outputs < 1 || (spec.task != Task::Multiclass && spec.outputs != 1))
        throw ConfigError("a " + toString(spec.task) + " loss cannot take " + std::to_string(spec.outputs) +
                          " outputs per row");
}

LossSums TaskLoss::operator()(const float* logits, const float* labels, std::size_t n, float* dlogits,
                              std::size_t batchRows) {
    const float invN = 1.0f / static_cast<float>(batchRows ? batchRows : n);
    if (spec_.task == Task::Multiclass) return multiclass(logits, labels, n, dlogits, invN);
    if (spec_.task == Task::Regression) return regression(logits, labels, n, dlogits, invN);
    LossSums s;
    s.loss = binary_(spec_.kind, logits, labels, n, dlogits, s.correct, batchRows);
    return s;
}

// Row by row: the max, exp(z - max) and its sum, then the loss and every logit's gradient.
LossSums TaskLoss::multiclass(const float* logits, const float* labels, std::size_t n, float* dlogits, float invN) {
    const auto k = static_cast<std::size_t>(spec_.outputs);
    const bool fused = spec_.kind == LossKind::BceWithLogits;
    float* e = exps_.data();  // (K)
    LossSums s;
    for (std::size_t i = 0; i < n; ++i) {
        const float* z = logits + i * k;  // (K)
        const auto y = static_cast<std::size_t>(labels[i]);
        std::size_t best = 0;
        for (std::size_t j = 1; j < k; ++j)
            if (z[j] > z[best]) best = j;  // the first largest, as torch.argmax
        const float m = z[best];
        float sum = 0.0f;
        for (std::size_t j = 0; j < k; ++j) sum += (e[j] = std::exp(z[j] - m));
        const float py = e[y] / sum;
        s.loss += fused ? stepmath::crossEntropyFrom(m + std::log(sum), z[y]) : stepmath::softmaxNllFrom(std::log(py));
        s.correct += best == y ? 1 : 0;
        if (!dlogits) continue;
        float* g = dlogits + i * k;  // (K)
        for (std::size_t j = 0; j < k; ++j) {
            const float pj = e[j] / sum;
            g[j] = fused ? stepmath::crossEntropyGrad(pj, j == y, invN) : stepmath::softmaxNllGrad(pj, j == y, py, invN);
        }
    }
    return s;
}

LossSums TaskLoss::regression(const float* logits, const float* labels, std::size_t n, float* dlogits,
                              float invN) const {
    LossSums s;
    for (std::size_t i = 0; i < n; ++i) {
        const float z = logits[i], t = labels[i];
        s.loss += stepmath::regressionLoss(spec_.regression, z, t);
        s.squaredError += stepmath::squaredError(z, t);
        s.absoluteError += std::fabs(z - t);
        if (dlogits) dlogits[i] = stepmath::regressionGrad(spec_.regression, z, t, invN);
    }
    return s;
}

}  // namespace wb
