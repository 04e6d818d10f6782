// A report's pages: blocks of rich text (Qt's HTML subset, laid out by QTextDocument) and charts
// (QCustomPlot, drawn as vector graphics), written as an A4 PDF (QPdfWriter) or one HTML file with
// the charts inline as SVG. Nothing is drawn by hand: the text is Qt's, the charts are the plots'.
#pragma once

#include <QSize>
#include <QString>
#include <QWidget>
#include <memory>
#include <vector>

class QCustomPlot;
class QCPPainter;

namespace wb::gui {

class ReportDocument {
public:
    // The style every block shares (headings, tables, code), for the PDF and the HTML alike.
    static const char* styleSheet();

    ReportDocument() = default;
    // Empties each chart's legend in one go before its widget goes: QCustomPlot removes a plottable's
    // legend item by searching and re-laying the legend, which is quadratic in the plottables.
    ~ReportDocument();
    ReportDocument(ReportDocument&&) = default;
    ReportDocument& operator=(ReportDocument&&) = default;

    void addHtml(const QString& html);
    // A chart laid out at `layout` pixels (its fonts and lines at that size), scaled to the page's
    // width; `owner` keeps the widget that holds `plot` alive until the document is written.
    void addChart(std::unique_ptr<QWidget> owner, QCustomPlot& plot, QSize layout, const QString& caption);

    // Throw wb::IoError naming the path when the file cannot be written (nothing half-written is left).
    void writePdf(const QString& path, const QString& title) const;
    void writeHtml(const QString& path, const QString& title) const;
    int blockCount() const { return static_cast<int>(blocks_.size()); }

    // A chart as the pages show it: its plot laid out at `layout` pixels, with its caption.
    struct Chart {
        QCustomPlot* plot = nullptr;
        QSize layout;
        QString caption;
    };
    std::vector<Chart> charts() const;
    // Draws `plot` laid out at `layout` pixels at the painter's origin, as the PDF draws it (its legend's
    // columns fitted to that width), and leaves the plot as it was.
    static void paintChart(QCPPainter& painter, QCustomPlot& plot, QSize layout);

private:
    struct Block {
        QString html;  // a text block; empty for a chart
        std::unique_ptr<QWidget> owner;
        QCustomPlot* plot = nullptr;
        QSize layout;
        QString caption;
    };
    std::vector<Block> blocks_;
};

}  // namespace wb::gui
