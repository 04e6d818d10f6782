// The persistent epoch's test fixture: the host buffers of one persistent run as a CudaBackend
// strategy would hold them on the device, and made-up devices for the plan.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/persistent_epoch.h"
#include "kernels/persistent_twin.h"
#include "tests/fused_fixture.h"

namespace wb::test {

// A device with `sms` multiprocessors, one resident block each and `sharedKiB` of opt-in shared
// memory per block (an H200: 132 SMs, 227 KiB).
inline PersistentDevice deviceOf(int sms, std::size_t sharedKiB = 227) {
    return PersistentDevice{sms, 1, sharedKiB * 1024, true};
}

class PersistentRun {
public:
    PersistentRun(const ModelSpec& model, std::size_t inputs, LossKind loss, const OptimizerSpec& opt, int batch,
                  const MlpParams& initial, const PersistentDevice& dev, int maxTileRows = 0)
        : plan_(makePersistentPlan(model, inputs, loss, opt, batch, dev, maxTileRows)),
          params_(initial.values),
          state_(3, std::vector<float>(initial.count(), 0.0f)),
          table_(persistentStepTable(stepmath::optimizerScalars(opt), 0, 4096)),
          scratch_(plan_.scratch.bytes / sizeof(double) + 1, 0.0) {
        args_.plan = plan_;
        args_.optimizer = stepmath::optimizerScalars(opt);
        args_.params = params_.data();
        args_.state0 = state_[0].data();
        args_.state1 = state_[1].data();
        args_.state2 = state_[2].data();
        args_.stepTable = table_.data();
        args_.tableLength = static_cast<std::int64_t>(table_.size());
        args_.lossSum = &lossSum_;
        args_.correct = &correct_;
        args_.nonFiniteStep = &nonFinite_;
        args_.stepLoss = &stepLoss_;
        args_.stepCount = &stepCount_;
        args_.scratch = scratch_.data();
    }

    // The arguments of one epoch over `data` (optionally through a row index), after the steps so far.
    PersistentArgs epochArgs(const Data& data, const std::vector<std::uint32_t>* order) const {
        PersistentArgs a = args_;
        a.x = data.x.data();
        a.y = data.y.data();
        a.rowIndex = order ? order->data() : nullptr;
        a.rows = static_cast<std::int64_t>(data.rows);
        a.stepsDone = stepCount_;
        return a;
    }
    void epoch(const Data& data, const std::vector<std::uint32_t>* order, const GridSchedule& schedule = {}) {
        persistentEpochTwin(epochArgs(data, order), schedule);
    }

    const PersistentPlan& plan() const { return plan_; }
    std::vector<float>& params() { return params_; }
    const std::vector<std::vector<float>>& state() const { return state_; }
    int stepCount() const { return stepCount_; }
    double lossSum() const { return lossSum_; }
    unsigned long long correct() const { return correct_; }
    int nonFiniteStep() const { return nonFinite_; }
    double stepLoss() const { return stepLoss_; }

private:
    PersistentPlan plan_;
    std::vector<float> params_;
    std::vector<std::vector<float>> state_;
    std::vector<stepmath::StepScalars> table_;
    std::vector<double> scratch_;  // doubles, so the buffer is 8-byte aligned like cudaMalloc's
    PersistentArgs args_;
    int stepCount_ = 0;
    double lossSum_ = 0.0;
    unsigned long long correct_ = 0;
    int nonFinite_ = 0;
    double stepLoss_ = 0.0;
};

}  // namespace wb::test
