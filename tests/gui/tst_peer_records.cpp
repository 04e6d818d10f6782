// Peer records in the GUI: tests/data/peers/torch_resident.json is a real file written by
// bench/peers/torch_resident.py (PyTorch 1.13, 2,000 rows from make_dataset.py, 3 epochs; see
// tests/data/peers/README.md). It has fewer fields than ours (no config.execution, device_ms and
// phases null, no validation) and must load into the RunStore like our own runs and overlay them: one
// more graph in every chart. A peer that diverged (Python writes NaN, which is not JSON) loads too.
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include <nlohmann/json.hpp>

#include "core/cpu/cpu_backend.h"
#include "core/data/builtin_data.h"
#include "core/data/prepare.h"
#include "core/train/trainer.h"
#include "gui/charts/breakdown_chart.h"
#include "gui/charts/metric_chart.h"
#include "gui/charts/speedup_chart.h"
#include "gui/runs/run_store.h"

using namespace wb;
using namespace wb::gui;

Q_DECLARE_METATYPE(wb::gui::MetricChart::Kind)

namespace {
const QString kPeerFile = QStringLiteral(WB_TEST_DATA_DIR "/peers/torch_resident.json");

nlohmann::json readJson(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return nullptr;
    return nlohmann::json::parse(f.readAll().toStdString(), nullptr, false);
}

void writeText(const QString& path, const QByteArray& text) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(text);
}
}  // namespace

class TestPeerRecords : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void peerFileLoadsLikeOurRuns();
    void peerOverlaysInEveryMetricChart_data();
    void peerOverlaysInEveryMetricChart();
    void peerJoinsTheSpeedupAndBreakdownCharts();
    void headlessExportOverlaysThePeer();
    void divergedPeerWithNaNLoads();

private:
    QTemporaryDir dir_;
    QString ownRunFile_;  // a real run of ours on the same kind of data, 3 epochs
};

void TestPeerRecords::initTestCase() {
    QVERIFY(dir_.isValid());
    QVERIFY2(QFileInfo::exists(kPeerFile), qPrintable(kPeerFile));
    const Dataset dataset = generateSeedLike(2000, 1);
    const PreparedData data = prepare(dataset, {});
    RunConfig config;
    config.name = "MLP Workbench (cpu)";
    config.train.epochs = 3;
    config.train.batchSize = 256;
    auto backend = makeCpuBackend();
    ownRunFile_ = dir_.filePath("own.json");
    CancelFlag cancel{false};
    Trainer(config, dataset, data, *backend, ownRunFile_.toStdString()).run(cancel);
}

void TestPeerRecords::peerFileLoadsLikeOurRuns() {
    const nlohmann::json file = readJson(kPeerFile);
    QVERIFY(file.is_object());
    QVERIFY(file["config"]["execution"].is_null());  // the fixture really is a peer's
    RunStore store;
    const int id = store.addFromFile(kPeerFile);
    const RunEntry* run = store.find(id);
    QVERIFY(run);
    QCOMPARE(run->name, QString("PyTorch (resident tensors)"));
    QCOMPARE(run->preset(), QString("peer"));
    QCOMPARE(run->backend(), QString("pytorch"));
    QCOMPARE(QString::fromStdString(toString(run->record.status)), QString("completed"));
    QCOMPARE(run->record.epochs.size(), std::size_t{3});
    for (std::size_t i = 0; i < 3; ++i) {
        const EpochMetrics& e = run->record.epochs[i];
        QCOMPARE(e.trainLoss, file["epochs"][i]["train_loss"].get<double>());
        QCOMPARE(e.wallMs, file["epochs"][i]["wall_ms"].get<double>());
        QVERIFY(!e.deviceMs && !e.phases && !e.valLoss);
    }
    // The same summary as the peer's own (median of epochs 2 and 3, warm-up excluded).
    QCOMPARE(*run->record.summary().medianEpochMs, file["summary"]["median_epoch_ms"].get<double>());
    QCOMPARE(run->record.environment.at("threads"), std::string("1"));
}

void TestPeerRecords::peerOverlaysInEveryMetricChart_data() {
    QTest::addColumn<MetricChart::Kind>("kind");
    QTest::newRow("loss") << MetricChart::Kind::Loss;
    QTest::newRow("accuracy") << MetricChart::Kind::Accuracy;
    QTest::newRow("epoch time") << MetricChart::Kind::EpochTime;
}

void TestPeerRecords::peerOverlaysInEveryMetricChart() {
    QFETCH(MetricChart::Kind, kind);
    RunStore store;
    MetricChart chart(&store, kind);
    store.addFromFile(ownRunFile_);
    chart.refreshNow();
    const int ours = chart.graphCount();
    QVERIFY(ours >= 1);
    const int peer = store.addFromFile(kPeerFile);
    chart.refreshNow();
    QCOMPARE(chart.graphCount(), ours + 1);  // the peer has no validation curve: one graph
    QCOMPARE(chart.pointCount(peer), 3);
}

void TestPeerRecords::peerJoinsTheSpeedupAndBreakdownCharts() {
    RunStore store;
    const int own = store.addFromFile(ownRunFile_);
    const int peer = store.addFromFile(kPeerFile);
    store.setBaseline(own);
    SpeedupChart speedup(&store);
    speedup.refreshNow();
    QCOMPARE(speedup.rows().size(), std::size_t{2});
    QCOMPARE(speedup.rows()[1].runId, peer);
    // The peer trained on make_dataset.py's rows, ours on the built-in ones: listed, with no ratio.
    QVERIFY(!speedup.rows()[1].speedup);
    QVERIFY2(speedup.rows()[1].notComparable.startsWith("different data (x.npy, 2000 rows vs builtin, 2000 rows)"),
             qPrintable(speedup.rows()[1].notComparable));
    // A peer on the same rows (its record says so) compares like one of ours.
    RunRecord sameData = store.find(peer)->record;
    sameData.dataset = store.find(own)->record.dataset;
    sameData.dataset.hash.clear();  // peers write no content hash
    sameData.config["train"] = store.find(own)->record.config["train"];
    RunConfig twinConfig;
    twinConfig.name = "peer on our rows";
    const int twin = store.addPending(twinConfig);
    store.finish(twin, sameData);
    speedup.refreshNow();
    QCOMPARE(speedup.rows().back().runId, twin);
    const double expected = *store.find(own)->record.summary().medianEpochMs /
                            readJson(kPeerFile)["summary"]["median_epoch_ms"].get<double>();
    QVERIFY2(speedup.rows().back().speedup, qPrintable(speedup.rows().back().notComparable));
    QVERIFY(std::abs(*speedup.rows().back().speedup - expected) < 1e-12 * expected);
    BreakdownChart breakdown(&store);
    breakdown.refreshNow();
    QCOMPARE(breakdown.rows().size(), std::size_t{2});  // ours and the peer on our rows ("not separable")
    QCOMPARE(breakdown.leftOut().size(), 1);  // the peer on other rows  // the peer's bar says "not separable"
}

void TestPeerRecords::headlessExportOverlaysThePeer() {
    if (!QFileInfo::exists(WB_GUI_PATH)) QSKIP("mlp-workbench is not built");
    const QString out = dir_.filePath("overlay.png");
    QProcess process;
    process.start(WB_GUI_PATH, {"--export-chart", "epoch-time", "--runs", ownRunFile_, kPeerFile, "--out", out,
                                "--size", "800x500"});
    QVERIFY(process.waitForFinished(60000));
    QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
    QCOMPARE(QImage(out).size(), QSize(800, 500));
}

void TestPeerRecords::divergedPeerWithNaNLoads() {
    // What Python's json.dumps writes for a loss that became NaN, with "NaN" inside a string kept as is.
    const QString path = dir_.filePath("diverged.json");
    writeText(path, R"({"schema": "mlpwb.run/1", "name": "NaN \"NaN\" peer", "status": "diverged",
        "config": {"execution": null, "backend": "jax"},
        "epochs": [{"epoch": 1, "warmup": true, "train_loss": 0.7, "wall_ms": 2.0},
                   {"epoch": 2, "warmup": false, "train_loss": NaN, "train_accuracy": 0.5, "wall_ms": 1.5},
                   {"epoch": 3, "warmup": false, "train_loss": Infinity, "val_loss": -Infinity, "wall_ms": 1.0}]})");
    RunStore store;
    int id = 0;
    try {
        id = store.addFromFile(path);
    } catch (const std::exception& e) {
        QFAIL(e.what());
    }
    const RunEntry* run = store.find(id);
    QCOMPARE(run->name, QString("NaN \"NaN\" peer"));
    QCOMPARE(QString::fromStdString(toString(run->record.status)), QString("diverged"));
    QCOMPARE(run->record.epochs[0].trainLoss, 0.7);
    QVERIFY(std::isnan(run->record.epochs[1].trainLoss));
    QVERIFY(std::isnan(run->record.epochs[2].trainLoss));
    QCOMPARE(run->preset(), QString("peer"));
    // Its chart still draws (a gap where the loss is not a number).
    MetricChart chart(&store, MetricChart::Kind::Loss);
    chart.refreshNow();
    QCOMPARE(chart.graphCount(), 1);
}

QTEST_MAIN(TestPeerRecords)
#include "tst_peer_records.moc"
