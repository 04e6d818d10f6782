// What one epoch measured. Optional fields are null where the path cannot measure them honestly.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace wb {

struct PhaseTimes {
    double data = 0, forward = 0, backward = 0, optimizer = 0, other = 0;  // milliseconds
    double total() const { return data + forward + backward + optimizer + other; }
};

// A regression's metrics over one split, in the target's own units (R^2 has none).
struct RegressionMetrics {
    double mse = 0;  // mean squared error
    double mae = 0;  // mean absolute error
    double r2 = 0;   // 1 - SSE / SST, SST around the split's own mean: 1 is perfect, 0 predicts the mean
};

struct EpochMetrics {
    int epoch = 0;                  // 1-based
    bool warmup = false;            // the first epoch: excluded from summaries
    double trainLoss = 0;           // mean over the epoch's samples
    double trainAccuracy = 0;       // classification; written as null for a regression
    std::optional<double> valLoss;  // null without a validation split
    std::optional<double> valAccuracy;
    // A regression's metrics ("train_mse", "train_mae", "train_r2", "val_..." in the record); null
    // for classification, and on the validation side without a split.
    std::optional<RegressionMetrics> trainRegression, valRegression;
    double wallMs = 0;                 // host steady clock, the whole epoch incl. validation
    std::optional<double> deviceMs;    // CUDA events, when on a device
    double samplesPerSecond = 0;       // training samples / wall time
    std::optional<PhaseTimes> phases;  // null where the phases are not separable
    double elapsedMs = 0;              // since the run started, at the end of this epoch
};

// The keys of a regression's metrics over one split (mse, mae, r2), as a record's epochs and an
// ablation's finals name them.
inline constexpr const char* kTrainRegressionKeys[3] = {"train_mse", "train_mae", "train_r2"};
inline constexpr const char* kValRegressionKeys[3] = {"val_mse", "val_mae", "val_r2"};

// A split's regression metrics under `keys` in object j; nullopt where the mse is absent or null
// (classification).
std::optional<RegressionMetrics> readRegression(const nlohmann::json& j, const char* const (&keys)[3]);
// Writes a split's regression metrics under `keys` into object j.
void writeRegression(nlohmann::json& j, const char* const (&keys)[3], const RegressionMetrics& r);

void to_json(nlohmann::json& j, const EpochMetrics& m);
// The same object as to_json, as compact JSON text appended to `out` (no newline): formatted by hand,
// several times faster than building and dumping a nlohmann object, for the epoch journal and the
// epochs of a saved record.
void appendEpochJson(const EpochMetrics& m, std::string& out);
void from_json(const nlohmann::json& j, EpochMetrics& m);

}  // namespace wb
