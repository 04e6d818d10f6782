#include "frameworks/keras_task_code.h"

#include "frameworks/script_text.h"

namespace wb {

// The loss compile() gets, as the docstring names it.
std::string kerasLossName(const RunConfig& c, const ExecutionSettings& run, Task task) {
    const std::string logits = pyBool(run.loss == LossKind::BceWithLogits);
    switch (task) {
        case Task::Binary: return "BinaryCrossentropy(from_logits=" + logits + ")";
        case Task::Multiclass: return "SparseCategoricalCrossentropy(from_logits=" + logits + ")";
        case Task::Regression:
            return c.model.regressionLoss == RegressionLoss::Huber ? "Huber(delta=1.0)" : "MeanSquaredError()";
    }
    return {};
}

// The output layer of a multiclass or regression model (float32, as the binary one).
std::string kerasTaskOutputLayer(const RunConfig& c, const ExecutionSettings& run, Task task) {
    if (task == Task::Regression)
        return "    # a regression: one linear output, the prediction of the standardised target.\n"
               "    layers.append(keras.layers.Dense(1, activation=None, dtype=\"float32\", **initializers(fan_in)))\n";
    const std::string k = std::to_string(c.model.outputs);
    return run.loss == LossKind::SigmoidBce
               ? "    # loss=sigmoid_bce: the model ends in a softmax over the classes.\n"
                 "    layers.append(keras.layers.Dense(" +
                     k + ", activation=\"softmax\", dtype=\"float32\", **initializers(fan_in)))\n"
               : "    # loss=bce_with_logits: one logit per class; the loss applies the log-softmax.\n"
                 "    layers.append(keras.layers.Dense(" +
                     k + ", activation=None, dtype=\"float32\", **initializers(fan_in)))\n";
}

namespace {
bool weighted(const RunConfig& c, Task task) {
    return task == Task::Multiclass && !c.model.classWeights.values.empty();
}
}  // namespace

std::string kerasTaskLossDefinition(const RunConfig& c, const ExecutionSettings& run, Task task) {
    if (!weighted(c, task)) return "";
    return "\n    # --class-weights: PyTorch's CrossEntropyLoss(weight=w), sum w[y] l / sum w[y] over the batch.\n"
           "    # Keras' own fit(class_weight=...) divides sum w[y] l by the batch's rows instead: not the same.\n"
           "    # fit's epoch loss averages the batches' losses by rows.\n"
           "    class_weight = keras.ops.convert_to_tensor(" +
           pyFloatList(c.model.classWeights.values) +
           ", dtype=\"float32\")\n"
           "    row_loss = keras.losses.SparseCategoricalCrossentropy(from_logits=" +
           pyBool(run.loss == LossKind::BceWithLogits) +
           ", reduction=None)\n\n"
           "    def weighted_loss(y_true, y_pred):  # y_true (B, 1): the class index as a float\n"
           "        w = keras.ops.take(class_weight, keras.ops.cast(keras.ops.reshape(y_true, (-1,)), \"int32\"))\n"
           "        return keras.ops.sum(w * row_loss(y_true, y_pred)) / keras.ops.sum(w)\n";
}

// compile()'s loss and metrics for a multiclass or regression run.
std::string kerasTaskCompileArguments(const RunConfig& c, const ExecutionSettings& run, Task task) {
    if (weighted(c, task))
        return "loss=weighted_loss,  # " + kerasLossName(c, run, task) +
               " weighted by class, loss=" + toString(run.loss) +
               "\n                  optimizer=optimizer,\n"
               "                  metrics=[keras.metrics.SparseCategoricalAccuracy(name=\"accuracy\")],\n";
    if (task == Task::Multiclass)
        return "loss=keras.losses." + kerasLossName(c, run, task) + ",  # loss=" + toString(run.loss) +
               "\n                  optimizer=optimizer,\n"
               "                  metrics=[keras.metrics.SparseCategoricalAccuracy(name=\"accuracy\")],\n";
    // A regression: the means of squared and absolute errors, times the rows, are the epoch's sums.
    return "loss=keras.losses." + kerasLossName(c, run, task) +
           ",  # a regression, on the standardised target\n"
           "                  optimizer=optimizer,\n"
           "                  metrics=[keras.metrics.MeanSquaredError(name=\"squared_error\"),\n"
           "                           keras.metrics.MeanAbsoluteError(name=\"absolute_error\")],\n";
}

}  // namespace wb
