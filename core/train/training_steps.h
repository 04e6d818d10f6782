// The verbs of one training run, in the order the Trainer calls them: the configuration as it
// trains, its initial weights, a new record; then for each epoch, whether it stopped the run, its
// metrics from the backend's result, and the verdict on the run after it. A trainer of several
// models at once calls the same verbs for each of its models.
#pragma once

#include <cstddef>
#include <optional>

#include "core/data/dataset.h"
#include "core/run/backend.h"
#include "core/run/run_config.h"
#include "core/run/run_record.h"

namespace wb {

// The configuration as it trains: the output layer the data's task needs, validated, and class
// weights resolved to numbers (`balanced` too), so the backends and the record see what the run
// trains with. Throws ConfigError.
RunConfig preparedConfig(RunConfig config, const PreparedData& data);
// The initial parameters: drawn from the seed, or read from `initWeights` and checked against the
// model and the data's `inputs` features.
MlpParams initialParams(const RunConfig& config, std::size_t inputs);
// The record of a run before its first epoch: its name, configuration and data set.
RunRecord newRecord(const RunConfig& config, const Dataset& dataset, const PreparedData& data);

// True when the epoch ended the run before it had metrics (cancelled, a non-finite step): the
// record then says so.
bool stoppedDuring(const EpochResult& result, int epoch, RunRecord& record);

// What an epoch is scored against: a regression's R² compares each split's squared error with the
// spread of that split's targets around their own mean (computed once per run).
class EpochScoring {
public:
    explicit EpochScoring(const PreparedData& data);
    bool regression() const { return regression_; }
    // Epoch `epoch`'s metrics from the backend's result and the validation split's sums (nullopt
    // without a validation split); the times are the caller's to set.
    EpochMetrics metrics(int epoch, const EpochResult& result, const std::optional<EvalResult>& validation) const;

private:
    const PreparedData& data_;
    bool regression_;
    double trainSpread_ = 0, valSpread_ = 0;
};

// After the latest epoch was added: diverged (a non-finite or exploding loss, with why), completed
// at the last epoch, or still running.
void judgeLatestEpoch(RunRecord& record, const TrainSpec& train);

}  // namespace wb
