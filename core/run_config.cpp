#include "run_config.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "errors.h"

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
    if (backend != "cpu" && backend != "cuda" && !isFrameworkBackend(backend))
        throw ConfigError("unknown backend '" + backend + "' (valid: cpu, cuda, torch, keras, jax)");
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
    s.epochs = j.value("epochs", s.epochs);
    s.batchSize = j.value("batch_size", s.batchSize);
    s.shuffle = j.value("shuffle", s.shuffle);
    s.seed = j.value("seed", s.seed);
    s.divergenceFactor = j.value("divergence_factor", s.divergenceFactor);
}

void to_json(nlohmann::json& j, const PrepareSpec& s) {
    j = {{"val_split", s.valSplit}, {"standardize", s.standardize}, {"seed", s.seed}};
}

void from_json(const nlohmann::json& j, PrepareSpec& s) {
    s = PrepareSpec{};
    s.valSplit = j.value("val_split", s.valSplit);
    s.standardize = j.value("standardize", s.standardize);
    s.seed = j.value("seed", s.seed);
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
    c.name = j.value("name", std::string{});
    if (j.contains("data")) c.data = j.at("data").get<DataSpec>();
    if (j.contains("prepare")) c.prepare = j.at("prepare").get<PrepareSpec>();
    if (j.contains("model")) c.model = j.at("model").get<ModelSpec>();
    if (j.contains("optimizer")) c.optimizer = j.at("optimizer").get<OptimizerSpec>();
    if (j.contains("train")) c.train = j.at("train").get<TrainSpec>();
    if (j.contains("execution") && !j.at("execution").is_null())
        c.execution = j.at("execution").get<ExecutionSettings>();
    c.backend = j.value("backend", c.backend);
    c.device = j.value("device", c.device);
    c.initWeights = j.value("init_weights", std::string{});
    c.threads = j.value("threads", c.threads);
    if (j.contains("framework") && j.at("framework").is_object())
        c.framework = j.at("framework").get<FrameworkOptions>();
}

}  // namespace wb
