#include "gui/sweeps/sweeps_view.h"

#include <algorithm>
#include <cmath>

#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QThread>
#include <QVBoxLayout>

#include "core/platform/atomic_file.h"
#include "core/platform/errors.h"
#include "core/run/train_command_line.h"
#include "gui/sweeps/metric_by_parameter_chart.h"
#include "gui/sweeps/new_sweep_dialog.h"
#include "gui/sweeps/parallel_coordinates_chart.h"
#include "gui/sweeps/sweep_filter_model.h"
#include "gui/sweeps/sweep_launcher.h"
#include "gui/sweeps/sweep_table_model.h"
#include "gui/sweeps/sweep_watcher.h"
#include "sweep/sweep_report.h"

namespace wb::gui {

namespace {
QPushButton* button(const QString& text, const QString& objectName) {
    auto* b = new QPushButton(text);
    b->setObjectName(objectName);
    return b;
}
}  // namespace

SweepsView::SweepsView(QWidget* parent) : QWidget(parent) {
    buildModels();
    buildTable();
    buildCharts();
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(buildTableBox());
    split->addWidget(charts_);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buildTopRow());
    layout->addWidget(summary_);  // a row of its own: the whole width for the states and the best trial
    layout->addWidget(split, 1);
    connectSignals();
}

void SweepsView::buildModels() {
    watcher_ = new SweepWatcher(this);
    model_ = new SweepTableModel(this);
    filter_ = new SweepFilterModel(this);
    filter_->setSourceModel(model_);
    filter_->setPosition([this](int row, std::size_t axis) -> std::optional<double> {
        const auto& views = watcher_->views();
        if (row < 0 || static_cast<std::size_t>(row) >= views.size() || axis >= axes_.size()) return std::nullopt;
        return axes_.position(axis, views[static_cast<std::size_t>(row)]);
    });
}

void SweepsView::buildTable() {
    table_ = new QTableView;
    table_->setObjectName("sweepTable");
    table_->setModel(filter_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(SweepTableModel::kIdColumn, Qt::AscendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    table_->horizontalHeader()->setStretchLastSection(true);
    // A number or a state elided if it must be, never broken over two lines ("0.\n003").
    table_->setWordWrap(false);
    table_->horizontalHeader()->setResizeContentsPrecision(256);  // rows sampled for a column's width
    table_->verticalHeader()->setVisible(false);
}

// Each column at least as wide as its contents now ("completed" where it said "pending"), never
// narrower than the user made it.
void SweepsView::widenColumnsToContents() {
    for (int c = 0; c < filter_->columnCount(); ++c) {
        const QAbstractItemView* view = table_;  // (QTableView hides sizeHintForColumn)
        const int wanted = std::max(view->sizeHintForColumn(c), table_->horizontalHeader()->sectionSizeHint(c));
        if (table_->columnWidth(c) < wanted) table_->setColumnWidth(c, wanted);
    }
}

void SweepsView::buildCharts() {
    parallel_ = new ParallelCoordinatesChart;
    byParameter_ = new MetricByParameterChart;
    report_ = new QPlainTextEdit;
    report_->setObjectName("sweepReport");
    report_->setReadOnly(true);
    report_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    charts_ = new QTabWidget;
    charts_->addTab(parallel_, "Parallel coordinates");
    charts_->addTab(byParameter_, "Metric by parameter");
    charts_->addTab(report_, "Report");
}

// The filter and the brushes' reset above the table they narrow.
QWidget* SweepsView::buildTableBox() {
    filterText_ = new QLineEdit;
    filterText_->setObjectName("sweepFilter");
    filterText_->setPlaceholderText("Filter trials (any column)");
    filterText_->setClearButtonEnabled(true);
    auto* clearBrushes = button("Clear brushes", "clearBrushesButton");
    connect(clearBrushes, &QPushButton::clicked, parallel_, &ParallelCoordinatesChart::clearBrushes);
    auto* tableBox = new QWidget;
    auto* tableLayout = new QVBoxLayout(tableBox);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    auto* filterRow = new QHBoxLayout;
    filterRow->addWidget(filterText_, 1);
    filterRow->addWidget(clearBrushes);
    tableLayout->addLayout(filterRow);
    tableLayout->addWidget(table_);
    return tableBox;
}

QHBoxLayout* SweepsView::buildTopRow() {
    auto* open = button("Open sweep…", "openSweepButton");
    auto* create = button("New sweep…", "newSweepButton");
    auto* exportTable = button("Export table…", "exportSweepTableButton");
    auto* report = button("Save report…", "saveSweepReportButton");
    connect(open, &QPushButton::clicked, this, &SweepsView::openSweepDialog);
    connect(create, &QPushButton::clicked, this, &SweepsView::newSweep);
    connect(exportTable, &QPushButton::clicked, this, &SweepsView::exportTableDialog);
    connect(report, &QPushButton::clicked, this, &SweepsView::saveReport);
    summary_ = new QLabel("Open a sweep folder, or start a sweep from the current configuration.");
    summary_->setObjectName("sweepSummary");
    auto* top = new QHBoxLayout;
    for (QWidget* w : std::initializer_list<QWidget*>{open, create, exportTable, report}) top->addWidget(w);
    top->addStretch(1);
    return top;
}

void SweepsView::connectSignals() {
    connect(filterText_, &QLineEdit::textChanged, filter_, &SweepFilterModel::setText);
    connect(watcher_, &SweepWatcher::changed, this, &SweepsView::rebuild);
    connect(parallel_, &ParallelCoordinatesChart::brushChanged, this, [this](std::size_t axis, double lo, double hi) {
        filter_->setBrush(axis, lo, hi);
        redrawParallel();
    });
    connect(parallel_, &ParallelCoordinatesChart::brushCleared, this, [this](std::size_t axis) {
        filter_->clearBrush(axis);
        redrawParallel();
    });
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, &SweepsView::selectionChanged);
}

bool SweepsView::openSweep(const QString& dir) {
    try {
        filter_->clearBrushes();
        watcher_->open(dir);
    } catch (const Error& e) {
        QMessageBox::warning(this, "Open sweep", QString("%1 is no sweep folder: %2").arg(dir, e.what()));
        return false;
    }
    rebuild();
    table_->resizeColumnsToContents();
    emit status("Following the sweep in " + dir);
    return true;
}

void SweepsView::openSweepDialog() {
    const QString dir = QFileDialog::getExistingDirectory(this, "Open sweep folder");
    if (!dir.isEmpty()) openSweep(dir);
}

void SweepsView::rebuild() {
    if (!watcher_->isOpen()) {
        model_->setTrials(nullptr, nullptr, std::nullopt);
        byParameter_->clear();
        return;
    }
    const auto& plan = watcher_->plan();
    const auto& views = watcher_->views();
    axes_ = SweepAxes::build(plan, views);
    model_->setTrials(&plan, &views, watcher_->best());
    const auto r = sweep::makeReport(plan, views);
    const QString folder = QFileInfo(watcher_->dir()).fileName();
    const QString title = plan.name.empty() ? folder : QString::fromStdString(plan.name) + " (" + folder + ")";
    // The completed count, then only the states some trial is in: one line that fits the view.
    QString text = QString("%1: %2 trials — %3 completed").arg(title).arg(r.total).arg(r.completed);
    for (const auto& [count, state] :
         {std::pair{r.running, "running"}, std::pair{r.pending, "pending"}, std::pair{r.failed, "failed"},
          std::pair{r.cancelled, "cancelled"}, std::pair{r.damaged, "damaged (see the table)"}})
        if (count > 0) text += QString(", %1 %2").arg(count).arg(state);
    if (!r.earlyTermination.empty())  // the whole sentence is in the report and the tooltip
        text += QString(", %1 stopped early (%2 % of epochs saved)").arg(r.stopped).arg(std::lround(r.savedPercent()));
    if (r.bestId)
        text +=
            QString(" · best: trial %1, %2 %3")
                .arg(*r.bestId)
                .arg(QString::fromStdString(r.metric.name), QString::fromStdString(sweep::figureText(r.bestMetric)));
    summary_->setText(text);
    summary_->setToolTip(r.earlyTermination.empty()
                             ? QString()
                             : "Early termination: " + QString::fromStdString(sweep::savedEpochsText(r)));
    report_->setPlainText(QString::fromStdString(sweep::reportText(r)));
    byParameter_->setTrials(plan, views, axes_, watcher_->best());
    redrawParallel();
    widenColumnsToContents();
}

void SweepsView::redrawParallel() {
    if (!watcher_->isOpen()) return;
    const auto& views = watcher_->views();
    std::vector<bool> inside(views.size()), selected(views.size(), false);
    for (std::size_t i = 0; i < views.size(); ++i) inside[i] = filter_->insideBrushes(static_cast<int>(i));
    for (const QModelIndex& index : table_->selectionModel()->selectedRows())
        selected[static_cast<std::size_t>(filter_->mapToSource(index).row())] = true;
    parallel_->setTrials(axes_, views, watcher_->plan().metric, watcher_->best(), inside, selected, filter_->brushes());
}

void SweepsView::selectionChanged() {
    QStringList paths;
    for (const QModelIndex& index : table_->selectionModel()->selectedRows()) {
        const QString path = watcher_->recordPath(model_->trialId(filter_->mapToSource(index).row()));
        if (QFileInfo::exists(path)) paths << path;
    }
    redrawParallel();
    if (!paths.isEmpty()) emit overlayRequested(paths);
}

QCustomPlot* SweepsView::currentPlot() {
    if (charts_->currentWidget() == parallel_) return &parallel_->plot();
    if (charts_->currentWidget() == byParameter_) return &byParameter_->plot();
    return nullptr;
}

QString SweepsView::currentChartName() const {
    return charts_->tabText(charts_->currentIndex());
}

QString SweepsView::reportText() const {
    return report_->toPlainText();
}

void SweepsView::exportTable(const QString& path) const {
    std::vector<int> shown;  // in the table's order: filtered and sorted as the user sees it
    for (int r = 0; r < filter_->rowCount(); ++r) shown.push_back(filter_->mapToSource(filter_->index(r, 0)).row());
    writeFileAtomically(path.toStdString(), model_->toCsv(shown).toStdString(), "trial table");
}

void SweepsView::exportTableDialog() {
    if (!watcher_->isOpen()) return;
    const QString path = QFileDialog::getSaveFileName(this, "Export trial table", "trials.csv", "CSV (*.csv)");
    if (path.isEmpty()) return;
    try {
        exportTable(path);
        emit status("Exported " + path);
    } catch (const Error& e) {
        QMessageBox::warning(this, "Export failed", e.what());
    }
}

void SweepsView::saveReport() {
    if (!watcher_->isOpen()) return;
    const QString path = QFileDialog::getSaveFileName(
        this, "Save sweep report", "report.txt", "Text (*.txt);;CSV, each parameter's effect (*.csv);;JSON (*.json)");
    if (path.isEmpty()) return;
    const auto r = sweep::makeReport(watcher_->plan(), watcher_->views());
    const std::string text = path.endsWith(".json", Qt::CaseInsensitive)  ? sweep::reportJson(r).dump(1) + "\n"
                             : path.endsWith(".csv", Qt::CaseInsensitive) ? sweep::reportCsv(r)
                                                                          : sweep::reportText(r);
    try {
        writeFileAtomically(path.toStdString(), text, "sweep report");
        emit status("Saved " + path);
    } catch (const Error& e) {
        QMessageBox::warning(this, "Save failed", e.what());
    }
}

void SweepsView::newSweep() {
    NewSweepDialog dialog(this);
    if (dialog.parameterCount() == 0) {  // the first sweep: an example to edit (later: the last one's)
        dialog.addParameter("lr", "0.001 0.003 0.01");
        dialog.addParameter("batch_size", "256 2048");
    }
    dialog.setOutDir(
        QDir::home().filePath("mlpwb-sweeps/sweep-" + QDateTime::currentDateTime().toString("yyyyMMdd-HHmmss")));
    if (dialog.exec() != QDialog::Accepted) return;
    QDir().mkpath(QFileInfo(dialog.outDir()).absolutePath());
    const QString specPath = dialog.outDir() + ".yaml";  // beside the folder, to start it again or edit it
    try {
        writeFileAtomically(specPath.toStdString(), dialog.specYaml().toStdString(), "sweep file");
    } catch (const Error& e) {
        QMessageBox::warning(this, "New sweep", e.what());
        return;
    }
    QStringList base;
    if (baseConfig_)
        for (const auto& a : trainCommandLine(baseConfig_()))
            if (a != "--threads=0") base << QString::fromStdString(a);  // all cores: the pool sizes the trials
    const QString why = launchSweep({specPath, dialog.outDir(), dialog.engineArgs(), base});
    if (!why.isEmpty()) {
        QMessageBox::warning(this, "New sweep", "The sweep did not start: " + why);
        return;
    }
    // mlpwb creates the folder at once; follow it as soon as its sweep.json is there.
    for (int i = 0; i < 100 && !sweep::SweepFolder::isSweepFolder(dialog.outDir().toStdString()); ++i)
        QThread::msleep(50);
    openSweep(dialog.outDir());
}

}  // namespace wb::gui
