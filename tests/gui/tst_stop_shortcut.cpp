// Esc is Stop's shortcut, and a 300-epoch run once died of an Esc typed into a text field. Esc in a
// line edit, a spin box or a combo box of the window belongs to that editor: the run trains on.
// Esc with the focus elsewhere (the runs table) still stops a run that has just begun, without a
// question; an older run stops only when the question is answered Yes.
#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QLineEdit>
#include <QMessageBox>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>
#include <memory>

#include "gui/panels/data_panel.h"
#include "gui/panels/model_panel.h"
#include "gui/runs/run_folder.h"
#include "gui/runs/run_store.h"
#include "gui/runs/runs_table_view.h"
#include "gui/training/metatypes.h"
#include "gui/training/training_controller.h"
#include "gui/window/main_window.h"

using namespace wb;
using namespace wb::gui;

namespace {
constexpr int kRunTimeoutMs = 120000;  // generous: the build machine is shared; nothing is timed

// The editor of `kind` in the window that takes the focus.
QWidget* editorOf(MainWindow& window, const QString& kind) {
    if (kind == "line edit") return window.runsView().filterEdit();
    if (kind == "spin box") return window.findChild<ModelPanel*>()->findChild<QAbstractSpinBox*>();
    if (kind == "combo box") return window.findChild<QComboBox*>();
    return window.runsView().table();
}
}  // namespace

class TestStopShortcut : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void escapeStopsOnlyOutsideEditors_data();
    void escapeStopsOnlyOutsideEditors();
    void stopAsksOnceTheRunIsOlder();

private:
    std::unique_ptr<QTemporaryDir> runFolder_;
};

void TestStopShortcut::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("MLP Workbench tests");
    QCoreApplication::setApplicationName("tst_stop_shortcut");
    QSettings().clear();
    registerMetaTypes();
}

// Each window gets an empty run folder: the runs it trains are written there, and none is restored.
void TestStopShortcut::init() {
    runFolder_ = std::make_unique<QTemporaryDir>();
    QVERIFY(runFolder_->isValid());
    setRunFolder(runFolder_->path());
}

void TestStopShortcut::escapeStopsOnlyOutsideEditors_data() {
    QTest::addColumn<QString>("focus");
    QTest::addColumn<bool>("stops");
    QTest::newRow("line edit") << "line edit" << false;
    QTest::newRow("spin box") << "spin box" << false;
    QTest::newRow("combo box") << "combo box" << false;
    QTest::newRow("runs table") << "runs table" << true;
}

void TestStopShortcut::escapeStopsOnlyOutsideEditors() {
    QFETCH(QString, focus);
    QFETCH(bool, stops);
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    QApplication::setActiveWindow(&window);
    QVERIFY(QTest::qWaitForWindowActive(&window));
    auto* data = window.findChild<DataPanel*>();
    QTRY_VERIFY_WITH_TIMEOUT(data->dataset() != nullptr, kRunTimeoutMs);
    auto* model = window.findChild<ModelPanel*>();
    TrainSpec train = model->trainSpec();
    train.epochs = 300;
    model->setTrainSpec(train);

    QSignalSpy finished(&window.controller(), &TrainingController::runFinished);
    window.runCurrent();
    QCOMPARE(window.store().runs().size(), std::size_t{1});
    const int id = window.store().runs()[0].id;
    QTRY_VERIFY_WITH_TIMEOUT(!window.store().find(id)->queued, kRunTimeoutMs);  // the worker began it

    QWidget* target = editorOf(window, focus);
    QVERIFY(target);
    target->setFocus();
    QTRY_VERIFY(target->hasFocus() || target->isAncestorOf(QApplication::focusWidget()));
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Escape);
    if (stops) {
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kRunTimeoutMs);
        QVERIFY(window.store().find(id)->record.status == RunStatus::Cancelled);
        return;
    }
    QTest::qWait(300);  // a stop would end the run within a step
    QCOMPARE(finished.count(), 0);
    QCOMPARE(window.controller().currentRun(), std::optional<int>(id));
    window.controller().stopCurrent();  // the test's own end, not Esc's
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kRunTimeoutMs);
}

// A run older than kStopWithoutAskingMs stops only when the question is answered Yes.
void TestStopShortcut::stopAsksOnceTheRunIsOlder() {
    MainWindow window;
    auto* data = window.findChild<DataPanel*>();
    QTRY_VERIFY_WITH_TIMEOUT(data->dataset() != nullptr, kRunTimeoutMs);
    auto* model = window.findChild<ModelPanel*>();
    TrainSpec train = model->trainSpec();
    train.epochs = 100000;  // longer than the test: only a stop ends it
    model->setTrainSpec(train);
    QSignalSpy finished(&window.controller(), &TrainingController::runFinished);
    window.runCurrent();
    const int id = window.store().runs()[0].id;
    QTRY_VERIFY_WITH_TIMEOUT(!window.store().find(id)->queued, kRunTimeoutMs);
    QTest::qWait(static_cast<int>(kStopWithoutAskingMs) + 200);

    auto answer = [](QMessageBox::StandardButton button, bool* asked) {
        QTimer::singleShot(0, [button, asked] {
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            if (!box) return;
            *asked = true;
            box->button(button)->click();
        });
    };
    bool asked = false;
    answer(QMessageBox::No, &asked);
    window.stop();
    QVERIFY(asked);
    QTest::qWait(300);
    QCOMPARE(finished.count(), 0);  // No: it trains on

    asked = false;
    answer(QMessageBox::Yes, &asked);
    window.stop();
    QVERIFY(asked);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kRunTimeoutMs);
    QVERIFY(window.store().find(id)->record.status == RunStatus::Cancelled);
}

QTEST_MAIN(TestStopShortcut)
#include "tst_stop_shortcut.moc"
