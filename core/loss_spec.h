// Which loss a run trains with, in which form: a plain struct the CPU loss (task_loss.h), the
// per-row formulas (step_math.h) and the CUDA kernels share; and the sums an epoch's metrics are
// made of. CUDA-free.
#pragma once

#include <cstddef>

#include "math_ops.h"
#include "task.h"

namespace wb {

struct LossSpec {
    Task task = Task::Binary;
    // Binary and multiclass: the fused form on the logits (BCEWithLogitsLoss, CrossEntropyLoss) or
    // the separate steps (Sigmoid + BCELoss, log(softmax) + NLLLoss). Not used by a regression.
    LossKind kind = LossKind::BceWithLogits;
    RegressionLoss regression = RegressionLoss::Mse;
    int outputs = 1;  // logits per row: K for multiclass, else 1
};

// What rows add to an epoch's metrics: a chunk's, a batch's, an epoch's or a validation pass's.
struct LossSums {
    double lossSum = 0;        // sum of the per-row losses
    std::size_t correct = 0;   // classification: rows whose prediction is the label
    double squaredError = 0;   // regression: sum of (z - t)^2, in standardised target units
    double absoluteError = 0;  // regression: sum of |z - t|
    LossSums& operator+=(const LossSums& o) {
        lossSum += o.lossSum;
        correct += o.correct;
        squaredError += o.squaredError;
        absoluteError += o.absoluteError;
        return *this;
    }
};

}  // namespace wb
