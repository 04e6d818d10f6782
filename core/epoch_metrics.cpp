#include "epoch_metrics.h"

#include <limits>

#include <nlohmann/json.hpp>

namespace wb {

namespace {
template <typename T>
nlohmann::json orNull(const std::optional<T>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// Peers write null for what they cannot measure: null and absent both mean "not measured".
std::optional<double> optionalNumber(const nlohmann::json& j, const char* key) {
    if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
    return j.at(key).get<double>();
}
}  // namespace

void to_json(nlohmann::json& j, const EpochMetrics& m) {
    nlohmann::json phases = nullptr;
    if (m.phases)
        phases = {{"data", m.phases->data},
                  {"forward", m.phases->forward},
                  {"backward", m.phases->backward},
                  {"optimizer", m.phases->optimizer},
                  {"other", m.phases->other}};
    j = {{"epoch", m.epoch},
         {"warmup", m.warmup},
         {"train_loss", m.trainLoss},
         {"train_accuracy", m.trainAccuracy},
         {"val_loss", orNull(m.valLoss)},
         {"val_accuracy", orNull(m.valAccuracy)},
         {"wall_ms", m.wallMs},
         {"device_ms", orNull(m.deviceMs)},
         {"samples_per_s", m.samplesPerSecond},
         {"phases_ms", phases},
         {"elapsed_ms", m.elapsedMs}};
}

void from_json(const nlohmann::json& j, EpochMetrics& m) {
    m = EpochMetrics{};
    m.epoch = j.at("epoch").get<int>();
    m.warmup = j.contains("warmup") && j.at("warmup").is_boolean() && j.at("warmup").get<bool>();
    // Required; null where a peer's loss was not finite (Python writes NaN, read as null): NaN again.
    const nlohmann::json& loss = j.at("train_loss");
    m.trainLoss = loss.is_null() ? std::numeric_limits<double>::quiet_NaN() : loss.get<double>();
    m.trainAccuracy = optionalNumber(j, "train_accuracy").value_or(0.0);
    m.valLoss = optionalNumber(j, "val_loss");
    m.valAccuracy = optionalNumber(j, "val_accuracy");
    m.wallMs = j.at("wall_ms").get<double>();
    m.deviceMs = optionalNumber(j, "device_ms");
    m.samplesPerSecond = optionalNumber(j, "samples_per_s").value_or(0.0);
    m.elapsedMs = optionalNumber(j, "elapsed_ms").value_or(0.0);
    if (j.contains("phases_ms") && j.at("phases_ms").is_object()) {
        const auto& p = j.at("phases_ms");
        m.phases = PhaseTimes{p.value("data", 0.0), p.value("forward", 0.0), p.value("backward", 0.0),
                              p.value("optimizer", 0.0), p.value("other", 0.0)};
    }
}

}  // namespace wb
