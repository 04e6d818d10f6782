// The runs table with its actions: delete the selected runs, make one the speed baseline, compare
// the configurations of two (a dialog listing only the settings that differ), and export one as the
// PyTorch loop that trains its configuration.
#pragma once

#include <QAction>
#include <QString>
#include <QTableView>
#include <QWidget>
#include <vector>

#include "compare_configs_dialog.h"  // configDifferences, for the users of this header

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

public slots:
    void deleteSelected();
    void setSelectedAsBaseline();
    void compareSelected();  // opens the diff dialog (not modal) for exactly two selected runs
    // Asks where (starting in the folder used last), then exportRunAsPytorch for the one selected run.
    void exportSelectedAsPytorch();
    // Writes run `id`'s PyTorch loop to `path`; on failure says why in a message box here. True when written.
    bool exportRunAsPytorch(int id, const QString& path);

signals:
    void exported(const QString& message);  // a line for the status bar

private:
    QAction* makeAction(const QString& text, const QString& tip, void (RunsTableView::*slot)());
    void sizeColumns();
    void fitNameColumn();  // widens the name column to its names (never narrows what the user set)
    void updateActions();

    RunStore* store_;
    RunsTableModel* model_;
    QSortFilterProxyModel* proxy_;
    QTableView* table_;
    QAction* delete_ = nullptr;
    QAction* baseline_ = nullptr;
    QAction* compare_ = nullptr;
    QAction* pytorch_ = nullptr;
};

}  // namespace wb::gui
