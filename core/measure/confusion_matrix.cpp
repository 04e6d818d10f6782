#include "core/measure/confusion_matrix.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/cpu/cpu_mlp.h"
#include "core/model/step_math.h"
#include "core/platform/errors.h"

namespace wb {

namespace {

// Rows per forward pass: bounds the activations kept for a large validation split.
constexpr std::size_t kBatchRows = 4096;

std::size_t predictedClass(const float* z, std::size_t outputs) {  // z: (outputs)
    // Binary: p = sigmoid(z) >= 0.5, computed as the loss computes it so the matrix agrees with the
    // accuracy the run reported.
    if (outputs == 1) return stepmath::sigmoidFrom(std::exp(-z[0])) >= 0.5f ? 1 : 0;
    std::size_t best = 0;
    for (std::size_t j = 1; j < outputs; ++j)
        if (z[j] > z[best]) best = j;  // the first largest, as torch.argmax
    return best;
}

void checkShape(const MlpParams& params, std::size_t classes) {
    if (params.layers.empty()) throw ConfigError("the model has no layers");
    const auto outputs = static_cast<std::size_t>(params.layers.back().out);
    if (classes < 2 || (outputs != classes && !(outputs == 1 && classes == 2)))
        throw ConfigError("a confusion matrix of " + std::to_string(classes) + " classes needs " +
                          std::to_string(classes == 2 ? 1 : classes) + " outputs; the model has " +
                          std::to_string(outputs));
}

}  // namespace

std::vector<std::size_t> confusionMatrix(const MlpParams& params, Activation activation, const float* x, const float* y,
                                         std::size_t rows, std::size_t classes) {
    checkShape(params, classes);
    std::vector<std::size_t> counts(classes * classes, 0);
    if (rows == 0) return counts;
    const auto cols = static_cast<std::size_t>(params.layers.front().in);
    const auto outputs = static_cast<std::size_t>(params.layers.back().out);
    CpuMlp mlp(params, activation, std::min(rows, kBatchRows));
    for (std::size_t first = 0; first < rows; first += kBatchRows) {
        const std::size_t n = std::min(kBatchRows, rows - first);
        const float* logits = mlp.forward(x + first * cols, n);  // (n, outputs)
        for (std::size_t i = 0; i < n; ++i) {
            const float label = y[first + i];
            if (!stepmath::isClassLabel(label, static_cast<int>(classes)))  // checkShape: classes fits an int
                throw ConfigError("row " + std::to_string(first + i + 1) + " has label " + std::to_string(label) +
                                  ", outside the " + std::to_string(classes) + " classes");
            const auto truth = static_cast<std::size_t>(label);
            ++counts[truth * classes + predictedClass(logits + i * outputs, outputs)];
        }
    }
    return counts;
}

}  // namespace wb
