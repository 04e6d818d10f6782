#include "gui/charts/chart_style.h"

#include <qcustomplot.h>

#include <algorithm>

namespace wb::gui {

namespace {
// Point sizes relative to nothing but each other: ticks < legend = labels < title.
constexpr int kTickPoints = 10;
constexpr int kLabelPoints = 11;
constexpr int kTitlePoints = 14;
const QColor kInk(40, 40, 40);
const QColor kAxisGrey(130, 130, 130);
const QColor kGridGrey(228, 228, 228);

QFont chartFont(const QCustomPlot& plot, int points, bool bold = false) {
    QFont font = plot.font();
    font.setPointSize(points);
    font.setBold(bold);
    return font;
}

void styleAxis(QCPAxis* axis, const QCustomPlot& plot) {
    const QPen axisPen(kAxisGrey, 1);
    axis->setBasePen(axisPen);
    axis->setTickPen(axisPen);
    axis->setSubTickPen(axisPen);
    axis->setTickLabelFont(chartFont(plot, kTickPoints));
    axis->setTickLabelColor(kInk);
    axis->setLabelFont(chartFont(plot, kLabelPoints));
    axis->setLabelColor(kInk);
    axis->grid()->setPen(QPen(kGridGrey, 1, Qt::SolidLine));
    axis->grid()->setZeroLinePen(Qt::NoPen);
    axis->grid()->setSubGridVisible(false);
}

constexpr int kLegendItemSlack = 4;  // pixels right of each legend entry, inside its clip

// Centres the legend in its row: a spacer on each side takes the slack, so the entries stay
// together instead of being spread over the whole width.
void placeLegendInRow(QCustomPlot& plot, int row) {
    auto* band = new QCPLayoutGrid;
    plot.plotLayout()->addElement(row, 0, band);
    band->addElement(0, 0, new QCPLayoutElement(&plot));
    plot.axisRect()->insetLayout()->take(plot.legend);
    band->addElement(0, 1, plot.legend);
    band->addElement(0, 2, new QCPLayoutElement(&plot));
    band->setColumnStretchFactors({1.0, 0.001, 1.0});
    band->setMargins(QMargins(0, 0, 0, 4));
}

void styleLegend(QCustomPlot& plot) {
    QCPLegend* legend = plot.legend;
    legend->setVisible(true);
    legend->setFont(chartFont(plot, kLabelPoints - 1));
    legend->setTextColor(kInk);
    legend->setBorderPen(Qt::NoPen);
    legend->setBrush(Qt::NoBrush);
    legend->setIconSize(QSize(30, 12));
    legend->setColumnSpacing(18 - kLegendItemSlack);
    legend->setRowSpacing(2);
    setLegendColumns(plot, 4);
    legend->setSelectableParts(QCPLegend::spNone);
}
}  // namespace

QCPTextElement* applyChartStyle(QCustomPlot& plot, const QString& title, LegendPlace legend) {
    plot.setBackground(Qt::white);
    plot.setNoAntialiasingOnDrag(true);  // panning stays smooth with many points

    QCPLayoutGrid* layout = plot.plotLayout();
    layout->setMargins(QMargins(10, 0, 10, 4));  // tick labels never touch the image's edge
    if (legend == LegendPlace::AboveAxes) {
        layout->insertRow(0);
        placeLegendInRow(plot, 0);
        styleLegend(plot);
    } else {
        plot.legend->setVisible(false);
    }
    layout->insertRow(0);
    auto* titleElement = new QCPTextElement(&plot, title, chartFont(plot, kTitlePoints, true));
    titleElement->setTextColor(kInk);
    titleElement->setMargins(QMargins(0, 8, 0, 2));
    layout->addElement(0, 0, titleElement);
    // The title and legend rows take only the height they need; the plot gets the rest.
    for (int row = 0; row + 1 < layout->rowCount(); ++row) layout->setRowStretchFactor(row, 0.001);

    for (QCPAxis* axis : plot.axisRect()->axes()) styleAxis(axis, plot);
    plot.axisRect()->setMinimumMargins(QMargins(12, 8, 24, 8));
    return titleElement;
}

constexpr const char* kLegendColumnsProperty = "wbLegendColumns";  // the most columns asked for

void setLegendColumns(QCustomPlot& plot, int columns) {
    plot.setProperty(kLegendColumnsProperty, columns);
    plot.legend->setWrap(columns);
    plot.legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
}

void fitLegendColumns(QCustomPlot& plot, int width) {
    QCPLegend* legend = plot.legend;
    const int wanted = plot.property(kLegendColumnsProperty).toInt();
    if (!legend || wanted <= 0 || legend->itemCount() == 0) return;
    int widest = 0;
    for (int i = 0; i < legend->itemCount(); ++i)
        if (QCPAbstractLegendItem* item = legend->item(i)) {
            // An item is sized by whole-pixel font metrics and clipped to that size, while its text is
            // drawn at fractional advances: a few pixels on the right keep a name's last letter whole.
            item->setMargins(QMargins(0, 0, kLegendItemSlack, 0));
            widest = std::max(widest, item->minimumOuterSizeHint().width());
        }
    const int spacing = legend->columnSpacing();
    const QMargins margins = legend->margins();
    const int room = width - margins.left() - margins.right() - 16;  // the legend row's own margins
    const int fits = std::max(1, (room + spacing) / std::max(1, widest + spacing));
    const int columns = std::min(wanted, fits);
    if (legend->wrap() == columns) return;
    legend->setWrap(columns);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
}

QCPItemText* addPlaceholder(QCustomPlot& plot, const QString& text) {
    auto* item = new QCPItemText(&plot);
    item->position->setType(QCPItemPosition::ptAxisRectRatio);
    item->position->setCoords(0.5, 0.5);
    item->setText(text);
    item->setFont(chartFont(plot, kLabelPoints + 1));
    item->setColor(kAxisGrey);
    item->setSelectable(false);
    item->setVisible(false);
    return item;
}

QCPItemText* addValueLabel(QCustomPlot& plot, const QString& text) {
    auto* item = new QCPItemText(&plot);
    item->setText(text);
    item->setFont(chartFont(plot, kTickPoints));
    item->setColor(kInk);
    item->setSelectable(false);
    item->setClipToAxisRect(false);  // a label just above the tallest bar may reach into the margin
    return item;
}

const std::array<QString, kPhaseCount>& phaseNames() {
    static const std::array<QString, kPhaseCount> names = {"data", "forward", "backward", "optimizer", "other"};
    return names;
}

// Okabe–Ito colours: told apart by people with the common colour-vision deficiencies.
const std::array<QColor, kPhaseCount>& phaseColors() {
    static const std::array<QColor, kPhaseCount> colors = {QColor(0xE6, 0x9F, 0x00), QColor(0x56, 0xB4, 0xE9),
                                                           QColor(0x00, 0x72, 0xB2), QColor(0x00, 0x9E, 0x73),
                                                           QColor(0xCC, 0x79, 0xA7)};
    return colors;
}

QColor neutralColor() {
    return {150, 150, 150};
}

}  // namespace wb::gui
