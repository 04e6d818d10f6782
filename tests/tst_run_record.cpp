// RunRecord, the one JSON file per run that the CLI, the GUI, the peers and scripts share:
// it round-trips, saves atomically, summarises without the warm-up epoch, keeps nulls null,
// reads what peers write, refuses what is not a run record, and exports per-epoch CSV.
#include <QtTest>

#include <algorithm>
#include <limits>

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/platform/errors.h"
#include "core/run/run_record.h"
#include "tests/test_support.h"

namespace {

// One epoch with the fields a CPU run fills in; the optional ones are left null.
wb::EpochMetrics makeEpoch(int epoch, double wallMs, bool warmup = false) {
    wb::EpochMetrics m;
    m.epoch = epoch;
    m.warmup = warmup;
    m.trainLoss = 0.7 - 0.01 * epoch;
    m.trainAccuracy = 0.5 + 0.01 * epoch;
    m.wallMs = wallMs;
    m.samplesPerSecond = 2000.0 / (wallMs / 1000.0);
    m.elapsedMs = wallMs * epoch;
    return m;
}

// A record with every kind of field set: nulls and values, phases and none, a mapping, notes.
wb::RunRecord makeRecord(wb::RunStatus status = wb::RunStatus::Diverged) {
    wb::RunRecord r;
    r.name = "Seed PyTorch loop";
    r.status = status;
    r.message = status == wb::RunStatus::Completed ? "" : "loss became non-finite at epoch 3, step 2";
    r.config = {{"model", {{"hidden", {20, 10}}, {"activation", "tanh"}}},
                {"optimizer", {{"type", "adam"}, {"lr", 1e-3}}},
                {"backend", "cpu"}};
    r.dataset = {"spambase.csv",   4601, 57, "type", {{"nonspam", 0}, {"spam", 1}}, "sha256:abc123", 3681, 920, {},
                 wb::Task::Binary, {},   ""};
    r.environment = {{"backend", "cpu"}, {"device", "Some CPU"}, {"threads", "2"}};
    r.notApplicable = {{"launch", "the CPU backend launches no kernels"}};
    auto first = makeEpoch(1, 21.25, true);
    first.valLoss = 0.58;
    first.valAccuracy = 0.72;
    first.deviceMs = 19.5;
    first.phases = wb::PhaseTimes{0.4, 6.1, 9.8, 0.3, 4.7};
    auto second = makeEpoch(2, 18.125);  // val, device and phases null
    auto third = makeEpoch(3, 17.875);
    third.valLoss = 0.123456789012345;
    third.valAccuracy = 1.0 / 3.0;
    r.epochs = {first, second, third};
    return r;
}

QString statusOf(wb::RunStatus s) {
    return QString::fromStdString(wb::toString(s));
}

void writeFile(const QString& path, const QByteArray& content) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) qFatal("cannot write %s", qPrintable(path));
    f.write(content);
}

// Epoch lists written as "wall[w]" items, e.g. "50w 10 30": 'w' marks the warm-up epoch.
std::vector<wb::EpochMetrics> parseEpochs(const QString& spec) {
    std::vector<wb::EpochMetrics> epochs;
    int n = 0;
    for (QString item : spec.split(' ', Qt::SkipEmptyParts)) {
        const bool warmup = item.endsWith('w');
        if (warmup) item.chop(1);
        epochs.push_back(makeEpoch(++n, item.toDouble(), warmup));
    }
    return epochs;
}

}  // namespace

class TestRunRecord : public QObject {
    Q_OBJECT

private:
    QTemporaryDir dir_;

private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void jsonRoundTrip_data() {
        QTest::addColumn<int>("status");
        QTest::addColumn<bool>("withEpochs");
        QTest::newRow("diverged") << int(wb::RunStatus::Diverged) << true;
        QTest::newRow("completed") << int(wb::RunStatus::Completed) << true;
        QTest::newRow("cancelled") << int(wb::RunStatus::Cancelled) << true;
        QTest::newRow("failed") << int(wb::RunStatus::Failed) << true;
        QTest::newRow("running, no epochs yet") << int(wb::RunStatus::Running) << false;
    }
    void jsonRoundTrip() {
        QFETCH(int, status);
        QFETCH(bool, withEpochs);
        wb::RunRecord r = makeRecord(static_cast<wb::RunStatus>(status));
        if (!withEpochs) r.epochs.clear();
        const nlohmann::json first = r.toJson();
        QCOMPARE(QString::fromStdString(first.at("schema").get<std::string>()), QString("mlpwb.run/1"));
        QCOMPARE(QString::fromStdString(first.at("status").get<std::string>()),
                 QString::fromStdString(wb::toString(r.status)));
        const nlohmann::json second = wb::RunRecord::fromJson(first).toJson();
        QVERIFY2(first == second, (first.dump() + "\n!=\n" + second.dump()).c_str());
        // Through text too: what a file holds reads back to the same JSON, doubles included.
        const nlohmann::json reparsed = nlohmann::json::parse(first.dump());
        QVERIFY(wb::RunRecord::fromJson(reparsed).toJson() == first);
    }

    void fieldsSurviveRoundTrip() {
        const wb::RunRecord r = wb::RunRecord::fromJson(makeRecord().toJson());
        QCOMPARE(QString::fromStdString(r.name), QString("Seed PyTorch loop"));
        QCOMPARE(statusOf(r.status), statusOf(wb::RunStatus::Diverged));
        QCOMPARE(r.dataset.labelMapping.at("spam"), 1);
        QCOMPARE(r.dataset.rows, std::size_t{4601});
        QCOMPARE(r.dataset.valRows, std::size_t{920});
        QCOMPARE(QString::fromStdString(r.environment.at("threads")), QString("2"));
        QCOMPARE(r.notApplicable.size(), std::size_t{1});
        QVERIFY(r.notApplicable[0] == (wb::IgnoredSwitch{"launch", "the CPU backend launches no kernels"}));
        QCOMPARE(r.epochs.size(), std::size_t{3});
        QVERIFY(r.epochs[0].warmup);
        QVERIFY(r.epochs[0].phases.has_value());
        QCOMPARE(r.epochs[0].phases->backward, 9.8);
        QCOMPARE(*r.epochs[0].deviceMs, 19.5);
        QCOMPARE(*r.epochs[2].valLoss, 0.123456789012345);
        QCOMPARE(r.config.at("model").at("hidden"), nlohmann::json({20, 10}));
    }

    void saveAndLoadIsAtomic() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath("run.json");
        wb::RunRecord r = makeRecord(wb::RunStatus::Running);
        r.save(path.toStdString());
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{"run.json"});
        QVERIFY(wb::RunRecord::load(path.toStdString()).toJson() == r.toJson());

        // Rewriting (as the trainer does after every epoch) replaces the file and leaves no .tmp.
        r.status = wb::RunStatus::Completed;
        r.message.clear();
        r.epochs.push_back(makeEpoch(4, 17.5));
        r.save(path.toStdString());
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{"run.json"});
        const wb::RunRecord loaded = wb::RunRecord::load(path.toStdString());
        QCOMPARE(statusOf(loaded.status), statusOf(wb::RunStatus::Completed));
        QCOMPARE(loaded.epochs.size(), std::size_t{4});
        QVERIFY(loaded.toJson() == r.toJson());
        QVERIFY(nlohmann::json::parse(readAll(path).toStdString()) == r.toJson());
    }

    // save() writes the epochs formatted by hand, one per line (fast for 4,000 epochs): the text is
    // the same JSON as toJson(), also without epochs and with a loss that is not finite (null).
    void savedTextIsTheJson_data() {
        QTest::addColumn<int>("epochs");
        QTest::newRow("none") << 0;
        QTest::newRow("three") << 3;
        QTest::newRow("a non-finite loss") << -1;
    }
    void savedTextIsTheJson() {
        QFETCH(int, epochs);
        wb::RunRecord r = makeRecord();
        r.epochs.resize(static_cast<std::size_t>(std::max(epochs, 1)));
        if (epochs < 0) r.epochs[0].trainLoss = std::numeric_limits<double>::quiet_NaN();
        if (epochs == 0) r.epochs.clear();
        const std::string text = r.toJsonText();
        QVERIFY2(nlohmann::json::parse(text) == nlohmann::json::parse(r.toJson().dump()), text.c_str());
        if (!r.epochs.empty())
            QVERIFY2(text.find("\n  {\"epoch\":1,") != std::string::npos, text.c_str());  // one a line
    }

    void saveToUnwritablePlaceIsIoError() {
        const std::string path = dir_.filePath("no/such/folder/run.json").toStdString();
        QVERIFY_THROWS_EXCEPTION(wb::IoError, makeRecord().save(path));
    }

    void summaryExcludesWarmup_data() {
        QTest::addColumn<QString>("epochs");  // wall ms per epoch; 'w' marks the warm-up
        QTest::addColumn<double>("median");   // < 0: null
        QTest::addColumn<double>("minimum");  // < 0: null
        QTest::addColumn<double>("total");
        QTest::newRow("none") << "" << -1.0 << -1.0 << 0.0;
        QTest::newRow("only warm-up") << "50w" << 50.0 << 50.0 << 50.0;
        QTest::newRow("odd count") << "500w 10 30 20" << 20.0 << 10.0 << 560.0;
        QTest::newRow("even count") << "500w 10 40" << 25.0 << 10.0 << 550.0;
        QTest::newRow("even count of four") << "1000w 4 1 3 2" << 2.5 << 1.0 << 1010.0;
        QTest::newRow("warm-up faster than the rest") << "1w 8 9 10" << 9.0 << 8.0 << 28.0;
        QTest::newRow("no warm-up flag (a peer)") << "500 10 30" << 30.0 << 10.0 << 540.0;
    }
    void summaryExcludesWarmup() {
        QFETCH(QString, epochs);
        QFETCH(double, median);
        QFETCH(double, minimum);
        QFETCH(double, total);
        wb::RunRecord r;
        r.epochs = parseEpochs(epochs);
        const wb::RunSummary s = r.summary();
        QCOMPARE(s.medianEpochMs.has_value(), median >= 0);
        if (median >= 0) QCOMPARE(*s.medianEpochMs, median);
        QCOMPARE(s.minEpochMs.has_value(), minimum >= 0);
        if (minimum >= 0) QCOMPARE(*s.minEpochMs, minimum);
        QCOMPARE(s.totalMs, total);
        QCOMPARE(s.final.has_value(), !r.epochs.empty());
        if (s.final) QCOMPARE(s.final->epoch, int(r.epochs.size()));

        // The file carries the same summary, null where there is none.
        const nlohmann::json j = r.toJson().at("summary");
        QCOMPARE(j.at("median_epoch_ms").is_null(), median < 0);
        if (median >= 0) QCOMPARE(j.at("median_epoch_ms").get<double>(), median);
        QCOMPARE(j.at("final").is_null(), r.epochs.empty());
    }

    void medianOfValues() {
        QVERIFY(!wb::median({}).has_value());
        QCOMPARE(*wb::median({7}), 7.0);
        QCOMPARE(*wb::median({3, 1, 2}), 2.0);
        QCOMPARE(*wb::median({4, 1, 3, 2}), 2.5);
    }

    void nullValFieldsStayNull() {
        wb::RunRecord r;
        r.status = wb::RunStatus::Completed;
        r.epochs = {makeEpoch(1, 30, true), makeEpoch(2, 20)};
        const nlohmann::json j = r.toJson();
        for (const auto& e : j.at("epochs")) {
            for (const char* key : {"val_loss", "val_accuracy", "device_ms", "phases_ms"})
                QVERIFY2(e.at(key).is_null(), key);
        }
        QVERIFY(j.at("summary").at("final").at("val_loss").is_null());
        QVERIFY(j.at("summary").at("final").at("val_accuracy").is_null());

        const wb::RunRecord back = wb::RunRecord::fromJson(nlohmann::json::parse(j.dump()));
        for (const auto& e : back.epochs) {
            QVERIFY(!e.valLoss.has_value());
            QVERIFY(!e.valAccuracy.has_value());
            QVERIFY(!e.deviceMs.has_value());
            QVERIFY(!e.phases.has_value());
        }
        QVERIFY(!back.summary().final->valLoss.has_value());
    }

    void peerFileWithNullsLoads() {
        // What a PyTorch peer in bench/peers/ writes: only what it can measure, null elsewhere,
        // numbers in the environment, no not_applicable, a summary the reader recomputes.
        const QByteArray peer = R"({
  "schema": "mlpwb.run/1", "name": "PyTorch DataLoader", "status": "completed", "message": "",
  "config": {"model": {"hidden": [20, 10]}, "backend": "torch-cpu"},
  "dataset": {"source": "builtin", "rows": 2000, "features": 61, "label": "label",
              "label_mapping": null, "hash": null},
  "environment": {"backend": "torch-cpu", "threads": 2, "torch": "1.13.1"},
  "epochs": [
    {"epoch": 1, "warmup": true, "train_loss": 0.69, "train_accuracy": 0.51, "val_loss": null,
     "val_accuracy": null, "wall_ms": 460.5, "device_ms": null, "samples_per_s": 4343.1,
     "phases_ms": null, "elapsed_ms": 460.5},
    {"epoch": 2, "warmup": false, "train_loss": 0.68, "train_accuracy": 0.53, "val_loss": null,
     "val_accuracy": null, "wall_ms": 450.0, "device_ms": null, "samples_per_s": 4444.4,
     "phases_ms": null, "elapsed_ms": 910.5},
    {"epoch": 3, "train_loss": 0.67, "wall_ms": 440.0}
  ],
  "summary": {"median_epoch_ms": 445.0, "min_epoch_ms": null, "total_ms": null, "final": null}
})";
        const QString path = dir_.filePath("peer.json");
        writeFile(path, peer);
        const wb::RunRecord r = wb::RunRecord::load(path.toStdString());
        QCOMPARE(QString::fromStdString(r.name), QString("PyTorch DataLoader"));
        QCOMPARE(statusOf(r.status), statusOf(wb::RunStatus::Completed));
        QVERIFY(r.dataset.hash.empty());
        QVERIFY(r.dataset.labelMapping.empty());
        QCOMPARE(r.dataset.trainRows, std::size_t{2000});
        QCOMPARE(QString::fromStdString(r.environment.at("threads")), QString("2"));
        QCOMPARE(r.epochs.size(), std::size_t{3});
        for (const auto& e : r.epochs) {
            QVERIFY(!e.valLoss.has_value());
            QVERIFY(!e.deviceMs.has_value());
            QVERIFY(!e.phases.has_value());
        }
        QVERIFY(!r.epochs[2].warmup);
        QCOMPARE(r.epochs[2].trainAccuracy, 0.0);
        const wb::RunSummary s = r.summary();
        QCOMPARE(*s.medianEpochMs, 445.0);
        QCOMPARE(*s.minEpochMs, 440.0);
        QCOMPARE(s.totalMs, 1350.5);
        // Saved again, the nulls stay null.
        const nlohmann::json j = r.toJson();
        QVERIFY(j.at("epochs").at(0).at("phases_ms").is_null());
        QVERIFY(j.at("epochs").at(0).at("val_loss").is_null());
    }

    void invalidFileIsDataErrorNamingIt_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::newRow("wrong schema") << QByteArray(R"({"schema": "mlpwb.ablation/1", "baseline": {}, "steps": []})");
        QTest::newRow("future schema") << QByteArray(R"({"schema": "mlpwb.run/2", "epochs": []})");
        QTest::newRow("no schema") << QByteArray(R"({"name": "x", "epochs": []})");
        QTest::newRow("an array") << QByteArray(R"([{"schema": "mlpwb.run/1"}])");
        QTest::newRow("truncated") << QByteArray::fromStdString(makeRecord().toJson().dump(1).substr(0, 300));
        QTest::newRow("cut after the first brace") << QByteArray("{");
        QTest::newRow("empty") << QByteArray();
        QTest::newRow("not JSON") << QByteArray("epoch,train_loss\n1,0.5\n");
        QTest::newRow("unknown status") << QByteArray(R"({"schema": "mlpwb.run/1", "status": "exploded"})");
        QTest::newRow("epoch without train_loss")
            << QByteArray(R"({"schema": "mlpwb.run/1", "epochs": [{"epoch": 1, "wall_ms": 3}]})");
        QTest::newRow("epoch number as text")
            << QByteArray(R"({"schema": "mlpwb.run/1", "epochs": [{"epoch": "one", "train_loss": 1, "wall_ms": 3}]})");
    }
    void invalidFileIsDataErrorNamingIt() {
        QFETCH(QByteArray, content);
        const QString path =
            dir_.filePath(QStringLiteral("bad_%1.json").arg(QTest::currentDataTag()).replace(' ', '_'));
        writeFile(path, content);
        const auto error = dataErrorOf([&] { wb::RunRecord::load(path.toStdString()); });
        QVERIFY2(error.has_value(), "expected a DataError");
        QCOMPARE(QString::fromStdString(error->file()), path);
        QVERIFY2(QString::fromUtf8(error->what()).contains(QFileInfo(path).fileName()), error->what());
        QVERIFY2(!QString::fromUtf8(error->what()).contains('\n'), error->what());
    }

    // A record cut anywhere (a full disk, a copy interrupted, a crash of whoever wrote it) is never
    // read as a run, let alone a completed one: every prefix of a saved record is a DataError.
    void everyTruncationIsDataError() {
        const std::string text = makeRecord(wb::RunStatus::Completed).toJsonText();
        const std::size_t end = text.rfind('}');
        QVERIFY(end != std::string::npos);
        const QString path = dir_.filePath("truncated.json");
        for (std::size_t size = 0; size < end; ++size) {
            writeFile(path, QByteArray::fromStdString(text.substr(0, size)));
            const auto error = dataErrorOf([&] { wb::RunRecord::load(path.toStdString()); });
            QVERIFY2(error.has_value(), qPrintable(QString("read as a run when cut at byte %1").arg(size)));
        }
    }

    // A time read from a record is a measurement: a negative, zero or infinite one is refused,
    // naming the file and the key.
    void impossibleTimesAreDataErrors_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<double>("value");
        const double inf = std::numeric_limits<double>::infinity();
        QTest::newRow("negative wall time") << "wall_ms" << -12.5;
        QTest::newRow("zero wall time") << "wall_ms" << 0.0;
        QTest::newRow("infinite wall time") << "wall_ms" << inf;
        QTest::newRow("zero device time") << "device_ms" << 0.0;
        QTest::newRow("negative device time") << "device_ms" << -1.0;
        QTest::newRow("negative elapsed time") << "elapsed_ms" << -3.0;
        QTest::newRow("negative phase") << "phases_ms.forward" << -0.5;
    }
    void impossibleTimesAreDataErrors() {
        QFETCH(QString, key);
        QFETCH(double, value);
        wb::RunRecord r = makeRecord(wb::RunStatus::Completed);
        nlohmann::json j = r.toJson();
        auto& epoch = j["epochs"][1];
        if (key.startsWith("phases_ms.")) {
            epoch["phases_ms"] = {
                {"data", 0.0}, {"forward", 1.0}, {"backward", 1.0}, {"optimizer", 0.0}, {"other", 0.0}};
            epoch["phases_ms"][key.mid(10).toStdString()] = value;
        } else {
            epoch[key.toStdString()] = value;  // an infinity is what a number too large for a double reads as
        }
        const auto error = dataErrorOf([&] { wb::RunRecord::fromJson(j); });
        QVERIFY2(error.has_value(), "read as a run");
        QVERIFY2(QString::fromUtf8(error->what()).contains("epochs[1]." + key), error->what());

        const QString path = dir_.filePath("impossible.json");
        if (std::isfinite(value)) {  // JSON text has no infinity: the in-memory case above stands for it
            writeFile(path, QByteArray::fromStdString(j.dump()));
            const auto loaded = dataErrorOf([&] { wb::RunRecord::load(path.toStdString()); });
            QVERIFY2(loaded.has_value(), "loaded as a run");
            QCOMPARE(QString::fromStdString(loaded->file()), path);
            QVERIFY2(QString::fromUtf8(loaded->what()).contains("epochs[1]." + key), loaded->what());
        }
    }

    // Zero is a time a phase can take (a path that skips it), and a peer that does not count the
    // elapsed time writes none: both load.
    void zeroPhasesAndNoElapsedTimeLoad() {
        wb::RunRecord r = makeRecord(wb::RunStatus::Completed);
        r.epochs[1].phases = wb::PhaseTimes{0.0, 2.0, 3.0, 0.0, 0.0};
        r.epochs[1].elapsedMs = 0.0;
        const wb::RunRecord back = wb::RunRecord::fromJson(r.toJson());
        QVERIFY(back.epochs[1].phases.has_value());
        QCOMPARE(back.epochs[1].phases->data, 0.0);
    }

    void wrongSchemaFromJsonIsDataError() {
        const auto error = dataErrorOf([] { wb::RunRecord::fromJson({{"schema", "mlpwb.ablation/1"}}); });
        QVERIFY(error.has_value());
        QVERIFY2(QString::fromUtf8(error->what()).contains("mlpwb.run/1"), error->what());
    }

    // fromJson() is what the GUI calls on JSON it already holds: anything malformed should be a
    // DataError there too, not only through load().
    void malformedFromJsonIsDataError_data() {
        QTest::addColumn<QByteArray>("json");
        QTest::newRow("schema as a number") << QByteArray(R"({"schema": 1})");
        QTest::newRow("unknown status") << QByteArray(R"({"schema": "mlpwb.run/1", "status": "exploded"})");
        QTest::newRow("epochs as an object") << QByteArray(R"({"schema": "mlpwb.run/1", "epochs": {"epoch": 1}})");
        QTest::newRow("not_applicable as a string")
            << QByteArray(R"({"schema": "mlpwb.run/1", "not_applicable": "launch: none"})");
        QTest::newRow("not_applicable entry without a switch")
            << QByteArray(R"({"schema": "mlpwb.run/1", "not_applicable": [{"reason": "none"}]})");
    }
    void malformedFromJsonIsDataError() {
        QFETCH(QByteArray, json);
        const nlohmann::json j = nlohmann::json::parse(json.toStdString());
        bool dataError = false;
        try {
            wb::RunRecord::fromJson(j);
        } catch (const wb::DataError&) {
            dataError = true;
        } catch (const std::exception&) {
        }
        QVERIFY(dataError);
    }

    void notApplicableIsAListOfObjects() {
        const nlohmann::json j = makeRecord().toJson();
        QCOMPARE(j.at("not_applicable"),
                 nlohmann::json::parse(R"([{"switch": "launch", "reason": "the CPU backend launches no kernels"}])"));
    }

    // Records written before "not_applicable" held objects hold strings "switch=value: reason" (or
    // "switch: reason"): they load, the switch's name cut at the first '=' or ':'.
    void oldNotApplicableStringsLoad_data() {
        QTest::addColumn<QString>("entry");
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("reason");
        QTest::newRow("switch=value: reason") << "launch=eager: the CPU backend launches no kernels"
                                              << "launch"
                                              << "the CPU backend launches no kernels";
        QTest::newRow("switch=value with ':' in the reason") << "data_path=pinned_async: no copy on a CPU: views"
                                                             << "data_path"
                                                             << "no copy on a CPU: views";
        QTest::newRow("switch: reason") << "validation: runs cuBLAS fp32"
                                        << "validation"
                                        << "runs cuBLAS fp32";
        QTest::newRow("no reason") << "gemm=custom"
                                   << "gemm"
                                   << "gemm=custom";
    }
    void oldNotApplicableStringsLoad() {
        QFETCH(QString, entry);
        QFETCH(QString, name);
        QFETCH(QString, reason);
        const QString path = dir_.filePath("old_not_applicable.json");
        writeFile(path, (R"({"schema": "mlpwb.run/1", "name": "old", "not_applicable": [")" + entry +
                         R"(", {"switch": "precision", "reason": "fp32 only"}]})")
                            .toUtf8());
        const wb::RunRecord r = wb::RunRecord::load(path.toStdString());
        QCOMPARE(r.notApplicable.size(), std::size_t{2});
        QCOMPARE(QString::fromStdString(r.notApplicable[0].name), name);
        QCOMPARE(QString::fromStdString(r.notApplicable[0].reason), reason);
        QVERIFY(r.notApplicable[1] == (wb::IgnoredSwitch{"precision", "fp32 only"}));
        // Saved again, the entry is an object.
        QCOMPARE(r.toJson().at("not_applicable").at(0).at("switch").get<std::string>(), name.toStdString());
    }

    // Peers write null for whatever they cannot measure, accuracy and throughput included.
    void peerNullsInEveryOptionalNumberLoad() {
        const QString path = dir_.filePath("peer_more_nulls.json");
        writeFile(path, R"({"schema": "mlpwb.run/1", "epochs": [{"epoch": 1, "warmup": null, "train_loss": 0.5,
            "train_accuracy": null, "wall_ms": 3.0, "samples_per_s": null, "elapsed_ms": null}]})");
        std::string error;
        try {
            wb::RunRecord::load(path.toStdString());
        } catch (const std::exception& e) {
            error = e.what();
        }
        QVERIFY2(error.empty(), error.c_str());
    }

    void missingFileIsDataError() {
        const QString path = dir_.filePath("never_written.json");
        const auto error = dataErrorOf([&] { wb::RunRecord::load(path.toStdString()); });
        QVERIFY(error.has_value());
        QCOMPARE(QString::fromStdString(error->file()), path);
    }

    void epochCsvHasHeaderAndEmptyCellsForNulls() {
        const wb::RunRecord r = makeRecord();
        const QString path = dir_.filePath("epochs.csv");
        r.saveEpochCsv(path.toStdString());
        const QStringList lines = readAll(path).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 1 + int(r.epochs.size()));
        const QStringList header = lines[0].split(',');
        QCOMPARE(header.first(), QString("epoch"));
        for (const char* column :
             {"warmup", "train_loss", "train_accuracy", "val_loss", "val_accuracy", "wall_ms", "device_ms",
              "samples_per_s", "data_ms", "forward_ms", "backward_ms", "optimizer_ms", "other_ms"})
            QVERIFY2(header.contains(column), column);
        QList<QStringList> rows;
        for (int i = 1; i < lines.size(); ++i) {
            rows << lines[i].split(',');
            QCOMPARE(rows.last().size(), header.size());
        }
        auto cell = [&](int epochIndex, const char* column) { return rows[epochIndex].value(header.indexOf(column)); };
        // Epoch 1: everything measured.
        QCOMPARE(cell(0, "epoch"), QString("1"));
        QCOMPARE(cell(0, "warmup"), QString("1"));
        QCOMPARE(cell(0, "val_loss").toDouble(), 0.58);
        QCOMPARE(cell(0, "device_ms").toDouble(), 19.5);
        QCOMPARE(cell(0, "backward_ms").toDouble(), 9.8);
        QCOMPARE(cell(0, "wall_ms").toDouble(), 21.25);
        // Epoch 2: val, device and phases null -> empty cells, never 0.
        QCOMPARE(cell(1, "warmup"), QString("0"));
        for (const char* column : {"val_loss", "val_accuracy", "device_ms", "data_ms", "forward_ms", "backward_ms",
                                   "optimizer_ms", "other_ms"})
            QVERIFY2(cell(1, column).isEmpty(), column);
        QVERIFY(!cell(1, "train_loss").isEmpty());
        QCOMPARE(cell(1, "train_loss").toDouble(), r.epochs[1].trainLoss);
        // Epoch 3: an optional value keeps its precision like the other columns.
        QVERIFY(qAbs(cell(2, "val_loss").toDouble() - 0.123456789012345) < 1e-6);
        QVERIFY2(qAbs(cell(2, "val_loss").toDouble() - 0.123456789012345) < 1e-9, qPrintable(cell(2, "val_loss")));
    }

    void epochCsvKeepsSmallOptionalValues() {
        wb::RunRecord r;
        auto e = makeEpoch(1, 0.0000125, true);
        e.valLoss = 1e-7;  // a well-fitted validation loss
        e.deviceMs = 0.0000125;
        r.epochs = {e};
        const QString path = dir_.filePath("small.csv");
        r.saveEpochCsv(path.toStdString());
        const QStringList lines = readAll(path).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 2);
        const QStringList header = lines[0].split(','), cells = lines[1].split(',');
        QCOMPARE(cells[header.indexOf("wall_ms")].toDouble(), 0.0000125);
        QVERIFY2(cells[header.indexOf("val_loss")].toDouble() > 0, qPrintable(lines[1]));
    }

    void epochCsvToUnwritablePlaceIsIoError() {
        const std::string path = dir_.filePath("no/such/folder/epochs.csv").toStdString();
        QVERIFY_THROWS_EXCEPTION(wb::IoError, makeRecord().saveEpochCsv(path));
    }

    // What a record's configuration is, asked in one place: ours parses; a peer's keys (no execution
    // switches) or a configuration this version cannot read give none, and say why when required.
    void theConfigurationIsReadInOnePlace_data() {
        QTest::addColumn<QString>("config");
        QTest::addColumn<QString>("environmentBackend");
        QTest::addColumn<bool>("ours");
        QTest::addColumn<QString>("backend");
        QTest::addColumn<QString>("why");  // wb::requireRunConfig's message, when it is not ours
        const std::string torch = nlohmann::json(wb::RunConfig{}).dump();  // the default is the CPU backend
        QTest::newRow("ours") << QString::fromStdString(torch) << "" << true << "cpu"
                              << "";
        QTest::newRow("a peer's keys") << R"({"backend": "pytorch", "lr": 0.001})"
                                       << "" << false << "pytorch"
                                       << "holds no workbench configuration";
        QTest::newRow("a peer that names its engine in the environment") << R"({"lr": 0.001})"
                                                                         << "jax" << false << "jax"
                                                                         << "holds no workbench configuration";
        QTest::newRow("switches of another version") << R"({"backend": "cpu", "execution": {"warp": "on"}})"
                                                     << "" << false << "cpu"
                                                     << "cannot be read";
        QTest::newRow("nothing says") << "{}"
                                      << "" << false << "unknown"
                                      << "holds no workbench configuration";
    }

    void theConfigurationIsReadInOnePlace() {
        QFETCH(QString, config);
        QFETCH(QString, environmentBackend);
        QFETCH(bool, ours);
        QFETCH(QString, backend);
        QFETCH(QString, why);
        wb::RunRecord r;
        r.name = "run";
        r.config = nlohmann::json::parse(config.toStdString());
        if (!environmentBackend.isEmpty()) r.environment["backend"] = environmentBackend.toStdString();
        QCOMPARE(wb::runConfigOf(r).has_value(), ours);
        QCOMPARE(QString::fromStdString(wb::backendOf(r)), backend);
        if (ours) {
            QCOMPARE(nlohmann::json(*wb::runConfigOf(r)), r.config);
            return;
        }
        try {
            wb::requireRunConfig(r);
            QFAIL("no wb::ConfigError");
        } catch (const wb::ConfigError& e) {
            QVERIFY2(QString(e.what()).contains(why), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestRunRecord)
#include "tst_run_record.moc"
