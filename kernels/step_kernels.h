// The element-wise and reduction kernels of the eager and graph paths (step_kernels.cu), each
// behind a launcher that checks its launch. The maths per element is step_math.h's, the same the CPU
// reference computes. Shapes: n rows of the batch, `width` features of a layer, all row-major.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "core/model/math_ops.h"
#include "core/model/model.h"
#include "core/model/step_math.h"

namespace wb {

// 16-bit storage of the mixed-precision paths.
enum class HalfKind { Fp16, Bf16 };

// Everything a step accumulates or decides on the device, so the host reads it once per epoch.
struct DeviceCounters {
    double lossSum;                 // this epoch's summed per-sample loss
    double stepLoss;                // this step's summed loss
    unsigned long long correct;     // this epoch's right predictions
    int epochStep;                  // steps started this epoch (1-based after beginStep)
    int nonFiniteStep;              // the first step of this epoch whose loss was not finite, 0 if none
    int optimizerStep;              // optimizer steps taken (t), skipped fp16 overflow steps excluded
    int foundInf;                   // fp16: this step's gradients overflowed, so the update is skipped
    float lossScale;                // fp16 dynamic loss scale (1 otherwise)
    int goodSteps;                  // fp16: steps since the scale last changed
    stepmath::StepScalars scalars;  // the optimizer's per-step scalars of step optimizerStep
    double squaredError;            // regression: this epoch's sum of (z - t)^2, standardised units
    double absoluteError;           // regression: this epoch's sum of |z - t|
    double weightSum;               // class weights: this epoch's sum of the rows' weights w[y]
    float batchWeight;              // class weights: this step's batch's sum of w[y] (the loss' 1/invN)
};

// Starts an epoch: clears the epoch's sums (loss, correct, the regression's errors), keeps the
// optimizer state and loss scale.
void launchBeginEpoch(DeviceCounters* c, cudaStream_t stream);
// Starts a step: epochStep += 1, stepLoss = 0, foundInf = 0.
void launchBeginStep(DeviceCounters* c, cudaStream_t stream);

// z (n, width) += bias (width) per row; y = f(z) (n, width) unless y is null (the output layer);
// yHalf (n, halfLd) gets y rounded to 16 bits when not null (its columns width..halfLd untouched).
void launchBiasActivation(float* z, const float* bias, float* y, void* yHalf, int halfLd, HalfKind half, Activation a,
                          int n, int width, cudaStream_t stream);

// From the logits (n, K) and labels (n) under `spec` (K = spec.outputs): dlogits (n, K) =
// d(mean loss)/dz * lossScale; adds the loss to stepLoss and lossSum, the right predictions to
// correct and a regression's errors to squaredError/absoluteError. Each row is stepmath::rowLoss,
// as on the CPU (task_loss.cpp is its twin). dlogits may be null (evaluation).
// With class weights (spec.classWeights, K floats in device memory) the mean is weighted: a
// one-block kernel first sums the batch's w[y] into c->batchWeight (on the stream, so a captured
// graph recomputes it each replay), the loss kernel divides by it, and adds the rows' weights to
// weightSum (the epoch's weighted mean is lossSum / weightSum).
void launchLoss(const LossSpec& spec, const float* logits, const float* labels, float* dlogits, int n,
                DeviceCounters* c, bool useLossScale, cudaStream_t stream);

// In place on d (n, width): d = d * f'(z), given z and y = f(z) (n, width).
void launchActivationBackward(Activation a, const float* z, const float* y, float* d, int n, int width,
                              cudaStream_t stream);

// db (width) = sum over the n rows of dz (n, width), added to db when `accumulate`.
void launchBiasGrad(const float* dz, float* db, int n, int width, bool accumulate, cudaStream_t stream);

// One row-major fp32 matrix and its padded 16-bit copy (layer_products.h's layout):
// dst (dstRows, ld) = src (rows, cols) rounded to 16 bits, zero in the columns cols..ld and the rows
// rows..dstRows, so a product over the padded length adds only zeros.
struct HalfCopy {
    const float* src = nullptr;  // (rows, cols)
    void* dst = nullptr;         // (dstRows, ld), 16 bits
    int rows = 0, cols = 0, dstRows = 0, ld = 0;
};
// Up to kMaxHalfCopies copies in one launch (a step's weights and input: one launch for a small model).
constexpr int kMaxHalfCopies = 8;
struct HalfCopies {
    HalfCopy copy[kMaxHalfCopies];
    int count = 0;
};
void launchToHalfPadded(const HalfCopies& copies, HalfKind half, cudaStream_t stream);

// xOut (n, cols), yOut (n) = the rows index[first + i] of x (rows, cols) and y (rows).
void launchGatherRows(const float* x, const float* y, const std::uint32_t* index, std::int64_t first, int n, int cols,
                      float* xOut, float* yOut, cudaStream_t stream);

// fp16 loss scaling: grads (count) *= 1 / lossScale; foundInf = 1 when any is not finite.
void launchUnscaleGrads(float* grads, std::size_t count, DeviceCounters* c, cudaStream_t stream);

// The optimizer's step begins: unless foundInf, optimizerStep += 1 and its scalars are computed; also
// marks nonFiniteStep when this step's loss was not finite.
void launchOptimizerBeginStep(const stepmath::OptimizerScalars& s, DeviceCounters* c, cudaStream_t stream);
// params[offset, offset + count) updated from grads unless foundInf; state buffers as stepmath's
// (paramCount each, null where unused).
void launchOptimizerUpdate(const stepmath::OptimizerScalars& s, float* params, const float* grads, float* state0,
                           float* state1, float* state2, std::size_t offset, std::size_t count, const DeviceCounters* c,
                           cudaStream_t stream);
// fp16: GradScaler's update: halve the scale on an overflow, double it after 2000 good steps.
void launchUpdateLossScale(DeviceCounters* c, cudaStream_t stream);

}  // namespace wb
