// The workbench window: configuration docked on the left, charts in the centre, the runs table
// below, a toolbar and a status bar. It wires the panels, the run store, the training controller
// and the charts together; each of those lives in its own file.
#pragma once

#include <QElapsedTimer>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QTabWidget>
#include <optional>

#include <vector>

#include "core/run/run_config.h"

class QDockWidget;

namespace wb::gui {

class AblationTab;
class AnswerView;
class BreakdownChart;
class ConfusionView;
class DataPanel;
class ExecutionPanel;
class MetricChart;
class ModelPanel;
class RunFolderLoader;
class RunStore;
class RunsTableView;
class SpeedupChart;
class SweepsView;
class TrainingController;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // The configuration the panels describe now (the next Run trains this).
    RunConfig currentConfig() const;
    RunStore& store() { return *store_; }
    AblationTab& ablationTab() { return *ablationTab_; }
    TrainingController& controller() { return *controller_; }
    RunsTableView& runsView() { return *runsView_; }
    // True while the runs of the run folder (runFolder()) are still being read back at start-up.
    bool restoringRuns() const;
    // Opens RunRecord files (ours, peers', or the JSON array Export data writes); says why for a bad one.
    void openRunFiles(const QStringList& paths);
    // Shows these RunRecords in the charts: opened once, made visible again when already open.
    void overlayRuns(const QStringList& paths);
    SweepsView& sweepsView() { return *sweepsView_; }
    AnswerView& answerView() { return *answerView_; }
    void openAnswer(const QString& path);  // on the Answer tab; says why (a message box) when it cannot
    void openSweep(const QString& dir);    // on the Sweeps tab

public slots:
    void runCurrent();  // Ctrl+R: queue the current configuration
    // Ctrl+Shift+R: queue "Seed PyTorch loop" and "Fastest" on the same setup, each repeated (in rounds)
    // as the execution panel's Compare repeats say
    void compare();
    // Esc (outside text fields and spin boxes): stop the current run (it is marked cancelled). Asks
    // first unless the run began under kStopWithoutAskingMs ago.
    void stop();
    void clearQueue();
    void openData();        // Ctrl+O
    void openRuns();        // RunRecord JSON files (ours or peers')
    void exportChart();     // Ctrl+E: the chart on the current tab
    void exportRunData();   // the selected runs' per-epoch data as CSV, or their RunRecords as JSON
    void answerQuestion();  // Ctrl+Shift+A: the Answer tab, started on the current data and model
    // File > Export report: the answer, the Ablation tab's result and the runs shown in the charts, as
    // one PDF or HTML document.
    void exportReport();
    void showAbout();

protected:
    void closeEvent(QCloseEvent* event) override;
    // Files dropped on the window: RunRecord .json files open as runs, anything else as data.
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void buildDocks();
    void buildConfigurationDock();
    QDockWidget* buildRunsDock();
    void buildQueueDock(QDockWidget* runsDock);
    void connectPanels();
    void buildCharts();
    void buildActions();
    void buildMenus();
    void restoreRuns();  // reads the run folder back in the background
    void rememberRecent(const QString& path);
    void refreshRecentMenu();
    void connectTraining();
    // Queues `configs` × `repeats` in rounds once the data the panel shows is loaded; refuses (saying
    // why) when a panel holds a value that cannot run or that data cannot be loaded.
    void queueRepeats(std::vector<RunConfig> configs, int repeats);
    bool queueRun(RunConfig config);                        // false (and says why) when the configuration is refused
    void refuse(const QString& title, const QString& why);  // the status bar and a dialog that does not block
    void showBackendLabel();
    void restoreSettings();
    void saveSettings() const;
    QString newRecordPath(int id) const;

    RunStore* store_ = nullptr;
    TrainingController* controller_ = nullptr;
    DataPanel* dataPanel_ = nullptr;
    ModelPanel* modelPanel_ = nullptr;
    ExecutionPanel* executionPanel_ = nullptr;
    RunsTableView* runsView_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    MetricChart* lossChart_ = nullptr;
    MetricChart* accuracyChart_ = nullptr;
    MetricChart* timeChart_ = nullptr;
    BreakdownChart* breakdownChart_ = nullptr;
    SpeedupChart* speedupChart_ = nullptr;
    ConfusionView* confusionView_ = nullptr;
    AblationTab* ablationTab_ = nullptr;
    SweepsView* sweepsView_ = nullptr;
    AnswerView* answerView_ = nullptr;
    QLabel* backendLabel_ = nullptr;
    QLabel* runLabel_ = nullptr;
    QMenu* recentMenu_ = nullptr;
    RunFolderLoader* runLoader_ = nullptr;
    QElapsedTimer runClock_;         // since clockedRun_ started
    std::optional<int> clockedRun_;  // the controller's current run when the clock last started
};

// Restored at start-up, the newest this many runs are shown in the charts (the rest only in the table).
constexpr int kChartedAtStart = 12;
// A run younger than this stops without a question: a misclick costs little then.
constexpr qint64 kStopWithoutAskingMs = 5000;

}  // namespace wb::gui
