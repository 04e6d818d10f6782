// The one rule for "faster": the median ratio with its range over the repeats, and no ratio at all
// when the spreads overlap. Checked on hand-made runs with known epoch times.
#include <QtTest>

#include "core/measure/ablation_result.h"
#include "core/measure/speed_comparison.h"

using namespace wb;

namespace {
// A completed run whose epochs took `ms` (the first is the warm-up).
RunRecord runWith(std::vector<double> ms) {
    RunRecord r;
    r.status = RunStatus::Completed;
    for (std::size_t i = 0; i < ms.size(); ++i) {
        EpochMetrics e;
        e.epoch = static_cast<int>(i + 1);
        e.warmup = i == 0;
        e.wallMs = ms[i];
        r.epochs.push_back(e);
    }
    return r;
}

// Runs whose timed epochs all take `level` ms (a warm-up of 100 ms first).
std::vector<RunRecord> repeatsAt(std::vector<double> levels) {
    std::vector<RunRecord> runs;
    for (double l : levels) runs.push_back(runWith({100, l, l, l}));
    return runs;
}

std::vector<const RunRecord*> pointers(const std::vector<RunRecord>& runs) {
    std::vector<const RunRecord*> p;
    for (const auto& r : runs) p.push_back(&r);
    return p;
}
}  // namespace

class SpeedComparisonTest : public QObject {
    Q_OBJECT
private slots:
    void spreadOverRepeats() {
        const auto runs = repeatsAt({12, 10, 11});
        const auto s = timeSpread(pointers(runs));
        QVERIFY(s);
        QCOMPARE(s->median, 11.0);
        QCOMPARE(s->low, 10.0);
        QCOMPARE(s->high, 12.0);
        QCOMPARE(s->runs, 3);
    }

    // One run: the range of its timed epochs stands in for repeats; the warm-up is left out.
    void oneRunSpreadsOverItsEpochs() {
        const RunRecord r = runWith({500, 10, 11, 12, 13, 14});
        const auto s = timeSpread({&r});
        QCOMPARE(s->median, 12.0);
        QCOMPARE(s->low, 10.0);
        QCOMPARE(s->high, 14.0);
        QVERIFY(!timeSpread({}).has_value());
    }

    void verdict_data() {
        QTest::addColumn<QList<double>>("baseline");
        QTest::addColumn<QList<double>>("candidate");
        QTest::addColumn<bool>("measurable");
        QTest::addColumn<QString>("label");
        QTest::newRow("clearly faster") << QList<double>{100, 104, 98} << QList<double>{25, 26, 24} << true
                                        << "4.00× faster (3.77–4.33×)";
        QTest::newRow("clearly slower") << QList<double>{10, 11, 10.5} << QList<double>{21, 22, 20} << true
                                        << "2.00× slower (1.82–2.20×)";
        // Two identical configurations whose medians differ by noise (the "1.41x" users saw).
        QTest::newRow("inside the spread") << QList<double>{10, 14, 12} << QList<double>{9, 13, 11} << false
                                           << "no measurable difference (0.77–1.56×)";
        // 200 / 20 = 10 and 199.96 / 20.004 = 9.996 both read "10": never "10.00" beside "25".
        QTest::newRow("round tens") << QList<double>{200, 199.96, 264} << QList<double>{20, 20.004, 8} << true
                                    << "10\u00d7 faster (10\u201333\u00d7)";
        QTest::newRow("touching spreads") << QList<double>{10, 12, 11} << QList<double>{12, 13, 12.5} << false
                                          << "no measurable difference (0.77–1.00×)";
    }
    void verdict() {
        QFETCH(QList<double>, baseline);
        QFETCH(QList<double>, candidate);
        QFETCH(bool, measurable);
        QFETCH(QString, label);
        const auto a = repeatsAt({baseline.begin(), baseline.end()});
        const auto b = repeatsAt({candidate.begin(), candidate.end()});
        const SpeedComparison c = compareSpeed(*timeSpread(pointers(a)), *timeSpread(pointers(b)));
        QCOMPARE(c.measurable, measurable);
        QCOMPARE(QString::fromStdString(c.label()), label);
    }

    // The ablation's shares follow the same rule: a gap inside the spread gets no percentages.
    void ablationSharesNeedAMeasurableGap_data() {
        QTest::addColumn<QList<double>>("last");
        QTest::addColumn<bool>("shares");
        QTest::newRow("measurable") << QList<double>{5, 5.5, 6} << true;
        QTest::newRow("noise") << QList<double>{9.5, 10.5, 11} << false;
    }
    void ablationSharesNeedAMeasurableGap() {
        QFETCH(QList<double>, last);
        QFETCH(bool, shares);
        AblationResult r;
        AblationStep baseline, fix;
        baseline.name = "baseline";
        baseline.runs = repeatsAt({10, 11, 12});
        fix.name = "loss=bce_with_logits";
        fix.runs = repeatsAt({last.begin(), last.end()});
        for (auto* s : {&baseline, &fix}) s->medianEpochMs = timeSpread(pointers(s->runs))->median;
        r.steps = {baseline, fix};
        r.updateSavings();
        QCOMPARE(r.steps[1].share.has_value(), shares);
        QCOMPARE(r.gapComparison()->measurable, shares);
        QVERIFY(r.steps[1].savedMs > 0);  // the saving itself is still shown
    }
};

QTEST_GUILESS_MAIN(SpeedComparisonTest)
#include "tst_speed_comparison.moc"
