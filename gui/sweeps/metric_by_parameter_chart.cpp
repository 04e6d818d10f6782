#include "gui/sweeps/metric_by_parameter_chart.h"

#include <qcustomplot.h>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "gui/charts/chart_style.h"
#include "sweep/sweep_report.h"

namespace wb::gui {

namespace {
// x of a value: the value itself on a numeric axis, its place in the list on a categorical one.
std::optional<double> xOf(const SweepAxis& axis, const nlohmann::json& value) {
    if (!axis.categorical) return value.is_number() ? std::optional<double>(value.get<double>()) : std::nullopt;
    const auto i = axis.categories.indexOf(QString::fromStdString(sweep::valueText(value)));
    return i < 0 ? std::nullopt : std::optional<double>(static_cast<double>(i));
}

void setXTicks(QCPAxis& x, const SweepAxis& axis) {
    if (axis.categorical) {
        QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
        for (int i = 0; i < axis.categories.size(); ++i) ticker->addTick(i, axis.categories[i]);
        x.setTicker(ticker);
        x.setScaleType(QCPAxis::stLinear);
    } else if (axis.labelsEachValue()) {  // a grid's values, each at its place (on a log scale too)
        QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
        for (double v : axis.values) ticker->addTick(v, QString::fromStdString(sweep::valueText(nlohmann::json(v))));
        ticker->setSubTickCount(0);
        x.setTicker(ticker);
        x.setScaleType(axis.log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    } else if (axis.log) {
        x.setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        x.setScaleType(QCPAxis::stLogarithmic);
    } else {
        x.setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        x.setScaleType(QCPAxis::stLinear);
    }
}

// Room around the points rescaleAxes() fitted, so that no dot or star sits on the axes' edges.
void padRanges(QCustomPlot& plot, bool logX) {
    const QCPRange x = plot.xAxis->range(), y = plot.yAxis->range();
    if (logX)
        plot.xAxis->setRange(x.lower / 1.5, x.upper * 1.5);
    else
        plot.xAxis->setRange(x.lower - std::max(0.5, x.size() * 0.08), x.upper + std::max(0.5, x.size() * 0.08));
    const double pad = y.size() > 0 ? y.size() * 0.1 : std::max(std::abs(y.lower) * 0.1, 0.01);
    plot.yAxis->setRange(y.lower - pad, y.upper + pad);
}
}  // namespace

MetricByParameterChart::MetricByParameterChart(QWidget* parent) : QWidget(parent) {
    parameter_ = new QComboBox;
    parameter_->setObjectName("sweepParameterChoice");
    plot_ = new QCustomPlot;
    plot_->setObjectName("metricByParameterPlot");
    applyChartStyle(*plot_, "Metric by parameter");
    auto* row = new QHBoxLayout;
    row->addWidget(new QLabel("Parameter:"));
    row->addWidget(parameter_);
    row->addStretch();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(row);
    layout->addWidget(plot_, 1);
    connect(parameter_, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
}

void MetricByParameterChart::clear() {
    plan_ = nullptr;
    views_ = nullptr;
    parameter_->clear();
    plot_->clearPlottables();
    plot_->replot();
}

void MetricByParameterChart::setTrials(const sweep::SweepPlan& plan, const std::vector<sweep::TrialRow>& views,
                                       const SweepAxes& axes, std::optional<std::size_t> best) {
    plan_ = &plan;
    views_ = &views;
    axes_ = axes;
    best_ = best;
    QStringList names;
    for (const auto& n : plan.parameterNames) names << QString::fromStdString(n);
    QStringList current;
    for (int i = 0; i < parameter_->count(); ++i) current << parameter_->itemText(i);
    if (current != names) {
        const QSignalBlocker block(parameter_);
        parameter_->clear();
        parameter_->addItems(names);
    }
    redraw();
}

void MetricByParameterChart::redraw() {
    plot_->clearPlottables();
    medians_ = 0;
    const int p = parameter_->currentIndex();
    if (!plan_ || !views_ || p < 0) {
        plot_->replot();
        return;
    }
    const std::size_t axisIndex = static_cast<std::size_t>(p);
    const SweepAxis& axis = axes_.axes()[axisIndex];
    const std::string name = plan_->parameterNames[axisIndex];
    addTrialDots(axis, name);
    addMedians(axis, axisIndex);
    addBestStar(axis, name);
    setXTicks(*plot_->xAxis, axis);
    plot_->xAxis->setLabel(QString::fromStdString(name));
    plot_->yAxis->setLabel(QString::fromStdString(plan_->metric.name));
    plot_->rescaleAxes();
    padRanges(*plot_, axis.log);
    plot_->replot();
}

void MetricByParameterChart::addTrialDots(const SweepAxis& axis, const std::string& name) {
    auto* dots = plot_->addGraph();
    dots->setName("trials");
    dots->setLineStyle(QCPGraph::lsNone);
    dots->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(120, 120, 120, 160), 6));
    for (const auto& v : *views_)
        if (const auto x = xOf(axis, v.trial->parameters.value(name, nlohmann::json())); x && v.metric)
            dots->addData(*x, *v.metric);
}

void MetricByParameterChart::addMedians(const SweepAxis& axis, std::size_t axisIndex) {
    const auto report = sweep::makeReport(*plan_, *views_);
    auto* medians = plot_->addGraph();
    medians->setName("median (bars: min to max)");
    medians->setPen(QPen(QColor(31, 119, 180), 2));
    medians->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(31, 119, 180), 8));
    auto* spread = new QCPErrorBars(plot_->xAxis, plot_->yAxis);
    spread->removeFromLegend();
    spread->setDataPlottable(medians);
    spread->setPen(QPen(QColor(31, 119, 180), 1.5));
    QVector<double> xs, ys, minus, plus;
    for (const auto& e : report.effects[axisIndex].values) {
        const auto x = xOf(axis, e.value);
        if (!x || !e.median) continue;
        xs << *x;
        ys << *e.median;
        minus << *e.median - *e.min;
        plus << *e.max - *e.median;
    }
    medians->setData(xs, ys, true);
    spread->setData(minus, plus);
    medians_ = static_cast<int>(xs.size());
}

void MetricByParameterChart::addBestStar(const SweepAxis& axis, const std::string& name) {
    if (!best_) return;
    const auto& b = (*views_)[*best_];
    const auto x = xOf(axis, b.trial->parameters.value(name, nlohmann::json()));
    if (!x || !b.metric) return;
    auto* star = plot_->addGraph();
    star->setName("best trial");
    star->setLineStyle(QCPGraph::lsNone);
    star->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssStar, QPen(QColor(214, 39, 40), 2), Qt::NoBrush, 16));
    star->addData(*x, *b.metric);
}

}  // namespace wb::gui
