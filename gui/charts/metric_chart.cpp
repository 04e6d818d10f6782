#include "gui/charts/metric_chart.h"

#include <QLocale>
#include <algorithm>
#include <cmath>
#include <map>

#include <qcustomplot.h>

#include "gui/charts/chart_interaction.h"
#include "gui/charts/chart_legend.h"
#include "gui/charts/chart_pens.h"
#include "gui/charts/chart_style.h"
#include "gui/runs/run_store.h"

namespace wb::gui {

namespace {
constexpr double kLineWidth = 2.0;
// A run with fewer points than this draws them as markers too: one point makes no line at all.
constexpr int kMarkersBelowPoints = 3;
// Hidden runs the legend names (the newest; one grey line counts the others): with ten thousand
// runs restored, an entry each made every replot lay out ten thousand legend items.
constexpr std::size_t kHiddenInLegend = 24;
const QColor kKeyGrey(90, 90, 90);

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

std::vector<double> valuesOf(const QCPGraph* graph) {
    std::vector<double> values;
    if (!graph) return values;
    for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it) values.push_back(it->value);
    return values;
}

// [lower, upper] of all keys of the graphs, or nullopt when none has a point.
std::optional<QCPRange> keyRange(const std::vector<const QCPGraph*>& graphs) {
    std::optional<QCPRange> range;
    for (const QCPGraph* g : graphs) {
        bool found = false;
        const QCPRange r = g ? g->getKeyRange(found) : QCPRange();
        if (!found) continue;
        range = range ? QCPRange(std::min(range->lower, r.lower), std::max(range->upper, r.upper)) : r;
    }
    return range;
}
}  // namespace

MetricChart::MetricChart(RunStore* store, Kind kind, QWidget* parent) : ThrottledChart(store, parent), kind_(kind) {
    title_ = applyChartStyle(plot(), title());
    // Graphs join the legend only when asked (addGraph's inLegend): removing a legend item lays the
    // whole legend out again, which made a rebuild with hundreds of runs take minutes.
    plot().setAutoAddPlottableToLegend(false);
    placeholder_ = addPlaceholder(plot(), "No runs to show yet: press Run, or open RunRecord files");
    plot().yAxis->setLabel(kind_ == Kind::Loss       ? "Loss"
                           : kind_ == Kind::Accuracy ? "Accuracy (%)"
                                                     : "Wall time per epoch (ms)");
    if (kind_ == Kind::Accuracy) showQualityLabels();
    applyAxisModes();

    installBoxZoom(plot());
    connectLegendToggles(plot(), this->store());
    crosshair_ = new HoverCrosshair(plot(), [this](double key) { return crosshairText(key); });
    plot().setMouseTracking(true);  // the crosshair follows the mouse without a pressed button
    for (QCPAxis* axis : {plot().xAxis, plot().yAxis})
        connect(axis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, &MetricChart::rangeChangedByUser);
    connect(&plot(), &QCustomPlot::mouseDoubleClick, this, &MetricChart::fitToData);
    markAllDirty();
}

MetricChart::~MetricChart() = default;

QString MetricChart::title() const {
    switch (kind_) {
        case Kind::Loss: return "Loss";
        case Kind::Accuracy:
            return shownQuality_ == Quality::R2    ? "R\u00b2 (coefficient of determination)"
                   : shownQuality_ == Quality::Mae ? "Mean absolute error"
                                                   : "Accuracy";
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
    const QCPGraph* graph = trainGraph(runId);
    return graph ? graph->dataCount() : 0;
}

const QCPGraph* MetricChart::trainGraph(int runId) const {
    for (const RunGraphs& g : graphs_)
        if (g.runId == runId) return g.train;
    return nullptr;
}

const QCPGraph* MetricChart::validationGraph(int runId) const {
    for (const RunGraphs& g : graphs_)
        if (g.runId == runId) return g.validation;
    return nullptr;
}

QString MetricChart::hoverText() const {
    return crosshair_->text();
}

void MetricChart::setXAxis(XAxis axis) {
    if (xAxis_ == axis) return;
    xAxis_ = axis;
    applyAxisModes();
    autoFit_ = true;  // the old x range means nothing on the new axis
    markAllDirty();
}

void MetricChart::setXAxisByTime(bool byTime) {
    setXAxis(byTime ? XAxis::ElapsedTime : XAxis::Epoch);
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

void MetricChart::setLegendShown(bool shown) {
    wb::gui::setLegendShown(plot(), shown);
    replot();
}

MetricChart::Quality MetricChart::quality() const {
    if (chosenQuality_) return *chosenQuality_;
    const auto& runs = store().runs();
    for (auto it = runs.rbegin(); it != runs.rend(); ++it)  // the newest shown run that has trained
        if (it->visible && !it->record.epochs.empty()) return qualityFor(it->task());
    return Quality::Accuracy;
}

void MetricChart::setQuality(std::optional<Quality> quality) {
    if (chosenQuality_ == quality) return;
    chosenQuality_ = quality;
    autoFit_ = true;  // a percentage's range means nothing for R^2
    markAllDirty();
}

void MetricChart::showQualityLabels() {
    shownQuality_ = quality();
    plot().yAxis->setLabel(shownQuality_ == Quality::R2    ? QString("R\u00b2")
                           : shownQuality_ == Quality::Mae ? QString("Mean absolute error (target units)")
                                                           : QString("Accuracy (%)"));
    if (title_) title_->setText(title());
}

void MetricChart::fitToData() {
    autoFit_ = true;
    fitAxes();
    replot();
    emit zoomChanged(false);
}

void MetricChart::rangeChangedByUser() {
    if (settingRange_ || !autoFit_) return;
    autoFit_ = false;  // a drag, the wheel or a zoom box: live points no longer move the view
    emit zoomChanged(true);
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
    if (kind_ == Kind::Accuracy && quality() != shownQuality_) {  // a regression joined, or left
        showQualityLabels();
        allDirty_ = true;
        autoFit_ = true;
    }
    std::vector<RunShape> shape = currentShape();
    if (shape != shape_ || rawBuilt_ != (smoothing_ > 0)) {
        shape_ = std::move(shape);
        rebuildGraphs();
    }
    const bool liveOnly = onlyLiveRunsChanged();
    const QCPRange keys = plot().xAxis->range(), values = plot().yAxis->range();
    for (RunGraphs& g : graphs_) {
        // A band is refilled when any of its runs got epochs.
        const bool touched = allDirty_ || dirty_.count(g.runId) ||
                             std::any_of(g.members.begin(), g.members.end(), [&](int id) { return dirty_.count(id); });
        if (!touched) continue;
        if (const RunEntry* run = store().find(g.runId)) fillGraphs(g, *run);
    }
    dirty_.clear();
    allDirty_ = false;
    placeholder_->setVisible(graphs_.empty());
    if (autoFit_) fitAxes();
    if (liveOnly && plot().xAxis->range() == keys && plot().yAxis->range() == values)
        replotLayer(liveLayer_);  // the training runs' lines alone; the rest as they were drawn
    else
        replot();
}

QCPLayer* MetricChart::liveLayer() {
    if (!liveLayer_) {
        plot().addLayer("live", plot().layer("main"), QCustomPlot::limAbove);
        liveLayer_ = plot().layer("live");
        liveLayer_->setMode(QCPLayer::lmBuffered);
    }
    return liveLayer_;
}

void MetricChart::moveLiveRunsToTheirLayer() {
    liveRuns_.clear();
    if (!isVisible()) return;
    for (std::size_t i = 0, g = 0; i < shape_.size(); ++i) {
        if (!drawn(shape_[i])) continue;
        const RunGraphs& graphs = graphs_[g++];
        if (!shape_[i].live || shape_[i].repeats > 1) continue;  // a band also holds finished runs
        for (QCPGraph* graph : {graphs.train, graphs.validation, graphs.trainRaw, graphs.validationRaw, graphs.warmup})
            if (graph) graph->setLayer(liveLayer());
        liveRuns_.insert(shape_[i].id);
    }
}

// Whether what changed since the last refresh is the epochs of runs on the live layer alone.
bool MetricChart::onlyLiveRunsChanged() const {
    if (allDirty_ || dirty_.empty() || !liveLayer_) return false;
    return std::all_of(dirty_.begin(), dirty_.end(), [this](int id) { return liveRuns_.count(id) > 0; });
}

std::vector<MetricChart::RunShape> MetricChart::currentShape() const {
    std::vector<RunShape> shape;
    shape.reserve(store().runs().size());
    const Quality shown = kind_ == Kind::Accuracy ? quality() : Quality::Accuracy;
    // A hidden run's epochs are not looked at: it draws nothing (and may have none in memory).
    for (const RunEntry& run : store().runs())
        shape.push_back(
            {run.id, run.name, run.color, run.visible, run.visible && kind_ != Kind::EpochTime && hasValidation(run),
             run.visible && kind_ == Kind::EpochTime && hasWarmup(run), 0, 1,
             run.visible && !run.queued && run.record.status == RunStatus::Running,
             kind_ == Kind::Accuracy && run.visible && !run.record.epochs.empty() && qualityFor(run.task()) != shown});
    if (repeats_ != Repeats::EachRun) groupRepeats(shape);
    return shape;
}

// Rebuilt as a whole (rare: a run added, removed, hidden, renamed, smoothing switched on or off),
// so the legend keeps the runs table's order, hidden runs included (grey, to be clicked back). The
// legend names each run once (its colour); two grey keys say which line style is train and which
// validation, so long run names still fit side by side.
void MetricChart::rebuildGraphs() {
    // The legend's cells at once (QCPLayout::clear), not an item per graph: QCPLegend lays itself out
    // again after each removed item, which is quadratic in the runs shown.
    plot().legend->clear();
    plot().clearGraphs();
    graphs_.clear();
    warmupKey_ = nullptr;
    rawBuilt_ = smoothing_ > 0;
    const std::vector<int> variants = lineVariants();
    startRunGraphs();
    // The faint raw curves first, so every smoothed line is drawn over them.
    if (rawBuilt_) addRawCurves(variants);
    addRunLines(variants);
    // Runs that draw no line here (a classification on the R² axis) are counted, not named as if they did.
    if (const auto other =
            std::count_if(shape_.begin(), shape_.end(), [](const RunShape& s) { return s.otherQuality; }))
        addWithoutQualityCount(static_cast<std::size_t>(other));
    // Markers after all lines, so no line is drawn over a marker.
    addWarmupMarkers();
    moveLiveRunsToTheirLayer();
    allDirty_ = true;
}

// Each run's line variant (chart_pens.h), indexed as shape_, counted among the runs shown only: a
// hidden run draws no line that a dash pattern would tell apart.
std::vector<int> MetricChart::lineVariants() const {
    std::vector<QColor> colors;
    for (const RunShape& s : shape_)
        if (drawn(s)) colors.push_back(s.color);
    const std::vector<int> shownVariants = hueVariants(colors);
    std::vector<int> variants(shape_.size(), 0);
    for (std::size_t i = 0, v = 0; i < shape_.size(); ++i)
        if (drawn(shape_[i])) variants[i] = shownVariants[v++];
    return variants;
}

// A RunGraphs per drawn run, in shape_'s order, with a band's runs where it leads one.
void MetricChart::startRunGraphs() {
    std::map<int, std::vector<int>> members;  // a band's leader -> its runs
    for (const RunShape& s : shape_)
        if (s.leader != 0) members[s.leader].push_back(s.id);
    for (std::size_t i = 0; i < shape_.size(); ++i)
        if (drawn(shape_[i])) {
            RunGraphs graphs;
            graphs.runId = shape_[i].id;
            if (const auto it = members.find(shape_[i].id); it != members.end()) graphs.members = it->second;
            graphs_.push_back(std::move(graphs));
        }
}

// A band has no raw curves: the band is what its runs' raw values spread over.
void MetricChart::addRawCurves(const std::vector<int>& variants) {
    for (std::size_t i = 0, g = 0; i < shape_.size(); ++i) {
        if (!drawn(shape_[i])) continue;
        if (shape_[i].repeats == 1) addRawGraphs(graphs_[g], shape_[i], variants[i]);
        ++g;
    }
}

// Every run's legend entry in the runs table's order: a drawn run's lines (or band), a hidden run's
// grey entry, the oldest hidden runs beyond kHiddenInLegend counted in one line.
void MetricChart::addRunLines(const std::vector<int>& variants) {
    bool anyValidation = false;
    const auto hidden = static_cast<std::size_t>(
        std::count_if(shape_.begin(), shape_.end(), [](const RunShape& s) { return !s.visible; }));
    std::size_t unnamed = hidden > kHiddenInLegend ? hidden - kHiddenInLegend : 0;
    if (unnamed > 0) addHiddenCount(unnamed);
    for (std::size_t i = 0, g = 0; i < shape_.size(); ++i) {
        if (!shape_[i].visible) {
            if (unnamed > 0)
                --unnamed;  // the oldest hidden runs: counted, not named
            else
                addHiddenEntry(shape_[i]);
            continue;
        }
        if (!drawn(shape_[i])) continue;  // a repeat inside its configuration's band
        if (shape_[i].repeats > 1) addBand(graphs_[g], shape_[i]);
        addRunGraphs(graphs_[g++], shape_[i], variants[i]);
        anyValidation = anyValidation || shape_[i].validation;
    }
    if (anyValidation) addLineStyleKeys();
}

void MetricChart::addWarmupMarkers() {
    bool anyWarmup = false;
    for (std::size_t i = 0, g = 0; i < shape_.size(); ++i) {
        if (!drawn(shape_[i])) continue;
        RunGraphs& graphs = graphs_[g++];
        if (!shape_[i].warmup) continue;
        graphs.warmup = addWarmupMarker(*store().find(shape_[i].id));
        anyWarmup = true;
    }
    if (anyWarmup) addWarmupLegendKey();
}

void MetricChart::addRunGraphs(RunGraphs& graphs, const RunShape& shape, int variant) {
    const RunPens pens = runPens(shape.color, variant);
    graphs.train = addGraph(shape.name, pens.train, !shape.otherQuality);
    tagLegendRun(graphs.train, shape.id);
    if (shape.validation) graphs.validation = addGraph(shape.name + " (validation)", pens.validation, false);
}

void MetricChart::addRawGraphs(RunGraphs& graphs, const RunShape& shape, int variant) {
    const RunPens pens = runPens(shape.color, variant);
    graphs.trainRaw = addGraph(shape.name + " (raw)", pens.raw, false);
    if (!shape.validation) return;
    QPen validation = pens.raw;
    validation.setStyle(Qt::DashLine);
    graphs.validationRaw = addGraph(shape.name + " (validation, raw)", validation, false);
}

QCPGraph* MetricChart::addGraph(const QString& name, const QPen& pen, bool inLegend) {
    QCPGraph* graph = plot().addGraph();
    graph->setPen(pen);
    graph->setName(name);
    graph->setAntialiased(true);
    if (inLegend) graph->addToLegend();
    return graph;
}

// A hidden run keeps its place in the legend, greyed, with no data: a click shows it again.
void MetricChart::addHiddenEntry(const RunShape& shape) {
    QCPGraph* entry = addGraph(shape.name, QPen(), true);
    tagLegendRun(entry, shape.id);
    styleHiddenEntry(plot(), entry);
}

// A grey line of the legend that names no run, only counts some ("N runs …"): no line, no key.
void MetricChart::addCountEntry(const QString& what, std::size_t count) {
    QCPGraph* entry =
        addGraph(QString(what).arg(QLocale().toString(static_cast<qulonglong>(count)), count == 1 ? "" : "s"),
                 QPen(Qt::NoPen), true);
    styleHiddenEntry(plot(), entry);
    entry->setPen(QPen(Qt::NoPen));
}

// One grey line for the hidden runs the legend does not name; the runs table lists them all.
void MetricChart::addHiddenCount(std::size_t count) {
    addCountEntry("%1 more hidden run%2 (tick them in the runs table)", count);
}

void MetricChart::addWithoutQualityCount(std::size_t count) {
    const QString quality = shownQuality_ == Quality::R2    ? QString("R\u00b2")
                            : shownQuality_ == Quality::Mae ? QString("a mean absolute error")
                                                            : QString("an accuracy");
    addCountEntry("%1 shown run%2 without " + quality + " (another task)", count);
}

QCPGraph* MetricChart::addWarmupMarker(const RunEntry& run) {
    QCPGraph* graph = plot().addGraph();
    graph->setLineStyle(QCPGraph::lsNone);
    graph->setScatterStyle(hollowCircle(run.color));
    graph->setName(run.name + " (warm-up)");
    return graph;
}

// Two legend entries explain the line styles for all runs: solid train, dashed validation.
void MetricChart::addLineStyleKeys() {
    for (const auto& [name, style] : {std::pair{"train", Qt::SolidLine}, std::pair{"validation", Qt::DashLine}}) {
        QPen pen(kKeyGrey, kLineWidth, style);
        pen.setCapStyle(Qt::FlatCap);
        addGraph(name, pen, true);
    }
}

// One legend entry explains the hollow circle for all runs.
void MetricChart::addWarmupLegendKey() {
    warmupKey_ = plot().addGraph();
    warmupKey_->setLineStyle(QCPGraph::lsNone);
    warmupKey_->setScatterStyle(hollowCircle(kKeyGrey));
    warmupKey_->setName("warm-up epoch (excluded from medians)");
    warmupKey_->addToLegend();
}

void MetricChart::fillGraphs(RunGraphs& graphs, const RunEntry& run) const {
    if (graphs.members.size() > 1) return fillBand(graphs);
    const std::vector<double> x = xKeys(run, xAxis_, &graphs.byEpochInstead);
    fillGraph(graphs.train, graphs.trainRaw, graphs.trainEpochs, run, x, false);
    if (graphs.validation) fillGraph(graphs.validation, graphs.validationRaw, graphs.validationEpochs, run, x, true);
    if (graphs.warmup) fillWarmup(graphs.warmup, run, x);
}

// The marker sits on the raw value of each warm-up epoch, smoothed or not.
// A series too short for a line draws its points as markers too.
void MetricChart::showMarkersIfShort(QCPGraph* graph) {
    const bool markers = graph->dataCount() > 0 && graph->dataCount() < kMarkersBelowPoints;
    graph->setScatterStyle(markers ? QCPScatterStyle(QCPScatterStyle::ssDisc, graph->pen().color(), 7)
                                   : QCPScatterStyle(QCPScatterStyle::ssNone));
}

void MetricChart::fillWarmup(QCPGraph* graph, const RunEntry& run, const std::vector<double>& x) const {
    QVector<double> keys, values;
    for (std::size_t i = 0; i < run.record.epochs.size(); ++i) {
        const EpochMetrics& e = run.record.epochs[i];
        const auto v = valueOf(e, false);
        if (!e.warmup || !v || !std::isfinite(*v) || (logScale_ && *v <= 0)) continue;
        keys.push_back(x[i]);
        values.push_back(*v);
    }
    graph->setData(keys, values, true);
}

// Non-finite values (a diverged run's inf or NaN loss) are left out, so they neither break the line
// nor the smoothing; on a log axis so are values <= 0.
void MetricChart::fillGraph(QCPGraph* graph, QCPGraph* raw, std::vector<std::size_t>& epochIndex, const RunEntry& run,
                            const std::vector<double>& x, bool validation) const {
    const std::vector<EpochMetrics>& epochs = run.record.epochs;
    QVector<double> keys, values;
    epochIndex.clear();
    for (std::size_t i = 0; i < epochs.size(); ++i) {
        const auto v = valueOf(epochs[i], validation);
        if (!v || !std::isfinite(*v) || (logScale_ && *v <= 0)) continue;
        keys.push_back(x[i]);
        values.push_back(*v);
        epochIndex.push_back(i);
    }
    if (raw) raw->setData(keys, values, true);
    const std::vector<double> smoothed = smoothExponential({values.begin(), values.end()}, smoothing_);
    graph->setData(keys, QVector<double>(smoothed.begin(), smoothed.end()), true);
    // No point at all (a run of another task than the metric shown) draws nothing, not a legend marker.
    showMarkersIfShort(graph);
}

std::optional<double> MetricChart::valueOf(const EpochMetrics& epoch, bool validation) const {
    switch (kind_) {
        case Kind::Loss: return validation ? epoch.valLoss : std::optional<double>(epoch.trainLoss);
        case Kind::Accuracy: return qualityOf(epoch, validation);
        case Kind::EpochTime: return validation ? std::nullopt : std::optional<double>(epoch.wallMs);
    }
    return std::nullopt;
}

// A regression has no accuracy (its record says null, read back as 0) and a classification no R^2:
// such an epoch has no value here, so overlaid runs of other tasks are left out, not drawn at 0.
std::optional<double> MetricChart::qualityOf(const EpochMetrics& epoch, bool validation) const {
    const std::optional<double> value = qualityValue(shownQuality_, epoch, validation);
    return value && shownQuality_ == Quality::Accuracy ? std::optional<double>(*value * 100) : value;
}

// The view: every key, and the robust value range of chart_math.h (a diverged run's tail does not
// count), with a little air so the extreme points and markers are not cut by the frame.
void MetricChart::fitAxes() {
    std::vector<const QCPGraph*> all;
    std::vector<RangeSource> sources;
    for (const RunGraphs& g : graphs_) {
        const RunEntry* run = store().find(g.runId);
        // Divergence is about the loss: a diverged run's epoch times and accuracies are ordinary values.
        const bool diverged = kind_ == Kind::Loss && run && run->record.status == RunStatus::Diverged;
        RangeSource source{{}, diverged};
        for (const QCPGraph* graph :
             {g.train, g.validation, g.trainRaw, g.validationRaw, g.warmup, g.bandLow, g.bandHigh}) {
            if (!graph) continue;
            all.push_back(graph);
            const std::vector<double> values = valuesOf(graph);
            source.values.insert(source.values.end(), values.begin(), values.end());
        }
        sources.push_back(std::move(source));
    }
    const std::optional<QCPRange> keys = keyRange(all);
    const std::optional<ValueRange> values = robustValueRange(sources, logScale_);
    if (!keys || !values) return;
    settingRange_ = true;
    // A lone point (one epoch, one run) gets a range around it rather than none.
    const double keyPad = keys->size() > 0 ? 0.02 * keys->size() : std::max(0.5, 0.1 * std::abs(keys->lower));
    plot().xAxis->setRange(keys->lower - keyPad, keys->upper + keyPad);
    QCPRange y(values->lower, values->upper);
    if (y.size() <= 0) y = logScale_ ? QCPRange(y.lower / 2, y.upper * 2) : QCPRange(y.lower - 0.5, y.upper + 0.5);
    plot().yAxis->setRange(y);
    plot().yAxis->scaleRange(1.12, plot().yAxis->range().center());
    // Times start at zero on a linear axis, so the heights of two runs compare as their ratio.
    // R^2 below 0 (worse than predicting the mean, as early epochs are) is a value worth seeing.
    const bool signedValues = kind_ == Kind::Accuracy && shownQuality_ == Quality::R2;
    if (!logScale_ && (kind_ == Kind::EpochTime || (plot().yAxis->range().lower < 0 && !signedValues)))
        plot().yAxis->setRangeLower(0);
    settingRange_ = false;
}

void MetricChart::applyAxisModes() {
    settingRange_ = true;  // a log axis may move the range itself
    plot().xAxis->setLabel(xAxisLabel(xAxis_));
    if (xAxis_ == XAxis::Epoch) {
        auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();  // whole epochs only
        ticker->setTickStep(1.0);
        ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
        plot().xAxis->setTicker(ticker);
    } else {
        plot().xAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
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
    settingRange_ = false;
}

QString MetricChart::formatValue(double value) const {
    switch (kind_) {
        case Kind::Loss: return QString::number(value, 'f', 4);
        case Kind::Accuracy:
            if (shownQuality_ == Quality::Accuracy) return QString::number(value, 'f', 2) + " %";
            return QString::number(value, 'g', 4);
        case Kind::EpochTime: return QString::number(value, 'f', value >= 100 ? 0 : (value >= 10 ? 1 : 2)) + " ms";
    }
    return {};
}

}  // namespace wb::gui
