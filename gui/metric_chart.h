// A live line chart of one metric of every visible run: loss, accuracy, or wall time per epoch.
// Incoming epochs only mark their run dirty; the throttled refresh (ThrottledChart, at most ~30 a
// second) refills only the changed graphs and replots once.
#pragma once

#include <QColor>
#include <QString>
#include <cstddef>
#include <optional>
#include <set>
#include <vector>

#include "epoch_metrics.h"
#include "throttled_chart.h"

class QCustomPlot;
class QCPGraph;
class QCPItemText;
class QCPTextElement;
class QMouseEvent;

namespace wb::gui {

class RunStore;
struct RunEntry;

// Exponential moving average (as TensorBoard smooths): s0 = x0, s_i = f * s_{i-1} + (1 - f) * x_i.
// factor 0 returns the values unchanged; factor is clamped to [0, 0.99].
std::vector<double> smoothExponential(const std::vector<double>& values, double factor);

class MetricChart : public ThrottledChart {
    Q_OBJECT

public:
    enum class Kind { Loss, Accuracy, EpochTime };

    MetricChart(RunStore* store, Kind kind, QWidget* parent = nullptr);
    ~MetricChart() override;

    Kind kind() const { return kind_; }
    QString title() const;

    // For tests: the runs' data graphs (train and validation; markers not counted) and the points
    // of a run's train graph.
    int graphCount() const;
    int pointCount(int runId) const;

public slots:
    void setXAxisByTime(bool byTime);  // elapsed seconds instead of the epoch number
    void setLogScale(bool on);         // a logarithmic value axis (meant for epoch times)
    void setSmoothing(double factor);  // 0 = off
    void fitToData();                  // rescales to all data and follows new points again

protected:
    void refresh() override;
    void runTouched(int runId) override;  // only that run's graphs are refilled

private:
    // The graphs of one visible run; the index vectors map a graph's points back to epochs.
    struct RunGraphs {
        int runId = 0;
        QCPGraph* train = nullptr;
        QCPGraph* validation = nullptr;
        QCPGraph* warmup = nullptr;  // the warm-up epoch as a hollow marker (epoch-time chart)
        std::vector<std::size_t> trainEpochs;
        std::vector<std::size_t> validationEpochs;
    };
    // What decides the set of graphs; when it changes, the graphs are rebuilt.
    struct RunShape {
        int id = 0;
        QString name;
        QColor color;
        bool validation = false;
        bool warmup = false;
        bool operator==(const RunShape&) const = default;
    };
    struct HoverHit {
        const RunGraphs* graphs = nullptr;
        const QCPGraph* graph = nullptr;
        int point = -1;
    };

    void markAllDirty();
    std::vector<RunShape> currentShape() const;
    void rebuildGraphs();
    QCPGraph* addLineGraph(const RunEntry& run, const QString& name, Qt::PenStyle style);
    QCPGraph* addWarmupMarker(const RunEntry& run);
    void addLineStyleKeys();
    void addWarmupLegendKey();
    void fillGraphs(RunGraphs& graphs, const RunEntry& run) const;
    void fillGraph(QCPGraph* graph, std::vector<std::size_t>& epochIndex, const RunEntry& run, bool validation) const;
    void fitAxes();
    void applyAxisModes();

    std::optional<double> valueOf(const EpochMetrics& epoch, bool validation) const;
    QString formatValue(double value) const;
    void showHoverTip(QMouseEvent* event);
    HoverHit nearestPoint(const QPointF& pixel) const;
    QString hoverText(const HoverHit& hit) const;

    Kind kind_;
    QCPTextElement* title_ = nullptr;
    QCPItemText* placeholder_ = nullptr;
    QCPGraph* warmupKey_ = nullptr;  // the legend's one "warm-up epoch" entry
    std::vector<RunGraphs> graphs_;
    std::vector<RunShape> shape_;

    std::set<int> dirty_;
    bool allDirty_ = false;
    bool autoFit_ = true;  // follow new points until the user pans or zooms
    bool byTime_ = false;
    bool logScale_ = false;
    double smoothing_ = 0.0;
};

}  // namespace wb::gui
