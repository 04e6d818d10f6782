// From a Dataset to training buffers: a seeded, stratified train/validation split that keeps the
// file order within each part, then z-scores fitted on the training rows only (so nothing about
// the validation rows leaks into training).
#include "prepare.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "errors.h"
#include "random.h"

namespace wb {
namespace {

void checkShape(const Dataset& data) {
    if (data.features.size() != data.rows * data.cols || data.labels.size() != data.rows)
        throw ConfigError("The data set is inconsistent: " + std::to_string(data.rows) + " rows of " +
                          std::to_string(data.cols) + " features need " + std::to_string(data.rows * data.cols) +
                          " values and " + std::to_string(data.rows) + " labels, but it has " +
                          std::to_string(data.features.size()) + " and " + std::to_string(data.labels.size()) + ".");
    if (data.rows == 0) throw ConfigError("The data set has no rows to train on.");
}

std::string splitText(double valSplit) {
    std::ostringstream s;  // shortest readable form: 0.2, 1e-09, nan
    s << valSplit;
    return s.str();
}

// Marks the validation rows: per class, a seeded permutation of that class's rows picks
// round(valSplit * classCount) of them. Class 0 draws from the generator first, then class 1.
std::vector<char> pickValidation(const Dataset& data, double valSplit, std::uint64_t seed) {
    std::vector<char> isVal(data.rows, 0);  // (rows) 1 = validation
    Rng rng(seed);
    for (int cls = 0; cls < 2; ++cls) {
        std::vector<std::size_t> members;  // row indices of this class, in file order
        for (std::size_t r = 0; r < data.rows; ++r)
            if ((data.labels[r] != 0.0f) == (cls == 1)) members.push_back(r);
        const double share = valSplit * static_cast<double>(members.size());
        const auto take = static_cast<std::size_t>(std::round(share));  // halves round up
        const auto order = permutation(static_cast<std::uint32_t>(members.size()), rng);
        for (std::size_t i = 0; i < take; ++i) isVal[members[order[i]]] = 1;
    }
    return isVal;
}

// Copies the rows marked `want` in file order into x (n, cols) and y (n).
void gather(const Dataset& data, const std::vector<char>& isVal, char want, std::vector<float>& x,
            std::vector<float>& y) {
    for (std::size_t r = 0; r < data.rows; ++r) {
        if (isVal[r] != want) continue;
        const float* row = data.features.data() + r * data.cols;
        x.insert(x.end(), row, row + data.cols);
        y.push_back(data.labels[r]);
    }
}

void split(const Dataset& data, const PrepareSpec& spec, PreparedData& out) {
    const std::vector<char> isVal =
        spec.valSplit > 0.0 ? pickValidation(data, spec.valSplit, spec.seed) : std::vector<char>(data.rows, 0);
    gather(data, isVal, 0, out.trainX, out.trainY);
    gather(data, isVal, 1, out.valX, out.valY);
    const std::string what =
        "A validation split of " + splitText(spec.valSplit) + " on " + std::to_string(data.rows) + " rows";
    if (out.trainRows() == 0) throw ConfigError(what + " leaves no training rows; use a smaller split or more data.");
    if (spec.valSplit > 0.0 && out.valRows() == 0)
        throw ConfigError(what +
                          " leaves no validation rows; use a larger split, more data, "
                          "or a split of 0.");
}

// Per-column mean and population std of x (rows, cols), accumulated in double. A constant column
// gets std 1, so it maps to 0 instead of dividing by zero.
void fitStandardizer(const std::vector<float>& x, std::size_t rows, std::size_t cols, PreparedData& out) {
    std::vector<double> sum(cols, 0.0), sumSq(cols, 0.0);  // (cols)
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c) sum[c] += x[r * cols + c];
    const double n = static_cast<double>(rows);
    for (std::size_t c = 0; c < cols; ++c) sum[c] /= n;  // now the means
    // Second pass around the mean: exact 0 for a constant column, and no cancellation.
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c) {
            const double d = x[r * cols + c] - sum[c];
            sumSq[c] += d * d;
        }
    out.mean.resize(cols);
    out.stddev.resize(cols);
    for (std::size_t c = 0; c < cols; ++c) {
        const double sd = std::sqrt(sumSq[c] / n);
        out.mean[c] = static_cast<float>(sum[c]);
        out.stddev[c] = sd > 0.0 ? static_cast<float>(sd) : 1.0f;
    }
}

// x (rows, cols) in place: (x - mean) / stddev.
void applyStandardizer(std::vector<float>& x, std::size_t cols, const PreparedData& p) {
    for (std::size_t i = 0; i < x.size(); i += cols)
        for (std::size_t c = 0; c < cols; ++c)
            x[i + c] = static_cast<float>((static_cast<double>(x[i + c]) - p.mean[c]) / p.stddev[c]);
}

}  // namespace

PreparedData prepare(const Dataset& data, const PrepareSpec& spec) {
    if (!(spec.valSplit >= 0.0 && spec.valSplit < 1.0))  // also refuses NaN
        throw ConfigError("The validation split must be at least 0 and below 1, not " + splitText(spec.valSplit) + ".");
    checkShape(data);
    PreparedData out;
    out.cols = data.cols;
    split(data, spec, out);
    if (spec.standardize && out.cols > 0) {
        fitStandardizer(out.trainX, out.trainRows(), out.cols, out);
        applyStandardizer(out.trainX, out.cols, out);
        applyStandardizer(out.valX, out.cols, out);
    }
    return out;
}

}  // namespace wb
