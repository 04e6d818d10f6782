// The experiment report, read back as a reader would: the PDF's pages rendered by pdftoppm are not
// blank, its text (pdftotext) holds the run names, their figures, the conclusion and the loop's
// code; the HTML holds every chart as inline SVG; a sweep folder is a source too; and what cannot
// be read or written is refused with its reason, by the library and by `mlp-workbench --report`.
#include <QImage>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <tuple>

#include "core/platform/errors.h"
#include "frameworks/framework_backend.h"
#include "frameworks/python_interpreter.h"
#include "gui/report/experiment_report.h"
#include "tests/cli_runner.h"
#include "tests/fixed_loop_fixture.h"
#include "tests/sweep_support.h"
#include "tests/test_support.h"

using namespace wb;
using namespace wb::gui;

namespace {
constexpr int kTimeoutMs = 120000;

// A completed run of `epochs` epochs of `ms` each after a warm-up, as mlpwb would record it.
RunRecord runOf(const std::string& name, const std::string& preset, double ms) {
    RunConfig c;
    c.name = name;
    c.execution = presetByName(preset).settings;
    RunRecord r;
    r.name = name;
    r.status = RunStatus::Completed;
    r.config = c;
    r.dataset.source = "spambase.csv";
    r.dataset.rows = 4601;
    r.dataset.features = 57;
    r.dataset.hash = "sha256:0123456789abcdef0123";
    r.environment = {{"cpu", "Test CPU 9000"}, {"threads", "2"}};
    for (int e = 1; e <= 6; ++e) {
        EpochMetrics m;
        m.epoch = e;
        m.warmup = e == 1;
        m.wallMs = (e == 1 ? 3 : 1) * ms * (1 + 0.01 * e);
        m.trainLoss = 0.7 - 0.05 * e;
        m.trainAccuracy = 0.6 + 0.03 * e;
        r.epochs.push_back(m);
    }
    return r;
}

// A run of the torch backend whose record names `python` as its interpreter, as a record handed on
// from someone else can; its environment says which PyTorch it ran with.
RunRecord torchRunNaming(const std::string& python, const std::string& name, double ms,
                         const std::string& preset = "Seed answer's fixes") {
    RunRecord r = runOf(name, preset, ms);
    RunConfig c = r.config.get<RunConfig>();
    c.backend = "torch";
    c.framework.python = python;
    r.config = c;
    r.environment = {
        {"framework", "torch"}, {"torch_version", "2.1.0"}, {"framework_device", "cpu"}, {"python", python}};
    return r;
}

// An ablation on `backend` from the seed loop to one fix, its runs made by `run`.
template <typename MakeRun>
AblationResult ablationOf(const std::string& backend, MakeRun run) {
    AblationResult a;
    a.backend = backend;
    a.device = "Test CPU 9000";
    a.status = AblationStatus::Completed;
    a.plan.repeats = 1;
    for (const auto& [name, ms] : {std::pair{"baseline", 123.4}, std::pair{"data_path=device_resident", 4.2}}) {
        AblationStep s;
        s.name = name;
        s.description = "test step";
        s.runs = {run(name, ms)};
        s.medianEpochMs = s.minEpochMs = s.maxEpochMs = *s.runs.front().summary().medianEpochMs;
        a.steps.push_back(s);
    }
    a.updateSavings();
    return a;
}

// An answer measured on two engines, each with its own environment, rounds and machine state: what
// the report must say per engine. `status`: Running for one shown while still measuring.
Answer twoEngineAnswer(AnswerStatus status) {
    Answer answer;
    answer.status = status;
    const auto engineOf = [](const std::string& name, const std::map<std::string, std::string>& env, int rounds,
                             const std::string& precision, double otherCores) {
        AnswerEngine e;
        e.engine = name;
        e.available = true;
        e.device = "Test CPU 9000";
        e.ablation = ablationOf(name, [&](const std::string& step, double ms) {
            RunRecord r = runOf(step, "Seed PyTorch loop", ms);
            r.environment = env;
            return r;
        });
        e.ablation->rounds = rounds;
        e.ablation->precision = precision;
        MachineLoad m;
        m.cores = 2;
        m.otherCores = otherCores;
        m.loadBefore = 0.5;
        m.loadAfter = 1.25;
        e.ablation->machine = m;
        return e;
    };
    answer.engines = {
        engineOf("cpu", {{"threads", "2"}, {"hardware_threads", "2"}, {"eigen", "3.4.0"}, {"device", "Test CPU 9000"}},
                 4, "every median known to \u00b15 % or better after 4 rounds", 0.1),
        engineOf("torch",
                 {{"framework", "torch"},
                  {"torch_version", "2.1.0"},
                  {"python_version", "3.11.2"},
                  {"framework_device", "cpu"},
                  {"framework_threads", "1"},
                  {"framework_torch", "2.1.0"},  // the loop's own facts: said once in the summary
                  {"framework_python_version", "3.11.2"},
                  {"hardware_threads", "2"}},
                 7, "the time budget (60 s) allowed 7 rounds", 0.8)};
    AnswerEngine jax;
    jax.engine = "jax";
    jax.reason = "jax is not importable";
    answer.engines.push_back(jax);
    return answer;
}

// Sets an environment variable for one scope and puts back what was there (PATH must not vanish).
class EnvOverride {
public:
    EnvOverride(const char* name, const QByteArray& value) : name_(name), had_(qEnvironmentVariableIsSet(name)) {
        old_ = qgetenv(name);
        qputenv(name, value);
    }
    ~EnvOverride() {
        if (had_)
            qputenv(name_, old_);
        else
            qunsetenv(name_);
    }
    EnvOverride(const EnvOverride&) = delete;
    EnvOverride& operator=(const EnvOverride&) = delete;

private:
    const char* name_;
    bool had_;
    QByteArray old_;
};

// How much of a rendered page is ink (not white).
double inkOf(const QString& png) {
    const QImage image(png);
    if (image.isNull()) return 0;
    qint64 ink = 0;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2)
            if (qGray(image.pixel(x, y)) < 200) ++ink;
    return static_cast<double>(ink) / (image.width() / 2.0 * image.height() / 2.0);
}

// Runs a tool to its end; false when it could not start, failed or took more than a minute.
bool runTool(const QString& program, const QStringList& args, QString* out = nullptr) {
    QProcess p;
    p.start(program, args);
    if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) return false;
    if (out) *out = QString::fromUtf8(p.readAllStandardOutput());
    return true;
}
}  // namespace

class TestReport : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    ReportSources sources_;

    QString path(const QString& name) const { return dir_.filePath(name); }

private slots:
    void initTestCase() {
        // As the desktop program has them: the charts ask the registry what a framework ignores.
        registerFrameworkBackends();
        sources_.runs = {runOf("Seed PyTorch loop run", "Seed PyTorch loop", 123.4),
                         runOf("Fastest run", "Fastest", 4.2)};
        // An ablation of two steps, so that the report has a waterfall and its table.
        sources_.ablations = {
            ablationOf("cpu", [](const std::string& name, double ms) { return runOf(name, "Seed PyTorch loop", ms); })};
    }

    void thePdfReadsBack() {
        if (QStandardPaths::findExecutable("pdftoppm").isEmpty() ||
            QStandardPaths::findExecutable("pdftotext").isEmpty())
            QSKIP("pdftoppm and pdftotext are not installed (Debian: poppler-utils; scripts/setup.sh installs it)");
        writeReport(sources_, path("report.pdf"));
        QVERIFY(readAll(path("report.pdf")).startsWith("%PDF-"));
        QVERIFY(runTool("pdftoppm", {"-r", "40", "-png", path("report.pdf"), path("page")}));
        const QStringList pages = QDir(dir_.path()).entryList({"page-*.png"}, QDir::Files, QDir::Name);
        QVERIFY2(pages.size() >= 3, qPrintable(pages.join(", ")));
        for (const QString& page : pages) {
            const double ink = inkOf(path(page));
            // A page of one short section (a heading and a two-row table) inks ~0.25 %; a blank one,
            // only its light footer, next to nothing.
            QVERIFY2(ink > 0.001, qPrintable(page + ": blank (" + QString::number(ink) + " of it inked)"));
        }
        QString text;
        QVERIFY(runTool("pdftotext", {"-layout", path("report.pdf"), "-"}, &text));
        // (pdftotext writes the "fi" of "fixed" as its ligature, so that word is left out.)
        for (const char* expected : {"Why is this training slow?", "Conclusion", "Seed PyTorch loop run", "Fastest run",
                                     "spambase.csv", "4601", "Test CPU 9000", "data_path=device_resident",
                                     "Ablation on cpu", "loop in PyTorch", "import torch"})
            QVERIFY2(text.contains(expected), qPrintable(QString("'%1' is not in the PDF's text").arg(expected)));
        // The figures: the median of each run (warm-up excluded) as the tables print them.
        QVERIFY2(text.contains("126 ms"), "the seed run's median");  // 123.4 x 1.02 (epochs 2-6: 1.02..1.06)
        QVERIFY2(text.contains("4.28 ms"), "the fast run's median");
        QVERIFY2(text.contains("faster"), "the conclusion's comparison");
    }

    void theHtmlHoldsEveryChartAsSvg() {
        writeReport(sources_, path("report.html"));
        const QString html = readAll(path("report.html"));
        QVERIFY(html.startsWith("<!DOCTYPE html>"));
        // Epoch time, speedup, the waterfall and its shares, loss: five charts, each an inline SVG.
        QCOMPARE(html.count("src=\"data:image/svg+xml;base64,"), 5);
        QVERIFY(html.contains("Seed PyTorch loop run"));
        QVERIFY(html.contains("<h2>Conclusion</h2>"));
    }

    // The appendix is the loop the answer recommends, as `mlpwb export --answer` writes it: its fastest
    // step, with the fix it leaves out and what that cost.
    void theAppendixIsTheRecommendedLoop() {
        ReportSources s;
        s.answer = fixture::torchAnswer();
        writeReport(s, path("recommended.html"));
        const QString html = readAll(path("recommended.html"));
        QVERIFY(html.contains("Appendix: the fixed loop in PyTorch"));
        QVERIFY2(html.contains("The fixed loop of this report's answer on PyTorch"), qPrintable(html.right(3000)));
        QVERIFY2(html.contains("Left out, as the fastest step measured is not every fix applied: launch=graph_step, "
                               "which cost"),
                 qPrintable(html.right(3000)));
    }

    // Per engine: the workload as run, the rounds made and why they stopped, the machine meanwhile,
    // and every engine's environment (not only the first backend's); the code in an appendix.
    void anAnswerSaysWhatWasMeasured() {
        ReportSources s;
        s.answer = twoEngineAnswer(AnswerStatus::Completed);
        writeReport(s, path("measured.html"));
        QString html = readAll(path("measured.html"));
        html.replace("&#8594;", "\u2192");
        QVERIFY(html.contains("<h2>What was measured</h2>"));
        for (const char* expected :
             {"<b>cpu</b>", "<b>torch</b>", "4,601 rows \u00d7 57 features", "batch 2048", "6 epochs per run",
              "4 rounds (1 at least", "after 4 rounds", "7 rounds (1 at least",
              "the time budget (60 s) allowed 7 rounds", "kept 0.1 of the machine's 2 cores busy",
              "kept 0.8 of the machine's 2 cores busy (a busy machine", "load 0.5 \u2192 1.2",
              "torch 2.1.0, Python 3.11.2; device cpu; 1 thread of 2",
              "Eigen 3.4.0; device Test CPU 9000; 2 threads of 2", "Appendix: the"})
            QVERIFY2(html.contains(QString::fromUtf8(expected)), expected);
        // The environment section: one table per engine, each with its own keys.
        const QString environment = html.mid(html.indexOf("<h2>Environment</h2>"));
        QVERIFY(environment.contains("<b>cpu</b>") && environment.contains("<b>torch</b>"));
        QVERIFY(environment.contains("torch_version") && environment.contains("eigen"));
        QVERIFY2(!html.contains("Provisional"), "a completed answer is no provisional one");
        // Each engine's shares of the gap beside its waterfall: two charts per engine, two runs charts.
        QCOMPARE(html.count("src=\"data:image/svg+xml;base64,"), 2 * 2 + 3);
    }

    // An answer saved while it was still measuring is reported as provisional.
    void aRunningAnswerIsProvisional() {
        ReportSources s;
        s.answer = twoEngineAnswer(AnswerStatus::Running);
        QVERIFY2(reportConclusion(s).front().startsWith("Provisional"), qPrintable(reportConclusion(s).join('\n')));
        writeReport(s, path("provisional.html"));
        const QString html = readAll(path("provisional.html"));
        QVERIFY(html.contains("Provisional: still measuring"));
        QVERIFY(html.contains("Provisional: measured so far"));
    }

    void aSweepFolderIsASource() {
        writeText(path("grid.yaml"), kGridSpec);
        RUN_MLPWB(sweep, QStringList({"sweep", "grid.yaml", "--out", "s", "--builtin", "--rows", "400", "--epochs", "2",
                                      "--batch-size", "64", "--val-split", "0.2"}));
        QVERIFY2(sweep.exitCode == 0, sweep.describe());
        const ReportSources s = loadReportSources({path("s")});
        QCOMPARE(s.sweeps.size(), std::size_t{1});
        QCOMPARE(s.runs.size(), std::size_t{6});  // every completed trial, named as the sweep names it
        QVERIFY(QString::fromStdString(s.runs.front().name).startsWith("batch_size="));
        QVERIFY2(reportConclusion(s).join('\n').contains("the best trial is"),
                 qPrintable(reportConclusion(s).join('\n')));
        writeReport(s, path("sweep.html"));
        QVERIFY(readAll(path("sweep.html")).contains("<h2>Sweep "));
    }

    void whatCannotBeReadIsRefused() {
        QVERIFY_THROWS_EXCEPTION(ConfigError, loadReportSources({}));
        QVERIFY_THROWS_EXCEPTION(DataError, loadReportSources({path("missing.json")}));
        QVERIFY_THROWS_EXCEPTION(DataError, loadReportSources({dir_.path()}));  // a folder, no sweep
        writeText(path("other.json"), "{\"schema\": \"something/1\"}");
        QVERIFY_THROWS_EXCEPTION(DataError, loadReportSources({path("other.json")}));
        for (const QByteArray& text : {QByteArray("{\"schema\": 5}"), QByteArray("[1, 2]"), QByteArray("[{}]")}) {
            writeText(path("odd.json"), text);
            QVERIFY_THROWS_EXCEPTION(DataError, loadReportSources({path("odd.json")}));
        }
        QVERIFY_THROWS_EXCEPTION(ConfigError, writeReport(sources_, path("report.docx")));
        QVERIFY_THROWS_EXCEPTION(ConfigError, writeReport(ReportSources{}, path("empty.pdf")));
        QVERIFY_THROWS_EXCEPTION(IoError, writeReport(sources_, path("no/such/folder/report.pdf")));
        QVERIFY(!QFile::exists(path("empty.pdf")));
    }

    // A record or an answer from someone else names the program it ran as its Python: reading it
    // into a report (in the library, and through `mlpwb report`, PDF and HTML) runs nothing, neither
    // that program nor the reader's own interpreter ($MLPWB_PYTHON, PATH); the interpreter is text.
    void readingFilesRunsNoProgram_data() {
        QTest::addColumn<QString>("python");  // as the files name it; the test's folder is the working one
        QTest::newRow("an absolute path") << path("hostile-python");
        QTest::newRow("a relative path") << QString("./hostile-python");
        QTest::newRow("a name found on PATH") << QString("hostile-python");
    }
    void readingFilesRunsNoProgram() {
        QFETCH(QString, python);
        const QString marker = path("MARKER");
        const QString program = path("hostile-python");
        writeText(program, "#!/bin/sh\ntouch '" + marker.toUtf8() + "'\n");
        QFile::setPermissions(program, QFile::permissions(program) | QFileDevice::ExeOwner);
        QVERIFY2(QProcess::execute(program, {}) == 0 && QFile::remove(marker), "the program would leave its marker");

        const std::string named = python.toStdString();
        const RunRecord run = torchRunNaming(named, "Someone's torch run", 7.5);
        run.save(path("hostile-run.json").toStdString());
        Answer answer;
        answer.status = AnswerStatus::Completed;
        AnswerEngine torch;
        torch.engine = "torch";
        torch.available = true;
        // Seed and fixed loops of different switches: the speedup chart asks what torch ignores.
        torch.ablation = ablationOf("torch", [&](const std::string& name, double ms) {
            return torchRunNaming(named, name, ms, name == "baseline" ? "Seed PyTorch loop" : "Seed answer's fixes");
        });
        answer.engines = {torch};
        answer.save(path("hostile-answer.json").toStdString());

        forgetFrameworkProbes();  // nothing asked before counts
        const EnvOverride ownPython("MLPWB_PYTHON", program.toUtf8());
        const EnvOverride searchPath("PATH", dir_.path().toUtf8() + ":" + qgetenv("PATH"));
        const QString home = QDir::currentPath();
        QVERIFY(QDir::setCurrent(dir_.path()));
        for (const QString& input : {QString("hostile-run.json"), QString("hostile-answer.json")}) {
            const ReportSources s = loadReportSources({path(input)});
            writeReport(s, path("hostile.pdf"));
            writeReport(s, path("hostile.html"));
            const QString html = readAll(path("hostile.html"));
            QVERIFY2(html.contains("Written for PyTorch 2.1.0 on the CPU"), qPrintable(input));
            QVERIFY2(html.contains(python.toHtmlEscaped()), "the interpreter, shown as text");
            for (const QString& out : {QString("cli.pdf"), QString("cli.html")}) {
                RUN_MLPWB(r, QStringList({"report", input, "--out", out}));
                QVERIFY2(r.exitCode == 0, r.describe());
            }
        }
        QVERIFY(QDir::setCurrent(home));
        QVERIFY2(!QFile::exists(marker), "reading a file ran a program");
    }

    // A time read from a file is a measurement: negative, zero or infinite ones are refused with
    // the file and the key, by the library and by `mlp-workbench --report` (one line, exit 3).
    void impossibleTimesAreRefused_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("key");
        const nlohmann::json good = runOf("Timed run", "Seed PyTorch loop", 10.0).toJson();
        for (const auto& [tag, key, value] :
             {std::tuple{"a negative epoch time", "wall_ms", nlohmann::json(-5.0)},
              std::tuple{"a zero epoch time", "wall_ms", nlohmann::json(0)},
              std::tuple{"a zero device time", "device_ms", nlohmann::json(0.0)},
              std::tuple{"a negative phase", "phases_ms", nlohmann::json{{"data", -1.0}}}}) {
            nlohmann::json bad = good;
            bad["epochs"][1][key] = value;
            QTest::newRow(tag) << QByteArray::fromStdString(bad.dump()) << QString("epochs[1].%1").arg(key);
        }
        QTest::newRow("an infinite epoch time")
            << QByteArray::fromStdString(good.dump()).replace("\"wall_ms\":", "\"wall_ms\":1e999,\"x\":")
            << QString("1e999");
        nlohmann::json ablation = sources_.ablations.front().toJson();
        ablation["steps"][1]["median_epoch_ms"] = 0;
        QTest::newRow("a zero step median")
            << QByteArray::fromStdString(ablation.dump()) << QString("steps[1].median_epoch_ms");
        ablation = sources_.ablations.front().toJson();
        ablation["steps"][0]["min_epoch_ms"] = -2.5;
        QTest::newRow("a negative step minimum")
            << QByteArray::fromStdString(ablation.dump()) << QString("steps[0].min_epoch_ms");
    }
    void impossibleTimesAreRefused() {
        QFETCH(QByteArray, content);
        QFETCH(QString, key);
        writeText(path("impossible.json"), content);
        const auto error = dataErrorOf([&] { loadReportSources({path("impossible.json")}); });
        QVERIFY2(error.has_value(), "loaded");
        QCOMPARE(QString::fromStdString(error->file()), path("impossible.json"));
        QVERIFY2(QString::fromUtf8(error->what()).contains(key), error->what());

        QProcess p;
        p.setWorkingDirectory(dir_.path());
        p.start(QStringLiteral(WB_GUI_PATH), {"--report", "impossible.json", "--out", "impossible.html"});
        QVERIFY(p.waitForFinished(60000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QCOMPARE(p.exitCode(), 3);
        // One line of its own (Qt may add its warnings about the environment).
        const QStringList lines = err.split('\n').filter(QRegularExpression("^mlp-workbench: "));
        QVERIFY2(lines.size() == 1 && lines.front().contains("impossible.json") && lines.front().contains(key),
                 qPrintable(err));
        QVERIFY(!QFile::exists(path("impossible.html")));
    }

    // Ten thousand runs: the report is written, its charts draw a sample and say so, its table lists
    // the first rows and counts the rest. ctest's TIMEOUT for this suite (tests/CMakeLists.txt) is the
    // bound: before the cap, 10,000 runs never finished tearing their charts down.
    void tenThousandRunsMakeABoundedReport() {
        ReportSources many;
        many.runs.reserve(10000);
        for (int i = 0; i < 10000; ++i)
            many.runs.push_back(runOf("run " + std::to_string(i), i % 2 ? "Fastest" : "Seed PyTorch loop",
                                      1.0 + (i * 7919) % 10000 / 100.0));
        for (int k = 0; k < 1000; ++k) many.runs.front().environment["key " + std::to_string(k)] = "value";
        writeReport(many, path("many.html"));
        const QString html = readAll(path("many.html"));
        QCOMPARE(html.count("src=\"data:image/svg+xml;base64,"), 3);  // epoch time, speedup, loss
        QVERIFY2(html.contains("50 of 10,000 runs"), "the charts say what they show");
        QVERIFY2(html.contains("9,950 runs are left out of the charts"), "and how many they leave out");
        QVERIFY2(html.contains("\u2026 and 9,800 more runs"), "the table counts the rest");
        QVERIFY(html.contains("run 199<"));
        QVERIFY(!html.contains("run 200<"));
        QVERIFY2(html.contains("\u2026 and 952 more keys"), "an environment's table is bounded too");
        writeReport(many, path("many.pdf"));
        QVERIFY(readAll(path("many.pdf")).startsWith("%PDF-"));
    }

    // mlpwb links no Qt: `mlpwb report` hands over to the desktop program beside it.
    void mlpwbReportHandsOver() {
        sources_.runs.front().save(path("run.json").toStdString());
        RUN_MLPWB(r, QStringList({"report", "run.json", "--out", "from-mlpwb.html"}));
        QVERIFY2(r.exitCode == 0, r.describe());
        QVERIFY(readAll(path("from-mlpwb.html")).contains("Seed PyTorch loop run"));
    }

    void theHeadlessReportSaysWhatWentWrong_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("says");
        QTest::newRow("no --out") << QStringList({"a.json"}) << 2 << "--out wants the report";
        QTest::newRow("no input") << QStringList({"--out", "r.pdf"}) << 2 << "--report wants run files";
        QTest::newRow("a missing input") << QStringList({"missing.json", "--out", "r.pdf"}) << 3 << "missing.json";
        QTest::newRow("another format") << QStringList({"run.json", "--out", "r.txt"}) << 2 << ".pdf or .html";
    }
    void theHeadlessReportSaysWhatWentWrong() {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(QString, says);
        sources_.runs.front().save(path("run.json").toStdString());
        QProcess p;
        p.setWorkingDirectory(dir_.path());
        p.start(QStringLiteral(WB_GUI_PATH), QStringList{"--report"} + args);
        QVERIFY(p.waitForFinished(60000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(p.exitCode() == exitCode, qPrintable(QString::number(p.exitCode()) + ": " + err));
        QVERIFY2(err.contains(says), qPrintable(err));
    }
};

QTEST_MAIN(TestReport)
#include "tst_report.moc"
