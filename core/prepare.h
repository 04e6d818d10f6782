// From a loaded data set to what training consumes: a seeded stratified train/validation split and
// standardisation fitted on the training part only.
#pragma once

#include <cstdint>
#include <vector>

#include "dataset.h"

namespace wb {

struct PrepareSpec {
    double valSplit = 0.0;    // fraction of rows held out for validation, in [0, 1)
    bool standardize = true;  // z-score each feature with the training part's mean and std
    std::uint64_t seed = 1;
};

struct PreparedData {
    std::size_t cols = 0;
    std::vector<float> trainX;  // (trainRows, cols) row-major
    std::vector<float> trainY;  // (trainRows)
    std::vector<float> valX;    // (valRows, cols)
    std::vector<float> valY;    // (valRows)
    std::vector<float> mean;    // (cols) empty without standardisation
    std::vector<float> stddev;  // (cols)
    std::size_t trainRows() const { return trainY.size(); }
    std::size_t valRows() const { return valY.size(); }
};

// Without a validation split the training rows keep their file order (as the founding loop does).
// Throws ConfigError for a split that leaves no training rows (or, above 0, no validation rows) and
// for empty or inconsistent data.
PreparedData prepare(const Dataset& data, const PrepareSpec& spec);

}  // namespace wb
