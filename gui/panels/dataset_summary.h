// The Data panel's "Loaded data set" group: what was loaded (source, size, class balance, how text
// labels became 0 and 1, what the loader did) and its first rows. Shows one data set at a time.
#pragma once

#include <QGroupBox>
#include <memory>

#include "dataset.h"

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
    DatasetPreviewModel* previewModel() const { return preview_; }

private:
    DatasetPreviewModel* preview_ = nullptr;
    QLabel* sourceValue_ = nullptr;
    QLabel* rowsValue_ = nullptr;
    QLabel* featuresValue_ = nullptr;
    QLabel* balanceValue_ = nullptr;
    QLabel* mappingValue_ = nullptr;
    QLabel* notesValue_ = nullptr;
    QTableView* previewTable_ = nullptr;
};

}  // namespace wb::gui
