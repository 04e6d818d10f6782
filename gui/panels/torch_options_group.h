// The "PyTorch" group of the execution panel, shown while the torch backend is selected: the
// framework's device and the knobs no shared switch expresses (the DataLoader's workers, prefetch
// and pinned memory; TorchScript). What the installed PyTorch cannot do is disabled with the reason.
#pragma once

#include <QGroupBox>
#include <QString>
#include <optional>

#include "core/model/execution_settings.h"
#include "core/run/framework_options.h"
#include "frameworks/python_interpreter.h"

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QSpinBox;

namespace wb::gui {

class TorchOptionsGroup : public QGroupBox {
    Q_OBJECT

public:
    explicit TorchOptionsGroup(QWidget* parent = nullptr);

    // The device and the torch knobs; `python` is left empty (the panel's interpreter setting).
    FrameworkOptions options() const;
    void setOptions(const FrameworkOptions& options);  // `python` is ignored; emits nothing
    // What the interpreter said about PyTorch; nullopt while it is being asked.
    void setFacts(const std::optional<FrameworkFacts>& facts);
    // The DataLoader knobs act under data_path=per_sample_gather only: greyed (still editable) otherwise.
    void setDataPath(DataPath path);
    // Why these options cannot run on the interpreter's PyTorch (cuda without a CUDA device), or empty.
    QString invalidReason() const;

signals:
    void changed();

private:
    void updateDependents();  // prefetch follows workers; device item tooltips follow the facts

    QFormLayout* form_ = nullptr;
    QComboBox* device_ = nullptr;
    QSpinBox* workers_ = nullptr;
    QSpinBox* prefetch_ = nullptr;
    QCheckBox* pinMemory_ = nullptr;
    QCheckBox* scriptModel_ = nullptr;
    QLabel* loaderNote_ = nullptr;
    std::optional<FrameworkFacts> facts_;
    bool updating_ = false;
};

}  // namespace wb::gui
