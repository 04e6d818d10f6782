// Drives a Backend epoch by epoch: shuffling, validation, metrics, divergence, cancellation,
// and the RunRecord written after every epoch. run() reads as its verbs (training_steps.h holds
// those a trainer of several models shares).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "core/platform/random.h"
#include "core/run/backend.h"
#include "core/run/epoch_journal.h"
#include "core/run/memory_budget.h"
#include "core/run/run_config.h"
#include "core/run/run_record.h"

namespace wb {

struct TrainerCallbacks {
    // After every epoch (on the training thread).
    std::function<void(const EpochMetrics&, const RunRecord&)> onEpoch;
    // After onEpoch, while the run goes on: a reason ends it there, `stopped` with that message (a
    // sweep's early termination). Null or nullopt: it goes on.
    std::function<std::optional<std::string>(const RunRecord&)> stopAfterEpoch = nullptr;
};

class Trainer {
public:
    // `data` must outlive the trainer. `recordPath` empty = do not write a file.
    Trainer(RunConfig config, const Dataset& dataset, const PreparedData& data, Backend& backend,
            std::string recordPath = {});

    // Runs to the end, to a cancel, to divergence or to an error; never throws for a failure
    // of the run itself (the record says `failed` with the message, and is saved) — only for bad
    // configs found before the first step (ConfigError) and for a run that cannot fit in the memory
    // available (MemoryError, before anything is allocated or written). A DeviceError or out-of-memory from the
    // backend's setup, and any error reading the trained parameters back, fail the run.
    RunRecord run(const CancelFlag& cancel, const TrainerCallbacks& callbacks = {});

    const MlpParams& finalParams() const { return finalParams_; }

private:
    void save(const RunRecord& record) const;  // to recordPath_, when there is one
    int checkMemoryAndSizeBatch();
    void setUpBackend(RunRecord& record, const MlpParams& initial, int batch, const CancelFlag& cancel);
    void trainEpochs(RunRecord& record, EpochJournal& journal, const CancelFlag& cancel,
                     const TrainerCallbacks& callbacks);
    bool stoppedAfter(RunRecord& record, const TrainerCallbacks& callbacks) const;
    EpochResult trainEpoch(Rng& shuffleRng, const CancelFlag& cancel);
    std::optional<EvalResult> validate(const EpochResult& result);
    void readParametersBack(RunRecord& record);

    RunConfig config_;
    const Dataset& dataset_;
    const PreparedData& data_;
    Backend& backend_;
    std::string recordPath_;
    MlpParams finalParams_;
    MemoryEstimate need_;  // what the run was estimated to need before its setup
};

// Fills the environment of a record: backend, device, CPU model, threads, compiler, build type.
std::map<std::string, std::string> describeEnvironment(const Backend& backend);

}  // namespace wb
