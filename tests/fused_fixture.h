// The fused step's test fixture, shared by the twin suite (tst_fused_twin) and the lane suite
// (tst_fused_lanes): a data set, and the host buffers of one fused run as the CudaBackend would hold
// them on the device.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "core/model/model.h"
#include "core/model/optimizer.h"
#include "kernels/fused_step.h"

namespace wb::test {

// A data set whose label depends on the features, so training moves the weights meaningfully.
struct Data {
    std::size_t rows = 0, cols = 0;
    std::vector<float> x;  // (rows, cols)
    std::vector<float> y;  // (rows)
};

inline Data makeData(std::size_t rows, std::size_t cols, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    Data d;
    d.rows = rows;
    d.cols = cols;
    d.x.resize(rows * cols);
    d.y.resize(rows);
    for (float& v : d.x) v = normal(rng);
    for (std::size_t r = 0; r < rows; ++r) {
        const float* xr = d.x.data() + r * cols;
        const float score = xr[0] - 0.5f * xr[cols / 2] + 0.3f * normal(rng);
        d.y[r] = score > 0.0f ? 1.0f : 0.0f;
    }
    return d;
}

// The twin with its host buffers, as the CudaBackend would hold them on the device.
class Twin {
public:
    Twin(const ModelSpec& model, std::size_t inputs, LossKind loss, const OptimizerSpec& opt, int batch,
         const MlpParams& initial, int tileRows = 0)
        : plan_(makeFusedPlan(model, inputs, loss, batch, tileRows)),
          params_(initial.values),
          state_(3, std::vector<float>(initial.count(), 0.0f)),
          scratch_(fusedScratchBytes(plan_) / sizeof(double) + 1, 0.0) {
        args_.plan = plan_;
        args_.optimizer = stepmath::optimizerScalars(opt);
        args_.params = params_.data();
        args_.state0 = state_[0].data();
        args_.state1 = state_[1].data();
        args_.state2 = state_[2].data();
        args_.stepCount = &step_;
        args_.lossSum = &lossSum_;
        args_.correct = &correct_;
        args_.nonFiniteStep = &nonFinite_;
        args_.stepLoss = &stepLoss_;
        args_.scratch = scratch_.data();
    }

    // One epoch over `data` in batches, optionally through a row index.
    void epoch(const Data& data, int batch, const std::vector<std::uint32_t>* order) {
        FusedStepArgs a = args_;
        a.x = data.x.data();
        a.y = data.y.data();
        a.rowIndex = order ? order->data() : nullptr;
        a.firstRow = 0;
        fusedEpochTwin(a, static_cast<std::int64_t>(data.rows), batch);
    }
    // The arguments of one step over rows [firstRow, firstRow + rows) of `data`.
    FusedStepArgs stepArgs(const Data& data, std::int64_t firstRow, int rows) const {
        FusedStepArgs a = args_;
        a.x = data.x.data();
        a.y = data.y.data();
        a.firstRow = firstRow;
        a.batchRows = rows;
        return a;
    }
    void step(const Data& data, std::int64_t firstRow, int rows) { fusedStepTwin(stepArgs(data, firstRow, rows)); }

    const FusedPlan& plan() const { return plan_; }
    std::vector<float>& params() { return params_; }
    const std::vector<std::vector<float>>& state() const { return state_; }
    FusedStepArgs& args() { return args_; }
    int stepCount() const { return step_; }
    double lossSum() const { return lossSum_; }
    unsigned long long correct() const { return correct_; }
    int nonFiniteStep() const { return nonFinite_; }
    double stepLoss() const { return stepLoss_; }

private:
    FusedPlan plan_;
    std::vector<float> params_;
    std::vector<std::vector<float>> state_;
    std::vector<double> scratch_;  // doubles, so the buffer is 8-byte aligned like cudaMalloc's
    FusedStepArgs args_;
    int step_ = 0;
    double lossSum_ = 0.0;
    unsigned long long correct_ = 0;
    int nonFinite_ = 0;
    double stepLoss_ = 0.0;
};

inline OptimizerSpec optimizer(OptimizerKind kind, double lr) {
    OptimizerSpec s = OptimizerSpec::defaults(kind);
    s.lr = lr;
    return s;
}

inline ModelSpec modelOf(const std::vector<int>& hidden, Activation a) {
    ModelSpec m;
    m.hidden = hidden;
    m.activation = a;
    return m;
}

}  // namespace wb::test
