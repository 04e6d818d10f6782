// The controls of the metric charts in one row, in the words TensorBoard and W&B users know:
// a smoothing slider (0 to 0.99), what the x axis counts, log scales for loss and epoch time, the
// legend on or off, and a reset of the zoom. One row drives every chart added to it, so the Loss,
// Accuracy and Epoch-time tabs always agree.
#pragma once

#include <QPointer>
#include <QWidget>
#include <vector>

#include "gui/charts/metric_chart.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QSlider;
class QTabWidget;
class QToolButton;

namespace wb::gui {

class ChartControls : public QWidget {
    Q_OBJECT

public:
    explicit ChartControls(QWidget* parent = nullptr);

    // `chart` follows these controls from now on, starting with their current settings.
    void addChart(MetricChart* chart);
    // The row sits at the top of whichever of its charts `tabs` shows (one widget, moved with the
    // tab): next to what it changes. Starts on the first chart added.
    void followTabs(QTabWidget* tabs);

    // For tests and the window: the controls themselves.
    QSlider* smoothingSlider() const { return smoothing_; }
    QComboBox* xAxisBox() const { return xAxis_; }
    QComboBox* qualityBox() const { return quality_; }  // the Accuracy chart's metric
    QComboBox* repeatsBox() const { return repeats_; }
    QCheckBox* logLossBox() const { return logLoss_; }
    QCheckBox* logTimeBox() const { return logTime_; }
    QCheckBox* legendBox() const { return legend_; }
    QToolButton* resetZoomButton() const { return resetZoom_; }

private:
    void buildSmoothing();
    void buildAxes();
    void buildQuality();
    void buildRepeats();
    void apply(MetricChart* chart) const;
    void applyToAll();
    void showZoomState();
    double smoothing() const;

    std::vector<QPointer<MetricChart>> charts_;
    QSlider* smoothing_ = nullptr;
    QLabel* smoothingValue_ = nullptr;
    QComboBox* xAxis_ = nullptr;
    QComboBox* quality_ = nullptr;
    QComboBox* repeats_ = nullptr;  // MetricChart::Repeats
    QCheckBox* logLoss_ = nullptr;
    QCheckBox* logTime_ = nullptr;
    QCheckBox* legend_ = nullptr;
    QToolButton* resetZoom_ = nullptr;
};

}  // namespace wb::gui
