// A loaded data set: what every data source (CSV, .npy, the built-in generator) yields.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "core/data/task.h"

namespace wb {

struct Dataset {
    std::string source;  // file name, or "builtin" for the generator
    std::size_t rows = 0;
    std::size_t cols = 0;                     // number of features
    std::vector<float> features;              // (rows, cols) row-major
    std::vector<float> labels;                // (rows) binary: 0 or 1; multiclass: the class index
                                              // 0..K-1; regression: the target as read
    std::vector<std::string> columnNames;     // (cols) feature names; generated when the file has none
    std::string labelName;                    // name of the label column ("label" when unnamed)
    std::map<std::string, int> labelMapping;  // label text -> class index; empty for 0/1 and regression
    Task task = Task::Binary;
    std::vector<std::string> classNames;  // (K) classification: each class's label, in class order
    std::string taskReason;               // why this task: "3 text values: multiclass", for the user
    std::string hash;                     // "sha256:<hex>" of shape, features and labels
    std::vector<std::string> notes;       // what the loader did, for the user (rows dropped, ...)

    // Fills `hash` from the current contents. Call after the features and labels are final.
    void computeHash();
    // Fraction of rows labelled 1.
    double positiveFraction() const;
    // Classes of a classification task (K); 0 for regression.
    std::size_t classes() const { return task == Task::Regression ? 0 : classNames.size(); }
};

}  // namespace wb
