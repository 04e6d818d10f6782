#include "task_fields.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QRegularExpression>
#include <utility>

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
}

}  // namespace wb::gui
