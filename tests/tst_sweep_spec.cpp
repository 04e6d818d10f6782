// The sweep file: what parses, into what, and every refusal naming the file, the line and the key.
#include <QtTest>

#include "errors.h"
#include "sweep_spec.h"

using namespace wb::sweep;

namespace {
// A stand-in for `mlpwb train`'s options (the CLI's own lookup is tested end to end in tst_cli_sweep).
OptionInfo lookup(const std::string& option) {
    OptionInfo info;
    for (const char* known : {"--lr", "--batch-size", "--layers", "--optimizer", "--epochs", "--shuffle", "--out"})
        if (option == known) info.known = true;
    info.flag = option == "--shuffle";
    if (option == "--out") info.refusal = "set by the sweep";
    return info;
}

Spec parse(const std::string& text) {
    return parseSpec(text, "s.yaml", lookup);
}
}  // namespace

class TestSweepSpec : public QObject {
    Q_OBJECT
private slots:
    void gridOfValues() {
        const Spec s = parse(
            "method: grid\n"
            "metric: {name: val_accuracy}\n"
            "repeats: 3\n"
            "parameters:\n"
            "  batch_size: {values: [256, 2048]}\n"
            "  optimizer: {value: adam}\n"
            "  layers: {values: [[20, 10], [64]]}\n"
            "  shuffle: {values: [true, false]}\n");
        QCOMPARE(toString(s.method), toString(Method::Grid));
        QCOMPARE(s.metric.name, std::string("val_accuracy"));
        QCOMPARE(toString(s.metric.goal), toString(Goal::Maximize));  // accuracy: higher is better unless told
        QCOMPARE(s.repeats, 3);
        QCOMPARE(s.parameters.size(), std::size_t(4));
        const auto& batch = s.parameters[0];
        QCOMPARE(batch.option, std::string("--batch-size"));
        QCOMPARE(batch.line, 5);
        QCOMPARE(batch.values.size(), std::size_t(2));
        QCOMPARE(batch.values[1].argument, std::string("2048"));
        QVERIFY(batch.values[1].value.is_number_integer());
        QCOMPARE(s.parameters[1].values[0].value.get<std::string>(), std::string("adam"));
        QCOMPARE(s.parameters[2].values[0].argument, std::string("20,10"));
        QCOMPARE(s.parameters[2].values[1].argument, std::string("64"));
        QVERIFY(s.parameters[3].flag);
        QCOMPARE(s.parameters[3].values[1].argument, std::string("false"));
    }

    void randomRanges() {
        const Spec s = parse(
            "method: random\nrun_cap: 20\nseed: 7\n"
            "parameters:\n"
            "  lr: {min: 1.0e-4, max: 1.0e-1, distribution: log_uniform}\n"
            "  epochs: {min: 5, max: 9}\n"
            "  batch-size: {min: 0.5, max: 2.5}\n");
        QCOMPARE(*s.runCap, 20);
        QCOMPARE(s.seed, std::uint64_t(7));
        QCOMPARE(toString(*s.parameters[0].distribution), toString(Distribution::LogUniform));
        QCOMPARE(toString(*s.parameters[1].distribution), toString(Distribution::IntUniform));  // whole ends: integers
        QCOMPARE(toString(*s.parameters[2].distribution), toString(Distribution::Uniform));
        QCOMPARE(s.parameters[2].option, std::string("--batch-size"));  // '-' as well as '_'
        QCOMPARE(s.metric.name, std::string("loss"));                   // the default metric
        QCOMPARE(toString(s.metric.goal), toString(Goal::Minimize));
    }

    void refusals_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");  // the start of the message
        QTest::newRow("bad YAML") << "method: grid\nparameters:\n  lr: {values: [0.1\n"
                                  << "s.yaml:4: YAML:";
        QTest::newRow("unknown key") << "method: grid\nsweep: 1\nparameters:\n  lr: {value: 1}\n"
                                     << "s.yaml:2: sweep: unknown key";
        QTest::newRow("unknown parameter") << "method: grid\nparameters:\n  learning_rate: {value: 1}\n"
                                           << "s.yaml:3: parameters.learning_rate: unknown parameter";
        QTest::newRow("owned by the sweep") << "method: grid\nparameters:\n  out: {value: x}\n"
                                            << "s.yaml:3: parameters.out: set by the sweep";
        QTest::newRow("empty grid") << "method: grid\nparameters:\n  lr: {values: []}\n"
                                    << "s.yaml:3: parameters.lr.values: an empty list";
        QTest::newRow("no parameters") << "method: grid\nparameters: {}\n"
                                       << "s.yaml:2: parameters: no parameter";
        QTest::newRow("unknown method") << "method: bayes\nparameters:\n  lr: {value: 1}\n"
                                        << "s.yaml:1: method: unknown method 'bayes'";
        QTest::newRow("no method") << "parameters:\n  lr: {value: 1}\n"
                                   << "s.yaml:1: method: missing";
        QTest::newRow("random without run_cap") << "method: random\nparameters:\n  lr: {min: 0, max: 1}\n"
                                                << "s.yaml:1: run_cap: method: random needs run_cap";
        QTest::newRow("continuous range in a grid") << "method: grid\nparameters:\n  lr: {min: 0.1, max: 0.5}\n"
                                                    << "s.yaml:3: parameters.lr: a grid needs discrete";
        QTest::newRow("min above max") << "method: random\nrun_cap: 2\nparameters:\n  lr: {min: 2, max: 1}\n"
                                       << "s.yaml:4: parameters.lr: min is greater than max";
        QTest::newRow("log range through zero")
            << "method: random\nrun_cap: 2\nparameters:\n  lr: {min: 0, max: 1, distribution: log_uniform}\n"
            << "s.yaml:4: parameters.lr.min: a log_uniform range needs min > 0";
        QTest::newRow("unknown distribution")
            << "method: random\nrun_cap: 2\nparameters:\n  lr: {min: 0, max: 1, distribution: normal}\n"
            << "s.yaml:4: parameters.lr.distribution: unknown distribution 'normal'";
        QTest::newRow("two forms") << "method: grid\nparameters:\n  lr: {value: 1, values: [2]}\n"
                                   << "s.yaml:3: parameters.lr: give exactly one of";
        QTest::newRow("unknown parameter key") << "method: grid\nparameters:\n  lr: {vals: [1]}\n"
                                               << "s.yaml:3: parameters.lr.vals: unknown key";
        QTest::newRow("flag not boolean") << "method: grid\nparameters:\n  shuffle: {values: [yes-please]}\n"
                                          << "s.yaml:3: parameters.shuffle: is an on/off option";
        QTest::newRow("unknown metric") << "method: grid\nmetric: {name: f1}\nparameters:\n  lr: {value: 1}\n"
                                        << "s.yaml:2: metric.name: unknown metric 'f1'";
        QTest::newRow("bad goal") << "method: grid\nmetric: {name: loss, goal: lowest}\nparameters:\n  lr: {value: 1}\n"
                                  << "s.yaml:2: metric.goal: expects minimize or maximize";
        QTest::newRow("repeats zero") << "method: grid\nrepeats: 0\nparameters:\n  lr: {value: 1}\n"
                                      << "s.yaml:2: repeats: expects a whole number in [1, 1000]";
        QTest::newRow("same option twice")
            << "method: grid\nparameters:\n  batch_size: {value: 1}\n  batch-size: {value: 2}\n"
            << "s.yaml:4: parameters.batch-size: sets the same option";
        QTest::newRow("a list, not a mapping") << "- method: grid\n"
                                               << "s.yaml: sweep file: expects a mapping";
        QTest::newRow("run_cap in a grid") << "method: grid\nrun_cap: 3\nparameters:\n  lr: {value: 1}\n"
                                           << "s.yaml:2: run_cap: applies to method: random";
    }
    void refusals() {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        try {
            parse(text.toStdString());
            QFAIL("the spec was accepted");
        } catch (const wb::ConfigError& e) {
            QVERIFY2(QString::fromStdString(e.what()).startsWith(expected), e.what());
        }
    }

    void optionNames() {
        QCOMPARE(optionOf("batch_size"), std::string("--batch-size"));
        QCOMPARE(optionOf("data-path"), std::string("--data-path"));
    }
};

QTEST_APPLESS_MAIN(TestSweepSpec)
#include "tst_sweep_spec.moc"
