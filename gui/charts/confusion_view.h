// The "Confusion" tab: the confusion matrix of a classification run on its validation rows, from
// its final parameters: true classes as rows, predicted classes as columns, each cell the count and
// its share of the row (so a class's recall reads along the diagonal). It shows the run selected in
// the runs table, or while none is, the newest run that has a matrix.
#pragma once

#include <QWidget>
#include <optional>

class QLabel;
class QTableWidget;

namespace wb::gui {

class RunStore;
class RunsTableView;
struct RunEntry;

class ConfusionView : public QWidget {
    Q_OBJECT

public:
    explicit ConfusionView(RunStore* store, QWidget* parent = nullptr);

    // Shows the run selected in `view` from now on.
    void followSelection(RunsTableView* view);
    // The run shown: `id`, or nullopt for the newest run with a matrix.
    void showRun(std::optional<int> id);

    // For tests: the run shown (nullopt: none), the matrix, and the line above it.
    std::optional<int> shownRun() const { return shown_; }
    QTableWidget* table() const { return table_; }
    QString message() const;

private:
    void refresh();
    std::optional<int> runToShow() const;
    void fillMatrix(const RunEntry& run);
    QString whyNoMatrix(const RunEntry& run) const;

    RunStore* store_;
    RunsTableView* view_ = nullptr;
    std::optional<int> chosen_;  // the run asked for; nullopt: the newest with a matrix
    std::optional<int> shown_;
    QLabel* message_ = nullptr;
    QTableWidget* table_ = nullptr;
};

}  // namespace wb::gui
