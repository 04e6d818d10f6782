// Which class a trained model predicts for each row, against the class it should: the confusion
// matrix of a classification run, from its final parameters on the validation rows.
#pragma once

#include <cstddef>
#include <vector>

#include "core/model/model.h"

namespace wb {

// counts[t * classes + p]: rows of true class t predicted as class p, (classes, classes) row-major.
// x: (rows, cols) the prepared (standardised) features, cols = params' input width; y: (rows) the
// class indices 0..classes-1. Binary (classes = 2, one logit): predicted 1 when the logit >= 0, i.e.
// p >= 0.5, as the accuracy counts it. Multiclass (one logit per class): the argmax, the first on a
// tie. Throws ConfigError when the output width does not fit `classes` or a label is out of range.
std::vector<std::size_t> confusionMatrix(const MlpParams& params, Activation activation, const float* x, const float* y,
                                         std::size_t rows, std::size_t classes);

}  // namespace wb
