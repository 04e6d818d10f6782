// What the sweep fuzz target does with one input, shared with tst_fuzz_regressions: the bytes as a
// trial's state.json and as a sweep.json, each loaded or refused with DataError (a sweep folder
// comes from elsewhere: a shared filesystem, someone's archive). Loaded, each must write itself back
// and read back the same. Any other exception propagates (the fuzzer reports a crash).
#pragma once

#include <string>
#include <string_view>

#include "core/platform/json_file.h"
#include "sweep/sweep_plan.h"
#include "sweep/trial_state.h"
#include "tests/fuzz/fuzz_feed.h"

namespace wb::fuzz {

inline void feedSweepFiles(std::string_view bytes) {
    const std::string text(bytes);
    sweep::TrialStatus status;
    if (loadsOrRefuses(
            [&] { status = sweep::TrialStatus::fromJson(parseJsonText(text, "state.json", "trial state")); })) {
        require(status.state != sweep::TrialState::Damaged, "no file says damaged: it is only shown");
        require(sweep::TrialStatus::fromJson(status.toJson()).toJson() == status.toJson(), "a state reads back");
    }
    sweep::SweepPlan plan;
    if (loadsOrRefuses([&] { plan = sweep::SweepPlan::fromJson(parseJsonText(text, "sweep.json", "sweep plan")); })) {
        for (std::size_t i = 0; i < plan.trials.size(); ++i)
            require(plan.trials[i].id == static_cast<int>(i), "trial ids count from 0");
        require(sweep::SweepPlan::fromJson(plan.toJson()).toJson() == plan.toJson(), "a plan reads back");
    }
}

}  // namespace wb::fuzz
