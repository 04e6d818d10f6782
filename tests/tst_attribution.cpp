// The attribution of an ablation's gap on hand-made timing tables (nothing here trains or times):
// one outlier in one round does not change the named cause; two causes whose intervals overlap are
// "cannot tell apart"; fewer than three rounds rank nothing; the shares of the fixed loop's steps
// sum to its gap; a fix that costs time is named, and the fixed loop is the fastest step measured,
// not the last; the bootstrap is deterministic and its interval holds the median.
#include <QtTest>

#include "core/cpu/cpu_backend.h"
#include "core/data/builtin_data.h"
#include "core/data/prepare.h"
#include "core/measure/ablation.h"
#include "core/measure/ablation_attribution.h"
#include "core/measure/answer.h"
#include "core/measure/bootstrap_interval.h"
#include "core/measure/shapley.h"
#include "core/platform/errors.h"
#include "tests/injected_times_backend.h"
#include "tests/timed_step_fixture.h"

using namespace wb;

namespace {
QString text(const ExecutionSettings& s) {
    return QString::fromStdString(nlohmann::json(s).dump());
}

using timed_step_fixture::runAt;
using timed_step_fixture::stepOf;

AblationResult ablationOf(std::vector<AblationStep> steps) {
    AblationResult r;
    r.backend = "torch";
    r.status = AblationStatus::Completed;
    r.steps = std::move(steps);
    r.updateSavings();
    return r;
}

// Five rounds around `ms`, each a little off (a quiet machine's spread, 1 %).
std::vector<double> around(double ms) {
    return {ms * 0.99, ms * 1.005, ms, ms * 1.01, ms * 0.995};
}

// An answer of one engine, PyTorch, whose ablation is `r`.
Answer answerOf(const AblationResult& r) {
    Answer answer;
    answer.status = AnswerStatus::Completed;
    AnswerEngine e;
    e.engine = "torch";
    e.available = true;
    e.ablation = r;
    answer.engines.push_back(e);
    return answer;
}

std::string largestName(const AblationResult& r) {
    const Attribution a = attribute(r);
    return a.largest ? r.steps[a.causes[*a.largest].step].name : std::string("(none)");
}
}  // namespace

class TestAttribution : public QObject {
    Q_OBJECT

private slots:
    void theBootstrapIsDeterministicAndHoldsTheMedian() {
        const std::vector<double> v = {10, 11, 12, 13, 30};
        const auto med = [&](const std::vector<int>& picks) {
            std::vector<double> x;
            for (int p : picks) x.push_back(v[static_cast<std::size_t>(p)]);
            return *median(x);
        };
        const Interval a = bootstrapInterval(5, med);
        const Interval b = bootstrapInterval(5, med);
        QCOMPARE(a.low, b.low);
        QCOMPARE(a.high, b.high);
        QVERIFY(a.low <= 12 && 12 <= a.high);
        QVERIFY(a.low >= 10 && a.high <= 30);
        const Interval one = bootstrapInterval(1, [](const std::vector<int>&) { return 7.0; });
        QCOMPARE(one.low, 7.0);
        QCOMPARE(one.high, 7.0);
    }

    // Three fixes a, b, c (bits 0, 1, 2) and the level of every subset, ms per epoch:
    //   {} 1200, {a} 600, {b} 1080, {a,b} 480, {c} 960, {a,c} 420, {b,c} 840, {a,b,c} 120.
    // With k = 3 a fix's saving after s others weighs s!(2-s)!/3!: 1/3, 1/6, 1/6, 1/3 for the sets of
    // others {}, one, the other one, both:
    //   a = (1200-600)/3 + (1080-480)/6 + (960-420)/6 + (840-120)/3 = 200 + 100 + 90 + 240 = 630
    //   b = (1200-1080)/3 + (600-480)/6 + (960-840)/6 + (420-120)/3 = 40 + 20 + 20 + 100 = 180
    //   c = (1200-960)/3 + (600-420)/6 + (1080-840)/6 + (480-120)/3 = 80 + 30 + 40 + 120 = 270
    // and 630 + 180 + 270 = 1080 = 1200 - 120, the whole gap. (Applied in the order a, b, c, the
    // waterfall would say 600, 120, 360.)
    void shapleyValuesOfAHandComputedTable() {
        const std::vector<double> levels = {1200, 600, 1080, 480, 960, 420, 840, 120};
        const std::vector<double> values = shapleyValues(levels);
        QCOMPARE(values.size(), std::size_t(3));
        QVERIFY(std::abs(values[0] - 630) < 1e-9);
        QVERIFY(std::abs(values[1] - 180) < 1e-9);
        QVERIFY(std::abs(values[2] - 270) < 1e-9);
        QVERIFY(std::abs(values[0] + values[1] + values[2] - 1080) < 1e-9);
    }

    // Two fixes that save the same time (the gather and the copy: either alone removes the 400 ms):
    // each gets half, and the halves sum to the gap; one order would give all of it to the first.
    // With a third fix that does nothing, it gets nothing.
    void interactingFixesShareWhatTheySaveTogether() {
        const std::vector<double> two = shapleyValues({1000, 600, 600, 600});
        QCOMPARE(two, std::vector<double>({200, 200}));
        const std::vector<double> three = shapleyValues({1000, 600, 600, 600, 1000, 600, 600, 600});
        QVERIFY(std::abs(three[0] - 200) < 1e-9);
        QVERIFY(std::abs(three[1] - 200) < 1e-9);
        QVERIFY(std::abs(three[2]) < 1e-9);
        QVERIFY_THROWS_EXCEPTION(ConfigError, shapleyValues({1000, 600, 600}));
        QVERIFY_THROWS_EXCEPTION(ConfigError, shapleyValues({1000}));
    }

    // Per-round levels of the hand-computed table, every subset of round r scaled by the same
    // drift factor (0.99, 1, 1.01, 1.02, 0.98): the medians are the table's, so the values are exact;
    // the rounds are resampled as wholes, so each interval holds its value and stays within the
    // drift's own 2 % (an unpaired resampling would mix rounds of different drifts).
    void shapleyIntervalsResampleRoundsAsWholes() {
        const std::vector<double> levels = {1200, 600, 1080, 480, 960, 420, 840, 120};
        const std::vector<double> drift = {0.99, 1.0, 1.01, 1.02, 0.98};
        std::vector<std::vector<double>> perRound;
        for (double level : levels) {
            std::vector<double> rounds;
            for (double f : drift) rounds.push_back(level * f);
            perRound.push_back(rounds);
        }
        const ShapleyEstimate e = shapleyEstimate(perRound);
        QCOMPARE(e.rounds, 5);
        const std::vector<double> expected = {630, 180, 270};
        for (std::size_t i = 0; i < 3; ++i) {
            QVERIFY(std::abs(e.values[i] - expected[i]) < 1e-9);
            QVERIFY(e.intervals[i].low <= e.values[i] && e.values[i] <= e.intervals[i].high);
            QVERIFY(e.intervals[i].low >= expected[i] * 0.98 - 1e-9 &&
                    e.intervals[i].high <= expected[i] * 1.02 + 1e-9);
        }
    }

    // The hand-computed three-fix table above as an ablation: the cumulative steps a, b, c measured
    // in five rounds with a drift every configuration of a round shares, and the other four subsets
    // measured in the same rounds. attribute() gives each cause its exact Shapley value (630, 180,
    // 270, summing to the 1080 ms gap), its saving alone (1200 - 600 = 600, 1200 - 1080 = 120,
    // 1200 - 960 = 240) and on top of the other two (840 - 120 = 720, 420 - 120 = 300,
    // 480 - 120 = 360), where the one order says 600, 120, 360.
    void causesGetTheirShapleyValuesFromTheSubsets() {
        const std::vector<double> levels = {1200, 600, 1080, 480, 960, 420, 840, 120};
        const std::vector<double> drift = {0.99, 1.0, 1.01, 1.02, 0.98};
        const auto rounds = [&](double level) {
            std::vector<double> r;
            for (double f : drift) r.push_back(level * f);
            return r;
        };
        AblationResult r = ablationOf({stepOf("baseline", rounds(1200)), stepOf("a", rounds(600)),
                                       stepOf("b", rounds(480)), stepOf("c", rounds(120))});
        r.subsetFixes = {1, 2, 3};
        const std::vector<std::optional<std::size_t>> cumulative = {
            0, 1, std::nullopt, 2, std::nullopt, std::nullopt, std::nullopt, 3};
        for (unsigned mask = 0; mask < 8; ++mask)
            r.subsets.push_back({mask, {}, cumulative[mask], rounds(levels[mask])});
        const Attribution a = attribute(r);
        QCOMPARE(a.causes.size(), std::size_t(3));
        QVERIFY(a.shapleyGapMs && std::abs(*a.shapleyGapMs - 1080) < 1e-9);
        const std::vector<double> shapley = {630, 180, 270}, alone = {600, 120, 240}, others = {720, 300, 360},
                                  waterfall = {600, 120, 360};
        double sum = 0;
        for (std::size_t i = 0; i < 3; ++i) {
            const CauseShare& c = a.causes[i];
            QVERIFY(std::abs(*c.shapley - shapley[i]) < 1e-9);
            QVERIFY(std::abs(*c.alone - alone[i]) < 1e-9);
            QVERIFY(std::abs(*c.leaveOneOut - others[i]) < 1e-9);
            QVERIFY(std::abs(c.savedMs - waterfall[i]) < 1e-9);
            QVERIFY(c.shapleyInterval.low <= *c.shapley && *c.shapley <= c.shapleyInterval.high);
            QVERIFY(c.aloneInterval.low <= *c.alone && *c.alone <= c.aloneInterval.high);
            sum += *c.shapley;
        }
        QVERIFY(std::abs(sum - r.totalGapMs()) < 1e-9);
        // What two save alone minus what they save together, none + both - each: 1200 + 480 - 600 -
        // 1080 = 0 for a and b, 1200 + 420 - 600 - 960 = 60 for a and c (they save 60 ms of the same
        // time), 1200 + 840 - 1080 - 960 = 0 for b and c.
        QCOMPARE(a.shared.size(), std::size_t(1));
        QCOMPARE(a.shared[0].first, std::size_t(0));
        QCOMPARE(a.shared[0].second, std::size_t(2));
        QVERIFY(std::abs(a.shared[0].ms - 60) < 1e-9);
        // The file keeps them: the same attribution after a round trip.
        const AblationResult back = AblationResult::fromJson(r.toJson());
        QCOMPARE(*attribute(back).causes[2].shapley, *a.causes[2].shapley);
        // The conclusion gives every order's values beside the one order's, and names the shared time.
        const QString said = QString::fromStdString(answerOf(r).conclusion().front());
        QVERIFY2(said.contains("Over every order of the fixes (Shapley values, from all 8 combinations measured): "
                               "a 630 ms ("),
                 qPrintable(said));
        QVERIFY2(said.contains("b 180 ms (") && said.contains("c 270 ms ("), qPrintable(said));
        QVERIFY2(said.contains("; they sum to the 1080 ms they close together."), qPrintable(said));
        QVERIFY2(said.contains(" a and c save the same time: either alone removes 60.0 ms ("), qPrintable(said));
    }

    // Two fixes that save the same 400 ms (the gather and the copy: either alone removes it). In the
    // order applied the first takes all of it and the second nothing; their Shapley values are half
    // each, and both sum to the gap.
    void interactingFixesSumToTheGap() {
        AblationResult r =
            ablationOf({stepOf("baseline", around(1000)), stepOf("gather", around(600)), stepOf("copy", around(600))});
        r.subsetFixes = {1, 2};
        r.subsets = {{0, {}, 0, around(1000)},
                     {1, {}, 1, around(600)},
                     {2, {}, std::nullopt, around(600)},
                     {3, {}, 2, around(600)}};
        const Attribution a = attribute(r);
        QVERIFY(std::abs(a.causes[0].savedMs - 400) < 1e-9);
        QVERIFY(std::abs(a.causes[1].savedMs) < 1e-9);
        QVERIFY(std::abs(*a.causes[0].shapley - 200) < 1e-9);
        QVERIFY(std::abs(*a.causes[1].shapley - 200) < 1e-9);
        QVERIFY(std::abs(*a.causes[0].shapley + *a.causes[1].shapley - r.totalGapMs()) < 1e-9);
        double shares = 0;
        for (const auto& c : a.causes) shares += c.share.value_or(0);
        QVERIFY(std::abs(shares - 1.0) < 1e-12);
        // Alone, each saves the whole 400 ms; on top of the other, nothing: the interaction in numbers.
        QVERIFY(std::abs(*a.causes[1].alone - 400) < 1e-9);
        QVERIFY(std::abs(*a.causes[1].leaveOneOut) < 1e-9);
        // Named as a pair that saves the same time: 1000 + 600 - 600 - 600 = 400 ms shared.
        QCOMPARE(a.shared.size(), std::size_t(1));
        QCOMPARE(a.shared[0].first, std::size_t(0));
        QCOMPARE(a.shared[0].second, std::size_t(1));
        QVERIFY(std::abs(a.shared[0].ms - 400) < 1e-9);
        QVERIFY(a.shared[0].interval.low > 0);
    }

    // The founding shape: the data path removes most of the gap; the others little.
    void theClearLargestCauseIsNamed() {
        const auto r = ablationOf({stepOf("baseline", around(900)), stepOf("data_path=device_resident", around(60)),
                                   stepOf("loss=bce_with_logits", around(50)), stepOf("zero_grad=none", around(45))});
        QCOMPARE(largestName(r), std::string("data_path=device_resident"));
        const Attribution a = attribute(r);
        QCOMPARE(a.rounds, 5);
        const CauseShare& c = a.causes[*a.largest];
        QVERIFY(c.share && *c.share > 0.9 && *c.share < 1.0);
        QVERIFY(c.shareInterval.low <= *c.share && *c.share <= c.shareInterval.high);
        QVERIFY(c.shareInterval.high <= 1.0);
    }

    // One round of one step far off (a busy machine's stall) moves its median little: the named cause
    // stays the same as without the outlier.
    void oneOutlierDoesNotChangeTheCause() {
        auto stalled = around(45);
        stalled[1] = 1192;  // zero_grad=none's second round stalled (+1,147 ms)
        const auto r =
            ablationOf({stepOf("baseline", around(900)), stepOf("data_path=device_resident", around(60)),
                        stepOf("zero_grad=none", stalled), stepOf("optimizer_kernel=multi_tensor", around(40))});
        QCOMPARE(largestName(r), std::string("data_path=device_resident"));
        for (const auto& c : attribute(r).causes) QVERIFY(!c.share || *c.share <= 1.0);
        const Attribution a = attribute(r);
        QCOMPARE(a.outliers.size(), std::size_t(1));  // shown, not dropped
        QCOMPARE(a.outliers.front().round, 2);
        QCOMPARE(a.outliers.front().ms, 1192.0);
        QCOMPARE(r.steps[2].runs.size(), std::size_t(5));  // the record keeps it
    }

    // Two fixes that save about the same, their rounds spread widely: neither is called the largest;
    // both are named as the candidates.
    void overlappingCausesCannotBeToldApart() {
        const auto r = ablationOf({stepOf("baseline", {1000, 1000, 1000, 1000, 1000}),
                                   stepOf("data_path=device_resident", {560, 400, 620, 450, 500}),
                                   stepOf("launch=graph_step", {60, 20, 100, 30, 50})});
        const Attribution a = attribute(r);
        QVERIFY(!a.largest);
        QCOMPARE(a.notApart.size(), std::size_t(2));
        const Answer answer = answerOf(r);
        const QString first = QString::fromStdString(answer.conclusion().front());
        QVERIFY2(first.contains("The largest cause cannot be told apart among data_path=device_resident"),
                 qPrintable(first));
        QVERIFY2(first.contains("launch=graph_step"), qPrintable(first));
        QVERIFY2(!first.contains("The largest cause:"), qPrintable(first));
    }

    // A busy machine is named with what it did; a quiet one is not mentioned.
    void aBusyMachineIsNamed() {
        AblationResult r =
            ablationOf({stepOf("baseline", around(900)), stepOf("data_path=device_resident", around(60))});
        MachineLoad busy;
        busy.seconds = 60;
        busy.cores = 2;
        busy.otherCores = 0.9;
        busy.loadBefore = 1.2;
        busy.loadAfter = 2.0;
        r.machine = busy;
        Answer answer = answerOf(r);
        const QString first = QString::fromStdString(answer.conclusion().front());
        QVERIFY2(first.contains("other programs kept 0.9 of its 2 cores busy on average (load 1.2 \u2192 2.0)"),
                 qPrintable(first));
        const MachineLoad back = MachineLoad::fromJson(busy.toJson());
        QCOMPARE(*back.otherCores, 0.9);
        QCOMPARE(back.cores, 2);
        QVERIFY(!back.stealPercent);
        answer.engines.front().ablation->machine->otherCores = 0.05;
        QVERIFY(!QString::fromStdString(answer.conclusion().front()).contains("busy"));
        // What a meter reads on this machine: plausible figures, whatever else runs.
        const MachineLoad here = LoadMeter().finish();
        QVERIFY(here.cores >= 1);
        QVERIFY(here.seconds >= 0);
        QVERIFY(!here.otherCores || *here.otherCores >= 0);
    }

    // End to end with a stand-in engine: graph capture costs time on it, so the runner measures every
    // fix but that one as a closing step, which is the fixed loop; the conclusion names the cost and
    // the cause, and the attribution sums to the gap.
    void aCostlyFixIsLeftOutOfTheFixedLoop() {
        registerStandInAsTorch();
        const Dataset dataset = generateSeedLike(400, 1);
        const PreparedData data = prepare(dataset, {});
        RunConfig config;
        config.data.rows = 400;
        config.train.epochs = 3;
        config.train.batchSize = 64;
        config.backend = "torch";  // a name RunConfig knows; no framework is registered in this suite
        AblationPlan plan;
        plan.fixes = {"data_path", "launch", "loss"};
        plan.repeats = 3;
        CancelFlag cancel{false};
        AblationResult r;
        try {
            r = runAblation(plan, config, dataset, data, cancel);
        } catch (const std::exception& e) {
            QFAIL(e.what());
        }
        QCOMPARE(int(r.status), int(AblationStatus::Completed));
        QCOMPARE(r.steps.size(), std::size_t(5));  // baseline, three fixes, and every fix but the costly one
        const AblationStep& closing = r.steps.back();
        QCOMPARE(closing.name, std::string("without launch=graph_step"));
        QCOMPARE(closing.fix, std::string(AblationStep::kWithoutCostly));
        // Named after round 3, the last asked for: one more round measures it among the others, as
        // often as them (its three missed rounds made up in it).
        QCOMPARE(r.rounds, 4);
        QCOMPARE(int(closing.runs.size()), 4);
        QCOMPARE(int(r.steps.front().runs.size()), 4);
        QCOMPARE(r.fixedLoop(), &closing);
        QCOMPARE(text(closing.settings), text([] {
                     ExecutionSettings s = presetByName("Seed PyTorch loop").settings;
                     s.dataPath = DataPath::DeviceResident;
                     s.loss = LossKind::BceWithLogits;
                     return s;
                 }()));
        QVERIFY(std::abs(closing.medianEpochMs - 30.3) < 0.5);  // 30 ms, the rounds 0-2 % off
        QCOMPARE(largestName(r), std::string("data_path=device_resident"));
        double sum = 0;
        for (const auto& c : attribute(r).causes) sum += c.share.value_or(0);
        QVERIFY(std::abs(sum - 1.0) < 1e-9);
        const QString first = QString::fromStdString(answerOf(r).conclusion().front());
        QVERIFY2(first.contains("launch=graph_step costs 56"), qPrintable(first));
        QVERIFY2(first.contains("the fixed loop leaves it out"), qPrintable(first));
        QVERIFY2(first.contains("The fixed loop is every fix but those (without launch=graph_step)"),
                 qPrintable(first));
        QVERIFY2(first.contains("The largest cause: data_path=device_resident"), qPrintable(first));
    }

    // The closing step without the costly fix measured no faster (a drift after the rounds): it is
    // neither a cause nor recommended, and the conclusion says so in words.
    void aClosingStepThatIsNoFasterIsNotRecommended() {
        AblationStep without = stepOf("without b", around(220));
        without.fix = AblationStep::kWithoutCostly;
        const auto r = ablationOf(
            {stepOf("baseline", around(650)), stepOf("a", around(170)), stepOf("b", around(178)), std::move(without)});
        QCOMPARE(r.fixedLoop()->name, std::string("a"));
        QCOMPARE(largestName(r), std::string("a"));
        const QString first = QString::fromStdString(answerOf(r).conclusion().front());
        QVERIFY2(first.contains("b costs 8.00 ms per epoch"), qPrintable(first));
        QVERIFY2(first.contains("left out: b."), qPrintable(first));
        QVERIFY2(first.contains("Every fix but those (without b) was no faster, 220 ms"), qPrintable(first));
        QVERIFY2(!first.contains("without b costs"), qPrintable(first));
    }

    // One run per step says nothing about the spread: nothing is ranked, and the conclusion says why.
    void oneRoundRanksNothing() {
        const auto r = ablationOf({stepOf("baseline", {900}), stepOf("data_path=device_resident", {60}),
                                   stepOf("loss=bce_with_logits", {50})});
        const Attribution a = attribute(r);
        QCOMPARE(a.rounds, 1);
        QVERIFY(!a.canRank());
        QVERIFY(!a.largest);
        QVERIFY(a.costly.empty());
    }

    // The shares of the steps in the fixed loop sum to its gap, whatever the order's interactions.
    void sharesOfTheFixedLoopSumToItsGap() {
        const auto r = ablationOf({stepOf("baseline", around(1000)), stepOf("a", around(700)), stepOf("b", around(750)),
                                   stepOf("c", around(300)), stepOf("d", around(200))});
        double sum = 0;
        for (const auto& c : attribute(r).causes)
            if (c.share) sum += *c.share;
        QVERIFY(std::abs(sum - 1.0) < 1e-12);
        QCOMPARE(r.totalGapMs(), 800.0);
        // b costs time: named so, and its share is negative with the interaction said in words.
        const Attribution a = attribute(r);
        QCOMPARE(a.costly.size(), std::size_t(1));
        QCOMPARE(r.steps[a.causes[a.costly.front()].step].name, std::string("b"));
    }

    // A fix that costs time after the best step: the fixed loop is the fastest step measured (the
    // founding PyTorch case on a CPU: graph capture after the data path fix made it slower), and
    // what comes after it is named as left out.
    void theFixedLoopIsTheFastestStepMeasured() {
        const auto r =
            ablationOf({stepOf("baseline", around(900)), stepOf("data_path=device_resident", around(50)),
                        stepOf("launch=graph_step", around(106)), stepOf("loss=bce_with_logits", around(82))});
        QCOMPARE(r.fixedLoop()->name, std::string("data_path=device_resident"));
        QCOMPARE(r.totalGapMs(), 850.0);
        QVERIFY(!r.steps[2].share);  // after the fixed loop: no share of its gap
        QCOMPARE(r.leftOut().size(), std::size_t(2));
        const Attribution a = attribute(r);
        QCOMPARE(a.costly.size(), std::size_t(1));
        QCOMPARE(r.steps[a.causes[a.costly.front()].step].name, std::string("launch=graph_step"));
        Answer answer = answerOf(r);
        const QString first = QString::fromStdString(answer.conclusion().front());
        QVERIFY2(first.contains("900 \u2192 50.0 ms per epoch"), qPrintable(first));
        QVERIFY2(first.contains("launch=graph_step costs 56.0 ms per epoch"), qPrintable(first));
        QVERIFY2(first.contains("the fixed loop leaves it out"), qPrintable(first));
        QVERIFY2(first.contains("The fixed loop stops at data_path=device_resident"), qPrintable(first));
    }
};

QTEST_APPLESS_MAIN(TestAttribution)
#include "tst_attribution.moc"
