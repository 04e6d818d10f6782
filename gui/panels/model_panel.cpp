#include "gui/panels/model_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>
#include <utility>

#include "core/platform/errors.h"
#include "gui/panels/field_guard.h"
#include "gui/panels/form_widgets.h"
#include "gui/panels/task_fields.h"

namespace wb::gui {

namespace {

constexpr int kMaxWidth = 1024;
constexpr int kWidthRole = Qt::UserRole;

// A spin box that shows and accepts numbers like 1e-08 or 0.001, since learning rates and epsilons
// span many orders of magnitude and a fixed number of decimals would show them as 0.000. A number
// outside the allowed range is kept as typed, not snapped into the range (a learning rate of 100 must
// not quietly become 10 or the old value): the field turns red and the panel says why Run is refused.
class ScientificSpinBox : public QDoubleSpinBox {
public:
    static constexpr double kCeiling = 1e15;  // what the field holds at all; the allowed range is narrower

    ScientificSpinBox(const QString& name, double min, double max) : allowedMin_(min), allowedMax_(max) {
        setObjectName(name);
        setDecimals(15);  // the value is kept to 15 decimals: enough for any epsilon a user types
        setRange(std::min(min, 0.0), kCeiling);
        setStepType(QAbstractSpinBox::AdaptiveDecimalStepType);
        setKeyboardTracking(false);
    }

    double allowedMin() const { return allowedMin_; }
    double allowedMax() const { return allowedMax_; }
    bool inRange() const { return value() >= allowedMin_ && value() <= allowedMax_; }

    static QString format(double value) {
        return QLocale::c().toString(value, 'g', 10).replace("e-0", "e-").replace("e+0", "e+");
    }

    QString textFromValue(double value) const override { return format(value); }

    double valueFromText(const QString& text) const override { return QLocale::c().toDouble(text.trimmed()); }

    QValidator::State validate(QString& input, int& /*pos*/) const override {
        bool ok = false;
        const double value = QLocale::c().toDouble(input.trimmed(), &ok);
        if (ok) return value >= minimum() && value <= maximum() ? QValidator::Acceptable : QValidator::Intermediate;
        static const QRegularExpression partial(R"(^\s*[0-9]*\.?[0-9]*([eE][-+]?[0-9]*)?\s*$)");
        return partial.match(input).hasMatch() ? QValidator::Intermediate : QValidator::Invalid;
    }

    // The arrows stay inside the allowed range.
    void stepBy(int steps) override {
        QDoubleSpinBox::stepBy(steps);
        if (value() > allowedMax_) setValue(allowedMax_);
        if (value() < allowedMin_) setValue(allowedMin_);
    }

private:
    double allowedMin_;
    double allowedMax_;
};

// Items carry the core's name of their value ("tanh", "sgd"), the same word the CLI and JSON use.
template <typename E>
void addEnumItem(QComboBox* combo, const QString& text, E value, const QString& tip) {
    combo->addItem(text, QString::fromStdString(toString(value)));
    combo->setItemData(combo->count() - 1, tip, Qt::ToolTipRole);
}

std::string nameOf(const QComboBox* combo) {
    return combo->currentData().toString().toStdString();
}

template <typename E>
void selectEnum(QComboBox* combo, E value) {
    const int index = combo->findData(QString::fromStdString(toString(value)));
    if (index >= 0) combo->setCurrentIndex(index);
}

QString layerText(int index, int width) {
    return QString("Layer %1: %2 units").arg(index + 1).arg(width);
}

}  // namespace

ModelPanel::ModelPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(buildModelGroup());
    layout->addWidget(buildOptimizerGroup());
    layout->addWidget(buildTrainGroup());
    setModelSpec(ModelSpec{});
    setOptimizerSpec(OptimizerSpec::defaults(OptimizerKind::Adam));
    setTrainSpec(TrainSpec{});
    guardWheel(this);
}

QWidget* ModelPanel::buildModelGroup() {
    auto* group = new QGroupBox("Model");
    auto* form = new QFormLayout(group);
    activationCombo_ = new QComboBox;
    activationCombo_->setObjectName("activation");
    activationCombo_->setToolTip("The nonlinearity after every hidden layer (none after the output layer)");
    addEnumItem(activationCombo_, "tanh", Activation::Tanh, "Smooth, outputs in (-1, 1): the founding model");
    addEnumItem(activationCombo_, "relu", Activation::Relu, "max(0, x): cheap and the common default");
    addEnumItem(activationCombo_, "sigmoid", Activation::Sigmoid, "Outputs in (0, 1); saturates easily");
    addEnumItem(activationCombo_, "gelu", Activation::Gelu, "A smooth relu, as in transformers (tanh form)");
    addEnumItem(activationCombo_, "identity", Activation::Identity, "No nonlinearity: a linear model");
    initCombo_ = new QComboBox;
    initCombo_->setObjectName("init");
    initCombo_->setToolTip("How the starting weights are drawn (from the training seed)");
    addEnumItem(initCombo_, "torch", InitKind::Torch, "PyTorch nn.Linear's default: uniform ±1/√fan_in, bias too");
    addEnumItem(initCombo_, "glorot", InitKind::Glorot, "Keras' default: Glorot uniform weights, zero bias");
    paramsLabel_ = new QLabel;
    paramsLabel_->setObjectName("parameterCount");
    paramsLabel_->setWordWrap(true);
    paramsLabel_->setToolTip("Weights and biases to train, for the feature count of the loaded data set");
    taskFields_ = new TaskFields;
    form->addRow(taskFields_);
    form->addRow(new QLabel("Hidden layers, input side first:"));
    form->addRow(buildLayersEditor());
    form->addRow("Activation", activationCombo_);
    form->addRow("Initialization", initCombo_);
    form->addRow("Parameters", paramsLabel_);
    connect(activationCombo_, &QComboBox::currentIndexChanged, this, &ModelPanel::notify);
    connect(initCombo_, &QComboBox::currentIndexChanged, this, &ModelPanel::notify);
    connect(taskFields_, &TaskFields::taskChoiceChanged, this, &ModelPanel::taskChoiceChanged);
    connect(taskFields_, &TaskFields::regressionLossChanged, this, &ModelPanel::notify);
    connect(taskFields_, &TaskFields::classWeightsChanged, this, &ModelPanel::notify);
    return group;
}

QWidget* ModelPanel::buildLayersEditor() {
    auto* box = new QWidget;
    auto* row = new QHBoxLayout(box);
    row->setContentsMargins(0, 0, 0, 0);
    layersList_ = new QListWidget;
    layersList_->setObjectName("hiddenLayers");
    layersList_->setToolTip("The hidden layers from the input to the output. Select one to change its width.");
    layersList_->setMaximumHeight(6 * layersList_->fontMetrics().height() + 8);
    widthSpin_ = intSpin("layerWidth", 1, kMaxWidth, 10, "Units in the selected layer (1 to 1024)");
    addButton_ = new QPushButton("Add");
    addButton_->setObjectName("addLayer");
    addButton_->setToolTip("Add a layer of this width after the selected one");
    removeButton_ = new QPushButton("Remove");
    removeButton_->setObjectName("removeLayer");
    removeButton_->setToolTip("Remove the selected layer (with none left the model is logistic regression)");
    auto* side = new QVBoxLayout;
    side->addWidget(widthSpin_);
    side->addWidget(addButton_);
    side->addWidget(removeButton_);
    side->addStretch();
    row->addWidget(layersList_, 1);
    row->addLayout(side);
    connect(layersList_, &QListWidget::currentRowChanged, this, &ModelPanel::onLayerSelected);
    connect(widthSpin_, &QSpinBox::valueChanged, this, &ModelPanel::onWidthEdited);
    connect(addButton_, &QPushButton::clicked, this, &ModelPanel::addLayer);
    connect(removeButton_, &QPushButton::clicked, this, &ModelPanel::removeLayer);
    return box;
}

QWidget* ModelPanel::buildOptimizerGroup() {
    auto* group = new QGroupBox("Optimizer");
    auto* column = new QVBoxLayout(group);
    optimizerForm_ = new QFormLayout;
    column->addLayout(optimizerForm_);
    optimizerCombo_ = new QComboBox;
    optimizerCombo_->setObjectName("optimizerType");
    optimizerCombo_->setToolTip("The update rule, as in torch.optim. Choosing one loads PyTorch's defaults.");
    addEnumItem(optimizerCombo_, "Adam", OptimizerKind::Adam, "torch.optim.Adam: the founding case");
    addEnumItem(optimizerCombo_, "AdamW", OptimizerKind::AdamW, "Adam with weight decay applied to the weights");
    addEnumItem(optimizerCombo_, "SGD", OptimizerKind::Sgd, "Plain gradient steps, optionally with momentum");
    addEnumItem(optimizerCombo_, "RMSprop", OptimizerKind::RmsProp, "Steps scaled by a running RMS of gradients");
    lrSpin_ = new ScientificSpinBox("lr", 1e-12, 10.0);
    lrSpin_->setToolTip("Learning rate: how far each step moves the weights");
    beta1Spin_ = new ScientificSpinBox("beta1", 0.0, 0.999999);
    beta1Spin_->setToolTip("Decay of the running mean of gradients (momentum); PyTorch default 0.9");
    beta2Spin_ = new ScientificSpinBox("beta2", 0.0, 0.999999);
    beta2Spin_->setToolTip("Decay of the running mean of squared gradients; PyTorch default 0.999");
    epsSpin_ = new ScientificSpinBox("eps", 0.0, 1.0);
    epsSpin_->setToolTip("Added to the denominator so a step never divides by zero");
    weightDecaySpin_ = new ScientificSpinBox("weightDecay", 0.0, 1.0);
    weightDecaySpin_->setToolTip("Pulls weights towards zero each step (AdamW: decoupled from the gradient)");
    momentumSpin_ = new ScientificSpinBox("momentum", 0.0, 1.0);
    momentumSpin_->setToolTip("Fraction of the previous step carried into the next; 0 turns momentum off");
    dampeningSpin_ = new ScientificSpinBox("dampening", 0.0, 1.0);
    dampeningSpin_->setToolTip("Scales down the new gradient's share of the momentum (must be 0 for Nesterov)");
    nesterovCheck_ = checkBox("nesterov", "Nesterov momentum", "Look ahead along the momentum (needs momentum > 0)");
    alphaSpin_ = new ScientificSpinBox("alpha", 0.0, 1.0);
    alphaSpin_->setToolTip("Decay of the running mean of squared gradients; PyTorch default 0.99");
    centeredCheck_ = checkBox("centered", "Centered", "Divide by the gradients' variance instead of their RMS");
    optimizerWarning_ = new QLabel;
    optimizerWarning_->setObjectName("optimizerWarning");
    optimizerWarning_->setWordWrap(true);
    QPalette red = optimizerWarning_->palette();
    red.setColor(QPalette::WindowText, QColor(176, 0, 32));
    optimizerWarning_->setPalette(red);
    optimizerWarning_->hide();
    optimizerForm_->addRow("Type", optimizerCombo_);
    optimizerForm_->addRow("Learning rate", lrSpin_);
    optimizerForm_->addRow("Beta 1", beta1Spin_);
    optimizerForm_->addRow("Beta 2", beta2Spin_);
    optimizerForm_->addRow("Alpha", alphaSpin_);
    optimizerForm_->addRow("Epsilon", epsSpin_);
    optimizerForm_->addRow("Momentum", momentumSpin_);
    optimizerForm_->addRow("Dampening", dampeningSpin_);
    optimizerForm_->addRow("Weight decay", weightDecaySpin_);
    optimizerForm_->addRow(nesterovCheck_);
    optimizerForm_->addRow(centeredCheck_);
    // Below the form, not in it: a form row whose neighbours come and go misjudges a wrapped label's height.
    column->addWidget(optimizerWarning_);
    connect(optimizerCombo_, &QComboBox::currentIndexChanged, this, &ModelPanel::onOptimizerTypeChosen);
    for (QDoubleSpinBox* spin :
         {lrSpin_, beta1Spin_, beta2Spin_, epsSpin_, weightDecaySpin_, momentumSpin_, dampeningSpin_, alphaSpin_})
        connect(spin, &QDoubleSpinBox::valueChanged, this, &ModelPanel::notify);
    for (QCheckBox* check : {nesterovCheck_, centeredCheck_})
        connect(check, &QCheckBox::toggled, this, &ModelPanel::notify);
    return group;
}

QWidget* ModelPanel::buildTrainGroup() {
    auto* group = new QGroupBox("Training");
    auto* form = new QFormLayout(group);
    epochsSpin_ = intSpin("epochs", 1, 100'000, 200, "Passes over the training rows; the founding case uses 200");
    batchSpin_ = intSpin("batchSize", 1, 1 << 20, 2048, "Rows per optimizer step; the founding case uses 2048");
    batchSpin_->setSingleStep(256);
    shuffleCheck_ = checkBox("shuffle", "Shuffle rows every epoch",
                             "Visit the training rows in a new random order each epoch. Off by default, as in "
                             "the founding loop (which is one reason it can be compared step for step).");
    seedSpin_ = intSpin("trainSeed", 0, std::numeric_limits<int>::max(), 1,
                        "Seeds the starting weights, the shuffling and the validation split: the same seed "
                        "gives the same run");
    seedSpin_->setGroupSeparatorShown(false);
    form->addRow("Epochs", epochsSpin_);
    form->addRow("Batch size", batchSpin_);
    form->addRow("Seed", seedSpin_);
    form->addRow(shuffleCheck_);
    for (QSpinBox* spin : {epochsSpin_, batchSpin_, seedSpin_})
        connect(spin, &QSpinBox::valueChanged, this, &ModelPanel::notify);
    connect(shuffleCheck_, &QCheckBox::toggled, this, &ModelPanel::notify);
    return group;
}

// ---- hidden layers ------------------------------------------------------------------------------

void ModelPanel::setLayers(const std::vector<int>& widths) {
    layersList_->clear();
    for (std::size_t i = 0; i < widths.size(); ++i) {
        auto* item = new QListWidgetItem(layerText(static_cast<int>(i), widths[i]));
        item->setData(kWidthRole, widths[i]);
        layersList_->addItem(item);
    }
    layersList_->setCurrentRow(widths.empty() ? -1 : 0);
    removeButton_->setEnabled(!widths.empty());
}

void ModelPanel::onLayerSelected() {
    const QListWidgetItem* item = layersList_->currentItem();
    if (!item) return;
    const bool was = std::exchange(updating_, true);  // showing a width is not editing it
    widthSpin_->setValue(item->data(kWidthRole).toInt());
    updating_ = was;
}

void ModelPanel::onWidthEdited(int width) {
    QListWidgetItem* item = layersList_->currentItem();
    if (updating_ || !item) return;
    item->setData(kWidthRole, width);
    item->setText(layerText(layersList_->row(item), width));
    notify();
}

void ModelPanel::addLayer() {
    const int row = layersList_->currentRow() + 1;  // after the selection, or first when none
    auto* item = new QListWidgetItem;
    item->setData(kWidthRole, widthSpin_->value());
    layersList_->insertItem(row, item);
    for (int i = 0; i < layersList_->count(); ++i)
        layersList_->item(i)->setText(layerText(i, layersList_->item(i)->data(kWidthRole).toInt()));
    layersList_->setCurrentRow(row);
    removeButton_->setEnabled(true);
    notify();
}

void ModelPanel::removeLayer() {
    const int row = layersList_->currentRow() >= 0 ? layersList_->currentRow() : layersList_->count() - 1;
    if (row < 0) return;
    delete layersList_->takeItem(row);
    for (int i = 0; i < layersList_->count(); ++i)
        layersList_->item(i)->setText(layerText(i, layersList_->item(i)->data(kWidthRole).toInt()));
    removeButton_->setEnabled(layersList_->count() > 0);
    notify();
}

// ---- optimizer ----------------------------------------------------------------------------------

void ModelPanel::onOptimizerTypeChosen() {
    const auto kind = optimizerKindFromString(nameOf(optimizerCombo_));
    showOptimizerFields(kind);
    // A new type starts from PyTorch's defaults: the old type's numbers rarely suit it (RMSprop's lr
    // is ten times Adam's). Setters keep their own values.
    if (!updating_) fillOptimizerFields(OptimizerSpec::defaults(kind));
    notify();
}

void ModelPanel::showOptimizerFields(OptimizerKind kind) {
    using enum OptimizerKind;
    const bool adam = kind == Adam || kind == AdamW;
    optimizerForm_->setRowVisible(beta1Spin_, adam);
    optimizerForm_->setRowVisible(beta2Spin_, adam);
    optimizerForm_->setRowVisible(epsSpin_, adam || kind == RmsProp);
    optimizerForm_->setRowVisible(momentumSpin_, kind == Sgd || kind == RmsProp);
    optimizerForm_->setRowVisible(dampeningSpin_, kind == Sgd);
    optimizerForm_->setRowVisible(nesterovCheck_, kind == Sgd);
    optimizerForm_->setRowVisible(alphaSpin_, kind == RmsProp);
    optimizerForm_->setRowVisible(centeredCheck_, kind == RmsProp);
}

void ModelPanel::fillOptimizerFields(const OptimizerSpec& spec) {
    const bool was = std::exchange(updating_, true);
    lrSpin_->setValue(spec.lr);
    beta1Spin_->setValue(spec.beta1);
    beta2Spin_->setValue(spec.beta2);
    epsSpin_->setValue(spec.eps);
    weightDecaySpin_->setValue(spec.weightDecay);
    momentumSpin_->setValue(spec.momentum);
    dampeningSpin_->setValue(spec.dampening);
    nesterovCheck_->setChecked(spec.nesterov);
    alphaSpin_->setValue(spec.alpha);
    centeredCheck_->setChecked(spec.centered);
    updating_ = was;
}

// ---- specs --------------------------------------------------------------------------------------

ModelSpec ModelPanel::modelSpec() const {
    ModelSpec spec;
    spec.hidden.clear();
    for (int i = 0; i < layersList_->count(); ++i)
        spec.hidden.push_back(layersList_->item(i)->data(kWidthRole).toInt());
    spec.activation = activationFromString(nameOf(activationCombo_));
    spec.init = initKindFromString(nameOf(initCombo_));
    spec.outputs = taskFields_->outputs();
    spec.regressionLoss = taskFields_->regressionLoss();
    spec.classWeights = taskFields_->classWeights();
    return spec;
}

OptimizerSpec ModelPanel::optimizerSpec() const {
    OptimizerSpec spec;
    spec.kind = optimizerKindFromString(nameOf(optimizerCombo_));
    spec.lr = lrSpin_->value();
    spec.beta1 = beta1Spin_->value();
    spec.beta2 = beta2Spin_->value();
    spec.eps = epsSpin_->value();
    spec.weightDecay = weightDecaySpin_->value();
    spec.momentum = momentumSpin_->value();
    spec.dampening = dampeningSpin_->value();
    spec.nesterov = nesterovCheck_->isChecked();
    spec.alpha = alphaSpin_->value();
    spec.centered = centeredCheck_->isChecked();
    return spec;
}

TrainSpec ModelPanel::trainSpec() const {
    TrainSpec spec;
    spec.epochs = epochsSpin_->value();
    spec.batchSize = batchSpin_->value();
    spec.shuffle = shuffleCheck_->isChecked();
    spec.seed = static_cast<std::uint64_t>(seedSpin_->value());
    spec.divergenceFactor = divergenceFactor_;
    return spec;
}

void ModelPanel::setModelSpec(const ModelSpec& spec) {
    const bool was = std::exchange(updating_, true);
    std::vector<int> widths = spec.hidden;
    for (int& w : widths) w = std::clamp(w, 1, kMaxWidth);
    setLayers(widths);
    selectEnum(activationCombo_, spec.activation);
    selectEnum(initCombo_, spec.init);
    taskFields_->setRegressionLoss(spec.regressionLoss);  // the outputs follow the data, not a saved config
    taskFields_->setClassWeights(spec.classWeights);
    updating_ = was;
    notify();
}

void ModelPanel::setOptimizerSpec(const OptimizerSpec& spec) {
    const bool was = std::exchange(updating_, true);
    selectEnum(optimizerCombo_, spec.kind);
    showOptimizerFields(spec.kind);
    fillOptimizerFields(spec);
    updating_ = was;
    notify();
}

void ModelPanel::setTrainSpec(const TrainSpec& spec) {
    const bool was = std::exchange(updating_, true);
    epochsSpin_->setValue(spec.epochs);
    batchSpin_->setValue(spec.batchSize);
    shuffleCheck_->setChecked(spec.shuffle);
    seedSpin_->setValue(static_cast<int>(std::min<std::uint64_t>(spec.seed, std::numeric_limits<int>::max())));
    divergenceFactor_ = spec.divergenceFactor;
    updating_ = was;
    notify();
}

void ModelPanel::setInputs(int inputs) {
    inputs_ = std::max(inputs, 1);
    refreshSummary();
}

TaskChoice ModelPanel::taskChoice() const {
    return taskFields_->taskChoice();
}

void ModelPanel::setTaskChoice(TaskChoice choice) {
    taskFields_->setTaskChoice(choice);
}

void ModelPanel::setDataset(const Dataset& loaded) {
    taskFields_->showDataset(loaded);
    setInputs(static_cast<int>(loaded.cols));
}

std::size_t ModelPanel::parameterCount() const {
    return wb::parameterCount(modelSpec(), static_cast<std::size_t>(inputs_));
}

// ---- derived views ------------------------------------------------------------------------------

void ModelPanel::refreshSummary() {
    QStringList shape;
    for (int w : modelSpec().widths(static_cast<std::size_t>(inputs_))) shape << QString::number(w);
    paramsLabel_->setText(
        QString("%1  (%2)").arg(QLocale().toString(static_cast<qulonglong>(parameterCount())), shape.join(" → ")));
    // A field out of its range shows red until it is fixed.
    for (const auto& [spin, words] : rangedFields()) {
        const bool bad = !static_cast<const ScientificSpinBox*>(spin)->inRange();
        QPalette palette;  // empty: the normal look
        if (bad) palette.setColor(QPalette::Base, QColor(255, 205, 210));
        spin->setPalette(palette);
        spin->setProperty("outOfRange", bad);
    }
    QString problem = invalidReason();
    if (problem.isEmpty()) try {
            optimizerSpec().validate();
        } catch (const ConfigError& e) {
            problem = QString::fromStdString(e.what());
        }
    optimizerWarning_->setText(problem);
    optimizerWarning_->setVisible(!problem.isEmpty());
}

// The optimizer fields shown with their names in words, for the range check.
std::vector<std::pair<QDoubleSpinBox*, QString>> ModelPanel::rangedFields() const {
    return {{lrSpin_, "learning rate"},    {beta1Spin_, "beta 1"},
            {beta2Spin_, "beta 2"},        {alphaSpin_, "alpha"},
            {epsSpin_, "epsilon"},         {momentumSpin_, "momentum"},
            {dampeningSpin_, "dampening"}, {weightDecaySpin_, "weight decay"}};
}

QString ModelPanel::invalidReason() const {
    QStringList problems;
    for (const auto& [spin, words] : rangedFields()) {
        const auto* field = static_cast<const ScientificSpinBox*>(spin);
        if (!optimizerForm_->isRowVisible(spin) || field->inRange()) continue;
        problems << QString("%1 %2 is outside %3 \u2026 %4")
                        .arg(words, ScientificSpinBox::format(field->value()),
                             ScientificSpinBox::format(field->allowedMin()),
                             ScientificSpinBox::format(field->allowedMax()));
    }
    if (const QString weights = taskFields_->classWeightsProblem(); !weights.isEmpty()) problems << weights;
    return problems.join("; ");
}

void ModelPanel::notify() {
    // Every edit lands here; a setter's many field changes make one changed() at its end.
    if (updating_) return;
    refreshSummary();
    emit changed();
}

}  // namespace wb::gui
