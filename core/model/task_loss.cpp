#include "core/model/task_loss.h"

#include <string>

#include "core/model/step_math.h"
#include "core/platform/errors.h"

namespace wb {

LossSpec lossSpecOf(const PreparedData& data, const ModelSpec& model, const ExecutionSettings& settings) {
    LossSpec spec{data.task, settings.loss, model.regressionLoss, data.outputs()};
    if (data.task == Task::Multiclass && !model.classWeights.values.empty())
        spec.classWeights = model.classWeights.values.data();
    return spec;
}

std::vector<float> resolveClassWeights(const ClassWeights& w, const PreparedData& data) {
    if (w.empty()) return {};
    if (data.task != Task::Multiclass)
        throw ConfigError("class weights apply to multiclass; this data is " + toString(data.task));
    const auto k = static_cast<std::size_t>(data.outputs());
    if (!w.values.empty() && w.values.size() != k)
        throw ConfigError("class weights: " + std::to_string(w.values.size()) + " given, but this data has " +
                          std::to_string(k) + " classes; give one weight per class, in the class order");
    if (!w.values.empty() || !w.balanced) return w.values;
    // scikit-learn's compute_class_weight("balanced"): n_rows / (K count_k), in double.
    std::vector<std::size_t> counts(k, 0);
    for (const float y : data.trainY) ++counts[static_cast<std::size_t>(y)];
    std::vector<float> out(k);
    for (std::size_t c = 0; c < k; ++c) {
        if (counts[c] == 0)
            throw ConfigError("balanced class weights: class " + std::to_string(c + 1) + " of " + std::to_string(k) +
                              " has no training rows; give the weights as numbers");
        out[c] = static_cast<float>(static_cast<double>(data.trainRows()) /
                                    (static_cast<double>(k) * static_cast<double>(counts[c])));
    }
    return out;
}

TaskLoss::TaskLoss(const LossSpec& spec, std::size_t capacity)
    : spec_(spec), binary_(spec.task == Task::Binary ? capacity : 0) {
    if (spec.outputs < 1 || (spec.task != Task::Multiclass && spec.outputs != 1))
        throw ConfigError("a " + toString(spec.task) + " loss cannot take " + std::to_string(spec.outputs) +
                          " outputs per row");
    if (spec.classWeights && spec.task == Task::Multiclass)
        weights_.assign(spec.classWeights, spec.classWeights + spec.outputs);
    spec_.classWeights = nullptr;
}

LossSpec TaskLoss::spec() const {
    LossSpec s = spec_;
    s.classWeights = weights_.empty() ? nullptr : weights_.data();
    return s;
}

double TaskLoss::batchWeight(const float* labels, std::size_t n) const {
    return weights_.empty() ? static_cast<double>(n) : stepmath::batchWeightSum(spec(), labels, n);
}

LossSums TaskLoss::operator()(const float* logits, const float* labels, std::size_t n, float* dlogits,
                              std::size_t batchRows, double batchWeight) {
    LossSums s;
    if (spec_.task == Task::Binary) {
        s.lossSum = binary_(spec_.kind, logits, labels, n, dlogits, s.correct, batchRows);
        return s;
    }
    const LossSpec spec = this->spec();
    float invN = 1.0f / static_cast<float>(batchRows ? batchRows : n);
    if (spec.classWeights) {
        // A chunk cannot see the rest of its batch: its caller passes the batch's weight sum.
        if (batchWeight <= 0 && batchRows && batchRows != n)
            throw ConfigError("class weights: a part of a batch needs the whole batch's weight sum");
        invN = 1.0f / static_cast<float>(batchWeight > 0 ? batchWeight : this->batchWeight(labels, n));
    }
    const auto k = static_cast<std::size_t>(spec.outputs);
    for (std::size_t i = 0; i < n; ++i) {
        const stepmath::RowLoss r =
            stepmath::rowLoss(spec, logits + i * k, labels[i], invN, 1.0f, dlogits ? dlogits + i * k : nullptr);
        if (spec.classWeights) s.weightSum += r.weight;
        s.lossSum += r.loss;
        s.correct += r.right ? 1 : 0;
        s.squaredError += r.squaredError;
        s.absoluteError += r.absoluteError;
    }
    return s;
}

}  // namespace wb
