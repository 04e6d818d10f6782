// The trial table of the Sweeps view: one row per trial (id, state, each parameter, the metric, the
// median epoch time, and the error or how its time was measured), the best trial in bold.
// Sorting uses kSortRole: numbers as numbers, so 0.01 < 0.1 < 1 whatever their text.
#pragma once

#include <QAbstractTableModel>
#include <optional>
#include <vector>

#include "sweep/sweep_folder.h"

namespace wb::gui {

class SweepTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    static constexpr int kSortRole = Qt::UserRole + 1;
    enum FixedColumn { kIdColumn = 0, kStateColumn = 1, kFirstParameterColumn = 2 };

    explicit SweepTableModel(QObject* parent = nullptr);

    // The trials to show (`views` must outlive the next call). Rows and columns are kept when only
    // the states and figures changed, so a selection survives the live updates.
    void setTrials(const sweep::SweepPlan* plan, const std::vector<sweep::TrialRow>* views,
                   std::optional<std::size_t> best);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    int metricColumn() const;
    int trialId(int row) const;  // -1 for none
    // The table as CSV: a header line, then one line per source row in `rows`, in that order.
    QString toCsv(const std::vector<int>& rows) const;

private:
    QVariant display(int row, int column) const;
    QVariant sortKey(int row, int column) const;

    const sweep::SweepPlan* plan_ = nullptr;
    const std::vector<sweep::TrialRow>* views_ = nullptr;
    std::optional<std::size_t> best_;
};

}  // namespace wb::gui
