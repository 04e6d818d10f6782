// Answers and ablations made by hand, for the exports of their fixed loop (tst_cli_export,
// tst_pytorch_export): every step measured in three rounds at known epoch times, each run holding
// the full RunConfig of its step and the environment a framework backend records. Nothing trains.
#pragma once

#include <string>
#include <vector>

#include "core/measure/answer.h"
#include "core/model/execution_settings.h"
#include "tests/timed_step_fixture.h"

namespace fixture {

// The interpreter the runs name (a suite may point it at a program that leaves a mark when run): it
// must never be run or asked.
inline std::string& recordedPython() {
    static std::string path = "/no/such/python-from-the-file";
    return path;
}

// A run of `config` whose epochs after the warm-up take `ms` each.
inline wb::RunRecord runAt(const wb::RunConfig& config, double ms) {
    wb::RunRecord r = timed_step_fixture::runAt(ms);
    r.name = config.name;
    r.config = config;
    r.environment = {{"backend", config.backend},
                     {"framework", config.backend},
                     {config.backend + "_version", "2.5.1"},
                     {"framework_device", "cpu"},
                     {"python", recordedPython()}};
    return r;
}

// One switch set on top of the previous step's settings: {"data_path", "device_resident"}.
struct Fix {
    std::string name, value;
};

// The seed PyTorch loop and then `fixes` cumulatively, step i measured in three rounds at
// ms[i] x (0.98, 1, 1.02). A fix named AblationStep::kWithoutCostly is the closing step of every
// fix but launch=graph_step (the runner's "without ..." step).
inline wb::AblationResult ablationOf(const std::string& backend, const std::vector<Fix>& fixes,
                                     const std::vector<double>& ms) {
    wb::AblationResult r;
    r.backend = backend;
    r.device = "test device";
    r.status = wb::AblationStatus::Completed;
    r.rounds = 3;
    wb::RunConfig config;
    config.backend = backend;
    config.train.epochs = 4;
    config.framework.python = recordedPython();
    config.execution = wb::presetByName("Seed PyTorch loop").settings;
    for (std::size_t i = 0; i < ms.size(); ++i) {
        wb::AblationStep s;
        if (i == 0) {
            s.name = "baseline";
        } else if (fixes[i - 1].name == wb::AblationStep::kWithoutCostly) {
            s.fix = wb::AblationStep::kWithoutCostly;
            s.name = "without launch=graph_step";
            wb::setSwitch(config.execution, "launch", "eager_sync");
        } else {
            s.fix = fixes[i - 1].name;
            s.name = fixes[i - 1].name + "=" + fixes[i - 1].value;
            wb::setSwitch(config.execution, fixes[i - 1].name, fixes[i - 1].value);
        }
        s.settings = config.execution;
        config.name = s.name;
        for (double f : {0.98, 1.0, 1.02}) s.runs.push_back(runAt(config, ms[i] * f));
        s.medianEpochMs = ms[i];
        s.minEpochMs = ms[i] * 0.98;
        s.maxEpochMs = ms[i] * 1.02;
        r.steps.push_back(s);
    }
    r.updateSavings();
    return r;
}

// PyTorch: its seed loop at 400 ms, data_path=device_resident at 30 ms (the fixed loop), then
// launch=graph_step at 45 ms (it costs 15 ms: left out).
inline wb::AblationResult torchGraphCostsTime() {
    return ablationOf("torch", {{"data_path", "device_resident"}, {"launch", "graph_step"}}, {400, 30, 45});
}

inline wb::AnswerEngine engineOf(wb::AblationResult ablation) {
    wb::AnswerEngine e;
    e.engine = ablation.backend;
    e.available = true;
    e.device = "test device";
    e.ablation = std::move(ablation);
    return e;
}

inline wb::AnswerEngine missing(const std::string& engine, const std::string& reason) {
    wb::AnswerEngine e;
    e.engine = engine;
    e.reason = reason;
    return e;
}

// The answer whose PyTorch fixed loop is torchGraphCostsTime()'s, with Keras missing.
inline wb::Answer torchAnswer() {
    wb::Answer a;
    a.status = wb::AnswerStatus::Completed;
    a.engines.push_back(engineOf(torchGraphCostsTime()));
    a.engines.push_back(missing("keras", "keras is not importable by python3"));
    return a;
}

}  // namespace fixture
