#include "gui/panels/dataset_summary.h"

#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QScrollBar>
#include <QStringList>
#include <QTableView>
#include <QWheelEvent>
#include <algorithm>
#include <vector>

#include "gui/panels/dataset_preview_model.h"
#include "gui/panels/field_guard.h"

namespace wb::gui {

namespace {

QLabel* valueLabel(const QString& name) {
    auto* label = new QLabel("—");
    label->setObjectName(name);
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

QString labelMappingText(const Dataset& d) {
    if (d.task == Task::Regression) return "a number to predict (regression)";
    if (d.labelMapping.empty() && d.task == Task::Multiclass)
        return QString("%1 numbered classes").arg(d.classNames.size());
    if (d.labelMapping.empty()) return "numeric 0 / 1";
    QStringList parts;
    for (const auto& [text, code] : d.labelMapping)
        parts << QString("%1 → %2").arg(QString::fromStdString(text)).arg(code);
    return parts.join(", ");
}

// The class balance: the share of 1s for yes/no, each class's share for K classes, the range of a target.
QString balanceText(const Dataset& d, const QLocale& locale) {
    if (d.task == Task::Binary)
        return QString("%1 % labelled 1").arg(locale.toString(100.0 * d.positiveFraction(), 'f', 1));
    if (d.labels.empty()) return "—";
    if (d.task == Task::Regression) {
        const auto [lo, hi] = std::minmax_element(d.labels.begin(), d.labels.end());
        return QString("target from %1 to %2").arg(locale.toString(*lo, 'g', 4), locale.toString(*hi, 'g', 4));
    }
    std::vector<std::size_t> counts(d.classNames.size(), 0);
    for (float y : d.labels)
        if (y >= 0 && static_cast<std::size_t>(y) < counts.size()) ++counts[static_cast<std::size_t>(y)];
    QStringList parts;
    for (std::size_t k = 0; k < counts.size(); ++k)
        parts << QString("%1 %2 %").arg(QString::fromStdString(d.classNames[k]),
                                        locale.toString(100.0 * double(counts[k]) / double(d.labels.size()), 'f', 1));
    return parts.join(", ");
}

// The preview inside a scrolling panel: until the user clicks into it (or tabs to it), the wheel over
// it scrolls the panel, as over the panel's fields; the first scroll area above the table gets it.
class WheelToPanelUnlessFocused : public QObject {
public:
    explicit WheelToPanelUnlessFocused(QAbstractScrollArea* table) : QObject(table), table_(table) {}

    bool eventFilter(QObject*, QEvent* event) override {
        if (event->type() != QEvent::Wheel || table_->hasFocus()) return false;
        for (QWidget* up = table_->parentWidget(); up; up = up->parentWidget())
            if (auto* area = qobject_cast<QAbstractScrollArea*>(up)) {
                QCoreApplication::sendEvent(area->verticalScrollBar(), event);
                break;
            }
        return true;
    }

private:
    QAbstractScrollArea* table_;
};

QString notesText(const Dataset& d) {
    if (d.notes.empty()) return "none";
    QStringList parts;
    for (const auto& note : d.notes) parts << QString::fromStdString(note);
    return parts.join("; ");
}

}  // namespace

DatasetSummary::DatasetSummary(QWidget* parent) : QGroupBox("Data set in use", parent) {
    preview_ = new DatasetPreviewModel(this);
    auto* form = new QFormLayout(this);
    inUseLine_ = new QLabel;
    inUseLine_->setObjectName("inUseLine");
    inUseLine_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QPalette red = inUseLine_->palette();
    red.setColor(QPalette::WindowText, QColor(176, 0, 32));
    inUseLine_->setPalette(red);
    inUseLine_->hide();
    form->addRow(inUseLine_);
    sourceValue_ = valueLabel("sourceValue");
    rowsValue_ = valueLabel("rowsValue");
    featuresValue_ = valueLabel("featuresValue");
    balanceValue_ = valueLabel("balanceValue");
    balanceValue_->setToolTip(
        "The share of rows in each class (yes/no: labelled 1). Far from even, accuracy alone says little: "
        "always guessing the larger class already scores that much.");
    mappingValue_ = valueLabel("mappingValue");
    mappingValue_->setToolTip("How text labels were turned into class numbers (in sorted order)");
    notesValue_ = valueLabel("notesValue");
    notesValue_->setToolTip("What the loader did to the data: rows dropped, values filled in, ...");
    form->addRow("Source", sourceValue_);
    form->addRow("Rows", rowsValue_);
    form->addRow("Features", featuresValue_);
    form->addRow("Balance", balanceValue_);
    form->addRow("Labels", mappingValue_);
    form->addRow("Notes", notesValue_);
    previewTable_ = new QTableView;
    previewTable_->setObjectName("previewTable");
    previewTable_->setModel(preview_);
    previewTable_->setToolTip(
        QString("The first %1 rows; the label is the last column").arg(DatasetPreviewModel::kMaxRows));
    previewTable_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    previewTable_->setAlternatingRowColors(true);
    previewTable_->verticalHeader()->setDefaultSectionSize(previewTable_->fontMetrics().height() + 6);
    previewTable_->horizontalHeader()->setMaximumSectionSize(160);  // one long name must not hide the rest
    previewTable_->setMinimumHeight(150);
    previewTable_->setMaximumHeight(220);
    previewTable_->setFocusPolicy(Qt::StrongFocus);  // a click or Tab, never the wheel passing over it
    previewTable_->viewport()->installEventFilter(new WheelToPanelUnlessFocused(previewTable_));
    form->addRow(previewTable_);
}

void DatasetSummary::showDataset(const std::shared_ptr<const Dataset>& dataset, const QString& source) {
    preview_->setDataset(dataset);
    previewTable_->resizeColumnsToContents();  // a preview is read by its headers: show the names whole
    // Another data set: its first row and first column, not where the last one was scrolled to.
    previewTable_->scrollToTop();
    previewTable_->horizontalScrollBar()->setValue(0);
    inUse_ = source;
    inUseLine_->hide();
    const Dataset& d = *dataset;
    const QLocale locale;
    sourceValue_->setText(source);
    sourceValue_->setToolTip(QString("%1\n%2").arg(QString::fromStdString(d.source), QString::fromStdString(d.hash)));
    rowsValue_->setText(locale.toString(static_cast<qulonglong>(d.rows)));
    featuresValue_->setText(locale.toString(static_cast<qulonglong>(d.cols)));
    balanceValue_->setText(balanceText(d, locale));
    mappingValue_->setText(QString("%1: %2").arg(QString::fromStdString(d.labelName), labelMappingText(d)));
    notesValue_->setText(notesText(d));
}

void DatasetSummary::showRefused(const QString& refused, const QString& message) {
    // "x.csv, line 3: ..." after "x.csv was refused:" says the name once.
    QString why = message;
    for (const QString& lead : {refused + ": ", refused + ", "})
        if (why.startsWith(lead)) why = why.mid(lead.size());
    showMessage(inUseLine_, QString("In use: %1 (%2 was refused: %3)").arg(inUse_, refused, why));
    inUseLine_->show();
}

}  // namespace wb::gui
