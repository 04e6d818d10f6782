// From a loaded data set to what training consumes: a seeded stratified train/validation split and
// standardisation fitted on the training part only (of the features, and of a regression's target).
#pragma once

#include <cstdint>
#include <vector>

#include "core/data/dataset.h"
#include "core/data/task.h"

namespace wb {

struct PrepareSpec {
    double valSplit = 0.0;    // fraction of rows held out for validation, in [0, 1)
    bool standardize = true;  // z-score each feature with the training part's mean and std
    std::uint64_t seed = 1;
};

struct PreparedData {
    std::size_t cols = 0;
    Task task = Task::Binary;
    std::size_t classes = 2;    // K of a classification; 0 for regression
    std::vector<float> trainX;  // (trainRows, cols) row-major
    std::vector<float> trainY;  // (trainRows) 0/1, a class index, or a standardised target
    std::vector<float> valX;    // (valRows, cols)
    std::vector<float> valY;    // (valRows)
    // Regression: trainY and valY are (target - targetMean) / targetStd, with the training rows'
    // mean and population std, so one learning rate suits a price and a probability alike; metrics
    // are reported back in the target's units. Classification: 0 and 1.
    double targetMean = 0.0, targetStd = 1.0;
    std::vector<float> mean;    // (cols) empty without standardisation
    std::vector<float> stddev;  // (cols)
    std::size_t trainRows() const { return trainY.size(); }
    std::size_t valRows() const { return valY.size(); }
    int outputs() const { return outputsFor(task, classes); }  // logits per row
};

// Without a validation split the training rows keep their file order (as the founding loop does).
// The split is stratified by class for classification, plain for regression.
// Throws ConfigError for a split that leaves no training rows (or, above 0, no validation rows) and
// for empty or inconsistent data; DataError for a class of a single row under a split.
PreparedData prepare(const Dataset& data, const PrepareSpec& spec);

}  // namespace wb
