// launch=graph_step: the whole step captured once as a CUDA graph and replayed (a static graph, like
// tf.function or torch.compile's reduce-overhead). The phases are not separable inside a graph.
//
// A graph reads its batch where it was captured, so there is one graph per batch address and size
// (BatchSource::stage with a fixed address says when addresses repeat), and per role: the graph of
// an epoch's first step also holds the reset of the epoch's sums, the graph of its last step also
// the copy of the device's counters to the host, so an epoch costs the host its graph launches and
// nothing else (no reset kernel and no copy launched apart, ~20 µs of host work per epoch before).
#include <map>
#include <tuple>

#include "kernels/cuda_graph.h"
#include "kernels/launch_strategy.h"

namespace wb {

namespace {
enum StepRole : int { kMiddle = 0, kFirst = 1, kLast = 2 };  // a one-step epoch is kFirst | kLast

class GraphStepLaunch final : public LaunchStrategy {
public:
    explicit GraphStepLaunch(const LaunchContext& ctx) : ctx_(ctx) {}

    EpochRun runEpoch(const std::vector<std::uint32_t>* order, const CancelFlag& cancel) override {
        EpochRun run;
        ctx_.source->beginEpoch(order);
        for (int step = 0; step < ctx_.steps; ++step) {
            if (cancel.load(std::memory_order_relaxed)) break;
            runStep(step, ctx_.rowsOf(step));
            ++run.stepsRun;
        }
        if (run.stepsRun == 0) ctx_.mlp->beginEpoch();    // no first-step graph ran: the sums still start at zero
        run.countersQueued = run.stepsRun == ctx_.steps;  // the last step's graph copied them
        return run;
    }

private:
    int roleOf(int step) const { return (step == 0 ? kFirst : kMiddle) | (step + 1 == ctx_.steps ? kLast : kMiddle); }

    void runStep(int step, int n) {
        const DeviceBatch b = ctx_.source->stage(step, n, /*fixedAddress=*/true);
        const int role = roleOf(step);
        CudaGraph& g = graphs_[std::make_tuple(b.x, b.y, n, role)];
        if (g.ready()) {
            g.launch(ctx_.stream);
        } else {
            // The first step with this address, size and role (all in the warm-up epoch, which so pays
            // for every capture): eager, so cuBLAS picks its kernels, then captured without running.
            enqueueStep(b, n, role);
            g.capture(ctx_.stream, [&] { enqueueStep(b, n, role); });
        }
        ctx_.source->release(step);
    }

    // What one graph holds: [reset of the epoch's sums] + the step's verbs + [copy of the counters].
    void enqueueStep(const DeviceBatch& b, int n, int role) {
        if (role & kFirst) ctx_.mlp->beginEpoch();
        ctx_.mlp->startStep(ctx_.zeroings());
        ctx_.mlp->trainOnBatch(b.x, b.y, n, ctx_.zeroings());
        if (role & kLast) ctx_.queueCounterCopy();
    }

    LaunchContext ctx_;
    std::map<std::tuple<const float*, const float*, int, int>, CudaGraph> graphs_;  // (x, y, n, role)
};
}  // namespace

std::unique_ptr<LaunchStrategy> makeGraphStepLaunch(const LaunchContext& ctx) {
    return std::make_unique<GraphStepLaunch>(ctx);
}

}  // namespace wb
