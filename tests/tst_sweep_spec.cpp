// The sweep file: what parses, into what, and every refusal naming the file, the line and the key.
#include <QtTest>

#include <sys/stat.h>

#include "core/platform/errors.h"
#include "sweep/sweep_spec.h"

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
            "  lr: {min: 1.0e-4, max: 1.0e-1, distribution: log_uniform_values}\n"
            "  epochs: {min: 5, max: 9}\n"
            "  batch-size: {min: 0.5, max: 2.5}\n");
        QCOMPARE(*s.runCap, 20);
        QCOMPARE(s.seed, std::uint64_t(7));
        QCOMPARE(toString(s.parameters[0].draw->distribution), toString(Distribution::LogUniformValues));
        QCOMPARE(toString(s.parameters[1].draw->distribution), toString(Distribution::IntUniform));  // whole: integers
        QCOMPARE(toString(s.parameters[2].draw->distribution), toString(Distribution::Uniform));
        QCOMPARE(s.parameters[2].option, std::string("--batch-size"));  // '-' as well as '_'
        QCOMPARE(s.metric.name, std::string("loss"));                   // the default metric
        QCOMPARE(toString(s.metric.goal), toString(Goal::Minimize));
    }

    // A sweep file as W&B's documentation writes one: W&B's own keys are taken and shown as ignored
    // with their reasons and lines; metric.target is kept; constant and categorical are the value
    // forms.
    void aWAndBSweepFileIsTaken() {
        const Spec s = parse(
            "program: train.py\n"
            "entity: my-team\n"
            "project: mlp\n"
            "method: random\n"
            "run_cap: 10\n"
            "metric:\n  name: val_loss\n  goal: minimize\n  target: 0.3\n"
            "early_terminate:\n  type: hyperband\n  min_iter: 3\n  strict: true\n"
            "command:\n  - ${env}\n  - python\n  - ${program}\n  - ${args}\n"
            "parameters:\n"
            "  lr: {distribution: log_uniform_values, min: 0.0001, max: 0.1}\n"
            "  optimizer: {distribution: categorical, values: [adam, sgd]}\n"
            "  epochs: {distribution: constant, value: 20}\n"
            "  batch_size: {distribution: q_log_uniform_values, min: 32, max: 2048, q: 32}\n");
        QCOMPARE(s.metric.target.value_or(-1), 0.3);
        QVERIFY(s.earlyTerminate.has_value());
        QCOMPARE(s.earlyTerminate->minIter, 3);
        QCOMPARE(s.earlyTerminate->eta, 3);  // W&B's default
        QCOMPARE(s.ignored.size(), std::size_t(5));
        const std::vector<std::pair<std::string, int>> expected = {
            {"program", 1}, {"entity", 2}, {"project", 3}, {"early_terminate.strict", 13}, {"command", 14}};
        for (std::size_t i = 0; i < expected.size(); ++i) {
            QCOMPARE(s.ignored[i].key, expected[i].first);
            QCOMPARE(s.ignored[i].line, expected[i].second);
            QVERIFY(!s.ignored[i].reason.empty());
        }
        QCOMPARE(s.parameters[1].values.size(), std::size_t(2));
        QCOMPARE(s.parameters[2].values[0].argument, std::string("20"));
        QCOMPARE(toString(s.parameters[3].draw->distribution), std::string("q_log_uniform_values"));
        QCOMPARE(s.parameters[3].draw->q, 32.0);
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
        QTest::newRow("unknown method") << "method: hyperopt\nparameters:\n  lr: {value: 1}\n"
                                        << "s.yaml:1: method: unknown method 'hyperopt'";
        QTest::newRow("bayes without run_cap") << "method: bayes\nparameters:\n  lr: {min: 0.1, max: 0.5}\n"
                                               << "s.yaml:1: run_cap: method: bayes needs run_cap";
        QTest::newRow("bayes with repeats")
            << "method: bayes\nrun_cap: 4\nrepeats: 2\nparameters:\n  lr: {min: 0.1, max: 0.5}\n"
            << "s.yaml:3: repeats: method: bayes tries each suggested point once";
        QTest::newRow("bayes over an unbounded distribution")
            << "method: bayes\nrun_cap: 4\nparameters:\n  lr: {distribution: normal, mu: 0.1, sigma: 0.01}\n"
            << "s.yaml:4: parameters.lr: normal has no bounds";
        QTest::newRow("hyperband without rungs")
            << "method: grid\nearly_terminate: {type: hyperband, eta: 3}\nparameters:\n  lr: {value: 1}\n"
            << "s.yaml:2: early_terminate: needs min_iter";
        QTest::newRow("hyperband with max_iter alone")
            << "method: grid\nearly_terminate: {type: hyperband, max_iter: 27}\nparameters:\n  lr: {value: 1}\n"
            << "s.yaml:2: early_terminate: needs min_iter";
        QTest::newRow("an early_terminate type W&B does not define")
            << "method: grid\nearly_terminate: {type: median}\nparameters:\n  lr: {value: 1}\n"
            << "s.yaml:2: early_terminate.type: unknown type 'median'";
        QTest::newRow("eta 1")
            << "method: grid\nearly_terminate: {type: hyperband, min_iter: 1, eta: 1}\nparameters:\n  lr: {value: 1}\n"
            << "s.yaml:2: early_terminate.eta: expects a whole number in [2, 1000]";
        QTest::newRow("min_iter beyond max_iter") << "method: grid\nearly_terminate: {type: hyperband, min_iter: 9, "
                                                     "max_iter: 3}\nparameters:\n  lr: {value: 1}\n"
                                                  << "s.yaml:2: early_terminate.min_iter: is beyond max_iter";
        QTest::newRow("no method") << "parameters:\n  lr: {value: 1}\n"
                                   << "s.yaml:1: method: missing";
        QTest::newRow("random without run_cap") << "method: random\nparameters:\n  lr: {min: 0, max: 1}\n"
                                                << "s.yaml:1: run_cap: method: random needs run_cap";
        QTest::newRow("continuous range in a grid") << "method: grid\nparameters:\n  lr: {min: 0.1, max: 0.5}\n"
                                                    << "s.yaml:3: parameters.lr: a grid needs discrete";
        QTest::newRow("min above max") << "method: random\nrun_cap: 2\nparameters:\n  lr: {min: 2, max: 1}\n"
                                       << "s.yaml:4: parameters.lr: min is greater than max";
        QTest::newRow("log range of values through zero")
            << "method: random\nrun_cap: 2\nparameters:\n  lr: {min: 0, max: 1, distribution: log_uniform_values}\n"
            << "s.yaml:4: parameters.lr.min: a log_uniform_values range needs min > 0";
        QTest::newRow("unknown distribution")
            << "method: random\nrun_cap: 2\nparameters:\n  lr: {min: 0, max: 1, distribution: gaussian}\n"
            << "s.yaml:4: parameters.lr.distribution: unknown distribution 'gaussian'";
        QTest::newRow("two forms") << "method: grid\nparameters:\n  lr: {value: 1, values: [2]}\n"
                                   << "s.yaml:3: parameters.lr.value: does not apply to a list of values";
        QTest::newRow("mu on a range")
            << "method: random\nrun_cap: 2\nparameters:\n  lr: {distribution: uniform, min: 0, max: 1, mu: 3}\n"
            << "s.yaml:4: parameters.lr.mu: does not apply to uniform";
        QTest::newRow("min on a normal")
            << "method: random\nrun_cap: 2\nparameters:\n  lr: {distribution: normal, min: 0}\n"
            << "s.yaml:4: parameters.lr.min: does not apply to normal";
        QTest::newRow("sigma zero")
            << "method: random\nrun_cap: 2\nparameters:\n  lr: {distribution: log_normal, sigma: 0}\n"
            << "s.yaml:4: parameters.lr.sigma: a log_normal needs sigma > 0";
        QTest::newRow("q without a q_ distribution")
            << "method: random\nrun_cap: 2\nparameters:\n  lr: {min: 0.5, max: 1.5, q: 2}\n"
            << "s.yaml:4: parameters.lr.q: applies to the q_ distributions only";
        QTest::newRow("q zero")
            << "method: random\nrun_cap: 2\nparameters:\n  lr: {distribution: q_uniform, min: 0, max: 1, q: 0}\n"
            << "s.yaml:4: parameters.lr.q: q must be > 0";
        QTest::newRow("mu without a distribution")
            << "method: random\nrun_cap: 2\nparameters:\n  lr: {mu: 0, sigma: 1}\n"
            << "s.yaml:4: parameters.lr: mu and sigma need a distribution";
        QTest::newRow("log_uniform's exponents taken for values")
            << "method: random\nrun_cap: 2\nparameters:\n  epochs: {distribution: log_uniform, min: 1, max: 1000}\n"
            << "s.yaml:4: parameters.epochs: draws values beyond what a parameter can take (its min and max are "
               "natural-log exponents";
        QTest::newRow("nested parameters")
            << "method: grid\nparameters:\n  model:\n    parameters:\n      layers: {value: 3}\n"
            << "s.yaml:4: parameters.model.parameters: nested parameters";
        QTest::newRow("categorical without values")
            << "method: grid\nparameters:\n  lr: {distribution: categorical}\n"
            << "s.yaml:3: parameters.lr: distribution: categorical needs values";
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
        // Beyond 2^53 a double no longer counts one by one: 1e17 + 1 == 1e17, and a grid of this range
        // once counted forever.
        QTest::newRow("a range beyond 2^53")
            << "method: grid\nparameters:\n  epochs: {min: 1e17, max: 100000000000000016}\n"
            << "s.yaml:3: parameters.epochs.min: '1e17' is beyond 2^53";
        QTest::newRow("a range ending at 2^53")
            << "method: grid\nparameters:\n  epochs:\n    min: 1\n    max: 9007199254740992\n"
            << "s.yaml:5: parameters.epochs.max: '9007199254740992' is beyond 2^53";
        QTest::newRow("a negative range beyond 2^53")
            << "method: random\nrun_cap: 2\nparameters:\n  lr: {min: -1e300, max: 1}\n"
            << "s.yaml:4: parameters.lr.min: '-1e300' is beyond 2^53";
        // yaml-cpp's own message for its nesting limit is "bad file".
        QTest::newRow("deep flow nesting")
            << "method: grid\nparameters:\n  lr: {values: " + QString(3000, '[') + QString(3000, ']') + "}\n"
            << "s.yaml:3: YAML: nested too deeply";
        QTest::newRow("deep block nesting") << [] {
            QString text = "method: grid\nparameters:\n";
            QString indent = "  ";
            for (int i = 0; i < 3000; ++i, indent += ' ') text += indent + "a:\n";
            return text + indent + "1\n";
        }() << "s.yaml:500: YAML: nested too deeply";
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

    // The whole numbers up to 2^53 count one by one: the largest range is accepted.
    void aRangeJustBelow2To53IsAccepted() {
        const Spec s = parse("method: grid\nparameters:\n  epochs: {min: 9007199254740990, max: 9007199254740991}\n");
        QCOMPARE(s.parameters[0].draw->max, 9007199254740991.0);
    }

    // A sweep file is read only from a regular file of at most 1 MiB: a folder, a device that never
    // ends (/dev/zero), a FIFO that waits for a writer and a file past the bound are refused by name,
    // before anything is read.
    void whatIsNoSweepFileIsRefused_data() {
        QTest::addColumn<QString>("path");      // "@" stands for the test's temporary folder
        QTest::addColumn<QString>("expected");  // the start of the message
        QTest::newRow("a folder") << "@"
                                  << "@ is a folder, not a sweep file";
        QTest::newRow("a folder by a trailing slash") << "@/"
                                                      << "@/ is a folder, not a sweep file";
        QTest::newRow("/dev/zero") << "/dev/zero"
                                   << "/dev/zero is not a regular file";
        QTest::newRow("a FIFO") << "@/fifo"
                                << "@/fifo is not a regular file";
        QTest::newRow("past 1 MiB") << "@/big.yaml"
                                    << "@/big.yaml holds 1048577 bytes: a sweep file may hold at most";
        QTest::newRow("missing") << "@/missing.yaml"
                                 << "@/missing.yaml: sweep file: cannot be read: No such file";
    }
    void whatIsNoSweepFileIsRefused() {
        QFETCH(QString, path);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(::mkfifo(QFile::encodeName(dir.path() + "/fifo").constData(), 0600) == 0);
        const QByteArray spec = "method: grid\nparameters:\n  lr: {value: 1}\n";
        QFile big(dir.path() + "/big.yaml");
        QVERIFY(big.open(QIODevice::WriteOnly));
        big.write(spec + QByteArray(static_cast<qsizetype>(kMaxSpecFileBytes) + 1 - spec.size(), '#'));
        big.close();
        path.replace("@", dir.path());
        expected.replace("@", dir.path());
        try {
            loadSpec(path.toStdString(), lookup);
            QFAIL("the file was read as a sweep file");
        } catch (const wb::ConfigError& e) {
            QVERIFY2(QString::fromStdString(e.what()).startsWith(expected), e.what());
        }
    }

    void aFileOfExactly1MiBIsRead() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QByteArray spec = "method: grid\nparameters:\n  lr: {value: 1}\n#";
        QFile f(dir.path() + "/s.yaml");
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(spec + QByteArray(static_cast<qsizetype>(kMaxSpecFileBytes) - spec.size(), '#'));
        f.close();
        const Spec s = loadSpec(f.fileName().toStdString(), lookup);
        QCOMPARE(s.text.size(), kMaxSpecFileBytes);
        QCOMPARE(s.parameters.size(), std::size_t(1));
    }

    void optionNames() {
        QCOMPARE(optionOf("batch_size"), std::string("--batch-size"));
        QCOMPARE(optionOf("data-path"), std::string("--data-path"));
    }
};

QTEST_APPLESS_MAIN(TestSweepSpec)
#include "tst_sweep_spec.moc"
