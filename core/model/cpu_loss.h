// The loss of a batch on the CPU: lossAndGrad (math_ops.h) with step_math.h's formulas, its exp and log over
// Eigen arrays so that exp and log run vectorised instead of as one libm call per sample (which was
// ~15 % of a training step of the seed workload). It agrees with lossAndGrad to float rounding:
// Eigen's vectorised exp, log and log1p are within a few ulp of libm's.
#pragma once

#include <cstddef>

#include "core/model/math_ops.h"
#include "core/platform/aligned_vector.h"

namespace wb {

class BatchLoss {
public:
    // Scratch for batches of up to `capacity` rows.
    explicit BatchLoss(std::size_t capacity);

    // As lossAndGrad: returns the sum (not the mean) of the per-sample losses of logits (n), labels (n);
    // writes d(mean loss)/dz into dlogits (n) unless it is null; `correct` receives the number of
    // samples with (p >= 0.5) == (y >= 0.5). The mean is over `batchRows` rows (0: n), so a chunk
    // of a batch gets its rows' share of the batch's mean.
    double operator()(LossKind kind, const float* logits, const float* labels, std::size_t n, float* dlogits,
                      std::size_t& correct, std::size_t batchRows = 0);

private:
    AlignedVector<float> prob_;  // (B) sigmoid(z)
    AlignedVector<float> loss_;  // (B) per-sample loss
};

}  // namespace wb
