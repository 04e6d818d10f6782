// NumPy .npy files: float32/float64, C order, 1-D or 2-D.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/dataset.h"
#include "core/data/task.h"

namespace wb {

struct NpyArray {
    std::vector<std::size_t> shape;  // 1 or 2 dimensions
    std::vector<float> data;         // converted to float32, C order
};

NpyArray readNpy(const std::string& path);  // throws DataError
// The same for the bytes of a .npy file already in memory; `name` stands for the file in errors.
NpyArray parseNpy(std::string_view bytes, const std::string& name);
// Writes float32, C order. Throws IoError.
void writeNpy(const std::string& path, const float* data, const std::vector<std::size_t>& shape);

// Features (rows, cols) + labels (rows), or, with labelsPath empty, one (rows, cols+1) array whose
// last column is the label; the labels coded for `task` (label_coding.h).
Dataset loadNpyDataset(const std::string& featuresPath, const std::string& labelsPath,
                       TaskChoice task = TaskChoice::Auto);
// The same for files already in memory; with labelsName empty, `labels` is not used and the label is
// the last column of `features`.
Dataset parseNpyDataset(std::string_view features, const std::string& featuresName, std::string_view labels,
                        const std::string& labelsName, TaskChoice task = TaskChoice::Auto);

}  // namespace wb
