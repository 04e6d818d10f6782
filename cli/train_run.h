// One training run from a resolved configuration, as `mlpwb train` runs it: shared by `train` and
// by `sweep run-trial` (a sweep's trial is a `train` run whose configuration sweep.json holds).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "core/run/backend.h"
#include "core/run/run_config.h"
#include "core/run/run_record.h"

namespace wb::cli {

struct TrainOutputs {
    std::string record;       // the RunRecord, rewritten after every epoch ("" for none)
    std::string csv;          // per-epoch CSV at the end
    std::string saveWeights;  // the final weights (safetensors) of a completed run
    bool quiet = false;       // print only the summary
    bool defaultName = true;  // name the run after the data's task (no --name was given)
    // After each epoch but the last: a reason ends the run there, `stopped` (a sweep's early
    // termination: run-trial). Null: it runs to its end.
    std::function<std::optional<std::string>(const RunRecord&)> stopAfterEpoch = nullptr;
};

// Makes SIGINT and SIGTERM stop the next (or current) trainConfig instead of killing the process:
// a caller that writes state before training (`sweep run-trial`) calls it first.
void catchStopSignals();
// The flag those signals set, for a command that trains through the core itself (ablate, answer).
const CancelFlag& stopFlag();
// Back to the default handlers: a signal kills the process again.
void releaseStopSignals();

// Loads the data, trains, writes the outputs. SIGINT/SIGTERM stop it between steps: the record ends
// `cancelled`. Returns the exit code (exit_codes.h); throws wb::Error before the record exists.
int trainConfig(RunConfig config, const TrainOutputs& outputs);

}  // namespace wb::cli
