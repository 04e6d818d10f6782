#include "core/train/training_steps.h"

#include <cmath>
#include <string>
#include <vector>

#include "core/model/safetensors.h"
#include "core/model/task_loss.h"
#include "core/run/task_metrics.h"

namespace wb {

namespace {
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
}  // namespace

RunConfig preparedConfig(RunConfig config, const PreparedData& data) {
    config.model.outputs = data.outputs();
    config.validate();
    // Checked against the data, and `balanced` made numbers, once.
    if (!config.model.classWeights.empty())
        config.model.classWeights.values = resolveClassWeights(config.model.classWeights, data);
    return config;
}

MlpParams initialParams(const RunConfig& config, std::size_t inputs) {
    if (config.initWeights.empty()) return initParams(config.model, inputs, config.train.seed);
    MlpParams loaded = loadSafetensors(config.initWeights);
    checkParamsMatch(loaded, config.model, inputs);
    return loaded;
}

RunRecord newRecord(const RunConfig& config, const Dataset& dataset, const PreparedData& data) {
    RunRecord record;
    record.name = config.name;
    record.config = config;
    record.dataset = describeDataset(dataset, data);
    return record;
}

bool stoppedDuring(const EpochResult& result, int epoch, RunRecord& record) {
    if (result.cancelled) {
        record.status = RunStatus::Cancelled;
        record.message = "cancelled during epoch " + std::to_string(epoch);
        return true;
    }
    if (result.nonFiniteStep) {
        record.status = RunStatus::Diverged;
        record.message = "loss became non-finite at epoch " + std::to_string(epoch) + ", step " +
                         std::to_string(*result.nonFiniteStep);
        return true;
    }
    return false;
}

EpochScoring::EpochScoring(const PreparedData& data) : data_(data), regression_(data.task == Task::Regression) {
    if (!regression_) return;
    trainSpread_ = sumOfSquaresAroundMean(data.trainY);
    valSpread_ = sumOfSquaresAroundMean(data.valY);
}

EpochMetrics EpochScoring::metrics(int epoch, const EpochResult& r, const std::optional<EvalResult>& validation) const {
    EpochMetrics m;
    m.epoch = epoch;
    m.warmup = epoch == 1;
    m.trainLoss = r.meanLoss(r.samples);  // weighted by the class weights when there are some
    m.trainAccuracy = static_cast<double>(r.correct) / static_cast<double>(r.samples);
    if (regression_)
        m.trainRegression =
            regressionMetrics(r.squaredError, r.absoluteError, r.samples, data_.targetStd, trainSpread_);
    if (validation) {
        const std::size_t rows = data_.valRows();
        m.valLoss = validation->meanLoss(rows);
        if (regression_)
            m.valRegression = regressionMetrics(validation->squaredError, validation->absoluteError, rows,
                                                data_.targetStd, valSpread_);
        else
            m.valAccuracy = static_cast<double>(validation->correct) / static_cast<double>(rows);
    }
    m.deviceMs = r.deviceMs;
    m.phases = r.phases;
    return m;
}

void judgeLatestEpoch(RunRecord& record, const TrainSpec& train) {
    if (const auto why = divergence(record.epochs, train.divergenceFactor)) {
        record.status = RunStatus::Diverged;
        record.message = *why;
    } else if (record.epochs.back().epoch == train.epochs) {
        record.status = RunStatus::Completed;
    }
}

}  // namespace wb
