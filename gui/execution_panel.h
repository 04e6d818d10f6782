// The "Execution" section of the configuration dock: which backend trains (CPU, or the CUDA device by
// name), and the execution switches, each one a suspected cause of the founding speed gap, set by a
// preset or one by one. A value that would make the combination refused is disabled with the reason;
// a switch the selected backend ignores is greyed with the reason.
#pragma once

#include <QString>
#include <QWidget>
#include <map>
#include <string>

#include "backend.h"
#include "execution_settings.h"

class QComboBox;
class QFormLayout;
class QLabel;

namespace wb::gui {

class ExecutionPanel : public QWidget {
    Q_OBJECT

public:
    static inline const QString kCustom = "custom";

    explicit ExecutionPanel(QWidget* parent = nullptr);
    ~ExecutionPanel() override;

    ExecutionSettings settings() const;
    void setSettings(const ExecutionSettings& settings);
    QString backend() const;  // "cpu", "cuda"
    void setBackend(const QString& name);
    QString preset() const;  // the preset shown, or "custom"
    void selectPreset(const QString& name);

    // Whether a run can be queued with these settings, and if not, why (in a sentence).
    bool valid() const;
    QString invalidReason() const;

signals:
    void changed();

private:
    QWidget* buildBackendGroup();
    QWidget* buildSwitchesGroup();
    void fillBackends();
    void onPresetChosen();
    void onSwitchChosen();
    void showSettings(const ExecutionSettings& settings);
    void refresh();
    void markRefusedValues(const ExecutionSettings& current);
    void markNotApplicable(const ExecutionSettings& current);
    void greySwitch(QComboBox* combo, const QString& why);  // why empty: the switch applies

    QComboBox* backendCombo_ = nullptr;
    QComboBox* presetCombo_ = nullptr;
    QLabel* presetDescription_ = nullptr;
    QFormLayout* switchesForm_ = nullptr;
    std::map<std::string, QComboBox*> switchCombos_;  // by switch name, as in describeSwitches
    QLabel* warningLabel_ = nullptr;
    bool updating_ = false;  // set while a preset or setter fills the switches
};

}  // namespace wb::gui
