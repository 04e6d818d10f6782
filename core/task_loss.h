// The loss of a batch for any task, on the CPU: binary through BatchLoss (cpu_loss.h, vectorised),
// multiclass (softmax cross-entropy over K logits) and regression (MSE or Huber on one output) row
// by row through stepmath::rowLoss -- the very function the CUDA loss kernel runs per row, so this
// is also that kernel's CPU twin. Also the sums an epoch's metrics are made of.
#pragma once

#include <cstddef>

#include "aligned_vector.h"
#include "cpu_loss.h"
#include "execution_settings.h"
#include "loss_spec.h"
#include "math_ops.h"
#include "model.h"
#include "prepare.h"
#include "task.h"

namespace wb {

// The loss a run trains with: the data's task, the `loss` switch, the model's regression loss.
LossSpec lossSpecOf(const PreparedData& data, const ModelSpec& model, const ExecutionSettings& settings);

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
    LossSpec spec_;
    BatchLoss binary_;
};

}  // namespace wb
