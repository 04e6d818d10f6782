// Everything that defines a run; round-trips through JSON (the "config" of a RunRecord).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/data/data_source.h"
#include "core/data/prepare.h"
#include "core/model/execution_settings.h"
#include "core/model/model.h"
#include "core/model/optimizer.h"
#include "core/run/framework_options.h"

namespace wb {

struct TrainSpec {
    int epochs = 200;
    int batchSize = 2048;
    bool shuffle = false;    // off, as in the founding loop
    std::uint64_t seed = 1;  // initial weights and shuffling
    // A training loss above this many times the first epoch's ends the run as diverged (lr 1e30
    // "completing" with loss 8e29 is no result); 0 = never.
    double divergenceFactor = 1e6;
    void validate() const;  // throws ConfigError
};

struct RunConfig {
    std::string name;  // shown in tables and legends
    DataSpec data;
    PrepareSpec prepare;
    ModelSpec model;
    OptimizerSpec optimizer;
    TrainSpec train;
    ExecutionSettings execution;
    std::string backend = "cpu";  // "cpu" | "cuda" | "torch" | "keras" | "jax"
    int device = 0;               // CUDA device index
    FrameworkOptions framework;   // the interpreter and knobs of a framework backend
    std::string initWeights;      // safetensors to start from; empty = initialise from seed
    // Threads of the CPU backend: 0 = the machine's hardware threads. Results do not depend on it.
    int threads = 0;
    void validate() const;  // throws ConfigError
};

void to_json(nlohmann::json& j, const TrainSpec& s);
void from_json(const nlohmann::json& j, TrainSpec& s);
void to_json(nlohmann::json& j, const PrepareSpec& s);
void from_json(const nlohmann::json& j, PrepareSpec& s);
void to_json(nlohmann::json& j, const RunConfig& c);
void from_json(const nlohmann::json& j, RunConfig& c);

}  // namespace wb
