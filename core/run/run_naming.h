// A run's default name says what is particular about it, so that legends and tables tell runs apart:
// the preset (or the switches that differ from the defaults), the backend when it is not the CPU, and
// the model, optimizer and training settings that differ from the founding case, and the task when
// it is not the founding case's binary one.
#pragma once

#include <string>

#include "core/data/dataset.h"
#include "core/run/run_config.h"

namespace wb {

// "Seed PyTorch loop", "Fastest · cuda", "Seed PyTorch loop · torch · lr 0.003, gelu",
// "launch=eager_sync, loss=sigmoid_bce · 64-32". Never empty. Before the data is loaded only a task
// chosen by hand is known: "Fastest · regression", "Fastest · multiclass".
std::string defaultRunName(const RunConfig& config);
// The same with the task of the loaded `data`: "Fastest · regression", "Fastest · 3 classes".
std::string defaultRunName(const RunConfig& config, const Dataset& data);

// The task's part of a name: " · regression", " · 3 classes" (" · multiclass" with `classes` 0:
// not known yet); empty for a binary task, so that binary runs keep the names they always had.
std::string taskSuffix(Task task, std::size_t classes = 0);

}  // namespace wb
