// The element-wise maths of a training step, shared by the CPU backend and the tests (and the
// reference the CUDA kernels are compared against). All in float32, as on the device.
#pragma once

#include <cmath>
#include <cstddef>

#include "core/model/model.h"

namespace wb {

enum class LossKind { SigmoidBce, BceWithLogits };

// y = f(z), in place over n values. `saved` (n, optional) receives what activationBackward would
// otherwise recompute, where activationSaves(a): for gelu erf(z / sqrt 2), its costliest part.
void activate(Activation a, float* z, std::size_t n, float* saved = nullptr);
// dz = dy * f'(z), given y = f(z) (and z itself, needed for gelu); in place on dy. `saved`: what
// activate() saved for the same z, or null (then recomputed; the same bits either way).
void activationBackward(Activation a, const float* z, const float* y, float* dy, std::size_t n,
                        const float* saved = nullptr);
// Whether activate() saves anything for the backward pass (a buffer is worth keeping).
bool activationSaves(Activation a);

// Mean loss over n logits and the gradient of that mean with respect to each logit.
// SigmoidBce follows PyTorch's Sigmoid + BCELoss: log clamped at -100, and BCELoss's backward
// (p - y) / max(p (1 - p), 1e-12) chained through the sigmoid. BceWithLogits is the stable form
// max(z,0) - z y + log(1 + exp(-|z|)).
// Returns the sum (not the mean) of the per-sample losses; writes dlogits = d(mean)/dz when
// `dlogits` is not null. `correct` receives the number of samples with (p >= 0.5) == y.
double lossAndGrad(LossKind kind, const float* logits, const float* labels, std::size_t n, float* dlogits,
                   std::size_t* correct);

// Per-sample loss, computed in float as in lossAndGrad (for tests and tools).
double sampleLoss(LossKind kind, float logit, float label);

}  // namespace wb
