// The loss of a batch for any task, on the CPU: binary through BatchLoss (cpu_loss.h, vectorised),
// multiclass (softmax cross-entropy over K logits) and regression (MSE or Huber on one output) row
// by row through stepmath::rowLoss -- the very function the CUDA loss kernel runs per row, so this
// is also that kernel's CPU twin. Also the sums an epoch's metrics are made of.
#pragma once

#include <cstddef>
#include <vector>

#include "core/data/prepare.h"
#include "core/data/task.h"
#include "core/model/cpu_loss.h"
#include "core/model/execution_settings.h"
#include "core/model/loss_spec.h"
#include "core/model/math_ops.h"
#include "core/model/model.h"
#include "core/platform/aligned_vector.h"

namespace wb {

// The loss a run trains with: the data's task, the `loss` switch, the model's regression loss and
// class weights (classWeights points into `model`, which must outlive the LossSpec or its copies).
LossSpec lossSpecOf(const PreparedData& data, const ModelSpec& model, const ExecutionSettings& settings);

// The class weights a run trains with, checked against the data: none (empty) when `w` is empty;
// balanced: rows / (K count_k) over the training split (scikit-learn's "balanced"); else `w`'s
// numbers. Throws ConfigError for class weights on a binary or regression task, a count other than
// K, or (balanced) a class without training rows.
std::vector<float> resolveClassWeights(const ClassWeights& w, const PreparedData& data);

class TaskLoss {
public:
    // Scratch for batches of up to `capacity` rows. Copies spec.classWeights (K floats) if set.
    TaskLoss(const LossSpec& spec, std::size_t capacity);

    // logits (n, outputs), labels (n): 0/1, a class index, or a standardised target. Writes
    // d(mean loss)/dlogits (n, outputs) unless `dlogits` is null; the mean is over `batchRows`
    // rows (0: n), so a chunk of a batch gets its rows' share of the batch's mean.
    // Multiclass: a row is right when its first largest logit is the label (torch.argmax).
    // With class weights the mean is weighted: over `batchWeight` = the sum of the batch's row
    // weights (batchWeight(); 0: this call's rows, which must then be the whole batch), and the
    // sums carry lossSum = sum w l and weightSum = sum w.
    LossSums operator()(const float* logits, const float* labels, std::size_t n, float* dlogits,
                        std::size_t batchRows = 0, double batchWeight = 0);

    // The sum of the class weights of labels (n); n without class weights.
    double batchWeight(const float* labels, std::size_t n) const;
    bool weighted() const { return !weights_.empty(); }

    // The spec, its classWeights pointing at this object's copy (null without weights).
    LossSpec spec() const;

private:
    LossSpec spec_;               // classWeights null: the pointer is made per call (this may move)
    std::vector<float> weights_;  // (K) class weights, empty for none
    BatchLoss binary_;
};

}  // namespace wb
