// The "Execution" section of the configuration dock: which backend trains (CPU, the CUDA device by
// name, or a framework such as PyTorch in the user's Python), the interpreter the framework backends
// run in, the PyTorch knobs (while torch is selected), and the execution switches, each one a
// suspected cause of the founding speed gap, set by a preset or one by one. A value that would make
// the combination refused is disabled with the reason; a switch the selected backend ignores is
// greyed with the reason. Which backends can train is asked off the GUI thread (a framework's probe
// imports it in a subprocess): until the answer comes, only the CPU is listed, and a framework
// backend that is being asked again shows "checking…".
#pragma once

#include <QString>
#include <QWidget>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/model/execution_settings.h"
#include "core/run/backend.h"
#include "core/run/framework_options.h"
#include "gui/panels/backend_check.h"

class QComboBox;
class QFormLayout;
class QLabel;
class QSpinBox;

namespace wb::gui {

class InterpreterField;
class TorchOptionsGroup;

class ExecutionPanel : public QWidget {
    Q_OBJECT

public:
    static inline const QString kCustom = "custom";
    static inline const QString kPythonSetting = "frameworks/python";  // QSettings key; empty = the default

    explicit ExecutionPanel(QWidget* parent = nullptr);
    ~ExecutionPanel() override;

    ExecutionSettings settings() const;
    void setSettings(const ExecutionSettings& settings);
    QString backend() const;  // "cpu", "cuda", "torch"
    // Selects `name` when it can train; while the backends are being checked, once the answer says so.
    void setBackend(const QString& name);
    // The device the selected backend reports (empty when it reports none, or is not known yet).
    QString backendDevice() const;

    // The framework device and knobs shown, and the interpreter runs use (resolved: never empty).
    FrameworkOptions frameworkOptions() const;
    // Shows the device and knobs of `options`; its `python` is ignored: the interpreter is this
    // machine's setting (setPython), not a run's.
    void setFrameworkOptions(const FrameworkOptions& options);
    QString python() const;  // the chosen interpreter; empty = the default ($MLPWB_PYTHON, else python3)
    // As if the user chose `path`: kept in QSettings (kPythonSetting), made the process's preferred
    // interpreter, and the backends checked again with it.
    void setPython(const QString& path);
    // Asks every backend again, off the GUI thread (after installing a package); backendsChecked() follows.
    void checkBackends();
    bool checkingBackends() const;
    QString preset() const;  // the preset shown, or "custom"
    void selectPreset(const QString& name);

    // How many times Run and Compare train each configuration. Repeats go in rounds (A1 B1 A2 B2 ...)
    // so that a drift of the machine hits every configuration alike, and the Speedup chart shows the
    // median over them with its range. Run defaults to 1 (a quick look); Compare to 3, since a speed
    // claim needs a spread: with fewer, "no measurable difference" cannot be told from noise.
    static constexpr int kMaxRepeats = 20;
    int runRepeats() const;
    int compareRepeats() const;
    void setRepeats(int run, int compare);
    // Threads of the CPU backend (RunConfig::threads): 0 = the machine's hardware threads.
    static constexpr int kMaxThreads = 1024;
    int threads() const;
    void setThreads(int threads);

    // Whether a run can be queued with these settings, and if not, why (in a sentence).
    bool valid() const;
    QString invalidReason() const;

signals:
    void changed();
    void backendsChecked();  // the backend list shows the registry's latest answer

private:
    QWidget* buildBackendGroup();
    QWidget* buildSwitchesGroup();
    void addPresetRows();
    void addSwitchRows();
    void addRepeatsRow();
    void addThreadsRow();
    void usePython(const QString& path);
    void fillBackends();  // from the latest snapshot (only the CPU before the first)
    void onBackendsChecked(const BackendSnapshot& snapshot);
    void showPythonStatus();
    QString backendTitle(const BackendInfo& info) const;
    std::vector<IgnoredSwitch> ignoredBy(const QString& backend, const ExecutionSettings& s) const;
    void onPresetChosen();
    void onSwitchChosen();
    void showSettings(const ExecutionSettings& settings);
    void refresh();
    void markRefusedValues(const ExecutionSettings& current);
    void markNotApplicable(const ExecutionSettings& current);
    void greySwitch(QComboBox* combo, const QString& why);  // why empty: the switch applies

    QComboBox* backendCombo_ = nullptr;
    InterpreterField* python_ = nullptr;
    QLabel* pythonStatus_ = nullptr;
    TorchOptionsGroup* torchGroup_ = nullptr;
    BackendCheck* check_ = nullptr;
    std::optional<BackendSnapshot> snapshot_;  // the latest answer; none before the first
    QString wanted_;         // a backend asked for while the check runs, selected when it turns out available
    QString defaultPython_;  // what an empty interpreter setting means
    QComboBox* presetCombo_ = nullptr;
    QLabel* presetDescription_ = nullptr;
    QFormLayout* switchesForm_ = nullptr;
    std::map<std::string, QComboBox*> switchCombos_;  // by switch name, as in describeSwitches
    QLabel* warningLabel_ = nullptr;
    QSpinBox* runRepeats_ = nullptr;
    QSpinBox* compareRepeats_ = nullptr;
    QSpinBox* threads_ = nullptr;
    bool updating_ = false;  // set while a preset or setter fills the switches
};

}  // namespace wb::gui
