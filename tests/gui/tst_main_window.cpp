// The whole window, offscreen: its shortcuts are unambiguous, a Compare on the built-in data queues
// the two presets with their repeats in rounds under unique names (the queue dock shows them), trains
// them on the worker and overlays them; Run trains the data the Data panel shows (loading it first),
// and refuses, saying why, data that cannot be loaded or a learning rate outside its range.
#include <QAbstractSpinBox>
#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QToolBar>
#include <QtTest>
#include <map>
#include <memory>
#include <optional>

#include "gui/charts/chart_controls.h"
#include "gui/charts/metric_chart.h"
#include "gui/panels/data_panel.h"
#include "gui/panels/execution_panel.h"
#include "gui/panels/model_panel.h"
#include "gui/runs/run_folder.h"
#include "gui/runs/run_store.h"
#include "gui/training/metatypes.h"
#include "gui/training/queue_panel.h"
#include "gui/training/training_controller.h"
#include "gui/window/about_dialog.h"
#include "gui/window/main_window.h"
#include "tests/test_support.h"

using namespace wb;
using namespace wb::gui;

namespace {
constexpr int kRunTimeoutMs = 120000;  // generous: the build machine is shared
}

class TestMainWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void shortcutsAreUniqueAndPresent_data();
    void shortcutsAreUniqueAndPresent();
    void compareQueuesAndOverlaysBothPresets();
    void compareRepeatsInRoundsWithUniqueNames();
    void runTrainsWhatTheDataPanelShows();
    void runRefuses_data();
    void runRefuses();
    void lastConfigurationPersists();
    void viewMenuReopensClosedDocks_data();
    void viewMenuReopensClosedDocks();
    void aboutNamesTheVersions();
    void hasAMinimumSize();
    void chartControlsSitAboveTheShownMetricChart();

private:
    std::unique_ptr<QTemporaryDir> runFolder_;
};

void TestMainWindow::initTestCase() {
    // Settings and run records go to a test location, not the user's.
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("MLP Workbench tests");
    QCoreApplication::setApplicationName("tst_main_window");
    QSettings().clear();  // every run starts from the defaults, whatever an earlier run left
    registerMetaTypes();
}

// Each test's window starts from an empty run folder: the runs an earlier test (or test run) made
// are not restored into it.
void TestMainWindow::init() {
    runFolder_ = std::make_unique<QTemporaryDir>();
    QVERIFY(runFolder_->isValid());
    setRunFolder(runFolder_->path());
}

void TestMainWindow::shortcutsAreUniqueAndPresent_data() {
    QTest::addColumn<QString>("keys");
    QTest::newRow("open data") << "Ctrl+O";
    QTest::newRow("run") << "Ctrl+R";
    QTest::newRow("compare") << "Ctrl+Shift+R";
    QTest::newRow("stop") << "Esc";
    QTest::newRow("export chart") << "Ctrl+E";
}

// Two actions with one shortcut make it ambiguous, and Qt then triggers neither.
void TestMainWindow::shortcutsAreUniqueAndPresent() {
    QFETCH(QString, keys);
    MainWindow window;
    std::map<QString, int> actionsPerShortcut;
    for (const QAction* action : window.findChildren<QAction*>())
        for (const QKeySequence& key : action->shortcuts()) ++actionsPerShortcut[key.toString()];
    for (const auto& [key, count] : actionsPerShortcut) QVERIFY2(count == 1, qPrintable(key + " is ambiguous"));
    QCOMPARE(actionsPerShortcut[QKeySequence(keys).toString()], 1);
}

void TestMainWindow::compareQueuesAndOverlaysBothPresets() {
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* data = window.findChild<DataPanel*>();
    QVERIFY(data);
    QTRY_VERIFY_WITH_TIMEOUT(data->dataset() != nullptr, kRunTimeoutMs);  // the built-in set, loaded at start-up
    auto* model = window.findChild<ModelPanel*>();
    TrainSpec train = model->trainSpec();
    train.epochs = 3;
    model->setTrainSpec(train);
    auto* queue = window.findChild<QueuePanel*>();
    QVERIFY(queue);
    QVERIFY(window.findChild<QDockWidget*>("queueDock"));

    window.findChild<ExecutionPanel*>()->setRepeats(1, 1);  // one of each here; repeats have their own test
    QSignalSpy finished(&window.controller(), &TrainingController::runFinished);
    window.compare();
    QCOMPARE(window.store().runs().size(), std::size_t{2});
    QCOMPARE(window.store().runs()[0].name, QString("Seed PyTorch loop"));
    QCOMPARE(window.store().runs()[1].name, QString("Fastest"));
    QCOMPARE(queue->list()->count(), 2);  // one training, one waiting
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, kRunTimeoutMs);

    QCOMPARE(queue->list()->count(), 0);
    for (const RunEntry& run : window.store().runs()) {
        QCOMPARE(QString::fromStdString(toString(run.record.status)), QString("completed"));
        QCOMPARE(run.record.epochs.size(), std::size_t{3});
        QCOMPARE(run.record.config.value("train", nlohmann::json::object()).value("seed", 0), 1);
        QVERIFY(!run.queued);
    }
    // The same data, model and seed: only the execution switches differ.
    QCOMPARE(window.store().runs()[0].record.config.at("model"), window.store().runs()[1].record.config.at("model"));
    for (auto* chart : window.findChildren<MetricChart*>()) {
        chart->refreshNow();
        QCOMPARE(chart->pointCount(window.store().runs()[0].id), 3);
        QCOMPARE(chart->pointCount(window.store().runs()[1].id), 3);
    }
    QVERIFY2(window.statusBar()->findChildren<QLabel*>().size() >= 2, "run and backend labels");
}

// Compare with 3 repeats: A1 B1 A2 B2 A3 B3, so a drift of the machine hits both alike; a second
// Compare in the session gets names of its own. The Speedup chart shows one bar per preset.
void TestMainWindow::compareRepeatsInRoundsWithUniqueNames() {
    MainWindow window;
    auto* data = window.findChild<DataPanel*>();
    QTRY_VERIFY_WITH_TIMEOUT(data->dataset() != nullptr, kRunTimeoutMs);
    auto* model = window.findChild<ModelPanel*>();
    TrainSpec train = model->trainSpec();
    train.epochs = 2;
    model->setTrainSpec(train);
    auto* execution = window.findChild<ExecutionPanel*>();
    QCOMPARE(execution->compareRepeats(), 3);  // the default: a speed claim needs a spread
    QCOMPARE(execution->runRepeats(), 1);
    window.compare();
    window.compare();
    QStringList names;
    for (const RunEntry& run : window.store().runs()) names << run.name;
    const QString dot = QString::fromUtf8(" \u00b7 ");
    QStringList expected;
    for (const QString& suffix : {QString(), QString(" #2")})
        for (int round = 1; round <= 3; ++round)
            for (const QString& preset : {QString("Seed PyTorch loop"), QString("Fastest")})
                expected << QString("%1%2%3/3%4").arg(preset, dot).arg(round).arg(suffix);
    QCOMPARE(names, expected);
    window.clearQueue();
    window.stop();
}

// The built-in data is loaded; the panel is then set to other rows without pressing Load. Run loads
// what the panel shows and trains that, not the data loaded before.
void TestMainWindow::runTrainsWhatTheDataPanelShows() {
    MainWindow window;
    auto* data = window.findChild<DataPanel*>();
    QTRY_VERIFY_WITH_TIMEOUT(data->dataset() != nullptr, kRunTimeoutMs);
    QCOMPARE(data->dataset()->rows, std::size_t{100000});
    DataSpec spec = data->editedSpec();
    spec.rows = 3000;
    data->setDataSpec(spec);
    QVERIFY(!data->showsLoaded());
    auto* model = window.findChild<ModelPanel*>();
    TrainSpec train = model->trainSpec();
    train.epochs = 2;
    model->setTrainSpec(train);

    QSignalSpy finished(&window.controller(), &TrainingController::runFinished);
    window.runCurrent();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kRunTimeoutMs);
    QCOMPARE(window.store().runs().size(), std::size_t{1});
    const RunEntry& run = window.store().runs().front();
    QCOMPARE(run.record.dataset.rows, std::size_t{3000});
    QCOMPARE(run.runConfig->data.rows, std::size_t{3000});
    QVERIFY(data->showsLoaded());
}

void TestMainWindow::runRefuses_data() {
    QTest::addColumn<QString>("what");
    QTest::addColumn<QString>("reason");  // in the status bar
    QTest::newRow("a file that cannot be loaded") << "missing file"
                                                  << "cannot be loaded";
    QTest::newRow("learning rate 100") << "lr 100" << QString::fromUtf8("learning rate 100 is outside 1e-12 … 10");
    QTest::newRow("more memory than the machine has") << "1 MB available"
                                                      << "needs";
}

// Nothing is queued (nor trained on the data loaded before), and the status bar says why.
void TestMainWindow::runRefuses() {
    QFETCH(QString, what);
    QFETCH(QString, reason);
    std::optional<ScopedEnv> memory;  // set for one case
    MainWindow window;
    auto* data = window.findChild<DataPanel*>();
    QTRY_VERIFY_WITH_TIMEOUT(data->dataset() != nullptr, kRunTimeoutMs);
    if (what == "missing file") {
        DataSpec spec = data->editedSpec();
        spec.kind = DataSpec::Kind::Csv;
        spec.path = "/nonexistent/folder/data.csv";
        data->setDataSpec(spec);
    } else if (what == "1 MB available") {
        memory.emplace("MLPWB_AVAILABLE_MEMORY", "1000000");  // the built-in 100,000 rows need ~50 MB
    } else {
        auto* lr = window.findChild<QAbstractSpinBox*>("lr");
        QVERIFY(lr);
        lr->setFocus();
        lr->selectAll();
        QTest::keyClicks(lr, "100");
        QTest::keyClick(lr, Qt::Key_Return);
    }
    window.runCurrent();
    QTRY_VERIFY2_WITH_TIMEOUT(window.statusBar()->currentMessage().contains(reason),
                              qPrintable(window.statusBar()->currentMessage()), kRunTimeoutMs);
    QVERIFY(window.store().runs().empty());
    QCOMPARE(window.controller().queued(), 0);
}

// What the panels held when the window closed comes back in the next window (through QSettings).
void TestMainWindow::lastConfigurationPersists() {
    {
        MainWindow first;
        auto* data = first.findChild<DataPanel*>();
        DataSpec spec = data->dataSpec();
        spec.rows = 3000;
        spec.seed = 7;
        data->setDataSpec(spec);
        auto* model = first.findChild<ModelPanel*>();
        TrainSpec train = model->trainSpec();
        train.epochs = 17;
        train.batchSize = 512;
        model->setTrainSpec(train);
        first.findChild<ExecutionPanel*>()->setThreads(3);
        QCOMPARE(first.currentConfig().threads, 3);  // what Run queues
        first.close();                               // saves the settings
    }
    MainWindow second;
    auto* data = second.findChild<DataPanel*>();
    QTRY_VERIFY_WITH_TIMEOUT(data->dataset() != nullptr, kRunTimeoutMs);
    QCOMPARE(data->dataset()->rows, std::size_t{3000});  // the built-in set at start-up, as it was
    QCOMPARE(data->dataSpec().seed, std::uint64_t{7});
    QCOMPARE(second.currentConfig().train.epochs, 17);
    QCOMPARE(second.currentConfig().train.batchSize, 512);
    QCOMPARE(second.currentConfig().threads, 3);
}

void TestMainWindow::viewMenuReopensClosedDocks_data() {
    QTest::addColumn<QString>("dock");
    QTest::newRow("configuration") << "configurationDock";
    QTest::newRow("runs") << "runsDock";
    QTest::newRow("queue") << "queueDock";
}

// A closed dock comes back through View (its toggle action); the toolbar too.
void TestMainWindow::viewMenuReopensClosedDocks() {
    QFETCH(QString, dock);
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* widget = window.findChild<QDockWidget*>(dock);
    QVERIFY(widget);
    auto* view = window.menuBar()->findChild<QMenu*>("viewMenu");
    QVERIFY(view);
    QVERIFY(view->actions().contains(widget->toggleViewAction()));
    widget->close();
    QVERIFY(!widget->isVisible());
    widget->toggleViewAction()->trigger();
    QVERIFY(widget->isVisible());
    auto* bar = window.findChild<QToolBar*>("mainToolBar");
    QVERIFY(view->actions().contains(bar->toggleViewAction()));
}

void TestMainWindow::aboutNamesTheVersions() {
    AboutDialog about;
    for (const QString& part :
         {QString(WB_VERSION), QString(qVersion()), QString("QCustomPlot"), QString("CUDA"), compilerDescription()})
        QVERIFY2(about.text().contains(part), qPrintable(part));
    // The CUDA line is filled in from a worker thread.
    QTRY_VERIFY_WITH_TIMEOUT(!about.text().contains("checking"), kRunTimeoutMs);
}

void TestMainWindow::hasAMinimumSize() {
    MainWindow window;
    QVERIFY(window.minimumWidth() >= 1000);
    QVERIFY(window.minimumHeight() >= 600);
}

// The metric charts' controls are one row at the top of whichever metric chart is shown, not in the
// toolbar (where they sat behind its overflow at 1,280 px), and follow the tab.
void TestMainWindow::chartControlsSitAboveTheShownMetricChart() {
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* controls = window.findChild<ChartControls*>();
    QVERIFY(controls);
    QVERIFY(!window.findChild<QToolBar*>("mainToolBar")->isAncestorOf(controls));
    auto* tabs = window.findChild<QTabWidget*>();
    for (int i = 0; i < tabs->count(); ++i) {
        auto* chart = qobject_cast<MetricChart*>(tabs->widget(i));
        if (!chart) continue;
        tabs->setCurrentIndex(i);
        QCOMPARE(controls->parentWidget(), static_cast<QWidget*>(chart));
        QVERIFY2(controls->isVisible(), qPrintable(tabs->tabText(i)));
        QVERIFY(controls->geometry().bottom() < chart->plot().geometry().top());  // above the plot
    }
}

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
