// The Data panel's "Data set in use" group: what was loaded (source, size, class balance, how text
// labels became 0 and 1, what the loader did) and its first rows. Shows one data set at a time; after
// another file was refused, a line on top says which data set is still in use and which file was
// refused, and why, so the path field (showing the refused file) and the summary never disagree
// unexplained. The preview starts at its top-left with each data set, and takes the mouse wheel only
// once clicked into: an unfocused preview passes the wheel to the scroll area around it (the
// configuration dock), as the panels' fields do (field_guard.h).
#pragma once

#include <QGroupBox>
#include <memory>

#include "core/data/dataset.h"

class QLabel;
class QTableView;

namespace wb::gui {

class DatasetPreviewModel;

class DatasetSummary : public QGroupBox {
    Q_OBJECT

public:
    explicit DatasetSummary(QWidget* parent = nullptr);

    // `source` in words ("built-in, seed 1", "bc.csv"); the data set's own source and hash go to
    // its tooltip.
    void showDataset(const std::shared_ptr<const Dataset>& dataset, const QString& source);
    // "In use: y.csv (x.csv was refused: <why>)" above the summary, until the next showDataset.
    void showRefused(const QString& refused, const QString& message);
    DatasetPreviewModel* previewModel() const { return preview_; }

private:
    DatasetPreviewModel* preview_ = nullptr;
    QLabel* inUseLine_ = nullptr;  // after a refusal: what is in use, what was refused
    QString inUse_;                // the source of the data set shown
    QLabel* sourceValue_ = nullptr;
    QLabel* rowsValue_ = nullptr;
    QLabel* featuresValue_ = nullptr;
    QLabel* balanceValue_ = nullptr;
    QLabel* mappingValue_ = nullptr;
    QLabel* notesValue_ = nullptr;
    QTableView* previewTable_ = nullptr;
};

}  // namespace wb::gui
