// The trial list of a sweep: the grid's order, repeats, and random samples that are deterministic
// and inside their ranges, and the seeded order of a grid with early termination.
#include <QtTest>

#include <cmath>
#include <functional>
#include <set>

#include "core/platform/errors.h"
#include "sweep/sweep_spec.h"
#include "sweep/trial_points.h"

using namespace wb::sweep;

namespace {
Spec parse(const std::string& text) {
    return parseSpec(text, "s.yaml", [](const std::string&) { return OptionInfo{true, false, ""}; });
}
std::string argsOf(const TrialPoint& t) {
    std::string s;
    for (const auto& v : t.values) s += (s.empty() ? "" : " ") + v.argument;
    return s;
}
}  // namespace

class TestTrialPoints : public QObject {
    Q_OBJECT
private slots:
    void gridInTheFilesOrderLastFastest() {
        const auto trials =
            expandTrials(parse("method: grid\nparameters:\n  a: {values: [1, 2]}\n  b: {values: [x, y, z]}\n"));
        QCOMPARE(trials.size(), std::size_t(6));
        const char* expected[] = {"1 x", "1 y", "1 z", "2 x", "2 y", "2 z"};
        for (std::size_t i = 0; i < trials.size(); ++i) {
            QCOMPARE(trials[i].id, static_cast<int>(i));
            QCOMPARE(argsOf(trials[i]), std::string(expected[i]));
        }
    }

    void repeatsFollowTheirPoint() {
        const auto trials = expandTrials(parse("method: grid\nrepeats: 3\nparameters:\n  a: {values: [1, 2]}\n"));
        QCOMPARE(trials.size(), std::size_t(6));
        for (std::size_t i = 0; i < trials.size(); ++i) {
            QCOMPARE(trials[i].point, static_cast<int>(i / 3));
            QCOMPARE(trials[i].repeat, static_cast<int>(i % 3));
        }
        QCOMPARE(argsOf(trials[4]), std::string("2"));
    }

    // With early termination a grid runs in an order drawn with the seed: every point once, each
    // with its repeats after it and its grid index kept, the same order for the same seed.
    void aGridWithEarlyTerminationRunsInASeededOrder() {
        const std::string grid =
            "method: grid\nrepeats: 2\nearly_terminate: {type: hyperband, min_iter: 1}\n"
            "parameters:\n  a: {values: [1, 2, 3, 4, 5, 6, 7, 8]}\n";
        const auto trials = expandTrials(parse(grid));
        QCOMPARE(trials.size(), std::size_t(16));
        std::set<int> points;
        bool fileOrder = true;
        for (std::size_t i = 0; i < trials.size(); ++i) {
            QCOMPARE(trials[i].id, static_cast<int>(i));
            QCOMPARE(trials[i].repeat, static_cast<int>(i % 2));
            QCOMPARE(trials[i].point, trials[i - i % 2].point);
            QCOMPARE(argsOf(trials[i]), std::to_string(trials[i].point + 1));  // the point's own value
            points.insert(trials[i].point);
            fileOrder = fileOrder && trials[i].point == static_cast<int>(i / 2);
        }
        QCOMPARE(points.size(), std::size_t(8));
        QVERIFY(!fileOrder);
        const auto again = expandTrials(parse(grid));
        const auto other = expandTrials(parse(grid + "seed: 7\n"));
        bool sameAgain = true, sameOther = true;
        for (std::size_t i = 0; i < trials.size(); ++i) {
            sameAgain = sameAgain && again[i].point == trials[i].point;
            sameOther = sameOther && other[i].point == trials[i].point;
        }
        QVERIFY(sameAgain);
        QVERIFY(!sameOther);
    }

    // Bayes: the space Optuna searches, and what its suggestions stand for: a log range's u on its log
    // scale (W&B's log_uniform_values), an int range in whole numbers, a list by index, a single value
    // as it is; a suggestion that does not fit is refused naming the parameter.
    void bayesSpaceAndSuggestedPoints() {
        const Spec spec = parse(
            "method: bayes\nrun_cap: 5\nparameters:\n"
            "  lr: {distribution: log_uniform_values, min: 1.0e-4, max: 1.0e-2}\n"
            "  width: {distribution: int_uniform, min: 4, max: 8}\n"
            "  opt: {values: [adam, sgd, rmsprop]}\n  epochs: {value: 7}\n");
        QVERIFY(expandTrials(spec).empty());  // suggested batch by batch
        const auto space = searchSpace(spec);
        QCOMPARE(space.dump(), std::string(R"([{"kind":"unit","name":"lr"},{"kind":"unit","name":"width"},)"
                                           R"({"count":3,"kind":"choice","name":"opt"}])"));
        const auto point = suggestedPoint(spec, {{"lr", 0.5}, {"width", 0.0}, {"opt", 2}});
        QVERIFY(std::fabs(point[0].value.get<double>() - 1e-3) < 1e-12);  // the middle of 1e-4 .. 1e-2 in log
        QCOMPARE(point[1].argument, std::string("4"));
        QCOMPARE(point[2].argument, std::string("rmsprop"));
        QCOMPARE(point[3].argument, std::string("7"));
        QCOMPARE(suggestedPoint(spec, {{"lr", 1.0}, {"width", 1.0}, {"opt", 0}})[1].argument, std::string("8"));
        for (const auto& bad :
             {nlohmann::json{{"lr", 1.5}, {"width", 0.1}, {"opt", 0}},
              nlohmann::json{{"lr", 0.5}, {"width", 0.1}, {"opt", 3}},
              nlohmann::json{{"lr", 0.5}, {"width", 0.1}, {"opt", 0.5}}, nlohmann::json{{"width", 0.1}, {"opt", 0}}})
            QVERIFY_THROWS_EXCEPTION(wb::DataError, suggestedPoint(spec, bad));
    }

    void gridEnumeratesAnIntRange() {
        const auto trials = expandTrials(parse("method: grid\nparameters:\n  epochs: {min: 3, max: 6}\n"));
        QCOMPARE(trials.size(), std::size_t(4));
        QCOMPARE(argsOf(trials[0]), std::string("3"));
        QCOMPARE(argsOf(trials[3]), std::string("6"));
    }

    void randomIsDeterministicAndInRange() {
        const std::string text =
            "method: random\nrun_cap: 400\nseed: 11\nparameters:\n"
            "  lr: {min: 1.0e-4, max: 1.0e-1, distribution: log_uniform_values}\n"
            "  epochs: {min: 1, max: 4}\n"
            "  dropout: {min: 0.25, max: 0.5}\n"
            "  opt: {values: [adam, sgd]}\n";
        const auto a = expandTrials(parse(text));
        const auto b = expandTrials(parse(text));
        QCOMPARE(a.size(), std::size_t(400));
        std::set<std::string> epochs, optimizers;
        int lowDecade = 0;  // lr in [1e-4, 1e-3): a log-uniform draw lands there a third of the time
        for (std::size_t i = 0; i < a.size(); ++i) {
            QCOMPARE(argsOf(a[i]), argsOf(b[i]));
            const double lr = a[i].values[0].value.get<double>();
            QVERIFY(lr >= 1e-4 && lr <= 1e-1);
            QCOMPARE(std::stod(a[i].values[0].argument), lr);  // the argument reads back exactly
            if (lr < 1e-3) ++lowDecade;
            epochs.insert(a[i].values[1].argument);
            QVERIFY(a[i].values[1].value.is_number_integer());
            const double d = a[i].values[2].value.get<double>();
            QVERIFY(d >= 0.25 && d <= 0.5);
            optimizers.insert(a[i].values[3].argument);
        }
        QCOMPARE(epochs, (std::set<std::string>{"1", "2", "3", "4"}));  // both ends included
        QCOMPARE(optimizers, (std::set<std::string>{"adam", "sgd"}));
        QVERIFY2(lowDecade > 90 && lowDecade < 180, qPrintable(QString::number(lowDecade)));
        const auto other =
            expandTrials(parse("method: random\nrun_cap: 400\nseed: 12\nparameters:\n"
                               "  lr: {min: 1.0e-4, max: 1.0e-1, distribution: log_uniform_values}\n"
                               "  epochs: {min: 1, max: 4}\n  dropout: {min: 0.25, max: 0.5}\n"
                               "  opt: {values: [adam, sgd]}\n"));
        QVERIFY(argsOf(other[0]) != argsOf(a[0]));  // another seed, other samples
    }

    // Every W&B distribution draws what W&B's would: its values within the range its meaning gives
    // (log_uniform's min and max are exponents, the _values kinds' are values), whole numbers where
    // q is whole, and the share of draws below a point that the distribution gives (half below the
    // median of a continuous one; a discrete one's share is worked out beside its row).
    void eachDistributionDrawsWhatWAndBMeans_data() {
        QTest::addColumn<QString>("body");
        QTest::addColumn<double>("low");  // every draw within [low, high]
        QTest::addColumn<double>("high");
        QTest::addColumn<double>("median");  // the point ...
        QTest::addColumn<double>("share");   // ... and the share of draws below it
        QTest::addColumn<double>("q");       // every draw a multiple of q (0: no rounding)
        QTest::addColumn<bool>("whole");     // drawn as whole numbers
        const double e = std::exp(1.0);
        QTest::newRow("uniform") << "{distribution: uniform, min: -2, max: 6}" << -2.0 << 6.0 << 2.0 << 0.5 << 0.0
                                 << false;
        QTest::newRow("int_uniform") << "{distribution: int_uniform, min: 3, max: 7}" << 3.0 << 7.0 << 5.0 << 0.4 << 1.0
                                     << true;
        QTest::newRow("q_uniform") << "{distribution: q_uniform, min: 0, max: 100, q: 10}" << 0.0 << 100.0 << 50.0
                                   << 0.45 << 10.0 << true;
        QTest::newRow("q_uniform, fractional q")
            << "{distribution: q_uniform, min: 0, max: 1, q: 0.25}" << 0.0 << 1.0 << 0.5 << 0.375 << 0.25 << false;
        QTest::newRow("log_uniform: exponents") << "{distribution: log_uniform, min: -9.2, max: -2.3}" << std::exp(-9.2)
                                                << std::exp(-2.3) << std::exp(-5.75) << 0.5 << 0.0 << false;
        QTest::newRow("log_uniform_values") << "{distribution: log_uniform_values, min: 1.0e-4, max: 1.0e-1}" << 1e-4
                                            << 1e-1 << std::sqrt(1e-5) << 0.5 << 0.0 << false;
        QTest::newRow("q_log_uniform") << "{distribution: q_log_uniform, min: 0, max: 6, q: 4}" << 0.0 << 404.0
                                       << std::exp(3.0) << 0.5 << 4.0 << true;
        QTest::newRow("q_log_uniform_values") << "{distribution: q_log_uniform_values, min: 16, max: 4096, q: 16}"
                                              << 16.0 << 4096.0 << 256.0 << 0.5 << 16.0 << true;
        QTest::newRow("inv_log_uniform") << "{distribution: inv_log_uniform, min: 2, max: 9}" << std::exp(-9.0)
                                         << std::exp(-2.0) << std::exp(-5.5) << 0.5 << 0.0 << false;
        QTest::newRow("inv_log_uniform_values") << "{distribution: inv_log_uniform_values, min: 0.001, max: 0.1}"
                                                << 0.001 << 0.1 << 0.01 << 0.5 << 0.0 << false;
        QTest::newRow("normal") << "{distribution: normal, mu: 5, sigma: 2}" << -1e9 << 1e9 << 5.0 << 0.5 << 0.0
                                << false;
        QTest::newRow("normal, defaults") << "{distribution: normal}" << -1e9 << 1e9 << 0.0 << 0.5 << 0.0 << false;
        QTest::newRow("q_normal") << "{distribution: q_normal, mu: 100, sigma: 30, q: 5}" << -1e9 << 1e9 << 100.0 << 0.5
                                  << 5.0 << true;
        QTest::newRow("log_normal") << "{distribution: log_normal, mu: 1, sigma: 0.5}" << 0.0 << 1e9 << e << 0.5 << 0.0
                                    << false;
        QTest::newRow("q_log_normal") << "{distribution: q_log_normal, mu: 3, sigma: 1, q: 2}" << 0.0 << 1e9
                                      << std::exp(3.0) << 0.5 << 2.0 << true;
    }
    void eachDistributionDrawsWhatWAndBMeans() {
        QFETCH(QString, body);
        QFETCH(double, low);
        QFETCH(double, high);
        QFETCH(double, median);
        QFETCH(double, share);
        QFETCH(double, q);
        QFETCH(bool, whole);
        const auto trials = expandTrials(
            parse("method: random\nrun_cap: 2000\nseed: 3\nparameters:\n  x: " + body.toStdString() + "\n"));
        int below = 0;
        for (const auto& t : trials) {
            const auto& v = t.values[0];
            QCOMPARE(v.value.is_number_integer(), whole);
            const double x = v.value.get<double>();
            QVERIFY2(x >= low && x <= high, qPrintable(QString("%1 outside [%2, %3]").arg(x).arg(low).arg(high)));
            if (q > 0) QVERIFY2(std::fabs(std::remainder(x, q)) < 1e-9 * std::max(1.0, x), v.argument.c_str());
            below += x < median ? 1 : 0;
        }
        // 2000 draws: the count below is 2000 share +- 22 (one sigma); q's rounding moves a few (q_normal
        // at its mean: P(X < 97.5) = 0.467), so within 4 sigma of the share.
        QVERIFY2(std::fabs(below - 2000 * share) < 90, qPrintable(QString::number(below)));
    }

    // A normal kind has no bounds to check in the file: a draw no parameter can take is refused
    // when it is drawn (converting it to a whole number would be undefined).
    void aDrawBeyondAParameterIsRefused() {
        const Spec s =
            parse("method: random\nrun_cap: 50\nparameters:\n  x: {distribution: q_normal, sigma: 9.0e15}\n");
        try {
            (void)expandTrials(s);
            QFAIL("no refusal");
        } catch (const wb::ConfigError& e) {
            QVERIFY2(QString(e.what()).startsWith("s.yaml:4: parameters.x: drew "), e.what());
        }
    }

    // The trial count comes from each parameter's count of values, before any value is expanded, and
    // never wraps around: past 2^64 it reads kManyTrials.
    void countsComeFromTheCounts_data() {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<quint64>("points");
        QTest::addColumn<quint64>("trials");
        const auto values = [](int n) {
            QString list;
            for (int i = 0; i < n; ++i) list += (i ? "," : "") + QString::number(i);
            return "{values: [" + list + "]}";
        };
        QTest::newRow("2 x 3") << "method: grid\nparameters:\n  a: {values: [1, 2]}\n  b: {values: [x, y, z]}\n"
                               << quint64(6) << quint64(6);
        QTest::newRow("repeats") << "method: grid\nrepeats: 3\nparameters:\n  a: {values: [1, 2]}\n"
                                 << quint64(2) << quint64(6);
        QTest::newRow("an int range") << "method: grid\nparameters:\n  a: {min: -5, max: 5}\n"
                                      << quint64(11) << quint64(11);
        QTest::newRow("random") << "method: random\nrun_cap: 7\nrepeats: 2\nparameters:\n  a: {min: 0, max: 1}\n"
                                << quint64(7) << quint64(14);
        QTest::newRow("4 x 1000 values") << "method: grid\nparameters:\n  a: " + values(1000) +
                                                "\n  b: " + values(1000) + "\n  c: " + values(1000) +
                                                "\n  d: " + values(1000) + "\n"
                                         << quint64(1000000000000) << quint64(1000000000000);
        QTest::newRow("past 2^64 by values") << "method: grid\nrepeats: 2\nparameters:\n" + [&] {
            QString p;
            for (int i = 0; i < 7; ++i) p += "  p" + QString::number(i) + ": " + values(1000) + "\n";
            return p;
        }() << quint64(kManyTrials) << quint64(kManyTrials);
        QTest::newRow("past 2^64 by ranges") << "method: grid\nparameters:\n"
                                                "  a: {min: -9007199254740991, max: 9007199254740991}\n"
                                                "  b: {min: -9007199254740991, max: 9007199254740991}\n"
                                             << quint64(kManyTrials) << quint64(kManyTrials);
        QTest::newRow("past 2^64 by repeats")
            << "method: grid\nrepeats: 1000\nparameters:\n  a: {min: 0, max: 9007199254740991}\n"
               "  b: {min: 1, max: 1024}\n"
            << quint64(9007199254740992ULL * 1024) << quint64(kManyTrials);
    }
    void countsComeFromTheCounts() {
        QFETCH(QString, spec);
        QFETCH(quint64, points);
        QFETCH(quint64, trials);
        const Spec s = parse(spec.toStdString());
        QCOMPARE(quint64(countPoints(s)), points);
        QCOMPARE(quint64(countTrials(s)), trials);
    }

    // Past the cap, the sweep is refused by its count, naming `parameters:` (a grid) or run_cap.
    void pastTheCapIsRefusedByItsCount_data() {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("expected");
        QTest::newRow("3 ranges of 100,000") << "method: grid\nparameters:\n  a: {min: 0, max: 99999}\n"
                                                "  b: {min: 0, max: 99999}\n  c: {min: 0, max: 99999}\n"
                                             << "s.yaml:2: parameters: the grid has 1000000000000000 trials, more "
                                                "than 100000";
        QTest::newRow("one range of 2^53") << "method: grid\nparameters:\n  a: {min: 0, max: 9007199254740991}\n"
                                           << "s.yaml:2: parameters: the grid has 9007199254740992 trials";
        QTest::newRow("past 2^64") << "method: grid\nparameters:\n"
                                      "  a: {min: -9007199254740991, max: 9007199254740991}\n"
                                      "  b: {min: -9007199254740991, max: 9007199254740991}\n"
                                   << "s.yaml:2: parameters: the grid has more than 2^64 trials";
        QTest::newRow("run_cap x repeats") << "method: random\nrun_cap: 100000\nrepeats: 2\nparameters:\n"
                                              "  a: {min: 0, max: 1}\n"
                                           << "s.yaml: run_cap: run_cap x repeats is 200000 trials";
    }
    void pastTheCapIsRefusedByItsCount() {
        QFETCH(QString, spec);
        QFETCH(QString, expected);
        const Spec s = parse(spec.toStdString());
        for (const auto& refuse :
             {std::function<void()>([&] { checkTrialCount(s); }), std::function<void()>([&] { expandTrials(s); })}) {
            try {
                refuse();
                QFAIL("the sweep was accepted");
            } catch (const wb::ConfigError& e) {
                QVERIFY2(QString::fromStdString(e.what()).startsWith(expected), e.what());
            }
        }
    }

    // The whole numbers just below 2^53 are still counted one by one.
    void aRangeJustBelow2To53Expands() {
        const auto trials =
            expandTrials(parse("method: grid\nparameters:\n  a: {min: 9007199254740989, max: 9007199254740991}\n"));
        QCOMPARE(trials.size(), std::size_t(3));
        QCOMPARE(argsOf(trials[0]), std::string("9007199254740989"));
        QCOMPARE(argsOf(trials[2]), std::string("9007199254740991"));
    }

    void tooLargeAGridIsRefused() {
        std::string text = "method: grid\nparameters:\n";
        for (int p = 0; p < 6; ++p) text += "  p" + std::to_string(p) + ": {values: [1,2,3,4,5,6,7,8,9,10]}\n";
        QVERIFY_THROWS_EXCEPTION(wb::ConfigError, expandTrials(parse(text)));
    }
};

QTEST_APPLESS_MAIN(TestTrialPoints)
#include "tst_trial_points.moc"
