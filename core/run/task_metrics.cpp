#include "core/run/task_metrics.h"

namespace wb {

RegressionMetrics regressionMetrics(double squaredError, double absoluteError, std::size_t rows, double targetStd,
                                    double spread) {
    RegressionMetrics m;
    if (rows == 0) return m;
    const double n = static_cast<double>(rows);
    m.mse = squaredError / n * targetStd * targetStd;
    m.mae = absoluteError / n * targetStd;
    m.r2 = spread > 0.0 ? 1.0 - squaredError / spread : 0.0;
    return m;
}

double sumOfSquaresAroundMean(const std::vector<float>& values) {
    if (values.empty()) return 0.0;
    double mean = 0.0;
    for (float v : values) mean += v;
    mean /= static_cast<double>(values.size());
    double sum = 0.0;
    for (float v : values) sum += (v - mean) * (v - mean);
    return sum;
}

IgnoredSwitch regressionLossSwitch() {
    return {"loss",
            "a regression has no sigmoid or softmax to fuse: its loss (MSE or Huber) is chosen in the model, "
            "not by this switch"};
}

IgnoredSwitch multiclassLossNote() {
    return {"loss",
            "means, on K classes: sigmoid_bce = Softmax, log and NLLLoss; bce_with_logits = CrossEntropyLoss on "
            "the logits (the same fusion, with softmax in place of the sigmoid)"};
}

}  // namespace wb
