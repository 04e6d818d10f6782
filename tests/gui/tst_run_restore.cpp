// Runs survive a restart: the window reads back every RunRecord in the run folder (a temporary one
// here, through setRunFolder), a record a killed session left "running" comes back "interrupted"
// with its journal's epochs; Delete asks and, when told to, deletes the record and its journal; the
// JSON that Export data writes opens again as the same runs.
#include <QCheckBox>
#include <QFile>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include "core/run/epoch_journal.h"
#include "core/run/run_record.h"
#include "gui/charts/chart_export.h"
#include "gui/runs/run_folder.h"
#include "gui/runs/run_store.h"
#include "gui/runs/runs_table_model.h"
#include "gui/runs/runs_table_view.h"
#include "gui/training/metatypes.h"
#include "gui/window/main_window.h"

using namespace wb;
using namespace wb::gui;

namespace {
constexpr int kRestoreTimeoutMs = 30000;  // generous: the build machine is shared; nothing is timed

EpochMetrics epoch(int n, double loss) {
    EpochMetrics m;
    m.epoch = n;
    m.warmup = n == 1;
    m.trainLoss = loss;
    m.trainAccuracy = 0.8;
    m.wallMs = 10.0 + n;
    m.elapsedMs = 11.0 * n;
    return m;
}

// A finished run's record, written where the window would write it.
RunRecord record(const std::string& name, RunStatus status, int epochs) {
    RunRecord r;
    r.name = name;
    r.status = status;
    RunConfig config;  // the built-in data on the CPU backend
    config.name = name;
    config.train.epochs = 5;
    r.config = config;
    for (int n = 1; n <= epochs; ++n) r.epochs.push_back(epoch(n, 1.0 / n));
    return r;
}

QString write(const QTemporaryDir& dir, const QString& file, const RunRecord& r) {
    const QString path = dir.filePath(file);
    r.save(path.toStdString());
    return path;
}

// The epochs a killed run had recorded: the record says "running" with none, the journal has them.
QString writeKilledRun(const QTemporaryDir& dir, const QString& file, int epochs) {
    const QString path = write(dir, file, record("killed", RunStatus::Running, 0));
    EpochJournal journal(path.toStdString());
    for (int n = 1; n <= epochs; ++n) journal.append(epoch(n, 0.5));
    return path;
}

QString statusOf(MainWindow& window, int id) {
    RunsTableModel* model = window.runsView().model();
    return model->index(model->rowOf(id), RunsTableModel::Status).data().toString();
}

// Answers the Delete question when it comes: ticks "delete the files" as asked, then Remove.
void answerDeleteQuestion(bool removeFiles, bool* answered) {
    QTimer::singleShot(0, [removeFiles, answered] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box) return;
        box->checkBox()->setChecked(removeFiles);
        for (QAbstractButton* button : box->buttons())
            if (box->buttonRole(button) == QMessageBox::DestructiveRole) button->click();
        *answered = true;
    });
}
}  // namespace

class TestRunRestore : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanup();
    void restoresTheRunsInTheFolder();
    void olderRunsAreListedFromTheirSummaries();
    void deleteAsksAndRemovesFilesWhenTold_data();
    void deleteAsksAndRemovesFilesWhenTold();
    void exportedJsonOpensAsTheSameRuns();
};

void TestRunRestore::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("MLP Workbench tests");
    QCoreApplication::setApplicationName("tst_run_restore");
    QSettings().clear();
    registerMetaTypes();
}

void TestRunRestore::cleanup() {
    setRunFolder(QString());
}

void TestRunRestore::restoresTheRunsInTheFolder() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    write(dir, "20260101-100000-run1.json", record("first", RunStatus::Completed, 5));
    write(dir, "20260101-100100-run2.json", record("second", RunStatus::Cancelled, 3));
    writeKilledRun(dir, "20260101-100200-run3.json", 2);
    QFile junk(dir.filePath("20260101-100300-run4.json"));  // a damaged file: reported, not fatal
    QVERIFY(junk.open(QIODevice::WriteOnly));
    junk.write("{ not json");
    junk.close();
    setRunFolder(dir.path());

    MainWindow window;
    QTRY_VERIFY_WITH_TIMEOUT(!window.restoringRuns(), kRestoreTimeoutMs);
    const auto& runs = window.store().runs();
    QCOMPARE(runs.size(), std::size_t{3});
    QCOMPARE(runs[0].name, QString("first"));
    QCOMPARE(runs[1].name, QString("second"));
    QCOMPARE(runs[2].name, QString("killed"));
    QCOMPARE(runs[0].record.epochs.size(), std::size_t{5});
    QCOMPARE(runs[0].path, dir.filePath("20260101-100000-run1.json"));
    QCOMPARE(statusOf(window, runs[0].id), QString("completed"));
    QCOMPARE(statusOf(window, runs[1].id), QString("cancelled"));
    // Killed while it trained: its journal's epochs, and a status that says what happened.
    QCOMPARE(runs[2].record.epochs.size(), std::size_t{2});
    QVERIFY(runs[2].interrupted);
    QCOMPARE(statusOf(window, runs[2].id), QString("interrupted"));
}

// More runs than the charts show at once: the older ones are listed from their files' summaries
// (hidden, the epochs left on disk), with the numbers the whole file gives, and read when shown.
void TestRunRestore::olderRunsAreListedFromTheirSummaries() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    constexpr int kRuns = kChartedAtStart + 6;
    for (int i = 0; i < kRuns; ++i)
        write(dir, QString("20260101-1%1-run.json").arg(i, 5, 10, QChar('0')),
              record("run " + std::to_string(i), RunStatus::Completed, 2 + i % 4));
    QFile junk(dir.filePath("20260101-000000-cut.json"));  // damaged (skimmed, then read whole): reported
    QVERIFY(junk.open(QIODevice::WriteOnly));
    junk.write("{ \"schema\": \"mlpwb.run/1\", \"epochs\": [");
    junk.close();
    setRunFolder(dir.path());

    MainWindow window;
    QTRY_VERIFY_WITH_TIMEOUT(!window.restoringRuns(), kRestoreTimeoutMs);
    const auto& runs = window.store().runs();
    QCOMPARE(runs.size(), std::size_t{kRuns});
    QVERIFY(window.statusBar()->currentMessage().contains("1 file(s) could not be read"));
    RunsTableModel* model = window.runsView().model();
    for (int i = 0; i < kRuns; ++i) {
        const RunEntry& run = runs[static_cast<std::size_t>(i)];
        const bool older = i < kRuns - kChartedAtStart;
        QCOMPARE(run.epochsOnDisk, older);
        QCOMPARE(run.visible, !older);
        const std::size_t epochs = static_cast<std::size_t>(2 + i % 4);
        QCOMPARE(run.digest.epochCount, epochs);
        QCOMPARE(model->index(model->rowOf(run.id), RunsTableModel::Progress).data().toString(),
                 QString("%1/5").arg(epochs));
        const RunRecord whole = RunRecord::load(run.path.toStdString());
        QCOMPARE(run.digest.summary.medianEpochMs, whole.summary().medianEpochMs);
        QCOMPARE(model->index(model->rowOf(run.id), RunsTableModel::TrainLoss).data().toString(),
                 QString::number(whole.epochs.back().trainLoss, 'f', 4));
    }
    // A chart asks for the first run's epochs: showing it reads them.
    const int first = runs.front().id;
    window.store().setVisible(first, true);
    QCOMPARE(window.store().find(first)->record.epochs.size(), std::size_t{2});
    QVERIFY(!window.store().find(first)->epochsOnDisk);
}

void TestRunRestore::deleteAsksAndRemovesFilesWhenTold_data() {
    QTest::addColumn<bool>("removeFiles");
    QTest::newRow("remove files too") << true;
    QTest::newRow("keep the files") << false;
}

void TestRunRestore::deleteAsksAndRemovesFilesWhenTold() {
    QFETCH(bool, removeFiles);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = writeKilledRun(dir, "20260101-100000-run1.json", 3);
    const QString journal = QString::fromStdString(EpochJournal::pathFor(path.toStdString()));
    QVERIFY(QFile::exists(journal));
    setRunFolder(dir.path());

    MainWindow window;
    window.show();
    QTRY_VERIFY_WITH_TIMEOUT(!window.restoringRuns(), kRestoreTimeoutMs);
    QCOMPARE(window.store().runs().size(), std::size_t{1});
    window.runsView().selectRuns({window.store().runs()[0].id});
    bool answered = false;
    answerDeleteQuestion(removeFiles, &answered);
    window.runsView().deleteAction()->trigger();
    QVERIFY(answered);
    QVERIFY(window.store().runs().empty());
    QCOMPARE(QFile::exists(path), !removeFiles);
    QCOMPARE(QFile::exists(journal), !removeFiles);
}

void TestRunRestore::exportedJsonOpensAsTheSameRuns() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    write(dir, "20260101-100000-run1.json", record("first", RunStatus::Completed, 5));
    write(dir, "20260101-100100-run2.json", record("second", RunStatus::Diverged, 2));
    setRunFolder(dir.path());
    MainWindow window;
    QTRY_VERIFY_WITH_TIMEOUT(!window.restoringRuns(), kRestoreTimeoutMs);
    QCOMPARE(window.store().runs().size(), std::size_t{2});
    const int first = window.store().runs()[0].id;
    window.store().rename(first, "renamed");

    QTemporaryDir out;
    const QString exported = out.filePath("runs.json");
    exportRunsJson(window.store(), {first, window.store().runs()[1].id}, exported);  // Export data → JSON
    window.openRunFiles({exported});

    const auto& runs = window.store().runs();
    QCOMPARE(runs.size(), std::size_t{4});
    for (std::size_t i = 0; i < 2; ++i) {
        QCOMPARE(runs[i + 2].name, runs[i].name);
        QVERIFY(runs[i + 2].record.status == runs[i].record.status);
        QCOMPARE(runs[i + 2].record.epochs.size(), runs[i].record.epochs.size());
        QCOMPARE(runs[i + 2].record.config, runs[i].record.config);
        QVERIFY(runs[i + 2].path.isEmpty());  // one file, many runs: none owns it
    }
    QCOMPARE(runs[2].name, QString("renamed"));
}

QTEST_MAIN(TestRunRestore)
#include "tst_run_restore.moc"
