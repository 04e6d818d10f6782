// `mlpwb answer` end to end on tiny built-in data: the engines it found and what to install for the
// others, the table and the conclusion, the answer file; --estimate alone; and what it refuses.
// Nothing here asserts a timing.
#include <QTemporaryDir>
#include <QtTest>
#include <set>

#include "core/measure/answer.h"
#include "tests/cli_runner.h"

namespace {
constexpr int kTimeoutMs = 120000;
const QStringList kTiny = {"answer", "--builtin", "--rows", "400",       "--batch-size",
                           "64",     "--epochs",  "2",      "--repeats", "1"};
}  // namespace

class TestCliAnswer : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

private slots:
    void answersWithWhatThisMachineHas() {
        RUN_MLPWB(r, kTiny + QStringList({"--engines", "cpu,cuda", "--no-estimate", "--out", "answer.json"}));
        QVERIFY2(r.exitCode == 0, r.describe());
        const QString out = QString::fromUtf8(r.out);
        QVERIFY2(out.contains("Engines on this machine:"), r.describe());
        QVERIFY2(out.contains("cpu: baseline, round 1"), r.describe());
        QVERIFY2(out.contains("\ncpu "), r.describe());  // its row of the table
        QVERIFY2(out.contains("Conclusion:\n  On our CPU backend"), r.describe());
        QVERIFY2(!out.contains("Estimate"), r.describe());
        const wb::Answer a = wb::Answer::load(dir_.filePath("answer.json").toStdString());
        QCOMPARE(a.engines.front().engine, std::string("cpu"));
        QVERIFY(a.engines.front().ablation.has_value());
        QCOMPARE(a.engines.back().engine, std::string("cuda"));
        QCOMPARE(a.engines.back().available, false);  // no GPU, or no CUDA in this build: said either way
        QVERIFY(!a.engines.back().reason.empty());
    }

    // Leave-one-out (the answer's default) and --no-shapley reach every engine's plan and the file: the
    // cpu engine measures every honoured fix but one, for each, and no combination beyond them; and
    // --no-leave-one-out leaves them out.
    void attributionOptionsReachThePlan() {
        // Leave-one-out joins the rounds from round 2 on.
        QStringList args = kTiny;
        args[args.indexOf("--repeats") + 1] = "2";
        args << "--engines"
             << "cpu"
             << "--no-estimate"
             << "--budget"
             << "0"
             << "--no-shapley";
        RUN_MLPWB(none, args + QStringList({"--no-leave-one-out", "--out", "none.json"}));
        QVERIFY2(none.exitCode == 0, none.describe());
        const wb::Answer noSubsets = wb::Answer::load(dir_.filePath("none.json").toStdString());
        QVERIFY(!noSubsets.plan.leaveOneOut);
        QVERIFY(noSubsets.engines.front().ablation && noSubsets.engines.front().ablation->subsets.empty());

        RUN_MLPWB(r, args + QStringList({"--out", "loo.json"}));
        QVERIFY2(r.exitCode == 0, r.describe());
        const wb::Answer a = wb::Answer::load(dir_.filePath("loo.json").toStdString());
        QVERIFY(a.plan.leaveOneOut);
        QVERIFY(!a.plan.shapley);
        QVERIFY(!a.plan.alone);
        QVERIFY(a.engines.front().ablation.has_value());
        const wb::AblationResult& cpu = *a.engines.front().ablation;
        QVERIFY(cpu.plan.leaveOneOut);
        QVERIFY(!cpu.plan.shapley);
        // The seed loop (no fix), every honoured fix, and every honoured fix but one, for each.
        const unsigned all = (1u << cpu.subsetFixes.size()) - 1;
        QVERIFY(cpu.subsetFixes.size() >= 2);
        std::set<unsigned> masks;
        for (const auto& s : cpu.subsets) masks.insert(s.mask);
        std::set<unsigned> expected = {0, all};
        for (std::size_t p = 0; p < cpu.subsetFixes.size(); ++p) expected.insert(all & ~(1u << p));
        QVERIFY(masks == expected);
    }

    void estimateOnlyTrainsNothingElse() {
        RUN_MLPWB(r, kTiny + QStringList({"--engines", "cpu", "--estimate"}));
        QVERIFY2(r.exitCode == 0, r.describe());
        QVERIFY2(r.out.contains("in all: at most"), r.describe());
        QVERIFY2(!r.out.contains("Conclusion"), r.describe());
    }

    void refusals_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("says");
        QTest::newRow("--backend") << QStringList({"--backend", "torch"}) << 4 << "choose them with --engines";
        QTest::newRow("an unknown engine")
            << QStringList({"--engines", "cpu,theano"}) << 4 << "unknown engine 'theano'";
        QTest::newRow("a repeated engine")
            << QStringList({"--engines", "cpu,cpu"}) << 4 << "engine 'cpu' is named twice";
        QTest::newRow("an engine repeated later")
            << QStringList({"--engines", "cpu,torch,cpu"}) << 4 << "engine 'cpu' is named twice";
        QTest::newRow("no repeats") << QStringList({"--engines", "cpu", "--repeats", "0"}) << 2 << "repeats";
    }
    void refusals() {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, says);
        RUN_MLPWB(r, kTiny.mid(0, 8) + args + QStringList({"--out", "refused.json"}));
        QVERIFY2(r.exitCode == exitCode, r.describe());
        QVERIFY2(QString::fromUtf8(r.err).contains(says), r.describe());
        QVERIFY2(r.errLines().size() == 1, r.describe());  // one clear line, nothing trained
        QVERIFY(!QFile::exists(dir_.filePath("refused.json")));
    }
};

QTEST_GUILESS_MAIN(TestCliAnswer)
#include "tst_cli_answer.moc"
