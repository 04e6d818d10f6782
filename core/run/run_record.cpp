#include "core/run/run_record.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "core/platform/atomic_file.h"
#include "core/platform/enum_names.h"
#include "core/platform/errors.h"
#include "core/platform/json_fields.h"
#include "core/platform/json_file.h"
#include "core/run/epoch_journal.h"

namespace wb {

namespace {
const EnumNames<RunStatus> kStatusNames = {{RunStatus::Running, "running"},     {RunStatus::Completed, "completed"},
                                           {RunStatus::Cancelled, "cancelled"}, {RunStatus::Diverged, "diverged"},
                                           {RunStatus::Failed, "failed"},       {RunStatus::Stopped, "stopped"}};

// Peers write null where they have nothing; read such keys as the default.
template <typename T>
T valueOrDefault(const nlohmann::json& j, const char* key, T fallback) {
    return optionalField<T>(j, key).value_or(fallback);
}

nlohmann::json datasetToJson(const DatasetDescription& d) {
    nlohmann::json j = {{"source", d.source},
                        {"rows", d.rows},
                        {"features", d.features},
                        {"label", d.label},
                        {"label_mapping", d.labelMapping},
                        {"hash", d.hash},
                        {"train_rows", d.trainRows},
                        {"val_rows", d.valRows},
                        {"task", toString(d.task)}};
    if (!d.classes.empty()) j["classes"] = d.classes;
    if (!d.taskReason.empty()) j["task_reason"] = d.taskReason;
    if (!d.notes.empty()) j["notes"] = d.notes;  // absent when the loader had nothing to say
    return j;
}

DatasetDescription datasetFromJson(const nlohmann::json& j) {
    DatasetDescription d;
    d.source = valueOrDefault<std::string>(j, "source", "");
    d.rows = valueOrDefault<std::size_t>(j, "rows", 0);
    d.features = valueOrDefault<std::size_t>(j, "features", 0);
    d.label = valueOrDefault<std::string>(j, "label", "");
    d.labelMapping = valueOrDefault<std::map<std::string, int>>(j, "label_mapping", {});
    d.hash = valueOrDefault<std::string>(j, "hash", "");
    d.trainRows = valueOrDefault<std::size_t>(j, "train_rows", d.rows);
    d.valRows = valueOrDefault<std::size_t>(j, "val_rows", 0);
    d.notes = valueOrDefault<std::vector<std::string>>(j, "notes", {});
    d.task = taskFromString(valueOrDefault<std::string>(j, "task", "binary"));  // records before tasks: binary
    d.classes = valueOrDefault<std::vector<std::string>>(j, "classes", {});
    d.taskReason = valueOrDefault<std::string>(j, "task_reason", "");
    return d;
}

// One entry of "not_applicable": an object {"switch", "reason"}, or the string a record written before
// held, "switch=value: reason" or "switch: reason" (the switch's name ends at the first '=' or ':').
IgnoredSwitch ignoredSwitchFromJson(const nlohmann::json& j) {
    if (!j.is_string()) return j.get<IgnoredSwitch>();
    const auto text = j.get<std::string>();
    const auto nameEnd = text.find_first_of("=:");
    const auto colon = text.find(':');
    IgnoredSwitch ignored{text.substr(0, nameEnd), text};
    if (colon != std::string::npos) {
        const auto start = text.find_first_not_of(' ', colon + 1);
        ignored.reason = start == std::string::npos ? std::string() : text.substr(start);
    }
    return ignored;
}

std::vector<IgnoredSwitch> notApplicableFromJson(const nlohmann::json& j) {
    const auto entries = valueOrDefault<nlohmann::json>(j, "not_applicable", nlohmann::json::array());
    if (!entries.is_array()) throw DataError("", "invalid run record: \"not_applicable\" is not a list");
    std::vector<IgnoredSwitch> list;
    for (const auto& entry : entries) list.push_back(ignoredSwitchFromJson(entry));
    return list;
}

// A time read from a record is a measurement: a negative one, or (for an epoch's duration) zero, is
// a damaged or forged file, and it would make "inf x faster" of every comparison. (JSON text has no NaN
// or infinity, but the JSON the GUI holds in memory can.)
void checkTime(const char* key, double ms, bool zeroAllowed) {
    if (std::isfinite(ms) && (ms > 0 || (zeroAllowed && ms == 0))) return;
    std::ostringstream found;
    found << ms;
    throw JsonFieldError(key, std::string("expected a ") + (zeroAllowed ? "non-negative" : "positive") +
                                  " time in milliseconds, found " + found.str());
}

void checkTimes(const EpochMetrics& m) {
    checkTime("wall_ms", m.wallMs, false);
    if (m.deviceMs) checkTime("device_ms", *m.deviceMs, false);
    checkTime("elapsed_ms", m.elapsedMs, true);  // 0 where a peer does not write it
    if (m.phases)                                // a phase the path did not enter takes no time
        for (const auto& phase : {std::pair{"data", m.phases->data}, std::pair{"forward", m.phases->forward},
                                  std::pair{"backward", m.phases->backward},
                                  std::pair{"optimizer", m.phases->optimizer}, std::pair{"other", m.phases->other}})
            withinField("phases_ms", [&] { checkTime(phase.first, phase.second, true); });
}

// Epoch by epoch, so that an error names the one at fault: "epochs[12].wall_ms: expected a number".
std::vector<EpochMetrics> epochsFromJson(const nlohmann::json& j) {
    const auto list = valueOrDefault<nlohmann::json>(j, "epochs", nlohmann::json::array());
    if (!list.is_array()) throw JsonFieldError("epochs", std::string("expected a list, found ") + kindOf(list));
    std::vector<EpochMetrics> epochs;
    epochs.reserve(list.size());
    for (std::size_t i = 0; i < list.size(); ++i)
        epochs.push_back(withinField("epochs[" + std::to_string(i) + "]", [&] {
            auto m = list[i].get<EpochMetrics>();
            checkTimes(m);
            return m;
        }));
    return epochs;
}

}  // namespace

nlohmann::json summaryJson(const RunSummary& s) {
    nlohmann::json final = nullptr;
    if (s.final) {  // the last epoch's metrics, as its own entry in "epochs" writes them
        const nlohmann::json last = *s.final;
        final = nlohmann::json::object();
        for (const char* key : {"train_loss", "train_accuracy", "val_loss", "val_accuracy", "train_mse", "train_mae",
                                "train_r2", "val_mse", "val_mae", "val_r2"})
            if (last.contains(key)) final[key] = last.at(key);
    }
    return {{"median_epoch_ms", orNull(s.medianEpochMs)},
            {"min_epoch_ms", orNull(s.minEpochMs)},
            {"total_ms", s.totalMs},
            {"final", final}};
}

std::optional<double> median(std::vector<double> values) {
    if (values.empty()) return std::nullopt;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

RunSummary RunRecord::summary() const {
    RunSummary s;
    std::vector<double> times;
    for (const auto& e : epochs) {
        s.totalMs += e.wallMs;
        if (!e.warmup) times.push_back(e.wallMs);
    }
    if (times.empty())  // only the warm-up epoch: better than nothing, and it is marked as such
        for (const auto& e : epochs) times.push_back(e.wallMs);
    s.medianEpochMs = median(times);
    if (!times.empty()) s.minEpochMs = *std::min_element(times.begin(), times.end());
    if (!epochs.empty()) s.final = epochs.back();
    return s;
}

nlohmann::json RunRecord::toJson() const {
    nlohmann::json j = withoutEpochs();
    j["epochs"] = epochs;
    return j;
}

nlohmann::json RunRecord::withoutEpochs() const {
    return {{"schema", kSchema},
            {"name", name},
            {"status", toString(status)},
            {"message", message},
            {"config", config},
            {"dataset", datasetToJson(dataset)},
            {"environment", environment},
            {"not_applicable", notApplicable},
            {"summary", summaryJson(summary())}};
}

// toJson() as text, the epochs formatted by appendEpochJson, one per line: building and dumping a
// nlohmann object per epoch made saving a 4,000-epoch record cost more than 10 % of the run.
std::string RunRecord::toJsonText() const {
    nlohmann::json j = withoutEpochs();
    static const std::string kMark = "\\u0001epochs\\u0001";  // where the epochs go, as dump() escapes it
    j["epochs"] =
        "\x01"
        "epochs\x01";  // split: "\x01e" would be one hex escape
    std::string text = j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    // A top-level key at indent 1: no string inside config, dataset or environment is at this place.
    const std::string slot = "\n \"epochs\": \"" + kMark + "\"";
    const std::size_t at = text.find(slot);
    if (at == std::string::npos)  // cannot happen with nlohmann's layout; never write a wrong record
        return toJson().dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    std::string list = "\n \"epochs\": [";
    list.reserve(epochs.size() * 320 + 16);
    for (std::size_t i = 0; i < epochs.size(); ++i) {
        list += i ? ",\n  " : "\n  ";
        appendEpochJson(epochs[i], list);
    }
    list += epochs.empty() ? "]" : "\n ]";
    return text.replace(at, slot.size(), list);
}

RunRecord RunRecord::fromJson(const nlohmann::json& j) {
    if (!j.is_object() || !j.contains("schema") || j.at("schema") != kSchema)
        throw DataError("", "not a run record (expected schema '" + std::string(kSchema) + "')");
    try {
        return fromCheckedJson(j);
    } catch (const JsonFieldError& e) {
        throw DataError("", std::string("invalid run record: ") + e.what());
    } catch (const nlohmann::json::exception& e) {
        throw DataError("", std::string("invalid run record: ") + e.what());
    } catch (const ConfigError& e) {
        throw DataError("", std::string("invalid run record: ") + e.what());
    }
}

RunRecord RunRecord::fromCheckedJson(const nlohmann::json& j) {
    RunRecord r;
    r.name = valueOrDefault<std::string>(j, "name", "");
    r.status = runStatusFromString(valueOrDefault<std::string>(j, "status", "completed"));
    r.message = valueOrDefault<std::string>(j, "message", "");
    r.config = j.value("config", nlohmann::json::object());  // kept as written: peers write their own keys
    if (j.contains("dataset")) r.dataset = withinField("dataset", [&] { return datasetFromJson(j.at("dataset")); });
    const nlohmann::json environment = j.value("environment", nlohmann::json::object());
    for (const auto& [k, v] : environment.items()) r.environment[k] = v.is_string() ? v.get<std::string>() : v.dump();
    r.notApplicable = notApplicableFromJson(j);
    r.epochs = epochsFromJson(j);
    return r;
}

void RunRecord::save(const std::string& path) const {
    writeFileAtomically(path, toJsonText(), "run record");
}

RunRecord RunRecord::load(const std::string& path) {
    const nlohmann::json j = loadJsonFile(path, "run record");
    RunRecord r;
    try {
        r = fromJson(j);
    } catch (const DataError& e) {
        throw DataError(path, e.reason());
    }
    // A run still "running" (in progress, or killed): its epochs so far are in the journal.
    if (r.status == RunStatus::Running)
        if (auto journal = EpochJournal::read(path); journal.size() > r.epochs.size()) r.epochs = std::move(journal);
    return r;
}

void RunRecord::saveEpochCsv(const std::string& path) const {
    std::ostringstream out;
    out.precision(9);
    // Optional values are written with the stream's precision; null is an empty cell.
    auto opt = [&out](const std::optional<double>& v) -> std::ostream& { return v ? out << *v : out; };
    out << "epoch,warmup,train_loss,train_accuracy,val_loss,val_accuracy,wall_ms,device_ms,samples_per_s,"
           "data_ms,forward_ms,backward_ms,optimizer_ms,other_ms,elapsed_ms\n";
    for (const auto& e : epochs) {
        out << e.epoch << ',' << (e.warmup ? 1 : 0) << ',' << e.trainLoss << ',' << e.trainAccuracy << ',';
        opt(e.valLoss) << ',';
        opt(e.valAccuracy) << ',' << e.wallMs << ',';
        opt(e.deviceMs) << ',' << e.samplesPerSecond;
        if (e.phases)
            out << ',' << e.phases->data << ',' << e.phases->forward << ',' << e.phases->backward << ','
                << e.phases->optimizer << ',' << e.phases->other;
        else
            out << ",,,,,";
        out << ',' << e.elapsedMs << '\n';
    }
    writeFileAtomically(path, out.str(), "epoch CSV");
}

RunConfig requireRunConfig(const RunRecord& r) {
    const auto& c = r.config;
    if (!c.is_object() || !c.contains("execution") || !c.at("execution").is_object())
        throw ConfigError("'" + r.name + "' holds no workbench configuration (no execution switches: a peer's run?)");
    try {
        return c.get<RunConfig>();
    } catch (const std::exception& e) {  // switches or fields of another version, or a hand-edited file
        throw ConfigError("the configuration of '" + r.name + "' cannot be read: " + e.what());
    }
}

std::optional<RunConfig> runConfigOf(const RunRecord& r) {
    try {
        return requireRunConfig(r);
    } catch (const ConfigError&) {
        return std::nullopt;
    }
}

std::string backendOf(const RunRecord& r) {
    if (const auto it = r.config.is_object() ? r.config.find("backend") : r.config.end();
        it != r.config.end() && it->is_string() && !it->get<std::string>().empty())
        return it->get<std::string>();
    if (const auto it = r.environment.find("backend"); it != r.environment.end() && !it->second.empty())
        return it->second;
    return "unknown";
}

std::string toString(RunStatus s) {
    return enumName(kStatusNames, s);
}
RunStatus runStatusFromString(const std::string& s) {
    return enumFromName(kStatusNames, s, "run status");
}

}  // namespace wb
