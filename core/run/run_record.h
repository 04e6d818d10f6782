// A RunRecord: one JSON file per run (schema "mlpwb.run/1", docs/ARCHITECTURE.md, "The RunRecord file"). The CLI, the
// GUI, the peers in bench/ and scripts all read and write it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/data/task.h"
#include "core/model/execution_settings.h"
#include "core/run/epoch_metrics.h"
#include "core/run/run_config.h"

namespace wb {

// Stopped: ended on purpose before its last epoch by an early-termination rule (a sweep's hyperband),
// the reason in the message; its epochs so far are as good as a completed run's.
enum class RunStatus { Running, Completed, Cancelled, Diverged, Failed, Stopped };

struct DatasetDescription {
    std::string source;
    std::size_t rows = 0;
    std::size_t features = 0;
    std::string label;
    std::map<std::string, int> labelMapping;
    std::string hash;
    std::size_t trainRows = 0;
    std::size_t valRows = 0;
    std::vector<std::string> notes;  // what the loader did ("labels decoded as Latin-1/CP-1252 ...")
    Task task = Task::Binary;
    // (Default member initialisers: a description brace-initialised up to `notes` stays valid.)
    std::vector<std::string> classes{};  // classification: the label of each class, in class order
    std::string taskReason{};            // why this task ("3 text values: multiclass")
};

struct RunSummary {
    std::optional<double> medianEpochMs;  // excluding the warm-up epoch (unless it is the only one)
    std::optional<double> minEpochMs;
    double totalMs = 0;
    std::optional<EpochMetrics> final;  // the last epoch
};

// The summary as a record's "summary" holds it: median_epoch_ms, min_epoch_ms, total_ms, and "final"
// (the last epoch's losses and qualities, or null).
nlohmann::json summaryJson(const RunSummary& s);

struct RunRecord {
    static constexpr const char* kSchema = "mlpwb.run/1";
    std::string name;
    RunStatus status = RunStatus::Running;
    std::string message;
    nlohmann::json config;  // RunConfig as JSON (peers write what they have)
    DatasetDescription dataset;
    std::map<std::string, std::string> environment;
    std::vector<EpochMetrics> epochs;
    // Switches the backend ignored, with reasons ("not_applicable": [{"switch", "reason"}]; a record
    // written before may hold strings "switch=value: reason", which load too).
    std::vector<IgnoredSwitch> notApplicable;

    RunSummary summary() const;
    nlohmann::json toJson() const;
    // The text save() writes: toJson() dumped, the epochs one compact object per line.
    std::string toJsonText() const;
    static RunRecord fromJson(const nlohmann::json& j);  // throws DataError on a wrong schema or content

    // Atomic: writes `path`.tmp then renames it over `path`. Throws IoError.
    void save(const std::string& path) const;
    static RunRecord load(const std::string& path);  // throws DataError
    // Per-epoch metrics as CSV (one header line, one line per epoch). Throws IoError.
    void saveEpochCsv(const std::string& path) const;

private:
    nlohmann::json withoutEpochs() const;
    static RunRecord fromCheckedJson(const nlohmann::json& j);  // the schema is known to be right
};

// What every reader asks of a record's configuration, answered here once (no reader digs in
// `config` by key). Our configuration, or nullopt: a peer's record holds its own keys (no
// "execution"), and a record of another version may hold switches this one cannot read.
std::optional<RunConfig> runConfigOf(const RunRecord& r);
// The same, for a reader that needs it: throws ConfigError saying why there is none ("holds no
// workbench configuration (no execution switches: a peer's run?)", "its configuration cannot be read: ...").
RunConfig requireRunConfig(const RunRecord& r);
// The engine the run trained on: its configuration's "backend" (ours), else its environment's
// "backend" (a peer's record says it there), else "unknown".
std::string backendOf(const RunRecord& r);

std::string toString(RunStatus s);
RunStatus runStatusFromString(const std::string& s);

// The median of `values` (mean of the two middle ones for an even count); nullopt when empty.
std::optional<double> median(std::vector<double> values);

}  // namespace wb
