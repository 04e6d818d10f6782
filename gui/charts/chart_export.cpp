#include "gui/charts/chart_export.h"

#include <QBuffer>
#include <QDir>
#include <QFileInfo>
#include <QPageLayout>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <algorithm>
#include <cmath>
#include <vector>

#include <qcustomplot.h>
#include <nlohmann/json.hpp>

#include "core/platform/atomic_file.h"
#include "core/platform/csv_field.h"
#include "core/platform/errors.h"
#include "gui/charts/chart_style.h"
#include "gui/runs/run_store.h"

namespace wb::gui {

namespace {
constexpr int kMaxPixels = 16384;  // per side: a 16k x 16k ARGB image is already 1 GiB

std::string quoted(const QString& path) {
    return "'" + QDir::toNativeSeparators(path).toStdString() + "'";
}

// Why a write failed, as far as can be told from outside.
std::string writeFailure(const QString& path, const QString& detail = {}) {
    const QFileInfo info(path);
    std::string reason;
    if (!info.absoluteDir().exists())
        reason = ": the folder does not exist";
    else if (!detail.isEmpty())
        reason = ": " + detail.toStdString();
    else
        reason = ": not writable (permissions, or the disk is full)";
    return "cannot write " + quoted(path) + reason;
}

void checkSize(const QString& path, int width, int height, double scale) {
    const double w = width * scale, h = height * scale;
    if (width < 1 || height < 1 || !(scale > 0) || std::lround(w) < 1 || std::lround(h) < 1 || w > kMaxPixels ||
        h > kMaxPixels)
        throw ConfigError("cannot export " + quoted(path) + ": size " + std::to_string(width) + "x" +
                          std::to_string(height) + " at scale " + std::to_string(scale) + " is out of range (1 to " +
                          std::to_string(kMaxPixels) + " pixels a side)");
}

// Written whole or not at all, through the one writer every output uses (core/platform/atomic_file.h): a
// unique temporary beside the target, fsynced and renamed, so a full disk is an error, never a
// truncated file under the final name; a device or FIFO as the target is refused.
void writeFile(const QString& path, const QByteArray& bytes) {
    const QFileInfo info(path);
    if (!info.absoluteDir().exists()) throw IoError(writeFailure(path));
    writeFileAtomically(path.toStdString(), std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())),
                        "the chart");
}

// QCustomPlot has no SVG export: draw the plot with its own painter onto an SVG generator.
QByteArray renderSvg(QCustomPlot& plot, const QString& path, int width, int height, double scale) {
    const QSize pixels(static_cast<int>(std::lround(width * scale)), static_cast<int>(std::lround(height * scale)));
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator generator;
    generator.setOutputDevice(&buffer);
    generator.setSize(pixels);
    generator.setViewBox(QRect(QPoint(0, 0), pixels));
    generator.setResolution(96);
    generator.setTitle(QFileInfo(path).completeBaseName());
    generator.setDescription("MLP Workbench chart");
    QCPPainter painter;
    if (!painter.begin(&generator)) throw IoError("cannot render " + quoted(path) + " as SVG");
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNonCosmetic, scale > 1.0);  // hairlines scale with the drawing, as in the PNG
    painter.scale(scale, scale);
    plot.toPainter(&painter, width, height);
    painter.end();
    return buffer.data();
}

// As QCustomPlot::savePng/saveJpg do (its toPixmap, 96 dpi), but into memory.
QByteArray renderRaster(QCustomPlot& plot, const QString& path, int width, int height, double scale, const char* format,
                        int quality) {
    QImage image = plot.toPixmap(width, height, scale).toImage();
    const int dotsPerMeter = static_cast<int>(96 / 0.0254);
    image.setDotsPerMeterX(dotsPerMeter);
    image.setDotsPerMeterY(dotsPerMeter);
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    if (image.isNull() || !image.save(&buffer, format, quality))
        throw IoError("cannot render " + quoted(path) + " as " + format);
    return buffer.data();
}

// As QCustomPlot::savePdf does (one width x height pt page, no margins, non-cosmetic pens), but into
// memory.
QByteArray renderPdf(QCustomPlot& plot, const QString& path, int width, int height) {
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    {
        QPdfWriter writer(&buffer);
        writer.setCreator("MLP Workbench");
        writer.setTitle(QFileInfo(path).completeBaseName());
        writer.setResolution(72);  // one pixel of the layout per point of the page
        writer.setPageLayout(
            QPageLayout(QPageSize(QSizeF(width, height), QPageSize::Point, QString(), QPageSize::ExactMatch),
                        QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
        QCPPainter painter;
        if (!painter.begin(&writer)) throw IoError("cannot render " + quoted(path) + " as PDF");
        painter.setMode(QCPPainter::pmVectorized);
        painter.setMode(QCPPainter::pmNonCosmetic);
        painter.setWindow(0, 0, width, height);
        plot.toPainter(&painter, width, height);
        painter.end();
    }  // the writer finishes the document when it goes
    return buffer.data();
}

QByteArray renderChart(QCustomPlot& plot, ChartFormat format, const QString& path, int width, int height,
                       double scale) {
    switch (format) {
        case ChartFormat::Png: return renderRaster(plot, path, width, height, scale, "PNG", -1);
        case ChartFormat::Jpg: return renderRaster(plot, path, width, height, scale, "JPG", 92);
        case ChartFormat::Pdf: return renderPdf(plot, path, width, height);
        case ChartFormat::Svg: return renderSvg(plot, path, width, height, scale);
    }
    return {};
}

// Whether a legend entry stands for a run the chart does not draw: a hidden run's grey entry, kept in
// the window's legend as the control that shows it again (chart_legend.h marks a run's entries with
// the property "wbRunId"; a hidden run's has no data).
bool listsARunNotShown(QCPAbstractLegendItem* item) {
    auto* entry = qobject_cast<QCPPlottableLegendItem*>(item);
    if (!entry || !entry->plottable()->property("wbRunId").isValid()) return false;
    QCPPlottableInterface1D* data = entry->plottable()->interface1D();
    return !entry->plottable()->visible() || (data && data->dataCount() == 0);
}

// For the length of an export, the legend lists only what the chart shows: the other entries are
// taken out (and hidden, as a taken element would still be drawn where it was), the rest packed in
// their order; all of them go back, in the order they had, when it ends however it ends.
class LegendOfShownRuns {
public:
    explicit LegendOfShownRuns(QCPLegend* legend) : legend_(legend) {
        for (int i = 0; legend_ && i < legend_->itemCount(); ++i)
            if (QCPAbstractLegendItem* item = legend_->item(i)) items_.push_back(item);
        if (std::none_of(items_.begin(), items_.end(), listsARunNotShown)) return;
        changed_ = true;
        relist([](QCPAbstractLegendItem* item) { return !listsARunNotShown(item); });
    }
    ~LegendOfShownRuns() {
        if (changed_) relist([](QCPAbstractLegendItem*) { return true; });
    }
    LegendOfShownRuns(const LegendOfShownRuns&) = delete;
    LegendOfShownRuns& operator=(const LegendOfShownRuns&) = delete;

private:
    template <class Keep>
    void relist(Keep keep) {
        for (QCPAbstractLegendItem* item : items_)
            if (item->layout() == legend_) legend_->take(item);
        legend_->simplify();
        for (QCPAbstractLegendItem* item : items_) {
            item->setVisible(keep(item));
            if (keep(item)) legend_->addItem(item);
        }
        legend_->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
    }

    QCPLegend* legend_;
    std::vector<QCPAbstractLegendItem*> items_;
    bool changed_ = false;
};

// The chart rendered with its legend laid out for the exported width, listing only the runs it
// shows, and back for the widget's however the rendering ends.
QByteArray renderLaidOut(QCustomPlot& plot, ChartFormat format, const QString& path, int width, int height,
                         double scale) {
    struct LegendWidth {
        QCustomPlot& plot;
        ~LegendWidth() { fitLegendColumns(plot, plot.width()); }
    } restore{plot};
    const LegendOfShownRuns shownOnly(plot.legend);
    fitLegendColumns(plot, width);
    return renderChart(plot, format, path, width, height, scale);
}

QString csvField(const QString& text) {
    return QString::fromStdString(csv::field(text.toStdString()));
}

QString number(double v) {
    return QString::number(v, 'g', 9);
}

QString number(const std::optional<double>& v) {
    return v ? number(*v) : QString();  // not measured: an empty cell
}

QString csvLine(const QString& run, const EpochMetrics& e) {
    // A regression has no accuracy (its record says null): an empty cell, and its own columns at the end.
    const QString trainAccuracy = e.trainRegression ? QString() : number(e.trainAccuracy);
    QStringList cells = {csvField(run),      QString::number(e.epoch),  e.warmup ? "1" : "0",  number(e.trainLoss),
                         trainAccuracy,      number(e.valLoss),         number(e.valAccuracy), number(e.wallMs),
                         number(e.deviceMs), number(e.samplesPerSecond)};
    const std::optional<PhaseTimes>& p = e.phases;
    for (const double PhaseTimes::*phase :
         {&PhaseTimes::data, &PhaseTimes::forward, &PhaseTimes::backward, &PhaseTimes::optimizer, &PhaseTimes::other})
        cells << (p ? number((*p).*phase) : QString());
    cells << number(e.elapsedMs);
    for (const std::optional<RegressionMetrics>& r : {e.trainRegression, e.valRegression})
        for (const double RegressionMetrics::*metric :
             {&RegressionMetrics::mse, &RegressionMetrics::mae, &RegressionMetrics::r2})
            cells << (r ? number((*r).*metric) : QString());
    return cells.join(',');
}
}  // namespace

std::optional<ChartFormat> chartFormatForPath(const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == "png") return ChartFormat::Png;
    if (suffix == "jpg" || suffix == "jpeg") return ChartFormat::Jpg;
    if (suffix == "pdf") return ChartFormat::Pdf;
    if (suffix == "svg") return ChartFormat::Svg;
    return std::nullopt;
}

QString extensionOf(ChartFormat format) {
    switch (format) {
        case ChartFormat::Png: return "png";
        case ChartFormat::Jpg: return "jpg";
        case ChartFormat::Pdf: return "pdf";
        case ChartFormat::Svg: return "svg";
    }
    return {};
}

void exportChart(QCustomPlot& plot, const QString& path, int width, int height, double scale) {
    const auto format = chartFormatForPath(path);
    if (!format)
        throw IoError("cannot export " + quoted(path) + ": unknown format '." + QFileInfo(path).suffix().toStdString() +
                      "' (use .png, .jpg, .pdf or .svg)");
    checkSize(path, width, height, scale);
    // The legend laid out for the exported width, and back for the widget's however the export ends.
    // Rendered into memory first, then written by the one atomic writer.
    writeFile(path, renderLaidOut(plot, *format, path, width, height, scale));
}

QByteArray renderChartBytes(QCustomPlot& plot, ChartFormat format, int width, int height, const QString& name) {
    checkSize(name, width, height, 1.0);
    return renderLaidOut(plot, format, name, width, height, 1.0);
}

void exportRunsCsv(const RunStore& store, const std::vector<int>& ids, const QString& path) {
    QString text =
        "run,epoch,warmup,train_loss,train_accuracy,val_loss,val_accuracy,wall_ms,device_ms,samples_per_s,"
        "data_ms,forward_ms,backward_ms,optimizer_ms,other_ms,elapsed_ms,"
        "train_mse,train_mae,train_r2,val_mse,val_mae,val_r2\n";
    for (const int id : ids) {
        const RunEntry* run = store.find(id);
        if (!run) continue;
        for (const EpochMetrics& e : run->record.epochs) text += csvLine(run->name, e) + '\n';
    }
    writeFile(path, text.toUtf8());
}

void exportRunsJson(const RunStore& store, const std::vector<int>& ids, const QString& path) {
    nlohmann::json runs = nlohmann::json::array();
    for (const int id : ids) {
        const RunEntry* run = store.find(id);
        if (!run) continue;
        RunRecord record = run->record;
        record.name = run->name.toStdString();  // the name the user sees, renamed or not
        runs.push_back(record.toJson());
    }
    writeFile(path, QByteArray::fromStdString(runs.dump(1) + '\n'));
}

}  // namespace wb::gui
