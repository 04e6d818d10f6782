#include "gui/panels/dataset_preview_model.h"

#include <algorithm>

namespace wb::gui {

DatasetPreviewModel::DatasetPreviewModel(QObject* parent) : QAbstractTableModel(parent) {}

void DatasetPreviewModel::setDataset(std::shared_ptr<const Dataset> dataset) {
    beginResetModel();
    dataset_ = std::move(dataset);
    labelNames_.clear();
    if (dataset_ && !dataset_->labelMapping.empty()) {
        labelNames_ = {QString(), QString()};
        for (const auto& [text, code] : dataset_->labelMapping)
            if (code == 0 || code == 1) labelNames_[code] = QString::fromStdString(text);
    }
    endResetModel();
}

int DatasetPreviewModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() || !dataset_) return 0;
    return static_cast<int>(std::min<std::size_t>(dataset_->rows, kMaxRows));
}

int DatasetPreviewModel::columnCount(const QModelIndex& parent) const {
    if (parent.isValid() || !dataset_) return 0;
    return static_cast<int>(dataset_->cols + 1);
}

QString DatasetPreviewModel::labelText(float value) const {
    QString number = QString::number(static_cast<double>(value), 'g', 6);
    const int code = value >= 0.5f ? 1 : 0;
    if (labelNames_.isEmpty() || labelNames_[code].isEmpty()) return number;
    return QString("%1 (%2)").arg(labelNames_[code], number);
}

QVariant DatasetPreviewModel::data(const QModelIndex& index, int role) const {
    if (!dataset_ || !index.isValid()) return {};
    const auto row = static_cast<std::size_t>(index.row());
    const auto col = static_cast<std::size_t>(index.column());
    if (role == Qt::TextAlignmentRole) return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
    if (isLabelColumn(index.column())) return labelText(dataset_->labels[row]);
    const float value = dataset_->features[row * dataset_->cols + col];
    return QString::number(static_cast<double>(value), 'g', 6);
}

QVariant DatasetPreviewModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (!dataset_ || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
    if (orientation == Qt::Vertical) return section + 1;  // row numbers as a person counts them
    if (isLabelColumn(section)) return QString::fromStdString(dataset_->labelName);
    return QString::fromStdString(dataset_->columnNames[static_cast<std::size_t>(section)]);
}

}  // namespace wb::gui
