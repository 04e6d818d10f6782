// The run store (colours, files ours and peers', baseline and speedup) and the runs table over it.
#include <QDialog>
#include <QFile>
#include <QHeaderView>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <set>

#include <nlohmann/json.hpp>

#include "core/model/execution_settings.h"
#include "core/platform/errors.h"
#include "gui/runs/run_digest.h"
#include "gui/runs/run_folder.h"
#include "gui/runs/run_store.h"
#include "gui/runs/runs_table_model.h"
#include "gui/runs/runs_table_view.h"

using namespace wb;
using namespace wb::gui;

namespace {
// A record whose epochs took `wallMs` each (the first is the warm-up one).
RunRecord recordWithEpochs(const QList<double>& wallMs, RunStatus status = RunStatus::Completed) {
    RunRecord record;
    record.status = status;
    for (int i = 0; i < wallMs.size(); ++i) {
        EpochMetrics m;
        m.epoch = i + 1;
        m.warmup = i == 0;
        m.trainLoss = 0.5 - 0.01 * i;
        m.trainAccuracy = 0.7 + 0.01 * i;
        m.wallMs = wallMs[i];
        record.epochs.push_back(m);
    }
    return record;
}

RunConfig namedConfig(const std::string& name) {
    RunConfig config;
    config.name = name;
    return config;
}

// What a PyTorch peer in bench/peers/ writes: its own config keys, nulls where it cannot measure.
const char* kPeerRecord = R"({
  "schema": "mlpwb.run/1", "name": "PyTorch DataLoader loop", "status": "completed", "message": "",
  "config": {"backend": "pytorch", "execution": null, "train": {"epochs": 2, "batch_size": 2048}},
  "dataset": {"source": "builtin", "rows": 2000, "features": 61, "label": "label", "hash": null},
  "environment": {"backend": "pytorch", "device": "cpu", "threads": 2},
  "epochs": [
    {"epoch": 1, "warmup": true, "train_loss": 0.69, "train_accuracy": 0.52, "val_loss": null,
     "val_accuracy": null, "wall_ms": 480.0, "device_ms": null, "samples_per_s": 4100.0, "phases_ms": null},
    {"epoch": 2, "warmup": false, "train_loss": 0.66, "train_accuracy": 0.61, "val_loss": null,
     "val_accuracy": null, "wall_ms": 460.0, "device_ms": null, "samples_per_s": 4300.0, "phases_ms": null}],
  "summary": {"median_epoch_ms": 460.0, "min_epoch_ms": 460.0, "total_ms": 940.0, "final": null}
})";

QString statusOf(const RunEntry* run) {
    return QString::fromStdString(toString(run->record.status));
}

void writeFile(const QString& path, const QByteArray& text) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(text);
}

// A record of every kind of epoch the skim must read as the full reader does.
RunRecord variedRecord(bool regression, bool validation, int epochs) {
    RunRecord record = recordWithEpochs({}, RunStatus::Completed);
    record.name = "varied";
    record.config = {{"name", "varied"}, {"backend", "cpu"}, {"train", {{"epochs", epochs}}}};
    record.environment = {{"backend", "cpu"}};
    for (int i = 0; i < epochs; ++i) {
        EpochMetrics m;
        m.epoch = i + 1;
        m.warmup = i == 0;
        m.trainLoss = 0.9 / (i + 1);
        m.trainAccuracy = regression ? 0 : 0.5 + 0.01 * i;
        m.wallMs = 20.0 + (i % 5) * 1.5 + (i == 0 ? 30 : 0);
        m.elapsedMs = 25.0 * (i + 1);
        m.phases = PhaseTimes{0.5, 5, 9, 1, 0.25};
        if (validation) {
            m.valLoss = 1.0 / (i + 1);
            m.valAccuracy = regression ? std::nullopt : std::optional<double>(0.6);
        }
        if (regression) m.trainRegression = RegressionMetrics{0.3, 0.4, 0.5 + 0.001 * i};
        record.epochs.push_back(m);
    }
    return record;
}

void compareDigests(const RunDigest& skimmed, const RunDigest& full) {
    QCOMPARE(skimmed.epochCount, full.epochCount);
    QCOMPARE(skimmed.summary.medianEpochMs, full.summary.medianEpochMs);
    QCOMPARE(skimmed.summary.minEpochMs, full.summary.minEpochMs);
    QCOMPARE(skimmed.summary.totalMs, full.summary.totalMs);
    QCOMPARE(skimmed.timedLow, full.timedLow);
    QCOMPARE(skimmed.timedHigh, full.timedHigh);
    QCOMPARE(skimmed.regression, full.regression);
    QCOMPARE(skimmed.summary.final.has_value(), full.summary.final.has_value());
    if (full.summary.final) {
        QCOMPARE(skimmed.summary.final->trainLoss, full.summary.final->trainLoss);
        QCOMPARE(skimmed.summary.final->valLoss, full.summary.final->valLoss);
        QCOMPARE(skimmed.summary.final->wallMs, full.summary.final->wallMs);
    }
}
}  // namespace

class TestRunStore : public QObject {
    Q_OBJECT

private slots:
    void coloursAreDistinctAndReadable();
    void addPendingStartsRunning();
    void appendEpochAndFinish();
    void addFromFileReadsOwnRecord();
    void addFromFileReadsPeerRecord();
    void badFileLeavesStoreUnchanged_data();
    void badFileLeavesStoreUnchanged();
    void speedup_data();
    void speedup();
    void removeClearsBaseline();
    void renameAndVisibility();
    void modelRowsFollowStore();
    void checkboxTogglesVisibility();
    void renameViaSetData();
    void speedupColumnText();
    void speedupColumnFollowsTheChartsRule_data();
    void speedupColumnFollowsTheChartsRule();
    void epochUpdatesOnlyItsRow();
    void configDifferences_data();
    void configDifferences();
    void viewActionsFollowSelection();
    void columnsFitTheirText_data();
    void columnsFitTheirText();
    void frameworkRunsAreOursWithTheirVersion_data();
    void frameworkRunsAreOursWithTheirVersion();
    void skimReadsWhatTheFullReaderReads_data();
    void skimReadsWhatTheFullReaderReads();
    void skimLeavesToTheFullReader_data();
    void skimLeavesToTheFullReader();
    void skimmedRunReadsItsEpochsWhenShown();
    void skimmedRunWhoseFileBrokeStaysListed();
    void epochAmongManyRunsChangesOneRow();
    void columnsAreSizedOnceAndOnDemand();
};

void TestRunStore::coloursAreDistinctAndReadable() {
    RunStore store;
    std::set<QRgb> seen;
    for (int i = 0; i < 40; ++i) {
        const QColor c = store.find(store.addPending(namedConfig("r")))->color;
        QVERIFY2(seen.insert(c.rgb()).second, qPrintable(QString("colour %1 repeats: %2").arg(i).arg(c.name())));
        QVERIFY2(c.lightnessF() < 0.8f, qPrintable(c.name() + " is too pale on white"));
    }
}

void TestRunStore::addPendingStartsRunning() {
    RunStore store;
    QSignalSpy added(&store, &RunStore::runAdded);
    RunConfig config = namedConfig("");
    config.execution = presetByName("Seed PyTorch loop").settings;
    const int a = store.addPending(config);
    const int b = store.addPending(namedConfig("Second"));
    QCOMPARE(added.count(), 2);
    QVERIFY(a != b);
    const RunEntry* run = store.find(a);
    QVERIFY(run);
    QCOMPARE(run->name, QString("Run %1").arg(a));  // unnamed configs get a name
    QCOMPARE(run->preset(), QString("Seed PyTorch loop"));
    QCOMPARE(run->backend(), QString("cpu"));
    QCOMPARE(statusOf(run), QString("running"));  // what the record says; the run is also waiting:
    QVERIFY(run->queued);
    QSignalSpy changed(&store, &RunStore::runChanged);
    store.markStarted(a);
    QVERIFY(!store.find(a)->queued);
    QCOMPARE(changed.count(), 1);
    store.markStarted(a);  // said once only
    QCOMPARE(changed.count(), 1);
    QCOMPARE(store.find(b)->name, QString("Second"));
    QCOMPARE(store.find(b)->preset(), QString("custom"));  // the default switches match no preset
    QVERIFY(!store.find(12345));
}

void TestRunStore::appendEpochAndFinish() {
    RunStore store;
    const int id = store.addPending(namedConfig("Live"));
    QSignalSpy appended(&store, &RunStore::epochAppended);
    QSignalSpy changed(&store, &RunStore::runChanged);
    const RunRecord final = recordWithEpochs({30, 10, 12});
    store.appendEpoch(id, final.epochs[0]);
    store.appendEpoch(id, final.epochs[1]);
    store.appendEpoch(999, final.epochs[1]);  // a removed run: ignored
    QCOMPARE(appended.count(), 2);
    QCOMPARE(store.find(id)->record.epochs.size(), std::size_t{2});
    store.rename(id, "Renamed while training");
    store.finish(id, final);
    QCOMPARE(changed.count(), 2);
    const RunEntry* run = store.find(id);
    QCOMPARE(statusOf(run), QString("completed"));
    QCOMPARE(run->record.epochs.size(), std::size_t{3});
    QCOMPARE(run->name, QString("Renamed while training"));
}

void TestRunStore::addFromFileReadsOwnRecord() {
    QTemporaryDir dir;
    RunRecord saved = recordWithEpochs({40, 20, 22});
    saved.name = "Saved earlier";
    RunConfig config = namedConfig("Saved earlier");
    config.execution = presetByName("Static graph (Keras-like)").settings;
    saved.config = config;
    const QString path = dir.filePath("saved.json");
    saved.save(path.toStdString());

    RunStore store;
    QSignalSpy added(&store, &RunStore::runAdded);
    const int id = store.addFromFile(path);
    QCOMPARE(added.count(), 1);
    const RunEntry* run = store.find(id);
    QCOMPARE(run->name, QString("Saved earlier"));
    QCOMPARE(run->preset(), QString("Static graph (Keras-like)"));
    QCOMPARE(run->backend(), QString("cpu"));
    QCOMPARE(run->path, path);
    QCOMPARE(run->record.epochs.size(), std::size_t{3});
    QCOMPARE(statusOf(run), QString("completed"));
}

void TestRunStore::addFromFileReadsPeerRecord() {
    QTemporaryDir dir;
    const QString path = dir.filePath("peer.json");
    writeFile(path, kPeerRecord);
    RunStore store;
    const int id = store.addFromFile(path);
    const RunEntry* run = store.find(id);
    QCOMPARE(run->name, QString("PyTorch DataLoader loop"));
    QCOMPARE(run->preset(), QString("peer"));
    QCOMPARE(run->backend(), QString("pytorch"));
    QCOMPARE(run->record.epochs.size(), std::size_t{2});
    QVERIFY(!run->record.epochs[1].phases);
    QCOMPARE(run->record.summary().medianEpochMs.value_or(0), 460.0);
}

void TestRunStore::badFileLeavesStoreUnchanged_data() {
    QTest::addColumn<QByteArray>("content");  // empty: the file does not exist
    QTest::newRow("missing file") << QByteArray();
    QTest::newRow("not JSON") << QByteArray("epoch,loss\n1,0.5\n");
    QTest::newRow("wrong schema") << QByteArray(R"({"schema": "mlpwb.ablation/1", "steps": []})");
    QTest::newRow("epoch without wall time")
        << QByteArray(R"({"schema": "mlpwb.run/1", "epochs": [{"epoch": 1, "train_loss": 0.5}]})");
}

void TestRunStore::badFileLeavesStoreUnchanged() {
    QFETCH(QByteArray, content);
    QTemporaryDir dir;
    const QString path = dir.filePath("bad.json");
    if (!content.isEmpty()) writeFile(path, content);
    RunStore store;
    const int kept = store.addPending(namedConfig("Kept"));
    QSignalSpy added(&store, &RunStore::runAdded);
    QVERIFY_THROWS_EXCEPTION(wb::DataError, store.addFromFile(path));
    QCOMPARE(added.count(), 0);
    QCOMPARE(store.runs().size(), std::size_t{1});
    QCOMPARE(store.runs().front().id, kept);
}

void TestRunStore::speedup_data() {
    QTest::addColumn<QList<double>>("baselineMs");
    QTest::addColumn<QList<double>>("runMs");
    QTest::addColumn<double>("expected");
    // The warm-up (first) epoch is left out of the medians.
    QTest::newRow("4x faster") << QList<double>{100, 20, 20, 20} << QList<double>{50, 5, 5, 5} << 4.0;
    QTest::newRow("2x slower") << QList<double>{100, 10, 10} << QList<double>{9, 20, 20} << 0.5;
    QTest::newRow("even count median") << QList<double>{1, 30, 10} << QList<double>{1, 5, 5, 15} << 4.0;
}

void TestRunStore::speedup() {
    QFETCH(QList<double>, baselineMs);
    QFETCH(QList<double>, runMs);
    QFETCH(double, expected);
    RunStore store;
    const int base = store.addPending(namedConfig("Base"));
    const int run = store.addPending(namedConfig("Run"));
    store.finish(base, recordWithEpochs(baselineMs));
    store.finish(run, recordWithEpochs(runMs));
    // Until the user picks one, the first run with a median is the baseline (as in the chart).
    QVERIFY(!store.baseline());
    QCOMPARE(store.effectiveBaseline().value_or(0), base);
    QCOMPARE(store.speedup(run).value_or(-1), expected);
    QSignalSpy changed(&store, &RunStore::baselineChanged);
    store.setBaseline(run);
    QCOMPARE(store.effectiveBaseline().value_or(0), run);
    QCOMPARE(store.speedup(base).value_or(-1), 1.0 / expected);
    store.setBaseline(base);
    QCOMPARE(changed.count(), 2);
    QCOMPARE(store.baseline().value_or(0), base);
    QCOMPARE(store.speedup(run).value_or(-1), expected);
    QCOMPARE(store.speedup(base).value_or(-1), 1.0);
    const int empty = store.addPending(namedConfig("No epochs yet"));
    QVERIFY(!store.speedup(empty));
}

void TestRunStore::removeClearsBaseline() {
    RunStore store;
    const int a = store.addPending(namedConfig("A"));
    const int b = store.addPending(namedConfig("B"));
    store.setBaseline(a);
    QSignalSpy removed(&store, &RunStore::runRemoved);
    QSignalSpy baselineChanged(&store, &RunStore::baselineChanged);
    store.remove(b);
    QCOMPARE(store.baseline().value_or(0), a);  // another run's removal keeps the baseline
    QCOMPARE(baselineChanged.count(), 0);
    store.remove(a);
    QCOMPARE(removed.count(), 2);
    QCOMPARE(baselineChanged.count(), 1);
    QVERIFY(!store.baseline());
    QVERIFY(!store.find(a));
    QVERIFY(store.runs().empty());
    store.remove(a);  // twice: nothing happens
    QCOMPARE(removed.count(), 2);
}

void TestRunStore::renameAndVisibility() {
    RunStore store;
    const int id = store.addPending(namedConfig("Before"));
    QSignalSpy changed(&store, &RunStore::runChanged);
    store.rename(id, "  ");      // a run keeps a name
    store.setVisible(id, true);  // already visible: no change
    QCOMPARE(changed.count(), 0);
    store.rename(id, " After ");
    store.setVisible(id, false);
    QCOMPARE(changed.count(), 2);
    QCOMPARE(store.find(id)->name, QString("After"));
    QVERIFY(!store.find(id)->visible);
}

void TestRunStore::modelRowsFollowStore() {
    RunStore store;
    const int a = store.addPending(namedConfig("A"));
    RunsTableModel model(&store);
    const int b = store.addPending(namedConfig("B"));
    const int c = store.addPending(namedConfig("C"));
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.columnCount(), int(RunsTableModel::ColumnCount));
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    store.remove(b);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.runId(0), a);
    QCOMPARE(model.runId(1), c);
    QCOMPARE(model.index(1, RunsTableModel::Name).data().toString(), QString("C"));
    QCOMPARE(model.index(0, RunsTableModel::Status).data().toString(), QString("queued"));
    store.markStarted(a);
    QCOMPARE(model.index(0, RunsTableModel::Status).data().toString(), QString("running"));
    QCOMPARE(model.index(1, RunsTableModel::Status).data().toString(), QString("queued"));
    QCOMPARE(model.index(0, RunsTableModel::Shown).data(Qt::DecorationRole).value<QColor>(), store.find(a)->color);
    QCOMPARE(reset.count(), 0);
}

void TestRunStore::checkboxTogglesVisibility() {
    RunStore store;
    RunsTableModel model(&store);
    const int id = store.addPending(namedConfig("A"));
    const QModelIndex shown = model.index(0, RunsTableModel::Shown);
    QVERIFY(model.flags(shown) & Qt::ItemIsUserCheckable);
    QCOMPARE(shown.data(Qt::CheckStateRole).toInt(), int(Qt::Checked));
    QVERIFY(model.setData(shown, Qt::Unchecked, Qt::CheckStateRole));
    QVERIFY(!store.find(id)->visible);
    QCOMPARE(shown.data(Qt::CheckStateRole).toInt(), int(Qt::Unchecked));
    store.setVisible(id, true);  // and the other way: the store changes, the checkbox follows
    QCOMPARE(shown.data(Qt::CheckStateRole).toInt(), int(Qt::Checked));
}

void TestRunStore::renameViaSetData() {
    RunStore store;
    RunsTableModel model(&store);
    const int id = store.addPending(namedConfig("Old"));
    const QModelIndex name = model.index(0, RunsTableModel::Name);
    QVERIFY(model.flags(name) & Qt::ItemIsEditable);
    QVERIFY(!(model.flags(model.index(0, RunsTableModel::Status)) & Qt::ItemIsEditable));
    QVERIFY(model.setData(name, "New name"));
    QCOMPARE(store.find(id)->name, QString("New name"));
    QCOMPARE(name.data().toString(), QString("New name"));
    QVERIFY(!model.setData(name, "   "));
    QCOMPARE(store.find(id)->name, QString("New name"));
}

void TestRunStore::speedupColumnFollowsTheChartsRule_data() {
    QTest::addColumn<QList<double>>("runMs");
    QTest::addColumn<QString>("runData");  // the run's data set source; the baseline's is "builtin"
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("tip");
    // The baseline's timed epochs span 20-30 ms (the warm-up first epoch is left out).
    QTest::newRow("measurably faster") << QList<double>{50, 5, 5} << "builtin" << QString::fromUtf8("5.00×")
                                       << "faster";
    QTest::newRow("inside the spread") << QList<double>{90, 22, 28, 24} << "builtin" << QString::fromUtf8("≈ same")
                                       << "no measurable difference";
    QTest::newRow("other data") << QList<double>{50, 5, 5} << "bc.csv"
                                << "not comparable"
                                << "not comparable: different data (bc.csv";
}

// Two identical configurations must not read as "1.41×": the table says what the Speedup chart says.
void TestRunStore::speedupColumnFollowsTheChartsRule() {
    QFETCH(QList<double>, runMs);
    QFETCH(QString, runData);
    QFETCH(QString, text);
    QFETCH(QString, tip);
    RunStore store;
    RunsTableModel model(&store);
    RunRecord base = recordWithEpochs({100, 20, 30, 25});
    base.dataset.source = "builtin";
    base.dataset.rows = 100000;
    RunRecord run = recordWithEpochs(runMs);
    run.dataset.source = runData.toStdString();
    run.dataset.rows = runData == "builtin" ? 100000 : 569;
    store.finish(store.addPending(namedConfig("Base")), base);
    store.finish(store.addPending(namedConfig("Run")), run);
    QCOMPARE(model.index(1, RunsTableModel::Speedup).data().toString(), text);
    QVERIFY2(model.index(1, RunsTableModel::Speedup).data(Qt::ToolTipRole).toString().contains(tip),
             qPrintable(model.index(1, RunsTableModel::Speedup).data(Qt::ToolTipRole).toString()));
}

void TestRunStore::speedupColumnText() {
    RunStore store;
    RunsTableModel model(&store);
    const int base = store.addPending(namedConfig("Base"));
    const int fast = store.addPending(namedConfig("Fast"));
    store.finish(base, recordWithEpochs({100, 20, 20}));
    store.finish(fast, recordWithEpochs({50, 5, 5}));
    // The first run is the baseline until one is picked.
    QCOMPARE(model.index(0, RunsTableModel::Speedup).data().toString(), QString("baseline"));
    QCOMPARE(model.index(1, RunsTableModel::Speedup).data().toString(), QString("4.00×"));
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    store.setBaseline(fast);
    QVERIFY(changed.count() > 0);
    QCOMPARE(model.index(1, RunsTableModel::Speedup).data().toString(), QString("baseline"));
    QCOMPARE(model.index(0, RunsTableModel::Speedup).data().toString(), QString("0.25×"));
    changed.clear();
    store.setBaseline(base);
    QVERIFY(changed.count() > 0);
    QCOMPARE(model.index(0, RunsTableModel::Speedup).data().toString(), QString("baseline"));
    QCOMPARE(model.index(1, RunsTableModel::Speedup).data().toString(), QString("4.00×"));
    QCOMPARE(model.index(1, RunsTableModel::Speedup).data(RunsTableModel::SortRole).toDouble(), 4.0);
    QCOMPARE(model.index(1, RunsTableModel::MedianEpochMs).data().toString(), QString("5.00 ms"));
    QCOMPARE(model.index(1, RunsTableModel::Progress).data().toString(), QString("3/200"));
    QCOMPARE(model.index(1, RunsTableModel::Status).data().toString(), QString("completed"));
    const int empty = store.addPending(namedConfig("No epochs yet"));
    QVERIFY(model.index(2, RunsTableModel::Speedup).data().isNull());
    store.remove(base);  // the next run with epochs takes over
    QCOMPARE(model.index(0, RunsTableModel::Speedup).data().toString(), QString("baseline"));
    store.remove(fast);
    QCOMPARE(model.rowOf(empty), 0);
    QVERIFY(model.index(0, RunsTableModel::Speedup).data().isNull());
}

void TestRunStore::epochUpdatesOnlyItsRow() {
    RunStore store;
    RunsTableModel model(&store);
    const int a = store.addPending(namedConfig("A"));
    const int b = store.addPending(namedConfig("B"));
    store.appendEpoch(a, recordWithEpochs({12}).epochs[0]);  // A, the first with epochs, is the baseline
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    store.appendEpoch(b, recordWithEpochs({12}).epochs[0]);
    QCOMPARE(reset.count(), 0);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(changed.at(0).at(0).toModelIndex().row(), 1);
    QCOMPARE(changed.at(0).at(1).toModelIndex().row(), 1);
    QCOMPARE(model.index(1, RunsTableModel::Progress).data().toString(), QString("1/200"));
}

void TestRunStore::configDifferences_data() {
    QTest::addColumn<QString>("a");
    QTest::addColumn<QString>("b");
    QTest::addColumn<QStringList>("keys");
    QTest::addColumn<QStringList>("valuesA");
    QTest::addColumn<QStringList>("valuesB");
    QTest::newRow("identical but the name")
        << QString(R"({"name": "x", "optimizer": {"lr": 0.001}})")
        << QString(R"({"name": "y", "optimizer": {"lr": 0.001}})") << QStringList{} << QStringList{} << QStringList{};
    QTest::newRow("nested values")
        << QString(R"({"execution": {"loss": "sigmoid_bce", "precision": "fp32"}, "train": {"epochs": 200}})")
        << QString(R"({"execution": {"loss": "bce_with_logits", "precision": "fp32"}, "train": {"epochs": 50}})")
        << QStringList{"execution.loss", "train.epochs"} << QStringList{"sigmoid_bce", "200"}
        << QStringList{"bce_with_logits", "50"};
    QTest::newRow("arrays whole, missing keys")
        << QString(R"({"model": {"hidden": [20, 10]}, "backend": "cpu"})")
        << QString(R"({"model": {"hidden": [64]}, "execution": null})")
        << QStringList{"backend", "execution", "model.hidden"} << QStringList{"cpu", "(not set)", "[20,10]"}
        << QStringList{"(not set)", "null", "[64]"};
}

void TestRunStore::configDifferences() {
    QFETCH(QString, a);
    QFETCH(QString, b);
    QFETCH(QStringList, keys);
    QFETCH(QStringList, valuesA);
    QFETCH(QStringList, valuesB);
    const auto diffs =
        wb::gui::configDifferences(nlohmann::json::parse(a.toStdString()), nlohmann::json::parse(b.toStdString()));
    QStringList gotKeys, gotA, gotB;
    for (const auto& d : diffs) {
        gotKeys << d.key;
        gotA << d.a;
        gotB << d.b;
    }
    QCOMPARE(gotKeys, keys);
    QCOMPARE(gotA, valuesA);
    QCOMPARE(gotB, valuesB);
}

void TestRunStore::viewActionsFollowSelection() {
    RunStore store;
    RunsTableView view(&store);
    const int a = store.addPending(namedConfig("A"));
    const int b = store.addPending(namedConfig("B"));
    QVERIFY(!view.deleteAction()->isEnabled());
    view.selectRuns({a});
    QVERIFY(view.baselineAction()->isEnabled());
    QVERIFY(!view.compareAction()->isEnabled());
    view.setSelectedAsBaseline();
    QCOMPARE(store.baseline().value_or(0), a);
    view.selectRuns({a, b});
    QCOMPARE(view.selectedRunIds(), (std::vector<int>{a, b}));
    QVERIFY(view.compareAction()->isEnabled());
    view.compareSelected();
    QVERIFY(view.findChild<QDialog*>("configDiffDialog"));
    view.selectRuns({b});
    view.removeRuns(view.selectedRunIds(), false);  // what Delete does once its question is answered
    QVERIFY(!store.find(b));
    QCOMPARE(view.model()->rowCount(), 1);
}

void TestRunStore::columnsFitTheirText_data() {
    QTest::addColumn<QString>("status");  // empty: still queued
    QTest::newRow("queued") << QString();
    QTest::newRow("running") << "running";
    QTest::newRow("completed") << "completed";
    QTest::newRow("cancelled") << "cancelled";
    QTest::newRow("diverged") << "diverged";
    QTest::newRow("failed") << "failed";
}

// No cell is cut short ("complet…"): every column is at least as wide as its text, also after the
// run's status and numbers change (the widths follow the values, not only the first ones).
void TestRunStore::columnsFitTheirText() {
    QFETCH(QString, status);
    RunStore store;
    RunsTableView view(&store);
    view.resize(1400, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    RunConfig config = namedConfig("Seed PyTorch loop");
    config.execution = presetByName("Seed PyTorch loop").settings;
    const int id = store.addPending(config);
    QCoreApplication::processEvents();
    if (!status.isEmpty()) {
        store.markStarted(id);
        RunRecord record = recordWithEpochs({1234.5, 987.25, 1001.0}, runStatusFromString(status.toStdString()));
        EpochMetrics last = record.epochs.back();
        last.valLoss = 0.123456;
        last.valAccuracy = 0.87654;
        record.epochs.back() = last;
        store.finish(id, record);
    }
    const QTableView* table = view.table();
    const QFontMetrics metrics(table->font());
    auto tooNarrow = [&]() -> QString {
        for (int column = RunsTableModel::Name; column < RunsTableModel::Message; ++column) {
            const QString text = view.model()->index(0, column).data().toString();
            const int needed = metrics.horizontalAdvance(text) + 6;  // the cell's margins
            if (table->columnWidth(column) < needed)
                return QString("column %1 is %2 px for '%3' (%4 px)")
                    .arg(column)
                    .arg(table->columnWidth(column))
                    .arg(text)
                    .arg(needed);
        }
        return {};
    };
    QTRY_COMPARE(tooNarrow(), QString());
    QCOMPARE(view.model()->index(0, RunsTableModel::Status).data().toString(), status.isEmpty() ? "queued" : status);
}

void TestRunStore::frameworkRunsAreOursWithTheirVersion_data() {
    QTest::addColumn<QString>("backend");
    QTest::addColumn<QString>("environment");  // the record's, as JSON
    QTest::addColumn<QString>("preset");
    QTest::addColumn<QString>("shown");  // the Backend / device column
    QTest::newRow("cpu") << "cpu"
                         << R"({"device": "AMD EPYC"})"
                         << "Seed PyTorch loop"
                         << "cpu / AMD EPYC";
    // Our torch backend runs our switches: a preset, not a peer; Python named no device, its own word shows.
    QTest::newRow("torch, no device name") << "torch"
                                           << R"({"device": "", "torch_version": "1.13.1", "framework_device": "cpu"})"
                                           << "Seed PyTorch loop"
                                           << "torch 1.13.1 / cpu";
    QTest::newRow("torch on a GPU") << "torch"
                                    << R"({"device": "NVIDIA H200", "torch_version": "2.5.1"})"
                                    << "Seed PyTorch loop"
                                    << "torch 2.5.1 / NVIDIA H200";
    QTest::newRow("a peer script's pytorch") << "pytorch"
                                             << R"({"device": "cpu"})"
                                             << "peer"
                                             << "pytorch / cpu";
}

void TestRunStore::frameworkRunsAreOursWithTheirVersion() {
    QFETCH(QString, backend);
    QFETCH(QString, environment);
    QFETCH(QString, preset);
    QFETCH(QString, shown);
    RunStore store;
    RunConfig config = namedConfig("run");
    config.backend = backend.toStdString();
    config.execution = presetByName("Seed PyTorch loop").settings;
    const int id = store.addPending(config);
    RunRecord record = store.find(id)->record;
    record.status = RunStatus::Completed;
    record.environment = nlohmann::json::parse(environment.toStdString()).get<std::map<std::string, std::string>>();
    store.finish(id, record);
    RunsTableModel model(&store);
    QCOMPARE(store.find(id)->preset(), preset);
    QCOMPARE(model.index(0, RunsTableModel::Backend).data().toString(), shown);
}

void TestRunStore::skimReadsWhatTheFullReaderReads_data() {
    QTest::addColumn<QByteArray>("text");
    auto saved = [](const RunRecord& r) { return QByteArray::fromStdString(r.toJsonText()); };
    QTest::newRow("classification, validation") << saved(variedRecord(false, true, 40));
    QTest::newRow("regression") << saved(variedRecord(true, true, 7));
    QTest::newRow("no validation split") << saved(variedRecord(false, false, 3));
    QTest::newRow("the warm-up epoch only") << saved(variedRecord(false, true, 1));
    QTest::newRow("no epochs yet") << saved(variedRecord(false, true, 0));
    QTest::newRow("a peer's record") << QByteArray(kPeerRecord);
    QTest::newRow("compact, a NaN loss (Python)")
        << QByteArray(R"({"schema":"mlpwb.run/1","name":"p","epochs":[{"epoch":1,"warmup":true,"train_loss":NaN,)"
                      R"("train_accuracy":0.5,"wall_ms":30},{"epoch":2,"train_loss":0.4,"train_accuracy":0.6,)"
                      R"("wall_ms":20.5,"val_loss":NaN}],"status":"completed"})");
}

// The table's numbers from a skimmed file are those of the file read whole, and so is the rest.
void TestRunStore::skimReadsWhatTheFullReaderReads() {
    QFETCH(QByteArray, text);
    const std::string json = text.toStdString();
    const auto skimmed = skimRunRecord(json, "record.json");
    QVERIFY(skimmed);
    QTemporaryDir dir;
    const QString path = dir.filePath("record.json");
    writeFile(path, text);
    const RunRecord full = readRunFile(path).front();
    compareDigests(skimmed->digest, digestOf(full));
    QVERIFY(skimmed->head.epochs.empty());
    QCOMPARE(skimmed->head.name, full.name);
    QVERIFY(skimmed->head.status == full.status);
    QCOMPARE(skimmed->head.config, full.config);
    QCOMPARE(skimmed->head.environment, full.environment);
}

void TestRunStore::skimLeavesToTheFullReader_data() {
    QTest::addColumn<QByteArray>("text");
    const QByteArray good = QByteArray::fromStdString(variedRecord(false, true, 3).toJsonText());
    QTest::newRow("cut short") << good.left(good.size() / 2);
    QTest::newRow("not JSON") << QByteArray("{ not json");
    QTest::newRow("text after the record") << good + "]";
    QTest::newRow("several records") << "[" + good + "]";
    QTest::newRow("epochs not a list") << QByteArray(R"({"schema": "mlpwb.run/1", "epochs": {}})");
    QTest::newRow("an epoch without a wall time")
        << QByteArray(R"({"schema": "mlpwb.run/1", "epochs": [{"epoch": 1, "train_loss": 0.5}]})");
    QTest::newRow("a negative wall time")
        << QByteArray(R"({"schema": "mlpwb.run/1", "epochs": [{"epoch": 1, "wall_ms": -3}]})");
    QTest::newRow("wrong schema") << QByteArray(R"({"schema": "mlpwb.ablation/1", "epochs": []})");
}

// Whatever the skim cannot vouch for is read whole, by the reader that says what is wrong.
void TestRunStore::skimLeavesToTheFullReader() {
    QFETCH(QByteArray, text);
    QVERIFY(!skimRunRecord(text.toStdString(), "bad.json"));
}

void TestRunStore::skimmedRunReadsItsEpochsWhenShown() {
    QTemporaryDir dir;
    const QString path = dir.filePath("run.json");
    const RunRecord saved = variedRecord(false, true, 6);
    saved.save(path.toStdString());
    std::vector<LoadedRun> loaded = readRunsIn(path, false);
    QCOMPARE(loaded.size(), std::size_t{1});
    QVERIFY(loaded[0].digest);
    QVERIFY(loaded[0].record.epochs.empty());

    RunStore store;
    RunsTableModel model(&store);
    std::size_t epochsWhenAdded = 0;  // what the table sees as the row comes
    connect(&store, &RunStore::runAdded, this,
            [&](int added) { epochsWhenAdded = store.find(added)->digest.epochCount; });
    const int id = store.addSkimmed({loaded[0].record, *loaded[0].digest}, path);
    QCOMPARE(epochsWhenAdded, std::size_t{6});
    const RunEntry* run = store.find(id);
    QVERIFY(run->epochsOnDisk);
    QVERIFY(!run->visible);
    QCOMPARE(model.index(0, RunsTableModel::Progress).data().toString(), QString("6/6"));
    QCOMPARE(model.index(0, RunsTableModel::TrainLoss).data().toString(), QString("0.1500"));
    QCOMPARE(store.effectiveBaseline().value_or(0), id);  // its median counts before its epochs are read

    QSignalSpy changed(&store, &RunStore::runChanged);
    store.setVisible(id, true);  // what a chart needs: the epochs
    run = store.find(id);
    QVERIFY(run->visible);
    QVERIFY(!run->epochsOnDisk);
    QCOMPARE(run->record.epochs.size(), std::size_t{6});
    QCOMPARE(run->record.epochs.back().trainLoss, saved.epochs.back().trainLoss);
    QVERIFY(changed.count() >= 1);
    QVERIFY(store.ensureEpochs(id));  // nothing more to read
}

void TestRunStore::skimmedRunWhoseFileBrokeStaysListed() {
    QTemporaryDir dir;
    const QString path = dir.filePath("run.json");
    variedRecord(false, true, 4).save(path.toStdString());
    std::vector<LoadedRun> loaded = readRunsIn(path, false);
    QVERIFY(loaded[0].digest);
    RunStore store;
    const int id = store.addSkimmed({loaded[0].record, *loaded[0].digest}, path);
    writeFile(path, "{ damaged since");
    QSignalSpy unreadable(&store, &RunStore::epochsUnreadable);
    QVERIFY(!store.ensureEpochs(id));
    QCOMPARE(unreadable.count(), 1);
    QVERIFY(unreadable.at(0).at(1).toString().contains("run.json"));
    const RunEntry* run = store.find(id);
    QVERIFY(run);  // no run lost: listed with what was read at the start
    QCOMPARE(run->digest.epochCount, std::size_t{4});
    QVERIFY(!run->epochsOnDisk);
}

// A new epoch of one run among thousands: one dataChanged for its row, no reset, through the
// filtered and sorted table too.
void TestRunStore::epochAmongManyRunsChangesOneRow() {
    RunStore store;
    RunsTableView view(&store);
    for (int i = 0; i < 2000; ++i) {
        RunRecord record = recordWithEpochs({30, 20.0 + i % 17, 21});
        record.name = "old " + std::to_string(i);
        store.addRecord(record, QString(), false);
    }
    const int live = store.addPending(namedConfig("live"));
    store.markStarted(live);
    view.setFilterText("l");  // "old ..." and "live"
    view.table()->sortByColumn(RunsTableModel::MedianEpochMs, Qt::DescendingOrder);
    QCOMPARE(view.shownRowCount(), 2001);
    QSignalSpy changed(view.model(), &QAbstractItemModel::dataChanged);
    QSignalSpy reset(view.model(), &QAbstractItemModel::modelReset);
    QSignalSpy proxyReset(view.table()->model(), &QAbstractItemModel::modelReset);
    store.appendEpoch(live, recordWithEpochs({25}).epochs[0]);
    QCOMPARE(reset.count(), 0);
    QCOMPARE(proxyReset.count(), 0);
    QCOMPARE(changed.count(), 1);
    const int row = view.model()->rowOf(live);
    QCOMPARE(changed.at(0).at(0).toModelIndex().row(), row);
    QCOMPARE(changed.at(0).at(1).toModelIndex().row(), row);
    QCOMPARE(view.model()->index(row, RunsTableModel::Progress).data().toString(), QString("1/200"));
}

// No column resizes itself to its contents at every change (with thousands of runs that measured
// hundreds of rows per epoch); a double-click on a column's edge fits it when the user asks.
void TestRunStore::columnsAreSizedOnceAndOnDemand() {
    RunStore store;
    RunsTableView view(&store);
    view.resize(1400, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QHeaderView* header = view.table()->horizontalHeader();
    for (int column = 0; column < RunsTableModel::Message; ++column)
        QCOMPARE(header->sectionResizeMode(column), QHeaderView::Interactive);
    const int id = store.addPending(namedConfig("A run"));
    store.markStarted(id);
    store.finish(id, recordWithEpochs({30, 20, 21}, RunStatus::Cancelled));
    view.table()->setColumnWidth(RunsTableModel::Status, 30);  // the user narrowed it
    const int statusRow = view.model()->rowOf(id);
    const QString text = view.model()->index(statusRow, RunsTableModel::Status).data().toString();
    QCOMPARE(view.table()->columnWidth(RunsTableModel::Status), 30);  // kept: nothing resizes by itself
    emit header->sectionHandleDoubleClicked(RunsTableModel::Status);
    QVERIFY(view.table()->columnWidth(RunsTableModel::Status) >=
            QFontMetrics(view.table()->font()).horizontalAdvance(text));
}

QTEST_MAIN(TestRunStore)
#include "tst_run_store.moc"
