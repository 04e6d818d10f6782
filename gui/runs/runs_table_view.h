// The runs table with its actions: filter the rows by text, show or hide every run in the charts,
// delete the selected runs (asking first, and offering to delete their files), make one the speed
// baseline, compare the configurations of two (a dialog listing only the settings that differ), and
// export one as the PyTorch loop that trains its configuration.
#pragma once

#include <QAction>
#include <QString>
#include <QTableView>
#include <QTimer>
#include <QWidget>
#include <deque>
#include <vector>

#include "gui/training/compare_configs_dialog.h"  // configDifferences, for the users of this header

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;

namespace wb::gui {

class RunStore;
class RunsTableModel;

class RunsTableView : public QWidget {
    Q_OBJECT

public:
    explicit RunsTableView(RunStore* store, QWidget* parent = nullptr);

    std::vector<int> selectedRunIds() const;  // in the order the rows are shown
    void selectRuns(const std::vector<int>& ids);
    QTableView* table() const { return table_; }
    RunsTableModel* model() const { return model_; }
    QAction* deleteAction() const { return delete_; }
    QAction* baselineAction() const { return baseline_; }
    QAction* compareAction() const { return compare_; }
    QAction* pytorchAction() const { return pytorch_; }
    QAction* showAllAction() const { return showAll_; }
    QAction* hideAllAction() const { return hideAll_; }
    // The filter above the table: a row stays when its name, data set, backend, preset or status
    // contains the text (case-insensitive).
    QLineEdit* filterEdit() const { return filter_; }
    void setFilterText(const QString& text);
    int shownRowCount() const;  // the rows the filter leaves
    // Runs Show all puts in the charts at most: fifty lines are more than a reader tells apart, and
    // each shown run's epochs are read from its file and drawn at every refresh of every chart.
    static constexpr int kMaxShownAtOnce = 50;
    QString showNote() const;  // under the table: "50 of 10,000 listed runs shown …"; empty when all were

public slots:
    // Asks first; the question offers to delete the runs' files (record and epoch journal) too.
    void deleteSelected();
    // Removes `ids` from the session and, with `removeFiles`, their files (a run still training
    // keeps its files: it is stopped, and its trainer may write them once more). Names the files that
    // could not be deleted in a message box.
    void removeRuns(const std::vector<int>& ids, bool removeFiles);
    // Shows in the charts the runs the table lists (those the filter leaves, in the table's order), at
    // most kMaxShownAtOnce of them, their epochs read a few per turn of the event loop; says so under
    // the table when it left some out.
    void showListed();
    void hideAll();  // every run, listed or not (through RunStore::setVisible)
    void setSelectedAsBaseline();
    void compareSelected();  // opens the diff dialog (not modal) for exactly two selected runs
    // Asks where (starting in the folder used last), then exportRunAsPytorch for the one selected run.
    void exportSelectedAsPytorch();
    // Writes run `id`'s PyTorch loop to `path`; on failure says why in a message box here. True when written.
    bool exportRunAsPytorch(int id, const QString& path);

signals:
    void exported(const QString& message);  // a line for the status bar

private:
    void setUpFilter();
    void setUpTable();
    void makeActions();
    void layOut();
    void widenColumnsAsRowsChange();
    QAction* makeAction(const QString& text, const QString& tip, void (RunsTableView::*slot)());
    void sizeColumns();
    // Widens the columns for these source rows' cells (never narrows what the user set).
    void widenColumnsFor(int firstRow, int lastRow);
    void updateActions();
    void showPending();  // the next few of pendingShow_, then again on the next turn of the event loop

    RunStore* store_;
    RunsTableModel* model_;
    QSortFilterProxyModel* proxy_;
    QLineEdit* filter_;
    QTableView* table_;
    QAction* delete_ = nullptr;
    QAction* baseline_ = nullptr;
    QAction* compare_ = nullptr;
    QAction* pytorch_ = nullptr;
    QAction* showAll_ = nullptr;
    QAction* hideAll_ = nullptr;
    QLabel* showNote_ = nullptr;
    std::deque<int> pendingShow_;            // runs Show all has still to show
    static constexpr int kShowBatch = 8;     // runs shown (their files read) per turn of the event loop
    static constexpr int kSizingRows = 200;  // the first rows measured; the rows a double-click fits
    static constexpr int kFewRows = 4;       // an insert or change of up to this many rows is measured
};

}  // namespace wb::gui
