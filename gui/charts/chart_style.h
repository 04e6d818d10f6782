// The one look every workbench chart shares: fonts, a light grid, a title row and a legend row
// above the plot (so the legend never covers a curve), and the colours of the time phases.
#pragma once

#include <QColor>
#include <QString>
#include <array>

class QCustomPlot;
class QCPItemText;
class QCPTextElement;

namespace wb::gui {

enum class LegendPlace { AboveAxes, None };

// Lays out a fresh plot as: title, legend row (unless LegendPlace::None), axis rect, and styles the
// axes. Returns the title element; it is part of the plot, so every export carries it.
QCPTextElement* applyChartStyle(QCustomPlot& plot, const QString& title, LegendPlace legend = LegendPlace::AboveAxes);

// How many legend entries sit side by side before the legend wraps to a new row.
void setLegendColumns(QCustomPlot& plot, int columns);
// Fewer entries side by side (never more than setLegendColumns asked for) when the widest would not
// fit `width` pixels that many times, so long run names wrap to more rows instead of being cut.
void fitLegendColumns(QCustomPlot& plot, int width);

// A grey note in the middle of the axis rect (e.g. "No visible runs"), hidden until needed.
QCPItemText* addPlaceholder(QCustomPlot& plot, const QString& text);

// A value label drawn inside the plot (bar totals, speedups), in the tick font.
QCPItemText* addValueLabel(QCustomPlot& plot, const QString& text);

// The five measured phases of an epoch, in stacking order (bottom first).
inline constexpr int kPhaseCount = 5;
const std::array<QString, kPhaseCount>& phaseNames();
const std::array<QColor, kPhaseCount>& phaseColors();
// For what has no colour of its own: "not separable" bars, the baseline.
QColor neutralColor();

}  // namespace wb::gui
