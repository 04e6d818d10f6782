#include "gui/sweeps/sweep_axes.h"

#include <algorithm>
#include <cmath>

#include "sweep/sweep_report.h"

namespace wb::gui {

namespace {
SweepAxis numericAxis(const QString& name, const std::vector<double>& values) {
    SweepAxis a;
    a.name = name;
    if (values.empty()) return a;
    a.min = *std::min_element(values.begin(), values.end());
    a.max = *std::max_element(values.begin(), values.end());
    a.log = a.min > 0 && a.max / a.min >= 20;
    return a;
}

nlohmann::json parameterOf(const sweep::TrialRow& v, const std::string& name) {
    return v.trial->parameters.value(name, nlohmann::json());
}
}  // namespace

SweepAxes SweepAxes::build(const sweep::SweepPlan& plan, const std::vector<sweep::TrialRow>& views) {
    SweepAxes result;
    for (const auto& name : plan.parameterNames) {
        std::vector<double> numbers;
        QStringList categories;
        bool numeric = true;
        for (const auto& v : views) {
            const nlohmann::json value = parameterOf(v, name);
            if (value.is_number())
                numbers.push_back(value.get<double>());
            else
                numeric = false;
            const QString text = QString::fromStdString(sweep::valueText(value));
            if (!categories.contains(text)) categories << text;
        }
        SweepAxis axis;
        if (numeric) {
            axis = numericAxis(QString::fromStdString(name), numbers);
            std::sort(numbers.begin(), numbers.end());
            numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
            axis.values = numbers;
        } else {
            axis.name = QString::fromStdString(name);
            axis.categorical = true;
            axis.categories = categories;
        }
        result.axes_.push_back(axis);
    }
    std::vector<double> metrics;
    for (const auto& v : views)
        if (v.metric) metrics.push_back(*v.metric);
    SweepAxis metric = numericAxis(QString::fromStdString(plan.metric.name), metrics);
    metric.metric = true;
    metric.log = false;  // a loss near its floor reads better linearly
    result.axes_.push_back(metric);
    return result;
}

std::optional<double> SweepAxes::position(std::size_t axis, const sweep::TrialRow& view) const {
    const SweepAxis& a = axes_.at(axis);
    if (a.categorical) {
        const QString text = QString::fromStdString(sweep::valueText(parameterOf(view, a.name.toStdString())));
        const auto i = a.categories.indexOf(text);
        if (i < 0) return std::nullopt;
        return a.categories.size() == 1 ? 0.5 : static_cast<double>(i) / static_cast<double>(a.categories.size() - 1);
    }
    std::optional<double> value;
    if (a.metric) {
        value = view.metric;
    } else {
        const nlohmann::json v = parameterOf(view, a.name.toStdString());
        if (v.is_number()) value = v.get<double>();
    }
    if (!value) return std::nullopt;
    if (a.max <= a.min) return 0.5;
    if (a.log) return (std::log(*value) - std::log(a.min)) / (std::log(a.max) - std::log(a.min));
    return (*value - a.min) / (a.max - a.min);
}

double SweepAxes::valueAt(std::size_t axis, double t) const {
    const SweepAxis& a = axes_.at(axis);
    if (a.log) return std::exp(std::log(a.min) + t * (std::log(a.max) - std::log(a.min)));
    return a.min + t * (a.max - a.min);
}

}  // namespace wb::gui
