// Every chart of the window readable at the window sizes people use: the window at 1,280×800,
// 1,400×900 and 1,920×1,080 (and with the welcome pane still open above the charts), filled with an
// answer of four engines, an ablation, the runs of that answer (a Compare's seed and fixed loops with
// repeats) and a 24-trial sweep that the built mlpwb trains, then every tab shown in turn and each of
// its charts drawn through a recorder of text (text_layout_probe.h); and every chart of a report of
// the same files, drawn as its PDF pages draw it. A text outside its chart, clipped, elided or on
// top of another fails, named with the tab or the caption, the size and the boxes.
#include <QMainWindow>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <memory>

#include <qcustomplot.h>

#include "core/measure/answer.h"
#include "gui/report/experiment_report.h"
#include "gui/report/report_document.h"
#include "gui/report/report_sources.h"
#include "gui/runs/run_folder.h"
#include "gui/runs/run_store.h"
#include "gui/training/ablation_tab.h"
#include "gui/training/metatypes.h"
#include "gui/window/main_window.h"
#include "tests/cli_runner.h"
#include "tests/gui/text_layout_probe.h"

using namespace wb;
using namespace wb::gui;

namespace {
const QString kDocs = QStringLiteral(WB_TEST_DATA_DIR "/../../docs/");
// An answer of four engines (ours on the CPU, PyTorch, Keras, JAX; CUDA unavailable), as
// `mlpwb answer --builtin` wrote it on a 2-core machine.
const QString kAnswer = QStringLiteral(WB_TEST_DATA_DIR "/answer-four-engines.json");
constexpr int kTimeoutMs = 300000;  // generous: the build machine is shared

// 3 batch sizes x 4 learning rates x 2 seeds, as the README's screenshot of the Sweeps tab.
const QByteArray kSweep24 =
    "name: s24\n"
    "method: grid\n"
    "metric: {name: val_loss, goal: minimize}\n"
    "repeats: 2\n"
    "parameters:\n"
    "  batch_size: {values: [256, 1024, 2048]}\n"
    "  lr: {values: [0.001, 0.003, 0.01, 0.03]}\n";

// The runs of an answer's PyTorch ablation, as a Compare would leave them: the seed loop and the
// fixed loop with their repeats, named apart.
void addAnswerRuns(RunStore& store, const Answer& answer) {
    const AnswerEngine* torch = answer.engine("torch");
    if (!torch || !torch->ablation) return;
    const AblationResult& a = *torch->ablation;
    int repeat = 0;
    for (const AblationStep* step : {a.seedLoop(), a.fixedLoop()})
        for (RunRecord run : step->runs) {
            run.name = step->name + " #" + std::to_string(++repeat);
            store.addRecord(run, QString(), true);
        }
}

// The QTabWidgets of the window whose pages hold charts, each tab made current in turn, and every
// visible plot on it probed: "Tab 'Loss', 1280x800: 'x' overlaps 'y'".
QStringList problemsOfEveryTab(QWidget& window, const QString& size) {
    QStringList problems;
    for (QTabWidget* tabs : window.findChildren<QTabWidget*>()) {
        for (int i = 0; i < tabs->count(); ++i) {
            tabs->setCurrentIndex(i);
            QCoreApplication::processEvents();
            // For a person to look at: MLPWB_LAYOUT_SHOTS=DIR saves the window as each tab shows it.
            if (const QString shots = qEnvironmentVariable("MLPWB_LAYOUT_SHOTS"); !shots.isEmpty()) {
                if (auto* main = qobject_cast<QMainWindow*>(&window)) main->statusBar()->clearMessage();
                window.grab().save(QString("%1/%2-%3.png").arg(shots, size, tabs->tabText(i).replace('/', '-')));
            }
            for (QCustomPlot* plot : tabs->widget(i)->findChildren<QCustomPlot*>()) {
                if (!plot->isVisible() || plot->width() < 10) continue;
                plot->replot();
                for (const QString& p : test::layoutProblems(test::drawnTexts(*plot), plot->size()))
                    problems << QString("tab '%1', %2 (plot %3x%4): %5")
                                    .arg(tabs->tabText(i), size)
                                    .arg(plot->width())
                                    .arg(plot->height())
                                    .arg(p);
            }
        }
    }
    return problems;
}
}  // namespace

class TestWindowLayout : public QObject {
    Q_OBJECT

    std::unique_ptr<QTemporaryDir> runFolder_;
    QTemporaryDir dir_;  // the sweep

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("MLP Workbench tests");
        QCoreApplication::setApplicationName("tst_window_layout");
        QSettings().clear();
        // The window as it is used once the welcome pane has been read and closed: with data in every
        // chart (the pane is for the first minutes, before there is any).
        QSettings().setValue("welcome/dismissed", true);
        registerMetaTypes();
        runFolder_ = std::make_unique<QTemporaryDir>();
        QVERIFY(runFolder_->isValid());
        setRunFolder(runFolder_->path());
        QVERIFY(dir_.isValid());
        QFile spec(dir_.filePath("s24.yaml"));
        QVERIFY(spec.open(QIODevice::WriteOnly));
        spec.write(kSweep24);
        spec.close();
        const MlpwbResult r = runMlpwb(
            {"sweep", "s24.yaml", "--out", "s24", "--builtin", "--rows", "1000", "--epochs", "3", "--val-split", "0.2"},
            dir_.path(), kTimeoutMs);
        QVERIFY2(r.finished && r.exitCode == 0, r.describe().constData());
    }

    void everyChartIsReadable_data() {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<bool>("welcome");  // the welcome pane still open above the charts
        QTest::newRow("1280x800") << QSize(1280, 800) << false;
        QTest::newRow("1400x900") << QSize(1400, 900) << false;
        QTest::newRow("1920x1080") << QSize(1920, 1080) << false;
        QTest::newRow("1280x800, welcome pane open") << QSize(1280, 800) << true;
        QTest::newRow("1400x900, welcome pane open") << QSize(1400, 900) << true;
    }

    void everyChartIsReadable() {
        QFETCH(QSize, size);
        QFETCH(bool, welcome);
        QSettings().setValue("welcome/dismissed", !welcome);
        MainWindow window;
        window.resize(size);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const Answer answer = Answer::load(kAnswer.toStdString());
        window.openAnswer(kAnswer);
        window.ablationTab().loadResult(kDocs + "ablation-torch.json");
        addAnswerRuns(window.store(), answer);
        window.openSweep(dir_.filePath("s24"));
        QCoreApplication::processEvents();
        const QStringList problems = problemsOfEveryTab(window, QTest::currentDataTag());
        for (const QString& p : problems) qWarning().noquote() << p;  // every one: a failure message is cut short
        QSettings().setValue("welcome/dismissed", true);
        QVERIFY2(problems.isEmpty(), qPrintable(QString("%1 unreadable texts, listed above").arg(problems.size())));
    }

    // The report's charts are laid out at one size whatever the page: each drawn as the PDF draws it.
    void everyReportChartIsReadable() {
        const ReportSources sources = loadReportSources({kAnswer, kDocs + "ablation-torch.json", dir_.filePath("s24")});
        const ReportDocument doc = buildReport(sources);
        const auto charts = doc.charts();
        QVERIFY2(charts.size() >= 10, qPrintable(QString("%1 charts").arg(charts.size())));  // runs, 4 engines x 2, ...
        QStringList problems;
        for (const ReportDocument::Chart& c : charts) {
            const auto texts = test::drawnTexts(
                c.layout, [&](QCPPainter& painter) { ReportDocument::paintChart(painter, *c.plot, c.layout); });
            QVERIFY2(!texts.empty(), qPrintable(c.caption));  // the recorder saw the chart
            for (const QString& p : test::layoutProblems(texts, c.layout))
                problems << QString("report chart '%1' (%2x%3): %4")
                                .arg(c.caption.left(60))
                                .arg(c.layout.width())
                                .arg(c.layout.height())
                                .arg(p);
        }
        for (const QString& p : problems) qWarning().noquote() << p;
        QVERIFY2(problems.isEmpty(), qPrintable(QString("%1 unreadable texts, listed above").arg(problems.size())));
    }
};

QTEST_MAIN(TestWindowLayout)
#include "tst_window_layout.moc"
