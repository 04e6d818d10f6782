// The training queue as the user sees it: the run training now (marked, with its epoch) on top,
// then the runs waiting, in the order they will start. Remove drops the selected waiting runs,
// Clear drops them all, Stop ends the running one (it is kept, marked cancelled).
#pragma once

#include <QAction>
#include <QLabel>
#include <QListWidget>
#include <QWidget>
#include <vector>

namespace wb::gui {

class RunStore;
class TrainingController;

class QueuePanel : public QWidget {
    Q_OBJECT

public:
    enum Role { RunIdRole = Qt::UserRole + 1, RunningRole };

    QueuePanel(TrainingController* controller, RunStore* store, QWidget* parent = nullptr);

    QListWidget* list() const { return list_; }
    QLabel* summary() const { return summary_; }
    QAction* removeAction() const { return remove_; }
    QAction* clearAction() const { return clear_; }
    QAction* stopAction() const { return stop_; }
    std::vector<int> shownRuns() const;  // run ids top to bottom: the running one first

public slots:
    void removeSelected();

private:
    void rebuild();
    // `name`: what the request calls itself, for one that is no run of the store (an ablation).
    void addItem(int id, bool running, int position, const QString& name);
    QString describe(int id, bool running, int position, const QString& name) const;
    void onEpoch(int id);  // only the running row's text changes
    void updateActions();

    TrainingController* controller_;
    RunStore* store_;
    QLabel* summary_;
    QListWidget* list_;
    QAction* remove_ = nullptr;
    QAction* clear_ = nullptr;
    QAction* stop_ = nullptr;
};

}  // namespace wb::gui
