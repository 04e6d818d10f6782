// A sweep plan made by hand for the suites of the sweep library (tst_sweep_folder, tst_local_engine):
// `trials` trials over lr (0.1, 0.01 alternating) and opt (adam, adam, sgd, sgd, ...), each trial's
// RunConfig `config` (what run-trial would train; the library only reads its threads).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sweep/sweep_plan.h"

inline wb::sweep::SweepPlan planOf(int trials, const nlohmann::json& config = nlohmann::json::object()) {
    wb::sweep::SweepPlan p;
    p.name = "t";
    p.specFile = "s.yaml";
    p.specText = "method: grid\n";
    p.metric = {"val_loss", wb::sweep::Goal::Minimize, std::nullopt};
    p.parameterNames = {"lr", "opt"};
    const double lrs[] = {0.1, 0.01};
    const char* opts[] = {"adam", "sgd"};
    for (int i = 0; i < trials; ++i)
        p.trials.push_back({i,
                            i,
                            0,
                            "trial " + std::to_string(i),
                            {{"lr", lrs[i % 2]}, {"opt", opts[(i / 2) % 2]}},
                            {"--lr=x"},
                            config,
                            nlohmann::json()});
    return p;
}
