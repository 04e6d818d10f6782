// What sweep.json holds: the spec as given and the resolved, numbered trial list. Written once when
// the sweep is created; every engine, `status`, `report` and the GUI read it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/sweep_spec.h"

namespace wb::sweep {

struct PlannedTrial {
    int id = 0;
    int point = 0;  // repeats of one point share it
    int repeat = 0;
    std::string name;               // the RunRecord's name: "lr=0.001 batch_size=256 (repeat 2)"
    nlohmann::json parameters;      // {"lr": 0.001, ...}: the values the spec gave this trial
    std::vector<std::string> args;  // the `mlpwb train` options that reproduce it (without --out)
    nlohmann::json config;          // the resolved RunConfig: what run-trial trains
    // method: bayes: Optuna's suggestion that drew it, in searchSpace's form (trial_points.h): what the
    // study is told it tried. Null for the other methods.
    nlohmann::json suggestion = nullptr;

    // The CPU threads its configuration asks for (0: every core). A configuration that says nothing
    // readable asks for 0 here; run-trial refuses it when it is run.
    int threads() const;
    // The epochs it is configured to train (0 where its configuration says nothing readable).
    int epochs() const;
};

struct SweepPlan {
    static constexpr const char* kSchema = "mlpwb.sweep/1";
    std::string name;
    std::string specFile;  // as given on the command line
    std::string specText;  // the file's text
    Method method = Method::Grid;
    Metric metric;
    std::vector<std::string> parameterNames;  // in the spec's order (the table's and charts' columns)
    int repeats = 1;
    std::optional<EarlyTermination> earlyTerminate;  // "early_terminate" in sweep.json
    std::vector<std::string> baseArgs;               // the `mlpwb train` options given to `mlpwb sweep`
    std::vector<PlannedTrial> trials;                // method: bayes: those suggested so far (appended batch by batch)
    std::optional<int> runCap;                       // random, bayes: run_cap
    // How it was started, the default of `resume`: {"kind": "local"|"slurm", "jobs", "exclusive",
    // "slurm_args", "max_parallel"}.
    nlohmann::json engine = nlohmann::json::object();

    nlohmann::json toJson() const;
    static SweepPlan fromJson(const nlohmann::json& j);  // throws DataError on a wrong schema
};

}  // namespace wb::sweep
