// From a sweep file to its resolved trials: a parameter is the `mlpwb train` option of its name, so
// each trial is the base options (those given to `mlpwb sweep`) plus its values, parsed by the same
// flags as `mlpwb train` into a RunConfig. Every value is checked before anything runs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sweep/sweep_plan.h"
#include "sweep/sweep_spec.h"

namespace wb::cli {

// What `mlpwb train` accepts as a parameter name (sweep::OptionLookup).
sweep::OptionInfo trainOptionInfo(const std::string& option);

struct TrialDefaults {
    // --threads for trials whose base and parameters do not set it (the local pool's choice).
    std::optional<int> threads;
};

// The numbered trials of `spec` over `baseArgs`. Throws ConfigError: for more than sweep::kMaxTrials
// trials (counted first, before any value is checked); naming the spec file, the line
// and the parameter for a value `mlpwb train` refuses (out of range, unknown name, a data file that
// does not exist), and the combination for one it refuses as a whole; the base options' own errors
// are named as such.
std::vector<sweep::PlannedTrial> resolveTrials(const sweep::Spec& spec, const std::vector<std::string>& baseArgs,
                                               const TrialDefaults& defaults);

// Method bayes: trial `id` at a point Optuna suggested (sweep::suggestedPoint), made and checked as
// every planned trial is. Throws ConfigError where `mlpwb train` refuses it, DataError for a
// suggestion that does not fit the spec.
sweep::PlannedTrial planSuggestedTrial(const sweep::Spec& spec, int id, const nlohmann::json& suggestion,
                                       const std::vector<std::string>& baseArgs, const TrialDefaults& defaults);

// The interpreter the sweep's framework backends use, and bayes asks Optuna in: the base options'
// --python, else $MLPWB_PYTHON, else python3.
std::string sweepPython(const std::vector<std::string>& baseArgs);

}  // namespace wb::cli
