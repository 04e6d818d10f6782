// Exports: a chart to PNG, JPG, PDF and SVG at the requested size, refusals as IoError, the runs'
// data as CSV and JSON, and the headless `--export-chart` command on our and a peer's run files. An
// exported legend lists only the runs the chart shows; a PDF page is asked for, and written, in points.
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QProcess>
#include <QRegularExpression>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>
#include <memory>

#include <qcustomplot.h>
#include <nlohmann/json.hpp>

#include "core/platform/errors.h"
#include "gui/charts/chart_export.h"
#include "gui/charts/export_dialog.h"
#include "gui/charts/headless_export.h"
#include "gui/charts/metric_chart.h"
#include "gui/runs/run_store.h"

using wb::EpochMetrics;
using wb::RunRecord;
using wb::gui::MetricChart;
using wb::gui::RunStore;

namespace {
RunRecord makeRecord(const std::string& name, int epochs, double wallMs) {
    RunRecord r;
    r.name = name;
    r.status = wb::RunStatus::Completed;
    for (int n = 1; n <= epochs; ++n) {
        EpochMetrics e;
        e.epoch = n;
        e.warmup = n == 1;
        e.trainLoss = 0.7 / n;
        e.trainAccuracy = 0.6 + 0.03 * n;
        e.valLoss = 0.75 / n;
        e.valAccuracy = 0.58 + 0.03 * n;
        e.wallMs = n == 1 ? 3 * wallMs : wallMs;
        e.elapsedMs = n * wallMs;
        e.phases = wb::PhaseTimes{0.1 * wallMs, 0.3 * wallMs, 0.4 * wallMs, 0.1 * wallMs, 0.1 * wallMs};
        r.epochs.push_back(e);
    }
    return r;
}

// A peer's file: what it cannot measure is null (phases, validation, device time), no elapsed time.
const char* kPeerRun = R"({"schema": "mlpwb.run/1", "name": "PyTorch peer", "status": "completed", "message": "",
  "config": {"framework": "pytorch"}, "dataset": {"source": "builtin", "rows": 1000, "features": 61,
  "label": null, "label_mapping": null, "hash": null}, "environment": {"backend": "pytorch", "threads": 2},
  "epochs": [
    {"epoch": 1, "warmup": true, "train_loss": 0.70, "train_accuracy": null, "val_loss": null, "val_accuracy": null,
     "wall_ms": 520.0, "device_ms": null, "samples_per_s": null, "phases_ms": null},
    {"epoch": 2, "warmup": false, "train_loss": 0.60, "train_accuracy": 0.71, "val_loss": null, "val_accuracy": null,
     "wall_ms": 460.0, "device_ms": null, "samples_per_s": null, "phases_ms": null},
    {"epoch": 3, "warmup": false, "train_loss": 0.55, "train_accuracy": 0.74, "val_loss": null, "val_accuracy": null,
     "wall_ms": 455.0, "device_ms": null, "samples_per_s": null, "phases_ms": null}],
  "summary": null})";

void writeText(const QString& path, const QByteArray& text) {
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    QCOMPARE(file.write(text), text.size());
}

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}
}  // namespace

class TestChartExport : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void writesEachFormat_data();
    void writesEachFormat();
    void refusesAnUnknownExtension();
    void reportsAWriteFailure_data();
    void reportsAWriteFailure();
    void aFullDiskIsAnError_data();
    void aFullDiskIsAnError();
    void exportsRunsAsCsv();
    void exportsRunsAsJson();
    void headlessExport_data();
    void headlessExport();
    void headlessExportRefuses_data();
    void headlessExportRefuses();
    void headlessExportFromTheCommandLine();
    void exportedLegendListsOnlyShownRuns_data();
    void exportedLegendListsOnlyShownRuns();
    void pdfPageIsTheSizeAskedInPoints();
    void dialogAsksInTheUnitItWrites();

private:
    QString path(const QString& name) const { return dir_.filePath(name); }

    QTemporaryDir dir_;
    RunStore store_;
    std::vector<int> ids_;
    std::unique_ptr<MetricChart> chart_;
    QString ourRunFile_;
    QString peerRunFile_;
};

void TestChartExport::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // the dialog's remembered sizes stay out of the user's
    QVERIFY(dir_.isValid());
    RunRecord ours = makeRecord("Seed PyTorch loop", 12, 40.0);
    ourRunFile_ = path("ours.json");
    ours.save(ourRunFile_.toStdString());
    peerRunFile_ = path("peer.json");
    writeText(peerRunFile_, kPeerRun);

    ids_.push_back(store_.addFromFile(ourRunFile_));
    ids_.push_back(store_.addFromFile(peerRunFile_));
    store_.rename(ids_[1], "PyTorch, eager");  // a comma: quoted in CSV
    chart_ = std::make_unique<MetricChart>(&store_, MetricChart::Kind::Loss);
    chart_->refreshNow();
    QCOMPARE(chart_->graphCount(), 3);
}

void TestChartExport::writesEachFormat_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::addColumn<double>("scale");
    QTest::newRow("png") << "chart.png" << 800 << 450 << 1.0;
    QTest::newRow("png at scale 2") << "chart-2x.png" << 640 << 360 << 2.0;
    QTest::newRow("jpg") << "chart.jpg" << 800 << 450 << 1.0;
    QTest::newRow("jpeg at scale 1.5, upper case") << "chart.JPEG" << 500 << 300 << 1.5;
    QTest::newRow("pdf") << "chart.pdf" << 800 << 450 << 1.0;
    QTest::newRow("svg") << "chart.svg" << 800 << 450 << 1.0;
    QTest::newRow("svg at scale 2") << "chart-2x.svg" << 400 << 300 << 2.0;
}

void TestChartExport::writesEachFormat() {
    QFETCH(QString, file);
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(double, scale);
    const QString out = path(file);
    wb::gui::exportChart(chart_->plot(), out, width, height, scale);
    QVERIFY(QFileInfo(out).size() > 0);

    const QSize pixels(qRound(width * scale), qRound(height * scale));
    const QString suffix = QFileInfo(out).suffix().toLower();
    if (suffix == "png" || suffix == "jpg" || suffix == "jpeg") {
        const QImage image(out);
        QVERIFY(!image.isNull());
        QCOMPARE(image.size(), pixels);
    } else if (suffix == "pdf") {
        QVERIFY(readAll(out).startsWith("%PDF"));
    } else {
        QXmlStreamReader xml(readAll(out));
        while (!xml.atEnd() && !xml.isStartElement()) xml.readNext();
        QCOMPARE(xml.name().toString(), QString("svg"));
        QVERIFY(xml.attributes().hasAttribute("width"));
        QVERIFY(xml.attributes().hasAttribute("height"));
        QCOMPARE(xml.attributes().value("viewBox").toString(),
                 QString("0 0 %1 %2").arg(pixels.width()).arg(pixels.height()));
        while (!xml.atEnd()) xml.readNext();
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    }
}

void TestChartExport::refusesAnUnknownExtension() {
    const QString out = path("chart.bmp");
    QVERIFY_THROWS_EXCEPTION(wb::IoError, wb::gui::exportChart(chart_->plot(), out, 800, 450, 1.0));
    try {
        wb::gui::exportChart(chart_->plot(), out, 800, 450, 1.0);
    } catch (const wb::IoError& e) {
        QVERIFY2(QString(e.what()).contains("chart.bmp"), e.what());  // the message names the file
    }
    QVERIFY(!QFileInfo::exists(out));
}

void TestChartExport::reportsAWriteFailure_data() {
    QTest::addColumn<QString>("file");
    for (const char* name : {"chart.png", "chart.jpg", "chart.pdf", "chart.svg"}) QTest::newRow(name) << name;
}

void TestChartExport::reportsAWriteFailure() {
    QFETCH(QString, file);
    const QString out = path("no-such-folder/" + file);
    QVERIFY_THROWS_EXCEPTION(wb::IoError, wb::gui::exportChart(chart_->plot(), out, 800, 450, 1.0));
}

// /dev/full fails every write with ENOSPC, as a full disk does: a PDF export there exited 0 with a
// truncated file. Every format goes through the atomic writer, which refuses a device as the target.
void TestChartExport::aFullDiskIsAnError_data() {
    reportsAWriteFailure_data();
}

void TestChartExport::aFullDiskIsAnError() {
    QFETCH(QString, file);
    const QString full = path("full-" + file);
    QVERIFY(QFile::link("/dev/full", full));  // the extension tells the format
    QVERIFY_THROWS_EXCEPTION(wb::IoError, wb::gui::exportChart(chart_->plot(), full, 800, 450, 1.0));
    QVERIFY(QFileInfo("/dev/full").exists() && !QFileInfo("/dev/full").isFile());
}

void TestChartExport::exportsRunsAsCsv() {
    const QString out = path("runs.csv");
    wb::gui::exportRunsCsv(store_, ids_, out);
    const QStringList lines = QString::fromUtf8(readAll(out)).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 1 + 12 + 3);
    QVERIFY(lines[0].startsWith("run,epoch,warmup,train_loss"));
    QVERIFY(lines[1].startsWith("Seed PyTorch loop,1,1,0.7,"));
    QVERIFY(lines[13].startsWith("\"PyTorch, eager\",1,1,0.7,"));
    QVERIFY(lines[13].contains(",,"));  // the peer's nulls are empty cells
    const int columns = static_cast<int>(lines[0].count(','));
    QCOMPARE(static_cast<int>(lines[1].count(',')), columns);
}

void TestChartExport::exportsRunsAsJson() {
    const QString out = path("runs.json");
    wb::gui::exportRunsJson(store_, ids_, out);
    const auto runs = nlohmann::json::parse(readAll(out).toStdString());
    QVERIFY(runs.is_array());
    QCOMPARE(runs.size(), std::size_t(2));
    QCOMPARE(runs[0].at("schema").get<std::string>(), std::string(RunRecord::kSchema));
    QCOMPARE(runs[1].at("name").get<std::string>(), std::string("PyTorch, eager"));
    QCOMPARE(runs[0].at("epochs").size(), std::size_t(12));
    QVERIFY(RunRecord::fromJson(runs[1]).epochs.size() == 3);  // reads back
}

void TestChartExport::headlessExport_data() {
    QTest::addColumn<QString>("chart");
    QTest::addColumn<QStringList>("extra");
    QTest::newRow("loss") << "loss" << QStringList{};
    QTest::newRow("accuracy") << "accuracy" << QStringList{};
    QTest::newRow("epoch time, log scale") << "epoch-time" << QStringList{"--log"};
    QTest::newRow("loss, repeats as a band") << "loss" << QStringList{"--repeats", "median"};
    QTest::newRow("breakdown") << "breakdown" << QStringList{};
    QTest::newRow("speedup over the peer") << "speedup" << QStringList{"--baseline", "2"};
}

void TestChartExport::headlessExport() {
    QFETCH(QString, chart);
    QFETCH(QStringList, extra);
    const QString out = path("headless-" + chart + ".png");
    const QStringList args = QStringList{"mlp-workbench", "--export-chart", chart, "--runs", ourRunFile_,
                                         peerRunFile_,    "--out",          out,   "--size", "900x500"} +
                             extra;
    QCOMPARE(wb::gui::runHeadlessExport(args), 0);
    const QImage image(out);
    QCOMPARE(image.size(), QSize(900, 500));
}

void TestChartExport::headlessExportRefuses_data() {
    QTest::addColumn<QStringList>("args");  // after the program name; %1 = our run, %2 = the output folder
    QTest::addColumn<int>("exitCode");
    QTest::newRow("unknown chart") << QStringList{"--export-chart", "pie", "--runs", "%1", "--out", "%2/a.png"} << 2;
    QTest::newRow("no runs") << QStringList{"--export-chart", "loss", "--out", "%2/a.png"} << 2;
    QTest::newRow("no output") << QStringList{"--export-chart", "loss", "--runs", "%1"} << 2;
    QTest::newRow("bad size") << QStringList{"--export-chart", "loss",     "--runs", "%1",
                                             "--out",          "%2/a.png", "--size", "big"}
                              << 2;
    QTest::newRow("unknown format") << QStringList{"--export-chart", "loss", "--runs", "%1", "--out", "%2/a.gif"} << 2;
    QTest::newRow("repeats drawn no known way")
        << QStringList{"--export-chart", "loss", "--runs", "%1", "--out", "%2/a.png", "--repeats", "band"} << 2;
    QTest::newRow("baseline beyond the runs")
        << QStringList{"--export-chart", "speedup", "--runs", "%1", "--out", "%2/a.png", "--baseline", "2"} << 2;
    QTest::newRow("unknown flag") << QStringList{"--export-chart", "loss",     "--runs",   "%1",
                                                 "--out",          "%2/a.png", "--colour", "red"}
                                  << 2;
    QTest::newRow("missing run file") << QStringList{"--export-chart", "loss",  "--runs",
                                                     "%2/none.json",   "--out", "%2/a.png"}
                                      << 3;
    QTest::newRow("not a run file") << QStringList{"--export-chart", "loss",  "--runs",
                                                   "%2/runs.csv",    "--out", "%2/a.png"}
                                    << 3;
    QTest::newRow("unwritable output") << QStringList{"--export-chart",  "loss", "--runs", "%1", "--out",
                                                      "%2/missing/a.png"}
                                       << 6;
}

void TestChartExport::headlessExportRefuses() {
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    writeText(path("runs.csv"), "run,epoch\nA,1\n");
    QStringList full{"mlp-workbench"};
    for (const QString& a : args) full << QString(a).replace("%1", ourRunFile_).replace("%2", dir_.path());
    QCOMPARE(wb::gui::runHeadlessExport(full), exitCode);
}

// The real program, as a script calls it (ctest sets QT_QPA_PLATFORM=offscreen).
void TestChartExport::headlessExportFromTheCommandLine() {
    if (!QFileInfo::exists(WB_GUI_PATH)) QSKIP("mlp-workbench is not built");
    const QString out = path("cli.png");
    QProcess process;
    process.start(WB_GUI_PATH, {"--export-chart", "epoch-time", "--runs", ourRunFile_, peerRunFile_, "--out", out,
                                "--size", "1000x600"});
    QVERIFY(process.waitForFinished(60000));
    QCOMPARE(process.exitCode(), 0);
    QCOMPARE(QImage(out).size(), QSize(1000, 600));
}

void TestChartExport::exportedLegendListsOnlyShownRuns_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("svg") << "legend.svg";
    QTest::newRow("svg, twice the scale") << "legend-2x.svg";
}

// Two runs, one hidden: the window's legend keeps the hidden one (grey, a click shows it again), the
// exported chart's legend (read back from the SVG's text) names only the one it draws; afterwards the
// window's legend is as it was.
void TestChartExport::exportedLegendListsOnlyShownRuns() {
    QFETCH(QString, file);
    RunStore store;
    const int shown = store.addRecord(makeRecord("Shown run", 6, 30.0), QString());
    const int hidden = store.addRecord(makeRecord("Hidden run", 6, 50.0), QString());
    Q_UNUSED(shown);
    store.setVisible(hidden, false);
    MetricChart chart(&store, MetricChart::Kind::Loss);
    chart.refreshNow();
    auto legendTexts = [&] {
        QStringList texts;
        for (int i = 0; i < chart.plot().legend->itemCount(); ++i)
            if (auto* item = qobject_cast<QCPPlottableLegendItem*>(chart.plot().legend->item(i)))
                texts << item->plottable()->name();
        return texts;
    };
    const QStringList before = legendTexts();
    QVERIFY2(before.contains("Hidden run") && before.contains("Shown run"), qPrintable(before.join(", ")));

    const QString out = path(file);
    wb::gui::exportChart(chart.plot(), out, 800, 450, file.contains("2x") ? 2.0 : 1.0);
    QStringList texts;
    QXmlStreamReader xml(readAll(out));
    while (!xml.atEnd())
        if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QString("text"))
            texts << xml.readElementText(QXmlStreamReader::IncludeChildElements).trimmed();
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QVERIFY2(texts.contains("Shown run"), qPrintable(texts.join(" | ")));
    QVERIFY2(!texts.contains("Hidden run"), qPrintable(texts.join(" | ")));
    QCOMPARE(legendTexts(), before);
    for (int i = 0; i < chart.plot().legend->itemCount(); ++i)
        if (QCPAbstractLegendItem* item = chart.plot().legend->item(i)) QVERIFY(item->visible());
}

// A PDF export of 720 x 405 is a 720 x 405 pt page (10 x 5.625 inches), as poppler reads it.
void TestChartExport::pdfPageIsTheSizeAskedInPoints() {
    const QString pdfinfo = QStandardPaths::findExecutable("pdfinfo");
    if (pdfinfo.isEmpty()) QSKIP("pdfinfo (poppler-utils, scripts/setup.sh) is not installed");
    const QString out = path("page.pdf");
    wb::gui::exportChart(chart_->plot(), out, 720, 405);
    QProcess process;
    process.start(pdfinfo, {out});
    QVERIFY(process.waitForFinished(30000));
    QCOMPARE(process.exitCode(), 0);
    const QString info = QString::fromUtf8(process.readAllStandardOutput());
    QVERIFY2(info.contains(QRegularExpression("Page size:\\s+720 x 405 pts")), qPrintable(info));
}

// The dialog asks for an image in pixels and a PDF page in points, says which, and keeps each
// format's size when the other is chosen in between.
void TestChartExport::dialogAsksInTheUnitItWrites() {
    wb::gui::ExportDialog dialog("Loss");
    auto* width = dialog.findChild<QSpinBox*>("exportWidth");
    auto* height = dialog.findChild<QSpinBox*>("exportHeight");
    auto* output = dialog.findChild<QLabel*>("exportOutput");
    QVERIFY(width && height && output);
    dialog.setFormat(wb::gui::ChartFormat::Png);
    QCOMPARE(width->suffix(), QString(" px"));
    width->setValue(1200);
    height->setValue(700);
    QVERIFY2(output->text().contains("1200 × 700 px"), qPrintable(output->text()));

    dialog.setFormat(wb::gui::ChartFormat::Pdf);
    QCOMPARE(width->suffix(), QString(" pt"));
    QCOMPARE(height->suffix(), QString(" pt"));
    width->setValue(720);
    height->setValue(405);
    QCOMPARE(dialog.chartWidth(), 720);
    QCOMPARE(dialog.scale(), 1.0);
    QVERIFY2(output->text().contains("720 × 405 pt") && output->text().contains("254 × 143 mm"),
             qPrintable(output->text()));

    dialog.setFormat(wb::gui::ChartFormat::Svg);
    QCOMPARE(width->suffix(), QString(" px"));
    QCOMPARE(dialog.chartWidth(), 1200);
    QCOMPARE(dialog.chartHeight(), 700);
    dialog.setPath(path("again.pdf"));  // the format follows the extension, and the size its unit
    QCOMPARE(width->suffix(), QString(" pt"));
    QCOMPARE(dialog.chartWidth(), 720);
}

QTEST_MAIN(TestChartExport)
#include "tst_chart_export.moc"
