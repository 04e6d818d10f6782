// The task rows of the Model section: what the label column is learned as (auto, binary,
// multiclass, regression), what auto chose and why once data is loaded, the loss of a regression and
// the class weights of a multiclass loss (none, `balanced` or one number per class).
// The choice belongs to the data (DataSpec::task decides how the label column is read): the window
// hands a change to the Data panel, which reloads the data set with it.
#pragma once

#include <QWidget>

#include "core/data/dataset.h"
#include "core/data/task.h"
#include "core/model/model.h"

class QComboBox;
class QLabel;
class QLineEdit;

namespace wb::gui {

// A loader's message in the window's words: its advice "use --task regression" names the command
// line's option; here the task is picked in the Model section.
QString inWindowWords(QString message);

class TaskFields : public QWidget {
    Q_OBJECT

public:
    explicit TaskFields(QWidget* parent = nullptr);

    TaskChoice taskChoice() const;
    void setTaskChoice(TaskChoice choice);  // shows it; emits nothing
    RegressionLoss regressionLoss() const;
    void setRegressionLoss(RegressionLoss loss);  // shows it; emits nothing
    // The class weights typed (none while the field is off, i.e. the task is not multiclass, or its
    // text is refused: classWeightsProblem says why).
    ClassWeights classWeights() const;
    void setClassWeights(const ClassWeights& weights);  // shows them ("balanced" when they came from it); emits nothing
    // Why the typed class weights cannot be used ("" when they can): not numbers, not positive, or
    // not one per class of the loaded data.
    QString classWeightsProblem() const;
    // The loaded data's task and why ("auto → multiclass (3 text values)"); the regression loss
    // applies only when that task is a regression.
    void showDataset(const Dataset& loaded);
    // Logits of the output layer for the loaded data (1 until data says otherwise).
    int outputs() const { return outputs_; }

signals:
    void taskChoiceChanged(wb::TaskChoice choice);  // the user picked another task
    void regressionLossChanged();
    void classWeightsChanged();

private:
    void refreshLossEnabled();
    void refreshWeightsMessage();

    QComboBox* taskCombo_ = nullptr;
    QLabel* reasonLabel_ = nullptr;
    QComboBox* lossCombo_ = nullptr;
    QLineEdit* weightsEdit_ = nullptr;
    QLabel* weightsMessage_ = nullptr;  // why the typed weights are refused; hidden when they are fine
    Task loadedTask_ = Task::Binary;
    int outputs_ = 1;
};

}  // namespace wb::gui
