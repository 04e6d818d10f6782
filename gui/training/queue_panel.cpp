#include "gui/training/queue_panel.h"

#include <QFont>
#include <QHBoxLayout>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include <nlohmann/json.hpp>

#include "gui/runs/run_store.h"
#include "gui/training/training_controller.h"

namespace wb::gui {

namespace {
QAction* makeButton(QHBoxLayout* row, const QString& text, const QString& tip, QWidget* owner) {
    auto* action = new QAction(text, owner);
    action->setToolTip(tip);
    auto* button = new QToolButton;
    button->setDefaultAction(action);
    row->addWidget(button);
    return action;
}
}  // namespace

QueuePanel::QueuePanel(TrainingController* controller, RunStore* store, QWidget* parent)
    : QWidget(parent), controller_(controller), store_(store), summary_(new QLabel), list_(new QListWidget) {
    list_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    list_->setObjectName("queueList");
    list_->setWordWrap(true);  // a narrow dock wraps a long name rather than hiding the epoch
    list_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    list_->setResizeMode(QListView::Adjust);
    auto* buttons = new QHBoxLayout;
    remove_ = makeButton(buttons, "Remove", "Drop the selected waiting runs from the queue", this);
    clear_ = makeButton(buttons, "Clear", "Drop every run that has not started", this);
    stop_ = makeButton(buttons, "Stop", "Stop the running run (it is kept, marked cancelled)", this);
    buttons->addStretch();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(summary_);
    layout->addWidget(list_);
    layout->addLayout(buttons);

    connect(remove_, &QAction::triggered, this, &QueuePanel::removeSelected);
    connect(clear_, &QAction::triggered, controller_, &TrainingController::clearQueue);
    connect(stop_, &QAction::triggered, controller_, &TrainingController::stopCurrent);
    connect(list_, &QListWidget::itemSelectionChanged, this, &QueuePanel::updateActions);
    connect(controller_, &TrainingController::queueChanged, this, &QueuePanel::rebuild);
    connect(controller_, &TrainingController::runStarted, this, &QueuePanel::rebuild);
    connect(controller_, &TrainingController::runFinished, this, &QueuePanel::rebuild);
    connect(store_, &RunStore::runChanged, this, &QueuePanel::rebuild);  // a rename
    connect(store_, &RunStore::epochAppended, this, &QueuePanel::onEpoch);
    rebuild();
}

std::vector<int> QueuePanel::shownRuns() const {
    std::vector<int> ids;
    for (int row = 0; row < list_->count(); ++row) ids.push_back(list_->item(row)->data(RunIdRole).toInt());
    return ids;
}

void QueuePanel::removeSelected() {
    std::vector<int> ids;  // collected first: each removal rebuilds the list
    for (const QListWidgetItem* item : list_->selectedItems())
        if (!item->data(RunningRole).toBool()) ids.push_back(item->data(RunIdRole).toInt());
    for (int id : ids) controller_->removeQueued(id);
}

void QueuePanel::rebuild() {
    std::vector<int> selected;
    for (const QListWidgetItem* item : list_->selectedItems()) selected.push_back(item->data(RunIdRole).toInt());
    const QSignalBlocker quiet(list_);
    list_->clear();
    if (const auto current = controller_->currentRun())
        addItem(*current, true, 0, QString::fromStdString(controller_->currentName()));
    int position = 0;
    for (const RunRequest& request : controller_->pending())
        addItem(request.id, false, ++position, QString::fromStdString(request.config.name));
    for (int row = 0; row < list_->count(); ++row) {
        QListWidgetItem* item = list_->item(row);
        item->setSelected(std::find(selected.begin(), selected.end(), item->data(RunIdRole).toInt()) != selected.end());
    }
    const bool running = controller_->currentRun().has_value();
    summary_->setText(running || position > 0
                          ? QString("%1 running, %2 waiting").arg(running ? 1 : 0).arg(position)
                          : QString("Nothing running or waiting. Run (Ctrl+R) queues the current configuration."));
    summary_->setWordWrap(true);
    updateActions();
}

void QueuePanel::addItem(int id, bool running, int position, const QString& name) {
    auto* item = new QListWidgetItem(describe(id, running, position, name), list_);
    item->setData(RunIdRole, id);
    item->setData(RunningRole, running);
    if (const RunEntry* run = store_->find(id)) item->setData(Qt::DecorationRole, run->color);
    if (!running) return;
    QFont bold = item->font();
    bold.setBold(true);
    item->setFont(bold);
}

// "▶ Fastest (epoch 3/10)" or "2. My run · custom".
QString QueuePanel::describe(int id, bool running, int position, const QString& name) const {
    const RunEntry* run = store_->find(id);
    QString text = running ? QString(QChar(0x25B6)) + " " : QString("%1. ").arg(position);
    if (!run) return text + (name.isEmpty() ? QString("run %1").arg(id) : name);
    text += run->name;
    if (!run->name.startsWith(run->preset())) text += " · " + run->preset();  // default names begin with it
    if (running && !run->record.epochs.empty())
        text += QString(" (epoch %1/%2)").arg(run->record.epochs.size()).arg(run->plannedEpochs());
    return text;
}

void QueuePanel::onEpoch(int id) {
    if (list_->count() == 0 || controller_->currentRun() != id) return;
    QListWidgetItem* top = list_->item(0);
    if (top->data(RunIdRole).toInt() == id)
        top->setText(describe(id, true, 0, QString::fromStdString(controller_->currentName())));
}

void QueuePanel::updateActions() {
    bool anyWaiting = false;
    for (const QListWidgetItem* item : list_->selectedItems()) anyWaiting |= !item->data(RunningRole).toBool();
    remove_->setEnabled(anyWaiting);
    clear_->setEnabled(controller_->queued() > 0);
    stop_->setEnabled(controller_->busy());
}

}  // namespace wb::gui
