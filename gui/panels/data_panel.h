// The "Data" section of the configuration dock: where the data set comes from (the built-in
// generator or a CSV / .npy file, by dialog or drag and drop), how the file is read, how it is
// prepared for training, and what was loaded (size, class balance, label mapping, first rows).
// Loading runs in the background; a bad file shows its error here, naming the file, and the previous
// data set stays in use, which the summary says ("In use: y.csv (x.csv was refused: ...)").
#pragma once

#include <QWidget>
#include <cstdint>
#include <functional>
#include <memory>

#include "core/data/data_source.h"
#include "core/data/dataset.h"
#include "core/data/prepare.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QRadioButton;
class QSpinBox;

namespace wb::gui {

class DatasetLoader;
class DatasetPreviewModel;
class DatasetSummary;

class DataPanel : public QWidget {
    Q_OBJECT

public:
    explicit DataPanel(QWidget* parent = nullptr);

    // The data set a run trains on now; null until the first load succeeds.
    std::shared_ptr<const Dataset> dataset() const { return dataset_; }
    // How the current data set was loaded (what a run records); before any load, what the fields say.
    DataSpec dataSpec() const;
    // What the fields describe now: what Load would load.
    DataSpec editedSpec() const;
    PrepareSpec prepareSpec(std::uint64_t seed) const;
    // Fills the fields (e.g. from the last session); loads nothing.
    void setDataSpec(const DataSpec& spec);
    void setPrepareSpec(const PrepareSpec& spec);
    // What the label column is learned as (the Model section's Task). It decides how the column is read,
    // so once data is loaded a new choice reloads it; a refusal shows here and the data set stays.
    void setTaskChoice(TaskChoice choice);
    bool isLoading() const;
    // Whether the data set in use is the one the fields describe (no unapplied edit, no load pending).
    bool showsLoaded() const;
    // Run's way in: calls `ready` once the data set in use is what the fields describe, at once when it
    // is, else after loading it; calls `failed` with the reason when that load fails (the data set
    // loaded before stays, and nothing is trained on it in its place).
    void whenShownLoaded(std::function<void()> ready, std::function<void(const QString&)> failed);
    DatasetPreviewModel* previewModel() const;

public slots:
    void loadBuiltin();                  // the generator with the rows and seed in the fields
    void openFile(const QString& path);  // a CSV, or a .npy whose last column is the label
    void chooseFile();                   // "Open…": a file dialog, then openFile
    void load();                         // whatever the fields describe

signals:
    void datasetChanged(const std::shared_ptr<const wb::Dataset>& dataset);
    void loadFailed(const QString& message);
    // A file the user opened (Open…, a drop, a recent file) could not be loaded: worth a dialog, since
    // the panel showing the error may be scrolled out of view.
    void fileOpenFailed(const QString& path, const QString& message);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    QWidget* buildSourceGroup();
    void buildBuiltinFields();
    void buildFileFields();
    QHBoxLayout* buildFileRow();
    QWidget* buildLabelsRow();
    void connectSourceFields();
    QWidget* buildCsvGroup();
    QWidget* buildPrepareGroup();
    QWidget* buildLoadRow();
    void chooseLabelsFile();
    void openNpyPair(const QString& features, const QString& labels);
    void updateSourceFields();
    void startLoad(const DataSpec& spec);
    void onLoaded(const std::shared_ptr<const Dataset>& dataset, const DataSpec& spec);
    void onFailed(const QString& message, const DataSpec& spec);
    void onBusyChanged(bool busy);
    void fillLabelChoices();
    CsvOptions csvOptions() const;
    void setCsvOptions(const CsvOptions& options);

    DatasetLoader* loader_ = nullptr;
    DatasetSummary* summary_ = nullptr;  // what was loaded, and its first rows
    std::shared_ptr<const Dataset> dataset_;
    DataSpec loadedSpec_;
    TaskChoice task_ = TaskChoice::Auto;  // the Model section's choice; part of every load
    QString openingFile_;                 // the file being opened by a file action; empty otherwise

    QRadioButton* builtinRadio_ = nullptr;
    QRadioButton* fileRadio_ = nullptr;
    QSpinBox* rowsSpin_ = nullptr;
    QSpinBox* dataSeedSpin_ = nullptr;
    QLineEdit* pathEdit_ = nullptr;
    QPushButton* openButton_ = nullptr;
    QLineEdit* labelsEdit_ = nullptr;
    QPushButton* labelsButton_ = nullptr;
    QWidget* labelsRow_ = nullptr;
    QFormLayout* sourceForm_ = nullptr;

    QComboBox* labelCombo_ = nullptr;
    QComboBox* headerCombo_ = nullptr;
    QComboBox* delimiterCombo_ = nullptr;
    QLineEdit* ignoreEdit_ = nullptr;
    QComboBox* missingCombo_ = nullptr;
    QSpinBox* skipSpin_ = nullptr;

    QDoubleSpinBox* valSplitSpin_ = nullptr;
    QCheckBox* standardizeCheck_ = nullptr;

    QPushButton* loadButton_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* loadingLabel_ = nullptr;
    QLabel* errorLabel_ = nullptr;
};

}  // namespace wb::gui
