// Which loss a run trains with, in which form: a plain struct the CPU loss (task_loss.h), the
// per-row formulas (step_math.h) and the CUDA kernels share; and the sums an epoch's metrics are
// made of. CUDA-free.
#pragma once

#include <cstddef>

#include "core/data/task.h"
#include "core/model/math_ops.h"

namespace wb {

struct LossSpec {
    Task task = Task::Binary;
    // Binary and multiclass: the fused form on the logits (BCEWithLogitsLoss, CrossEntropyLoss) or
    // the separate steps (Sigmoid + BCELoss, log(softmax) + NLLLoss). Not used by a regression.
    LossKind kind = LossKind::BceWithLogits;
    RegressionLoss regression = RegressionLoss::Mse;
    int outputs = 1;  // logits per row: K for multiclass, else 1
    // Multiclass only: (K) weight of each class, PyTorch's CrossEntropyLoss(weight=...), or null for
    // none. Host memory for the CPU (task_loss.cpp), device memory in a CUDA kernel; not owned.
    const float* classWeights = nullptr;
};

// What rows add to an epoch's metrics: a chunk's, a batch's, an epoch's or a validation pass's.
struct LossSums {
    // The mean loss over `rows` rows: weighted by the class weights when they were used.
    double meanLoss(std::size_t rows) const {
        return lossSum / (weightSum > 0 ? weightSum : static_cast<double>(rows));
    }
    double lossSum = 0;        // sum of the per-row losses
    std::size_t correct = 0;   // classification: rows whose prediction is the label
    double squaredError = 0;   // regression: sum of (z - t)^2, in standardised target units
    double absoluteError = 0;  // regression: sum of |z - t|
    // Class weights: sum of the rows' weights w[y_i] (lossSum is then sum w[y_i] l_i, and the mean
    // loss lossSum / weightSum, PyTorch's weighted mean); 0 without class weights.
    double weightSum = 0;
    LossSums& operator+=(const LossSums& o) {
        lossSum += o.lossSum;
        correct += o.correct;
        squaredError += o.squaredError;
        absoluteError += o.absoluteError;
        weightSum += o.weightSum;
        return *this;
    }
};

}  // namespace wb
