// A run's default name says what is particular about it, so that legends and tables tell runs apart:
// the preset (or the switches that differ from the defaults), the backend when it is not the CPU, and
// the model, optimizer and training settings that differ from the founding case.
#pragma once

#include <string>

#include "run_config.h"

namespace wb {

// "Seed PyTorch loop", "Fastest · cuda", "Seed PyTorch loop · torch · lr 0.003, gelu",
// "launch=eager_sync, loss=sigmoid_bce · 64-32". Never empty.
std::string defaultRunName(const RunConfig& config);

}  // namespace wb
