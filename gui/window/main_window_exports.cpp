// What leaves the window: the chart on the current tab, the selected runs' data, and the
// experiment report of what the window shows (the MainWindow's exports, apart from its wiring).
#include <QFileDialog>
#include <QMessageBox>
#include <QStatusBar>

#include <qcustomplot.h>

#include "core/platform/errors.h"
#include "gui/answer/answer_view.h"
#include "gui/charts/breakdown_chart.h"
#include "gui/charts/chart_export.h"
#include "gui/charts/export_dialog.h"
#include "gui/charts/metric_chart.h"
#include "gui/charts/speedup_chart.h"
#include "gui/charts/waterfall_chart.h"
#include "gui/report/experiment_report.h"
#include "gui/runs/run_store.h"
#include "gui/runs/runs_table_view.h"
#include "gui/sweeps/sweeps_view.h"
#include "gui/training/ablation_tab.h"
#include "gui/window/main_window.h"

namespace wb::gui {

void MainWindow::exportChart() {
    QCustomPlot* plot = nullptr;
    QWidget* current = tabs_->currentWidget();
    if (current == lossChart_ || current == accuracyChart_ || current == timeChart_)
        plot = &static_cast<MetricChart*>(current)->plot();
    else if (current == breakdownChart_)
        plot = &breakdownChart_->plot();
    else if (current == ablationTab_)
        plot = &ablationTab_->chart().plot();
    else if (current == sweepsView_)
        plot = sweepsView_->currentPlot();
    else
        plot = &speedupChart_->plot();
    if (!plot) {  // the Sweeps view's report: it is saved as text
        sweepsView_->saveReport();
        return;
    }
    ExportDialog dialog(
        current == sweepsView_ ? sweepsView_->currentChartName() : tabs_->tabText(tabs_->currentIndex()), this);
    if (dialog.exec() != QDialog::Accepted) return;
    try {
        wb::gui::exportChart(*plot, dialog.path(), dialog.chartWidth(), dialog.chartHeight(), dialog.scale());
        statusBar()->showMessage("Exported " + dialog.path(), 5000);
    } catch (const Error& e) {
        QMessageBox::warning(this, "Export failed", e.what());
    }
}

void MainWindow::exportRunData() {
    const std::vector<int> ids = runsView_->selectedRunIds();
    if (ids.empty()) {
        QMessageBox::information(this, "Export data", "Select one or more runs in the runs table first.");
        return;
    }
    // Runs restored hidden have their epochs in their files until asked for: asked for here.
    for (const int id : ids) store_->ensureEpochs(id);
    // JSON: the runs' RunRecords as one array, which Open runs reads back.
    const QString path =
        QFileDialog::getSaveFileName(this, "Export run data", "runs.csv", "CSV (*.csv);;JSON, run records (*.json)");
    if (path.isEmpty()) return;
    try {
        if (path.endsWith(".json", Qt::CaseInsensitive))
            exportRunsJson(*store_, ids, path);
        else
            exportRunsCsv(*store_, ids, path);
    } catch (const Error& e) {
        QMessageBox::warning(this, "Export failed", e.what());
    }
}

void MainWindow::exportReport() {
    ReportSources sources;
    if (answerView_->answer()) sources.answer = *answerView_->answer();
    if (ablationTab_->result()) sources.ablations.push_back(*ablationTab_->result());
    for (const RunEntry& run : store_->runs())
        if (run.visible && run.record.status != RunStatus::Running && !run.queued) sources.runs.push_back(run.record);
    if (sources.empty()) {
        QMessageBox::information(this, "Export report",
                                 "Nothing to report yet: answer the question, run an ablation, or show some runs.");
        return;
    }
    const QString path =
        QFileDialog::getSaveFileName(this, "Export report", "report.pdf", "PDF (*.pdf);;HTML, charts inline (*.html)");
    if (path.isEmpty()) return;
    try {
        writeReport(sources, path);
        statusBar()->showMessage("Wrote the report " + path, 10000);
    } catch (const Error& e) {
        QMessageBox::warning(this, "Export report failed", e.what());
    }
}

}  // namespace wb::gui
