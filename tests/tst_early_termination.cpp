// Early termination (hyperband as asynchronous successive halving): the decision at a rung on
// scripted tables of rung metrics (the first arrival, ties, a late arrival, the goal, a value that is
// not finite) against quantiles computed by hand; the rungs W&B's two forms place; the folder's part
// (each trial's rungs.json read by the others, a failed trial's entries still counting, a foreign or
// damaged file counting for nothing); and a stopped trial that is done for good, never resumed.
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/platform/errors.h"
#include "core/run/run_record.h"
#include "sweep/early_termination.h"
#include "sweep/sweep_folder.h"
#include "sweep/sweep_report.h"
#include "tests/sweep_plan_fixture.h"

using namespace wb::sweep;

Q_DECLARE_METATYPE(std::vector<double>)
Q_DECLARE_METATYPE(std::vector<int>)

namespace {
EarlyTermination hyperband(int minIter, int eta, int maxIter = 0, int s = 0) {
    EarlyTermination e;
    e.minIter = minIter;
    e.eta = eta;
    e.maxIter = maxIter;
    e.s = s;
    return e;
}

SweepPlan planWithHyperband(int trials) {
    SweepPlan p = planOf(trials);
    p.earlyTerminate = hyperband(3, 3);
    return p;
}

// A record of `epochs` epochs ending `status`, and the state that goes with it.
void writeTrial(const SweepFolder& f, int id, int epochs, wb::RunStatus status, TrialState state) {
    wb::RunRecord r;
    r.name = "trial";
    r.status = status;
    for (int e = 1; e <= epochs; ++e) {
        wb::EpochMetrics m;
        m.epoch = e;
        m.trainLoss = 1.0 / e;
        m.valLoss = 1.0 / e;
        m.wallMs = 2;
        r.epochs.push_back(m);
    }
    r.save(f.recordPath(id));
    TrialStatus s;
    s.state = state;
    f.writeStatus(id, s);
}
}  // namespace

class TestEarlyTermination : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    int folders_ = 0;
    std::string newFolder() { return (tmp_.path() + "/sweep" + QString::number(folders_++)).toStdString(); }

private slots:
    // Minimizing with eta 3: the cutoff is numpy's linear 1/3 percentile of the earlier values.
    void decisionsOnScriptedRungTables_data() {
        QTest::addColumn<double>("value");
        QTest::addColumn<std::vector<double>>("earlier");
        QTest::addColumn<bool>("maximize");
        QTest::addColumn<bool>("stop");
        QTest::addColumn<double>("cutoff");  // NaN: none
        const double none = std::nan("");
        QTest::newRow("the first at a rung goes on") << 9.0 << std::vector<double>{} << false << false << none;
        QTest::newRow("one earlier, better than it") << 0.4 << std::vector<double>{0.5} << false << false << 0.5;
        QTest::newRow("one earlier, worse than it") << 0.6 << std::vector<double>{0.5} << false << true << 0.5;
        QTest::newRow("a tie goes on") << 2.0 << std::vector<double>{4, 1, 3, 2} << false << false << 2.0;
        // [1, 2, 3, 4] at 1/3: position 1 -> 2; 2.1 is outside the best third.
        QTest::newRow("just outside the best third") << 2.1 << std::vector<double>{4, 1, 3, 2} << false << true << 2.0;
        // [1, 2] at 1/3: 1 + (2 - 1) / 3.
        QTest::newRow("between two") << 1.5 << std::vector<double>{2, 1} << false << true << 4.0 / 3.0;
        QTest::newRow("a late arrival among many, inside")
            << 0.11 << std::vector<double>{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7} << false << false << 0.3;
        // Maximizing: the 2/3 percentile of [1, 2, 3, 4] is 3.
        QTest::newRow("maximize: inside the best third")
            << 3.5 << std::vector<double>{1, 2, 3, 4} << true << false << 3.0;
        QTest::newRow("maximize: outside") << 2.9 << std::vector<double>{1, 2, 3, 4} << true << true << 3.0;
        QTest::newRow("not finite, with peers") << none << std::vector<double>{0.5} << false << true << 0.5;
        QTest::newRow("not finite, first") << none << std::vector<double>{} << false << false << none;
    }
    void decisionsOnScriptedRungTables() {
        QFETCH(double, value);
        QFETCH(std::vector<double>, earlier);
        QFETCH(bool, maximize);
        QFETCH(bool, stop);
        QFETCH(double, cutoff);
        const RungDecision d = decideAtRung(value, earlier, 3, maximize ? Goal::Maximize : Goal::Minimize);
        QCOMPARE(d.stop, stop);
        QCOMPARE(d.peers, static_cast<int>(earlier.size()));
        QCOMPARE(d.cutoff.has_value(), !std::isnan(cutoff));
        if (d.cutoff) QVERIFY2(std::fabs(*d.cutoff - cutoff) < 1e-12, qPrintable(QString::number(*d.cutoff)));
    }

    void rungsWhereWandBPutsThem_data() {
        QTest::addColumn<int>("minIter");
        QTest::addColumn<int>("eta");
        QTest::addColumn<int>("maxIter");
        QTest::addColumn<int>("s");
        QTest::addColumn<int>("epochs");
        QTest::addColumn<std::vector<int>>("rungs");
        QTest::newRow("min_iter 3, eta 3, 200 epochs") << 3 << 3 << 0 << 0 << 200 << std::vector<int>{3, 9, 27, 81};
        QTest::newRow("a rung at the last epoch is none") << 3 << 3 << 0 << 0 << 27 << std::vector<int>{3, 9};
        QTest::newRow("max_iter caps them") << 1 << 2 << 10 << 0 << 100 << std::vector<int>{1, 2, 4, 8};
        QTest::newRow("max_iter 27, s 2") << 0 << 3 << 27 << 2 << 200 << std::vector<int>{3, 9};
        QTest::newRow("max_iter 81, s 3, eta 3, 30 epochs") << 0 << 3 << 81 << 3 << 30 << std::vector<int>{3, 9, 27};
        QTest::newRow("none before the last epoch") << 5 << 3 << 0 << 0 << 5 << std::vector<int>{};
    }
    void rungsWhereWandBPutsThem() {
        QFETCH(int, minIter);
        QFETCH(int, eta);
        QFETCH(int, maxIter);
        QFETCH(int, s);
        QFETCH(int, epochs);
        QFETCH(std::vector<int>, rungs);
        QCOMPARE(rungEpochs(hyperband(minIter, eta, maxIter, s), epochs), rungs);
    }

    void theRuleRoundTripsThroughSweepJson() {
        SweepPlan p = planWithHyperband(2);
        p.earlyTerminate = hyperband(0, 4, 64, 2);
        const SweepPlan back = SweepPlan::fromJson(p.toJson());
        QVERIFY(back.earlyTerminate.has_value());
        QCOMPARE(back.earlyTerminate->eta, 4);
        QCOMPARE(back.earlyTerminate->maxIter, 64);
        QCOMPARE(back.earlyTerminate->s, 2);
        QVERIFY(!SweepPlan::fromJson(planOf(2).toJson()).earlyTerminate.has_value());
        auto j = p.toJson();
        j["early_terminate"]["eta"] = 1;  // no rungs: a damaged plan, said so
        QVERIFY_THROWS_EXCEPTION(wb::DataError, SweepPlan::fromJson(j));
        j["early_terminate"]["eta"] = 3;
        j["early_terminate"]["s"] = 2000000000;  // work beyond what a sweep file may ask: refused, not looped
        QVERIFY_THROWS_EXCEPTION(wb::DataError, SweepPlan::fromJson(j));
    }

    // Trials 0..3 reach rung 1 (epoch 3) in turn: each is judged against those before it.
    void eachTrialIsJudgedByTheOnesAlreadyThere() {
        const auto f = SweepFolder::create(newFolder(), planWithHyperband(5));
        QVERIFY(!reachRung(f, 0, 3, 200, 0.50));             // first: goes on
        QVERIFY(!reachRung(f, 1, 3, 200, 0.40));             // better than 0.50
        const auto stopped = reachRung(f, 2, 3, 200, 0.60);  // worse than 0.4 + (0.5 - 0.4) / 3
        QVERIFY(stopped);
        QVERIFY2(stopped->find("hyperband rung 1 of 4 (epoch 3)") != std::string::npos, stopped->c_str());
        QVERIFY2(stopped->find("of the 2 trials there before it") != std::string::npos, stopped->c_str());
        QVERIFY(!reachRung(f, 3, 4, 200, 9.0));  // epoch 4 is no rung: nothing written, goes on
        QVERIFY(readRungs(f, 3).empty());
        const auto written = readRungs(f, 2);
        QCOMPARE(written.size(), std::size_t(1));
        QCOMPARE(written[0].epoch, 3);
        QCOMPARE(written[0].peers, 2);
        QVERIFY(written[0].stop);
        QVERIFY(written[0].cutoff && std::fabs(*written[0].cutoff - (0.4 + 0.1 / 3)) < 1e-12);
        // A trial arriving late at rung 2 (epoch 9) meets only those that reached it.
        QVERIFY(!reachRung(f, 0, 9, 200, 0.30));
        QVERIFY(reachRung(f, 4, 9, 200, 0.31));
        QVERIFY(!readRungs(f, 0).empty());
        QCOMPARE(readRungs(f, 0).size(), std::size_t(2));
    }

    // What a failed trial wrote at a rung before failing still counts; a trial started afresh
    // clears its own entries; a link or a damaged file in another trial's place counts for nothing.
    void failedTrialsCountForeignFilesDoNot() {
        const auto f = SweepFolder::create(newFolder(), planWithHyperband(4));
        QVERIFY(!reachRung(f, 0, 3, 200, 0.10));
        writeTrial(f, 0, 3, wb::RunStatus::Failed, TrialState::Failed);
        QVERIFY(reachRung(f, 1, 3, 200, 0.20));  // judged against the failed trial's 0.10
        // Trial 0's entries replaced by a link to a file with a better value: not read.
        const std::string elsewhere = (tmp_.path() + "/elsewhere.json").toStdString();
        std::ofstream(elsewhere) << R"({"rungs": [{"epoch": 3, "metric": 0.0001}]})";
        std::filesystem::remove(f.trialDir(0) + "/rungs.json");
        std::filesystem::create_symlink(elsewhere, f.trialDir(0) + "/rungs.json");
        QVERIFY(readRungs(f, 0).empty());
        std::ofstream(f.trialDir(2) + "/rungs.json") << "{\"rungs\": [{\"epoch\": \"three\"}";
        QVERIFY(readRungs(f, 2).empty());
        QVERIFY(!reachRung(f, 3, 3, 200, 0.15));  // only trial 1's 0.20 is there
        writeRungs(f, 1, {});                     // started afresh: its entries are gone
        QVERIFY(readRungs(f, 1).empty());
    }

    void aStoppedTrialIsDoneAndNeverResumed() {
        const auto f = SweepFolder::create(newFolder(), planWithHyperband(3));
        writeTrial(f, 0, 5, wb::RunStatus::Completed, TrialState::Completed);
        writeTrial(f, 1, 3, wb::RunStatus::Stopped, TrialState::Stopped);
        writeTrial(f, 2, 3, wb::RunStatus::Cancelled, TrialState::Stopped);  // says stopped, its record does not
        QVERIFY(f.isDone(1, TrialState::Stopped));
        QVERIFY(!f.isDone(2, TrialState::Stopped));
        QCOMPARE(f.unfinishedIds(), std::vector<int>{2});
        const auto views = f.views();
        QVERIFY(views[1].status.state == TrialState::Stopped);
        QVERIFY(!views[1].metric);                                    // a stopped trial ranks nowhere ...
        QVERIFY(shownMetric(views[1], f.plan().metric).has_value());  // ... but its rung's value is shown
        QVERIFY(views[2].status.state == TrialState::Failed);
        QVERIFY2(views[2].status.error.find("its record says cancelled") != std::string::npos,
                 views[2].status.error.c_str());
        QCOMPARE(bestTrial(views, f.plan().metric), std::optional<std::size_t>(0));
    }
};

QTEST_GUILESS_MAIN(TestEarlyTermination)
#include "tst_early_termination.moc"
