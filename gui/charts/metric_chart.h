// A live line chart of one metric of every run: loss, accuracy, or wall time per epoch.
// Incoming epochs only mark their run dirty; the throttled refresh (ThrottledChart, at most ~30 a
// second) refills only the changed graphs and replots once. The legend lists runs (a click hides or
// shows one); line styles are explained once (chart_pens.h); the x axis counts epochs, seconds or
// samples (chart_x_axis.h); the value range ignores a diverged run's tail (chart_math.h).
#pragma once

#include <QColor>
#include <QString>
#include <cstddef>
#include <optional>
#include <set>
#include <vector>

#include "core/run/epoch_metrics.h"
#include "core/run/quality_metric.h"
#include "gui/charts/chart_math.h"
#include "gui/charts/chart_x_axis.h"
#include "gui/charts/throttled_chart.h"

class QCustomPlot;
class QCPGraph;
class QCPItemText;
class QCPLayer;
class QCPTextElement;

namespace wb::gui {

class HoverCrosshair;
class RunStore;
struct RunEntry;

class MetricChart : public ThrottledChart {
    Q_OBJECT

public:
    enum class Kind { Loss, Accuracy, EpochTime };
    // What the Accuracy chart measures: accuracy for classification, R^2 or the mean absolute error
    // (in the target's units) for a regression. A run of another task has no value there and is not drawn.
    using Quality = wb::QualityMetric;  // the task's rule is core's (quality_metric.h), shared with the ablation views
    // How repeats of one configuration (repeatGroupKey, run_repeats.h) are drawn: each run alone, or
    // one line with a band (TensorBoard users ask for it past a few runs): the median and the lowest
    // to the highest value, or the mean and its 95 % confidence interval, epoch by epoch.
    enum class Repeats { EachRun, MedianRange, MeanInterval };

    MetricChart(RunStore* store, Kind kind, QWidget* parent = nullptr);
    ~MetricChart() override;

    Kind kind() const { return kind_; }
    QString title() const;
    XAxis xAxisMode() const { return xAxis_; }
    bool userZoomed() const { return !autoFit_; }
    // The metric shown by an Accuracy chart: the one chosen, or by default the newest shown run's
    // (R^2 for a regression, else accuracy).
    Quality quality() const;  // live updates leave the view alone until reset
    Repeats repeats() const { return repeats_; }

    // For tests: the runs' data graphs (train and validation; raw curves, markers, legend keys and
    // hidden runs' entries not counted), the points of a run's train graph, a run's graphs, and
    // what the hover label shows now.
    int graphCount() const;
    int pointCount(int runId) const;
    const QCPGraph* trainGraph(int runId) const;
    const QCPGraph* validationGraph(int runId) const;
    QString hoverText() const;
    // The label's text for an x value (what the crosshair shows there); empty when no run has a point near.
    QString crosshairText(double key) const;
    // For tests: the groups drawn as a band now, and a band's edges (null where `runId` leads none).
    int bandCount() const;
    const QCPGraph* bandEdge(int runId, bool high) const;

public slots:
    void setXAxis(wb::gui::XAxis axis);
    void setXAxisByTime(bool byTime);  // elapsed seconds instead of the epoch number
    void setLogScale(bool on);         // a logarithmic value axis (for epoch times, or a loss over decades)
    void setSmoothing(double factor);  // TensorBoard's debiased EMA, 0 = off (the raw curve stays faint behind)
    void setLegendShown(bool shown);
    void setQuality(std::optional<wb::gui::MetricChart::Quality> quality);  // nullopt: follow the task
    void setRepeats(wb::gui::MetricChart::Repeats repeats);
    void fitToData();  // rescales to all data and follows new points again (the reset-zoom button)

signals:
    void zoomChanged(bool userZoomed);

protected:
    void refresh() override;
    void runTouched(int runId) override;  // only that run's graphs are refilled

private:
    // The graphs of one visible run; the index vectors map a graph's points back to epochs.
    struct RunGraphs {
        int runId = 0;
        QCPGraph* train = nullptr;
        QCPGraph* validation = nullptr;
        QCPGraph* trainRaw = nullptr;  // the unsmoothed curves, faint, while smoothing is on
        QCPGraph* validationRaw = nullptr;
        QCPGraph* warmup = nullptr;  // the warm-up epoch as a hollow marker (epoch-time chart)
        // A band's runs (the repeats of one configuration, this one first) and its edges; else empty.
        std::vector<int> members;
        QCPGraph* bandLow = nullptr;
        QCPGraph* bandHigh = nullptr;
        std::vector<std::size_t> trainEpochs;
        std::vector<std::size_t> validationEpochs;
        bool byEpochInstead = false;  // samples seen asked for, but the run's row count is unknown
    };
    // What decides the set of graphs; when it changes, the graphs are rebuilt.
    struct RunShape {
        int id = 0;
        QString name;
        QColor color;
        bool visible = true;
        bool validation = false;
        bool warmup = false;
        int leader = 0;             // drawn as a band: the id of the group's first shown run; 0: drawn alone
        int repeats = 1;            // the shown runs of its group, where it leads one
        bool live = false;          // shown and training now
        bool otherQuality = false;  // an accuracy chart's run that measures another quality: no line
        bool operator==(const RunShape&) const = default;
    };

    void markAllDirty();
    std::vector<RunShape> currentShape() const;
    void rebuildGraphs();
    std::vector<int> lineVariants() const;
    void startRunGraphs();
    void addRawCurves(const std::vector<int>& variants);
    void addRunLines(const std::vector<int>& variants);
    void addWarmupMarkers();
    void addRunGraphs(RunGraphs& graphs, const RunShape& shape, int variant);
    void addRawGraphs(RunGraphs& graphs, const RunShape& shape, int variant);
    QCPGraph* addGraph(const QString& name, const QPen& pen, bool inLegend);
    void addHiddenEntry(const RunShape& shape);
    void addCountEntry(const QString& what, std::size_t count);  // `what`: %1 the count, %2 "s" or ""
    void addHiddenCount(std::size_t count);
    void addWithoutQualityCount(std::size_t count);  // "1 shown run without R² (another task)"
    QCPGraph* addWarmupMarker(const RunEntry& run);
    void addLineStyleKeys();
    void addWarmupLegendKey();
    bool drawn(const RunShape& shape) const { return shape.visible && (shape.leader == 0 || shape.leader == shape.id); }
    void groupRepeats(std::vector<RunShape>& shape) const;
    void addBand(RunGraphs& graphs, const RunShape& shape);
    void fillGraphs(RunGraphs& graphs, const RunEntry& run) const;
    void fillBand(RunGraphs& graphs) const;
    static void showMarkersIfShort(QCPGraph* graph);  // a series too short for a line: markers too
    void fillGraph(QCPGraph* graph, QCPGraph* raw, std::vector<std::size_t>& epochIndex, const RunEntry& run,
                   const std::vector<double>& x, bool validation) const;
    void fillWarmup(QCPGraph* graph, const RunEntry& run, const std::vector<double>& x) const;
    void fitAxes();
    void applyAxisModes();
    void rangeChangedByUser();

    std::optional<double> valueOf(const EpochMetrics& epoch, bool validation) const;
    std::optional<double> qualityOf(const EpochMetrics& epoch, bool validation) const;
    void showQualityLabels();
    QString formatValue(double value) const;
    QString formatKey(double key) const;
    QString runLine(const RunGraphs& graphs, double key, double tolerance) const;

    Kind kind_;
    QCPTextElement* title_ = nullptr;
    QCPItemText* placeholder_ = nullptr;
    QCPGraph* warmupKey_ = nullptr;  // the legend's one "warm-up epoch" entry
    HoverCrosshair* crosshair_ = nullptr;
    std::vector<RunGraphs> graphs_;
    std::vector<RunShape> shape_;

    // A training run drawn alone gets a layer of its own (its paint buffer), so that its new epoch,
    // when the axes stay as they were, redraws its lines only and not every run's (made when first
    // needed on a shown chart: an unshown widget could not back its buffer).
    QCPLayer* liveLayer();
    void moveLiveRunsToTheirLayer();
    bool onlyLiveRunsChanged() const;
    QCPLayer* liveLayer_ = nullptr;
    std::set<int> liveRuns_;

    std::set<int> dirty_;
    bool allDirty_ = false;
    bool autoFit_ = true;        // follow new points until the user pans or zooms
    bool settingRange_ = false;  // the chart itself moves the axes: not the user zooming
    XAxis xAxis_ = XAxis::Epoch;
    bool logScale_ = false;
    double smoothing_ = 0.0;
    std::optional<Quality> chosenQuality_;      // nullopt: follow the task of the newest shown run
    Quality shownQuality_ = Quality::Accuracy;  // what the axis and values say now
    bool rawBuilt_ = false;                     // the graphs were built with the faint raw curves
    Repeats repeats_ = Repeats::EachRun;
};

}  // namespace wb::gui
