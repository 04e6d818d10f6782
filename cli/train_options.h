// The flags of `mlpwb train`, bound to CLI11, and their translation into a RunConfig.
#pragma once

#include <map>
#include <string>

#include <CLI/CLI.hpp>

#include "core/run/run_config.h"

namespace wb::cli {

// "a,b,,c" -> {"a", "b", "c"}: empty items are dropped.
std::vector<std::string> splitList(const std::string& s);

// Where the data comes from: shared by `train` and `dataset`.
struct DataOptions {
    std::string data, labels;
    bool builtin = false;
    std::size_t rows = 100000;
    std::uint64_t dataSeed = 1;
    std::string label, header = "auto", delimiter = "auto", ignore, missing = "error";
    std::string task = "auto";  // auto|binary|multiclass|regression
    std::size_t skipLines = 0;
    std::size_t maxColumns = CsvOptions::kDefaultMaxColumns;

    void bind(CLI::Option_group& group);
    DataSpec toDataSpec() const;  // throws ConfigError
};

struct TrainOptions {
    DataOptions source;
    double valSplit = 0.0;
    bool noStandardize = false;
    // Model and optimizer
    std::string layers = "20,10", activation = "tanh", init = "torch", optimizer = "adam";
    std::string regressionLoss = "mse";
    std::string classWeights;  // "", "balanced" or comma-separated numbers (multiclass)
    double lr = 0, beta1 = 0, beta2 = 0, eps = 0, weightDecay = 0, momentum = 0, dampening = 0, alpha = 0;
    bool nesterov = false, centered = false;
    // Training
    int epochs = 200, batchSize = 2048;
    bool shuffle = false;
    std::uint64_t seed = 1;
    double divergenceFactor = 1e6;
    // Execution
    std::string backend = "cpu", preset;
    int device = 0;
    int threads = 0;                               // CPU backend; 0 = hardware threads
    std::string python, frameworkDevice = "auto";  // framework backends
    TorchOptions torch;
    std::map<std::string, std::string> switches;  // switch name -> the value given, one per switchSpecs()
    // Outputs
    std::string name, out, csv, initWeights, saveWeights;
    bool quiet = false;

    void bind(CLI::App& app);
    // The execution switches (--preset, --data-path, ...), into the "Execution" group.
    void bindSwitches(CLI::Option_group& group);
    // Only what defines the problem and where it runs: data, model, optimizer, training, backend and
    // device (shared with `mlpwb ablate`, which chooses the execution switches itself). Returns the
    // "Execution" group, for the switches `bind` adds to it.
    CLI::Option_group* bindProblem(CLI::App& app);
    // Throws ConfigError for values that do not parse, and (`validate`) for a refused combination.
    RunConfig toRunConfig(const CLI::App& app, bool validate = true) const;
};

}  // namespace wb::cli
