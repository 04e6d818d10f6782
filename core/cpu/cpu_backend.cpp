#include "core/cpu/cpu_backend.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>

#include <Eigen/Core>

#include "core/cpu/cpu_mlp.h"
#include "core/cpu/cpu_target.h"
#include "core/cpu/cpu_tile_kernels.h"
#include "core/cpu/worker_pool.h"
#include "core/model/math_ops.h"
#include "core/model/task_loss.h"
#include "core/platform/errors.h"

namespace wb {

namespace {
using Clock = std::chrono::steady_clock;

// Parameters per optimizer task: below this a model's update runs on one thread.
constexpr std::size_t kParamBlock = 8192;

int threadsFor(int requested) {
    return requested > 0 ? requested : WorkerPool::hardwareThreads();
}

// "v3 (AVX2 + FMA, 8 lanes)", and what forced it when something did.
std::string cpuTargetText(const CpuTargetChoice& choice) {
    return describe(choice.chosen) + (choice.forcedBy.empty() ? "" : ", forced by " + choice.forcedBy);
}

double msSince(Clock::time_point& mark) {
    const auto now = Clock::now();
    const double ms = std::chrono::duration<double, std::milli>(now - mark).count();
    mark = now;
    return ms;
}

class CpuBackend final : public Backend {
public:
    std::string name() const override { return "cpu"; }
    std::string deviceName() const override { return cpuModelName(); }

    void setup(const TrainingProblem& problem) override {
        if (!problem.data || problem.data->trainRows() == 0) throw ConfigError("no training rows");
        problem_ = problem;
        const auto batch = static_cast<std::size_t>(problem.batchSize);
        const std::size_t cols = problem.data->cols;
        const CpuKernels& kernels = chosenCpuKernels();  // throws for an unrunnable MLPWB_CPU_TARGET
        ldx_ = CpuMlp::paddedInputStride(cols, kernels);
        if (!pool_ || pool_->threads() != threadsFor(problem.threads))
            pool_ = std::make_unique<WorkerPool>(threadsFor(problem.threads));
        mlp_ = std::make_unique<CpuMlp>(problem.initialParams, problem.model.activation, batch, pool_.get(), ldx_,
                                        kernels);
        const LossSpec lossSpec = lossSpecOf(*problem.data, problem.model, problem.execution);
        if (problem.initialParams.widths().back() != lossSpec.outputs)
            throw ConfigError("the model has " + std::to_string(problem.initialParams.widths().back()) +
                              " outputs; a " + toString(lossSpec.task) + " task on this data needs " +
                              std::to_string(lossSpec.outputs));
        loss_ = std::make_unique<TaskLoss>(lossSpec, batch);
        chunkLoss_.clear();
        for (std::size_t c = 0; c < CpuMlp::chunkCount(batch); ++c) chunkLoss_.emplace_back(lossSpec, kChunkRows);
        chunkSums_.assign(chunkLoss_.size(), LossSums{});
        optimizer_ = makeOptimizer(problem.optimizer, problem.initialParams.count(), *kernels.optimizerLoops);
        // Every copy of the rows is padded to ldx_ floats (zeros after the last column), which spares
        // the backward pass a padded copy of each tile.
        trainX_.assign(problem.data->trainRows() * ldx_, 0.0f);  // (rows, ldx)
        mlp_->kernels().copyRows(problem.data->trainX.data(), cols, problem.data->trainRows(), cols, trainX_.data(),
                                 ldx_);
        batchX_.assign(batch * ldx_, 0.0f);  // (B, ldx) gathered rows
        batchY_.assign(batch, 0.0f);         // (B)
        shuffledX_.clear();
        shuffledY_.clear();
    }

    EpochResult trainEpoch(const std::vector<std::uint32_t>* order, const CancelFlag& cancel) override {
        const PreparedData& d = *problem_.data;
        const std::size_t rows = d.trainRows(), batch = static_cast<std::size_t>(problem_.batchSize);
        const bool gather = problem_.execution.dataPath == DataPath::PerSampleGather;
        EpochResult result;
        PhaseTimes phases;
        auto mark = Clock::now();
        if (order && !gather) permuteOnce(*order);  // one bulk shuffle, then contiguous views
        phases.data += msSince(mark);
        const float* xs = (order && !gather) ? shuffledX_.data() : trainX_.data();
        const float* ys = (order && !gather) ? shuffledY_.data() : d.trainY.data();

        int step = 0;
        for (std::size_t start = 0; start < rows; start += batch) {
            if (cancel.load(std::memory_order_relaxed)) {
                result.cancelled = true;
                break;
            }
            ++step;
            const std::size_t n = std::min(batch, rows - start);
            const float* x = xs + start * ldx_;
            const float* y = ys + start;
            if (gather) {
                gatherRows(order, start, n);
                x = batchX_.data();
                y = batchY_.data();
            }
            phases.data += msSince(mark);

            const LossSums sums = trainStep(x, y, n, phases, mark);
            result += sums;
            result.samples += n;
            if (!std::isfinite(sums.lossSum)) {
                result.nonFiniteStep = step;
                break;
            }
        }
        phases.other += msSince(mark);
        result.phases = phases;
        return result;
    }

    EvalResult evaluate(const float* x, const float* y, std::size_t rows) override {
        EvalResult r;
        const auto batch = static_cast<std::size_t>(problem_.batchSize);
        const std::size_t cols = problem_.data->cols;
        for (std::size_t start = 0; start < rows; start += batch) {
            const std::size_t n = std::min(batch, rows - start);
            // Through the aligned, padded batch buffer, so results do not depend on where `x` lies.
            mlp_->kernels().copyRows(x + start * cols, cols, n, cols, batchX_.data(), ldx_);
            r += (*loss_)(mlp_->forward(batchX_.data(), n), y + start, n, nullptr);
        }
        return r;
    }

    MlpParams parameters() const override { return mlp_->params(); }

    std::vector<IgnoredSwitch> notApplicable(const ExecutionSettings& s) const override {
        return cpuIgnoredSwitches(s);
    }

    std::vector<std::pair<std::string, std::string>> environment() const override {
        return {{"threads", std::to_string(pool_ ? pool_->threads() : 1)},
                {"cpu_target", cpuTargetText(cpuTargetChoice())},
                {"simd", Eigen::SimdInstructionSetsInUse()},
                {"eigen", std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
                              std::to_string(EIGEN_MINOR_VERSION)}};
    }

private:
    // One optimisation step on (n) rows; returns the summed loss and metrics. Adds to the phase times.
    LossSums trainStep(const float* x, const float* y, std::size_t n, PhaseTimes& phases, Clock::time_point& mark) {
        const ZeroGrad zg = problem_.execution.zeroGrad;
        const int zeroings = zg == ZeroGrad::Twice ? 2 : zg == ZeroGrad::Once ? 1 : 0;
        for (int i = 0; i < zeroings; ++i) mlp_->zeroGrads();  // model.zero_grad(); optimizer.zero_grad()
        phases.other += msSince(mark);

        // Forward, loss and backward chunk by chunk on the pool; the loss' sum and the gradients are
        // then reduced in chunk order, so any thread count gives the same bits. With class weights
        // every chunk divides by the whole batch's sum of weights, which no chunk sees alone.
        const double batchWeight = loss_->weighted() ? loss_->batchWeight(y, n) : 0.0;
        mlp_->forwardLoss(x, n,
                          [&](std::size_t c, std::size_t first, std::size_t rows, const float* logits, float* dlogits) {
                              chunkSums_[c] = chunkLoss_[c](logits, y + first, rows, dlogits, n, batchWeight);
                          });
        LossSums sums;
        for (std::size_t c = 0; c < CpuMlp::chunkCount(n); ++c) sums += chunkSums_[c];
        phases.forward += msSince(mark);

        mlp_->backwardFromLoss(x, n);
        phases.backward += msSince(mark);

        applyOptimizer(zeroings > 0);
        phases.optimizer += msSince(mark);
        return sums;
    }

    // Sums the chunks' gradients and updates the parameters, a block of parameters per task.
    void applyOptimizer(bool accumulate) {
        float* p = mlp_->values();
        const float* g = mlp_->grads().data();
        const std::size_t count = mlp_->count();
        const bool perTensor = problem_.execution.optimizerKernel == OptimizerKernel::PerTensor;
        optimizer_->beginStep();
        const std::size_t blocks = (count + kParamBlock - 1) / kParamBlock;
        pool_->run(blocks, [&](std::size_t b) {
            const std::size_t first = b * kParamBlock, last = std::min(count, first + kParamBlock);
            mlp_->reduceGradients(first, last - first, accumulate);
            if (!perTensor) {
                optimizer_->update(p, g, first, last - first);  // one pass over every parameter
                return;
            }
            for (const LayerSlice& l : mlp_->layers()) {  // one pass per tensor, as a for-each over .parameters()
                updateWithin(p, g, l.weightOffset, static_cast<std::size_t>(l.in) * l.out, first, last);
                updateWithin(p, g, l.biasOffset, static_cast<std::size_t>(l.out), first, last);
            }
        });
    }

    // The optimizer over tensor [offset, offset + n) where it meets the block [first, last).
    void updateWithin(float* p, const float* g, std::size_t offset, std::size_t n, std::size_t first,
                      std::size_t last) {
        const std::size_t lo = std::max(offset, first), hi = std::min(offset + n, last);
        if (lo < hi) optimizer_->update(p, g, lo, hi - lo);
    }

    // The DataLoader pattern: fetch each sample on its own and collate into the batch buffer.
    void gatherRows(const std::vector<std::uint32_t>* order, std::size_t start, std::size_t n) {
        const PreparedData& d = *problem_.data;
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t row = order ? (*order)[start + i] : start + i;
            std::memcpy(batchX_.data() + i * ldx_, d.trainX.data() + row * d.cols, d.cols * sizeof(float));
            batchY_[i] = d.trainY[row];
        }
    }

    void permuteOnce(const std::vector<std::uint32_t>& order) {
        const PreparedData& d = *problem_.data;
        shuffledX_.resize(d.trainRows() * ldx_, 0.0f);  // (rows, ldx), allocated on the first shuffled epoch only
        shuffledY_.resize(d.trainY.size());
        for (std::size_t i = 0; i < order.size(); ++i) {
            std::memcpy(shuffledX_.data() + i * ldx_, trainX_.data() + order[i] * ldx_, d.cols * sizeof(float));
            shuffledY_[i] = d.trainY[order[i]];
        }
    }

    TrainingProblem problem_;
    std::unique_ptr<WorkerPool> pool_;  // before mlp_, which holds a pointer to it
    std::unique_ptr<CpuMlp> mlp_;
    std::unique_ptr<TaskLoss> loss_;   // evaluate()'s
    std::vector<TaskLoss> chunkLoss_;  // (K) forwardLoss's, one per chunk
    std::vector<LossSums> chunkSums_;  // (K) each chunk's loss and metric sums
    std::unique_ptr<Optimizer> optimizer_;
    std::size_t ldx_ = 0;          // the stride of every copy of the rows below: the kernels' paddedWidth(cols)
    AlignedVector<float> trainX_;  // (rows, ldx) aligned, padded copy of the training rows
    AlignedVector<float> batchX_, batchY_;
    AlignedVector<float> shuffledX_, shuffledY_;
};
}  // namespace

std::string cpuModelName() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
        }
    return "unknown CPU";
}

std::vector<IgnoredSwitch> cpuIgnoredSwitches(const ExecutionSettings& s) {
    std::vector<IgnoredSwitch> out;
    if (s.dataPath == DataPath::PageableCopy || s.dataPath == DataPath::PinnedAsync)
        out.push_back({"data_path", "no host-to-device copy on a CPU; batches are contiguous views of the data"});
    out.push_back({"launch", "the CPU backend launches no kernels"});
    if (s.precision != Precision::Fp32) out.push_back({"precision", "the CPU backend computes in fp32"});
    out.push_back({"gemm", "the CPU backend's matrix products are its own tiled kernels"});
    return out;
}

std::unique_ptr<Backend> makeCpuBackend() {
    return std::make_unique<CpuBackend>();
}

BackendInfo probeCpuBackend() {
    BackendInfo info{"cpu", true, cpuModelName(), "", {{"threads", std::to_string(WorkerPool::hardwareThreads())}}};
    try {
        const CpuTargetChoice choice = cpuTargetChoice();
        info.details.emplace_back("kernels", cpuTargetText(choice));
        info.details.emplace_back("kernel targets", toString(choice.runnable) + " (MLPWB_CPU_TARGET forces one)");
    } catch (const ConfigError& e) {  // MLPWB_CPU_TARGET names a target this machine cannot run
        info.available = false;
        info.reason = e.what();
    }
    return info;
}

}  // namespace wb
