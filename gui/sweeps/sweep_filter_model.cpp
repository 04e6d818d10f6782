#include "gui/sweeps/sweep_filter_model.h"

#include "gui/sweeps/sweep_table_model.h"

namespace wb::gui {

SweepFilterModel::SweepFilterModel(QObject* parent) : QSortFilterProxyModel(parent) {
    setSortRole(SweepTableModel::kSortRole);
    setDynamicSortFilter(true);
}

void SweepFilterModel::setText(const QString& text) {
    text_ = text.trimmed();
    invalidateFilter();
}

void SweepFilterModel::setBrush(std::size_t axis, double lo, double hi) {
    brushes_[axis] = {std::min(lo, hi), std::max(lo, hi)};
    invalidateFilter();
}

void SweepFilterModel::clearBrush(std::size_t axis) {
    brushes_.erase(axis);
    invalidateFilter();
}

void SweepFilterModel::clearBrushes() {
    brushes_.clear();
    invalidateFilter();
}

void SweepFilterModel::setPosition(std::function<std::optional<double>(int, std::size_t)> position) {
    position_ = std::move(position);
    invalidateFilter();
}

bool SweepFilterModel::insideBrushes(int sourceRow) const {
    for (const auto& [axis, range] : brushes_) {
        const auto p = position_ ? position_(sourceRow, axis) : std::nullopt;
        if (!p || *p < range.first - 1e-9 || *p > range.second + 1e-9) return false;
    }
    return true;
}

bool SweepFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
    if (!insideBrushes(sourceRow)) return false;
    if (text_.isEmpty()) return true;
    const auto* model = sourceModel();
    for (int c = 0; c < model->columnCount(sourceParent); ++c)
        if (model->index(sourceRow, c, sourceParent).data().toString().contains(text_, Qt::CaseInsensitive))
            return true;
    return false;
}

}  // namespace wb::gui
