// Getting charts and numbers out of the workbench: a chart as PNG, JPG, PDF or SVG (title and
// legend included, they are part of the plot; the legend lists only the runs the chart shows, not the
// hidden runs the window's legend keeps as controls), and the selected runs' per-epoch data as CSV or
// JSON.
#pragma once

#include <QByteArray>
#include <QString>
#include <optional>
#include <vector>

class QCustomPlot;

namespace wb::gui {

class RunStore;

enum class ChartFormat { Png, Jpg, Pdf, Svg };

// The format a file name asks for (.png, .jpg/.jpeg, .pdf, .svg, any case); nullopt otherwise.
std::optional<ChartFormat> chartFormatForPath(const QString& path);
QString extensionOf(ChartFormat format);  // "png", "jpg", "pdf", "svg"

// Renders `plot` as a chart laid out at width x height, into a file of the format of `path`'s
// extension:
//   .png, .jpg  (width*scale) x (height*scale) pixels, the same layout drawn `scale` times finer;
//   .svg        vector, with a viewBox of (width*scale) x (height*scale), drawn like the PNG;
//   .pdf        vector, one width x height pt page (scale does not apply to a vector page).
// The plot on screen is left as it was. Throws wb::IoError naming the path for an unknown
// extension or a failed write, wb::ConfigError for a size out of range.
void exportChart(QCustomPlot& plot, const QString& path, int width, int height, double scale = 1.0);

// What exportChart would write, into memory: for a document that embeds the chart (the report's
// HTML holds its charts as SVG). `name` stands for the chart in errors. Throws as exportChart.
QByteArray renderChartBytes(QCustomPlot& plot, ChartFormat format, int width, int height, const QString& name);

// One line per epoch of each run in `ids` (in that order; unknown ids are skipped), the run's name
// first. Throws wb::IoError naming the path when it cannot be written.
void exportRunsCsv(const RunStore& store, const std::vector<int>& ids, const QString& path);
// A JSON array of the runs' RunRecords (schema mlpwb.run/1) under their current names.
void exportRunsJson(const RunStore& store, const std::vector<int>& ids, const QString& path);

}  // namespace wb::gui
