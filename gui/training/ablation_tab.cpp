#include "gui/training/ablation_tab.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "core/platform/errors.h"
#include "gui/charts/chart_export.h"
#include "gui/charts/export_dialog.h"
#include "gui/charts/waterfall_chart.h"
#include "gui/training/training_controller.h"

namespace wb::gui {

namespace {
constexpr int kDrawIntervalMs = 33;
constexpr int kNameRole = Qt::UserRole;
const QStringList kColumns = {"Step",     "Section", "Status",     "Median ms", "Spread ms",
                              "Saved ms", "Share",   "Final loss", "Accuracy",  "Note"};
constexpr int kQualityColumn = 8;  // the task's metric: its header follows the result's task

// The quality column's header: "Accuracy", "R²" or "MAE".
QString qualityHeader(QualityMetric q) {
    return q == QualityMetric::Accuracy ? QString("Accuracy") : QString::fromStdString(qualityName(q));
}

QString qualityCell(const std::optional<StepFinal>& f, QualityMetric q) {
    const std::optional<double> value = f ? f->quality(q) : std::nullopt;
    return value ? formatQuality(q, *value, 2) : QString();
}

// Why a step did not run (its message), then what to expect of it (its notes), in one cell.
QString noteCell(const AblationStep& s) {
    QStringList parts;
    if (!s.message.empty()) parts << QString::fromStdString(s.message);
    for (const std::string& line : s.noteLines()) parts << QString::fromStdString(line);
    return parts.join("; ");
}

QString number(double v, int decimals) {
    return QString::number(v, 'f', decimals);
}

QStringList cellsOf(const AblationStep& s, const QString& section, QualityMetric q) {
    const bool ran = s.measured();
    return {QString::fromStdString(s.name),
            section,
            QString::fromStdString(toString(s.status)),
            number(s.medianEpochMs, 3),
            ran ? number(s.minEpochMs, 3) + " – " + number(s.maxEpochMs, 3) : QString(),
            s.fix.empty() ? QString() : number(s.savedMs, 3),
            s.share ? number(*s.share * 100.0, 1) + " %" : QString(),
            s.final ? number(s.final->trainLoss, 6) : QString(),
            qualityCell(s.final, q),
            noteCell(s)};
}
}  // namespace

AblationTab::AblationTab(TrainingController* controller, QWidget* parent) : QWidget(parent), controller_(controller) {
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    auto* panel = new QWidget;
    buildControls(panel);
    auto* right = new QSplitter(Qt::Vertical);
    chart_ = new WaterfallChart;
    table_ = new QTableWidget(0, static_cast<int>(kColumns.size()));
    table_->setHorizontalHeaderLabels(kColumns);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    // Each cumulative row numbered as the waterfall numbers its bars when their names do not fit
    // ("seed", then the fixes 1, 2, ... in the order applied); an alone row is "alone".
    table_->verticalHeader()->setVisible(true);
    table_->horizontalHeader()->setStretchLastSection(true);
    right->addWidget(chart_);
    right->addWidget(table_);
    right->setStretchFactor(0, 3);
    right->setStretchFactor(1, 1);
    splitter->addWidget(panel);
    splitter->addWidget(right);
    splitter->setStretchFactor(1, 1);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);

    drawTimer_.setSingleShot(true);
    drawTimer_.setInterval(kDrawIntervalMs);
    connect(&drawTimer_, &QTimer::timeout, this, &AblationTab::drawPending);
    connect(controller_, &TrainingController::ablationProgress, this, &AblationTab::onProgress);
    connect(controller_, &TrainingController::ablationStepFinished, this, &AblationTab::onStepFinished);
    connect(controller_, &TrainingController::ablationFinished, this, &AblationTab::onFinished);
    updateButtons();
}

void AblationTab::buildControls(QWidget* panel) {
    auto* layout = new QVBoxLayout(panel);
    addBaselineChoice(layout);
    addFixList(layout);
    addRunOptions(layout);
    addRunButtons(layout);
    addFileButtons(layout);
    layout->addStretch();
    setPlan(AblationPlan{});
}

void AblationTab::addBaselineChoice(QVBoxLayout* layout) {
    auto* form = new QFormLayout;
    baseline_ = new QComboBox;
    for (const auto& p : presets()) {
        baseline_->addItem(QString::fromStdString(p.name));
        baseline_->setItemData(baseline_->count() - 1, QString::fromStdString(p.description), Qt::ToolTipRole);
    }
    form->addRow("Baseline", baseline_);
    layout->addLayout(form);
}

void AblationTab::addFixList(QVBoxLayout* layout) {
    layout->addWidget(new QLabel("Fixes, applied in this order (drag to reorder):"));
    fixes_ = new QListWidget;
    fixes_->setDragDropMode(QAbstractItemView::InternalMove);
    fixes_->setDefaultDropAction(Qt::MoveAction);
    fixes_->setSelectionMode(QAbstractItemView::SingleSelection);
    layout->addWidget(fixes_);
    auto* moves = new QHBoxLayout;
    auto* up = new QPushButton("Up");
    auto* down = new QPushButton("Down");
    auto* reset = new QPushButton("Default order");
    moves->addWidget(up);
    moves->addWidget(down);
    moves->addWidget(reset);
    layout->addLayout(moves);
    connect(up, &QPushButton::clicked, this, [this] { moveFix(fixes_->currentRow(), fixes_->currentRow() - 1); });
    connect(down, &QPushButton::clicked, this, [this] { moveFix(fixes_->currentRow(), fixes_->currentRow() + 1); });
    connect(reset, &QPushButton::clicked, this, [this] { setPlan(AblationPlan{}); });
}

void AblationTab::addRunOptions(QVBoxLayout* layout) {
    auto* options = new QFormLayout;
    repeats_ = new QSpinBox;
    repeats_->setRange(1, 20);
    repeats_->setToolTip("Runs per step; the waterfall shows their spread");
    options->addRow("Repeats", repeats_);
    eachFixAlone_ = new QCheckBox("Also each fix alone on top of the baseline");
    options->addRow(eachFixAlone_);
    layout->addLayout(options);
}

void AblationTab::addRunButtons(QVBoxLayout* layout) {
    auto* buttons = new QHBoxLayout;
    run_ = new QPushButton("Run ablation");
    run_->setToolTip("Train every step on the current data, model and seed (queued after other runs)");
    stop_ = new QPushButton("Stop");
    buttons->addWidget(run_);
    buttons->addWidget(stop_);
    layout->addLayout(buttons);
    progress_ = new QProgressBar;
    progress_->setRange(0, 1);
    progress_->setValue(0);
    layout->addWidget(progress_);
    status_ = new QLabel("Runs on the current data and model from the configuration panel.");
    status_->setWordWrap(true);
    layout->addWidget(status_);
    connect(run_, &QPushButton::clicked, this, [this] {
        if (!start()) QMessageBox::warning(this, "Cannot run the ablation", statusText());
    });
    connect(stop_, &QPushButton::clicked, this, &AblationTab::stop);
}

void AblationTab::addFileButtons(QVBoxLayout* layout) {
    auto* files = new QHBoxLayout;
    auto* open = new QPushButton("Open…");
    open->setToolTip("Open an ablation JSON (mlpwb ablate --out)");
    exportChartButton_ = new QPushButton("Export chart…");
    exportDataButton_ = new QPushButton("Export data…");
    files->addWidget(open);
    files->addWidget(exportChartButton_);
    files->addWidget(exportDataButton_);
    layout->addLayout(files);
    connect(open, &QPushButton::clicked, this, &AblationTab::openFile);
    connect(exportChartButton_, &QPushButton::clicked, this, &AblationTab::exportChartDialog);
    connect(exportDataButton_, &QPushButton::clicked, this, &AblationTab::exportDataDialog);
}

void AblationTab::setSources(ConfigGetter config, DatasetGetter dataset) {
    configSource_ = std::move(config);
    dataSource_ = std::move(dataset);
}

void AblationTab::fillFixList(const std::vector<std::string>& order, const std::vector<std::string>& checked) {
    fixes_->clear();
    for (const auto& name : order) {
        const AblationFix fix = ablationFixByName(name);
        QStringList sets;  // "value" for a fix named after its one switch, else "switch=value, ..."
        for (const auto& [sw, value] : fix.sets)
            sets << (fix.sets.size() == 1 && sw == name ? QString::fromStdString(value)
                                                        : QString::fromStdString(sw + "=" + value));
        const QString text = QString::fromStdString(name) + " → " + sets.join(", ");
        auto* item = new QListWidgetItem(text, fixes_);
        item->setData(kNameRole, QString::fromStdString(name));
        item->setToolTip(QString::fromStdString(fix.description));
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable | Qt::ItemIsDragEnabled);
        item->setFlags(item->flags() & ~Qt::ItemIsDropEnabled);  // dropped between items, never onto one
        const bool on = std::find(checked.begin(), checked.end(), name) != checked.end();
        item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
    }
}

AblationPlan AblationTab::plan() const {
    AblationPlan p;
    p.baseline = baseline_->currentText().toStdString();
    p.fixes.clear();
    for (int i = 0; i < fixes_->count(); ++i) {
        const QListWidgetItem* item = fixes_->item(i);
        if (item->checkState() == Qt::Checked) p.fixes.push_back(item->data(kNameRole).toString().toStdString());
    }
    p.repeats = repeats_->value();
    p.alone = eachFixAlone_->isChecked();
    return p;
}

void AblationTab::setPlan(const AblationPlan& p) {
    baseline_->setCurrentText(QString::fromStdString(p.baseline));
    // The plan's fixes first, in its order; the built-in fixes it leaves out follow, unchecked (the
    // torch backend's own knobs last: on another backend they are reported not applicable).
    std::vector<std::string> order;
    for (const auto& name : p.fixes)
        if (std::find(order.begin(), order.end(), name) == order.end()) order.push_back(name);
    for (const auto& fix : ablationFixes())
        if (std::find(order.begin(), order.end(), fix.name) == order.end()) order.push_back(fix.name);
    fillFixList(order, p.fixes);
    repeats_->setValue(p.repeats);
    eachFixAlone_->setChecked(p.alone);
}

void AblationTab::moveFix(int row, int to) {
    if (row < 0 || row >= fixes_->count() || to < 0 || to >= fixes_->count() || row == to) return;
    QListWidgetItem* item = fixes_->takeItem(row);
    fixes_->insertItem(to, item);
    fixes_->setCurrentRow(to);
}

bool AblationTab::start() {
    if (current_) {
        status_->setText("An ablation is already running.");
        return false;
    }
    const auto dataset = dataSource_ ? dataSource_() : nullptr;
    if (!dataset || !configSource_) {
        status_->setText("Load a data set first.");
        return false;
    }
    RunRequest request;
    request.id = nextJobId();
    request.config = configSource_();
    request.dataset = dataset;
    auto p = std::make_shared<AblationPlan>(plan());
    try {
        p->validate();
        RunConfig check = request.config;
        check.execution = presetByName(p->baseline).settings;
        check.validate();
    } catch (const Error& e) {
        status_->setText(QString("Cannot run: %1").arg(e.what()));
        return false;
    }
    request.config.name = "Ablation from " + p->baseline;
    progress_->setRange(0, plannedRuns(*p));
    request.job = AblationJob{std::move(p)};
    current_ = request.id;
    progress_->setValue(0);
    status_->setText(controller_->busy() ? "Queued after the runs in progress." : "Starting…");
    controller_->enqueue(std::move(request));
    updateButtons();
    return true;
}

void AblationTab::stop() {
    if (current_ && controller_->currentRun() == current_) controller_->stopCurrent();
}

void AblationTab::onProgress(int id, int run, int planned, const QString& step, int repeat) {
    if (id != current_) return;
    progress_->setRange(0, planned);
    progress_->setValue(run - 1);
    status_->setText(QString("Run %1 of %2 planned: %3, round %4").arg(run).arg(planned).arg(step).arg(repeat));
}

void AblationTab::onStepFinished(int id, const AblationResult& partial) {
    if (id != current_) return;
    pending_ = partial;
    if (!drawTimer_.isActive()) drawTimer_.start();
}

void AblationTab::onFinished(int id, const AblationResult& result) {
    if (id != current_) return;
    current_.reset();
    drawTimer_.stop();
    pending_.reset();
    showResult(result);
    progress_->setValue(progress_->maximum());
    QString text = QString("Ablation %1").arg(QString::fromStdString(toString(result.status)));
    if (!result.message.empty()) text += ": " + QString::fromStdString(result.message);
    if (result.steps.size() > 1)
        text += QString(". Baseline %1 → %2 per epoch.")
                    .arg(formatMs(result.steps.front().medianEpochMs), formatMs(result.steps.back().medianEpochMs));
    status_->setText(text);
    updateButtons();
}

void AblationTab::drawPending() {
    if (!pending_) return;
    showResult(*pending_);
    pending_.reset();
}

void AblationTab::showResult(const AblationResult& result) {
    result_ = result;
    chart_->setResult(result);
    fillTable(result);
    updateButtons();
}

void AblationTab::fillTable(const AblationResult& result) {
    table_->setRowCount(0);
    auto addRow = [this](const QStringList& cells) {
        const int row = table_->rowCount();
        table_->insertRow(row);
        for (int c = 0; c < cells.size(); ++c) table_->setItem(row, c, new QTableWidgetItem(cells[c]));
    };
    const QualityMetric q = result.quality();
    table_->setHorizontalHeaderItem(kQualityColumn, new QTableWidgetItem(qualityHeader(q)));
    QStringList numbers;
    for (const auto& s : result.steps) {
        addRow(cellsOf(s, "cumulative", q));
        numbers << (numbers.isEmpty() ? QString("seed") : QString::number(numbers.size()));
    }
    for (const auto& s : result.alone) {
        addRow(cellsOf(s, "alone", q));
        numbers << "alone";
    }
    table_->setVerticalHeaderLabels(numbers);
    table_->resizeColumnsToContents();
}

void AblationTab::loadResult(const QString& path) {
    const AblationResult loaded = AblationResult::load(path.toStdString());  // nothing changes on failure
    showResult(loaded);
    status_->setText("Opened " + path);
}

void AblationTab::exportData(const QString& path) {
    if (!result_) throw IoError("no ablation to export yet");
    if (path.endsWith(".json", Qt::CaseInsensitive))
        result_->save(path.toStdString());
    else
        result_->saveCsv(path.toStdString());
}

void AblationTab::exportChart(const QString& path, int width, int height, double scale) {
    wb::gui::exportChart(chart_->plot(), path, width, height, scale);
}

QString AblationTab::statusText() const {
    return status_->text();
}
int AblationTab::progressValue() const {
    return progress_->value();
}
int AblationTab::progressMaximum() const {
    return progress_->maximum();
}

void AblationTab::updateButtons() {
    run_->setEnabled(!current_);
    stop_->setEnabled(current_.has_value());
    exportDataButton_->setEnabled(result_.has_value());
}

void AblationTab::openFile() {
    const QString path = QFileDialog::getOpenFileName(this, "Open ablation", QString(), "Ablation JSON (*.json)");
    if (path.isEmpty()) return;
    try {
        loadResult(path);
    } catch (const Error& e) {
        QMessageBox::warning(this, "Cannot open the ablation", e.what());
    }
}

void AblationTab::exportChartDialog() {
    ExportDialog dialog("Ablation waterfall", this);
    if (dialog.exec() != QDialog::Accepted) return;
    try {
        exportChart(dialog.path(), dialog.chartWidth(), dialog.chartHeight(), dialog.scale());
        status_->setText("Exported " + dialog.path());
    } catch (const Error& e) {
        QMessageBox::warning(this, "Export failed", e.what());
    }
}

void AblationTab::exportDataDialog() {
    const QString path =
        QFileDialog::getSaveFileName(this, "Export ablation data", "ablation.csv", "CSV (*.csv);;JSON (*.json)");
    if (path.isEmpty()) return;
    try {
        exportData(path);
        status_->setText("Exported " + path);
    } catch (const Error& e) {
        QMessageBox::warning(this, "Export failed", e.what());
    }
}

}  // namespace wb::gui
