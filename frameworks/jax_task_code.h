// The parts of the JAX loop that differ by task for multiclass and regression (the binary loop's
// text stays in jax_script.cpp as it always was): the model's end, the per-row loss, what a step
// counts, and how a regression's error sums travel through the epoch.
#pragma once

#include <string>

#include "core/data/task.h"
#include "core/model/execution_settings.h"
#include "core/run/run_config.h"

namespace wb {

// forward()'s return, row_losses and hits(out, y) for a multiclass or regression model.
std::string jaxTaskModel(const RunConfig& c, const ExecutionSettings& run, Task task);
// The whole binary-shaped loop `script` made to count what `task` counts: hits() instead of the
// threshold; for a regression, the sums of squared and absolute errors (a step's "right" is then
// the pair) carried through the epoch's sums and the validation.
// `weighted`: a multiclass run with class weights, whose batch loss becomes weighted_mean (defined
// by jaxTaskModel) instead of jnp.mean.
std::string jaxTaskRewrite(std::string script, Task task, bool weighted = false);

}  // namespace wb
