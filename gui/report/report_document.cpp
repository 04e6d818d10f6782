#include "gui/report/report_document.h"

#include <QAbstractTextDocumentLayout>
#include <QBuffer>
#include <QPageLayout>
#include <QPdfWriter>
#include <QSaveFile>
#include <QTextDocument>

#include <qcustomplot.h>

#include "core/platform/errors.h"
#include "gui/charts/chart_export.h"
#include "gui/charts/chart_style.h"

namespace wb::gui {

namespace {
constexpr int kDpi = 96;        // the PDF's layout unit is a screen pixel, as the charts' sizes are
constexpr double kGap = 14;     // between blocks, in those pixels
constexpr double kFooter = 24;  // room for the page number under the text

void commit(QSaveFile& file, const QString& path) {
    if (!file.commit()) throw IoError("cannot write " + path.toStdString() + ": " + file.errorString().toStdString());
}

// The PDF's pages, filled from the top: each block goes where it fits, or on a new page.
class PdfPages {
public:
    PdfPages(QPdfWriter& writer, QCPPainter& painter)
        : writer_(writer), painter_(painter), area_(writer.pageLayout().paintRectPixels(kDpi)) {
        area_.setHeight(area_.height() - static_cast<int>(kFooter));
    }
    double width() const { return area_.width(); }
    double height() const { return area_.height(); }

    // Room for `h` more pixels on this page, or a new page (unless this one is still empty).
    void reserve(double h) {
        if (y_ > 0 && y_ + h > height()) newPage();
    }
    void newPage() {
        footer();
        writer_.newPage();
        y_ = 0;
    }
    double& y() { return y_; }
    void finish() { footer(); }

private:
    void footer() {
        painter_.save();
        painter_.setPen(QColor(120, 120, 120));
        painter_.setFont(QFont(painter_.font().family(), 8));
        painter_.drawText(QRectF(0, height(), width(), kFooter), Qt::AlignRight | Qt::AlignBottom,
                          QString("MLP Workbench report \u2014 page %1").arg(++page_));
        painter_.restore();
    }
    QPdfWriter& writer_;
    QCPPainter& painter_;
    QRect area_;
    double y_ = 0;
    int page_ = 0;
};

// A text block at the page's width; taller than a page, it continues on the next ones.
void drawText(PdfPages& pages, QCPPainter& painter, QPdfWriter& writer, const QString& html) {
    QTextDocument doc;
    doc.documentLayout()->setPaintDevice(&writer);
    doc.setDefaultStyleSheet(ReportDocument::styleSheet());
    doc.setHtml(html);
    doc.setTextWidth(pages.width());
    const double h = doc.size().height();
    if (h <= pages.height()) {
        pages.reserve(h);
        painter.save();
        painter.translate(0, pages.y());
        doc.drawContents(&painter);
        painter.restore();
        pages.y() += h + kGap;
        return;
    }
    if (pages.y() > 0) pages.newPage();
    doc.setPageSize(QSizeF(pages.width(), pages.height()));  // the document's own page breaks
    for (int page = 0; page < doc.pageCount(); ++page) {
        if (page > 0) pages.newPage();
        painter.save();
        painter.translate(0, -page * pages.height());
        doc.drawContents(&painter, QRectF(0, page * pages.height(), pages.width(), pages.height()));
        painter.restore();
    }
    pages.y() = pages.height();  // what follows starts on a new page
}

void drawChart(PdfPages& pages, QCPPainter& painter, QCustomPlot& plot, QSize layout) {
    const double scale = pages.width() / layout.width();
    const double h = layout.height() * scale;
    pages.reserve(h);
    painter.save();
    painter.translate(0, pages.y());
    painter.scale(scale, scale);
    ReportDocument::paintChart(painter, plot, layout);
    painter.restore();
    pages.y() += h + kGap;
}

QString escaped(const QString& text) {
    return text.toHtmlEscaped();
}
}  // namespace

const char* ReportDocument::styleSheet() {
    return "body { font-family: sans-serif; font-size: 10pt; color: #202020; }"
           "h1 { font-size: 18pt; margin-bottom: 4px; }"
           "h2 { font-size: 13pt; margin-top: 10px; margin-bottom: 4px; color: #1f4e79; }"
           "p.lead { font-size: 11pt; }"
           "p.small { font-size: 8pt; color: #606060; }"
           "table { border-collapse: collapse; }"
           "th { background-color: #e8eef5; text-align: left; padding: 3px; }"
           "td { padding: 3px; }"
           "td.n { text-align: right; }"
           "pre { font-family: monospace; font-size: 7pt; background-color: #f4f4f4; }";
}

void ReportDocument::addHtml(const QString& html) {
    Block b;
    b.html = html;
    blocks_.push_back(std::move(b));
}

ReportDocument::~ReportDocument() {
    for (Block& b : blocks_)
        if (b.plot) b.plot->legend->clear();  // the items at once (QCPLayout::clear), not one by one
}

void ReportDocument::addChart(std::unique_ptr<QWidget> owner, QCustomPlot& plot, QSize layout, const QString& caption) {
    Block b;
    b.owner = std::move(owner);
    b.plot = &plot;
    b.layout = layout;
    b.caption = caption;
    blocks_.push_back(std::move(b));
}

std::vector<ReportDocument::Chart> ReportDocument::charts() const {
    std::vector<Chart> charts;
    for (const Block& b : blocks_)
        if (b.plot) charts.push_back({b.plot, b.layout, b.caption});
    return charts;
}

void ReportDocument::paintChart(QCPPainter& painter, QCustomPlot& plot, QSize layout) {
    fitLegendColumns(plot, layout.width());
    plot.toPainter(&painter, layout.width(), layout.height());
    fitLegendColumns(plot, plot.width());
}

void ReportDocument::writePdf(const QString& path, const QString& title) const {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        throw IoError("cannot write " + path.toStdString() + ": " + file.errorString().toStdString());
    {
        QPdfWriter writer(&file);
        writer.setTitle(title);
        writer.setCreator("MLP Workbench");
        writer.setResolution(kDpi);
        writer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait, QMarginsF(16, 14, 16, 12),
                                         QPageLayout::Millimeter));
        QCPPainter painter;
        if (!painter.begin(&writer)) throw IoError("cannot render " + path.toStdString() + " as PDF");
        painter.setMode(QCPPainter::pmVectorized);
        painter.setMode(QCPPainter::pmNonCosmetic);
        PdfPages pages(writer, painter);
        for (const Block& b : blocks_) {
            if (b.plot) {
                drawChart(pages, painter, *b.plot, b.layout);
                if (!b.caption.isEmpty())
                    drawText(pages, painter, writer, "<p class='small'>" + escaped(b.caption) + "</p>");
            } else {
                drawText(pages, painter, writer, b.html);
            }
        }
        pages.finish();
        painter.end();
    }  // the writer finishes the document when it goes
    commit(file, path);
}

void ReportDocument::writeHtml(const QString& path, const QString& title) const {
    QString html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + escaped(title) +
                   "</title>\n<style>" + styleSheet() +
                   " body { max-width: 60em; margin: 2em auto; } img { width: 100%; }</style></head><body>\n";
    for (const Block& b : blocks_) {
        if (b.plot) {
            const QByteArray svg = renderChartBytes(*b.plot, ChartFormat::Svg, b.layout.width(), b.layout.height(),
                                                    b.caption.isEmpty() ? "chart" : b.caption);
            html += "<figure><img alt=\"" + escaped(b.caption) + "\" src=\"data:image/svg+xml;base64," +
                    QString::fromLatin1(svg.toBase64()) + "\"><figcaption class=\"small\">" + escaped(b.caption) +
                    "</figcaption></figure>\n";
        } else {
            html += b.html + "\n";
        }
    }
    html += "</body></html>\n";
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        throw IoError("cannot write " + path.toStdString() + ": " + file.errorString().toStdString());
    file.write(html.toUtf8());
    commit(file, path);
}

}  // namespace wb::gui
