// PyTorch's optimizers written out in jax.numpy for the generated JAX loop: optimizer_init(params)
// and optimizer_update(params, grads, state) over the flat parameter list [w0, b0, w1, b1, ...],
// with torch.optim's exact update formulas (the same the workbench's cpu backend computes).
#pragma once

#include <string>

#include "core/model/optimizer.h"

namespace wb {

// The Python functions for `spec` (its constants written in), commented with PyTorch's formula.
std::string jaxOptimizerCode(const OptimizerSpec& spec);

}  // namespace wb
