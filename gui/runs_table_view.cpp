#include "runs_table_view.h"

#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QMessageBox>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "compare_configs_dialog.h"
#include "pytorch_export.h"
#include "run_store.h"
#include "runs_table_model.h"

namespace wb::gui {

namespace {
const QString kExportFolderSetting = "frameworks/exportFolder";
}  // namespace

RunsTableView::RunsTableView(RunStore* store, QWidget* parent)
    : QWidget(parent),
      store_(store),
      model_(new RunsTableModel(store, this)),
      proxy_(new QSortFilterProxyModel(this)),
      table_(new QTableView(this)) {
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(RunsTableModel::SortRole);
    table_->setModel(proxy_);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    table_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
    table_->setAlternatingRowColors(true);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);  // the order runs were made
    table_->setSortingEnabled(true);
    table_->setContextMenuPolicy(Qt::ActionsContextMenu);

    delete_ = makeAction("Delete", "Remove the selected runs from the session (their files stay on disk)",
                         &RunsTableView::deleteSelected);
    delete_->setShortcut(QKeySequence::Delete);
    delete_->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    baseline_ = makeAction("Set as baseline", "Compare every run's speed with the selected run",
                           &RunsTableView::setSelectedAsBaseline);
    compare_ = makeAction("Compare configs…", "List the settings in which the two selected runs differ",
                          &RunsTableView::compareSelected);
    pytorch_ = makeAction("Export as PyTorch code…",
                          "Write the selected run's configuration as the PyTorch training loop the torch backend "
                          "runs for it (a run of another backend too: its switches become PyTorch constructs)",
                          &RunsTableView::exportSelectedAsPytorch);
    pytorch_->setObjectName("exportPytorchAction");

    auto* buttons = new QHBoxLayout;
    for (QAction* action : {delete_, baseline_, compare_, pytorch_}) {
        auto* button = new QToolButton;
        button->setDefaultAction(action);
        buttons->addWidget(button);
    }
    buttons->addStretch();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(table_);
    layout->addLayout(buttons);

    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, &RunsTableView::updateActions);
    sizeColumns();
    connect(model_, &QAbstractItemModel::rowsInserted, this, &RunsTableView::fitNameColumn);
    connect(model_, &QAbstractItemModel::dataChanged, this, [this](const QModelIndex& from, const QModelIndex& to) {
        if (from.column() <= RunsTableModel::Name && to.column() >= RunsTableModel::Name) fitNameColumn();
    });
    connect(model_, &QAbstractItemModel::rowsRemoved, this, &RunsTableView::updateActions);
    updateActions();
}

// Every column but the name and the message fits its contents and its header, so no status,
// preset or number is ever cut ("complet…"); they follow the values as runs train. The name is the
// one column the user may widen or narrow; it starts wide enough for the names there (up to a
// limit). The message takes what width is left (its tooltip has the whole text).
void RunsTableView::sizeColumns() {
    QHeaderView* header = table_->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(RunsTableModel::Name, QHeaderView::Interactive);
    header->setSectionResizeMode(RunsTableModel::Message, QHeaderView::Stretch);  // the rest of the width
    header->setStretchLastSection(true);
    header->setTextElideMode(Qt::ElideNone);
    table_->setTextElideMode(Qt::ElideRight);  // only a name longer than its column is cut
    header->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    fitNameColumn();
}

void RunsTableView::fitNameColumn() {
    constexpr int kMinNameWidth = 120;
    constexpr int kMaxNameWidth = 320;
    const int current = table_->columnWidth(RunsTableModel::Name);
    table_->resizeColumnToContents(RunsTableModel::Name);  // names and header
    const int wanted = std::clamp(table_->columnWidth(RunsTableModel::Name), kMinNameWidth, kMaxNameWidth);
    table_->setColumnWidth(RunsTableModel::Name, std::max(current, wanted));
}

QAction* RunsTableView::makeAction(const QString& text, const QString& tip, void (RunsTableView::*slot)()) {
    auto* action = new QAction(text, this);
    action->setToolTip(tip);
    connect(action, &QAction::triggered, this, slot);
    table_->addAction(action);
    return action;
}

std::vector<int> RunsTableView::selectedRunIds() const {
    QModelIndexList rows = table_->selectionModel()->selectedRows();
    std::sort(rows.begin(), rows.end(), [](const QModelIndex& x, const QModelIndex& y) { return x.row() < y.row(); });
    std::vector<int> ids;
    for (const QModelIndex& row : rows) ids.push_back(row.data(RunsTableModel::RunIdRole).toInt());
    return ids;
}

void RunsTableView::selectRuns(const std::vector<int>& ids) {
    QItemSelection selection;
    for (int id : ids) {
        const int row = model_->rowOf(id);
        if (row < 0) continue;
        const QModelIndex index = proxy_->mapFromSource(model_->index(row, 0));
        selection.select(index, index);
    }
    table_->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

void RunsTableView::deleteSelected() {
    for (int id : selectedRunIds()) store_->remove(id);
}

void RunsTableView::setSelectedAsBaseline() {
    const auto ids = selectedRunIds();
    if (ids.size() == 1) store_->setBaseline(ids.front());
}

void RunsTableView::compareSelected() {
    const auto ids = selectedRunIds();
    if (ids.size() != 2) return;
    const RunEntry* a = store_->find(ids[0]);
    const RunEntry* b = store_->find(ids[1]);
    if (!a || !b) return;
    auto* dialog = new CompareConfigsDialog(*a, *b, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
}

void RunsTableView::exportSelectedAsPytorch() {
    const auto ids = selectedRunIds();
    if (ids.size() != 1) return;
    const RunEntry* run = store_->find(ids.front());
    if (!run) return;
    QSettings settings;
    const QString folder = settings.value(kExportFolderSetting, QDir::homePath()).toString();
    const QString path = QFileDialog::getSaveFileName(this, "Export as PyTorch code",
                                                      QDir(folder).filePath(scriptFileName(*run)), "Python (*.py)");
    if (path.isEmpty()) return;
    settings.setValue(kExportFolderSetting, QFileInfo(path).absolutePath());
    exportRunAsPytorch(run->id, path);
}

bool RunsTableView::exportRunAsPytorch(int id, const QString& path) {
    const RunEntry* run = store_->find(id);
    if (!run) return false;
    QString failure;
    QApplication::setOverrideCursor(Qt::WaitCursor);  // the generator may ask the run's interpreter first
    try {
        exportPytorchScript(*run, path);
    } catch (const std::exception& e) {  // ConfigError, IoError; anything else is still no reason to crash
        failure = e.what();
    }
    QApplication::restoreOverrideCursor();
    if (!failure.isEmpty()) {
        QMessageBox::warning(this, "Export as PyTorch code",
                             QString("Could not export '%1': %2").arg(run->name, failure));
        return false;
    }
    emit exported(QString("Wrote %1; run it on your rows: python3 %2 --data x.npy --labels y.npy --out run.json")
                      .arg(QDir::toNativeSeparators(path), QFileInfo(path).fileName()));
    return true;
}

void RunsTableView::updateActions() {
    const std::size_t n = selectedRunIds().size();
    delete_->setEnabled(n > 0);
    baseline_->setEnabled(n == 1);
    compare_->setEnabled(n == 2);
    pytorch_->setEnabled(n == 1);
}

}  // namespace wb::gui
