// A loaded data set: what every data source (CSV, .npy, the built-in generator) yields.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace wb {

struct Dataset {
    std::string source;  // file name, or "builtin" for the generator
    std::size_t rows = 0;
    std::size_t cols = 0;                     // number of features
    std::vector<float> features;              // (rows, cols) row-major
    std::vector<float> labels;                // (rows) each 0 or 1
    std::vector<std::string> columnNames;     // (cols) feature names; generated when the file has none
    std::string labelName;                    // name of the label column ("label" when unnamed)
    std::map<std::string, int> labelMapping;  // string label -> 0/1; empty for numeric labels
    std::string hash;                         // "sha256:<hex>" of shape, features and labels
    std::vector<std::string> notes;           // what the loader did, for the user (rows dropped, ...)

    // Fills `hash` from the current contents. Call after the features and labels are final.
    void computeHash();
    // Fraction of rows labelled 1.
    double positiveFraction() const;
};

}  // namespace wb
