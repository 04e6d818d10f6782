#include "trainer.h"

#include <chrono>
#include <cmath>
#include <new>
#include <thread>

#include "cpu_backend.h"
#include "epoch_journal.h"
#include "errors.h"
#include "memory_budget.h"
#include "random.h"
#include "safetensors.h"
#include "task_loss.h"
#include "task_metrics.h"

namespace wb {

namespace {
using Clock = std::chrono::steady_clock;

double msBetween(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

DatasetDescription describeDataset(const Dataset& ds, const PreparedData& data) {
    DatasetDescription d;
    d.source = ds.source;
    d.rows = ds.rows;
    d.features = ds.cols;
    d.label = ds.labelName;
    d.labelMapping = ds.labelMapping;
    d.hash = ds.hash;
    d.trainRows = data.trainRows();
    d.valRows = data.valRows();
    d.notes = ds.notes;
    d.task = ds.task;
    d.classes = ds.classNames;
    d.taskReason = ds.taskReason;
    return d;
}

// Seed for the shuffling stream, distinct from the weight-initialisation stream of the same seed.
constexpr std::uint64_t kShuffleStream = 0x9E3779B97F4A7C15ull;

// Why the run has diverged after its latest epoch, or nullopt: a non-finite validation loss, or a
// training loss past `factor` times the first epoch's (0: never).
std::optional<std::string> divergence(const std::vector<EpochMetrics>& epochs, double factor) {
    const EpochMetrics& m = epochs.back();
    const std::string at = " at epoch " + std::to_string(m.epoch);
    if (m.valLoss && !std::isfinite(*m.valLoss)) return "the validation loss became non-finite" + at;
    if (!std::isfinite(m.trainLoss)) return "the loss became non-finite" + at;
    const double first = epochs.front().trainLoss;
    if (factor > 0 && m.trainLoss > factor * first)
        return "the loss grew past " + std::to_string(static_cast<long long>(factor)) + " times its first value" + at;
    return std::nullopt;
}

void markFailed(RunRecord& record, const std::string& message) {
    record.status = RunStatus::Failed;
    record.message = message;
}
}  // namespace

std::map<std::string, std::string> describeEnvironment(const Backend& backend) {
    std::map<std::string, std::string> env = {
        {"backend", backend.name()}, {"device", backend.deviceName()},
        {"cpu", cpuModelName()},     {"hardware_threads", std::to_string(std::thread::hardware_concurrency())},
        {"compiler", WB_COMPILER},   {"build_type", WB_BUILD_TYPE},
    };
    for (const auto& [k, v] : backend.environment()) env[k] = v;
    return env;
}

Trainer::Trainer(RunConfig config, const Dataset& dataset, const PreparedData& data, Backend& backend,
                 std::string recordPath)
    : config_(std::move(config)),
      dataset_(dataset),
      data_(data),
      backend_(backend),
      recordPath_(std::move(recordPath)) {}

RunRecord Trainer::run(const CancelFlag& cancel, const TrainerCallbacks& callbacks) {
    config_.model.outputs = data_.outputs();  // the output layer the data's task needs
    config_.validate();
    // Class weights are checked against the data and `balanced` becomes numbers here, once, so the
    // backends and the record (config.model.class_weights) all see the numbers the run trains with.
    if (!config_.model.classWeights.empty())
        config_.model.classWeights.values = resolveClassWeights(config_.model.classWeights, data_);
    MlpParams initial;
    if (config_.initWeights.empty()) {
        initial = initParams(config_.model, data_.cols, config_.train.seed);
    } else {
        initial = loadSafetensors(config_.initWeights);
        checkParamsMatch(initial, config_.model, data_.cols);
    }
    RunRecord record;
    record.name = config_.name;
    record.config = config_;
    record.dataset = describeDataset(dataset_, data_);
    auto save = [&] {
        if (!recordPath_.empty()) record.save(recordPath_);
    };
    // Refused before anything is allocated when it cannot fit; batch buffers are sized by the rows
    // there are, not by a batch larger than the data (one step over all rows either way).
    const MemoryShape shape = shapeOf(data_);
    const MemoryEstimate need = estimateRunMemory(config_, shape, MemoryStage::BeforeSetup);
    checkMemory(need, availableMemory(), "this run");
    const int batch = static_cast<int>(batchCapacity(config_.train.batchSize, shape));
    // A device that fails while allocating (out of memory, a lost GPU) fails the run like one that
    // fails during it; a ConfigError (switches the backend cannot honour) still propagates.
    try {
        backend_.setup({&data_, config_.model, config_.optimizer, config_.execution, batch, initial, &cancel, &config_,
                        config_.threads});
    } catch (const DeviceError& e) {
        markFailed(record, std::string("setup failed: ") + e.what());
    } catch (const FrameworkError& e) {  // the interpreter would not start, a module is missing, ...
        markFailed(record, std::string("setup failed: ") + e.what());
    } catch (const std::bad_alloc&) {
        markFailed(record, "setup failed: out of memory allocating the " + config_.backend +
                               " backend's buffers (estimated " + formatBytes(need.total()) + ")");
    }
    record.environment = describeEnvironment(backend_);
    record.notApplicable = backend_.notApplicable(config_.execution);
    if (record.status == RunStatus::Failed) {
        save();
        return record;
    }
    // From here a kill leaves a record that loads: "running", with its finished epochs in the journal.
    save();
    EpochJournal journal(recordPath_);

    // A regression's R^2 compares with the spread of each split's targets around their own mean.
    const bool regression = data_.task == Task::Regression;
    const double trainSpread = regression ? sumOfSquaresAroundMean(data_.trainY) : 0.0;
    const double valSpread = regression ? sumOfSquaresAroundMean(data_.valY) : 0.0;
    if (regression) record.notApplicable.push_back(regressionLossSwitch());
    const auto runStart = Clock::now();
    Rng shuffleRng(config_.train.seed ^ kShuffleStream);
    int epoch = 1;
    try {
        for (; epoch <= config_.train.epochs; ++epoch) {
            const auto start = Clock::now();
            std::vector<std::uint32_t> order;
            if (config_.train.shuffle) order = permutation(static_cast<std::uint32_t>(data_.trainRows()), shuffleRng);
            const EpochResult r = backend_.trainEpoch(config_.train.shuffle ? &order : nullptr, cancel);
            if (r.cancelled) {
                record.status = RunStatus::Cancelled;
                record.message = "cancelled during epoch " + std::to_string(epoch);
                break;
            }
            if (r.nonFiniteStep) {
                record.status = RunStatus::Diverged;
                record.message = "loss became non-finite at epoch " + std::to_string(epoch) + ", step " +
                                 std::to_string(*r.nonFiniteStep);
                break;
            }
            EpochMetrics m;
            m.epoch = epoch;
            m.warmup = epoch == 1;
            m.trainLoss = r.meanLoss(r.samples);  // weighted by the class weights when there are some
            m.trainAccuracy = static_cast<double>(r.correct) / static_cast<double>(r.samples);
            if (regression)
                m.trainRegression =
                    regressionMetrics(r.squaredError, r.absoluteError, r.samples, data_.targetStd, trainSpread);
            if (data_.valRows() > 0) {
                const EvalResult v = r.validation
                                         ? *r.validation
                                         : backend_.evaluate(data_.valX.data(), data_.valY.data(), data_.valRows());
                m.valLoss = v.meanLoss(data_.valRows());
                if (!regression) m.valAccuracy = static_cast<double>(v.correct) / static_cast<double>(data_.valRows());
                if (regression)
                    m.valRegression =
                        regressionMetrics(v.squaredError, v.absoluteError, data_.valRows(), data_.targetStd, valSpread);
            }
            const auto end = Clock::now();
            m.wallMs = r.wallMs.value_or(msBetween(start, end));
            m.deviceMs = r.deviceMs;
            m.samplesPerSecond = static_cast<double>(r.samples) / (m.wallMs / 1000.0);
            m.phases = r.phases;
            m.elapsedMs = msBetween(runStart, end);
            record.epochs.push_back(m);
            if (const auto why = divergence(record.epochs, config_.train.divergenceFactor)) {
                record.status = RunStatus::Diverged;
                record.message = *why;
            } else if (epoch == config_.train.epochs) {
                record.status = RunStatus::Completed;
            }
            journal.append(m);  // O(1) per epoch; the whole record is written once more at the end
            if (callbacks.onEpoch) callbacks.onEpoch(m, record);
            if (record.status == RunStatus::Diverged) break;
        }
    } catch (const std::bad_alloc&) {
        markFailed(record, "out of memory during epoch " + std::to_string(epoch));
    } catch (const std::exception& e) {
        markFailed(record, e.what());
    }
    // Reading the weights back is a device operation too: a sticky device error surfaces here.
    try {
        finalParams_ = backend_.parameters();
    } catch (const std::exception& e) {
        finalParams_ = {};
        if (record.status != RunStatus::Failed)
            markFailed(record, std::string("reading the trained parameters failed: ") + e.what());
    }
    save();
    journal.discard();
    return record;
}

}  // namespace wb
