// The number that says how well a run learned, beside its loss: accuracy for a classification, R^2
// (or the mean absolute error) for a regression. One rule for every view, so that the metric chart,
// the ablation views and the CLI's tables name and show the same metric for the same task.
#pragma once

#include <optional>
#include <string>

#include "core/data/task.h"
#include "core/run/epoch_metrics.h"

namespace wb {

enum class QualityMetric { Accuracy, R2, Mae };

// The metric a task is judged by by default: R^2 for a regression (it has no accuracy), else accuracy.
QualityMetric qualityFor(Task task);

// A short name for headers and labels: "accuracy", "R²" (UTF-8), "MAE".
std::string qualityName(QualityMetric q);

// The value of `q` on one split from what was measured there: `accuracy` (a fraction) of a
// classification, `regression` of a regression. Null where the split's task has no such metric
// (a regression's accuracy, a classification's R^2), or the split was not measured.
std::optional<double> qualityValue(QualityMetric q, const std::optional<double>& accuracy,
                                   const std::optional<RegressionMetrics>& regression);

// The same for one epoch, on the training rows or the validation split. A regression's record holds
// a null accuracy (read back as 0): it counts as none.
std::optional<double> qualityValue(QualityMetric q, const EpochMetrics& epoch, bool validation);

}  // namespace wb
