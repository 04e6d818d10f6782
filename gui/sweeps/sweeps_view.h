// The Sweeps tab: a sweep folder followed live while its trials run (here or on a cluster). The
// trial table (sortable, filterable), the parallel-coordinates chart whose brushes filter the table,
// the metric against one parameter, and the report. Selected trials overlay in the Loss, Accuracy
// and Epoch-time charts (overlayRequested); the table exports as CSV, the charts as the others do.
#pragma once

#include <QWidget>
#include <functional>

#include "core/run/run_config.h"
#include "gui/sweeps/sweep_axes.h"

class QCustomPlot;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QTabWidget;
class QTableView;

namespace wb::gui {

class MetricByParameterChart;
class ParallelCoordinatesChart;
class SweepFilterModel;
class SweepTableModel;
class SweepWatcher;

class SweepsView : public QWidget {
    Q_OBJECT

public:
    explicit SweepsView(QWidget* parent = nullptr);

    // Opens a sweep folder; says why (a message box) and keeps the current one when it is none.
    bool openSweep(const QString& dir);
    // The configuration "New sweep…" varies: the panels' current one.
    void setBaseConfig(std::function<RunConfig()> current) { baseConfig_ = std::move(current); }
    // The chart on the view's current sub-tab, for File > Export chart; nullptr on the report.
    QCustomPlot* currentPlot();
    QString currentChartName() const;
    // The table as shown (filtered, sorted) as CSV. Throws wb::IoError.
    void exportTable(const QString& path) const;

    SweepWatcher& watcher() { return *watcher_; }
    QTableView& table() { return *table_; }
    SweepFilterModel& filter() { return *filter_; }
    ParallelCoordinatesChart& parallel() { return *parallel_; }
    MetricByParameterChart& byParameter() { return *byParameter_; }
    QString reportText() const;

public slots:
    void openSweepDialog();  // File > Open sweep…
    void newSweep();         // File > New sweep…: the dialog, then `mlpwb sweep` detached
    void saveReport();       // the report as text, CSV or JSON

signals:
    // The RunRecords of the trials selected in the table (those that have one), to show in the charts.
    void overlayRequested(const QStringList& recordPaths);
    void status(const QString& message);

private:
    void buildModels();
    void buildTable();
    void buildCharts();
    QWidget* buildTableBox();
    QHBoxLayout* buildTopRow();
    void connectSignals();
    void rebuild();  // the watcher saw a change: table, charts, summary
    void widenColumnsToContents();
    void redrawParallel();
    void selectionChanged();
    void exportTableDialog();

    SweepWatcher* watcher_ = nullptr;
    SweepTableModel* model_ = nullptr;
    SweepFilterModel* filter_ = nullptr;
    SweepAxes axes_;
    QLabel* summary_ = nullptr;
    QLineEdit* filterText_ = nullptr;
    QTableView* table_ = nullptr;
    QTabWidget* charts_ = nullptr;
    ParallelCoordinatesChart* parallel_ = nullptr;
    MetricByParameterChart* byParameter_ = nullptr;
    QPlainTextEdit* report_ = nullptr;
    std::function<RunConfig()> baseConfig_;
};

}  // namespace wb::gui
