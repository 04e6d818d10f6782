// A sweep file (YAML, the shape of a W&B sweep): the method, the metric and the parameters that vary
// the base configuration. Parsed with yaml-cpp; every refusal names the file, the line and the key.
//
//   method: grid                  # grid | random | bayes (random and bayes need run_cap; seed)
//   metric: {name: val_loss, goal: minimize}
//   repeats: 3                    # each point this many times, with seeds seed, seed+1, ...
//   parameters:
//     batch_size: {values: [256, 2048]}
//     lr: {min: 1.0e-4, max: 1.0e-2, distribution: log_uniform_values}
//     optimizer: {value: adam}
//   early_terminate: {type: hyperband, min_iter: 3, eta: 3}   # stop losing trials (early_termination.h)
// W&B's other keys are taken too: program, command, entity and project are shown as ignored with the
// reason (Spec::ignored); metric.target ends the sweep's new trials once reached.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/distribution.h"

namespace wb::sweep {

// Bayes: each next batch of points suggested by Optuna from the results so far (bayes_search.h).
enum class Method { Grid, Random, Bayes };
enum class Goal { Minimize, Maximize };

std::string toString(Method m);
std::string toString(Goal g);

// One value a parameter takes: as JSON (number, bool or string, for tables and reports) and as the
// text of the `mlpwb train` option it sets (a list such as [20, 10] becomes "20,10").
struct ParameterValue {
    nlohmann::json value;
    std::string argument;
    int line = 0;  // 1-based line of the value in the sweep file (0: sampled)
};

struct Parameter {
    std::string name;    // as written: "batch_size"
    std::string option;  // the option of `mlpwb train` it sets: "--batch-size"
    bool flag = false;   // an on/off option (--shuffle): values are true or false
    // values: [...] or value: x (one value) ...
    std::vector<ParameterValue> values;
    // ... or a distribution (distribution.h; random only, except int_uniform, which a grid enumerates).
    std::optional<Draw> draw;
    int line = 0;  // 1-based line of the parameter's name
};

struct Metric {
    std::string name = "loss";  // a RunRecord summary figure (sweep_metric.h)
    Goal goal = Goal::Minimize;
    std::optional<double> target;  // W&B's metric.target: no new trials once a trial reaches it
};

// W&B's early_terminate: {type: hyperband, min_iter, eta} or {type: hyperband, max_iter, s, eta}
// (early_termination.h says how it runs).
struct EarlyTermination {
    int minIter = 0;  // the first rung's epochs; 0 where maxIter and s give the rungs
    int maxIter = 0;  // no rung beyond it; 0: the trial's own last epoch
    int s = 0;        // with maxIter and no minIter: rungs at maxIter / eta^k for k = s .. 1
    int eta = 3;
};

// A key of a W&B sweep file that names something of W&B's own (its program, its project): taken,
// and shown to the user with the reason it changes nothing here.
struct IgnoredKey {
    std::string key;
    int line = 0;
    std::string reason;
};

struct Spec {
    std::string file;  // the path as given, for messages
    std::string text;  // the file as given (kept in sweep.json)
    std::string name;  // optional `name:`
    Method method = Method::Grid;
    Metric metric;
    std::vector<Parameter> parameters;  // in the file's order
    std::optional<int> runCap;          // random, bayes: how many points
    std::uint64_t seed = 1;             // random, bayes: the sampler's seed
    int repeats = 1;
    std::optional<EarlyTermination> earlyTerminate;
    std::vector<IgnoredKey> ignored;  // in the file's order

    // The line of a parameter's name in the file, or of `parameters:` when there is none.
    int parametersLine = 0;
    int metricLine = 0;  // the line of `metric:`; 0 when the file has none (the default metric)
    int earlyTerminateLine = 0;
};

// What the sweep file's parameter names may be: the long options of `mlpwb train`. Returns nullopt
// for an unknown option, else whether it is a flag; `refusal` gets the reason for an option a sweep
// sets itself (--out, --name).
struct OptionInfo {
    bool known = false;
    bool flag = false;
    std::string refusal;
};
using OptionLookup = std::function<OptionInfo(const std::string& option)>;

// "batch_size" and "batch-size" -> "--batch-size".
std::string optionOf(const std::string& parameterName);

// Throws ConfigError "FILE:LINE: KEY: reason" for bad YAML, an unknown key or parameter, a value of
// the wrong kind, an empty list, min > max, a continuous range in a grid, a random sweep without
// run_cap. Values are checked against the options themselves later (sweep_trials.h in the CLI).
// A range's ends must lie within ±2^53 (kMaxRangeMagnitude): beyond it a double no longer counts whole
// numbers one by one. Nesting beyond yaml-cpp's limit is refused at its line, in words.
Spec parseSpec(const std::string& text, const std::string& file, const OptionLookup& options);
// + a file that cannot be read, a folder ("PATH is a folder, not a sweep file"), anything else that
// is not a regular file (a device such as /dev/zero, a FIFO), and a file larger than kMaxSpecFileBytes.
Spec loadSpec(const std::string& path, const OptionLookup& options);

inline constexpr std::size_t kMaxSpecFileBytes = std::size_t(1) << 20;  // 1 MiB: a sweep file is a page
inline constexpr double kMaxRangeMagnitude = 9007199254740992.0;        // 2^53

// The message every refusal of a spec uses: "FILE:LINE: KEY: reason" (no line: "FILE: KEY: reason").
std::string specMessage(const std::string& file, int line, const std::string& key, const std::string& reason);

}  // namespace wb::sweep
