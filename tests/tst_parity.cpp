// Parity with PyTorch: from the same initial weights and the same batches, 3 epochs of the CPU
// backend match PyTorch's loss curve and final weights. The fixture (tests/data/parity) is made by
// `/usr/bin/python3 bench/make_parity_fixture.py` with Debian's PyTorch.
#include <QtTest>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/cpu/cpu_backend.h"
#include "core/data/npy_io.h"
#include "core/data/prepare.h"
#include "core/model/safetensors.h"
#include "core/train/trainer.h"
#include "tests/parity_support.h"
#include "tests/test_support.h"

using namespace wb;

namespace {
const std::string kDir = WB_TEST_DATA_DIR "/parity/";

nlohmann::json expected() {
    return parity::readExpected(kDir);
}
using parity::optimizerOf;
}  // namespace

class TestParity : public QObject {
    Q_OBJECT

private slots:
    void matchesPyTorch_data() {
        QTest::addColumn<QString>("name");
        const nlohmann::json fixture = expected();
        for (const auto& [name, c] : fixture.at("cases").items())
            QTest::newRow(name.c_str()) << QString::fromStdString(name);
    }

    void matchesPyTorch() {
        QFETCH(QString, name);
        const nlohmann::json fixture = expected();
        const nlohmann::json& c = fixture.at("cases").at(name.toStdString());
        const Dataset ds = loadNpyDataset(kDir + "x.npy", kDir + "y.npy");

        RunConfig config;
        config.name = name.toStdString();
        config.prepare.standardize = false;  // the same rows PyTorch saw, in file order
        config.optimizer = optimizerOf(c.at("optimizer"));
        config.execution.loss = lossKindFromString(c.at("loss").get<std::string>());
        config.train.epochs = fixture.at("train").at("epochs").get<int>();
        config.train.batchSize = fixture.at("train").at("batch_size").get<int>();
        config.initWeights = kDir + "init.safetensors";
        const PreparedData data = prepare(ds, config.prepare);
        auto backend = makeCpuBackend();
        Trainer trainer(config, ds, data, *backend);
        CancelFlag cancel{false};
        const RunRecord record = trainer.run(cancel);
        WB_COMPARE_NAME(record.status, "completed");

        parity::compareLossCurve(record, c.at("epoch_train_loss").get<std::vector<double>>());
        const auto accuracies = c.at("epoch_train_accuracy").get<std::vector<double>>();
        QVERIFY(std::abs(record.epochs.back().trainAccuracy - accuracies.back()) <= 2e-3);  // a row or two

        parity::compareWeights(trainer.finalParams(), loadSafetensors(kDir + c.at("final_weights").get<std::string>()));
    }
};

QTEST_GUILESS_MAIN(TestParity)
#include "tst_parity.moc"
