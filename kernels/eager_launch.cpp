// launch=eager and launch=eager_sync: one launch per op, as PyTorch's eager loop. Events between the
// verbs of every step time the phases; eager_sync also copies each step's loss to the host and
// waits for it, as `loss.item()` does, and stops at a loss that is not finite, as the CPU does.
#include <algorithm>

#include "kernels/cuda_check.h"
#include "kernels/launch_strategy.h"

namespace wb {

namespace {
// Five events per step: after zero_grad, after the data, after forward + loss, after backward, after
// the optimizer.
constexpr int kStepMarks = 5;

class EagerLaunch final : public LaunchStrategy {
public:
    explicit EagerLaunch(const LaunchContext& ctx)
        : ctx_(ctx),
          sync_(ctx.problem->execution.launch == Launch::EagerSync),
          marks_(static_cast<std::size_t>(ctx.steps) * kStepMarks) {}

    EpochRun runEpoch(const std::vector<std::uint32_t>* order, const CancelFlag& cancel) override {
        EpochRun run;
        ctx_.mlp->beginEpoch();
        ctx_.source->beginEpoch(order);
        for (int step = 0; step < ctx_.steps; ++step) {
            if (cancel.load(std::memory_order_relaxed)) break;
            runStep(step, ctx_.rowsOf(step));
            ++run.stepsRun;
            if (sync_ && !lossOfStepIsFinite()) {
                run.hostNonFinite = step + 1;  // loss.item() showed it: stop, as the CPU does
                break;
            }
        }
        return run;
    }

    std::optional<PhaseTimes> phases(int stepsRun, double deviceMs) const override {
        PhaseTimes p;
        for (int step = 0; step < stepsRun; ++step) {
            const CudaEvent* m = &marks_[static_cast<std::size_t>(step) * kStepMarks];
            p.data += m[1].msSince(m[0]);
            p.forward += m[2].msSince(m[1]);
            p.backward += m[3].msSince(m[2]);
            p.optimizer += m[4].msSince(m[3]);
        }
        // zero_grad, step bookkeeping and the epoch's own work: the measured rest of the device time
        p.other = std::max(0.0, deviceMs - p.data - p.forward - p.backward - p.optimizer);
        return p;
    }

private:
    void runStep(int step, int n) {
        const CudaEvent* m = &marks_[static_cast<std::size_t>(step) * kStepMarks];
        ctx_.mlp->startStep(ctx_.zeroings());
        m[0].record(ctx_.stream);
        const DeviceBatch b = ctx_.source->stage(step, n, /*fixedAddress=*/false);
        m[1].record(ctx_.stream);
        ctx_.mlp->trainOnBatch(b.x, b.y, n, ctx_.zeroings(), m + 2);
        ctx_.source->release(step);
    }

    // eager_sync: loss.item() — copy this step's loss to the host and wait for it.
    bool lossOfStepIsFinite() {
        WB_CUDA_CHECK(cudaMemcpyAsync(&ctx_.hostCounters->stepLoss, &ctx_.mlp->counters()->stepLoss, sizeof(double),
                                      cudaMemcpyDeviceToHost, ctx_.stream));
        WB_CUDA_CHECK(cudaStreamSynchronize(ctx_.stream));
        const double loss = ctx_.hostCounters->stepLoss;
        return loss - loss == 0.0;
    }

    LaunchContext ctx_;
    bool sync_;
    std::vector<CudaEvent> marks_;  // (steps, kStepMarks)
};
}  // namespace

std::unique_ptr<LaunchStrategy> makeEagerLaunch(const LaunchContext& ctx) {
    return std::make_unique<EagerLaunch>(ctx);
}

}  // namespace wb
