#include "task_loss.h"

#include <string>

#include "errors.h"
#include "step_math.h"

namespace wb {

LossSpec lossSpecOf(const PreparedData& data, const ModelSpec& model, const ExecutionSettings& settings) {
    return {data.task, settings.loss, model.regressionLoss, data.outputs()};
}

TaskLoss::TaskLoss(const LossSpec& spec, std::size_t capacity)
    : spec_(spec), binary_(spec.task == Task::Binary ? capacity : 0) {
    if (spec.outputs < 1 || (spec.task != Task::Multiclass && spec.outputs != 1))
        throw ConfigError("a " + toString(spec.task) + " loss cannot take " + std::to_string(spec.outputs) +
                          " outputs per row");
}

LossSums TaskLoss::operator()(const float* logits, const float* labels, std::size_t n, float* dlogits,
                              std::size_t batchRows) {
    LossSums s;
    if (spec_.task == Task::Binary) {
        s.lossSum = binary_(spec_.kind, logits, labels, n, dlogits, s.correct, batchRows);
        return s;
    }
    const float invN = 1.0f / static_cast<float>(batchRows ? batchRows : n);
    const auto k = static_cast<std::size_t>(spec_.outputs);
    for (std::size_t i = 0; i < n; ++i) {
        const stepmath::RowLoss r =
            stepmath::rowLoss(spec_, logits + i * k, labels[i], invN, 1.0f, dlogits ? dlogits + i * k : nullptr);
        s.lossSum += r.loss;
        s.correct += r.right ? 1 : 0;
        s.squaredError += r.squaredError;
        s.absoluteError += r.absoluteError;
    }
    return s;
}

}  // namespace wb
