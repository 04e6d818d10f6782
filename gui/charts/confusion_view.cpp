#include "gui/charts/confusion_view.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>
#include <cmath>

#include "gui/runs/run_store.h"
#include "gui/runs/runs_table_view.h"

namespace wb::gui {

namespace {

// The class names of a run: its record's, or "0", "1", ... when it names none (a 0/1 column).
QStringList classNames(const RunEntry& run, std::size_t k) {
    QStringList names;
    for (std::size_t i = 0; i < k; ++i)
        names << (i < run.record.dataset.classes.size() ? QString::fromStdString(run.record.dataset.classes[i])
                                                        : QString::number(i));
    return names;
}

std::size_t classCount(const RunEntry& run) {
    return static_cast<std::size_t>(std::lround(std::sqrt(static_cast<double>(run.confusion.size()))));
}

// Blue, as deep as the share of the row: the diagonal of a good model stands out.
QColor shade(double share) {
    const int fade = static_cast<int>(std::lround(255 - 110 * share));
    return QColor(fade, fade + static_cast<int>(std::lround(60 * share * (1 - share))), 255);
}

}  // namespace

ConfusionView::ConfusionView(RunStore* store, QWidget* parent) : QWidget(parent), store_(store) {
    auto* layout = new QVBoxLayout(this);
    message_ = new QLabel;
    message_->setObjectName("confusionMessage");
    message_->setWordWrap(true);
    table_ = new QTableWidget;
    table_->setObjectName("confusionTable");
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setToolTip(
        "Rows: the true class. Columns: the predicted class. Each cell: rows, and their share "
        "of the true class's rows (the diagonal is each class's recall).");
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    layout->addWidget(message_);
    layout->addWidget(table_, 1);
    connect(store_, &RunStore::runChanged, this, &ConfusionView::refresh);
    connect(store_, &RunStore::runAdded, this, &ConfusionView::refresh);
    connect(store_, &RunStore::runRemoved, this, &ConfusionView::refresh);
    refresh();
}

void ConfusionView::followSelection(RunsTableView* view) {
    view_ = view;
    connect(view->table()->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        const std::vector<int> ids = view_->selectedRunIds();
        showRun(ids.empty() ? std::nullopt : std::optional(ids.front()));
    });
}

void ConfusionView::showRun(std::optional<int> id) {
    chosen_ = id;
    refresh();
}

QString ConfusionView::message() const {
    return message_->text();
}

std::optional<int> ConfusionView::runToShow() const {
    if (chosen_ && store_->find(*chosen_)) return chosen_;
    const auto& runs = store_->runs();
    for (auto it = runs.rbegin(); it != runs.rend(); ++it)
        if (!it->confusion.empty()) return it->id;
    return std::nullopt;
}

void ConfusionView::refresh() {
    shown_ = runToShow();
    const RunEntry* run = shown_ ? store_->find(*shown_) : nullptr;
    table_->clear();
    table_->setRowCount(0);
    table_->setColumnCount(0);
    if (!run) {
        message_->setText(
            "No confusion matrix yet: it is computed on the validation rows when a classification "
            "run completes. Select a run in the runs table to see its matrix.");
        return;
    }
    if (run->confusion.empty()) {
        message_->setText(QString("%1: %2").arg(run->name, whyNoMatrix(*run)));
        return;
    }
    fillMatrix(*run);
}

QString ConfusionView::whyNoMatrix(const RunEntry& run) const {
    if (run.task() == Task::Regression) return "a regression has no classes, so no confusion matrix.";
    if (run.record.status == RunStatus::Running) return "the matrix comes when the run completes.";
    if (run.record.status != RunStatus::Completed) return "only a completed run has a matrix.";
    if (run.record.dataset.valRows == 0 && !run.record.epochs.empty())
        return "the run had no validation split, and the matrix is taken on the validation rows.";
    return "no matrix: it is kept in memory for runs trained in this session (the final parameters it "
           "comes from are not in the run's file).";
}

void ConfusionView::fillMatrix(const RunEntry& run) {
    const std::size_t k = classCount(run);
    const QStringList names = classNames(run, k);
    table_->setRowCount(static_cast<int>(k));
    table_->setColumnCount(static_cast<int>(k));
    QStringList predicted, truth;
    for (const QString& name : names) {
        predicted << "predicted " + name;
        truth << "true " + name;
    }
    table_->setHorizontalHeaderLabels(predicted);
    table_->setVerticalHeaderLabels(truth);
    std::size_t total = 0, right = 0;
    for (std::size_t t = 0; t < k; ++t) {
        std::size_t rowSum = 0;
        for (std::size_t p = 0; p < k; ++p) rowSum += run.confusion[t * k + p];
        for (std::size_t p = 0; p < k; ++p) {
            const std::size_t n = run.confusion[t * k + p];
            const double share = rowSum ? double(n) / double(rowSum) : 0.0;
            auto* cell = new QTableWidgetItem(QString("%1\n%2 %").arg(n).arg(100 * share, 0, 'f', 1));
            cell->setTextAlignment(Qt::AlignCenter);
            cell->setBackground(shade(share));
            cell->setData(Qt::UserRole, static_cast<qulonglong>(n));
            table_->setItem(static_cast<int>(t), static_cast<int>(p), cell);
        }
        total += rowSum;
        right += run.confusion[t * k + t];
    }
    message_->setText(QString("%1: %2 validation rows, %3 % predicted right. Rows: the true class; columns: the "
                              "predicted class; each cell: rows and their share of the true class.")
                          .arg(run.name)
                          .arg(total)
                          .arg(total ? 100.0 * double(right) / double(total) : 0.0, 0, 'f', 1));
}

}  // namespace wb::gui
