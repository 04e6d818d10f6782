// The task's quality metric: which one, its name and its value.
#include "core/run/quality_metric.h"

namespace wb {

QualityMetric qualityFor(Task task) {
    return task == Task::Regression ? QualityMetric::R2 : QualityMetric::Accuracy;
}

std::string qualityName(QualityMetric q) {
    switch (q) {
        case QualityMetric::Accuracy: return "accuracy";
        case QualityMetric::R2: return "R\u00b2";
        case QualityMetric::Mae: return "MAE";
    }
    return {};
}

std::optional<double> qualityValue(QualityMetric q, const std::optional<double>& accuracy,
                                   const std::optional<RegressionMetrics>& regression) {
    switch (q) {
        case QualityMetric::Accuracy: return regression ? std::nullopt : accuracy;
        case QualityMetric::R2: return regression ? std::optional<double>(regression->r2) : std::nullopt;
        case QualityMetric::Mae: return regression ? std::optional<double>(regression->mae) : std::nullopt;
    }
    return std::nullopt;
}

std::optional<double> qualityValue(QualityMetric q, const EpochMetrics& epoch, bool validation) {
    if (epoch.trainRegression)  // a regression: its validation side may be null (no split)
        return qualityValue(q, std::nullopt, validation ? epoch.valRegression : epoch.trainRegression);
    return qualityValue(q, validation ? epoch.valAccuracy : std::optional<double>(epoch.trainAccuracy), std::nullopt);
}

}  // namespace wb
