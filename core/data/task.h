// What the model learns from the label column: a yes/no label, one of K classes, or a number.
// The task decides the output layer's width, the loss and the metrics of a run.
#pragma once

#include <cstddef>
#include <string>

namespace wb {

enum class Task { Binary, Multiclass, Regression };
// What the user asked for; Auto decides from the label column (see label_coding.h).
enum class TaskChoice { Auto, Binary, Multiclass, Regression };
// The loss of a regression: mean squared error, or Huber (PyTorch's HuberLoss/SmoothL1Loss with
// delta = beta = 1: quadratic within 1 standard deviation of the target, linear beyond).
enum class RegressionLoss { Mse, Huber };

// More classes than this are refused: a label column with thousands of distinct values is an id
// or a number, not a class.
inline constexpr std::size_t kMaxClasses = 1000;

// Logits of the output layer: 1 for binary and regression, `classes` for multiclass.
int outputsFor(Task task, std::size_t classes);

// For a backend that trains only binary labels so far: throws ConfigError naming `backend` and the
// task unless `task` is Binary.
void requireBinaryTask(Task task, const std::string& backend);

std::string toString(Task t);
std::string toString(TaskChoice t);
std::string toString(RegressionLoss l);
Task taskFromString(const std::string& s);                      // throws ConfigError
TaskChoice taskChoiceFromString(const std::string& s);          // throws ConfigError
RegressionLoss regressionLossFromString(const std::string& s);  // throws ConfigError

}  // namespace wb
