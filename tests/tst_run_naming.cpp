// Default run names say what differs, so that seven runs are not all called "custom".
#include <QtTest>

#include "core/run/run_naming.h"

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

    // The task joins the name unless it is the founding case's binary one (those names stay as they
    // were): from the loaded data, or before loading from a task chosen by hand.
    void nameSaysTheTask_data() {
        QTest::addColumn<QString>("task");    // the data's task; "" = not loaded yet
        QTest::addColumn<QString>("chosen");  // the config's task choice
        QTest::addColumn<QString>("expected");
        QTest::newRow("binary data") << "binary"
                                     << "auto"
                                     << "Fastest";
        QTest::newRow("3 classes") << "multiclass"
                                   << "auto"
                                   << "Fastest · 3 classes";
        QTest::newRow("regression data") << "regression"
                                         << "auto"
                                         << "Fastest · regression";
        QTest::newRow("data decides over the choice") << "multiclass"
                                                      << "multiclass"
                                                      << "Fastest · 3 classes";
        QTest::newRow("regression chosen, not loaded") << ""
                                                       << "regression"
                                                       << "Fastest · regression";
        QTest::newRow("multiclass chosen, not loaded") << ""
                                                       << "multiclass"
                                                       << "Fastest · multiclass";
        QTest::newRow("auto, not loaded") << ""
                                          << "auto"
                                          << "Fastest";
    }
    void nameSaysTheTask() {
        QFETCH(QString, task);
        QFETCH(QString, chosen);
        QFETCH(QString, expected);
        RunConfig c;
        c.execution = presetByName("Fastest").settings;
        c.data.task = taskChoiceFromString(chosen.toStdString());
        if (task.isEmpty()) {
            QCOMPARE(QString::fromStdString(defaultRunName(c)), expected);
            return;
        }
        Dataset data;
        data.task = taskFromString(task.toStdString());
        data.classNames =
            task == "multiclass" ? std::vector<std::string>{"cat", "dog", "emu"} : std::vector<std::string>{"0", "1"};
        QCOMPARE(QString::fromStdString(defaultRunName(c, data)), expected);
    }
};

QTEST_GUILESS_MAIN(RunNamingTest)
#include "tst_run_naming.moc"
