// The attribution beyond the one order of the fixes (core/ablation_attribution.h), as `mlpwb ablate`
// and `mlpwb answer` both ask for it: each fix alone, leave-one-out, Shapley values.
#pragma once

#include <CLI/CLI.hpp>

namespace wb::cli {

struct AttributionOptions {
    bool alone = false, leaveOneOut = false, noShapley = false;

    void bind(CLI::Option_group* group) {
        group->add_flag("--alone", alone, "also run each fix alone on top of the baseline");
        group->add_flag("--leave-one-out", leaveOneOut,
                        "also measure every honoured fix but one, for each: what each saves on top of the others");
        group->add_flag("--no-shapley", noShapley,
                        "never measure every combination of the honoured fixes (by default, where at most 4 and "
                        "half of --budget allow, for each fix's Shapley value: its saving over every order)");
    }

    // An AblationPlan or an AnswerPlan: the same three fields.
    template <class Plan>
    void applyTo(Plan& plan) const {
        plan.alone = alone;
        plan.leaveOneOut = leaveOneOut;
        plan.shapley = !noShapley;
    }
};

}  // namespace wb::cli
