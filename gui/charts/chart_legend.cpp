#include "gui/charts/chart_legend.h"

#include <qcustomplot.h>

#include "gui/runs/run_store.h"

namespace wb::gui {

namespace {
constexpr const char* kRunIdProperty = "wbRunId";
// Where the legend was taken from, to put it back: its layout grid and its cell (column, row).
constexpr const char* kLegendLayoutProperty = "wbLegendLayout";
constexpr const char* kLegendCellProperty = "wbLegendCell";
const QColor kHiddenGrey(175, 175, 175);
}  // namespace

void tagLegendRun(QCPAbstractPlottable* plottable, int runId) {
    plottable->setProperty(kRunIdProperty, runId);
}

void styleHiddenEntry(QCustomPlot& plot, QCPGraph* entry) {
    entry->setPen(QPen(kHiddenGrey, 2.0));
    if (QCPPlottableLegendItem* item = plot.legend->itemWithPlottable(entry)) {
        item->setTextColor(kHiddenGrey);
        item->setSelectedTextColor(kHiddenGrey);
    }
}

void connectLegendToggles(QCustomPlot& plot, RunStore& store) {
    QObject::connect(&plot, &QCustomPlot::legendClick, &store,
                     [&store](QCPLegend*, QCPAbstractLegendItem* item, QMouseEvent*) {
                         auto* entry = qobject_cast<QCPPlottableLegendItem*>(item);
                         if (!entry) return;
                         const QVariant id = entry->plottable()->property(kRunIdProperty);
                         if (!id.isValid()) return;
                         if (const RunEntry* run = store.find(id.toInt())) store.setVisible(run->id, !run->visible);
                     });
}

void setLegendShown(QCustomPlot& plot, bool shown) {
    QCPLegend* legend = plot.legend;
    if (legendShown(plot) == shown) return;
    if (!shown) {
        if (auto* cell = qobject_cast<QCPLayoutGrid*>(legend->layout())) {
            for (int row = 0; row < cell->rowCount(); ++row)
                for (int column = 0; column < cell->columnCount(); ++column)
                    if (cell->element(row, column) == legend)
                        legend->setProperty(kLegendCellProperty, QPoint(column, row));
            legend->setProperty(kLegendLayoutProperty, QVariant::fromValue(static_cast<QObject*>(cell)));
            cell->take(legend);
        }
        legend->setVisible(false);
        return;
    }
    auto* cell = qobject_cast<QCPLayoutGrid*>(legend->property(kLegendLayoutProperty).value<QObject*>());
    const QPoint at = legend->property(kLegendCellProperty).toPoint();
    if (cell) cell->addElement(at.y(), at.x(), legend);
    legend->setVisible(true);
}

bool legendShown(const QCustomPlot& plot) {
    return plot.legend && plot.legend->visible();
}

}  // namespace wb::gui
