// Comparable or not: two runs compare only when their workloads match, and the first difference is
// said in words. Records are built the way the trainer and the peers write them.
#include <QtTest>

#include "core/run/workload.h"

using namespace wb;

namespace {
RunRecord ours() {
    RunRecord r;
    r.dataset = {"builtin", 100000, 61, "y", {}, "sha256:aa", 100000, 0, {}};
    r.config = {{"model", {{"hidden", {20, 10}}, {"activation", "tanh"}, {"init", "torch"}}},
                {"optimizer", {{"type", "adam"}, {"lr", 0.001}, {"beta1", 0.9}, {"eps", 1e-8}}},
                {"train", {{"epochs", 200}, {"batch_size", 2048}}},
                {"execution", {{"launch", "eager"}}},
                {"backend", "cpu"}};
    return r;
}
}  // namespace

class WorkloadTest : public QObject {
    Q_OBJECT
private slots:
    void firstDifferenceInWords_data() {
        QTest::addColumn<QString>("change");
        QTest::addColumn<QString>("expected");  // empty: comparable
        QTest::newRow("other switches and backend") << "switches"
                                                    << "";
        QTest::newRow("other machine") << "machine"
                                       << "";
        QTest::newRow("data") << "data"
                              << "different data (bc.csv, 569 rows vs builtin, 100000 rows)";
        QTest::newRow("split") << "split"
                               << "a different split (80000 training rows vs 100000)";
        QTest::newRow("model") << "model"
                               << "a different model (64-32 relu vs 20-10 tanh)";
        QTest::newRow("optimizer") << "optimizer"
                                   << "a different optimizer (\"sgd\" vs \"adam\")";
        QTest::newRow("lr") << "lr"
                            << "a different optimizer setting (lr 0.003 vs 0.001)";
        QTest::newRow("batch") << "batch"
                               << "a different batch size (256 vs 2048)";
        QTest::newRow("epochs") << "epochs"
                                << "different epochs (20 vs 200)";
        // A peer writes "kind" for the optimizer and no content hash: compared by what both say.
        QTest::newRow("peer, same workload") << "peer"
                                             << "";
    }
    void firstDifferenceInWords() {
        QFETCH(QString, change);
        QFETCH(QString, expected);
        const RunRecord a = ours();
        RunRecord b = ours();
        if (change == "switches") b.config["execution"]["launch"] = "graph_step", b.config["backend"] = "torch";
        if (change == "machine") b.environment = {{"cpu", "another"}, {"device", "H200"}};
        if (change == "data") b.dataset = {"bc.csv", 569, 61, "y", {}, "sha256:bb", 569, 0, {}};
        if (change == "split") b.dataset.trainRows = 80000, b.dataset.valRows = 20000;
        if (change == "model") b.config["model"] = {{"hidden", {64, 32}}, {"activation", "relu"}};
        if (change == "optimizer") b.config["optimizer"]["type"] = "sgd";
        if (change == "lr") b.config["optimizer"]["lr"] = 0.003;
        if (change == "batch") b.config["train"]["batch_size"] = 256;
        if (change == "epochs") b.config["train"]["epochs"] = 20;
        if (change == "peer") {
            b.dataset.hash.clear();
            b.config["optimizer"] = {{"kind", "adam"}, {"lr", 0.001}};
            b.config.erase("execution");
        }
        const auto d = workloadDifference(a, b);
        QCOMPARE(QString::fromStdString(d.value_or("")), expected);
    }
};

QTEST_GUILESS_MAIN(WorkloadTest)
#include "tst_workload.moc"
