// launch=fused: forward, loss, backward and the optimizer of a step in one kernel (fused_step.h), its
// own products, so the phases are not separable. On resident data the whole epoch is one CUDA graph:
// the reset of the epoch's sums, every step's kernel straight from the resident rows (through the
// device permutation when shuffled) and the copy of the device's counters to the host, so an epoch
// costs the host one graph launch (no reset kernel and no copy launched apart, ~20 µs of host work
// per epoch before). On every other data path, one kernel per staged batch.
#include "kernels/cuda_graph.h"
#include "kernels/fused_step.h"
#include "kernels/launch_strategy.h"

namespace wb {

namespace {
class FusedLaunch final : public LaunchStrategy {
public:
    explicit FusedLaunch(const LaunchContext& ctx)
        : ctx_(ctx),
          resident_(ctx.problem->execution.dataPath == DataPath::DeviceResident),
          plan_(makeFusedPlan(ctx.problem->model, ctx.problem->data->cols, ctx.problem->execution.loss,
                              ctx.problem->batchSize)),
          scratch_(fusedScratchBytes(plan_)) {
        scratch_.zero(ctx_.stream);
    }

    EpochRun runEpoch(const std::vector<std::uint32_t>* order, const CancelFlag& cancel) override {
        ctx_.source->beginEpoch(order);
        if (cancel.load(std::memory_order_relaxed)) {
            ctx_.mlp->beginEpoch();  // nothing runs, but the epoch's sums still start at zero
            return {};
        }
        if (resident_) return residentEpoch(order != nullptr);
        EpochRun run;
        ctx_.mlp->beginEpoch();
        for (int step = 0; step < ctx_.steps; ++step) {
            if (cancel.load(std::memory_order_relaxed)) break;
            runStep(step, ctx_.rowsOf(step));
            ++run.stepsRun;
        }
        return run;
    }

    // The kernel marks its optimizer step t (counted over the run), so this epoch's step is t minus
    // the steps of the epochs before.
    int nonFiniteStepOf(const DeviceCounters& c) override {
        const int before = optimizerStepsBefore_;
        optimizerStepsBefore_ = c.optimizerStep;
        return c.nonFiniteStep > 0 ? c.nonFiniteStep - before : 0;
    }

private:
    FusedStepArgs args() {
        DeviceCounters* c = ctx_.mlp->counters();
        FusedStepArgs a;
        a.plan = plan_;
        a.optimizer = ctx_.mlp->optimizerScalars();
        a.params = ctx_.mlp->params();
        a.state0 = ctx_.mlp->optimizerState(0);
        a.state1 = ctx_.mlp->optimizerState(1);
        a.state2 = ctx_.mlp->optimizerState(2);
        a.stepCount = &c->optimizerStep;  // device addresses inside the counters
        a.lossSum = &c->lossSum;
        a.correct = &c->correct;
        a.nonFiniteStep = &c->nonFiniteStep;
        a.stepLoss = &c->stepLoss;
        a.scratch = scratch_.data();
        return a;
    }

    void runStep(int step, int n) {
        const DeviceBatch b = ctx_.source->stage(step, n, /*fixedAddress=*/false);
        FusedStepArgs a = args();
        a.x = b.x;
        a.y = b.y;
        a.batchRows = n;
        checkFusedArgs(a);
        launchFusedStep(a, ctx_.stream);
        ctx_.source->release(step);
    }

    // Every step of the epoch from the resident rows; run eagerly in the warm-up epoch (the kernel is
    // loaded before its capture), then captured without running, so the capture is paid in the epoch
    // summaries leave out, and replayed after. One graph per order (file or shuffled).
    EpochRun residentEpoch(bool shuffled) {
        FusedStepArgs a = args();
        a.x = ctx_.source->residentX();
        a.y = ctx_.source->residentY();
        a.rowIndex = shuffled ? ctx_.source->residentOrder() : nullptr;
        a.firstRow = 0;
        a.batchRows = ctx_.rowsOf(0);
        checkFusedArgs(a);
        if (graph_.ready() && graphShuffled_ == shuffled) {
            graph_.launch(ctx_.stream);
        } else {
            enqueueEpoch(a);
            graph_.capture(ctx_.stream, [&] { enqueueEpoch(a); });
            graphShuffled_ = shuffled;
        }
        EpochRun run;
        run.stepsRun = ctx_.steps;
        run.countersQueued = true;
        return run;
    }

    // What the epoch graph holds: the reset, the steps' kernels, the copy of the counters.
    void enqueueEpoch(const FusedStepArgs& a) {
        ctx_.mlp->beginEpoch();
        launchFusedEpoch(a, static_cast<std::int64_t>(ctx_.rows), ctx_.problem->batchSize, ctx_.stream);
        ctx_.queueCounterCopy();
    }

    LaunchContext ctx_;
    bool resident_;
    FusedPlan plan_;
    DeviceBuffer<unsigned char> scratch_;  // (fusedScratchBytes(plan_)) zeroed once; every launch leaves it so
    CudaGraph graph_;                      // resident data: the whole epoch
    bool graphShuffled_ = false;
    int optimizerStepsBefore_ = 0;
};
}  // namespace

std::unique_ptr<LaunchStrategy> makeFusedLaunch(const LaunchContext& ctx) {
    return std::make_unique<FusedLaunch>(ctx);
}

}  // namespace wb
