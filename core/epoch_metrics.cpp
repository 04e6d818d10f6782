#include "epoch_metrics.h"

#include <limits>

#include <nlohmann/json.hpp>

#include "json_fields.h"

namespace wb {

namespace {
template <typename T>
nlohmann::json orNull(const std::optional<T>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
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
