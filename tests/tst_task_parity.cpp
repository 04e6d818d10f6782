// Parity with PyTorch for the tasks beyond yes/no: from the same initial weights and batches, 3
// epochs of the CPU backend match PyTorch's loss curve and final weights for softmax
// cross-entropy (fused, and log(softmax) + NLLLoss) with K = 3 and 10, each form with K = 3 and
// class weights (CrossEntropyLoss(weight=w), NLLLoss(weight=w)), and for MSE and Huber
// regression on a standardised target. The fixture (tests/data/parity_tasks) is made by
// `/usr/bin/python3 bench/make_task_parity_fixture.py` with Debian's PyTorch.
#include <QtTest>

#include "core/cpu/cpu_backend.h"
#include "core/data/prepare.h"
#include "core/model/safetensors.h"
#include "core/train/trainer.h"
#include "tests/parity_support.h"
#include "tests/test_support.h"

using namespace wb;

namespace {
const std::string kDir = WB_TEST_DATA_DIR "/parity_tasks/";
}  // namespace

class TestTaskParity : public QObject {
    Q_OBJECT

private slots:
    void matchesPyTorch_data() {
        QTest::addColumn<QString>("name");
        const nlohmann::json fixture = parity::readExpected(kDir);  // outlives the loop over its items
        for (const auto& [name, c] : fixture.at("cases").items())
            QTest::newRow(name.c_str()) << QString::fromStdString(name);
    }

    void matchesPyTorch() {
        QFETCH(QString, name);
        const nlohmann::json fixture = parity::readExpected(kDir);
        const nlohmann::json& c = fixture.at("cases").at(name.toStdString());
        const Dataset ds = parity::loadTaskCase(kDir, c);
        QCOMPARE(int(ds.task), int(taskFromString(c.at("task").get<std::string>())));
        RunConfig config = parity::taskCaseConfig(kDir, fixture, c);
        config.name = name.toStdString();
        const PreparedData data = prepare(ds, config.prepare);
        QCOMPARE(data.outputs(), c.at("outputs").get<int>());
        auto backend = makeCpuBackend();
        Trainer trainer(config, ds, data, *backend);
        CancelFlag cancel{false};
        const RunRecord record = trainer.run(cancel);
        WB_COMPARE_NAME(record.status, "completed");

        parity::compareLossCurve(record, c.at("epoch_train_loss").get<std::vector<double>>());
        if (c.contains("epoch_train_accuracy")) {
            const auto accuracies = c.at("epoch_train_accuracy").get<std::vector<double>>();
            QVERIFY(std::abs(record.epochs.back().trainAccuracy - accuracies.back()) <= 4e-3);  // a row or two
        } else {
            QVERIFY(record.epochs.back().trainRegression.has_value());
        }
        parity::compareWeights(trainer.finalParams(), loadSafetensors(kDir + c.at("final_weights").get<std::string>()));
    }

    // Equal class weights (2 each) train exactly as none: w / sum w = 1 / N for every batch, so the
    // loss curve and the weights agree bit for bit; a batch the backend splits into chunks must give
    // each chunk the whole batch's sum of weights for this to hold.
    void equalClassWeightsTrainAsNone_data() {
        QTest::addColumn<int>("batch");
        QTest::newRow("batch 100") << 100;
        QTest::newRow("batch 128 (one chunk)") << 128;
        QTest::newRow("batch 256 (two chunks)") << 256;
        QTest::newRow("batch 600 (five chunks, the last one short)") << 600;
    }

    void equalClassWeightsTrainAsNone() {
        QFETCH(int, batch);
        const nlohmann::json fixture = parity::readExpected(kDir);
        const nlohmann::json& c = fixture.at("cases").at("k3_cross_entropy");
        const Dataset ds = parity::loadTaskCase(kDir, c);
        RunConfig config = parity::taskCaseConfig(kDir, fixture, c);
        config.train.batchSize = batch;
        const PreparedData data = prepare(ds, config.prepare);
        auto train = [&](const RunConfig& cfg, MlpParams& params) {
            auto backend = makeCpuBackend();
            Trainer trainer(cfg, ds, data, *backend);
            CancelFlag cancel{false};
            const RunRecord record = trainer.run(cancel);
            params = trainer.finalParams();
            return record;
        };
        MlpParams plainParams, weightedParams;
        const RunRecord plain = train(config, plainParams);
        config.model.classWeights.values = {2.0f, 2.0f, 2.0f};
        const RunRecord weighted = train(config, weightedParams);
        WB_COMPARE_NAME(weighted.status, "completed");
        QCOMPARE(weightedParams.values, plainParams.values);
        for (std::size_t e = 0; e < plain.epochs.size(); ++e)
            QVERIFY(std::abs(weighted.epochs[e].trainLoss - plain.epochs[e].trainLoss) <= 1e-12);
    }
};

QTEST_GUILESS_MAIN(TestTaskParity)
#include "tst_task_parity.moc"
