#include "gui/panels/execution_panel.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QVBoxLayout>
#include <algorithm>
#include <thread>
#include <utility>

#include "core/platform/errors.h"
#include "frameworks/python_interpreter.h"
#include "frameworks/torch_target.h"
#include "gui/panels/field_guard.h"
#include "gui/panels/interpreter_field.h"
#include "gui/panels/torch_options_group.h"

namespace wb::gui {

namespace {

// What a switch's value reproduces (the switch table, core/model/execution_settings.h).
QString valueTip(const std::string& name, const std::string& value) {
    const SwitchValue* v = switchSpec(name).findValue(value);
    return v ? QString::fromStdString(v->help) : QString();
}

// "CPU", "CUDA", "PyTorch" (core/run/engines.h), or the registry's name of another backend.
QString backendLabel(const std::string& name) {
    return QString::fromStdString(engineLabel(name));
}

// Where a switch is not applicable: "on the CPU", "in PyTorch".
QString onBackend(const std::string& name) {
    return (isFrameworkBackend(name) ? "in " : "on the ") + backendLabel(name);
}

QStandardItem* itemOf(const QComboBox* combo, int index) {
    return qobject_cast<QStandardItemModel*>(combo->model())->item(index);
}

QString detailsText(const BackendInfo& info) {
    QString text;
    for (const auto& [key, value] : info.details)
        text += QString("\n%1: %2").arg(QString::fromStdString(key), QString::fromStdString(value));
    return text;
}

// The reason switch `name` is ignored in `ignored`, or an empty string when it applies.
QString reasonFor(const std::vector<IgnoredSwitch>& ignored, const std::string& name) {
    const IgnoredSwitch* found = findIgnored(ignored, name);
    return found ? QString::fromStdString(found->reason) : QString();
}

QLabel* warningLabel() {
    auto* label = new QLabel;
    label->setObjectName("refusalLabel");
    label->setWordWrap(true);
    QPalette red = label->palette();
    red.setColor(QPalette::WindowText, QColor(176, 0, 32));
    label->setPalette(red);
    label->hide();
    return label;
}

}  // namespace

ExecutionPanel::ExecutionPanel(QWidget* parent) : QWidget(parent) {
    check_ = new BackendCheck(this);
    connect(check_, &BackendCheck::finished, this, &ExecutionPanel::onBackendsChecked);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(buildBackendGroup());
    torchGroup_ = new TorchOptionsGroup;
    layout->addWidget(torchGroup_);
    connect(torchGroup_, &TorchOptionsGroup::changed, this, [this] {
        refresh();  // the device decides what PyTorch ignores
        emit changed();
    });
    layout->addWidget(buildSwitchesGroup());
    // What an empty setting means ($MLPWB_PYTHON, else python3), then the saved choice.
    setPreferredPython({});
    defaultPython_ = QString::fromStdString(resolvePython());
    python_->setDefault(defaultPython_);
    python_->setPython(QSettings().value(kPythonSetting).toString());
    usePython(python_->python());
    guardWheel(this);
}

ExecutionPanel::~ExecutionPanel() = default;

QWidget* ExecutionPanel::buildBackendGroup() {
    auto* group = new QGroupBox("Backend");
    auto* form = new QFormLayout(group);
    backendCombo_ = new QComboBox;
    backendCombo_->setObjectName("backend");
    // Device names can be long ("Intel(R) Xeon(R) ..."): let the combo shrink and show them in full as a tooltip.
    backendCombo_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    backendCombo_->setMinimumContentsLength(14);
    fillBackends();
    form->addRow("Train on", backendCombo_);
    connect(backendCombo_, &QComboBox::currentIndexChanged, this, [this] {
        wanted_.clear();  // the user's pick wins over one still waiting for the check
        backendCombo_->setToolTip(backendCombo_->currentData(Qt::ToolTipRole).toString());
        refresh();
        emit changed();
    });
    python_ = new InterpreterField;
    connect(python_, &InterpreterField::chosen, this, &ExecutionPanel::setPython);
    auto* pythonLabel = new QLabel("Python");
    pythonLabel->setToolTip(python_->lineEdit()->toolTip());
    form->addRow(pythonLabel, python_);
    pythonStatus_ = new QLabel;
    pythonStatus_->setObjectName("pythonStatus");
    pythonStatus_->setWordWrap(true);
    pythonStatus_->setForegroundRole(QPalette::PlaceholderText);
    pythonStatus_->setTextInteractionFlags(Qt::TextSelectableByMouse);  // a reason to copy into a search
    form->addRow(pythonStatus_);
    return group;
}

QString ExecutionPanel::backendTitle(const BackendInfo& info) const {
    const QString name = backendLabel(info.name);
    if (!info.available) return name + " (unavailable)";
    if (info.name == "torch" && snapshot_ && snapshot_->torch)  // "PyTorch 1.13.1 (cpu)", not "PyTorch — torch 1.13.1"
        return QString("%1 %2 (%3)")
            .arg(name, QString::fromStdString(snapshot_->torch->version), snapshot_->torch->cuda ? "cpu, cuda" : "cpu");
    return info.device.empty() ? name : name + " — " + QString::fromStdString(info.device);
}

void ExecutionPanel::fillBackends() {
    const QString keep = wanted_.isEmpty() ? backend() : wanted_;
    const bool checking = checkingBackends();
    {
        const QSignalBlocker block(backendCombo_);
        backendCombo_->clear();
        bool hasCuda = false;
        std::vector<BackendInfo> cpuOnly;
        if (!snapshot_) cpuOnly.push_back({"cpu", true, "", "", {}});  // always there; its device comes with the check
        for (const BackendInfo& info : snapshot_ ? snapshot_->backends : cpuOnly) {
            hasCuda = hasCuda || info.name == "cuda";
            const QString name = QString::fromStdString(info.name);
            QStandardItem* item = nullptr;
            if (checking && isFrameworkBackend(info.name)) {
                backendCombo_->addItem(backendLabel(info.name) + " (checking…)", name);
                item = itemOf(backendCombo_, backendCombo_->count() - 1);
                item->setEnabled(false);
                item->setToolTip(QString("Asking %1 whether it can run %2…")
                                     .arg(QString::fromStdString(resolvePython()), backendLabel(info.name)));
                continue;
            }
            backendCombo_->addItem(backendTitle(info), name);
            item = itemOf(backendCombo_, backendCombo_->count() - 1);
            item->setEnabled(info.available);
            item->setToolTip(info.available ? backendTitle(info) + detailsText(info)
                                            : QString::fromStdString(info.reason));
        }
        if (!hasCuda && snapshot_) {
            backendCombo_->addItem("CUDA (unavailable)", QString("cuda"));
            QStandardItem* item = itemOf(backendCombo_, backendCombo_->count() - 1);
            item->setEnabled(false);
            item->setToolTip("This build has no CUDA backend (it was built without a CUDA toolkit)");
        }
        // The backend shown before stays selected if it can train, or while it is being asked again.
        int index = backendCombo_->findData(keep);
        if (index >= 0 && !itemOf(backendCombo_, index)->isEnabled() &&
            !(checking && isFrameworkBackend(keep.toStdString())))
            index = -1;
        for (int i = 0; index < 0 && i < backendCombo_->count(); ++i)
            if (itemOf(backendCombo_, i)->isEnabled()) index = i;
        backendCombo_->setCurrentIndex(index);
    }
    if (!checking || backend() == keep)
        wanted_.clear();
    else
        wanted_ = keep;
    backendCombo_->setToolTip(backendCombo_->currentData(Qt::ToolTipRole).toString());
}

void ExecutionPanel::setPython(const QString& path) {
    python_->setPython(path);
    QSettings().setValue(kPythonSetting, python_->python());
    usePython(python_->python());
}

void ExecutionPanel::usePython(const QString& path) {
    setPreferredPython(path.toStdString());
    forgetFrameworkProbes();  // the new interpreter is asked afresh (and the same one again, on purpose)
    checkBackends();
}

QString ExecutionPanel::python() const {
    return python_->python();
}

void ExecutionPanel::checkBackends() {
    check_->start();
    fillBackends();  // framework backends show "checking…"
    showPythonStatus();
    refresh();
    emit changed();
}

bool ExecutionPanel::checkingBackends() const {
    return check_->running();
}

void ExecutionPanel::onBackendsChecked(const BackendSnapshot& snapshot) {
    snapshot_ = snapshot;
    fillBackends();
    showPythonStatus();
    refresh();
    emit changed();
    emit backendsChecked();
}

// Under the interpreter: what it offers PyTorch, or why it cannot run it (the combo's item says so
// too, but a disabled item's tooltip is easy to miss).
void ExecutionPanel::showPythonStatus() {
    const QString python = QString::fromStdString(resolvePython());
    if (checkingBackends()) {
        pythonStatus_->setText(QString("Asking %1 for PyTorch…").arg(python));
        pythonStatus_->setToolTip({});
        pythonStatus_->show();
        return;
    }
    if (!snapshot_ || !snapshot_->torch) {  // no framework backend registered (a test, a build without them)
        pythonStatus_->hide();
        return;
    }
    const FrameworkFacts& f = *snapshot_->torch;
    if (f.available) {
        const QString on = f.cuda ? "CUDA: " + QString::fromStdString(f.cudaDevice) : QString("CPU only");
        pythonStatus_->setText(
            QString("PyTorch %1 on Python %2; %3")
                .arg(QString::fromStdString(f.version), QString::fromStdString(f.pythonVersion), on));
        pythonStatus_->setToolTip(QString::fromStdString(f.executable.empty() ? f.python : f.executable));
    } else {
        pythonStatus_->setText("PyTorch unavailable: " + QString::fromStdString(f.reason));
        pythonStatus_->setToolTip(pythonStatus_->text());
    }
    pythonStatus_->show();
}

QWidget* ExecutionPanel::buildSwitchesGroup() {
    auto* group = new QGroupBox("Execution");
    auto* column = new QVBoxLayout(group);
    switchesForm_ = new QFormLayout;
    column->addLayout(switchesForm_);
    addPresetRows();
    addSwitchRows();
    addRepeatsRow();
    addThreadsRow();
    warningLabel_ = warningLabel();
    column->addWidget(warningLabel_);  // below the form: a form misjudges a wrapped label that comes and goes
    showSettings(ExecutionSettings{});
    connect(presetCombo_, &QComboBox::currentIndexChanged, this, &ExecutionPanel::onPresetChosen);
    return group;
}

void ExecutionPanel::addPresetRows() {
    presetCombo_ = new QComboBox;
    presetCombo_->setObjectName("preset");
    presetCombo_->setToolTip("A named set of the switches below. Changing a switch by hand makes it 'custom'.");
    presetCombo_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);  // fits a narrow dock
    presetCombo_->setMinimumContentsLength(12);
    for (const Preset& p : presets()) {
        presetCombo_->addItem(QString::fromStdString(p.name), QString::fromStdString(p.name));
        itemOf(presetCombo_, presetCombo_->count() - 1)->setToolTip(QString::fromStdString(p.description));
    }
    presetCombo_->addItem(kCustom, kCustom);
    itemOf(presetCombo_, presetCombo_->count() - 1)->setToolTip("The switches as set by hand");
    presetDescription_ = new QLabel;
    presetDescription_->setObjectName("presetDescription");
    presetDescription_->setWordWrap(true);
    presetDescription_->setForegroundRole(QPalette::PlaceholderText);
    switchesForm_->addRow("Preset", presetCombo_);
    switchesForm_->addRow(presetDescription_);
}

// One row per switch of the switch table: its label, its values, and what each is about.
void ExecutionPanel::addSwitchRows() {
    for (const SwitchSpec& spec : switchSpecs()) {
        auto* combo = new QComboBox;
        combo->setObjectName(QString::fromStdString(spec.name));
        for (const SwitchValue& value : spec.values)
            combo->addItem(QString::fromStdString(value.name), QString::fromStdString(value.name));
        auto* label = new QLabel(QString::fromStdString(spec.label));
        label->setToolTip(QString::fromStdString(spec.help));
        switchesForm_->addRow(label, combo);
        switchCombos_[spec.name] = combo;
        connect(combo, &QComboBox::currentIndexChanged, this, &ExecutionPanel::onSwitchChosen);
    }
}

void ExecutionPanel::addRepeatsRow() {
    auto* repeats = new QHBoxLayout;
    auto repeatSpin = [](const QString& name, int value, const QString& tip) {
        auto* spin = new QSpinBox;
        spin->setObjectName(name);
        spin->setRange(1, kMaxRepeats);
        spin->setValue(value);
        spin->setToolTip(tip);
        return spin;
    };
    runRepeats_ = repeatSpin("runRepeats", 1, "How many times Run trains the configuration (in rounds with Compare's)");
    compareRepeats_ = repeatSpin("compareRepeats", 3,
                                 "How many times Compare trains each preset, in rounds (A1 B1 A2 B2 …) so a drift "
                                 "of the machine hits both alike; the Speedup chart shows the median and its range");
    repeats->addWidget(new QLabel("Run"));
    repeats->addWidget(runRepeats_);
    repeats->addSpacing(8);
    repeats->addWidget(new QLabel("Compare"));
    repeats->addWidget(compareRepeats_);
    repeats->addStretch();
    auto* repeatsLabel = new QLabel("Repeats");
    repeatsLabel->setToolTip("Spread, not noise: each configuration trained more than once gives its speed's range");
    switchesForm_->addRow(repeatsLabel, repeats);
}

void ExecutionPanel::addThreadsRow() {
    threads_ = new QSpinBox;
    threads_->setObjectName("threads");
    threads_->setRange(0, kMaxThreads);
    // 0 is the default: every hardware thread of the machine the run trains on.
    threads_->setSpecialValueText(QString("all (%1)").arg(std::max(1u, std::thread::hardware_concurrency())));
    threads_->setToolTip(
        "Threads of the CPU backend. A batch is cut into the same row chunks whatever the "
        "count, so every count gives the same numbers to the last bit; only the time differs");
    switchesForm_->addRow("CPU threads", threads_);
}

int ExecutionPanel::threads() const {
    return threads_->value();
}

void ExecutionPanel::setThreads(int threads) {
    threads_->setValue(threads);
}

ExecutionSettings ExecutionPanel::settings() const {
    ExecutionSettings s;
    for (const auto& [name, combo] : switchCombos_) setSwitch(s, name, combo->currentData().toString().toStdString());
    return s;
}

void ExecutionPanel::showSettings(const ExecutionSettings& settings) {
    const bool was = std::exchange(updating_, true);
    for (const SwitchDescription& d : describeSwitches(settings)) {
        QComboBox* combo = switchCombos_.at(d.name);
        combo->setCurrentIndex(combo->findData(QString::fromStdString(d.value)));
    }
    updating_ = was;
}

void ExecutionPanel::setSettings(const ExecutionSettings& settings) {
    showSettings(settings);
    refresh();
    emit changed();
}

QString ExecutionPanel::backend() const {
    return backendCombo_->currentData().toString();
}

void ExecutionPanel::setBackend(const QString& name) {
    const int index = backendCombo_->findData(name);
    // An unavailable backend (a CUDA run opened on a machine without a GPU) is not selected.
    if (index >= 0 && itemOf(backendCombo_, index)->isEnabled()) backendCombo_->setCurrentIndex(index);
    if (checkingBackends() && backend() != name) wanted_ = name;  // perhaps available once asked
}

QString ExecutionPanel::backendDevice() const {
    if (!snapshot_) return {};
    const BackendInfo* info = snapshot_->find(backend().toStdString());
    return info && info->available ? QString::fromStdString(info->device) : QString();
}

FrameworkOptions ExecutionPanel::frameworkOptions() const {
    FrameworkOptions o = torchGroup_->options();
    o.python = resolvePython(python_->python().toStdString());
    return o;
}

void ExecutionPanel::setFrameworkOptions(const FrameworkOptions& options) {
    torchGroup_->setOptions(options);
    refresh();
    emit changed();
}

QString ExecutionPanel::preset() const {
    return presetCombo_->currentData().toString();
}

void ExecutionPanel::selectPreset(const QString& name) {
    for (int i = 0; i < presetCombo_->count(); ++i)
        if (presetCombo_->itemData(i).toString().compare(name, Qt::CaseInsensitive) == 0) {
            if (presetCombo_->currentIndex() == i)
                onPresetChosen();  // shown already, yet the switches may have been set by hand since
            else
                presetCombo_->setCurrentIndex(i);
            return;
        }
}

void ExecutionPanel::onPresetChosen() {
    if (updating_) return;
    const QString name = preset();
    if (name != kCustom) showSettings(presetByName(name.toStdString()).settings);
    refresh();
    emit changed();
}

void ExecutionPanel::onSwitchChosen() {
    if (updating_) return;
    refresh();
    emit changed();
}

int ExecutionPanel::runRepeats() const {
    return runRepeats_->value();
}

int ExecutionPanel::compareRepeats() const {
    return compareRepeats_->value();
}

void ExecutionPanel::setRepeats(int run, int compare) {
    runRepeats_->setValue(run);
    compareRepeats_->setValue(compare);
}

bool ExecutionPanel::valid() const {
    return invalidReason().isEmpty();
}

QString ExecutionPanel::invalidReason() const {
    if (const auto why = settings().refusal()) return QString::fromStdString(*why);
    const QString python = QString::fromStdString(resolvePython());
    if (checkingBackends() && (!wanted_.isEmpty() || isFrameworkBackend(backend().toStdString())))
        return QString("Still asking %1 whether it can run %2; a moment…")
            .arg(python, backendLabel((wanted_.isEmpty() ? backend() : wanted_).toStdString()));
    if (backendCombo_->currentIndex() < 0 || !itemOf(backendCombo_, backendCombo_->currentIndex())->isEnabled())
        return "The selected backend is not available: " + backendCombo_->currentData(Qt::ToolTipRole).toString();
    if (backend() == "torch") return torchGroup_->invalidReason();
    return {};
}

// What `backend` ignores under `s`. PyTorch's answer depends on the device chosen in the PyTorch
// group and on what the interpreter said (asked off this thread); nothing is greyed until it said.
std::vector<IgnoredSwitch> ExecutionPanel::ignoredBy(const QString& backend, const ExecutionSettings& s) const {
    const std::string name = backend.toStdString();
    if (isFrameworkBackend(name) && (checkingBackends() || !snapshot_)) return {};
    if (name == "torch") {
        if (!snapshot_->torch) return {};
        return torchIgnoredSwitches(s, torchTargetFor(*snapshot_->torch, torchGroup_->options()));
    }
    try {
        return BackendRegistry::instance().notApplicable(name, s);
    } catch (const Error&) {
        return {};  // one the registry cannot answer for (CUDA in a build without it: never selected)
    }
}

void ExecutionPanel::refresh() {
    const ExecutionSettings current = settings();
    const std::optional<std::string> match = matchingPreset(current);  // what the switches are, on any engine
    const bool was = std::exchange(updating_, true);
    presetCombo_->setCurrentIndex(presetCombo_->findData(match ? QString::fromStdString(*match) : kCustom));
    updating_ = was;
    presetDescription_->setText(match ? QString::fromStdString(presetByName(*match).description)
                                      : QString("Switches set by hand."));
    markRefusedValues(current);
    markNotApplicable(current);
    torchGroup_->setVisible(backend() == "torch");
    torchGroup_->setFacts(checkingBackends() || !snapshot_ ? std::nullopt : snapshot_->torch);
    torchGroup_->setDataPath(current.dataPath);
    const QString why = invalidReason();
    warningLabel_->setText("Cannot run: " + why);
    warningLabel_->setVisible(!why.isEmpty());
}

// Each value that would make the combination refused is disabled, with the refusal as its tooltip,
// so the user sees what to change first instead of meeting an error after pressing Run.
void ExecutionPanel::markRefusedValues(const ExecutionSettings& current) {
    for (const auto& [name, combo] : switchCombos_) {
        for (int i = 0; i < combo->count(); ++i) {
            ExecutionSettings trial = current;
            setSwitch(trial, name, combo->itemData(i).toString().toStdString());
            const auto why = trial.refusal();
            QStandardItem* item = itemOf(combo, i);
            item->setEnabled(!why);
            const QString tip = valueTip(name, combo->itemData(i).toString().toStdString());
            item->setToolTip(why ? tip + "\n\nRefused with the other switches: " + QString::fromStdString(*why) : tip);
        }
    }
}

// On the selected backend some switches change nothing (on the CPU: launch, gemm, ...). They stay
// editable (a configuration may be meant for another backend later) but are greyed, and say why.
void ExecutionPanel::markNotApplicable(const ExecutionSettings& current) {
    const QString on = "\n\nNot applicable " + onBackend(backend().toStdString()) + ": ";
    const std::vector<IgnoredSwitch> ignored = ignoredBy(backend(), current);
    for (const auto& [name, combo] : switchCombos_) {
        greySwitch(combo, reasonFor(ignored, name));
        // Per value too: on the CPU, data_path=pinned_async means the same as device_resident.
        const QPalette normal = palette();
        for (int i = 0; i < combo->count(); ++i) {
            ExecutionSettings trial = current;
            setSwitch(trial, name, combo->itemData(i).toString().toStdString());
            const QString itemWhy = reasonFor(ignoredBy(backend(), trial), name);
            QStandardItem* item = itemOf(combo, i);
            item->setForeground(
                normal.brush(itemWhy.isEmpty() ? QPalette::Active : QPalette::Disabled, QPalette::Text));
            if (!itemWhy.isEmpty() && item->isEnabled()) item->setToolTip(item->toolTip() + on + itemWhy);
        }
    }
}

void ExecutionPanel::greySwitch(QComboBox* combo, const QString& why) {
    QPalette palette;  // an empty palette inherits everything: the normal look
    if (!why.isEmpty()) {
        const QColor grey = this->palette().color(QPalette::Disabled, QPalette::ButtonText);
        palette.setColor(QPalette::ButtonText, grey);
        palette.setColor(QPalette::Text, grey);
    }
    combo->setPalette(palette);
    combo->setProperty("notApplicable", !why.isEmpty());
    const QString rowTip = QString::fromStdString(switchSpec(combo->objectName().toStdString()).help);
    combo->setToolTip(why.isEmpty() ? rowTip : "Not applicable " + onBackend(backend().toStdString()) + ": " + why);
    if (QWidget* label = switchesForm_->labelForField(combo)) label->setEnabled(why.isEmpty());
}

}  // namespace wb::gui
