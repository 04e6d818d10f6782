// The figures a sweep ranks trials by: any summary figure of a RunRecord, by the name it has there.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sweep/sweep_spec.h"

namespace wb {
struct RunRecord;
}

namespace wb::sweep {

// val_loss, val_accuracy, train_loss, ..., val_r2, median_epoch_ms, min_epoch_ms, total_ms, and the
// short names loss, accuracy, mse, mae, r2 (the validation figure where the run has a split, else
// the training one).
bool isMetricName(const std::string& name);
std::string metricNames();                  // for messages: "val_loss, val_accuracy, ..."
Goal defaultGoal(const std::string& name);  // maximize accuracy and r2, minimize the rest

// A record's summary as one flat object: the final epoch's figures, median_epoch_ms, min_epoch_ms,
// total_ms, epochs (the count) and record_status (the run's status); null where the run has none.
nlohmann::json summaryFigures(const RunRecord& record);

// The metric's value in summaryFigures(); nullopt where it is null or absent.
std::optional<double> metricValue(const nlohmann::json& figures, const std::string& name);

// True when `a` is better than `b` under `goal`.
inline bool better(double a, double b, Goal goal) {
    return goal == Goal::Minimize ? a < b : a > b;
}

}  // namespace wb::sweep
