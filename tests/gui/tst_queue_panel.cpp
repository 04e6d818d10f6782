// The queue panel over a real training controller and run store (linked as in the window): the
// running run on top, the waiting ones below in order; Remove and Clear drop waiting runs from the
// controller's queue and their rows from the store; deleting a waiting run's row drops it too.
#include <QSignalSpy>
#include <QtTest>
#include <memory>

#include "core/data/builtin_data.h"
#include "core/measure/ablation.h"
#include "core/run/run_record.h"
#include "gui/runs/run_store.h"
#include "gui/training/metatypes.h"
#include "gui/training/queue_binding.h"
#include "gui/training/queue_panel.h"
#include "gui/training/training_controller.h"

using namespace wb;
using namespace wb::gui;

namespace {
constexpr int kRunTimeoutMs = 60000;  // generous: the build machine is shared

// A run added to the store as the window does it, then queued.
int queueRun(RunStore& store, TrainingController& controller, const std::string& name, int epochs,
             const std::shared_ptr<const Dataset>& data) {
    RunConfig config;
    config.name = name;
    config.data.rows = data->rows;
    config.train.epochs = epochs;
    config.train.batchSize = 256;
    config.backend = "cpu";
    const int id = store.addPending(config);
    controller.enqueue({id, config, data, TrainJob{}});
    return id;
}

void select(QueuePanel& panel, int id) {
    for (int row = 0; row < panel.list()->count(); ++row) {
        QListWidgetItem* item = panel.list()->item(row);
        item->setSelected(item->data(QueuePanel::RunIdRole).toInt() == id);
    }
}
}  // namespace

class TestQueuePanel : public QObject {
    Q_OBJECT

private slots:
    void showsRunningAndWaitingRuns();
    void removeOneThenClear();
    void finishedRunLeavesThePanel();
    void finishedAblationLeavesNoGhostEntry();
};

void TestQueuePanel::showsRunningAndWaitingRuns() {
    RunStore store;
    TrainingController controller;
    linkQueueToStore(controller, store);
    QueuePanel panel(&controller, &store);
    QCOMPARE(panel.list()->count(), 0);
    QVERIFY(!panel.clearAction()->isEnabled());
    QVERIFY(!panel.stopAction()->isEnabled());

    const auto data = std::make_shared<const Dataset>(generateSeedLike(20000, 1));
    const int a = queueRun(store, controller, "long", 10000, data);
    const int b = queueRun(store, controller, "second", 3, data);
    const int c = queueRun(store, controller, "third", 3, data);
    QCOMPARE(panel.shownRuns(), (std::vector<int>{a, b, c}));
    QVERIFY(panel.list()->item(0)->data(QueuePanel::RunningRole).toBool());
    QVERIFY(panel.list()->item(0)->text().startsWith(QChar(0x25B6)));
    QVERIFY(panel.list()->item(0)->font().bold());
    QVERIFY(panel.list()->item(1)->text().startsWith("1. second"));
    QVERIFY(panel.list()->item(2)->text().startsWith("2. third"));
    QCOMPARE(panel.summary()->text(), QString("1 running, 2 waiting"));
    QVERIFY(panel.clearAction()->isEnabled());
    QVERIFY(panel.stopAction()->isEnabled());
    // The worker begins the first: the store hears it, the others still wait.
    QTRY_VERIFY_WITH_TIMEOUT(!store.find(a)->queued, kRunTimeoutMs);
    QVERIFY(store.find(b)->queued);
    QVERIFY(store.find(c)->queued);

    QSignalSpy finished(&controller, &TrainingController::runFinished);
    panel.stopAction()->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() >= 1, kRunTimeoutMs);
    QCOMPARE(finished.at(0).at(0).toInt(), a);
    QCOMPARE(QString::fromStdString(toString(finished.at(0).at(1).value<RunRecord>().status)), QString("cancelled"));
    controller.clearQueue();  // "third" may have started already: the controller's destructor stops it
}

void TestQueuePanel::removeOneThenClear() {
    RunStore store;
    TrainingController controller;
    linkQueueToStore(controller, store);
    QueuePanel panel(&controller, &store);
    QSignalSpy started(&controller, &TrainingController::runStarted);
    QSignalSpy finished(&controller, &TrainingController::runFinished);
    QSignalSpy dropped(&controller, &TrainingController::runDropped);

    const auto data = std::make_shared<const Dataset>(generateSeedLike(20000, 1));
    const int a = queueRun(store, controller, "long", 10000, data);
    const int b = queueRun(store, controller, "b", 3, data);
    const int c = queueRun(store, controller, "c", 3, data);
    const int d = queueRun(store, controller, "d", 3, data);
    QCOMPARE(controller.queued(), 3);

    // Remove one waiting run from the panel.
    QVERIFY(!panel.removeAction()->isEnabled());
    select(panel, a);  // the running one cannot be removed (Stop is for it)
    QVERIFY(!panel.removeAction()->isEnabled());
    select(panel, c);
    QVERIFY(panel.removeAction()->isEnabled());
    panel.removeAction()->trigger();
    QCOMPARE(controller.queued(), 2);
    QCOMPARE(panel.shownRuns(), (std::vector<int>{a, b, d}));
    QCOMPARE(dropped.count(), 1);
    QCOMPARE(dropped.at(0).at(0).toInt(), c);
    QVERIFY(!store.find(c));  // never trained: its row goes too

    // Deleting a waiting run's row in the runs table takes it out of the queue.
    store.remove(b);
    QCOMPARE(controller.queued(), 1);
    QCOMPARE(panel.shownRuns(), (std::vector<int>{a, d}));

    // Clear drops the rest; the running one stays.
    panel.clearAction()->trigger();
    QCOMPARE(controller.queued(), 0);
    QCOMPARE(panel.shownRuns(), (std::vector<int>{a}));
    QVERIFY(!store.find(d));
    QVERIFY(store.find(a));
    QCOMPARE(panel.summary()->text(), QString("1 running, 0 waiting"));
    QVERIFY(!panel.clearAction()->isEnabled());

    controller.stopCurrent();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kRunTimeoutMs);
    QTest::qWait(200);  // a dropped run would start now if it were still queued
    QCOMPARE(started.count(), 1);
}

void TestQueuePanel::finishedRunLeavesThePanel() {
    RunStore store;
    TrainingController controller;
    linkQueueToStore(controller, store);
    QueuePanel panel(&controller, &store);
    QSignalSpy finished(&controller, &TrainingController::runFinished);
    const auto data = std::make_shared<const Dataset>(generateSeedLike(2000, 1));
    queueRun(store, controller, "short", 2, data);
    QCOMPARE(panel.list()->count(), 1);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kRunTimeoutMs);
    QCOMPARE(panel.list()->count(), 0);
    QVERIFY(panel.summary()->text().startsWith("Nothing running"));
    QVERIFY(!panel.stopAction()->isEnabled());
}

// An ablation is queued as the Ablation tab does it: a request with an id of its own (negative, no
// run of the store). While it trains the panel names it; once it ends nothing stays behind.
void TestQueuePanel::finishedAblationLeavesNoGhostEntry() {
    RunStore store;
    TrainingController controller;
    linkQueueToStore(controller, store);
    QueuePanel panel(&controller, &store);
    QSignalSpy finished(&controller, &TrainingController::ablationFinished);
    const auto data = std::make_shared<const Dataset>(generateSeedLike(400, 1));
    RunRequest request;
    request.id = -1;
    request.config.name = "Ablation from Seed PyTorch loop";
    request.config.train.epochs = 2;
    request.config.train.batchSize = 64;
    request.config.backend = "cpu";
    request.dataset = data;
    AblationPlan plan;
    plan.fixes = {"loss"};
    plan.repeats = 1;
    request.job = AblationJob{std::make_shared<const AblationPlan>(plan)};
    controller.enqueue(request);
    QCOMPARE(panel.list()->count(), 1);
    QVERIFY(panel.list()->item(0)->text().contains("Ablation from Seed PyTorch loop"));
    QVERIFY(!panel.list()->item(0)->text().contains("run -1"));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kRunTimeoutMs);
    QCOMPARE(panel.list()->count(), 0);
    QVERIFY(panel.summary()->text().startsWith("Nothing running"));
    QVERIFY(!panel.stopAction()->isEnabled());
}

QTEST_MAIN(TestQueuePanel)
#include "tst_queue_panel.moc"
