// The generator of Keras training loops: the founding post's Sequential model trained with
// model.compile + model.fit (Keras 3 on TensorFlow), from a run's configuration. The keras backend
// runs it and `mlpwb export --framework keras` hands it to the user. Each switch becomes Keras'
// own construct (run_eagerly, jit_compile, a mixed-precision policy, a tf.data pipeline).
#pragma once

#include <string>

#include "core/run/run_config.h"
#include "frameworks/keras_target.h"

namespace wb {

// The script for `config` on `target`; its command line and stdout are torchScript()'s (see
// torch_script.h): a {"event": "ready"} line, then one line per epoch with the exact sums.
// loss_sum is fit's epoch loss (the batch means weighted by their rows) times the rows.
std::string kerasScript(const RunConfig& config, const KerasTarget& target);

}  // namespace wb
