// The parts of the Keras loop that differ by task for multiclass and regression (the binary loop's
// text stays in keras_script.cpp as it always was): the loss's name, the output layer, and
// compile()'s loss and metrics.
#pragma once

#include <string>

#include "core/data/task.h"
#include "core/model/execution_settings.h"
#include "core/run/run_config.h"

namespace wb {

// The loss compile() gets, as the docstring names it.
std::string kerasLossName(const RunConfig& c, const ExecutionSettings& run, Task task);
// The output layer of a multiclass or regression model (float32, as the binary one).
std::string kerasTaskOutputLayer(const RunConfig& c, const ExecutionSettings& run, Task task);
// compile()'s loss and metrics for a multiclass or regression run.
// Before compile(): the class-weighted loss of a multiclass run with class weights ("" otherwise).
std::string kerasTaskLossDefinition(const RunConfig& c, const ExecutionSettings& run, Task task);
std::string kerasTaskCompileArguments(const RunConfig& c, const ExecutionSettings& run, Task task);

}  // namespace wb
