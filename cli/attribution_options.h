// The attribution beyond the one order of the fixes (core/measure/ablation_attribution.h), as `mlpwb ablate`
// and `mlpwb answer` both ask for it: each fix alone, leave-one-out, Shapley values. Each is a flag
// with its negation (--leave-one-out, --no-leave-one-out), starting at the command's plan's default.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace wb::cli {

struct AttributionOptions {
    bool alone = false, leaveOneOut = false, shapley = true;

    // An AblationPlan or an AnswerPlan: the same three fields.
    template <class Plan>
    void bind(CLI::Option_group* group, const Plan& defaults) {
        alone = defaults.alone;
        leaveOneOut = defaults.leaveOneOut;
        shapley = defaults.shapley;
        const auto by = [](bool on) { return std::string(on ? " (the default)" : ""); };
        group->add_flag("--alone,!--no-alone", alone,
                        "also run each fix alone on top of the baseline" + by(defaults.alone));
        group->add_flag("--leave-one-out,!--no-leave-one-out", leaveOneOut,
                        "also measure every honoured fix but one, for each: what each saves on top of the others, "
                        "where --budget allows" +
                            by(defaults.leaveOneOut));
        group->add_flag("--shapley,!--no-shapley", shapley,
                        "measure every combination of the honoured fixes where at most 4 and half of --budget "
                        "allow, for each fix's Shapley value: its saving over every order" +
                            by(defaults.shapley));
    }

    template <class Plan>
    void applyTo(Plan& plan) const {
        plan.alone = alone;
        plan.leaveOneOut = leaveOneOut;
        plan.shapley = shapley;
    }
};

}  // namespace wb::cli
