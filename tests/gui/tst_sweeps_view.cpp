// The Sweeps view on real sweep folders that the built mlpwb trains: the trial table (states,
// parameters, the metric, the best trial in bold, numeric sorting, the text filter), the
// parallel-coordinates brushes that filter it, the selection that overlays trials in the window's
// charts, the exports (CSV table, PNG/PDF/SVG charts), the report, a sweep followed live while it
// runs, and the New sweep dialog whose file and options mlpwb accepts (or refuses, said where the
// user acted).
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <memory>

#include "core/platform/errors.h"
#include "gui/charts/chart_export.h"
#include "gui/runs/run_folder.h"
#include "gui/runs/run_store.h"
#include "gui/sweeps/new_sweep_dialog.h"
#include "gui/sweeps/parallel_coordinates_chart.h"
#include "gui/sweeps/sweep_filter_model.h"
#include "gui/sweeps/sweep_launcher.h"
#include "gui/sweeps/sweep_table_model.h"
#include "gui/sweeps/sweep_watcher.h"
#include "gui/sweeps/sweeps_view.h"
#include "gui/training/metatypes.h"
#include "gui/window/main_window.h"
#include "tests/gui/message_box_catcher.h"
#include "tests/sweep_support.h"
#include "tests/test_support.h"

using namespace wb;
using namespace wb::gui;

namespace {
constexpr int kTimeoutMs = 180000;  // generous: the build machine is shared
const QStringList kQuickBase = {"--builtin", "--rows", "2000", "--epochs", "4", "--val-split", "0.2"};

// The cells of one column as shown (filtered, sorted), top to bottom.
QStringList columnTexts(const QTableView& table, int column) {
    QStringList texts;
    for (int r = 0; r < table.model()->rowCount(); ++r) texts << table.model()->index(r, column).data().toString();
    return texts;
}

// The table column headed `name`, -1 when none is.
int columnNamed(const QTableView& table, const QString& name) {
    for (int c = 0; c < table.model()->columnCount(); ++c)
        if (table.model()->headerData(c, Qt::Horizontal).toString().startsWith(name)) return c;
    return -1;
}
}  // namespace

class TestSweepsView : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    QString grid_;  // a completed 2 x 3 grid (batch_size x lr)

    QString path(const QString& name) const { return dir_.filePath(name); }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        registerMetaTypes();
        QVERIFY(dir_.isValid());
        writeText(path("grid.yaml"), kGridSpec);
        grid_ = path("grid");
        RUN_MLPWB(r, QStringList({"sweep", "grid.yaml", "--out", "grid"}) + kQuickBase);
        QVERIFY2(r.exitCode == 0, r.describe());
    }

    void showsEveryTrialWithItsParametersAndMetric() {
        SweepsView view;
        QVERIFY(view.openSweep(grid_));
        QCOMPARE(view.table().model()->rowCount(), 6);
        QCOMPARE(columnTexts(view.table(), SweepTableModel::kStateColumn), QStringList(6, "completed"));
        const int batch = columnNamed(view.table(), "batch_size"), lr = columnNamed(view.table(), "lr"),
                  loss = columnNamed(view.table(), "val_loss");
        QVERIFY(batch >= 0 && lr >= 0 && loss >= 0);
        // The grid's odometer: the last parameter turns fastest.
        QCOMPARE(columnTexts(view.table(), batch), QStringList({"256", "256", "256", "1024", "1024", "1024"}));
        QCOMPARE(columnTexts(view.table(), lr).mid(0, 3), QStringList({"0.001", "0.003", "0.01"}));
        // The metric is each trial's RunRecord figure, the one `mlpwb sweep status` reports.
        const MlpwbResult status = runMlpwb({"sweep", "status", grid_, "--json"}, dir_.path(), kTimeoutMs);
        QCOMPARE(status.exitCode, 0);
        const auto trials = nlohmann::json::parse(status.out.toStdString()).at("trials");
        for (int row = 0; row < 6; ++row) {
            const double shown = view.table().model()->index(row, loss).data(SweepTableModel::kSortRole).toDouble();
            QCOMPARE(shown, trials.at(static_cast<std::size_t>(row)).at("val_loss").get<double>());
        }
        QVERIFY(view.findChild<QLabel*>("sweepSummary")->text().contains("6 trials — 6 completed"));
        // The sweep's own name heads the summary, its folder beside it.
        QVERIFY2(view.findChild<QLabel*>("sweepSummary")->text().startsWith("grid6 (grid): "),
                 qPrintable(view.findChild<QLabel*>("sweepSummary")->text()));
        // States and numbers whole: never broken over two lines, each column as wide as its texts.
        QVERIFY(!view.table().wordWrap());
        const QFontMetrics metrics(view.table().font());
        for (const int column : {int(SweepTableModel::kStateColumn), lr, loss})
            for (const QString& text : columnTexts(view.table(), column))
                QVERIFY2(view.table().columnWidth(column) >= metrics.horizontalAdvance(text),
                         qPrintable(QString("column %1 narrower than '%2'").arg(column).arg(text)));
    }

    // The best trial (lowest val_loss here) is bold in the table and named in the summary.
    void marksTheBestTrial() {
        SweepsView view;
        QVERIFY(view.openSweep(grid_));
        const int loss = columnNamed(view.table(), "val_loss");
        int bestRow = 0;
        for (int row = 1; row < 6; ++row)
            if (view.table().model()->index(row, loss).data(SweepTableModel::kSortRole).toDouble() <
                view.table().model()->index(bestRow, loss).data(SweepTableModel::kSortRole).toDouble())
                bestRow = row;
        for (int row = 0; row < 6; ++row) {
            const QVariant font = view.table().model()->index(row, 0).data(Qt::FontRole);
            QCOMPARE(font.isValid() && font.value<QFont>().bold(), row == bestRow);
        }
        const QString id = view.table().model()->index(bestRow, SweepTableModel::kIdColumn).data().toString();
        QVERIFY2(view.findChild<QLabel*>("sweepSummary")->text().contains("best: trial " + id),
                 qPrintable(view.findChild<QLabel*>("sweepSummary")->text()));
        QVERIFY(view.reportText().contains("Best: trial " + id + " "));
    }

    // Numbers sort as numbers (0.01 after 0.003), not as text.
    void sortsNumerically() {
        SweepsView view;
        QVERIFY(view.openSweep(grid_));
        const int lr = columnNamed(view.table(), "lr");
        view.table().sortByColumn(lr, Qt::DescendingOrder);
        QCOMPARE(columnTexts(view.table(), lr), QStringList({"0.01", "0.01", "0.003", "0.003", "0.001", "0.001"}));
        const int loss = columnNamed(view.table(), "val_loss");
        view.table().sortByColumn(loss, Qt::AscendingOrder);
        double last = -1;
        for (int row = 0; row < 6; ++row) {
            const double v = view.table().model()->index(row, loss).data(SweepTableModel::kSortRole).toDouble();
            QVERIFY(v >= last);
            last = v;
        }
    }

    void filtersByText_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("rows");
        QTest::newRow("a batch size") << "1024" << 3;
        QTest::newRow("a learning rate") << "0.003" << 2;
        QTest::newRow("a state, any case") << "COMPLETED" << 6;
        QTest::newRow("nothing matches") << "adamw" << 0;
        QTest::newRow("empty") << "" << 6;
    }
    void filtersByText() {
        QFETCH(QString, text);
        QFETCH(int, rows);
        SweepsView view;
        QVERIFY(view.openSweep(grid_));
        view.findChild<QLineEdit*>("sweepFilter")->setText(text);
        QCOMPARE(view.table().model()->rowCount(), rows);
    }

    // A brush on the batch-size axis (the first) keeps the trials inside it, in the table and as
    // coloured lines; a second brush on the learning rate narrows further; clearing restores all.
    void brushingAnAxisFiltersTheTable() {
        SweepsView view;
        QVERIFY(view.openSweep(grid_));
        QCOMPARE(view.parallel().trialLineCount(), 6);
        view.parallel().brush(0, 0.0, 0.4);  // batch 256 sits at 0, 1024 at 1
        const int batch = columnNamed(view.table(), "batch_size");
        QCOMPARE(columnTexts(view.table(), batch), QStringList(3, "256"));
        view.parallel().brush(1, 0.6, 1.0);  // the top of the learning-rate axis: 0.01
        QCOMPARE(view.table().model()->rowCount(), 1);
        QCOMPARE(view.table().model()->index(0, columnNamed(view.table(), "lr")).data().toString(), QString("0.01"));
        view.findChild<QPushButton*>("clearBrushesButton")->click();
        QCOMPARE(view.table().model()->rowCount(), 6);
        QCOMPARE(view.parallel().trialLineCount(), 6);
    }

    // Selecting trials asks for their RunRecords; the window shows them in its charts.
    void selectedTrialsOverlayInTheCharts() {
        QTemporaryDir runs;
        setRunFolder(runs.path());
        MainWindow window;
        window.openSweep(grid_);
        SweepsView& view = window.sweepsView();
        QSignalSpy overlay(&view, &SweepsView::overlayRequested);
        const std::size_t before = window.store().runs().size();
        view.table().selectionModel()->select(view.table().model()->index(0, 0),
                                              QItemSelectionModel::Select | QItemSelectionModel::Rows);
        view.table().selectionModel()->select(view.table().model()->index(4, 0),
                                              QItemSelectionModel::Select | QItemSelectionModel::Rows);
        QVERIFY(!overlay.isEmpty());
        const QStringList paths = overlay.last().at(0).toStringList();
        QCOMPARE(paths.size(), 2);
        QVERIFY(paths.at(0).endsWith("trials/0000/run.json"));
        QVERIFY(paths.at(1).endsWith("trials/0004/run.json"));
        QCOMPARE(window.store().runs().size(), before + 2);
        // Selecting them again shows the same runs, it does not open them twice.
        view.table().clearSelection();
        view.table().selectRow(0);
        QCOMPARE(window.store().runs().size(), before + 2);
    }

    // The table exports as shown: filtered and sorted.
    void exportsTheTableAsShown() {
        SweepsView view;
        QVERIFY(view.openSweep(grid_));
        view.findChild<QLineEdit*>("sweepFilter")->setText("1024");
        view.table().sortByColumn(columnNamed(view.table(), "lr"), Qt::DescendingOrder);
        view.exportTable(path("table.csv"));
        const QStringList lines = readAll(path("table.csv")).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 4);
        QVERIFY2(lines.at(0).startsWith("Trial,State,batch_size,lr,val_loss"), qPrintable(lines.at(0)));
        QVERIFY(lines.at(1).startsWith("5,completed,1024,0.01,"));
        QVERIFY(lines.at(3).startsWith("3,completed,1024,0.001,"));
        QVERIFY_THROWS_EXCEPTION(wb::IoError, view.exportTable(path("no-such-dir/table.csv")));
    }

    void exportsTheCharts_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QByteArray>("magic");
        QTest::newRow("png") << "chart.png" << QByteArray("\x89PNG");
        QTest::newRow("pdf") << "chart.pdf" << QByteArray("%PDF");
        QTest::newRow("svg") << "chart.svg" << QByteArray("<?xml");
    }
    void exportsTheCharts() {
        QFETCH(QString, file);
        QFETCH(QByteArray, magic);
        SweepsView view;
        QVERIFY(view.openSweep(grid_));
        QCustomPlot* plot = view.currentPlot();
        QVERIFY(plot);
        exportChart(*plot, path(file), 800, 500);
        QFile out(path(file));
        QVERIFY(out.open(QIODevice::ReadOnly));
        QVERIFY(out.size() > 1000);
        QVERIFY(out.read(magic.size()) == magic);
    }

    // The same charts for scripts, without a window (mlp-workbench --export-chart ... --sweep DIR).
    void exportsTheChartsHeadless_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode");
        QTest::newRow("parallel coordinates") << QStringList({"parallel-coordinates", "--sweep", "grid"}) << 0;
        QTest::newRow("metric by lr") << QStringList({"metric-by-parameter", "--sweep", "grid", "--parameter", "lr"})
                                      << 0;
        QTest::newRow("no such parameter")
            << QStringList({"metric-by-parameter", "--sweep", "grid", "--parameter", "width"}) << 2;
        QTest::newRow("no --sweep") << QStringList({"parallel-coordinates"}) << 2;
        QTest::newRow("not a sweep folder") << QStringList({"parallel-coordinates", "--sweep", "."}) << 3;
    }
    void exportsTheChartsHeadless() {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFile::remove(path("headless.png"));
        QProcess gui;
        gui.setWorkingDirectory(dir_.path());
        gui.start(QStringLiteral(WB_GUI_PATH),
                  QStringList{"--export-chart"} + args + QStringList{"--out", "headless.png"});
        QVERIFY(gui.waitForFinished(kTimeoutMs));
        QCOMPARE(gui.exitCode(), exitCode);
        QCOMPARE(QFileInfo(path("headless.png")).size() > 1000, exitCode == 0);
        if (exitCode != 0) {  // one line says why (Qt may have warned before it)
            const QString err = QString::fromUtf8(gui.readAllStandardError()).trimmed();
            QVERIFY2(err.section('\n', -1).startsWith("mlp-workbench: "), qPrintable(err));
        }
    }

    void refusesAFolderThatHoldsNoSweep() {
        SweepsView view;
        QVERIFY(view.openSweep(grid_));
        MessageBoxCatcher catcher;
        catcher.arm();
        QVERIFY(!view.openSweep(dir_.path()));
        QVERIFY2(catcher.text.contains("no sweep folder"), qPrintable(catcher.text));
        QCOMPARE(view.table().model()->rowCount(), 6);  // the open sweep stays
    }

    // A sweep started from the GUI (mlpwb, detached) is followed while it runs: the view sees trials
    // still pending or running, then all of them completed, without being asked.
    void followsASweepLiveWhileItRuns() {
        writeText(path("live.yaml"),
                  "method: grid\nmetric: {name: val_loss, goal: minimize}\n"
                  "parameters:\n  lr: {values: [0.001, 0.002, 0.004, 0.008]}\n");
        const QString out = path("live");
        QCOMPARE(launchSweep({path("live.yaml"), out, {"--engine", "local", "--jobs", "1"}, kQuickBase}), QString());
        QVERIFY(waitFor([&] { return sweep::SweepFolder::isSweepFolder(out.toStdString()); }, 30));
        SweepsView view;
        view.watcher().setInterval(50);
        QVERIFY(view.openSweep(out));
        QCOMPARE(view.table().model()->rowCount(), 4);
        bool sawUnfinished = false;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                const QStringList states = columnTexts(view.table(), SweepTableModel::kStateColumn);
                if (states.count("completed") < 4) sawUnfinished = true;
                return states.count("completed") == 4;
            }(),
            kTimeoutMs);
        QVERIFY(sawUnfinished);
        QVERIFY(view.findChild<QLabel*>("sweepSummary")->text().contains("4 completed"));
        QVERIFY(QFileInfo::exists(out + ".log"));
    }

    // What the dialog writes is a sweep mlpwb accepts: the parameters, method, repeats and engine.
    void newSweepDialogWritesASweepMlpwbAccepts_data() {
        QTest::addColumn<QString>("method");
        QTest::addColumn<QString>("engine");
        QTest::addColumn<QStringList>("parameter");  // name, values
        QTest::addColumn<int>("trials");
        QTest::newRow("grid, local") << "grid"
                                     << "local" << QStringList({"batch_size", "256 1024"}) << 4;
        QTest::newRow("grid of layer widths") << "grid"
                                              << "local" << QStringList({"layers", "20,10 64,32"}) << 4;
        QTest::newRow("random, log range") << "random"
                                           << "local" << QStringList({"lr", "log 0.0001..0.01"}) << 40;  // run_cap 20
        QTest::newRow("grid on SLURM") << "grid"
                                       << "slurm" << QStringList({"optimizer", "adam sgd"}) << 4;
    }
    void newSweepDialogWritesASweepMlpwbAccepts() {
        QFETCH(QString, method);
        QFETCH(QString, engine);
        QFETCH(QStringList, parameter);
        QFETCH(int, trials);
        NewSweepDialog dialog;
        dialog.setMethod(method);
        dialog.setEngine(engine);
        dialog.setRepeats(2);
        dialog.addParameter(parameter.at(0), parameter.at(1));
        dialog.setOutDir(path(QString("dialog-%1").arg(QTest::currentDataTag()).replace(' ', '-')));
        QCOMPARE(dialog.problem(), QString());
        QVERIFY(dialog.engineArgs().contains(engine));
        writeText(path("dialog.yaml"), dialog.specYaml().toUtf8());
        RUN_MLPWB(r, QStringList({"sweep", "dialog.yaml", "--out", dialog.outDir(), "--dry-run"}) +
                         dialog.engineArgs() + kQuickBase);
        QVERIFY2(r.exitCode == 0, r.describe() + "\n--- spec:\n" + dialog.specYaml().toUtf8());
        QVERIFY2(r.err.contains("sweep: " + QByteArray::number(trials) + " trials"), r.describe());
        if (engine == "slurm")
            QVERIFY2(r.out.contains("#SBATCH --array=0-" + QByteArray::number(trials - 1)), r.describe());
        QVERIFY(!QFileInfo::exists(dialog.outDir()));  // a dry run writes nothing
    }

    // The dialog keeps what it was accepted with for the next sweep, greys "Trials at once" while
    // "one trial at a time" is ticked, and shows a parameter's whole name.
    void newSweepDialogRemembersItsSettings() {
        {
            NewSweepDialog dialog;
            dialog.setMethod("random");
            dialog.setRepeats(3);
            dialog.addParameter("weight_decay", "0 0.0001 0.001");
            dialog.setOutDir(path("remembered"));
            auto* exclusive = dialog.findChild<QCheckBox*>("sweepExclusive");
            auto* jobs = dialog.findChild<QSpinBox*>("sweepJobs");
            QVERIFY(exclusive && jobs);
            QVERIFY(jobs->isEnabled());
            exclusive->setChecked(true);
            QVERIFY(!jobs->isEnabled());
            auto* table = dialog.findChild<QTableWidget*>("sweepParameters");
            const auto* name = qobject_cast<QComboBox*>(table->cellWidget(0, 0));
            QVERIFY(table->columnWidth(0) >= name->fontMetrics().horizontalAdvance("weight_decay"));
            dialog.accept();
            QCOMPARE(dialog.result(), int(QDialog::Accepted));
        }
        NewSweepDialog again;
        QCOMPARE(again.parameterCount(), 1);
        QVERIFY(again.specYaml().contains("method: random"));
        QVERIFY(again.specYaml().contains("repeats: 3"));
        QVERIFY(again.specYaml().contains("weight_decay: {values: [0, 0.0001, 0.001]}"));
        QVERIFY(again.engineArgs().contains("--exclusive"));
        QVERIFY(!again.findChild<QSpinBox*>("sweepJobs")->isEnabled());
        QSettings().remove("newSweep");  // the next tests start from a first sweep
    }

    void newSweepDialogSaysWhatIsMissing() {
        NewSweepDialog dialog;
        dialog.setOutDir(path("x"));
        QVERIFY(!dialog.problem().isEmpty());  // no parameter yet
        dialog.addParameter("lr", "");
        QVERIFY(dialog.problem().contains("lr"));
        dialog.addParameter("batch_size", "256");
        dialog.setOutDir("");
        QVERIFY(dialog.problem().contains("folder"));
    }

    // A sweep file mlpwb refuses is not started; the reason is mlpwb's own line.
    void aRefusedSweepIsNotStartedAndSaysWhy() {
        writeText(path("bad.yaml"), "method: grid\nparameters:\n  lr: {values: [0.001, -1]}\n");
        const QString why = launchSweep({path("bad.yaml"), path("bad"), {"--engine", "local"}, kQuickBase});
        QVERIFY2(why.contains("bad.yaml:3") && why.contains("lr"), qPrintable(why));
        QVERIFY(!QFileInfo::exists(path("bad")));
    }
};

QTEST_MAIN(TestSweepsView)
#include "tst_sweeps_view.moc"
