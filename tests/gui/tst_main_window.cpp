// The whole window, offscreen: its shortcuts are unambiguous, and a Compare on the built-in data
// queues the two presets (the queue dock shows them), trains both on the worker and overlays them.
#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QToolBar>
#include <QtTest>
#include <map>

#include "about_dialog.h"
#include "data_panel.h"
#include "main_window.h"
#include "metatypes.h"
#include "metric_chart.h"
#include "model_panel.h"
#include "queue_panel.h"
#include "run_folder.h"
#include "run_store.h"
#include "training_controller.h"

using namespace wb;
using namespace wb::gui;

namespace {
constexpr int kRunTimeoutMs = 120000;  // generous: the build machine is shared
}

class TestMainWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void shortcutsAreUniqueAndPresent_data();
    void shortcutsAreUniqueAndPresent();
    void compareQueuesAndOverlaysBothPresets();
    void lastConfigurationPersists();
    void viewMenuReopensClosedDocks_data();
    void viewMenuReopensClosedDocks();
    void aboutNamesTheVersions();
    void hasAMinimumSize();

private:
    QTemporaryDir runFolder_;
};

void TestMainWindow::initTestCase() {
    // Settings and run records go to a test location, not the user's.
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("MLP Workbench tests");
    QCoreApplication::setApplicationName("tst_main_window");
    QSettings().clear();  // every run starts from the defaults, whatever an earlier run left
    registerMetaTypes();
    QVERIFY(runFolder_.isValid());
    setRunFolder(runFolder_.path());  // an empty folder: no run of an earlier test run is restored
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
    QCOMPARE(window.store().runs()[0].config.at("model"), window.store().runs()[1].config.at("model"));
    for (auto* chart : window.findChildren<MetricChart*>()) {
        chart->refreshNow();
        QCOMPARE(chart->pointCount(window.store().runs()[0].id), 3);
        QCOMPARE(chart->pointCount(window.store().runs()[1].id), 3);
    }
    QVERIFY2(window.statusBar()->findChildren<QLabel*>().size() >= 2, "run and backend labels");
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
        first.close();  // saves the settings
    }
    MainWindow second;
    auto* data = second.findChild<DataPanel*>();
    QTRY_VERIFY_WITH_TIMEOUT(data->dataset() != nullptr, kRunTimeoutMs);
    QCOMPARE(data->dataset()->rows, std::size_t{3000});  // the built-in set at start-up, as it was
    QCOMPARE(data->dataSpec().seed, std::uint64_t{7});
    QCOMPARE(second.currentConfig().train.epochs, 17);
    QCOMPARE(second.currentConfig().train.batchSize, 512);
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

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
