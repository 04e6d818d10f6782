// The experiment report, read back as a reader would: the PDF's pages rendered by pdftoppm are not
// blank, its text (pdftotext) holds the run names, their figures, the conclusion and the loop's
// code; the HTML holds every chart as inline SVG; a sweep folder is a source too; and what cannot
// be read or written is refused with its reason, by the library and by `mlp-workbench --report`.
#include <QImage>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "cli_runner.h"
#include "errors.h"
#include "experiment_report.h"
#include "sweep_support.h"
#include "test_support.h"

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
        sources_.runs = {runOf("Seed PyTorch loop run", "Seed PyTorch loop", 123.4),
                         runOf("Fastest run", "Fastest", 4.2)};
        // An ablation of two steps, so that the report has a waterfall and its table.
        AblationResult a;
        a.backend = "cpu";
        a.device = "Test CPU 9000";
        a.status = AblationStatus::Completed;
        a.plan.repeats = 1;
        for (const auto& [name, ms] : {std::pair{"baseline", 123.4}, std::pair{"data_path=device_resident", 4.2}}) {
            AblationStep s;
            s.name = name;
            s.description = "test step";
            s.runs = {runOf(name, "Seed PyTorch loop", ms)};
            s.medianEpochMs = s.minEpochMs = s.maxEpochMs = *s.runs.front().summary().medianEpochMs;
            a.steps.push_back(s);
        }
        a.updateSavings();
        sources_.ablations = {a};
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
            QVERIFY2(ink > 0.005, qPrintable(page + ": blank (" + QString::number(ink) + " of it inked)"));
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
        // Epoch time, speedup, the waterfall, loss: four charts, each an inline SVG.
        QCOMPARE(html.count("src=\"data:image/svg+xml;base64,"), 4);
        QVERIFY(html.contains("Seed PyTorch loop run"));
        QVERIFY(html.contains("<h2>Conclusion</h2>"));
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
