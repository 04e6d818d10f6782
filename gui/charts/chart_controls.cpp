#include "gui/charts/chart_controls.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QTabWidget>
#include <QToolButton>

namespace wb::gui {

namespace {
constexpr int kSmoothingSteps = 99;  // the slider counts hundredths: 0 .. 0.99, as TensorBoard's
}  // namespace

ChartControls::ChartControls(QWidget* parent) : QWidget(parent) {
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(4, 0, 4, 0);
    row->setSpacing(8);
    buildSmoothing();
    buildAxes();
    buildQuality();
    buildRepeats();
    row->addWidget(new QLabel("Smoothing"));
    row->addWidget(smoothing_);
    row->addWidget(smoothingValue_);
    row->addSpacing(8);
    row->addWidget(xAxis_);
    row->addWidget(quality_);
    row->addWidget(repeats_);
    row->addWidget(logLoss_);
    row->addWidget(logTime_);
    row->addWidget(legend_);
    row->addWidget(resetZoom_);
}

void ChartControls::buildSmoothing() {
    smoothing_ = new QSlider(Qt::Horizontal);
    smoothing_->setObjectName("smoothingSlider");
    smoothing_->setRange(0, kSmoothingSteps);
    smoothing_->setFixedWidth(110);
    smoothing_->setToolTip(
        "Smoothing as in TensorBoard: an exponential moving average, debiased so the first "
        "points are not pulled towards zero. The raw curve stays faint behind the smoothed one.");
    smoothingValue_ = new QLabel("0.00");
    smoothingValue_->setMinimumWidth(smoothingValue_->fontMetrics().horizontalAdvance("0.00") + 2);
    connect(smoothing_, &QSlider::valueChanged, this, [this] {
        smoothingValue_->setText(QString::number(smoothing(), 'f', 2));
        for (const auto& chart : charts_)
            if (chart) chart->setSmoothing(smoothing());
    });
}

void ChartControls::buildAxes() {
    xAxis_ = new QComboBox;
    xAxis_->setObjectName("xAxisBox");
    xAxis_->addItem("X: epoch", static_cast<int>(XAxis::Epoch));
    xAxis_->addItem("X: elapsed time", static_cast<int>(XAxis::ElapsedTime));
    xAxis_->addItem("X: samples seen", static_cast<int>(XAxis::SamplesSeen));
    xAxis_->setItemData(2,
                        "Epoch × training rows. A run whose record does not say its training rows (some peer "
                        "scripts) is drawn by epoch instead; its line in the hover label says so.",
                        Qt::ToolTipRole);
    xAxis_->setToolTip("What the x axis of the loss, accuracy and epoch-time charts counts");
    connect(xAxis_, &QComboBox::currentIndexChanged, this, &ChartControls::applyToAll);

    logLoss_ = new QCheckBox("Log loss");
    logLoss_->setToolTip("A logarithmic value axis for the loss chart: a loss falling over decades, or a diverged run");
    logTime_ = new QCheckBox("Log time");
    logTime_->setToolTip("A logarithmic value axis for the epoch-time chart");
    legend_ = new QCheckBox("Legend");
    legend_->setChecked(true);
    legend_->setToolTip("Show the legend; a click on a run in it hides or shows the run");
    for (QCheckBox* box : {logLoss_, logTime_, legend_})
        connect(box, &QCheckBox::toggled, this, &ChartControls::applyToAll);

    resetZoom_ = new QToolButton;
    resetZoom_->setText("Reset zoom");
    resetZoom_->setToolTip(
        "Show all data again and follow new points (drag a box to zoom, Ctrl+drag to pan, "
        "double-click to reset)");
    connect(resetZoom_, &QToolButton::clicked, this, [this] {
        for (const auto& chart : charts_)
            if (chart) chart->fitToData();
    });
}

void ChartControls::addChart(MetricChart* chart) {
    charts_.emplace_back(chart);
    apply(chart);
    connect(chart, &MetricChart::zoomChanged, this, &ChartControls::showZoomState);
    showZoomState();
}

void ChartControls::followTabs(QTabWidget* tabs) {
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);  // one row; the chart takes the rest
    const auto placeAbove = [this](QWidget* page) {
        auto* chart = qobject_cast<MetricChart*>(page);
        auto* column = chart ? qobject_cast<QBoxLayout*>(chart->layout()) : nullptr;
        if (!column) return;
        column->insertWidget(0, this);
        show();  // a new parent hides a widget until it is shown again
    };
    connect(tabs, &QTabWidget::currentChanged, this,
            [tabs, placeAbove](int index) { placeAbove(tabs->widget(index)); });
    if (!charts_.empty()) placeAbove(charts_.front());
}

// "Reset zoom" is there to press while some chart shows a part of its data.
void ChartControls::showZoomState() {
    bool zoomed = false;
    for (const auto& chart : charts_) zoomed = zoomed || (chart && chart->userZoomed());
    resetZoom_->setEnabled(zoomed);
}

double ChartControls::smoothing() const {
    return smoothing_->value() / 100.0;
}

// Accuracy means nothing for a regression: by default the chart follows the task of the newest run
// (R² for a regression); the user may pin a metric, e.g. the MAE, in the target's own units.
void ChartControls::buildQuality() {
    quality_ = new QComboBox;
    quality_->setObjectName("qualityBox");
    quality_->addItem("Metric: by task", -1);
    quality_->addItem("Metric: accuracy", static_cast<int>(MetricChart::Quality::Accuracy));
    quality_->addItem("Metric: R\u00b2", static_cast<int>(MetricChart::Quality::R2));
    quality_->addItem("Metric: MAE", static_cast<int>(MetricChart::Quality::Mae));
    quality_->setToolTip(
        "What the accuracy chart shows: accuracy for classification runs, R\u00b2 or the mean "
        "absolute error for regression runs; by task follows the newest run shown");
    connect(quality_, &QComboBox::currentIndexChanged, this, &ChartControls::applyToAll);
}

// Repeats of one configuration (Run and Compare with Repeats > 1) drawn each alone, or as one line
// with a band, as the Speedup chart already groups them.
void ChartControls::buildRepeats() {
    repeats_ = new QComboBox;
    repeats_->setObjectName("repeatsBox");
    repeats_->addItem("Repeats: each run", static_cast<int>(MetricChart::Repeats::EachRun));
    repeats_->addItem("Repeats: median, min\u2013max", static_cast<int>(MetricChart::Repeats::MedianRange));
    repeats_->addItem("Repeats: mean, 95 % CI", static_cast<int>(MetricChart::Repeats::MeanInterval));
    repeats_->setToolTip(
        "Runs that repeat one configuration (the same settings, names ending in \u00b7 k/n): each as its own "
        "line, or one line per configuration with a band over its repeats, epoch by epoch");
    connect(repeats_, &QComboBox::currentIndexChanged, this, &ChartControls::applyToAll);
}

void ChartControls::apply(MetricChart* chart) const {
    if (chart->kind() == MetricChart::Kind::Accuracy) {
        const int q = quality_->currentData().toInt();
        chart->setQuality(q < 0 ? std::nullopt : std::optional(static_cast<MetricChart::Quality>(q)));
    }
    chart->setSmoothing(smoothing());
    chart->setRepeats(static_cast<MetricChart::Repeats>(repeats_->currentData().toInt()));
    chart->setXAxis(static_cast<XAxis>(xAxis_->currentData().toInt()));
    if (chart->kind() == MetricChart::Kind::Loss) chart->setLogScale(logLoss_->isChecked());
    if (chart->kind() == MetricChart::Kind::EpochTime) chart->setLogScale(logTime_->isChecked());
    chart->setLegendShown(legend_->isChecked());
}

void ChartControls::applyToAll() {
    for (const auto& chart : charts_)
        if (chart) apply(chart);
}

}  // namespace wb::gui
