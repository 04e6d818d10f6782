// What the task (binary, multiclass, regression) changes in every generated loop: which task a run's
// configuration asks for, what the docstring says about it, and the per-epoch log of a regression.
// The generators keep the binary text as it always was and ask here only for the other tasks.
#pragma once

#include <string>
#include <vector>

#include "core/data/task.h"
#include "core/model/execution_settings.h"
#include "core/run/run_config.h"
#include "frameworks/script_text.h"

namespace wb {

// The task of the loop for `c`: a regression when the data is read as one (it never is under auto),
// multiclass when the output layer has more than one logit or the data is read as classes, else
// binary. Throws ConfigError for multiclass without the number of classes (model.outputs < 2): the
// loop's output layer needs it, and only the loaded data says it.
Task scriptTask(const RunConfig& c);

// `ignored` plus what the task leaves without meaning: a regression's `loss` switch.
std::vector<IgnoredSwitch> withTaskIgnored(std::vector<IgnoredSwitch> ignored, Task task);
// `describe`, with the `loss` switch told in the task's terms (softmax for K classes; nothing for a
// regression, whose loss the switch does not choose).
DescribeSwitch describeForTask(DescribeSwitch describe, Task task);

// "1" or "K" for the docstring's model line, and the loss's name there, for a task other than binary.
std::string outputText(const RunConfig& c, Task task);
// The docstring's loss: "CrossEntropyLoss", "Softmax + log + NLLLoss", "MSELoss", "HuberLoss(delta=1)".
std::string taskLossName(const RunConfig& c, LossKind kind, Task task);

// usageSection for a task: what the labels file holds.
std::string taskUsageSection(const std::string& needs, Task task);
// pythonFileHelpers / pythonRunHelpers for a task: the binary text unchanged; a regression's log
// also reports the sums of squared and absolute errors and writes MSE, MAE and R^2 to the record.
std::string taskFileHelpers(Task task);
std::string taskRunHelpers(Task task);

}  // namespace wb
