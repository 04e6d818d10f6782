#include "gui/panels/task_fields.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <utility>

#include "core/platform/errors.h"
#include "gui/panels/field_guard.h"

namespace wb::gui {

namespace {

template <typename E>
void addItem(QComboBox* combo, const QString& text, E value, const QString& tip) {
    combo->addItem(text, QString::fromStdString(toString(value)));
    combo->setItemData(combo->count() - 1, tip, Qt::ToolTipRole);
}

template <typename E>
void select(QComboBox* combo, E value) {
    const QSignalBlocker quiet(combo);  // a setter shows a value; only the user's pick is news
    const int index = combo->findData(QString::fromStdString(toString(value)));
    if (index >= 0) combo->setCurrentIndex(index);
}

}  // namespace

QString inWindowWords(QString message) {
    static const QRegularExpression option(QStringLiteral("--task (auto|binary|multiclass|regression)"));
    return message.replace(option, QStringLiteral("Task \u2018\\1\u2019 (Model section)"));
}

TaskFields::TaskFields(QWidget* parent) : QWidget(parent) {
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    taskCombo_ = new QComboBox;
    taskCombo_->setObjectName("task");
    taskCombo_->setToolTip("What the label column is learned as. Changing it reloads the data set.");
    addItem(taskCombo_, "auto", TaskChoice::Auto,
            "Two values: binary; text or whole-number classes: multiclass. A numeric target needs regression.");
    addItem(taskCombo_, "binary", TaskChoice::Binary, "Yes/no: one output, binary cross-entropy");
    addItem(taskCombo_, "multiclass", TaskChoice::Multiclass, "One of K classes: K outputs, cross-entropy");
    addItem(taskCombo_, "regression", TaskChoice::Regression, "A number: one output, a squared or Huber loss");
    reasonLabel_ = new QLabel("load data to see the task");
    reasonLabel_->setObjectName("taskReason");
    reasonLabel_->setWordWrap(true);
    reasonLabel_->setToolTip("The task of the loaded data set, and why");
    lossCombo_ = new QComboBox;
    lossCombo_->setObjectName("regressionLoss");
    lossCombo_->setToolTip("The loss of a regression (on the standardised target)");
    addItem(lossCombo_, "mse", RegressionLoss::Mse, "Mean squared error, as nn.MSELoss");
    addItem(lossCombo_, "huber", RegressionLoss::Huber,
            "nn.HuberLoss (delta 1): squared near the target, linear beyond, so outliers pull less");
    form->addRow("Task", taskCombo_);
    form->addRow("", reasonLabel_);
    form->addRow("Regression loss", lossCombo_);
    weightsEdit_ = new QLineEdit;
    weightsEdit_->setObjectName("classWeights");
    weightsEdit_->setPlaceholderText("none (every class weighs 1)");
    weightsEdit_->setClearButtonEnabled(true);
    weightsEdit_->setToolTip(
        "Multiclass only: balanced (rows / (K \u00d7 the class's rows), over the training split) or one positive "
        "number per class, in the class order, e.g. 1, 2.5, 0.5 \u2014 as CrossEntropyLoss(weight=\u2026)");
    weightsMessage_ = new QLabel;
    weightsMessage_->setObjectName("classWeightsMessage");
    weightsMessage_->setStyleSheet("color: #b00020");
    weightsMessage_->hide();
    form->addRow("Class weights", weightsEdit_);
    form->addRow("", weightsMessage_);
    connect(weightsEdit_, &QLineEdit::textEdited, this, [this] {
        refreshWeightsMessage();
        emit classWeightsChanged();
    });
    connect(taskCombo_, &QComboBox::currentIndexChanged, this, [this] {
        refreshLossEnabled();
        emit taskChoiceChanged(taskChoice());
    });
    connect(lossCombo_, &QComboBox::currentIndexChanged, this, &TaskFields::regressionLossChanged);
    refreshLossEnabled();
}

TaskChoice TaskFields::taskChoice() const {
    return taskChoiceFromString(taskCombo_->currentData().toString().toStdString());
}

void TaskFields::setTaskChoice(TaskChoice choice) {
    select(taskCombo_, choice);
    refreshLossEnabled();
}

RegressionLoss TaskFields::regressionLoss() const {
    return regressionLossFromString(lossCombo_->currentData().toString().toStdString());
}

void TaskFields::setRegressionLoss(RegressionLoss loss) {
    select(lossCombo_, loss);
}

namespace {
// The typed text with spaces gone ("1, 2" reads as "1,2").
std::string weightsText(const QLineEdit* edit) {
    return edit->text().remove(' ').trimmed().toStdString();
}
}  // namespace

ClassWeights TaskFields::classWeights() const {
    if (!weightsEdit_->isEnabled() || !classWeightsProblem().isEmpty()) return {};
    return parseClassWeights(weightsText(weightsEdit_));
}

void TaskFields::setClassWeights(const ClassWeights& weights) {
    weightsEdit_->setText(QString::fromStdString(weights.balanced ? std::string("balanced") : toString(weights)));
    refreshWeightsMessage();
}

QString TaskFields::classWeightsProblem() const {
    if (!weightsEdit_->isEnabled()) return {};
    try {
        const ClassWeights w = parseClassWeights(weightsText(weightsEdit_));
        if (loadedTask_ == Task::Multiclass && !w.values.empty() && w.values.size() != std::size_t(outputs_))
            return QString("class weights: %1 given, but the data has %2 classes").arg(w.values.size()).arg(outputs_);
    } catch (const ConfigError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

void TaskFields::refreshWeightsMessage() {
    const QString problem = classWeightsProblem();
    showMessage(weightsMessage_, problem);
    weightsMessage_->setVisible(!problem.isEmpty());
}

void TaskFields::showDataset(const Dataset& loaded) {
    loadedTask_ = loaded.task;
    outputs_ = outputsFor(loaded.task, loaded.classes());
    const QString task = QString::fromStdString(toString(loaded.task));
    QString reason = QString::fromStdString(loaded.taskReason);  // "3 text values: multiclass" under auto
    if (reason.endsWith(": " + task)) reason.chop(task.size() + 2);
    // Auto's pick is the news: what it chose, and why; a task the user chose says how the data fits it.
    const bool automatic = taskChoice() == TaskChoice::Auto;
    const QString head = automatic ? QString("auto \u2192 %1").arg(task) : task;
    reasonLabel_->setText(reason.isEmpty() ? head : automatic ? QString("%1 (%2)").arg(head, reason) : reason);
    refreshLossEnabled();
}

void TaskFields::refreshLossEnabled() {
    const bool regression = loadedTask_ == Task::Regression || taskChoice() == TaskChoice::Regression;
    lossCombo_->setEnabled(regression);
    // Class weights weigh the classes of a multiclass loss: off for a binary or regression task.
    const TaskChoice choice = taskChoice();
    weightsEdit_->setEnabled(choice == TaskChoice::Multiclass ||
                             (choice == TaskChoice::Auto && loadedTask_ == Task::Multiclass));
    refreshWeightsMessage();
}

}  // namespace wb::gui
