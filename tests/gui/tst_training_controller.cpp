// The training controller: runs train on the worker thread one at a time, report each epoch, stop
// on request, turn every failure into a failed record, and never block the GUI thread.
#include <QElapsedTimer>
#include <QEventLoop>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>
#include <memory>

#include "core/data/builtin_data.h"
#include "core/run/backend.h"
#include "core/run/run_record.h"
#include "gui/runs/run_store.h"
#include "gui/runs/runs_table_model.h"
#include "gui/training/metatypes.h"
#include "gui/training/training_controller.h"

using namespace wb;
using namespace wb::gui;

namespace {
constexpr int kRunTimeoutMs = 60000;  // generous: the build machine is shared; nothing here times training

std::shared_ptr<const Dataset> seedData(std::size_t rows) {
    return std::make_shared<const Dataset>(generateSeedLike(rows, 1));
}

RunRequest request(int id, int epochs, std::shared_ptr<const Dataset> data, QString recordPath = {}) {
    RunRequest r;
    r.id = id;
    r.config.name = "run " + std::to_string(id);
    r.config.data.rows = data ? data->rows : 0;
    r.config.train.epochs = epochs;
    r.config.train.batchSize = 256;
    r.config.backend = "cpu";
    r.dataset = std::move(data);
    r.job = TrainJob{std::move(recordPath)};
    return r;
}

RunRecord recordOf(const QSignalSpy& finished, int i) {
    return finished.at(i).at(1).value<RunRecord>();
}

QString statusOf(const RunRecord& record) {
    return QString::fromStdString(toString(record.status));
}

bool cudaAvailable() {
    for (const auto& info : BackendRegistry::instance().list())
        if (info.name == "cuda" && info.available) return true;
    return false;
}
}  // namespace

class TestTrainingController : public QObject {
    Q_OBJECT

private slots:
    void threeEpochRun();
    void queuedRunsRunOneAfterAnother();
    void stopCancelsWithinAnEpoch();
    void stopWhenIdleDoesNotCancelTheNextRun();
    void clearQueueDropsPendingRuns();
    void eventLoopStaysResponsive();
    void badConfigFailsAndQueueGoesOn_data();
    void badConfigFailsAndQueueGoesOn();
    void destructorStopsARunningTraining();
};

void TestTrainingController::threeEpochRun() {
    QTemporaryDir dir;
    const QString path = dir.filePath("run.json");
    TrainingController controller;
    QSignalSpy started(&controller, &TrainingController::runStarted);
    QSignalSpy epochs(&controller, &TrainingController::epochFinished);
    QSignalSpy finished(&controller, &TrainingController::runFinished);
    controller.enqueue(request(7, 3, seedData(2000), path));
    QVERIFY(controller.busy());
    QCOMPARE(controller.currentRun().value_or(0), 7);

    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kRunTimeoutMs);
    QCOMPARE(started.count(), 1);
    QCOMPARE(started.at(0).at(0).toInt(), 7);
    QCOMPARE(epochs.count(), 3);
    for (int i = 0; i < 3; ++i) {
        QCOMPARE(epochs.at(i).at(0).toInt(), 7);
        QCOMPARE(epochs.at(i).at(1).value<EpochMetrics>().epoch, i + 1);
    }
    const RunRecord record = recordOf(finished, 0);
    QCOMPARE(finished.at(0).at(0).toInt(), 7);
    QCOMPARE(statusOf(record), QString("completed"));
    QCOMPARE(record.epochs.size(), std::size_t{3});
    QVERIFY(!controller.busy());
    // The record on disk is the same run, loadable like any other.
    QCOMPARE(statusOf(RunRecord::load(path.toStdString())), QString("completed"));
}

void TestTrainingController::queuedRunsRunOneAfterAnother() {
    TrainingController controller;
    QStringList events;
    connect(&controller, &TrainingController::runStarted, this, [&](int id) { events << QString("start %1").arg(id); });
    connect(&controller, &TrainingController::epochFinished, this,
            [&](int id, const EpochMetrics&) { events << QString("epoch %1").arg(id); });
    connect(&controller, &TrainingController::runFinished, this,
            [&](int id, const RunRecord&) { events << QString("finish %1").arg(id); });
    QSignalSpy finished(&controller, &TrainingController::runFinished);
    const auto data = seedData(2000);
    controller.enqueue(request(1, 2, data));
    controller.enqueue(request(2, 2, data));
    QCOMPARE(controller.queued(), 1);  // the first has gone to the worker, the second waits

    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, kRunTimeoutMs);
    const QStringList expected = {"start 1", "epoch 1", "epoch 1", "finish 1",
                                  "start 2", "epoch 2", "epoch 2", "finish 2"};
    QCOMPARE(events, expected);
    QCOMPARE(controller.queued(), 0);
    QVERIFY(!controller.busy());
}

void TestTrainingController::stopCancelsWithinAnEpoch() {
    TrainingController controller;
    QSignalSpy finished(&controller, &TrainingController::runFinished);
    // Stop as soon as the GUI hears of the first epoch, from the handler itself.
    int epochAtStop = 0;
    QElapsedTimer sinceStop;
    connect(&controller, &TrainingController::epochFinished, this, [&](int, const EpochMetrics& m) {
        if (epochAtStop > 0) return;
        epochAtStop = m.epoch;
        sinceStop.start();
        controller.stopCurrent();
    });
    // A wide model makes an epoch (~0.3 s here) far longer than the GUI thread can lag behind the
    // worker on a loaded machine, so "stopped within an epoch" does not depend on the machine's load.
    RunRequest r = request(1, 10000, seedData(20000));
    r.config.model.hidden = {256, 256};
    controller.enqueue(r);

    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kRunTimeoutMs);
    const RunRecord record = recordOf(finished, 0);
    QCOMPARE(statusOf(record), QString("cancelled"));
    QVERIFY2(record.message.find("cancelled during epoch") != std::string::npos, record.message.c_str());
    // At most the epoch in flight when the stop arrived, plus one whose signal was still on its way.
    QVERIFY2(record.epochs.size() <= static_cast<std::size_t>(epochAtStop) + 2,
             qPrintable(QString("stopped after epoch %1, ended after %2").arg(epochAtStop).arg(record.epochs.size())));
    qInfo("stopped at epoch %d, the run ended after %zu epochs, %lld ms later", epochAtStop, record.epochs.size(),
          static_cast<long long>(sinceStop.elapsed()));
}

void TestTrainingController::stopWhenIdleDoesNotCancelTheNextRun() {
    TrainingController controller;
    QSignalSpy finished(&controller, &TrainingController::runFinished);
    controller.stopCurrent();  // nothing runs: nothing to stop, and nothing remembered
    controller.enqueue(request(1, 2, seedData(2000)));
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kRunTimeoutMs);
    QCOMPARE(statusOf(recordOf(finished, 0)), QString("completed"));
}

void TestTrainingController::clearQueueDropsPendingRuns() {
    TrainingController controller;
    QSignalSpy started(&controller, &TrainingController::runStarted);
    QSignalSpy finished(&controller, &TrainingController::runFinished);
    QSignalSpy queueChanged(&controller, &TrainingController::queueChanged);
    const auto data = seedData(20000);
    controller.enqueue(request(1, 10000, data));
    controller.enqueue(request(2, 3, data));
    controller.enqueue(request(3, 3, data));
    QCOMPARE(controller.queued(), 2);
    controller.clearQueue();
    QCOMPARE(controller.queued(), 0);
    QVERIFY(queueChanged.count() >= 4);
    controller.stopCurrent();
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kRunTimeoutMs);
    QTest::qWait(200);  // the dropped runs would start now if they were still queued
    QCOMPARE(started.count(), 1);
    QCOMPARE(finished.count(), 1);
    QCOMPARE(statusOf(recordOf(finished, 0)), QString("cancelled"));
}

// The GUI thread keeps answering while epochs stream: a call queued to it after each of the first
// batches runs while the run still trains (before its end, which only the stop can bring), the stop
// queued after the third is obeyed, and every epoch arrives in order through the batches. Events and
// counts only: on a slow or busy machine the run just streams longer before it is stopped.
void TestTrainingController::eventLoopStaysResponsive() {
    // The real path: every epoch goes into the store and the runs table, as in the window.
    TrainingController controller;
    RunStore store;
    RunsTableModel table(&store);
    connect(&controller, &TrainingController::epochsFinished, &store, &RunStore::appendEpochs);
    QSignalSpy batches(&controller, &TrainingController::epochsFinished);
    connect(&controller, &TrainingController::runFinished, &store, &RunStore::finish);
    QSignalSpy finished(&controller, &TrainingController::runFinished);
    // Many short epochs, a flood of signals, more than the run can train before the test's timeout:
    // only the stop ends it.
    constexpr int kEpochs = 10'000'000;
    RunRequest run = request(0, kEpochs, seedData(2000));
    run.id = store.addPending(run.config);

    constexpr int kAnswersBeforeStop = 3;
    std::vector<bool> answeredWhileTraining;  // one per queued call, in the order they ran
    int callsQueued = 0;
    connect(&controller, &TrainingController::epochsFinished, this, [&] {
        if (callsQueued == kAnswersBeforeStop) return;
        ++callsQueued;
        QMetaObject::invokeMethod(
            this,
            [&] {
                answeredWhileTraining.push_back(controller.busy() && finished.isEmpty());
                if (answeredWhileTraining.size() == kAnswersBeforeStop) controller.stopCurrent();
            },
            Qt::QueuedConnection);
    });
    controller.enqueue(run);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kRunTimeoutMs);

    QVERIFY(!controller.busy());
    QCOMPARE(answeredWhileTraining, std::vector<bool>(kAnswersBeforeStop, true));
    const RunRecord& record = store.find(run.id)->record;
    QCOMPARE(statusOf(record), QString("cancelled"));
    const auto& epochs = record.epochs;
    qInfo("%zu epochs in %lld batches before the stop took effect", epochs.size(),
          static_cast<long long>(batches.count()));
    QVERIFY(epochs.size() < static_cast<std::size_t>(kEpochs));
    QVERIFY(batches.count() >= kAnswersBeforeStop);
    // Every epoch arrived, in order, through the batches.
    std::size_t inBatches = 0;
    for (const auto& args : batches)
        inBatches += static_cast<std::size_t>(args.at(1).value<QList<EpochMetrics>>().size());
    QCOMPARE(inBatches, epochs.size());
    for (std::size_t i = 0; i < epochs.size(); ++i) QCOMPARE(epochs[i].epoch, static_cast<int>(i) + 1);
}

void TestTrainingController::badConfigFailsAndQueueGoesOn_data() {
    QTest::addColumn<QString>("backend");
    QTest::addColumn<QString>("initWeights");
    QTest::addColumn<int>("hiddenWidth");
    QTest::addColumn<bool>("withData");
    QTest::addColumn<QString>("messagePart");
    QTest::newRow("unknown backend") << "no-such-backend"
                                     << "" << 20 << true << "unknown backend";
    QTest::newRow("cuda without a device") << "cuda"
                                           << "" << 20 << true << "cuda";
    QTest::newRow("missing initial weights")
        << "cpu"
        << "/nonexistent/weights.safetensors" << 20 << true << "weights.safetensors";
    QTest::newRow("layer width 0") << "cpu"
                                   << "" << 0 << true << "";
    QTest::newRow("no data set") << "cpu"
                                 << "" << 20 << false << "no data set";
}

void TestTrainingController::badConfigFailsAndQueueGoesOn() {
    QFETCH(QString, backend);
    QFETCH(QString, initWeights);
    QFETCH(int, hiddenWidth);
    QFETCH(bool, withData);
    QFETCH(QString, messagePart);
    if (backend == "cuda" && cudaAvailable()) QSKIP("this machine has a CUDA device");

    const auto data = seedData(2000);
    RunRequest bad = request(1, 3, withData ? data : nullptr);
    bad.config.backend = backend.toStdString();
    bad.config.initWeights = initWeights.toStdString();
    bad.config.model.hidden = {hiddenWidth, 10};
    TrainingController controller;
    QSignalSpy finished(&controller, &TrainingController::runFinished);
    controller.enqueue(bad);
    controller.enqueue(request(2, 2, data));

    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 2, kRunTimeoutMs);
    const RunRecord failed = recordOf(finished, 0);
    QCOMPARE(finished.at(0).at(0).toInt(), 1);
    QCOMPARE(statusOf(failed), QString("failed"));
    QVERIFY(!failed.message.empty());
    QVERIFY2(QString::fromStdString(failed.message).contains(messagePart), failed.message.c_str());
    QCOMPARE(finished.at(1).at(0).toInt(), 2);
    QCOMPARE(statusOf(recordOf(finished, 1)), QString("completed"));
}

void TestTrainingController::destructorStopsARunningTraining() {
    auto controller = std::make_unique<TrainingController>();
    QSignalSpy epochs(controller.get(), &TrainingController::epochFinished);
    controller->enqueue(request(1, 10000, seedData(20000)));
    controller->enqueue(request(2, 10000, seedData(2000)));
    QTRY_VERIFY_WITH_TIMEOUT(epochs.count() > 0, kRunTimeoutMs);
    QElapsedTimer timer;
    timer.start();
    controller.reset();  // cancels, quits and joins: returns once the worker has stopped
    qInfo("the controller was gone after %lld ms", static_cast<long long>(timer.elapsed()));
    QVERIFY(timer.elapsed() < kRunTimeoutMs);
}

QTEST_MAIN(TestTrainingController)
#include "tst_training_controller.moc"
