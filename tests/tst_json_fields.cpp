// Loader errors name the file and the field: `epochs[12].wall_ms: expected a number, found a string`,
// for RunRecords, ablation results and the RunConfig inside them.
#include <QtTest>

#include <fstream>

#include <nlohmann/json.hpp>

#include "core/measure/ablation_result.h"
#include "core/run/run_config.h"
#include "core/run/run_record.h"
#include "tests/test_support.h"

using namespace wb;
using json = nlohmann::json;

namespace {
json epoch(int n) {
    return {{"epoch", n}, {"train_loss", 0.5}, {"wall_ms", 2.0}};
}

json recordWithEpochs(int count) {
    json epochs = json::array();
    for (int i = 1; i <= count; ++i) epochs.push_back(epoch(i));
    return {{"schema", RunRecord::kSchema}, {"name", "r"}, {"status", "completed"}, {"epochs", epochs}};
}

json step(const std::string& name) {
    return {{"name", name}, {"median_epoch_ms", 10.0}, {"runs", json::array()}};
}
}  // namespace

class TestJsonFields : public QObject {
    Q_OBJECT

private slots:
    void runRecordErrorsNameTheField_data() {
        QTest::addColumn<QString>("pointer");  // a JSON pointer into recordWithEpochs(14)
        QTest::addColumn<QString>("value");    // JSON text put there; empty: the key is removed
        QTest::addColumn<QString>("message");
        QTest::newRow("an epoch's wall time as text") << "/epochs/12/wall_ms"
                                                      << "\"fast\""
                                                      << "epochs[12].wall_ms: expected a number, found a string";
        QTest::newRow("an epoch without its number") << "/epochs/0/epoch"
                                                     << ""
                                                     << "epochs[0].epoch: missing";
        QTest::newRow("a phase as a list") << "/epochs/3/phases_ms"
                                           << "{\"forward\": [1]}"
                                           << "epochs[3].phases_ms.forward: expected a number, found a list";
        QTest::newRow("an epoch that is not an object") << "/epochs/5"
                                                        << "7"
                                                        << "epochs[5]: expected an object, found a number";
        QTest::newRow("epochs not a list") << "/epochs"
                                           << "{}"
                                           << "epochs: expected a list, found an object";
        QTest::newRow("the data set's rows as text") << "/dataset"
                                                     << "{\"rows\": \"x\"}"
                                                     << "dataset.rows: expected a number, found a string";
    }
    void runRecordErrorsNameTheField() {
        QFETCH(QString, pointer);
        QFETCH(QString, value);
        QFETCH(QString, message);
        json j = recordWithEpochs(14);
        const json::json_pointer at(pointer.toStdString());
        if (value.isEmpty())
            j[at.parent_pointer()].erase(at.back());
        else
            j[at] = json::parse(value.toStdString());
        const QTemporaryDir dir;
        const QString file = dir.filePath("broken-run.json");
        std::ofstream(file.toStdString()) << j.dump();
        const auto error = dataErrorOf([&] { RunRecord::load(file.toStdString()); });
        QVERIFY(error);
        QVERIFY2(QString(error->what()).contains("broken-run.json"), error->what());  // the file
        QVERIFY2(QString(error->what()).contains(message), error->what());            // the field
    }

    void ablationErrorsNameTheStep() {
        json j = {{"schema", AblationResult::kSchema}, {"steps", {step("baseline"), step("fix")}}};
        j["steps"][1]["median_epoch_ms"] = "slow";
        auto error = dataErrorOf([&] { AblationResult::fromJson(j); });
        QVERIFY(error);
        QVERIFY2(QString(error->what()).contains("steps[1].median_epoch_ms: expected a number, found a string"),
                 error->what());

        j["steps"][1] = step("fix");
        j["steps"][1]["runs"] = json::array({recordWithEpochs(3)});
        j["steps"][1]["runs"][0]["epochs"][2]["wall_ms"] = nullptr;
        error = dataErrorOf([&] { AblationResult::fromJson(j); });
        QVERIFY(error);
        QVERIFY2(QString(error->what())
                     .contains("steps[1].runs[0]: invalid run record: epochs[2].wall_ms: expected a "
                               "number, found null"),
                 error->what());
    }

    // A RunConfig (the GUI's last settings, a record's config read back as ours) names its field too,
    // and a number its field cannot hold is refused: converting it would be undefined behaviour (a
    // float beyond an int's range, found by fuzz_records) or would wrap silently.
    void runConfigErrorsNameTheField_data() {
        QTest::addColumn<QString>("config");
        QTest::addColumn<QString>("message");
        QTest::newRow("epochs as text") << R"({"train": {"epochs": "many"}})"
                                        << "train.epochs: expected a number, found a string";
        QTest::newRow("a layer width beyond an int")
            << R"({"model": {"hidden": [20, 5.6e25], "activation": "tanh"}})"
            << "model.hidden[1]: expected an integer from -2147483648 to 2147483647, found 5.6e+25";
        QTest::newRow("a layer width as a fraction") << R"({"model": {"hidden": [2.5], "activation": "tanh"}})"
                                                     << "model.hidden[0]: expected an integer";
        QTest::newRow("hidden not a list") << R"({"model": {"hidden": 20, "activation": "tanh"}})"
                                           << "model.hidden: expected a list, found a number";
        QTest::newRow("outputs beyond an int") << R"({"model": {"hidden": [], "activation": "tanh", "outputs": -1e19}})"
                                               << "model.outputs: expected an integer";
        QTest::newRow("a class weight beyond a float")
            << R"({"model": {"hidden": [], "activation": "tanh", "class_weights": [1, 1e300]}})"
            << "model.class_weights[1]: expected a number within";
        QTest::newRow("an int64 beyond an int") << R"({"train": {"epochs": 1099511627776}})"
                                                << "train.epochs: expected an integer";
        QTest::newRow("negative rows") << R"({"data": {"rows": -5}})"
                                       << "data: invalid data description: rows: expected an integer from 0";
        QTest::newRow("a CSV line count beyond size_t") << R"({"data": {"csv": {"skip_lines": 1e20}}})"
                                                        << "csv.skip_lines: expected an integer";
        QTest::newRow("workers beyond an int") << R"({"framework": {"torch": {"num_workers": 3e9}}})"
                                               << "framework.torch.num_workers: expected an integer";
        QTest::newRow("a learning rate as text") << R"({"optimizer": {"type": "adam", "lr": "fast"}})"
                                                 << "optimizer.lr: expected a number, found a string";
    }
    void runConfigErrorsNameTheField() {
        QFETCH(QString, config);
        QFETCH(QString, message);
        const json j = json::parse(config.toStdString());
        try {
            (void)j.get<RunConfig>();
            QFAIL("no error");
        } catch (const Error& e) {
            QVERIFY2(QString(e.what()).contains(message), e.what());
        }
    }

    // Numbers within range read as themselves, a whole float as an integer.
    void numbersWithinRangeRead() {
        const json j = json::parse(R"({"model": {"hidden": [20, 10.0], "activation": "tanh",
            "class_weights": [0.5, 3.4e38]}, "data": {"rows": 18446744073709551615, "seed": 7},
            "train": {"epochs": 2147483647}})");
        const RunConfig c = j.get<RunConfig>();
        QCOMPARE(c.model.hidden, (std::vector<int>{20, 10}));
        QCOMPARE(c.model.classWeights.values.size(), std::size_t{2});
        QCOMPARE(c.data.rows, std::numeric_limits<std::size_t>::max());
        QCOMPARE(c.train.epochs, 2147483647);
    }

    // Python's json.dump writes NaN and Infinity; they read as null where a value may be missing.
    void pythonsNonFiniteNumbersReadAsNull() {
        const QTemporaryDir dir;
        const QString file = dir.filePath("peer.json");
        std::ofstream(file.toStdString()) << R"({"schema": "mlpwb.run/1", "status": "completed", "epochs": [
            {"epoch": 1, "train_loss": NaN, "val_loss": Infinity, "device_ms": -Infinity, "wall_ms": 3.5}]})";
        const RunRecord r = RunRecord::load(file.toStdString());
        QCOMPARE(r.epochs.size(), std::size_t{1});
        QVERIFY(std::isnan(r.epochs[0].trainLoss));
        QVERIFY(!r.epochs[0].valLoss);
        QVERIFY(!r.epochs[0].deviceMs);
    }
};

QTEST_GUILESS_MAIN(TestJsonFields)
#include "tst_json_fields.moc"
