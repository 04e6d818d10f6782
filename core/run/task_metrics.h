// The metrics of a task beyond its loss: a regression's MSE, MAE and R^2 in the target's units,
// from the sums a backend accumulates in standardised units; and what a task makes of the switches.
#pragma once

#include <cstddef>
#include <vector>

#include "core/model/execution_settings.h"
#include "core/run/epoch_metrics.h"

namespace wb {

// From sums over `rows` rows in standardised units (squaredError = sum (z - t)^2, absoluteError =
// sum |z - t|) and the standardisation's std: mse = SSE / rows * std^2, mae = SAE / rows * std,
// r2 = 1 - SSE / spread, `spread` = the same rows' sum of (t - mean t)^2 (standardised too; the
// scale cancels). A spread of 0 (one row, or equal targets) gives r2 = 0.
RegressionMetrics regressionMetrics(double squaredError, double absoluteError, std::size_t rows, double targetStd,
                                    double spread);

// sum (v - mean v)^2 over `values`, in double; 0 for none.
double sumOfSquaresAroundMean(const std::vector<float>& values);

// The `loss` switch has no regression form: it names a classification loss's two forms.
IgnoredSwitch regressionLossSwitch();
// What the `loss` switch's values mean on K classes, where their names speak of a sigmoid: a note
// ({switch, reason}; the reason reads on from the switch's name) for an ablation step that changes it on multiclass
// data.
IgnoredSwitch multiclassLossNote();

}  // namespace wb
