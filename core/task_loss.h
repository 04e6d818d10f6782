// The loss of a batch for any task, on the CPU: binary through BatchLoss (cpu_loss.h), multiclass
// (softmax cross-entropy over K logits) and regression (MSE or Huber on one output) here, each
// with step_math.h's formulas. Also the sums an epoch's metrics are made of.
#pragma once

#include <cstddef>

#include "aligned_vector.h"
#include "cpu_loss.h"
#include "execution_settings.h"
#include "math_ops.h"
#include "model.h"
#include "prepare.h"
#include "task.h"

namespace wb {

// Which loss, in which form.
struct LossSpec {
    Task task = Task::Binary;
    // Binary and multiclass: the fused form on the logits (BCEWithLogitsLoss, CrossEntropyLoss) or
    // the separate steps (Sigmoid + BCELoss, log(softmax) + NLLLoss). Not used by a regression.
    LossKind kind = LossKind::BceWithLogits;
    RegressionLoss regression = RegressionLoss::Mse;
    int outputs = 1;  // logits per row: K for multiclass, else 1
};

// The loss a run trains with: the data's task, the `loss` switch, the model's regression loss.
LossSpec lossSpecOf(const PreparedData& data, const ModelSpec& model, const ExecutionSettings& settings);

// What one batch (or a chunk of one) adds to an epoch's metrics.
struct LossSums {
    double loss = 0;           // sum of the per-row losses
    std::size_t correct = 0;   // classification: rows whose prediction is the label
    double squaredError = 0;   // regression: sum of (z - t)^2, in standardised target units
    double absoluteError = 0;  // regression: sum of |z - t|
    LossSums& operator+=(const LossSums& o);
};

class TaskLoss {
public:
    // Scratch for batches of up to `capacity` rows.
    TaskLoss(const LossSpec& spec, std::size_t capacity);

    // logits (n, outputs), labels (n): 0/1, a class index, or a standardised target. Writes
    // d(mean loss)/dlogits (n, outputs) unless `dlogits` is null; the mean is over `batchRows`
    // rows (0: n), so a chunk of a batch gets its rows' share of the batch's mean.
    // Multiclass: a row is right when its first largest logit is the label (torch.argmax).
    LossSums operator()(const float* logits, const float* labels, std::size_t n, float* dlogits,
                        std::size_t batchRows = 0);

    const LossSpec& spec() const { return spec_; }

private:
    LossSums multiclass(const float* logits, const float* labels, std::size_t n, float* dlogits, float invN);
    LossSums regression(const float* logits, const float* labels, std::size_t n, float* dlogits, float invN) const;

    LossSpec spec_;
    BatchLoss binary_;
    AlignedVector<float> exps_;  // (K) exp(z_k - max z) of the current row
};

}  // namespace wb
