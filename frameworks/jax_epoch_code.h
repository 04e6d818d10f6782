// How the JAX loop walks an epoch: the batches on their way to the device, and the epoch itself (a
// Python loop over a jitted step, or the whole epoch as one lax.scan program).
#pragma once

#include <string>

#include "core/model/execution_settings.h"

namespace wb {

// make_batches(): epoch_batches(order), the batches on the device, one per jitted step.
std::string jaxStepDataCode(DataPath d);
// make_epoch_rows(): epoch_rows(order), the epoch's rows on the device for the one-program epoch.
std::string jaxEpochDataCode(DataPath d);
// epoch_sums(): the epoch's (loss_sum, correct, samples) from its steps' results.
std::string jaxEpochSumsCode();
// make_train_epoch() as a Python loop over a jitted step (launch=eager_sync, eager).
std::string jaxStepLoopCode(Launch launch);
// make_train_epoch() as one jitted lax.scan over the epoch (launch=graph_step, fused).
std::string jaxScanEpochCode(Launch launch);

}  // namespace wb
