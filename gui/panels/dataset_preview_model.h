// The first rows of a loaded data set as a read-only table: one column per feature, named as in
// the file, and the label last (shown with its original text when the file's labels were words).
#pragma once

#include <QAbstractTableModel>
#include <memory>

#include "core/data/dataset.h"

namespace wb::gui {

class DatasetPreviewModel : public QAbstractTableModel {
    Q_OBJECT

public:
    static constexpr int kMaxRows = 100;  // a preview, not a spreadsheet: enough to recognise the data

    explicit DatasetPreviewModel(QObject* parent = nullptr);

    void setDataset(std::shared_ptr<const Dataset> dataset);  // nullptr empties the table
    const std::shared_ptr<const Dataset>& dataset() const { return dataset_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QString labelText(float value) const;
    bool isLabelColumn(int column) const { return static_cast<std::size_t>(column) == dataset_->cols; }

    std::shared_ptr<const Dataset> dataset_;  // immutable and shared: the preview costs no copy
    QStringList labelNames_;                  // index 0/1 -> original text, empty for numeric labels
};

}  // namespace wb::gui
