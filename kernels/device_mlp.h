// The MLP on the device for the eager and graph paths: parameters, gradients and optimizer state in
// MlpParams' flat layout, the activations of one batch, and the verbs of a step (zeroGrads, forward,
// loss, backward, optimizerStep), each a short sequence of launches on one stream. Nothing here
// synchronises with the host, so a whole step can be captured as a CUDA graph.
// Shapes: B = batch capacity, n <= B rows of this batch, w[l] the layer widths, P the parameter count.
#pragma once

#include <cstdint>
#include <vector>

#include "core/model/task_loss.h"
#include "core/run/backend.h"
#include "kernels/cuda_gemm.h"
#include "kernels/cuda_stream.h"
#include "kernels/device_buffer.h"
#include "kernels/step_kernels.h"

namespace wb {

class DeviceMlp {
public:
    // Allocates everything for batches of up to `batchCapacity` rows; uploads the initial parameters.
    DeviceMlp(const TrainingProblem& problem, int batchCapacity, cudaStream_t stream, cublasHandle_t handle, Gemm gemm);

    // model.zero_grad() `times` times: one memset per parameter tensor each time.
    void zeroGrads(int times);
    // x (n, w[0]) on the device -> the logits (n, K) in pre_.back().
    void forward(const float* x, int n);
    // The loss of the logits against y (n) into `counters` (the run's task: lossSpec_); with
    // `training`, also d(loss)/d(logits) (scaled by the fp16 loss scale) for backward.
    void loss(const float* y, int n, DeviceCounters* counters, bool training);
    // Gradients from the last forward/loss; added to the gradient buffers when `accumulate`.
    void backward(const float* x, int n, bool accumulate);
    // The optimizer on every parameter: one launch per tensor or one for all (optimizer_kernel).
    void optimizerStep();
    // Step bookkeeping: starts the step (counters.epochStep += 1, stepLoss = 0).
    void beginStep() { launchBeginStep(counters_.data(), stream_); }
    void beginEpoch() { launchBeginEpoch(counters_.data(), stream_); }

    // The two halves of a training step, shared by every path that uses these verbs (eager, graph):
    // startStep is the step's bookkeeping and zero_grad `zeroings` times; trainOnBatch, once the batch
    // x (n, w[0]), y (n) is on the device, runs forward + loss, backward (accumulating when zero_grad
    // ran) and the optimizer, recording marks[0..2] (when not null) after each for the phase times.
    void startStep(int zeroings);
    void trainOnBatch(const float* x, const float* y, int n, int zeroings, const CudaEvent* marks = nullptr);

    DeviceCounters* counters() { return counters_.data(); }
    float* params() { return params_.data(); }
    float* optimizerState(int i) { return i < stateCount_ ? state_[static_cast<std::size_t>(i)].data() : nullptr; }
    const stepmath::OptimizerScalars& optimizerScalars() const { return scalars_; }
    std::size_t paramCount() const { return params_.size(); }
    // The parameters, copied to the host (synchronises the stream).
    MlpParams download() const;

private:
    GemmOperand input(const float* x, int layer) const;
    GemmOperand weight(int layer) const;
    void allocateHalfCopies(int batchCapacity, int maxWidth);
    // The 16-bit padded copies a step's forward pass reads: the weights and the input x (n, w[0]).
    void weightsAndInputToHalf(const float* x, int n);

    cudaStream_t stream_;
    ExecutionSettings exec_;
    LossSpec lossSpec_;  // the task's loss: binary, K classes or a regression; classWeights -> classWeights_
    DeviceBuffer<float> classWeights_;  // (K) the loss' class weights, when the run has some
    Activation activation_;
    std::vector<LayerSlice> layers_;
    LayerGemm gemm_;
    HalfKind half_;
    stepmath::OptimizerScalars scalars_;
    int stateCount_ = 0;

    DeviceBuffer<float> params_;              // (P) fp32 master weights and biases
    DeviceBuffer<float> grads_;               // (P)
    std::vector<DeviceBuffer<float>> state_;  // (stateCount) x (P) optimizer state
    // The 16-bit copies of the mixed-precision products, padded (layer_products.h: pw = paddedWidth(w),
    // every leading dimension a multiple of 8 elements, the padding zero).
    DeviceBuffer<std::uint16_t> weightsHalf_;            // per layer (pw[l+1], pw[l]) at weightHalfOffset_[l]
    std::vector<std::size_t> weightHalfOffset_;          // (layers) elements, multiples of 64
    std::vector<DeviceBuffer<float>> pre_;               // per layer (B, w[l+1]) z
    std::vector<DeviceBuffer<float>> post_;              // per hidden layer (B, w[l+1]) f(z)
    std::vector<DeviceBuffer<std::uint16_t>> postHalf_;  // per hidden layer (B, pw[l+1]) f(z), zeroed once
    DeviceBuffer<std::uint16_t> inputHalf_;              // (B, pw[0]) x
    DeviceBuffer<std::uint16_t> deltaHalf_;              // (B, padded max width) dz of the current layer
    DeviceBuffer<float> delta_, deltaPrev_;              // (B, max width) d(loss)/dz of the current / previous layer
    DeviceBuffer<DeviceCounters> counters_;              // (1)
    DeviceBuffer<float> gemmWorkspace_;  // (slices, m, n) of the largest split-K product at B rows (gemm=custom)
};

}  // namespace wb
