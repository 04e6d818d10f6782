// NumPy .npy files: float32/float64, C order, 1-D or 2-D.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "dataset.h"

namespace wb {

struct NpyArray {
    std::vector<std::size_t> shape;  // 1 or 2 dimensions
    std::vector<float> data;         // converted to float32, C order
};

NpyArray readNpy(const std::string& path);  // throws DataError
// Writes float32, C order. Throws IoError.
void writeNpy(const std::string& path, const float* data, const std::vector<std::size_t>& shape);

// Features (rows, cols) + labels (rows), or, with labelsPath empty, one (rows, cols+1) array whose
// last column is the label.
Dataset loadNpyDataset(const std::string& featuresPath, const std::string& labelsPath);

}  // namespace wb
