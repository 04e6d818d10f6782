#include "execution_panel.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QStandardItemModel>
#include <QVBoxLayout>
#include <utility>

#include "errors.h"

namespace wb::gui {

namespace {

// What a switch is about, in the user's words: the row label and the row tooltip.
struct SwitchText {
    const char* label;
    const char* tip;
};

const std::map<std::string, SwitchText>& switchTexts() {
    static const std::map<std::string, SwitchText> texts = {
        {"data_path",
         {"Data path",
          "How each batch reaches the model. The founding PyTorch loop's DataLoader fetched and "
          "collated rows one by one."}},
        {"launch",
         {"Launch",
          "How the work of a step is started on the GPU: one launch per operation, with or without a "
          "wait every step, one captured graph, or a few fused kernels."}},
        {"loss",
         {"Loss",
          "Sigmoid followed by BCELoss (as in the founding loop) or the fused, numerically stable "
          "BCEWithLogitsLoss."}},
        {"zero_grad",
         {"zero_grad",
          "How often gradients are cleared each step. The founding loop called "
          "model.zero_grad() and optimizer.zero_grad(): twice."}},
        {"optimizer_kernel",
         {"Optimizer kernel",
          "One update launch per parameter tensor, or one for all of them (PyTorch's "
          "foreach/fused optimizers)."}},
        {"precision",
         {"Precision",
          "The number format of the matrix products: fp32, TF32 tensor cores, or mixed precision "
          "with fp32 master weights."}},
        {"gemm", {"Matrix products", "Who computes the matrix products: cuBLAS or the project's own kernels."}},
    };
    return texts;
}

// What each switch value reproduces (DESIGN.md, "Execution settings").
QString valueTip(const std::string& value) {
    static const std::map<std::string, QString> tips = {
        {"per_sample_gather",
         "Gather and collate the rows of every batch one by one, like a DataLoader over a "
         "TensorDataset"},
        {"pageable_copy", "Copy every batch to the GPU from ordinary (pageable) memory and wait for it"},
        {"pinned_async", "Copy batches from pinned memory on a second stream, overlapped with compute"},
        {"device_resident", "Copy the whole data set to the device once; batches are views of it"},
        {"eager_sync", "One launch per operation and a host sync every step (like calling loss.item())"},
        {"eager", "One launch per operation, no sync inside the epoch"},
        {"graph_step",
         "The whole step captured once as a CUDA Graph and replayed (a static graph, like "
         "tf.function)"},
        {"fused", "The whole step in one or a few fused kernels"},
        {"sigmoid_bce", "Sigmoid + BCELoss, log clamped at -100 as PyTorch does"},
        {"bce_with_logits", "BCEWithLogitsLoss: sigmoid and loss fused, stable for large logits"},
        {"twice", "model.zero_grad() and optimizer.zero_grad(), as in the founding loop"},
        {"once", "One zero_grad per step"},
        {"none", "No zeroing: the backward pass writes gradients instead of adding to them"},
        {"per_tensor", "One optimizer update per parameter tensor"},
        {"multi_tensor", "One optimizer update for all parameters at once"},
        {"fp32", "Full single precision"},
        {"tf32", "TF32 tensor-core matrix products (fp32 storage)"},
        {"bf16", "bfloat16 mixed precision with fp32 master weights"},
        {"fp16", "fp16 mixed precision with fp32 master weights and dynamic loss scaling (like GradScaler)"},
        {"cublas", "NVIDIA's cuBLAS library"},
        {"custom", "The project's own matrix-product kernels"},
    };
    const auto it = tips.find(value);
    return it == tips.end() ? QString() : it->second;
}

// "CPU", "CUDA", or the registry's name of another backend.
QString backendLabel(const std::string& name) {
    return name == "cpu" ? "CPU" : name == "cuda" ? "CUDA" : QString::fromStdString(name);
}

QString backendTitle(const BackendInfo& info) {
    const QString name = backendLabel(info.name);
    if (!info.available) return name + " (unavailable)";
    return info.device.empty() ? name : name + " — " + QString::fromStdString(info.device);
}

QStandardItem* itemOf(const QComboBox* combo, int index) {
    return qobject_cast<QStandardItemModel*>(combo->model())->item(index);
}

// The switches backend `backend` ignores under `s`; none for one the registry cannot answer for (CUDA
// in a build without it: the panel never selects it).
std::vector<IgnoredSwitch> ignoredBy(const QString& backend, const ExecutionSettings& s) {
    try {
        return BackendRegistry::instance().notApplicable(backend.toStdString(), s);
    } catch (const Error&) {
        return {};
    }
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
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(buildBackendGroup());
    layout->addWidget(buildSwitchesGroup());
    refresh();
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
        backendCombo_->setToolTip(backendCombo_->currentData(Qt::ToolTipRole).toString());
        refresh();
        emit changed();
    });
    return group;
}

void ExecutionPanel::fillBackends() {
    bool hasCuda = false;
    for (const BackendInfo& info : BackendRegistry::instance().list()) {
        hasCuda = hasCuda || info.name == "cuda";
        backendCombo_->addItem(backendTitle(info), QString::fromStdString(info.name));
        QStandardItem* item = itemOf(backendCombo_, backendCombo_->count() - 1);
        item->setEnabled(info.available);
        item->setToolTip(info.available ? backendTitle(info) : QString::fromStdString(info.reason));
    }
    if (!hasCuda) {
        backendCombo_->addItem("CUDA (unavailable)", QString("cuda"));
        QStandardItem* item = itemOf(backendCombo_, backendCombo_->count() - 1);
        item->setEnabled(false);
        item->setToolTip("This build has no CUDA backend (it was built without a CUDA toolkit)");
    }
    for (int i = 0; i < backendCombo_->count(); ++i)
        if (itemOf(backendCombo_, i)->isEnabled()) {
            backendCombo_->setCurrentIndex(i);
            break;
        }
    backendCombo_->setToolTip(backendCombo_->currentData(Qt::ToolTipRole).toString());
}

QWidget* ExecutionPanel::buildSwitchesGroup() {
    auto* group = new QGroupBox("Execution");
    auto* column = new QVBoxLayout(group);
    switchesForm_ = new QFormLayout;
    column->addLayout(switchesForm_);
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
    for (const SwitchDescription& d : describeSwitches(ExecutionSettings{})) {
        auto* combo = new QComboBox;
        combo->setObjectName(QString::fromStdString(d.name));
        for (const std::string& value : d.values)
            combo->addItem(QString::fromStdString(value), QString::fromStdString(value));
        const SwitchText& text = switchTexts().at(d.name);
        auto* label = new QLabel(text.label);
        label->setToolTip(text.tip);
        switchesForm_->addRow(label, combo);
        switchCombos_[d.name] = combo;
        connect(combo, &QComboBox::currentIndexChanged, this, &ExecutionPanel::onSwitchChosen);
    }
    warningLabel_ = warningLabel();
    column->addWidget(warningLabel_);  // below the form: a form misjudges a wrapped label that comes and goes
    showSettings(ExecutionSettings{});
    connect(presetCombo_, &QComboBox::currentIndexChanged, this, &ExecutionPanel::onPresetChosen);
    return group;
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

bool ExecutionPanel::valid() const {
    return invalidReason().isEmpty();
}

QString ExecutionPanel::invalidReason() const {
    if (const auto why = settings().refusal()) return QString::fromStdString(*why);
    if (backendCombo_->currentIndex() < 0 || !itemOf(backendCombo_, backendCombo_->currentIndex())->isEnabled())
        return "The selected backend is not available: " + backendCombo_->currentData(Qt::ToolTipRole).toString();
    return {};
}

void ExecutionPanel::refresh() {
    const ExecutionSettings current = settings();
    const std::optional<std::string> match = matchingPreset(current);
    const bool was = std::exchange(updating_, true);
    presetCombo_->setCurrentIndex(presetCombo_->findData(match ? QString::fromStdString(*match) : kCustom));
    updating_ = was;
    presetDescription_->setText(match ? QString::fromStdString(presetByName(*match).description)
                                      : QString("Switches set by hand."));
    markRefusedValues(current);
    markNotApplicable(current);
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
            const QString tip = valueTip(combo->itemData(i).toString().toStdString());
            item->setToolTip(why ? tip + "\n\nRefused with the other switches: " + QString::fromStdString(*why) : tip);
        }
    }
}

// On the selected backend some switches change nothing (on the CPU: launch, gemm, ...). They stay
// editable (a configuration may be meant for another backend later) but are greyed, and say why.
void ExecutionPanel::markNotApplicable(const ExecutionSettings& current) {
    const QString on = "\n\nNot applicable on the " + backendLabel(backend().toStdString()) + ": ";
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
    const QString rowTip = switchTexts().at(combo->objectName().toStdString()).tip;
    combo->setToolTip(why.isEmpty() ? rowTip
                                    : "Not applicable on the " + backendLabel(backend().toStdString()) + ": " + why);
    if (QWidget* label = switchesForm_->labelForField(combo)) label->setEnabled(why.isEmpty());
}

}  // namespace wb::gui
