// The subsets of an ablation's honoured fixes measured for an attribution beyond one order (Shapley
// values, leave-one-out; ablation_attribution.h): which configuration a subset is, which measured
// step already is that configuration (as the backend runs it), and the subsets' levels for the
// result's file. The runner decides which subsets the plan and the budget allow and measures them in
// its rounds; this is what it asks. No Qt, no CUDA.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "core/data/task.h"
#include "core/measure/ablation_result.h"

namespace wb {

// A subset of the honoured fixes (bit p of `mask`: honoured fix p): measured by a cumulative step of
// the same configuration, by an earlier slot of the same configuration (a fix that changed nothing),
// or here, in the rounds (`own`).
struct SubsetSlot {
    unsigned mask = 0;
    std::optional<std::size_t> step;    // index into AblationResult::steps
    std::optional<std::size_t> sameAs;  // index into the slots
    AblationStep own;
    bool measuredHere() const { return !step && !sameAs; }
};

// Whether `a` and `b` run the same on `r`'s backend for data of `task`: the switches it ignores (at
// the seed loop's value) left out, the torch options compared whole. The cumulative steps carry the
// fixes a backend ignores (launch=graph_step on the CPU backend), the subsets do not.
bool sameConfiguration(const AblationResult& r, Task task, const AblationStep& a, const AblationStep& b);

// The slots of `masks` over the cumulative steps `honoured` (indices into r.steps), each reusing a
// measured configuration where one is the same; empty when one of them is refused (it cannot run,
// so there is no attribution over them). A slot measured here starts at the seed loop's level.
std::vector<SubsetSlot> subsetSlots(const AblationResult& r, Task task, const std::vector<unsigned>& masks,
                                    const std::vector<std::size_t>& honoured);

// How many of `slots` are measured here (new configurations for the rounds).
std::size_t newConfigurations(const std::vector<SubsetSlot>& slots);

// r.subsets from `slots` over r.subsetFixes: every subset with its rounds as measured so far.
std::vector<SubsetLevel> subsetLevels(const AblationResult& r, const std::vector<SubsetSlot>& slots);

}  // namespace wb
