// From a Dataset to training buffers: a seeded, stratified train/validation split that keeps the
// file order within each part, then z-scores fitted on the training rows only (so nothing about
// the validation rows leaks into training).
#include "core/data/prepare.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "core/platform/errors.h"
#include "core/platform/random.h"

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

// Row indices per stratum, in file order: one per class (class 0 first), or one stratum of every
// row for a regression.
std::vector<std::vector<std::size_t>> strata(const Dataset& data) {
    if (data.task == Task::Regression) {
        std::vector<std::vector<std::size_t>> all(1);
        for (std::size_t r = 0; r < data.rows; ++r) all[0].push_back(r);
        return all;
    }
    std::vector<std::vector<std::size_t>> byClass(std::max<std::size_t>(data.classes(), 2));
    for (std::size_t r = 0; r < data.rows; ++r) {
        // Binary data from older callers may carry no class names: any non-zero label is class 1.
        const auto cls =
            data.task == Task::Binary ? (data.labels[r] != 0.0f ? 1u : 0u) : static_cast<std::size_t>(data.labels[r]);
        if (cls >= byClass.size())
            throw ConfigError("The data set is inconsistent: label " + std::to_string(data.labels[r]) + " at row " +
                              std::to_string(r + 1) + " is not one of its " + std::to_string(byClass.size()) +
                              " classes.");
        byClass[cls].push_back(r);
    }
    return byClass;
}

// A class of one row cannot be on both sides of a stratified split; say which.
void requireTwoRowsPerClass(const Dataset& data, const std::vector<std::vector<std::size_t>>& byClass) {
    for (std::size_t k = 0; k < byClass.size(); ++k) {
        if (byClass[k].size() != 1) continue;
        const std::string name = k < data.classNames.size() ? data.classNames[k] : std::to_string(k);
        throw DataError(data.source, "the label column '" + data.labelName + "': class '" + name +
                                         "' has a single row; a stratified validation split needs at least two rows "
                                         "of each class (add rows, drop it, or use a validation split of 0)");
    }
}

// Marks the validation rows: per stratum, a seeded permutation of its rows picks
// round(valSplit * stratumRows) of them. Class 0 draws from the generator first, then class 1, ...
std::vector<char> pickValidation(const Dataset& data, double valSplit, std::uint64_t seed) {
    std::vector<char> isVal(data.rows, 0);  // (rows) 1 = validation
    Rng rng(seed);
    for (const std::vector<std::size_t>& members : strata(data)) {
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
    if (spec.valSplit > 0.0 && data.task != Task::Regression) requireTwoRowsPerClass(data, strata(data));
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

// A regression's targets in place: (y - mean) / std of the training targets.
void standardizeTargets(PreparedData& p) {
    double sum = 0.0, sumSq = 0.0;
    for (float y : p.trainY) sum += y;
    p.targetMean = sum / static_cast<double>(p.trainRows());
    for (float y : p.trainY) sumSq += (y - p.targetMean) * (y - p.targetMean);
    const double sd = std::sqrt(sumSq / static_cast<double>(p.trainRows()));
    p.targetStd = sd > 0.0 ? sd : 1.0;  // one training row, or a constant split: leave the scale
    for (auto* ys : {&p.trainY, &p.valY})
        for (float& y : *ys) y = static_cast<float>((y - p.targetMean) / p.targetStd);
}

}  // namespace

PreparedData prepare(const Dataset& data, const PrepareSpec& spec) {
    if (!(spec.valSplit >= 0.0 && spec.valSplit < 1.0))  // also refuses NaN
        throw ConfigError("The validation split must be at least 0 and below 1, not " + splitText(spec.valSplit) + ".");
    checkShape(data);
    PreparedData out;
    out.cols = data.cols;
    out.task = data.task;
    out.classes = data.task == Task::Regression ? 0 : std::max<std::size_t>(data.classes(), 2);
    split(data, spec, out);
    if (out.task == Task::Regression) standardizeTargets(out);
    if (spec.standardize && out.cols > 0) {
        fitStandardizer(out.trainX, out.trainRows(), out.cols, out);
        applyStandardizer(out.trainX, out.cols, out);
        applyStandardizer(out.valX, out.cols, out);
    }
    return out;
}

}  // namespace wb
