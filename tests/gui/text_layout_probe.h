// Where a chart's text lands, as a reader would see it: the chart is drawn through a paint engine
// that records every piece of text with its box on the page (in device pixels, after every
// transform) and the clip it was drawn under, instead of pixels. A layout test then asks what a
// person would: is each text inside the chart, whole (not clipped, not elided with "…"), and apart
// from every other text. Header-only, for the GUI suites.
#pragma once

#include <QFontMetricsF>
#include <QPaintDevice>
#include <QPaintEngine>
#include <QPainter>
#include <QPolygonF>
#include <QString>
#include <QTextItem>
#include <climits>
#include <cmath>
#include <vector>

#include <qcustomplot.h>

namespace wb::gui::test {

struct DrawnText {
    QString text;
    QPolygonF shape;  // the text's box on the page (ascent to descent, its advance wide), rotated as drawn
    QRectF box;       // the shape's bounding box
    QRectF clip;      // the clip it was drawn under; the whole page when none
    bool clipped() const { return !clip.adjusted(-1, -1, 1, 1).contains(box); }
    // Whether the two boxes share more than their edges (a pixel's slack either way).
    bool overlaps(const DrawnText& other) const {
        const auto inner = [](const QPolygonF& p) {
            const QPointF centre = p.boundingRect().center();
            QPolygonF shrunk;
            for (const QPointF& q : p) {
                const QPointF d = q - centre;
                const double length = std::hypot(d.x(), d.y());
                shrunk << (length > 1.5 ? q - d / length * 1.5 : centre);
            }
            return shrunk;
        };
        return inner(shape).intersects(inner(other.shape));
    }
};

// Records drawTextItem calls; draws nothing.
class TextRecordingEngine : public QPaintEngine {
public:
    TextRecordingEngine() : QPaintEngine(QPaintEngine::AllFeatures) {}
    bool begin(QPaintDevice* device) override {
        page_ = QRectF(0, 0, device->width(), device->height());
        return true;
    }
    bool end() override { return true; }
    void updateState(const QPaintEngineState&) override {}
    void drawPixmap(const QRectF&, const QPixmap&, const QRectF&) override {}
    void drawPolygon(const QPointF*, int, PolygonDrawMode) override {}
    void drawPath(const QPainterPath&) override {}
    void drawTextItem(const QPointF& at, const QTextItem& item) override {
        if (item.text().trimmed().isEmpty()) return;
        const QFontMetricsF metrics(item.font(), paintDevice());
        const QRectF local(at.x(), at.y() - metrics.ascent(), metrics.horizontalAdvance(item.text()),
                           metrics.ascent() + metrics.descent());
        const QTransform toPage = painter()->combinedTransform();
        const QRectF clip = painter()->hasClipping() ? toPage.mapRect(painter()->clipBoundingRect()) & page_ : page_;
        const QPolygonF shape = toPage.map(QPolygonF(local));
        texts.push_back({item.text(), shape, shape.boundingRect(), clip});
    }
    Type type() const override { return QPaintEngine::User; }

    std::vector<DrawnText> texts;

private:
    QRectF page_;
};

// A page of `size` pixels at 96 dpi whose painter records text.
class TextRecordingPage : public QPaintDevice {
public:
    explicit TextRecordingPage(QSize size) : size_(size) {}
    QPaintEngine* paintEngine() const override { return &engine_; }
    const std::vector<DrawnText>& texts() const { return engine_.texts; }

protected:
    int metric(PaintDeviceMetric m) const override {
        constexpr int kDpi = 96;
        switch (m) {
            case PdmWidth: return size_.width();
            case PdmHeight: return size_.height();
            case PdmWidthMM: return size_.width() * 254 / (kDpi * 10);
            case PdmHeightMM: return size_.height() * 254 / (kDpi * 10);
            case PdmNumColors: return INT_MAX;
            case PdmDepth: return 32;
            case PdmDpiX:
            case PdmDpiY:
            case PdmPhysicalDpiX:
            case PdmPhysicalDpiY: return kDpi;
            case PdmDevicePixelRatio: return 1;
            case PdmDevicePixelRatioScaled: return static_cast<int>(devicePixelRatioFScale());
            default: return 0;
        }
    }

private:
    QSize size_;
    mutable TextRecordingEngine engine_;
};

// Every text `draw` paints on a page of `size` pixels.
template <typename Draw>
std::vector<DrawnText> drawnTexts(QSize size, Draw draw) {
    TextRecordingPage page(size);
    QCPPainter painter(&page);
    draw(painter);
    painter.end();
    return page.texts();
}

// Every text `plot` draws at its present size.
inline std::vector<DrawnText> drawnTexts(QCustomPlot& plot) {
    return drawnTexts(plot.size(), [&](QCPPainter& painter) { plot.toPainter(&painter, plot.width(), plot.height()); });
}

// What a reader could not read, one line a problem ("'3.36× faster' is clipped: ..."); empty when
// every text is inside the page, whole, unelided and apart from every other.
inline QStringList layoutProblems(const std::vector<DrawnText>& texts, QSize page) {
    QStringList problems;
    const QRectF all(0, 0, page.width(), page.height());
    const auto describe = [](const QRectF& r) {
        return QString("[%1,%2 %3x%4]")
            .arg(r.x(), 0, 'f', 0)
            .arg(r.y(), 0, 'f', 0)
            .arg(r.width(), 0, 'f', 0)
            .arg(r.height(), 0, 'f', 0);
    };
    for (std::size_t i = 0; i < texts.size(); ++i) {
        const DrawnText& t = texts[i];
        if (!all.adjusted(-1, -1, 1, 1).contains(t.box))
            problems << QString("'%1' leaves the chart: %2").arg(t.text, describe(t.box));
        else if (t.clipped())
            problems << QString("'%1' is clipped: %2 outside %3").arg(t.text, describe(t.box), describe(t.clip));
        if (t.text.contains(QChar(0x2026))) problems << QString("'%1' is elided").arg(t.text);
        for (std::size_t j = i + 1; j < texts.size(); ++j) {
            if (t.overlaps(texts[j]) && t.box != texts[j].box)
                problems << QString("'%1' %2 overlaps '%3' %4")
                                .arg(t.text, describe(t.box), texts[j].text, describe(texts[j].box));
        }
    }
    return problems;
}

}  // namespace wb::gui::test
