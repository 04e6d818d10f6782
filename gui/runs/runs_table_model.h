// The runs of a RunStore as table rows: one row per run, columns for what the user compares.
// It observes the store and updates only the rows (or the column) that changed. What it shows of the
// epochs comes from each run's digest, and the texts a filter searches are kept per row, so that
// listing, sorting and filtering ten thousand runs reads no epochs and matches no preset again.
#pragma once

#include <QAbstractTableModel>
#include <QString>
#include <vector>

namespace wb::gui {

class RunStore;
struct RunEntry;

class RunsTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        Shown,  // colour swatch and the checkbox that shows the run in the charts
        Name,
        Dataset,  // "built-in" or the data file's name (what a peer's record says, or "—")
        Preset,
        Backend,
        Status,
        Progress,
        MedianEpochMs,
        TotalTime,
        TrainLoss,
        TrainAccuracy,
        ValLoss,
        ValAccuracy,
        Speedup,
        Message,  // why a run failed, diverged or was cancelled (first line; the tooltip has all)
        ColumnCount
    };
    enum Role {
        RunIdRole = Qt::UserRole + 1,  // the run's id in the store
        SortRole,                      // numbers as numbers, so sorting by a column is numeric
    };

    explicit RunsTableModel(RunStore* store, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

    int runId(int row) const;  // 0 when the row does not exist
    int rowOf(int id) const;   // -1 when the run is not in the table

private:
    void onRunAdded(int id);
    void onRunRemoved(int id);
    void onRunChanged(int id);
    void onBaselineChanged();
    QVariant display(const RunEntry& run, int column) const;
    QVariant sortValue(const RunEntry& run, int column) const;
    QVariant toolTip(const RunEntry& run, int column) const;
    struct CachedText {
        QString dataset, preset, backend;
    };
    CachedText cachedTextOf(const RunEntry& run) const;
    QVariant cachedOr(int row, int column, const RunEntry& run) const;  // display(), from texts_ where kept

    RunStore* store_;
    std::vector<int> ids_;           // run id per row, in the store's order
    std::vector<CachedText> texts_;  // per row, as ids_
};

}  // namespace wb::gui
