// Default run names say what differs, so that seven runs are not all called "custom".
#include <QtTest>

#include "run_naming.h"

using namespace wb;

class RunNamingTest : public QObject {
    Q_OBJECT
private slots:
    void nameSaysWhatDiffers_data() {
        QTest::addColumn<QString>("change");
        QTest::addColumn<QString>("expected");
        QTest::newRow("preset") << "preset"
                                << "Seed PyTorch loop";
        QTest::newRow("preset on cuda") << "cuda"
                                        << "Fastest · cuda";
        QTest::newRow("hand-set switches") << "switches"
                                           << "launch=eager_sync, loss=sigmoid_bce";
        QTest::newRow("settings") << "settings"
                                  << "Seed PyTorch loop · torch · 64-32, gelu, lr 0.003, batch 256, shuffled";
        QTest::newRow("optimizer defaults are not news") << "rmsprop"
                                                         << "Seed PyTorch loop · rmsprop";
    }
    void nameSaysWhatDiffers() {
        QFETCH(QString, change);
        QFETCH(QString, expected);
        RunConfig c;
        c.execution = presetByName("Seed PyTorch loop").settings;
        if (change == "cuda") c.execution = presetByName("Fastest").settings, c.backend = "cuda";
        if (change == "switches") {
            c.execution = ExecutionSettings{};
            c.execution.launch = Launch::EagerSync;
            c.execution.loss = LossKind::SigmoidBce;
        }
        if (change == "settings") {
            c.backend = "torch";
            c.model.hidden = {64, 32};
            c.model.activation = Activation::Gelu;
            c.optimizer.lr = 0.003;
            c.train.batchSize = 256;
            c.train.shuffle = true;
        }
        if (change == "rmsprop")
            c.optimizer = OptimizerSpec::defaults(OptimizerKind::RmsProp);  // lr 1e-2 is its default
        QCOMPARE(QString::fromStdString(defaultRunName(c)), expected);
    }
};

QTEST_GUILESS_MAIN(RunNamingTest)
#include "tst_run_naming.moc"
