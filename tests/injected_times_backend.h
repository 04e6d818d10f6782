// A stand-in engine whose epoch times are injected from its switches (the losses are the CPU
// backend's), registered under "torch": what the attribution and runner suites measure an ablation
// with when the timings must be known in advance. The per-sample gather costs 850 ms, graph capture
// 56 ms (as on a CPU: it costs time here), the separate sigmoid 20 ms, over 30 ms of the rest. Each
// run a little off (0, 1 or 2 %, by the count of backends made).
#pragma once

#include <memory>

#include "core/cpu/cpu_backend.h"
#include "core/run/backend.h"

class InjectedTimesBackend : public wb::Backend {
public:
    std::string name() const override { return "torch"; }
    std::string deviceName() const override { return "a stand-in with injected epoch times"; }
    void setup(const wb::TrainingProblem& problem) override {
        settings_ = problem.execution;
        inner_->setup(problem);
    }
    wb::EpochResult trainEpoch(const std::vector<std::uint32_t>* order, const wb::CancelFlag& cancel) override {
        wb::EpochResult r = inner_->trainEpoch(order, cancel);
        r.wallMs = epochMs(settings_) * (1 + 0.01 * static_cast<double>(runs_ % 3));
        return r;
    }
    wb::EvalResult evaluate(const float* x, const float* y, std::size_t rows) override {
        return inner_->evaluate(x, y, rows);
    }
    wb::MlpParams parameters() const override { return inner_->parameters(); }
    std::vector<wb::IgnoredSwitch> notApplicable(const wb::ExecutionSettings&) const override { return {}; }
    std::vector<std::pair<std::string, std::string>> environment() const override { return {}; }

    // The epoch time of `s`, before the run's own 0-2 %.
    static double epochMs(const wb::ExecutionSettings& s) {
        return 30 + (s.dataPath == wb::DataPath::PerSampleGather ? 850 : 0) +
               (s.launch == wb::Launch::GraphStep ? 56 : 0) + (s.loss == wb::LossKind::SigmoidBce ? 20 : 0);
    }
    static inline int runs_ = 0;  // counts the backends made: a run's round, roughly

private:
    wb::ExecutionSettings settings_;
    std::unique_ptr<wb::Backend> inner_ = wb::makeCpuBackend();
};

// Registered under "torch" (no framework backend is linked into the unit suites, and RunConfig knows
// the name), once per process.
inline void registerStandInAsTorch() {
    static const bool once = [] {
        wb::BackendRegistry::instance().add(
            "torch",
            [] {
                return wb::BackendInfo{"torch", true, "a stand-in with injected epoch times", "", {}};
            },
            [](int) {
                ++InjectedTimesBackend::runs_;
                return std::unique_ptr<wb::Backend>(new InjectedTimesBackend);
            },
            [](const wb::ExecutionSettings&) { return std::vector<wb::IgnoredSwitch>{}; });
        return true;
    }();
    (void)once;
}
