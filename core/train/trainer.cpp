#include "core/train/trainer.h"

#include <chrono>
#include <cmath>
#include <new>
#include <thread>

#include "core/cpu/cpu_backend.h"
#include "core/platform/errors.h"
#include "core/platform/random.h"
#include "core/run/epoch_journal.h"
#include "core/run/memory_budget.h"
#include "core/run/task_metrics.h"
#include "core/train/training_steps.h"

namespace wb {

namespace {
using Clock = std::chrono::steady_clock;

double msBetween(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

// Seed for the shuffling stream, distinct from the weight-initialisation stream of the same seed.
constexpr std::uint64_t kShuffleStream = 0x9E3779B97F4A7C15ull;

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
    config_ = preparedConfig(std::move(config_), data_);
    const MlpParams initial = initialParams(config_, data_.cols);
    RunRecord record = newRecord(config_, dataset_, data_);
    const int batch = checkMemoryAndSizeBatch();
    setUpBackend(record, initial, batch, cancel);
    save(record);  // from here a kill leaves a record that loads: "running", its epochs in the journal
    if (record.status == RunStatus::Failed) return record;
    EpochJournal journal(recordPath_);
    trainEpochs(record, journal, cancel, callbacks);
    readParametersBack(record);
    save(record);
    journal.discard();
    return record;
}

void Trainer::save(const RunRecord& record) const {
    if (!recordPath_.empty()) record.save(recordPath_);
}

// Refused before anything is allocated when it cannot fit (MemoryError); batch buffers are sized by
// the rows there are, not by a batch larger than the data (one step over all rows either way).
int Trainer::checkMemoryAndSizeBatch() {
    const MemoryShape shape = shapeOf(data_);
    need_ = estimateRunMemory(config_, shape, MemoryStage::BeforeSetup);
    checkMemory(need_, availableMemory(), "this run");
    return static_cast<int>(batchCapacity(config_.train.batchSize, shape));
}

// A device that fails while allocating (out of memory, a lost GPU) fails the run like one that fails
// during it; a ConfigError (switches the backend cannot honour) still propagates.
void Trainer::setUpBackend(RunRecord& record, const MlpParams& initial, int batch, const CancelFlag& cancel) {
    try {
        backend_.setup({&data_, config_.model, config_.optimizer, config_.execution, batch, initial, &cancel, &config_,
                        config_.threads});
    } catch (const DeviceError& e) {
        markFailed(record, std::string("setup failed: ") + e.what());
    } catch (const FrameworkError& e) {  // the interpreter would not start, a module is missing, ...
        markFailed(record, std::string("setup failed: ") + e.what());
    } catch (const std::bad_alloc&) {
        markFailed(record, "setup failed: out of memory allocating the " + config_.backend +
                               " backend's buffers (estimated " + formatBytes(need_.total()) + ")");
    }
    record.environment = describeEnvironment(backend_);
    record.notApplicable = backend_.notApplicable(config_.execution);
}

// Every epoch to the last, a cancel, divergence or an error (which fails the run), each recorded,
// journalled and handed to the callback.
void Trainer::trainEpochs(RunRecord& record, EpochJournal& journal, const CancelFlag& cancel,
                          const TrainerCallbacks& callbacks) {
    const EpochScoring scoring(data_);
    if (scoring.regression()) record.notApplicable.push_back(regressionLossSwitch());
    const auto runStart = Clock::now();
    Rng shuffleRng(config_.train.seed ^ kShuffleStream);
    int epoch = 1;
    try {
        for (; epoch <= config_.train.epochs; ++epoch) {
            const auto start = Clock::now();
            const EpochResult result = trainEpoch(shuffleRng, cancel);
            if (stoppedDuring(result, epoch, record)) break;
            EpochMetrics m = scoring.metrics(epoch, result, validate(result));
            const auto end = Clock::now();
            m.wallMs = result.wallMs.value_or(msBetween(start, end));
            m.samplesPerSecond = static_cast<double>(result.samples) / (m.wallMs / 1000.0);
            m.elapsedMs = msBetween(runStart, end);
            record.epochs.push_back(m);
            judgeLatestEpoch(record, config_.train);
            journal.append(m);  // O(1) per epoch; the whole record is written once more at the end
            if (callbacks.onEpoch) callbacks.onEpoch(m, record);
            if (record.status == RunStatus::Diverged || stoppedAfter(record, callbacks)) break;
        }
    } catch (const std::bad_alloc&) {
        markFailed(record, "out of memory during epoch " + std::to_string(epoch));
    } catch (const std::exception& e) {
        markFailed(record, e.what());
    }
}

// The caller's early stop after an epoch that is not the last: the record ends `stopped`, with why.
bool Trainer::stoppedAfter(RunRecord& record, const TrainerCallbacks& callbacks) const {
    if (!callbacks.stopAfterEpoch || static_cast<int>(record.epochs.size()) >= config_.train.epochs) return false;
    const auto reason = callbacks.stopAfterEpoch(record);
    if (!reason) return false;
    record.status = RunStatus::Stopped;
    record.message = *reason;
    return true;
}

// One epoch over the training rows, in a fresh permutation when the run shuffles.
EpochResult Trainer::trainEpoch(Rng& shuffleRng, const CancelFlag& cancel) {
    if (!config_.train.shuffle) return backend_.trainEpoch(nullptr, cancel);
    const std::vector<std::uint32_t> order = permutation(static_cast<std::uint32_t>(data_.trainRows()), shuffleRng);
    return backend_.trainEpoch(&order, cancel);
}

// The validation split's sums: the backend's own when it computed them within the epoch.
std::optional<EvalResult> Trainer::validate(const EpochResult& result) {
    if (data_.valRows() == 0) return std::nullopt;
    if (result.validation) return result.validation;
    return backend_.evaluate(data_.valX.data(), data_.valY.data(), data_.valRows());
}

// Reading the weights back is a device operation too: a sticky device error surfaces here.
void Trainer::readParametersBack(RunRecord& record) {
    try {
        finalParams_ = backend_.parameters();
    } catch (const std::exception& e) {
        finalParams_ = {};
        if (record.status != RunStatus::Failed)
            markFailed(record, std::string("reading the trained parameters failed: ") + e.what());
    }
}

}  // namespace wb
