#include "gui/runs/runs_table_view.h"

#include <QApplication>
#include <QCheckBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "gui/runs/pytorch_export.h"
#include "gui/runs/run_folder.h"
#include "gui/runs/run_store.h"
#include "gui/runs/runs_table_model.h"
#include "gui/training/compare_configs_dialog.h"

namespace wb::gui {

namespace {
// Keeps a row when one of the columns a person would search by contains the filter text.
class RunsFilterProxy : public QSortFilterProxyModel {
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;

    void setText(const QString& text) {
        text_ = text.trimmed();
        invalidateFilter();
    }

protected:
    bool filterAcceptsRow(int row, const QModelIndex& parent) const override {
        if (text_.isEmpty()) return true;
        for (const int column : {RunsTableModel::Name, RunsTableModel::Dataset, RunsTableModel::Backend,
                                 RunsTableModel::Preset, RunsTableModel::Status}) {
            const QString value = sourceModel()->index(row, column, parent).data().toString();
            if (value.contains(text_, Qt::CaseInsensitive)) return true;
        }
        return false;
    }

private:
    QString text_;
};
const QString kExportFolderSetting = "frameworks/exportFolder";
}  // namespace

RunsTableView::RunsTableView(RunStore* store, QWidget* parent)
    : QWidget(parent),
      store_(store),
      model_(new RunsTableModel(store, this)),
      proxy_(new RunsFilterProxy(this)),
      filter_(new QLineEdit(this)),
      table_(new QTableView(this)) {
    setUpFilter();
    setUpTable();
    makeActions();
    layOut();
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, &RunsTableView::updateActions);
    sizeColumns();
    widenColumnsAsRowsChange();
    connect(model_, &QAbstractItemModel::rowsRemoved, this, &RunsTableView::updateActions);
    updateActions();
}

void RunsTableView::setUpFilter() {
    filter_->setObjectName("runsFilter");
    filter_->setPlaceholderText("Filter runs by name, data set, backend, preset or status");
    filter_->setClearButtonEnabled(true);
    connect(filter_, &QLineEdit::textChanged, this, &RunsTableView::setFilterText);
}

void RunsTableView::setUpTable() {
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
}

void RunsTableView::makeActions() {
    delete_ = makeAction("Delete…", "Remove the selected runs from the session (asks; their files may go too)",
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
    showAll_ = new QAction("Show all", this);
    showAll_->setToolTip(QString("Show the runs the table lists in the charts (filter the table to choose which); "
                                 "at most %1 at once")
                             .arg(kMaxShownAtOnce));
    connect(showAll_, &QAction::triggered, this, &RunsTableView::showListed);
    hideAll_ = new QAction("Hide all", this);
    hideAll_->setToolTip("Hide every run from the charts (tick a run's box to show it again)");
    connect(hideAll_, &QAction::triggered, this, &RunsTableView::hideAll);
}

void RunsTableView::layOut() {
    showNote_ = new QLabel;
    showNote_->setObjectName("showAllNote");
    showNote_->setVisible(false);
    auto* buttons = new QHBoxLayout;
    for (QAction* action : {delete_, baseline_, compare_, pytorch_, showAll_, hideAll_}) {
        auto* button = new QToolButton;
        button->setDefaultAction(action);
        buttons->addWidget(button);
    }
    buttons->addWidget(showNote_);
    buttons->addStretch();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(filter_);
    layout->addWidget(table_);
    layout->addLayout(buttons);
}

// Widened for the rows that come or change, never over the whole table: the first kSizingRows
// rows that come (a restore's first), then the rows that change a few at a time (a new run as it
// starts, an epoch's update of one row).
void RunsTableView::widenColumnsAsRowsChange() {
    connect(model_, &QAbstractItemModel::rowsInserted, this, [this](const QModelIndex&, int first, int last) {
        if (first < kSizingRows) widenColumnsFor(first, std::min(last, kSizingRows - 1));
    });
    connect(model_, &QAbstractItemModel::dataChanged, this, [this](const QModelIndex& from, const QModelIndex& to) {
        if (to.row() - from.row() < kFewRows) widenColumnsFor(from.row(), to.row());
    });
}

// Every column but the message is as wide as its header and the widest of its cells measured so
// far, so no status, preset or number is cut ("complet…"); a column widens when a run's values
// need more, and never narrows by itself. Widths are measured for the rows that come or change
// (widenColumnsFor), never over every row: ResizeToContents measured every column over hundreds of
// rows at each change, which with a thousand runs took minutes. Every column can be dragged, and a
// double-click on a column's edge fits it to its contents (Qt's table does that). The name column
// is held between two limits; the message takes what width is left (its tooltip has the whole text).
void RunsTableView::sizeColumns() {
    QHeaderView* header = table_->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::Interactive);
    header->setSectionResizeMode(RunsTableModel::Message, QHeaderView::Stretch);  // the rest of the width
    header->setStretchLastSection(true);
    header->setTextElideMode(Qt::ElideNone);
    table_->setTextElideMode(Qt::ElideRight);  // only a name longer than its column is cut
    header->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    // A double-click on a column's edge fits the rows in view and a few hundred more.
    header->setResizeContentsPrecision(kSizingRows);
    for (int column = 0; column < RunsTableModel::Message; ++column) table_->setColumnWidth(column, 0);
    widenColumnsFor(0, model_->rowCount() - 1);
}

void RunsTableView::widenColumnsFor(int firstRow, int lastRow) {
    constexpr int kMinNameWidth = 120;
    constexpr int kMaxNameWidth = 320;
    const QHeaderView* header = table_->horizontalHeader();
    const int grid = table_->showGrid() ? 1 : 0;
    for (int column = 0; column < RunsTableModel::Message; ++column) {
        int wanted = header->sectionSizeHint(column);
        for (int row = firstRow; row <= lastRow; ++row) {
            const QModelIndex cell = proxy_->mapFromSource(model_->index(row, column));
            if (cell.isValid()) wanted = std::max(wanted, table_->sizeHintForIndex(cell).width() + grid);
        }
        if (column == RunsTableModel::Name) wanted = std::clamp(wanted, kMinNameWidth, kMaxNameWidth);
        if (wanted > table_->columnWidth(column)) table_->setColumnWidth(column, wanted);
    }
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

void RunsTableView::setFilterText(const QString& text) {
    if (filter_->text() != text) filter_->setText(text);  // comes back here through textChanged
    static_cast<RunsFilterProxy*>(proxy_)->setText(text);
}

int RunsTableView::shownRowCount() const {
    return proxy_->rowCount();
}

void RunsTableView::showListed() {
    pendingShow_.clear();
    const int listed = proxy_->rowCount();
    for (int row = 0; row < listed && static_cast<int>(pendingShow_.size()) < kMaxShownAtOnce; ++row)
        pendingShow_.push_back(proxy_->index(row, 0).data(RunsTableModel::RunIdRole).toInt());
    const QString note = listed > kMaxShownAtOnce
                             ? QString("The first %1 of %2 listed runs shown: filter the table to choose others")
                                   .arg(kMaxShownAtOnce)
                                   .arg(QLocale().toString(listed))
                             : QString();
    showNote_->setText(note);
    showNote_->setToolTip(note.isEmpty() ? QString()
                                         : QString("More than %1 lines in a chart cannot be told apart, and each "
                                                   "shown run is read from its file and drawn at every update")
                                               .arg(kMaxShownAtOnce));
    showNote_->setVisible(!note.isEmpty());
    showPending();
}

void RunsTableView::showPending() {
    // A few at a time: each may read a run's epochs from its file, and thousands at once would hold
    // the window for seconds.
    for (int i = 0; i < kShowBatch && !pendingShow_.empty(); ++i) {
        store_->setVisible(pendingShow_.front(), true);  // a run deleted meanwhile is no longer found
        pendingShow_.pop_front();
    }
    if (!pendingShow_.empty()) QTimer::singleShot(0, this, &RunsTableView::showPending);
}

QString RunsTableView::showNote() const {
    return showNote_->isHidden() ? QString() : showNote_->text();
}

void RunsTableView::hideAll() {
    pendingShow_.clear();
    showNote_->setVisible(false);
    std::vector<int> ids;  // collected first: the store emits for each
    for (const RunEntry& run : store_->runs())
        if (run.visible) ids.push_back(run.id);
    for (const int id : ids) store_->setVisible(id, false);
}

void RunsTableView::deleteSelected() {
    const auto ids = selectedRunIds();
    if (ids.empty()) return;
    const bool anyFile = std::any_of(ids.begin(), ids.end(), [this](int id) {
        const RunEntry* run = store_->find(id);
        return run && !run->path.isEmpty();
    });
    const RunEntry* first = store_->find(ids.front());
    QMessageBox box(QMessageBox::Question, "Delete runs",
                    ids.size() == 1 && first ? QString("Remove '%1' from the session?").arg(first->name)
                                             : QString("Remove %1 runs from the session?").arg(ids.size()),
                    QMessageBox::Cancel, this);
    box.setObjectName("deleteRunsBox");
    QPushButton* remove = box.addButton("Remove", QMessageBox::DestructiveRole);
    box.setDefaultButton(QMessageBox::Cancel);
    auto* files = new QCheckBox("Also delete their files (the run record and its epoch journal)");
    files->setEnabled(anyFile);
    box.setCheckBox(files);
    box.exec();
    if (box.clickedButton() != remove) return;
    removeRuns(ids, files->isChecked());
}

void RunsTableView::removeRuns(const std::vector<int>& ids, bool removeFiles) {
    QStringList kept;
    for (const int id : ids) {
        const RunEntry* run = store_->find(id);
        if (!run) continue;
        const QString path = run->path;
        const bool training = run->record.status == RunStatus::Running && !run->interrupted;
        store_->remove(id);
        if (removeFiles && !training && !path.isEmpty() && !removeRunFiles(path)) kept << path;
    }
    if (!kept.isEmpty())
        QMessageBox::warning(this, "Delete runs", "These files could not be deleted:\n" + kept.join('\n'));
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
