// method: bayes — each next batch of trials suggested by Optuna's ask-and-tell interface, run in the
// interpreter the framework backends use (the sweep's --python), from the folder's results. Every
// call builds a fresh in-memory study from sweep.json and the trials' states, so the folder stays the
// single source of truth: `resume` (after a kill -9 of the driver too) continues the study where the
// folder stands, and no completed trial is repeated.
//
//   space     searchSpace() (trial_points.h): a list is a categorical index, a range u in [0, 1]
//             whose value is W&B's drawValue(u) (a log range searched on its log scale).
//   sampler   Optuna's GPSampler where the space is mostly ranges and that Python has what GP
//             needs past its random start (torch 2, scipy); TPESampler (multivariate: the parameters
//             modelled jointly) where the space is mostly lists, or GP cannot run there (the reason
//             is printed: missing, or failing as on Debian 12's torch 1.13). Either starts with random points:
//             kStartupTrials, or a fifth of run_cap when that is fewer (at least 2). Seeded with the
//             sweep's seed plus the count of trials so far: the same folder asks the same.
//   told      completed: its metric; stopped at a hyperband rung: pruned, with its metric there as
//             the intermediate value; failed, cancelled or damaged: failed; pending or running: running.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/sweep_folder.h"
#include "sweep/sweep_spec.h"

namespace wb::sweep {

inline constexpr int kStartupTrials = 10;  // Optuna's own default for both samplers

struct Suggestions {
    std::string sampler;  // "GPSampler" | "TPESampler"
    std::string note;     // why not GP where GP was wanted; "" otherwise
    std::string optunaVersion;
    std::vector<nlohmann::json> points;  // in searchSpace's form: {"lr": 0.42, "optimizer": 1}
};

// Optuna's version in `python`. Throws ConfigError, before anything runs, where `python` cannot be
// started or cannot import optuna, with the command that installs it.
std::string checkOptuna(const std::string& python);

// What the study is asked: {"space", "direction", "seed", "startup", "count", "trials": [{"params",
// "state", "value", "step"}]} for `count` more points of `spec` over the folder's trials (`views`,
// SweepFolder::views(): every trial of the plan, in id order).
nlohmann::json studyRequest(const Spec& spec, const std::vector<TrialRow>& views, int count);

// Runs the ask-and-tell script in `python` on `request`. Throws ProcessError where the interpreter
// fails (its stderr's tail in the message), DataError for an answer that is not what was asked.
Suggestions askOptuna(const std::string& python, const nlohmann::json& request);

// The script itself (Python 3, Optuna >= 3.6 for GPSampler), for the tests and the curious.
const char* optunaScript();

}  // namespace wb::sweep
