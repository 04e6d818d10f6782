#include "core/run/epoch_metrics.h"

#include <charconv>
#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "core/platform/json_fields.h"

namespace wb {

namespace {

// The keys and numbers of to_json (shortest round-trip numbers, null for what is not finite or not
// measured), so the text reads back through from_json like any other.
class LineWriter {
public:
    explicit LineWriter(std::string& out) : out_(out), start_(out.size() + 1) { out_ += '{'; }
    void key(const char* name) {
        if (out_.size() > start_) out_ += ',';
        out_ += '"';
        out_ += name;
        out_ += "\":";
    }
    void number(const char* name, double v) {
        key(name);
        if (!std::isfinite(v)) {
            out_ += "null";
            return;
        }
        char text[32];
        const auto end = std::to_chars(text, text + sizeof text, v).ptr;
        out_.append(text, end);
    }
    void number(const char* name, const std::optional<double>& v) {
        if (v) return number(name, *v);
        key(name);
        out_ += "null";
    }
    void boolean(const char* name, bool v) {
        key(name);
        out_ += v ? "true" : "false";
    }
    void raw(const char* text) { out_ += text; }
    void end() { out_ += '}'; }

private:
    std::string& out_;
    std::size_t start_;  // just past the opening brace
};

void formatRegression(LineWriter& w, const char* const (&keys)[3], const std::optional<RegressionMetrics>& r) {
    w.number(keys[0], r ? std::optional(r->mse) : std::nullopt);
    w.number(keys[1], r ? std::optional(r->mae) : std::nullopt);
    w.number(keys[2], r ? std::optional(r->r2) : std::nullopt);
}

void formatEpoch(const EpochMetrics& m, std::string& line) {
    LineWriter w(line);
    w.number("epoch", m.epoch);
    w.boolean("warmup", m.warmup);
    w.number("train_loss", m.trainLoss);
    w.number("train_accuracy", m.trainRegression ? std::nullopt : std::optional(m.trainAccuracy));
    w.number("val_loss", m.valLoss);
    w.number("val_accuracy", m.valAccuracy);
    if (m.trainRegression) {
        formatRegression(w, kTrainRegressionKeys, m.trainRegression);
        formatRegression(w, kValRegressionKeys, m.valRegression);
    }
    w.number("wall_ms", m.wallMs);
    w.number("device_ms", m.deviceMs);
    w.number("samples_per_s", m.samplesPerSecond);
    w.key("phases_ms");
    if (m.phases) {
        LineWriter p(line);  // nested in place
        p.number("data", m.phases->data);
        p.number("forward", m.phases->forward);
        p.number("backward", m.phases->backward);
        p.number("optimizer", m.phases->optimizer);
        p.number("other", m.phases->other);
        p.end();
    } else {
        w.raw("null");
    }
    w.number("elapsed_ms", m.elapsedMs);
    w.end();
}

}  // namespace

// The same text as appendEpochJson, parsed: one writer decides the keys and how numbers read.
void to_json(nlohmann::json& j, const EpochMetrics& m) {
    std::string line;
    formatEpoch(m, line);
    j = nlohmann::json::parse(line);
}

void appendEpochJson(const EpochMetrics& m, std::string& out) {
    formatEpoch(m, out);
}

std::optional<RegressionMetrics> readRegression(const nlohmann::json& j, const char* const (&keys)[3]) {
    const auto mse = optionalField<double>(j, keys[0]);
    if (!mse) return std::nullopt;
    return RegressionMetrics{*mse, optionalField<double>(j, keys[1]).value_or(0.0),
                             optionalField<double>(j, keys[2]).value_or(0.0)};
}

void writeRegression(nlohmann::json& j, const char* const (&keys)[3], const RegressionMetrics& r) {
    j[keys[0]] = r.mse;
    j[keys[1]] = r.mae;
    j[keys[2]] = r.r2;
}

// Peers write null for what they cannot measure: null and absent both mean "not measured". A field
// of the wrong kind throws JsonFieldError naming it ("wall_ms: expected a number, found a string").
void from_json(const nlohmann::json& j, EpochMetrics& m) {
    m = EpochMetrics{};
    if (!j.is_object()) throw JsonFieldError("", std::string("expected an object, found ") + kindOf(j));
    m.epoch = requiredField<int>(j, "epoch");
    m.warmup = j.contains("warmup") && j.at("warmup").is_boolean() && j.at("warmup").get<bool>();
    // Required; null where a peer's loss was not finite (Python writes NaN, read as null): NaN again.
    if (!j.contains("train_loss")) throw JsonFieldError("train_loss", "missing");
    m.trainLoss = optionalField<double>(j, "train_loss").value_or(std::numeric_limits<double>::quiet_NaN());
    m.trainAccuracy = optionalField<double>(j, "train_accuracy").value_or(0.0);
    m.valLoss = optionalField<double>(j, "val_loss");
    m.valAccuracy = optionalField<double>(j, "val_accuracy");
    m.trainRegression = readRegression(j, kTrainRegressionKeys);
    m.valRegression = readRegression(j, kValRegressionKeys);
    m.wallMs = requiredField<double>(j, "wall_ms");
    m.deviceMs = optionalField<double>(j, "device_ms");
    m.samplesPerSecond = optionalField<double>(j, "samples_per_s").value_or(0.0);
    m.elapsedMs = optionalField<double>(j, "elapsed_ms").value_or(0.0);
    if (j.contains("phases_ms") && j.at("phases_ms").is_object()) {
        const auto& p = j.at("phases_ms");
        m.phases = withinField("phases_ms", [&] {
            return PhaseTimes{
                optionalField<double>(p, "data").value_or(0.0), optionalField<double>(p, "forward").value_or(0.0),
                optionalField<double>(p, "backward").value_or(0.0), optionalField<double>(p, "optimizer").value_or(0.0),
                optionalField<double>(p, "other").value_or(0.0)};
        });
    }
}

}  // namespace wb
