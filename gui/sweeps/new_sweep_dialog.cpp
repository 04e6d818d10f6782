#include "gui/sweeps/new_sweep_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include "core/model/execution_settings.h"

namespace wb::gui {

namespace {
// A value as YAML: a number stays a number, text is quoted, a list option ("20,10") is a list.
QString yamlValue(const QString& token) {
    bool isNumber = false;
    token.toDouble(&isNumber);
    if (isNumber) return token;
    if (token == "true" || token == "false") return token;
    if (token.contains(',')) return "[" + token.split(',', Qt::SkipEmptyParts).join(", ") + "]";
    QString escaped = token;
    escaped.replace('\\', "\\\\").replace('"', "\\\"");
    return '"' + escaped + '"';
}

// Where the dialog keeps the last sweep's settings (QSettings).
constexpr const char* kSettingsGroup = "newSweep";

// "MIN..MAX" or "log MIN..MAX" as the body of a range parameter; "" when the text is no range.
QString yamlRange(const QString& text) {
    static const QRegularExpression range(R"(^(log\s+)?([-+0-9.eE]+)\s*\.\.\s*([-+0-9.eE]+)$)");
    const auto m = range.match(text.trimmed());
    if (!m.hasMatch()) return {};
    QString body = "{min: " + m.captured(2) + ", max: " + m.captured(3);
    if (!m.captured(1).isEmpty()) body += ", distribution: log_uniform_values";  // W&B: min and max are values
    return body + "}";
}
}  // namespace

QStringList NewSweepDialog::suggestedParameters() {
    QStringList names = {"lr",           "batch_size", "optimizer", "layers",  "activation", "epochs",  "seed",
                         "weight_decay", "momentum",   "init",      "shuffle", "backend",    "threads", "preset"};
    for (const SwitchSpec& spec : switchSpecs()) names << QString::fromStdString(spec.name);
    return names << "val_split"
                 << "rows"
                 << "data";
}

NewSweepDialog::NewSweepDialog(QWidget* parent) : QDialog(parent) {
    setWindowTitle("New sweep");
    QFormLayout* form = buildSweepForm();
    buildParameterTable();
    QHBoxLayout* parameterButtons = buildParameterButtons();
    QFormLayout* engineForm = buildEngineForm();
    QDialogButtonBox* box = buildButtonBox();
    connectSignals();
    restoreSettings();
    updateEngineFields();

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    auto* hint = new QLabel(
        "Each parameter is the `mlpwb train` option of its name, varied over the current "
        "configuration. Values are separated by spaces (layers: 20,10 64,32); a random "
        "sweep also takes a range MIN..MAX or log MIN..MAX.");
    hint->setWordWrap(true);
    layout->addWidget(hint);
    layout->addWidget(parameters_);
    layout->addLayout(parameterButtons);
    layout->addLayout(engineForm);
    layout->addWidget(box);
    resize(620, 640);
}

QFormLayout* NewSweepDialog::buildSweepForm() {
    name_ = new QLineEdit;
    name_->setPlaceholderText("optional");
    method_ = new QComboBox;
    method_->addItems({"grid", "random", "bayes"});
    runCap_ = new QSpinBox;
    runCap_->setRange(1, 100000);
    runCap_->setValue(20);
    seed_ = new QSpinBox;
    seed_->setRange(0, 1000000);
    seed_->setValue(1);
    repeats_ = new QSpinBox;
    repeats_->setRange(1, 1000);
    metric_ = new QComboBox;
    metric_->addItems({"val_loss", "val_accuracy", "train_loss", "train_accuracy", "val_r2", "val_mse",
                       "median_epoch_ms", "total_ms", "loss", "accuracy", "r2"});
    goal_ = new QComboBox;
    goal_->addItems({"minimize", "maximize"});

    auto* form = new QFormLayout;
    form->addRow("Name", name_);
    form->addRow("Method", method_);
    form->addRow("Points (run_cap)", runCap_);
    form->addRow("Sampler seed", seed_);
    form->addRow("Repeats of each point", repeats_);
    auto* metricRow = new QHBoxLayout;
    metricRow->addWidget(metric_, 1);
    metricRow->addWidget(goal_);
    form->addRow("Metric", metricRow);
    return form;
}

void NewSweepDialog::buildParameterTable() {
    parameters_ = new QTableWidget(0, 2);
    parameters_->setObjectName("sweepParameters");
    parameters_->setHorizontalHeaderLabels({"Parameter", "Values"});
    parameters_->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    // The names column as wide as a name box needs for the longest suggested name ("weight_decay").
    QComboBox widest;
    widest.addItems(suggestedParameters());
    widest.setSizeAdjustPolicy(QComboBox::AdjustToContents);
    parameters_->setColumnWidth(0, widest.sizeHint().width() + 8);
    parameters_->setMinimumHeight(150);
}

QHBoxLayout* NewSweepDialog::buildParameterButtons() {
    auto* add = new QPushButton("Add parameter");
    auto* remove = new QPushButton("Remove");
    connect(add, &QPushButton::clicked, this, [this] { addParameter("lr", ""); });
    connect(remove, &QPushButton::clicked, this, [this] {
        if (parameters_->currentRow() >= 0) parameters_->removeRow(parameters_->currentRow());
    });
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(add);
    buttons->addWidget(remove);
    buttons->addStretch();
    return buttons;
}

QFormLayout* NewSweepDialog::buildEngineForm() {
    engine_ = new QComboBox;
    engine_->addItem("This machine (a pool of trials)", "local");
    engine_->addItem("SLURM cluster (a job array)", "slurm");
    jobs_ = new QSpinBox;
    jobs_->setObjectName("sweepJobs");
    jobs_->setRange(0, 4096);
    jobs_->setSpecialValueText("auto (one per core)");
    exclusive_ = new QCheckBox("one trial at a time (epoch times that compare)");
    exclusive_->setObjectName("sweepExclusive");
    slurmArgs_ = new QLineEdit;
    slurmArgs_->setPlaceholderText("e.g. --partition=gpu --time=01:00:00 --gres=gpu:1");
    maxParallel_ = new QSpinBox;
    maxParallel_->setRange(0, 100000);
    maxParallel_->setSpecialValueText("no limit");

    auto* engineForm = new QFormLayout;
    engineForm->addRow("Engine", engine_);
    engineForm->addRow("Trials at once", jobs_);
    engineForm->addRow("", exclusive_);
    engineForm->addRow("sbatch options", slurmArgs_);
    engineForm->addRow("Tasks at once", maxParallel_);
    engineForm->addRow("Sweep folder", buildOutDirRow());
    return engineForm;
}

QHBoxLayout* NewSweepDialog::buildOutDirRow() {
    outDir_ = new QLineEdit;
    outDir_->setObjectName("sweepOutDir");
    auto* browse = new QPushButton("Browse…");
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getSaveFileName(this, "Sweep folder (created)", outDir_->text());
        if (!dir.isEmpty()) outDir_->setText(dir);
    });
    auto* outRow = new QHBoxLayout;
    outRow->addWidget(outDir_, 1);
    outRow->addWidget(browse);
    return outRow;
}

QDialogButtonBox* NewSweepDialog::buildButtonBox() {
    auto* box = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    box->button(QDialogButtonBox::Ok)->setText("Start sweep");
    connect(box, &QDialogButtonBox::accepted, this, &NewSweepDialog::accept);
    connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);
    return box;
}

void NewSweepDialog::connectSignals() {
    connect(metric_, &QComboBox::currentTextChanged, this, [this](const QString& m) {
        goal_->setCurrentText(m.contains("accuracy") || m.contains("r2") ? "maximize" : "minimize");
    });
    connect(engine_, &QComboBox::currentIndexChanged, this, &NewSweepDialog::updateEngineFields);
    connect(method_, &QComboBox::currentIndexChanged, this, &NewSweepDialog::updateEngineFields);
    connect(exclusive_, &QCheckBox::toggled, this, &NewSweepDialog::updateEngineFields);
}

// Only the fields the chosen engine and method read are enabled: the pool's on this machine, sbatch's
// on SLURM, the sampler's for a random sweep.
void NewSweepDialog::updateEngineFields() {
    const bool slurm = engine_->currentData().toString() == "slurm";
    jobs_->setEnabled(!slurm && !exclusive_->isChecked());  // one at a time: nothing to choose
    exclusive_->setEnabled(!slurm);
    slurmArgs_->setEnabled(slurm);
    maxParallel_->setEnabled(slurm);
    const bool drawn = method_->currentText() != "grid";  // random, bayes: run_cap points, seeded
    runCap_->setEnabled(drawn);
    seed_->setEnabled(drawn);
}

void NewSweepDialog::addParameter(const QString& name, const QString& values) {
    const int row = parameters_->rowCount();
    parameters_->insertRow(row);
    auto* choice = new QComboBox;
    choice->setEditable(true);
    choice->addItems(suggestedParameters());
    choice->setCurrentText(name);
    parameters_->setCellWidget(row, 0, choice);
    parameters_->setItem(row, 1, new QTableWidgetItem(values));
}

void NewSweepDialog::setOutDir(const QString& dir) {
    outDir_->setText(dir);
}
void NewSweepDialog::setMethod(const QString& method) {
    method_->setCurrentText(method);
}
void NewSweepDialog::setEngine(const QString& engine) {
    engine_->setCurrentIndex(engine_->findData(engine));
}
void NewSweepDialog::setRepeats(int repeats) {
    repeats_->setValue(repeats);
}

QString NewSweepDialog::outDir() const {
    return outDir_->text().trimmed();
}

QString NewSweepDialog::specYaml() const {
    QString y;
    if (!name_->text().trimmed().isEmpty()) y += "name: " + yamlValue(name_->text().trimmed()) + "\n";
    y += "method: " + method_->currentText() + "\n";
    if (method_->currentText() != "grid")
        y += "run_cap: " + QString::number(runCap_->value()) + "\nseed: " + QString::number(seed_->value()) + "\n";
    if (repeats_->value() > 1) y += "repeats: " + QString::number(repeats_->value()) + "\n";
    y += "metric: {name: " + metric_->currentText() + ", goal: " + goal_->currentText() + "}\n";
    y += "parameters:\n";
    for (int row = 0; row < parameters_->rowCount(); ++row) {
        const auto* choice = static_cast<QComboBox*>(parameters_->cellWidget(row, 0));
        const QString name = choice->currentText().trimmed();
        const QString text = parameters_->item(row, 1) ? parameters_->item(row, 1)->text().trimmed() : QString();
        if (name.isEmpty() || text.isEmpty()) continue;
        const QString range = yamlRange(text);
        if (!range.isEmpty()) {
            y += "  " + name + ": " + range + "\n";
            continue;
        }
        QStringList values;
        for (const QString& token : text.split(QRegularExpression("\\s+"), Qt::SkipEmptyParts))
            values << yamlValue(token);
        y += "  " + name + ": {values: [" + values.join(", ") + "]}\n";
    }
    return y;
}

QStringList NewSweepDialog::engineArgs() const {
    const QString engine = engine_->currentData().toString();
    QStringList args{"--engine", engine};
    if (engine == "local") {
        if (jobs_->value() > 0) args << "--jobs" << QString::number(jobs_->value());
        if (exclusive_->isChecked()) args << "--exclusive";
    } else {
        for (const QString& a : slurmArgs_->text().split(QRegularExpression("\\s+"), Qt::SkipEmptyParts))
            args << "--slurm-arg=" + a;
        if (maxParallel_->value() > 0) args << "--max-parallel" << QString::number(maxParallel_->value());
    }
    return args;
}

QString NewSweepDialog::problem() const {
    if (outDir().isEmpty()) return "Choose the sweep's folder (it is created, and must not exist yet).";
    int complete = 0;
    for (int row = 0; row < parameters_->rowCount(); ++row) {
        const auto* item = parameters_->item(row, 1);
        const auto* choice = static_cast<QComboBox*>(parameters_->cellWidget(row, 0));
        const bool hasValues = item && !item->text().trimmed().isEmpty();
        if (!hasValues) return "Give the values of " + choice->currentText() + " (separated by spaces), or remove it.";
        ++complete;
    }
    if (complete == 0) return "Add at least one parameter to vary.";
    return {};
}

void NewSweepDialog::accept() {
    const QString why = problem();
    if (!why.isEmpty()) {
        QMessageBox::information(this, "New sweep", why);
        return;
    }
    saveSettings();
    QDialog::accept();
}

int NewSweepDialog::parameterCount() const {
    return parameters_->rowCount();
}

// The last sweep's settings, as accept() saved them; the name and the folder are new each time.
void NewSweepDialog::restoreSettings() {
    QSettings s;
    s.beginGroup(kSettingsGroup);
    if (s.contains("method")) method_->setCurrentText(s.value("method").toString());
    runCap_->setValue(s.value("run_cap", runCap_->value()).toInt());
    seed_->setValue(s.value("seed", seed_->value()).toInt());
    repeats_->setValue(s.value("repeats", repeats_->value()).toInt());
    if (s.contains("metric")) metric_->setCurrentText(s.value("metric").toString());
    if (s.contains("goal")) goal_->setCurrentText(s.value("goal").toString());  // after the metric, which sets it
    if (const int engine = engine_->findData(s.value("engine").toString()); engine >= 0)
        engine_->setCurrentIndex(engine);
    jobs_->setValue(s.value("jobs", jobs_->value()).toInt());
    exclusive_->setChecked(s.value("exclusive", false).toBool());
    slurmArgs_->setText(s.value("slurm_args").toString());
    maxParallel_->setValue(s.value("max_parallel", maxParallel_->value()).toInt());
    for (const QString& row : s.value("parameters").toStringList()) {  // "name<TAB>values"
        const QStringList cells = row.split('\t');
        if (!cells.at(0).isEmpty()) addParameter(cells.at(0), cells.value(1));
    }
}

void NewSweepDialog::saveSettings() const {
    QSettings s;
    s.beginGroup(kSettingsGroup);
    s.setValue("method", method_->currentText());
    s.setValue("run_cap", runCap_->value());
    s.setValue("seed", seed_->value());
    s.setValue("repeats", repeats_->value());
    s.setValue("metric", metric_->currentText());
    s.setValue("goal", goal_->currentText());
    s.setValue("engine", engine_->currentData().toString());
    s.setValue("jobs", jobs_->value());
    s.setValue("exclusive", exclusive_->isChecked());
    s.setValue("slurm_args", slurmArgs_->text());
    s.setValue("max_parallel", maxParallel_->value());
    QStringList rows;
    for (int row = 0; row < parameters_->rowCount(); ++row) {
        const auto* choice = static_cast<QComboBox*>(parameters_->cellWidget(row, 0));
        rows << choice->currentText().trimmed() + '\t' +
                    (parameters_->item(row, 1) ? parameters_->item(row, 1)->text() : "");
    }
    s.setValue("parameters", rows);
}

}  // namespace wb::gui
