// The generator of JAX training loops: the MLP, PyTorch's loss and optimizer formulas written out in
// jax.numpy (no optax), the step under jax.jit, from a run's configuration. The jax backend runs it
// and `mlpwb export --framework jax` hands it to the user. Each switch becomes JAX's own construct:
// a Python loop over jitted steps, or the whole epoch in one jit with lax.scan over the batches.
#pragma once

#include <string>

#include "core/run/run_config.h"
#include "frameworks/jax_target.h"

namespace wb {

// The script for `config` on `target`; its command line and stdout are torchScript()'s (see
// torch_script.h): a {"event": "ready"} line, then one line per epoch with the exact sums.
std::string jaxScript(const RunConfig& config, const JaxTarget& target);

}  // namespace wb
