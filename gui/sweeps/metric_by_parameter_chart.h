// The sweep's metric against one parameter (chosen above the chart): every completed trial a dot,
// the median per value joined by a line with the spread over its trials (min to max) as error
// bars, and the best trial a star. The figures per value are the report's (sweep_report.h).
#pragma once

#include <QWidget>
#include <optional>
#include <vector>

#include "gui/sweeps/sweep_axes.h"
#include "sweep/sweep_folder.h"

class QComboBox;
class QCustomPlot;

namespace wb::gui {

class MetricByParameterChart : public QWidget {
    Q_OBJECT

public:
    explicit MetricByParameterChart(QWidget* parent = nullptr);

    void setTrials(const sweep::SweepPlan& plan, const std::vector<sweep::TrialRow>& views, const SweepAxes& axes,
                   std::optional<std::size_t> best);
    void clear();
    QCustomPlot& plot() { return *plot_; }
    QComboBox& parameterChoice() { return *parameter_; }
    int medianPointCount() const { return medians_; }

private:
    void redraw();
    void addTrialDots(const SweepAxis& axis, const std::string& name);
    void addMedians(const SweepAxis& axis, std::size_t axisIndex);  // per value of the axis, with their spread
    void addBestStar(const SweepAxis& axis, const std::string& name);

    QComboBox* parameter_ = nullptr;
    QCustomPlot* plot_ = nullptr;
    const sweep::SweepPlan* plan_ = nullptr;
    const std::vector<sweep::TrialRow>* views_ = nullptr;
    SweepAxes axes_;
    std::optional<std::size_t> best_;
    int medians_ = 0;
};

}  // namespace wb::gui
