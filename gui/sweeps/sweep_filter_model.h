// What the trial table shows: the rows whose text matches the filter field (any column, any case)
// and that lie inside every brush drawn on the parallel-coordinates chart, sorted numerically.
#pragma once

#include <QSortFilterProxyModel>
#include <functional>
#include <map>
#include <utility>

namespace wb::gui {

class SweepFilterModel : public QSortFilterProxyModel {
    Q_OBJECT

public:
    explicit SweepFilterModel(QObject* parent = nullptr);

    void setText(const QString& text);
    // A brush on axis `axis`: only trials whose position there (SweepAxes) is within [lo, hi].
    void setBrush(std::size_t axis, double lo, double hi);
    void clearBrush(std::size_t axis);
    void clearBrushes();
    const std::map<std::size_t, std::pair<double, double>>& brushes() const { return brushes_; }
    // Where a source row lies on an axis: the SweepAxes position (nullopt: no value, outside any brush).
    void setPosition(std::function<std::optional<double>(int sourceRow, std::size_t axis)> position);
    // True when source row `row` passes the brushes (the chart greys out the others).
    bool insideBrushes(int sourceRow) const;

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

private:
    QString text_;
    std::map<std::size_t, std::pair<double, double>> brushes_;
    std::function<std::optional<double>(int, std::size_t)> position_;
};

}  // namespace wb::gui
