// The "Model and optimizer" section of the configuration dock: the hidden layers (an editable list),
// activation and initialisation with the parameter count shown live, the optimizer with only the
// hyperparameters that apply to its type, and the training loop's epochs, batch size, shuffle and seed.
#pragma once

#include <QString>
#include <QWidget>
#include <cstddef>
#include <utility>
#include <vector>

#include "core/data/dataset.h"
#include "core/data/task.h"
#include "core/model/model.h"
#include "core/model/optimizer.h"
#include "core/run/run_config.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QListWidget;
class QPushButton;
class QSpinBox;

namespace wb::gui {
class TaskFields;
}

namespace wb::gui {

class ModelPanel : public QWidget {
    Q_OBJECT

public:
    explicit ModelPanel(QWidget* parent = nullptr);

    ModelSpec modelSpec() const;
    OptimizerSpec optimizerSpec() const;
    TrainSpec trainSpec() const;
    void setModelSpec(const ModelSpec& spec);
    void setOptimizerSpec(const OptimizerSpec& spec);  // keeps every value given, defaults are not loaded
    void setTrainSpec(const TrainSpec& spec);

    // The number of input features, for the parameter count (the loaded data set's feature count).
    void setInputs(int inputs);
    std::size_t parameterCount() const;
    // The task rows (task_fields.h): the user's choice, and what the loaded data set is learned as;
    // the output layer of the preview and of modelSpec() follows the loaded data's task.
    TaskChoice taskChoice() const;
    void setTaskChoice(TaskChoice choice);   // emits nothing
    void setDataset(const Dataset& loaded);  // the feature count, the task and auto's reason

    // Why Run must refuse these fields ("learning rate 100 is outside 1e-12 … 10"); empty when it need not.
    // A number outside a field's range is kept as typed and the field shows red until it is fixed.
    QString invalidReason() const;

signals:
    void changed();
    void taskChoiceChanged(wb::TaskChoice choice);  // the user picked another task: the data reloads

private:
    QWidget* buildModelGroup();
    QWidget* buildLayersEditor();
    QWidget* buildOptimizerGroup();
    QWidget* buildTrainGroup();
    void addLayer();
    void removeLayer();
    void onLayerSelected();
    void onWidthEdited(int width);
    void setLayers(const std::vector<int>& widths);
    void onOptimizerTypeChosen();
    void showOptimizerFields(OptimizerKind kind);
    void fillOptimizerFields(const OptimizerSpec& spec);
    void refreshSummary();
    std::vector<std::pair<QDoubleSpinBox*, QString>> rangedFields() const;
    void notify();

    int inputs_ = 61;        // the built-in data set's width until a data set says otherwise
    bool updating_ = false;  // set while a setter fills the fields, so they do not echo changed()
    // No field of its own (the CLI's --divergence-factor): kept as set, so a loaded run keeps it.
    double divergenceFactor_ = TrainSpec{}.divergenceFactor;

    QListWidget* layersList_ = nullptr;
    QSpinBox* widthSpin_ = nullptr;
    QPushButton* addButton_ = nullptr;
    QPushButton* removeButton_ = nullptr;
    QComboBox* activationCombo_ = nullptr;
    QComboBox* initCombo_ = nullptr;
    QLabel* paramsLabel_ = nullptr;
    TaskFields* taskFields_ = nullptr;

    QFormLayout* optimizerForm_ = nullptr;
    QComboBox* optimizerCombo_ = nullptr;
    QDoubleSpinBox* lrSpin_ = nullptr;
    QDoubleSpinBox* beta1Spin_ = nullptr;
    QDoubleSpinBox* beta2Spin_ = nullptr;
    QDoubleSpinBox* epsSpin_ = nullptr;
    QDoubleSpinBox* weightDecaySpin_ = nullptr;
    QDoubleSpinBox* momentumSpin_ = nullptr;
    QDoubleSpinBox* dampeningSpin_ = nullptr;
    QCheckBox* nesterovCheck_ = nullptr;
    QDoubleSpinBox* alphaSpin_ = nullptr;
    QCheckBox* centeredCheck_ = nullptr;
    QLabel* optimizerWarning_ = nullptr;

    QSpinBox* epochsSpin_ = nullptr;
    QSpinBox* batchSpin_ = nullptr;
    QCheckBox* shuffleCheck_ = nullptr;
    QSpinBox* seedSpin_ = nullptr;
};

}  // namespace wb::gui
