// The catalogue of an ablation: the fixes it can apply (built-in, or "switch=value") and the plan
// that orders them. No Qt, no CUDA.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace wb {

// One fix: a name the user picks ("launch") and the switches it sets ({"launch", "graph_step"}), or
// the torch options ({"torch.num_workers", "2"}).
struct AblationFix {
    std::string name;
    std::string description;                                // one line, for tables and tooltips
    std::vector<std::pair<std::string, std::string>> sets;  // switch name -> value (describeSwitches names)
};

// The built-in fixes: data_path, launch, loss, zero_grad, optimizer_kernel, precision, fused (the
// default order), then the torch backend's own (torch_workers, torch_prefetch, torch_pin_memory,
// torch_script), which set torch options ("torch.num_workers") instead of switches.
const std::vector<AblationFix>& ablationFixes();
std::vector<std::string> defaultFixOrder();  // the shared switches' fixes only
bool isTorchFix(const AblationFix& fix);
// A built-in fix by name, or a custom one written "switch=value" (e.g. "precision=bf16") or
// "torch.option=value" (e.g. "torch.num_workers=4").
// Throws ConfigError for an unknown name, switch or value.
AblationFix ablationFixByName(const std::string& name);

struct AblationPlan {
    std::string baseline = "Seed PyTorch loop";          // a preset name
    std::vector<std::string> fixes = defaultFixOrder();  // applied cumulatively, in this order
    int repeats = 3;     // runs per step, in rounds (every step once, then again): the least made
    bool alone = false;  // also each fix alone on top of the baseline
    // After `repeats` rounds, more rounds while some step's median is known less well than
    // ±`target` (relative half-width of its 95 % interval, bootstrap_interval.h) and the time spent
    // since the ablation began stays within `budgetSeconds` (0: no more rounds than `repeats`).
    double target = 0.05;
    double budgetSeconds = 0;
    static constexpr int kMaxRounds = 30;
    // Attribution beyond the one order (ablation_attribution.h). With `shapley`, every subset of the
    // fixes the engine honours is measured in the rounds, for their Shapley values, where they number
    // at most kMaxShapleyFixes (16 subsets; the cumulative steps are some of them, measured once) and,
    // at the time per run of round 1, all the configurations for max(repeats, 3) rounds fit half the
    // budget (so never without one). Else, with `leaveOneOut`, every honoured fix but one, for each,
    // within the whole budget where there is one. Either joins the rounds from round 2 on.
    // The default, Shapley values where half the budget allows and no leave-one-out: the answer's
    // 30 s per engine gets them for an engine that honours few fixes and runs a fast seed loop (the
    // CPU backend: four), and the subsets never add rounds (the rounds stop on the steps' medians,
    // as before), so an engine pays for them at most half its budget; an engine that honours more
    // fixes or runs a slow seed loop (PyTorch's, near a second per epoch) keeps the one order, with
    // each fix alone where plan.alone asks for it.
    bool shapley = true;
    bool leaveOneOut = false;
    static constexpr int kMaxShapleyFixes = 4;
    void validate() const;  // throws ConfigError
};

// The total number of runs `plan` makes at least (each step x repeats).
int plannedRuns(const AblationPlan& plan);

}  // namespace wb
