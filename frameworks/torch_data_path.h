// The data_path switch in the PyTorch loop: how a batch of rows gets to the device (a DataLoader over
// a TensorDataset, slices copied from pageable or pinned memory, or rows resident on the device).
#pragma once

#include <string>

#include "core/model/execution_settings.h"
#include "core/run/framework_options.h"

namespace wb {

// make_batches(): returns epoch_batches(), a generator of (inputs (B, cols), targets (B, 1)) on the device.
std::string torchDataPathCode(const ExecutionSettings& run, const TorchOptions& o);

}  // namespace wb
