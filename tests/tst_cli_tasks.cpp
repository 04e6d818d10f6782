// mlpwb end to end with tasks beyond yes/no: what --task auto decides and writes in the record
// (task, classes, mapping, K outputs), a regression's metrics by name, the dataset description, and
// each bad label column as one line on stderr, exit 3 and no record that claims success; class
// weights in the record and their refusals (exit 4).
#include <QtTest>

#include "tests/cli_runner.h"

namespace {
constexpr int kTimeoutMs = 60000;

// rows x 2 features and a label from `label(i)`.
QByteArray csvOf(int rows, const std::function<QByteArray(int)>& label) {
    QByteArray csv = "a,b,y\n";
    for (int i = 0; i < rows; ++i)
        csv += QByteArray::number(i % 7) + "," + QByteArray::number((i * 3) % 11) + "," + label(i) + "\n";
    return csv;
}
}  // namespace

class TestCliTasks : public QObject {
    Q_OBJECT

private slots:
    // An empty folder per test (and per data row), so no run sees another's record.
    void init() {
        QVERIFY(dir_.isValid());
        QVERIFY(QDir(dir_.path()).removeRecursively() && QDir().mkpath(dir_.path()));
    }

    void multiclassByAuto() {
        write("three.csv", csvOf(90, [](int i) { return QByteArrayList{"cat", "dog", "emu"}[i % 3]; }));
        RUN_MLPWB(r, (QStringList{"train", "--data", "three.csv", "--epochs", "3", "--val-split", "0.2", "--out",
                                  "run.json", "--quiet"}));
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        const auto j = readJson(dir_.filePath("run.json"));
        QCOMPARE(str(j["status"]), QString("completed"));
        QCOMPARE(str(j["dataset"]["task"]), QString("multiclass"));
        QCOMPARE(j["dataset"]["classes"], nlohmann::json({"cat", "dog", "emu"}));
        QCOMPARE(j["dataset"]["label_mapping"], nlohmann::json({{"cat", 0}, {"dog", 1}, {"emu", 2}}));
        QCOMPARE(j["config"]["model"]["outputs"].get<int>(), 3);
        QVERIFY(j["epochs"][2]["val_accuracy"].is_number());
        QVERIFY2(str(j["name"]).endsWith(QString::fromUtf8(" · 3 classes")), j["name"].dump().c_str());
    }

    void regressionAsAsked() {
        write("price.csv", csvOf(60, [](int i) { return QByteArray::number(100.0 + i * 1.5); }));
        RUN_MLPWB(r, (QStringList{"train", "--data", "price.csv", "--task", "regression", "--regression-loss", "huber",
                                  "--epochs", "3", "--val-split", "0.2", "--out", "run.json"}));
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        QVERIFY2(QString::fromUtf8(r.out).contains(" r2 "), r.out.constData());
        const auto j = readJson(dir_.filePath("run.json"));
        QCOMPARE(str(j["dataset"]["task"]), QString("regression"));
        QCOMPARE(str(j["config"]["model"]["regression_loss"]), QString("huber"));
        const auto& last = j["epochs"][2];
        for (const char* key : {"train_mse", "train_mae", "train_r2", "val_mse", "val_mae", "val_r2"})
            QVERIFY2(last[key].is_number(), key);
        QVERIFY(last["train_accuracy"].is_null());
        QVERIFY(j["summary"]["final"]["val_r2"].is_number());
        QVERIFY2(str(j["name"]).endsWith(QString::fromUtf8(" · regression")), j["name"].dump().c_str());
    }

    // An ablation of a regression prints and writes R^2 where a classification has its accuracy.
    void ablationOfARegressionShowsR2() {
        write("price.csv", csvOf(60, [](int i) { return QByteArray::number(100.0 + i * 1.5); }));
        RUN_MLPWB(r, (QStringList{"ablate", "--data", "price.csv", "--task", "regression", "--epochs", "2", "--repeats",
                                  "1", "--fixes", "zero_grad", "--out", "ablation.json"}));
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        const auto j = readJson(dir_.filePath("ablation.json"));
        QCOMPARE(str(j["task"]), QString("regression"));
        const auto& final = j["steps"][0]["final"];
        QVERIFY(final["train_accuracy"].is_null());
        QVERIFY(final["train_r2"].is_number());

        QString header, baseline;
        for (const QString& line : r.outLines()) {
            if (line.contains("final loss")) header = line;
            if (line.trimmed().startsWith("baseline ")) baseline = line;
        }
        QVERIFY2(header.split(' ', Qt::SkipEmptyParts).last() == "r2", qPrintable(header));
        // step, median, spread, saved, share, final loss, then R^2 as the JSON has it
        const QStringList cells = baseline.split(' ', Qt::SkipEmptyParts);
        QVERIFY2(cells.size() >= 7, qPrintable(baseline));
        QCOMPARE(cells[6], QString::number(final["train_r2"].get<double>(), 'f', 4));
        // 60 rows train in well under a millisecond: the times keep 3 or 4 decimals, not all "0.00".
        QVERIFY2(showsMilliseconds(cells[1], j["steps"][0]["median_epoch_ms"].get<double>()), qPrintable(baseline));
    }

    // --class-weights: the numbers the run trained with land in the record; `balanced` resolves over
    // the training split (30 rows per class of 90 with a stratified 0.2 split: all weights 1).
    void classWeightsInTheRecord_data() {
        QTest::addColumn<QString>("weights");
        QTest::addColumn<std::vector<float>>("recorded");
        QTest::addColumn<bool>("balanced");
        QTest::newRow("a list") << "2,1,0.5" << std::vector<float>{2, 1, 0.5f} << false;
        QTest::newRow("balanced") << "balanced" << std::vector<float>{1, 1, 1} << true;
    }

    void classWeightsInTheRecord() {
        QFETCH(QString, weights);
        QFETCH(std::vector<float>, recorded);
        QFETCH(bool, balanced);
        write("three.csv", csvOf(90, [](int i) { return QByteArrayList{"cat", "dog", "emu"}[i % 3]; }));
        RUN_MLPWB(r, (QStringList{"train", "--data", "three.csv", "--epochs", "2", "--val-split", "0.2", "--batch-size",
                                  "32", "--class-weights", weights, "--out", "run.json", "--quiet"}));
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        const auto j = readJson(dir_.filePath("run.json"));
        QCOMPARE(str(j["status"]), QString("completed"));
        const auto& model = j["config"]["model"];
        QCOMPARE(model["class_weights"].get<std::vector<float>>(), recorded);
        QCOMPARE(model.value("class_weights_balanced", false), balanced);
    }

    // A wrong count (both numbers named), a weight that is not positive, or weights on binary data:
    // one line, exit 4 (a configuration mlpwb checks itself), no record that claims success.
    void badClassWeights_data() {
        QTest::addColumn<QByteArray>("csv");
        QTest::addColumn<QString>("weights");
        QTest::addColumn<QString>("reason");
        const QByteArray three = csvOf(60, [](int i) { return QByteArrayList{"cat", "dog", "emu"}[i % 3]; });
        QTest::newRow("wrong count") << three << "1,2"
                                     << "2 given, but this data has 3 classes";
        QTest::newRow("negative") << three << "1,-2,3"
                                  << "class weight 2 is -2";
        QTest::newRow("zero") << three << "1,0,3"
                              << "must be a positive, finite number";
        QTest::newRow("not a number") << three << "1,x,3"
                                      << "class weight 2 is 'x', not a number";
        QTest::newRow("binary data") << csvOf(40, [](int i) { return QByteArray(i % 2 ? "yes" : "no"); }) << "1,2"
                                     << "class weights apply to multiclass; this data is binary";
    }

    void badClassWeights() {
        QFETCH(QByteArray, csv);
        QFETCH(QString, weights);
        QFETCH(QString, reason);
        write("data.csv", csv);
        RUN_MLPWB(r, (QStringList{"train", "--data", "data.csv", "--epochs", "2", "--class-weights", weights, "--out",
                                  "run.json"}));
        QVERIFY2(r.exitCode == 4, r.describe().constData());
        QCOMPARE(r.errLines().size(), 1);
        QVERIFY2(r.errLines().first().contains(reason), r.err.constData());
        const auto j = readJson(dir_.filePath("run.json"));
        QVERIFY2(j.is_null() || str(j["status"]) == "failed", j.dump().c_str());
    }

    void datasetDescribesTheTask() {
        write("three.csv", csvOf(30, [](int i) { return QByteArrayList{"cat", "dog", "emu"}[i % 3]; }));
        RUN_MLPWB(r, (QStringList{"dataset", "--data", "three.csv"}));
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        QVERIFY(r.outLines().contains("task:     multiclass (3 text values: multiclass)"));
        QVERIFY(r.outLines().contains("class 2:  emu: 10 rows (33.33 %)"));
    }

    void badLabelColumns_data() {
        QTest::addColumn<QByteArray>("csv");
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QString>("reason");
        QTest::newRow("one value") << csvOf(20, [](int) { return QByteArray("x"); }) << QStringList{}
                                   << "column 'y' holds a single value";
        QTest::newRow("a number to predict")
            << csvOf(40, [](int i) { return QByteArray::number(i * 0.7); }) << QStringList{} << "--task regression";
        QTest::newRow("a class of one row") << csvOf(21,
                                                     [](int i) {
                                                         return QByteArray(i == 20 ? "lonely" : i % 2 ? "a" : "b");
                                                     })
                                            << QStringList{"--val-split", "0.2"} << "class 'lonely' has a single row";
        QTest::newRow("text as a target")
            << csvOf(20, [](int i) { return QByteArray(i % 2 ? "a" : "b"); }) << QStringList{"--task", "regression"}
            << "a regression target must be a number";
        QTest::newRow("non-finite target") << csvOf(20, [](int i) { return QByteArray(i == 5 ? "inf" : "1.5"); })
                                           << QStringList{"--task", "regression"} << "not a finite number";
        QTest::newRow("three values for binary")
            << csvOf(30, [](int i) { return QByteArray::number(i % 3); }) << QStringList{"--task", "binary"}
            << "a binary label needs exactly two";
    }

    void badLabelColumns() {
        QFETCH(QByteArray, csv);
        QFETCH(QStringList, extra);
        QFETCH(QString, reason);
        write("bad.csv", csv);
        RUN_MLPWB(r, (QStringList{"train", "--data", "bad.csv", "--epochs", "2", "--out", "run.json"} + extra));
        QVERIFY2(r.exitCode == 3, r.describe().constData());
        QCOMPARE(r.errLines().size(), 1);
        QVERIFY2(r.errLines().first().contains(reason), r.err.constData());
        const auto j = readJson(dir_.filePath("run.json"));  // nothing, or a record that says it failed
        QVERIFY2(j.is_null() || str(j["status"]) == "failed", j.dump().c_str());
    }

private:
    void write(const QString& name, const QByteArray& content) {
        QFile f(dir_.filePath(name));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(content);
    }

    QTemporaryDir dir_;
};

QTEST_GUILESS_MAIN(TestCliTasks)
#include "tst_cli_tasks.moc"
