#include "gui/sweeps/parallel_coordinates_chart.h"

#include <qcustomplot.h>
#include <QVBoxLayout>

#include "gui/charts/chart_style.h"
#include "sweep/sweep_report.h"

namespace wb::gui {

namespace {
constexpr double kAxisGrab = 0.18;  // how near an axis (in axis spacings) a drag starts a brush
const QColor kOutside(205, 205, 205);
const QColor kNoMetric(150, 150, 150);

constexpr const char* kLabelLayer = "axisLabels";  // above the trials' lines, so labels stay legible

// A value read off an axis: a metric as the report shows figures (4 significant digits), a
// parameter as the table shows values.
QString tickText(const SweepAxes& axes, std::size_t axis, double t) {
    const double v = axes.valueAt(axis, t);
    return QString::fromStdString(axes.axes()[axis].metric ? sweep::figureText(v)
                                                           : sweep::valueText(nlohmann::json(v)));
}
}  // namespace

ParallelCoordinatesChart::ParallelCoordinatesChart(QWidget* parent) : QWidget(parent) {
    plot_ = new QCustomPlot(this);
    plot_->setObjectName("parallelCoordinatesPlot");
    applyChartStyle(*plot_, "Trials across their parameters", LegendPlace::None);
    scale_ = new QCPColorScale(plot_);
    plot_->plotLayout()->addElement(plot_->plotLayout()->rowCount() - 1, 1, scale_);
    scale_->setBarWidth(12);
    auto* group = new QCPMarginGroup(plot_);
    plot_->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, group);
    scale_->setMarginGroup(QCP::msBottom | QCP::msTop, group);
    plot_->addLayer(kLabelLayer, plot_->layer("main"), QCustomPlot::limAbove);
    plot_->yAxis->setRange(-0.06, 1.06);
    plot_->yAxis->setTicks(false);
    plot_->yAxis->setTickLabels(false);
    plot_->yAxis->grid()->setVisible(false);
    plot_->xAxis->grid()->setVisible(false);
    plot_->yAxis->setBasePen(Qt::NoPen);
    plot_->xAxis->setBasePen(Qt::NoPen);
    plot_->xAxis->setTickPen(Qt::NoPen);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    connect(plot_, &QCustomPlot::mousePress, this, &ParallelCoordinatesChart::pressed);
    connect(plot_, &QCustomPlot::mouseMove, this, &ParallelCoordinatesChart::moved);
    connect(plot_, &QCustomPlot::mouseRelease, this, &ParallelCoordinatesChart::released);
    connect(plot_, &QCustomPlot::mouseDoubleClick, this, &ParallelCoordinatesChart::doubleClicked);
    setToolTip("Drag along an axis to keep only the trials inside; double-click the axis to let all through.");
}

void ParallelCoordinatesChart::drawAxes(const SweepAxes& axes) {
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (std::size_t a = 0; a < axes.size(); ++a) {
        const auto& axis = axes.axes()[a];
        ticker->addTick(static_cast<double>(a), axis.name + (axis.log ? " (log)" : ""));
        auto* line = new QCPItemLine(plot_);
        line->start->setCoords(static_cast<double>(a), 0);
        line->end->setCoords(static_cast<double>(a), 1);
        line->setPen(QPen(QColor(90, 90, 90), 1.5));
        auto label = [&](double t, const QString& text) {
            auto* item = new QCPItemText(plot_);
            item->position->setCoords(static_cast<double>(a) + 0.03, t);
            item->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
            item->setText(text);
            item->setFont(QFont(font().family(), 8));
            item->setColor(QColor(60, 60, 60));
            item->setBrush(QColor(255, 255, 255, 200));
            item->setPadding(QMargins(2, 0, 2, 0));
            item->setLayer(kLabelLayer);
            item->setClipToAxisRect(false);
        };
        if (axis.categorical) {
            for (int i = 0; i < axis.categories.size(); ++i)
                label(axis.categories.size() == 1
                          ? 0.5
                          : static_cast<double>(i) / static_cast<double>(axis.categories.size() - 1),
                      axis.categories[i]);
        } else if (axis.labelsEachValue()) {
            for (double v : axis.values)  // a grid's values, each where its trials cross the axis
                label(axis.max > axis.min ? (axis.log ? std::log(v / axis.min) / std::log(axis.max / axis.min)
                                                      : (v - axis.min) / (axis.max - axis.min))
                                          : 0.5,
                      QString::fromStdString(sweep::valueText(nlohmann::json(v))));
        } else if (axis.max > axis.min) {
            for (double t : {0.0, 0.25, 0.5, 0.75, 1.0}) label(t, tickText(axes, a, t));
        } else if (axis.max == axis.min && (axis.max != 0 || !axis.metric)) {
            label(0.5, tickText(axes, a, 0));
        }
    }
    plot_->xAxis->setTicker(ticker);
    plot_->xAxis->setRange(-0.25, static_cast<double>(axes.size()) - 0.6);
}

void ParallelCoordinatesChart::setTrials(const SweepAxes& axes, const std::vector<sweep::TrialRow>& views,
                                         const sweep::Metric& metric, std::optional<std::size_t> best,
                                         const std::vector<bool>& inside, const std::vector<bool>& selected,
                                         const Brushes& brushes) {
    plot_->clearPlottables();
    plot_->clearItems();
    brushes_.clear();
    axisCount_ = axes.size();
    drawAxes(axes);
    const SweepAxis& metricAxis = axes.axes().back();
    QCPColorGradient gradient(QCPColorGradient::gpJet);
    if (metric.goal == sweep::Goal::Minimize) gradient = gradient.inverted();  // the best end is red
    scale_->setGradient(gradient);
    scale_->setDataRange(
        QCPRange(metricAxis.min, metricAxis.max > metricAxis.min ? metricAxis.max : metricAxis.min + 1));
    scale_->axis()->setLabel(QString::fromStdString(metric.name));
    lines_ = 0;
    // Drawn back to front: the greyed ones, the coloured ones, the selected, the best.
    auto layerOf = [&](std::size_t i) {
        if (best && *best == i) return 3;
        if (!inside[i]) return 0;
        return selected[i] ? 2 : 1;
    };
    for (int layer = 0; layer <= 3; ++layer)
        for (std::size_t i = 0; i < views.size(); ++i) {
            if (layerOf(i) != layer) continue;
            auto* curve = new QCPCurve(plot_->xAxis, plot_->yAxis);
            for (std::size_t a = 0; a < axes.size(); ++a)
                if (const auto p = axes.position(a, views[i]))
                    curve->addData(static_cast<double>(a), static_cast<double>(a), *p);
            QColor color = views[i].metric ? gradient.color(*views[i].metric, scale_->dataRange()) : kNoMetric;
            if (!inside[i]) color = kOutside;
            const double width = layer == 3 ? 4.0 : layer == 2 ? 2.6 : 1.4;
            curve->setPen(QPen(color, width, views[i].metric ? Qt::SolidLine : Qt::DashLine));
            curve->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, 4));
            curve->setName(QString::fromStdString(views[i].trial->name));
            ++lines_;
        }
    if (best) {  // the best trial named at the metric axis
        if (const auto p = axes.position(axes.size() - 1, views[*best])) {
            auto* text = new QCPItemText(plot_);
            text->position->setCoords(static_cast<double>(axes.size() - 1) - 0.04, *p);
            text->setPositionAlignment(Qt::AlignRight | Qt::AlignVCenter);
            text->setText("best \u2605");
            text->setFont(QFont(font().family(), 9, QFont::Bold));
        }
    }
    for (const auto& [axis, range] : brushes)
        if (axis < axisCount_) drawBrush(axis, range.first, range.second);
    plot_->replot();
}

std::optional<std::size_t> ParallelCoordinatesChart::axisAt(double pixelX) const {
    const double x = plot_->xAxis->pixelToCoord(pixelX);
    const double nearest = std::round(x);
    if (nearest < 0 || nearest >= static_cast<double>(axisCount_) || std::abs(x - nearest) > kAxisGrab)
        return std::nullopt;
    return static_cast<std::size_t>(nearest);
}

void ParallelCoordinatesChart::drawBrush(std::size_t axis, double lo, double hi) {
    QCPItemRect*& rect = brushes_[axis];
    if (!rect) {
        rect = new QCPItemRect(plot_);
        rect->setPen(QPen(QColor(30, 30, 30), 1));
        rect->setBrush(QColor(60, 120, 220, 50));
    }
    rect->topLeft->setCoords(static_cast<double>(axis) - 0.06, std::max(lo, hi));
    rect->bottomRight->setCoords(static_cast<double>(axis) + 0.06, std::min(lo, hi));
}

void ParallelCoordinatesChart::brush(std::size_t axis, double lo, double hi) {
    if (axis >= axisCount_) return;
    drawBrush(axis, lo, hi);
    plot_->replot();
    emit brushChanged(axis, std::min(lo, hi), std::max(lo, hi));
}

void ParallelCoordinatesChart::clearBrushes() {
    std::vector<std::size_t> cleared;
    for (auto& [axis, rect] : brushes_) {
        plot_->removeItem(rect);
        cleared.push_back(axis);
    }
    brushes_.clear();
    plot_->replot();
    for (std::size_t axis : cleared) emit brushCleared(axis);  // the table shows those trials again
}

void ParallelCoordinatesChart::pressed(QMouseEvent* event) {
    dragAxis_ = axisAt(event->position().x());
    if (dragAxis_) dragStart_ = std::clamp(plot_->yAxis->pixelToCoord(event->position().y()), 0.0, 1.0);
}

void ParallelCoordinatesChart::moved(QMouseEvent* event) {
    if (!dragAxis_ || !(event->buttons() & Qt::LeftButton)) return;
    drawBrush(*dragAxis_, dragStart_, std::clamp(plot_->yAxis->pixelToCoord(event->position().y()), 0.0, 1.0));
    plot_->replot();
}

void ParallelCoordinatesChart::released(QMouseEvent* event) {
    if (!dragAxis_) return;
    const std::size_t axis = *dragAxis_;
    dragAxis_.reset();
    const double end = std::clamp(plot_->yAxis->pixelToCoord(event->position().y()), 0.0, 1.0);
    if (std::abs(end - dragStart_) < 0.01) return;  // a click, not a drag
    brush(axis, dragStart_, end);
}

void ParallelCoordinatesChart::doubleClicked(QMouseEvent* event) {
    const auto axis = axisAt(event->position().x());
    if (!axis || !brushes_.count(*axis)) return;
    plot_->removeItem(brushes_[*axis]);
    brushes_.erase(*axis);
    plot_->replot();
    emit brushCleared(*axis);
}

}  // namespace wb::gui
