#include "metric_chart.h"

#include <QToolTip>
#include <algorithm>
#include <limits>

#include <qcustomplot.h>

#include "chart_style.h"
#include "run_store.h"

namespace wb::gui {

namespace {
constexpr double kHoverRadiusPx = 24.0;
constexpr double kLineWidth = 2.0;

// Where each epoch sits on the x axis. By time: the recorded elapsed time, or, where a file lacks
// it (older peers write none), the running sum of the epochs' wall times, so keys always ascend.
std::vector<double> xKeys(const std::vector<EpochMetrics>& epochs, bool byTime) {
    std::vector<double> keys;
    keys.reserve(epochs.size());
    const bool haveElapsed = std::all_of(epochs.begin(), epochs.end(), [](const auto& e) { return e.elapsedMs > 0; });
    double sumMs = 0;
    for (const EpochMetrics& e : epochs) {
        sumMs += e.wallMs;
        keys.push_back(!byTime ? e.epoch : (haveElapsed ? e.elapsedMs : sumMs) / 1000.0);
    }
    return keys;
}

bool hasValidation(const RunEntry& run) {
    return std::any_of(run.record.epochs.begin(), run.record.epochs.end(),
                       [](const EpochMetrics& e) { return e.valLoss.has_value() || e.valAccuracy.has_value(); });
}

bool hasWarmup(const RunEntry& run) {
    return std::any_of(run.record.epochs.begin(), run.record.epochs.end(),
                       [](const EpochMetrics& e) { return e.warmup; });
}

QCPScatterStyle hollowCircle(const QColor& color) {
    return QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(color, kLineWidth), QBrush(Qt::white), 9);
}
}  // namespace

std::vector<double> smoothExponential(const std::vector<double>& values, double factor) {
    const double f = std::clamp(factor, 0.0, 0.99);
    std::vector<double> out = values;
    for (std::size_t i = 1; i < out.size(); ++i) out[i] = f * out[i - 1] + (1.0 - f) * values[i];
    return out;
}

MetricChart::MetricChart(RunStore* store, Kind kind, QWidget* parent) : ThrottledChart(store, parent), kind_(kind) {
    title_ = applyChartStyle(plot(), title());
    placeholder_ = addPlaceholder(plot(), "No runs to show yet: press Run, or open RunRecord files");
    plot().yAxis->setLabel(kind_ == Kind::Loss       ? "Loss"
                           : kind_ == Kind::Accuracy ? "Accuracy (%)"
                                                     : "Wall time per epoch (ms)");
    applyAxisModes();

    plot().setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot().setMouseTracking(true);  // hover tool tips without a pressed button
    connect(&plot(), &QCustomPlot::mouseMove, this, &MetricChart::showHoverTip);
    connect(&plot(), &QCustomPlot::mousePress, this, [this] { autoFit_ = false; });
    connect(&plot(), &QCustomPlot::mouseWheel, this, [this] { autoFit_ = false; });
    connect(&plot(), &QCustomPlot::mouseDoubleClick, this, &MetricChart::fitToData);
    markAllDirty();
}

MetricChart::~MetricChart() = default;

QString MetricChart::title() const {
    switch (kind_) {
        case Kind::Loss: return "Loss";
        case Kind::Accuracy: return "Accuracy";
        case Kind::EpochTime: return "Wall time per epoch";
    }
    return {};
}

int MetricChart::graphCount() const {
    int n = 0;
    for (const RunGraphs& g : graphs_) n += (g.train ? 1 : 0) + (g.validation ? 1 : 0);
    return n;
}

int MetricChart::pointCount(int runId) const {
    for (const RunGraphs& g : graphs_)
        if (g.runId == runId && g.train) return g.train->dataCount();
    return 0;
}

void MetricChart::setXAxisByTime(bool byTime) {
    if (byTime_ == byTime) return;
    byTime_ = byTime;
    applyAxisModes();
    autoFit_ = true;  // the old x range means nothing on the new axis
    markAllDirty();
}

void MetricChart::setLogScale(bool on) {
    if (logScale_ == on) return;
    logScale_ = on;
    applyAxisModes();
    autoFit_ = true;
    markAllDirty();  // values <= 0 have no place on a log axis: the data is filtered anew
}

void MetricChart::setSmoothing(double factor) {
    const double f = std::clamp(factor, 0.0, 0.99);
    if (f == smoothing_) return;
    smoothing_ = f;
    markAllDirty();
}

void MetricChart::fitToData() {
    autoFit_ = true;
    fitAxes();
    replot();
}

void MetricChart::runTouched(int runId) {
    dirty_.insert(runId);
    scheduleRefresh();
}

void MetricChart::markAllDirty() {
    allDirty_ = true;
    scheduleRefresh();
}

void MetricChart::refresh() {
    std::vector<RunShape> shape = currentShape();
    if (shape != shape_) {
        shape_ = std::move(shape);
        rebuildGraphs();
    }
    for (RunGraphs& g : graphs_) {
        if (!allDirty_ && !dirty_.count(g.runId)) continue;
        if (const RunEntry* run = store().find(g.runId)) fillGraphs(g, *run);
    }
    dirty_.clear();
    allDirty_ = false;
    placeholder_->setVisible(graphs_.empty());
    if (autoFit_) fitAxes();
    replot();
}

std::vector<MetricChart::RunShape> MetricChart::currentShape() const {
    std::vector<RunShape> shape;
    for (const RunEntry& run : store().runs()) {
        if (!run.visible) continue;
        shape.push_back({run.id, run.name, run.color, kind_ != Kind::EpochTime && hasValidation(run),
                         kind_ == Kind::EpochTime && hasWarmup(run)});
    }
    return shape;
}

// Rebuilt as a whole (rare: a run added, removed, hidden, renamed), so the legend keeps the
// runs table's order. The legend names each run once (its colour); two grey keys say which line
// style is train and which validation, so long run names still fit side by side.
void MetricChart::rebuildGraphs() {
    plot().clearGraphs();
    graphs_.clear();
    warmupKey_ = nullptr;
    bool anyValidation = false;
    for (const RunShape& s : shape_) {
        const RunEntry* run = store().find(s.id);
        if (!run) continue;
        RunGraphs g;
        g.runId = s.id;
        g.train = addLineGraph(*run, run->name, Qt::SolidLine);
        if (s.validation) {
            g.validation = addLineGraph(*run, run->name + " (validation)", Qt::DashLine);
            g.validation->removeFromLegend();
            anyValidation = true;
        }
        graphs_.push_back(std::move(g));
    }
    if (anyValidation) addLineStyleKeys();
    // Markers after all lines, so no line is drawn over a marker.
    bool anyWarmup = false;
    for (std::size_t i = 0; i < graphs_.size(); ++i) {
        if (!shape_[i].warmup) continue;
        graphs_[i].warmup = addWarmupMarker(*store().find(shape_[i].id));
        anyWarmup = true;
    }
    if (anyWarmup) addWarmupLegendKey();
    allDirty_ = true;
}

QCPGraph* MetricChart::addLineGraph(const RunEntry& run, const QString& name, Qt::PenStyle style) {
    QCPGraph* graph = plot().addGraph();
    QPen pen(run.color, kLineWidth, style);
    pen.setCapStyle(Qt::FlatCap);
    graph->setPen(pen);
    graph->setName(name);
    graph->setAntialiased(true);
    return graph;
}

QCPGraph* MetricChart::addWarmupMarker(const RunEntry& run) {
    QCPGraph* graph = plot().addGraph();
    graph->setLineStyle(QCPGraph::lsNone);
    graph->setScatterStyle(hollowCircle(run.color));
    graph->setName(run.name + " (warm-up)");
    graph->removeFromLegend();
    return graph;
}

// Two legend entries explain the line styles for all runs: solid train, dashed validation.
void MetricChart::addLineStyleKeys() {
    for (const auto& [name, style] : {std::pair{"train", Qt::SolidLine}, std::pair{"validation", Qt::DashLine}}) {
        QCPGraph* key = plot().addGraph();
        QPen pen(QColor(90, 90, 90), kLineWidth, style);
        pen.setCapStyle(Qt::FlatCap);
        key->setPen(pen);
        key->setName(name);
    }
}

// One legend entry explains the hollow circle for all runs.
void MetricChart::addWarmupLegendKey() {
    warmupKey_ = plot().addGraph();
    warmupKey_->setLineStyle(QCPGraph::lsNone);
    warmupKey_->setScatterStyle(hollowCircle(QColor(90, 90, 90)));
    warmupKey_->setName("warm-up epoch (excluded from medians)");
}

void MetricChart::fillGraphs(RunGraphs& graphs, const RunEntry& run) const {
    fillGraph(graphs.train, graphs.trainEpochs, run, false);
    if (graphs.validation) fillGraph(graphs.validation, graphs.validationEpochs, run, true);
    if (!graphs.warmup) return;
    // The marker sits on the raw value of each warm-up epoch, smoothed or not.
    const std::vector<double> x = xKeys(run.record.epochs, byTime_);
    QVector<double> keys, values;
    for (std::size_t i = 0; i < run.record.epochs.size(); ++i) {
        const EpochMetrics& e = run.record.epochs[i];
        const auto v = valueOf(e, false);
        if (!e.warmup || !v || (logScale_ && *v <= 0)) continue;
        keys.push_back(x[i]);
        values.push_back(*v);
    }
    graphs.warmup->setData(keys, values, true);
}

void MetricChart::fillGraph(QCPGraph* graph, std::vector<std::size_t>& epochIndex, const RunEntry& run,
                            bool validation) const {
    const std::vector<EpochMetrics>& epochs = run.record.epochs;
    const std::vector<double> x = xKeys(epochs, byTime_);
    std::vector<double> keys, values;
    epochIndex.clear();
    for (std::size_t i = 0; i < epochs.size(); ++i) {
        const auto v = valueOf(epochs[i], validation);
        if (!v || (logScale_ && *v <= 0)) continue;
        keys.push_back(x[i]);
        values.push_back(*v);
        epochIndex.push_back(i);
    }
    values = smoothExponential(values, smoothing_);
    graph->setData(QVector<double>(keys.begin(), keys.end()), QVector<double>(values.begin(), values.end()), true);
}

std::optional<double> MetricChart::valueOf(const EpochMetrics& epoch, bool validation) const {
    switch (kind_) {
        case Kind::Loss: return validation ? epoch.valLoss : std::optional<double>(epoch.trainLoss);
        case Kind::Accuracy:
            if (validation) return epoch.valAccuracy ? std::optional<double>(*epoch.valAccuracy * 100) : std::nullopt;
            return epoch.trainAccuracy * 100;
        case Kind::EpochTime: return validation ? std::nullopt : std::optional<double>(epoch.wallMs);
    }
    return std::nullopt;
}

void MetricChart::fitAxes() {
    if (graphs_.empty()) return;
    plot().rescaleAxes(true);
    // A little air around the data, so the extreme points and markers are not cut by the frame.
    plot().xAxis->scaleRange(1.04, plot().xAxis->range().center());
    plot().yAxis->scaleRange(1.12, plot().yAxis->range().center());
    // Times start at zero on a linear axis, so the heights of two runs compare as their ratio.
    if (!logScale_ && (kind_ == Kind::EpochTime || plot().yAxis->range().lower < 0)) plot().yAxis->setRangeLower(0);
}

void MetricChart::applyAxisModes() {
    plot().xAxis->setLabel(byTime_ ? "Elapsed time (s)" : "Epoch");
    if (byTime_) {
        plot().xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    } else {
        auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();  // whole epochs only
        ticker->setTickStep(1.0);
        ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
        plot().xAxis->setTicker(ticker);
    }
    plot().yAxis->setScaleType(logScale_ ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (logScale_) {
        auto ticker = QSharedPointer<QCPAxisTickerLog>::create();
        ticker->setLogBase(10);
        plot().yAxis->setTicker(ticker);
        plot().yAxis->setNumberFormat("g");  // 10, 100, 1000 rather than 10^2
    } else {
        plot().yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
        plot().yAxis->setNumberFormat("gbd");
    }
}

QString MetricChart::formatValue(double value) const {
    switch (kind_) {
        case Kind::Loss: return QString::number(value, 'f', 4);
        case Kind::Accuracy: return QString::number(value, 'f', 2) + " %";
        case Kind::EpochTime: return QString::number(value, 'f', value >= 100 ? 0 : (value >= 10 ? 1 : 2)) + " ms";
    }
    return {};
}

void MetricChart::showHoverTip(QMouseEvent* event) {
    if (event->buttons() != Qt::NoButton) return;  // dragging: no tips in the way
    const HoverHit hit = nearestPoint(event->position());
    if (!hit.graphs) {
        QToolTip::hideText();
        return;
    }
    QToolTip::showText(event->globalPosition().toPoint(), hoverText(hit), &plot());
}

MetricChart::HoverHit MetricChart::nearestPoint(const QPointF& pixel) const {
    HoverHit best;
    double bestDistance = kHoverRadiusPx * kHoverRadiusPx;
    for (const RunGraphs& g : graphs_) {
        for (const QCPGraph* graph : {g.train, g.validation}) {
            if (!graph) continue;
            int index = 0;
            for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it, ++index) {
                const double dx = graph->keyAxis()->coordToPixel(it->key) - pixel.x();
                const double dy = graph->valueAxis()->coordToPixel(it->value) - pixel.y();
                if (dx * dx + dy * dy < bestDistance) {
                    bestDistance = dx * dx + dy * dy;
                    best = {&g, graph, index};
                }
            }
        }
    }
    return best;
}

QString MetricChart::hoverText(const HoverHit& hit) const {
    const RunEntry* run = store().find(hit.graphs->runId);
    const bool validation = hit.graph == hit.graphs->validation;
    const auto& index = validation ? hit.graphs->validationEpochs : hit.graphs->trainEpochs;
    if (!run || hit.point < 0 || static_cast<std::size_t>(hit.point) >= index.size()) return {};
    const std::size_t i = index[static_cast<std::size_t>(hit.point)];
    if (i >= run->record.epochs.size()) return {};
    const EpochMetrics& epoch = run->record.epochs[i];

    QString text = "<b>" + run->name.toHtmlEscaped() + "</b>";
    if (hit.graphs->validation) text += validation ? " (validation)" : " (train)";
    text += QString("<br>epoch %1").arg(epoch.epoch);
    if (epoch.warmup) text += " (warm-up, excluded from medians)";
    if (byTime_) text += QString("<br>at %1 s").arg(hit.graph->data()->at(hit.point)->key, 0, 'f', 2);
    const double raw = valueOf(epoch, validation).value_or(0.0);
    text += "<br>" + title().toLower() + ": " + formatValue(raw);
    if (smoothing_ > 0) text += " (smoothed " + formatValue(hit.graph->data()->at(hit.point)->value) + ")";
    return text;
}

}  // namespace wb::gui
