// The one generator of PyTorch training loops: from a run's configuration to a self-contained
// Python script (needs only PyTorch and numpy) that the torch backend runs and `mlpwb export` hands
// to the user. Every switch becomes PyTorch's own construct, commented with the cause it removes.
#pragma once

#include <string>

#include "core/run/run_config.h"
#include "frameworks/torch_target.h"

namespace wb {

// The script for `config` on `target`. Its command line:
//   python3 loop.py --data x.npy --labels y.npy [--val-data vx.npy --val-labels vy.npy]
//                   [--init-weights w.safetensors] [--epochs N] [--device cpu|cuda]
//                   [--out run.json] [--save-weights final.safetensors]
// stdout: one JSON object per line: first {"event": "ready", ...facts}, then one per epoch with
// the RunRecord epoch fields plus the exact sums (loss_sum, correct, samples, val_loss_sum,
// val_correct), timed inside the script.
std::string torchScript(const RunConfig& config, const TorchTarget& target);

}  // namespace wb
