#include "kernels/device_mlp.h"

#include <algorithm>

#include "kernels/cuda_check.h"

namespace wb {

namespace {
std::size_t elems(int a, int b) {
    return static_cast<std::size_t>(a) * static_cast<std::size_t>(b);
}

// The largest split-K workspace any layer's three custom products ask for at any batch of 1 ...
// `capacity` rows (the last partial batch included). Not just at `capacity`: the slice count of the
// weight gradient (k = rows) rounds, so a smaller batch can ask for more (63 slices at 10,000 rows,
// 64 at 8,192: 312,320 bytes against 307,440 for the seed model). Trying every row count costs
// about 1.6 ms at a 10,000-row batch and 0.1 s at 10^6 (measured), once per run.
std::size_t largestGemmWorkspaceBytes(const std::vector<LayerSlice>& layers, int capacity) {
    std::size_t bytes = 0;
    for (int rows = 1; rows <= capacity; ++rows)
        for (const LayerSlice& s : layers)
            bytes = std::max({bytes, gemmWorkspaceBytes(customForward(nullptr, nullptr, nullptr, rows, s.in, s.out)),
                              gemmWorkspaceBytes(customWeightGrad(nullptr, nullptr, nullptr, rows, s.in, s.out, true)),
                              gemmWorkspaceBytes(customInputGrad(nullptr, nullptr, nullptr, rows, s.in, s.out))});
    return bytes;
}
}  // namespace

DeviceMlp::DeviceMlp(const TrainingProblem& problem, int batchCapacity, cudaStream_t stream, cublasHandle_t handle,
                     Gemm gemm)
    : stream_(stream),
      exec_(problem.execution),
      lossSpec_(lossSpecOf(*problem.data, problem.model, problem.execution)),
      activation_(problem.model.activation),
      layers_(problem.initialParams.layers),
      gemm_(handle, stream, problem.execution.precision, gemm),
      half_(problem.execution.precision == Precision::Bf16 ? HalfKind::Bf16 : HalfKind::Fp16),
      scalars_(stepmath::optimizerScalars(problem.optimizer)),
      stateCount_(stepmath::optimizerStateCount(scalars_)),
      params_(problem.initialParams.count()),
      grads_(problem.initialParams.count()) {
    const std::size_t count = problem.initialParams.count();
    params_.copyFrom(problem.initialParams.values.data(), count, stream_);
    if (lossSpec_.classWeights) {  // a host pointer into problem.model: the kernels need a device copy
        const auto k = static_cast<std::size_t>(lossSpec_.outputs);
        classWeights_ = DeviceBuffer<float>(k);
        classWeights_.copyFrom(lossSpec_.classWeights, k, stream_);
        lossSpec_.classWeights = classWeights_.data();
    }
    grads_.zero(stream_);
    for (int i = 0; i < stateCount_; ++i) {
        state_.emplace_back(count);
        state_.back().zero(stream_);
    }
    const bool mixed = gemm_.mixed();
    int maxWidth = 1;
    for (std::size_t l = 0; l < layers_.size(); ++l) {
        const LayerSlice& s = layers_[l];
        maxWidth = std::max({maxWidth, s.in, s.out});
        pre_.emplace_back(elems(batchCapacity, s.out));
        if (l + 1 == layers_.size()) continue;  // the output layer keeps only its logits
        post_.emplace_back(elems(batchCapacity, s.out));
    }
    if (mixed) allocateHalfCopies(batchCapacity, maxWidth);
    delta_ = DeviceBuffer<float>(elems(batchCapacity, maxWidth));
    deltaPrev_ = DeviceBuffer<float>(elems(batchCapacity, maxWidth));
    if (gemm == Gemm::Custom) {  // allocated once here, so no product allocates (graph capture)
        const std::size_t bytes = largestGemmWorkspaceBytes(layers_, batchCapacity);
        gemmWorkspace_ = DeviceBuffer<float>(bytes / sizeof(float));
        gemm_.useWorkspace(gemmWorkspace_.data(), gemmWorkspace_.bytes());
    }

    counters_ = DeviceBuffer<DeviceCounters>(1);
    DeviceCounters start{};
    start.lossScale = problem.execution.precision == Precision::Fp16 ? 65536.0f : 1.0f;  // GradScaler's init_scale
    counters_.copyFrom(&start, 1, stream_);
    WB_CUDA_CHECK(cudaStreamSynchronize(stream_));  // `start` lives on this stack frame
}

// The padding of every 16-bit copy is zero: the conversions write it (weights, x, dz), and the
// activations' copies, which biasActivation writes without their padding, are zeroed here once.
void DeviceMlp::allocateHalfCopies(int batchCapacity, int maxWidth) {
    std::size_t weights = 0;
    for (const LayerSlice& s : layers_) {
        weightHalfOffset_.push_back(weights);
        weights += elems(paddedWidth(s.out), paddedWidth(s.in));
    }
    weightsHalf_ = DeviceBuffer<std::uint16_t>(weights);
    inputHalf_ = DeviceBuffer<std::uint16_t>(elems(batchCapacity, paddedWidth(layers_.front().in)));
    deltaHalf_ = DeviceBuffer<std::uint16_t>(elems(batchCapacity, paddedWidth(maxWidth)));
    for (std::size_t l = 0; l + 1 < layers_.size(); ++l) {
        postHalf_.emplace_back(elems(batchCapacity, paddedWidth(layers_[l].out)));
        postHalf_.back().zero(stream_);
    }
}

void DeviceMlp::weightsAndInputToHalf(const float* x, int n) {
    HalfCopies copies;
    auto add = [&](HalfCopy c) {
        copies.copy[copies.count++] = c;
        if (copies.count < kMaxHalfCopies) return;
        launchToHalfPadded(copies, half_, stream_);
        copies.count = 0;
    };
    for (std::size_t l = 0; l < layers_.size(); ++l) {
        const LayerSlice& s = layers_[l];
        add({params_.data() + s.weightOffset, weightsHalf_.data() + weightHalfOffset_[l], s.out, s.in,
             paddedWidth(s.out), paddedWidth(s.in)});
    }
    const int in = layers_.front().in;
    add({x, inputHalf_.data(), n, in, n, paddedWidth(in)});
    if (copies.count > 0) launchToHalfPadded(copies, half_, stream_);
}

void DeviceMlp::zeroGrads(int times) {
    for (int t = 0; t < times; ++t)
        for (const LayerSlice& s : layers_) {  // one memset per tensor, as .grad.zero_() per parameter
            WB_CUDA_CHECK(
                cudaMemsetAsync(grads_.data() + s.weightOffset, 0, elems(s.out, s.in) * sizeof(float), stream_));
            WB_CUDA_CHECK(cudaMemsetAsync(grads_.data() + s.biasOffset, 0,
                                          static_cast<std::size_t>(s.out) * sizeof(float), stream_));
        }
}

GemmOperand DeviceMlp::input(const float* x, int layer) const {
    if (layer == 0) return {x, inputHalf_.data()};
    const auto prev = static_cast<std::size_t>(layer - 1);
    return {post_[prev].data(), gemm_.mixed() ? postHalf_[prev].data() : nullptr};
}

GemmOperand DeviceMlp::weight(int layer) const {
    const auto l = static_cast<std::size_t>(layer);
    return {params_.data() + layers_[l].weightOffset,
            gemm_.mixed() ? weightsHalf_.data() + weightHalfOffset_[l] : nullptr};
}

void DeviceMlp::forward(const float* x, int n) {
    if (gemm_.mixed()) weightsAndInputToHalf(x, n);  // autocast: the products read 16-bit copies
    const int last = static_cast<int>(layers_.size()) - 1;
    for (int l = 0; l <= last; ++l) {
        const LayerSlice& s = layers_[static_cast<std::size_t>(l)];
        float* z = pre_[static_cast<std::size_t>(l)].data();  // (n, out)
        gemm_.forward(input(x, l), weight(l), z, n, s.in, s.out);
        float* y = l == last ? nullptr : post_[static_cast<std::size_t>(l)].data();
        void* yHalf = (l == last || !gemm_.mixed()) ? nullptr : postHalf_[static_cast<std::size_t>(l)].data();
        launchBiasActivation(z, params_.data() + s.biasOffset, y, yHalf, paddedWidth(s.out), half_, activation_, n,
                             s.out, stream_);
    }
}

void DeviceMlp::loss(const float* y, int n, DeviceCounters* counters, bool training) {
    const bool scaled = exec_.precision == Precision::Fp16;
    launchLoss(lossSpec_, pre_.back().data(), y, training ? delta_.data() : nullptr, n, counters, scaled, stream_);
}

void DeviceMlp::backward(const float* x, int n, bool accumulate) {
    float* dz = delta_.data();         // (n, out) of the current layer; the loss put dlogits here
    float* dPrev = deltaPrev_.data();  // (n, in)
    for (int l = static_cast<int>(layers_.size()) - 1; l >= 0; --l) {
        const LayerSlice& s = layers_[static_cast<std::size_t>(l)];
        if (gemm_.mixed()) {
            HalfCopies dzCopy;
            dzCopy.copy[0] = {dz, deltaHalf_.data(), n, s.out, n, paddedWidth(s.out)};
            dzCopy.count = 1;
            launchToHalfPadded(dzCopy, half_, stream_);
        }
        const GemmOperand dzOp{dz, deltaHalf_.data()};
        gemm_.weightGrad(dzOp, input(x, l), grads_.data() + s.weightOffset, n, s.in, s.out, accumulate);
        launchBiasGrad(dz, grads_.data() + s.biasOffset, n, s.out, accumulate, stream_);
        if (l == 0) break;  // no gradient for the input
        gemm_.inputGrad(dzOp, weight(l), dPrev, n, s.in, s.out);
        const auto prev = static_cast<std::size_t>(l - 1);
        launchActivationBackward(activation_, pre_[prev].data(), post_[prev].data(), dPrev, n, s.in, stream_);
        std::swap(dz, dPrev);
    }
}

void DeviceMlp::optimizerStep() {
    DeviceCounters* c = counters_.data();
    const bool scaled = exec_.precision == Precision::Fp16;
    if (scaled) launchUnscaleGrads(grads_.data(), grads_.size(), c, stream_);
    launchOptimizerBeginStep(scalars_, c, stream_);
    float* s0 = optimizerState(0);
    float* s1 = optimizerState(1);
    float* s2 = optimizerState(2);
    if (exec_.optimizerKernel == OptimizerKernel::MultiTensor) {
        launchOptimizerUpdate(scalars_, params_.data(), grads_.data(), s0, s1, s2, 0, params_.size(), c, stream_);
    } else {
        for (const LayerSlice& s : layers_) {  // one launch per tensor, as a for-each over .parameters()
            launchOptimizerUpdate(scalars_, params_.data(), grads_.data(), s0, s1, s2, s.weightOffset,
                                  elems(s.out, s.in), c, stream_);
            launchOptimizerUpdate(scalars_, params_.data(), grads_.data(), s0, s1, s2, s.biasOffset,
                                  static_cast<std::size_t>(s.out), c, stream_);
        }
    }
    if (scaled) launchUpdateLossScale(c, stream_);
}

void DeviceMlp::startStep(int zeroings) {
    beginStep();
    zeroGrads(zeroings);
}

void DeviceMlp::trainOnBatch(const float* x, const float* y, int n, int zeroings, const CudaEvent* marks) {
    forward(x, n);
    loss(y, n, counters(), /*training=*/true);
    if (marks) marks[0].record(stream_);
    backward(x, n, zeroings > 0);
    if (marks) marks[1].record(stream_);
    optimizerStep();
    if (marks) marks[2].record(stream_);
}

MlpParams DeviceMlp::download() const {
    MlpParams p;
    p.layers = layers_;
    p.values.resize(params_.size());
    params_.copyTo(p.values.data(), p.values.size(), stream_);
    WB_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return p;
}

}  // namespace wb
