#include "core/run/run_config.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "core/platform/errors.h"
#include "core/platform/json_fields.h"

namespace wb {

void TrainSpec::validate() const {
    if (epochs < 1) throw ConfigError("epochs must be at least 1, got " + std::to_string(epochs));
    if (batchSize < 1) throw ConfigError("batch size must be at least 1, got " + std::to_string(batchSize));
    if (!(divergenceFactor == 0 || divergenceFactor > 1) || !std::isfinite(divergenceFactor))
        throw ConfigError("the divergence factor must be above 1, or 0 for never; got " +
                          std::to_string(divergenceFactor));
}

void RunConfig::validate() const {
    model.validate();
    optimizer.validate();
    train.validate();
    execution.validate();
    if (!(prepare.valSplit >= 0.0 && prepare.valSplit < 1.0))
        throw ConfigError("validation split must be in [0, 1), got " + std::to_string(prepare.valSplit));
    if (!findEngine(backend)) throw ConfigError("unknown backend '" + backend + "' (valid: " + engineNameList() + ")");
    framework.validate();
    if (threads < 0 || threads > 1024)
        throw ConfigError("threads must be in [0, 1024], got " + std::to_string(threads));
}

void to_json(nlohmann::json& j, const TrainSpec& s) {
    j = {{"epochs", s.epochs},
         {"batch_size", s.batchSize},
         {"shuffle", s.shuffle},
         {"seed", s.seed},
         {"divergence_factor", s.divergenceFactor}};
}

void from_json(const nlohmann::json& j, TrainSpec& s) {
    s = TrainSpec{};
    s.epochs = fieldOr(j, "epochs", s.epochs);
    s.batchSize = fieldOr(j, "batch_size", s.batchSize);
    s.shuffle = fieldOr(j, "shuffle", s.shuffle);
    s.seed = fieldOr(j, "seed", s.seed);
    s.divergenceFactor = fieldOr(j, "divergence_factor", s.divergenceFactor);
}

void to_json(nlohmann::json& j, const PrepareSpec& s) {
    j = {{"val_split", s.valSplit}, {"standardize", s.standardize}, {"seed", s.seed}};
}

void from_json(const nlohmann::json& j, PrepareSpec& s) {
    s = PrepareSpec{};
    s.valSplit = fieldOr(j, "val_split", s.valSplit);
    s.standardize = fieldOr(j, "standardize", s.standardize);
    s.seed = fieldOr(j, "seed", s.seed);
}

void to_json(nlohmann::json& j, const RunConfig& c) {
    j = {{"name", c.name},           {"data", c.data},
         {"prepare", c.prepare},     {"model", c.model},
         {"optimizer", c.optimizer}, {"train", c.train},
         {"execution", c.execution}, {"backend", c.backend},
         {"device", c.device},       {"init_weights", c.initWeights},
         {"framework", c.framework}, {"threads", c.threads}};
}

void from_json(const nlohmann::json& j, RunConfig& c) {
    c = RunConfig{};
    c.name = fieldOr(j, "name", std::string{});
    // Section by section, so that an error names the one at fault ("train.epochs: expected a number").
    auto section = [&](const char* key, auto& out) {
        if (j.contains(key) && !j.at(key).is_null())
            withinField(key, [&] { out = j.at(key).get<std::decay_t<decltype(out)>>(); });
    };
    section("data", c.data);
    section("prepare", c.prepare);
    section("model", c.model);
    section("optimizer", c.optimizer);
    section("train", c.train);
    section("execution", c.execution);
    c.backend = fieldOr(j, "backend", c.backend);
    c.device = fieldOr(j, "device", c.device);
    c.initWeights = fieldOr(j, "init_weights", std::string{});
    c.threads = fieldOr(j, "threads", c.threads);
    if (j.contains("framework") && j.at("framework").is_object()) section("framework", c.framework);
}

}  // namespace wb
