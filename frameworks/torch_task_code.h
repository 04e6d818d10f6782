// The parts of the PyTorch loop that differ by task for multiclass and regression (the binary loop's
// text stays in torch_script.cpp as it always was): the model's end, the loss, and the sums an
// epoch reports.
#pragma once

#include <string>

#include "core/data/task.h"
#include "core/model/execution_settings.h"
#include "core/run/run_config.h"

namespace wb {

// Mlp.__init__'s last line(s) after the activation and forward's return, for a multiclass or
// regression model.
std::string torchTaskProbability(Task task, const ExecutionSettings& run);
std::string torchTaskReturn(Task task, const ExecutionSettings& run);
// build()'s loss_fn for a multiclass or regression run; with class weights (c.model.classWeights)
// CrossEntropyLoss(weight=...) / NLLLoss(weight=...), the weights also on loss_fn.class_weight.
std::string torchTaskLoss(const RunConfig& c, const ExecutionSettings& run, Task task);
// train_epoch's per-batch sums after the step, and its return; `weighted`: a multiclass run with
// class weights, whose epoch loss is the weighted mean (its accumulator: torchTaskWeightSum).
std::string torchTaskTrainSums(const ExecutionSettings& run, Task task, bool weighted = false);
// train_epoch's accumulator of the class weights before the loop ("" without them).
std::string torchTaskWeightSum(const ExecutionSettings& run, bool weighted);
// evaluate()'s lines after the loss, through its return.
std::string torchTaskEvaluateSums(Task task);

}  // namespace wb
