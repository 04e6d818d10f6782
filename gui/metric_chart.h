// A live line chart of one metric of every visible run: loss, accuracy, or wall time per epoch.
// Incoming epochs only mark the chart dirty; a short timer rebuilds the changed graphs and replots
// once, at most ~30 times a second, so a run that does 200 epochs in 0.1 s cannot flood the event
// loop (DESIGN.md, Threads).
#pragma once

#include <QColor>
#include <QString>
#include <QTimer>
#include <QWidget>
#include <cstddef>
#include <optional>
#include <set>
#include <vector>

#include "epoch_metrics.h"

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

class MetricChart : public QWidget {
    Q_OBJECT

public:
    enum class Kind { Loss, Accuracy, EpochTime };

    MetricChart(RunStore* store, Kind kind, QWidget* parent = nullptr);
    ~MetricChart() override;

    QCustomPlot& plot() { return *plot_; }
    Kind kind() const { return kind_; }
    QString title() const;

    // Applies what is pending now instead of on the timer (tests, the headless export).
    void refreshNow();

    // For tests: the runs' data graphs (train and validation; markers not counted), the points of a
    // run's train graph, and how many times the chart has replotted.
    int graphCount() const;
    int pointCount(int runId) const;
    int replotCount() const { return replotCount_; }

public slots:
    void setXAxisByTime(bool byTime);  // elapsed seconds instead of the epoch number
    void setLogScale(bool on);         // a logarithmic value axis (meant for epoch times)
    void setSmoothing(double factor);  // 0 = off
    void fitToData();                  // rescales to all data and follows new points again

protected:
    void showEvent(QShowEvent* event) override;

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

    void markDirty(int runId);
    void markAllDirty();
    void refresh();
    std::vector<RunShape> currentShape() const;
    void rebuildGraphs();
    QCPGraph* addLineGraph(const RunEntry& run, const QString& name, Qt::PenStyle style);
    QCPGraph* addWarmupMarker(const RunEntry& run);
    void addWarmupLegendKey();
    void fillGraphs(RunGraphs& graphs, const RunEntry& run) const;
    void fillGraph(QCPGraph* graph, std::vector<std::size_t>& epochIndex, const RunEntry& run, bool validation) const;
    void fitAxes();
    void applyAxisModes();
    void replot();

    std::optional<double> valueOf(const EpochMetrics& epoch, bool validation) const;
    QString formatValue(double value) const;
    void showHoverTip(QMouseEvent* event);
    HoverHit nearestPoint(const QPointF& pixel) const;
    QString hoverText(const HoverHit& hit) const;

    RunStore* store_;
    Kind kind_;
    QCustomPlot* plot_;
    QCPTextElement* title_ = nullptr;
    QCPItemText* placeholder_ = nullptr;
    QCPGraph* warmupKey_ = nullptr;  // the legend's one "warm-up epoch" entry
    std::vector<RunGraphs> graphs_;
    std::vector<RunShape> shape_;

    QTimer refreshTimer_;
    std::set<int> dirty_;
    bool allDirty_ = false;
    bool replotPending_ = false;  // data changed while hidden: replot when shown
    bool autoFit_ = true;         // follow new points until the user pans or zooms
    bool byTime_ = false;
    bool logScale_ = false;
    double smoothing_ = 0.0;
    int replotCount_ = 0;
};

}  // namespace wb::gui
