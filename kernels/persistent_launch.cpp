// launch=persistent (the Fastest preset's; checked on its CPU twin, tests/tst_persistent_twin.cpp, and on an
// H200): the whole epoch in ONE cooperative kernel (persistent_epoch.h), its own products, so the phases
// are not separable. Setup asks the device what it can hold, refuses what does not fit, plans the grid
// and tiles, uploads the optimizer's per-step scalars and zeroes the barrier flags; each epoch is then one
// launch over the resident rows (through the device permutation when shuffled).
#include <algorithm>
#include <string>
#include <vector>

#include "core/platform/errors.h"
#include "core/run/run_config.h"
#include "kernels/device_buffer.h"
#include "kernels/launch_strategy.h"
#include "kernels/persistent_epoch.h"

namespace wb {

namespace {
class PersistentLaunch final : public LaunchStrategy {
public:
    explicit PersistentLaunch(const LaunchContext& ctx)
        : ctx_(ctx), plan_(planFor(ctx)), scratch_(plan_.scratch.bytes) {
        // The barrier flags count generations from 0: they must be 0 whenever stepsDone restarts at 0,
        // which is once per strategy (a new setup makes a new strategy).
        scratch_.zero(ctx_.stream);
        ensureTable(static_cast<std::int64_t>(plannedEpochs()) * ctx_.steps);
    }

    EpochRun runEpoch(const std::vector<std::uint32_t>* order, const CancelFlag& cancel) override {
        ctx_.source->beginEpoch(order);
        ctx_.mlp->beginEpoch();  // the kernel adds to the epoch's sums: they start at zero, launched or not
        epochFirstStep_ = stepsDone_;
        // One launch is the whole epoch: the last moment a cancel can act is before it.
        if (cancel.load(std::memory_order_relaxed)) return {};
        const std::int64_t steps = ctx_.steps;
        ensureTable(stepsDone_ + steps);
        launchPersistentEpoch(args(), ctx_.stream);
        stepsDone_ += steps;  // counted here, so the next epoch needs no read of the device's step count
        EpochRun run;
        run.stepsRun = ctx_.steps;
        return run;
    }

    // The kernel marks the run's optimizer step t; this epoch's step is t minus the earlier epochs' steps.
    int nonFiniteStepOf(const DeviceCounters& c) override {
        return c.nonFiniteStep > 0 ? c.nonFiniteStep - static_cast<int>(epochFirstStep_) : 0;
    }

private:
    // Refuses what this device cannot hold (typed, with persistentRefusal's reason), then plans.
    static PersistentPlan planFor(const LaunchContext& ctx) {
        const TrainingProblem& p = *ctx.problem;
        const PersistentDevice dev = queryPersistentDevice(ctx.device);
        if (const auto why =
                persistentRefusal(p.model, p.data->cols, p.optimizer, p.execution.precision, p.batchSize, dev))
            throw ConfigError("execution settings refused on CUDA device " + std::to_string(ctx.device) + ": " + *why);
        return makePersistentPlan(p.model, p.data->cols, p.execution.loss, p.optimizer, p.batchSize, dev);
    }

    // The run's epochs when the problem carries its config (tests and the parity check may not): the
    // table is uploaded once for the whole run, and only grown (ensureTable) when a run goes further.
    int plannedEpochs() const {
        const RunConfig* config = ctx_.problem->config;
        return config ? std::max(1, config->train.epochs) : 1;
    }

    // The step table covers steps 1 .. `lastStep` (at least): regrown at twice the size when short. The
    // stream is idle between epochs (the backend waits once per epoch), so the old table is free.
    void ensureTable(std::int64_t lastStep) {
        if (lastStep <= static_cast<std::int64_t>(hostTable_.size())) return;
        const std::int64_t length = std::max(lastStep, 2 * static_cast<std::int64_t>(hostTable_.size()));
        hostTable_ = persistentStepTable(ctx_.mlp->optimizerScalars(), 0, length);
        table_ = DeviceBuffer<stepmath::StepScalars>(hostTable_.size());
        table_.copyFrom(hostTable_.data(), hostTable_.size(), ctx_.stream);
    }

    PersistentArgs args() {
        DeviceCounters* c = ctx_.mlp->counters();
        PersistentArgs a;
        a.plan = plan_;
        a.optimizer = ctx_.mlp->optimizerScalars();
        a.params = ctx_.mlp->params();
        a.state0 = ctx_.mlp->optimizerState(0);
        a.state1 = ctx_.mlp->optimizerState(1);
        a.state2 = ctx_.mlp->optimizerState(2);
        a.stepTable = table_.data();
        a.tableLength = static_cast<std::int64_t>(table_.size());
        a.stepsDone = stepsDone_;
        a.x = ctx_.source->residentX();
        a.y = ctx_.source->residentY();
        a.rowIndex = ctx_.source->residentOrder();  // null in file order
        a.firstRow = 0;
        a.rows = static_cast<std::int64_t>(ctx_.rows);
        a.lossSum = &c->lossSum;  // device addresses inside the counters
        a.correct = &c->correct;
        a.nonFiniteStep = &c->nonFiniteStep;
        a.stepLoss = &c->stepLoss;
        a.stepCount = &c->optimizerStep;
        a.scratch = scratch_.data();
        return a;
    }

    LaunchContext ctx_;
    PersistentPlan plan_;
    DeviceBuffer<unsigned char> scratch_;           // (plan_.scratch.bytes) zeroed once: the barrier flags
    std::vector<stepmath::StepScalars> hostTable_;  // kept: the upload reads it asynchronously
    DeviceBuffer<stepmath::StepScalars> table_;     // entry t-1: step t's scalars (Adam's bias corrections)
    std::int64_t stepsDone_ = 0;                    // the run's steps before the next epoch
    std::int64_t epochFirstStep_ = 0;               // the steps before the epoch just run
};
}  // namespace

std::unique_ptr<LaunchStrategy> makePersistentLaunch(const LaunchContext& ctx) {
    return std::make_unique<PersistentLaunch>(ctx);
}

}  // namespace wb
