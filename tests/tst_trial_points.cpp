// The trial list of a sweep: the grid's order, repeats, and random samples that are deterministic
// and inside their ranges.
#include <QtTest>

#include <cmath>
#include <set>

#include "errors.h"
#include "sweep_spec.h"
#include "trial_points.h"

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

    void gridEnumeratesAnIntRange() {
        const auto trials = expandTrials(parse("method: grid\nparameters:\n  epochs: {min: 3, max: 6}\n"));
        QCOMPARE(trials.size(), std::size_t(4));
        QCOMPARE(argsOf(trials[0]), std::string("3"));
        QCOMPARE(argsOf(trials[3]), std::string("6"));
    }

    void randomIsDeterministicAndInRange() {
        const std::string text =
            "method: random\nrun_cap: 400\nseed: 11\nparameters:\n"
            "  lr: {min: 1.0e-4, max: 1.0e-1, distribution: log_uniform}\n"
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
                               "  lr: {min: 1.0e-4, max: 1.0e-1, distribution: log_uniform}\n"
                               "  epochs: {min: 1, max: 4}\n  dropout: {min: 0.25, max: 0.5}\n"
                               "  opt: {values: [adam, sgd]}\n"));
        QVERIFY(argsOf(other[0]) != argsOf(a[0]));  // another seed, other samples
    }

    void tooLargeAGridIsRefused() {
        std::string text = "method: grid\nparameters:\n";
        for (int p = 0; p < 6; ++p) text += "  p" + std::to_string(p) + ": {values: [1,2,3,4,5,6,7,8,9,10]}\n";
        QVERIFY_THROWS_EXCEPTION(wb::ConfigError, expandTrials(parse(text)));
    }
};

QTEST_APPLESS_MAIN(TestTrialPoints)
#include "tst_trial_points.moc"
