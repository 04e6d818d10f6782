// Which loss a run trains with, in which form: a plain struct the CPU loss (task_loss.h), the
// per-row formulas (step_math.h) and the CUDA kernels share. CUDA-free.
#pragma once

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

}  // namespace wb
