// "New sweep…": the parameters to vary over the current configuration and their values, the method
// (grid, random or bayes), the metric, the engine (this machine's pool or SLURM) and the sweep's folder.
// It writes a W&B-shaped sweep file (sweep_spec.h) and the engine's options for `mlpwb sweep`, and
// remembers what it was accepted with (QSettings) for the next sweep.
//
// Values are separated by spaces ("256 1024 2048", "adam sgd", layers "20,10 64,32"); for a random
// sweep a range is "MIN..MAX" (uniform, whole numbers int_uniform) or "log MIN..MAX".
#pragma once

#include <QDialog>
#include <QStringList>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QFormLayout;
class QHBoxLayout;
class QLineEdit;
class QSpinBox;
class QTableWidget;

namespace wb::gui {

class NewSweepDialog : public QDialog {
    Q_OBJECT

public:
    explicit NewSweepDialog(QWidget* parent = nullptr);

    // The parameter names the dialog offers (the `mlpwb train` options that make sense to vary).
    static QStringList suggestedParameters();

    void addParameter(const QString& name, const QString& values);
    int parameterCount() const;  // rows, remembered ones included
    void setOutDir(const QString& dir);
    void setMethod(const QString& method);  // "grid" | "random"
    void setEngine(const QString& engine);  // "local" | "slurm"
    void setRepeats(int repeats);

    QString specYaml() const;  // the sweep file
    QString outDir() const;
    QStringList engineArgs() const;
    // Why the form cannot make a sweep yet ("" when it can): no parameter, a value missing.
    QString problem() const;

public slots:
    void accept() override;

private:
    QFormLayout* buildSweepForm();
    void buildParameterTable();
    QHBoxLayout* buildParameterButtons();
    QFormLayout* buildEngineForm();
    QHBoxLayout* buildOutDirRow();
    QDialogButtonBox* buildButtonBox();
    void connectSignals();
    void updateEngineFields();
    void restoreSettings();
    void saveSettings() const;

    QLineEdit* name_ = nullptr;
    QComboBox* method_ = nullptr;
    QSpinBox* runCap_ = nullptr;
    QSpinBox* seed_ = nullptr;
    QSpinBox* repeats_ = nullptr;
    QComboBox* metric_ = nullptr;
    QComboBox* goal_ = nullptr;
    QTableWidget* parameters_ = nullptr;
    QComboBox* engine_ = nullptr;
    QSpinBox* jobs_ = nullptr;
    QCheckBox* exclusive_ = nullptr;
    QLineEdit* slurmArgs_ = nullptr;
    QSpinBox* maxParallel_ = nullptr;
    QLineEdit* outDir_ = nullptr;
};

}  // namespace wb::gui
