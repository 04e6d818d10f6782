#include "gui/charts/chart_interaction.h"

#include <QEvent>
#include <QMouseEvent>

#include <qcustomplot.h>

namespace wb::gui {

namespace {
constexpr const char* kOverlayLayer = "hover";
const QColor kCrosshairGrey(120, 120, 120);

QCPLayer* overlayLayer(QCustomPlot& plot) {
    if (QCPLayer* layer = plot.layer(kOverlayLayer)) return layer;
    plot.addLayer(kOverlayLayer, plot.layer(plot.layerCount() - 1), QCustomPlot::limAbove);
    QCPLayer* layer = plot.layer(kOverlayLayer);
    layer->setMode(QCPLayer::lmBuffered);
    return layer;
}
}  // namespace

void installBoxZoom(QCustomPlot& plot) {
    plot.setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot.selectionRect()->setPen(QPen(kCrosshairGrey, 1, Qt::DashLine));
    plot.selectionRect()->setBrush(QColor(31, 119, 180, 30));
    // QCustomPlot emits mousePress before it decides between a selection rect and a drag, so the
    // mode chosen here applies to this very press.
    QObject::connect(&plot, &QCustomPlot::mousePress, &plot, [&plot](QMouseEvent* event) {
        const bool pan = event->button() != Qt::LeftButton || event->modifiers().testFlag(Qt::ControlModifier);
        const bool inAxes = plot.axisRect()->rect().contains(event->position().toPoint());
        plot.setSelectionRectMode(inAxes && !pan ? QCP::srmZoom : QCP::srmNone);
    });
}

HoverCrosshair::HoverCrosshair(QCustomPlot& plot, TextAt textAt)
    : QObject(&plot), plot_(plot), textAt_(std::move(textAt)) {
    timer_.setSingleShot(true);
    timer_.setInterval(kIntervalMs);
    connect(&timer_, &QTimer::timeout, this, &HoverCrosshair::update);
    connect(&plot, &QCustomPlot::mouseMove, this, &HoverCrosshair::mouseMoved);
    connect(&plot, &QCustomPlot::mousePress, this, [this] {
        pressed_ = true;
        hide();
    });
    connect(&plot, &QCustomPlot::mouseRelease, this, [this] { pressed_ = false; });
    plot.installEventFilter(this);
}

QString HoverCrosshair::text() const {
    return label_ && label_->visible() ? label_->text() : QString();
}

// Made at the first hover, not before: a chart that is only exported (mlp-workbench --export-chart)
// never gets the extra buffered layer, whose paint buffer an unshown widget could not back.
void HoverCrosshair::createItems() {
    layer_ = overlayLayer(plot_);
    line_ = new QCPItemStraightLine(&plot_);
    line_->setLayer(layer_);
    line_->setPen(QPen(kCrosshairGrey, 1, Qt::DashLine));
    line_->point1->setTypeY(QCPItemPosition::ptAxisRectRatio);  // top to bottom of the axes,
    line_->point2->setTypeY(QCPItemPosition::ptAxisRectRatio);  // on a log axis too
    line_->setSelectable(false);
    label_ = new QCPItemText(&plot_);
    label_->setLayer(layer_);
    label_->position->setType(QCPItemPosition::ptAbsolute);
    label_->setTextAlignment(Qt::AlignLeft);
    label_->setPadding(QMargins(6, 4, 6, 4));
    label_->setPen(QPen(QColor(200, 200, 200)));
    label_->setBrush(QColor(255, 255, 255, 230));
    label_->setColor(QColor(40, 40, 40));
    label_->setSelectable(false);
    label_->setClipToAxisRect(false);
    line_->setVisible(false);
    label_->setVisible(false);
}

void HoverCrosshair::hide() {
    timer_.stop();
    if (!label_ || (!label_->visible() && !line_->visible())) return;
    line_->setVisible(false);
    label_->setVisible(false);
    layer_->replot();
}

bool HoverCrosshair::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::Leave) hide();
    return QObject::eventFilter(watched, event);
}

void HoverCrosshair::mouseMoved(QMouseEvent* event) {
    if (pressed_ || event->buttons() != Qt::NoButton) return;  // zooming or panning: nothing in the way
    pending_ = event->position();
    if (!timer_.isActive()) timer_.start();
}

void HoverCrosshair::update() {
    if (!plot_.axisRect()->rect().contains(pending_.toPoint())) {
        hide();
        return;
    }
    const QString text = textAt_(plot_.xAxis->pixelToCoord(pending_.x()));
    if (text.isEmpty()) {
        hide();
        return;
    }
    if (!label_) createItems();
    label_->setText(text);
    place(pending_.x());
    line_->setVisible(true);
    label_->setVisible(true);
    layer_->replot();
}

// The label beside the line near the top of the axes, on the side with more room.
void HoverCrosshair::place(double pixelX) {
    const double key = plot_.xAxis->pixelToCoord(pixelX);
    line_->point1->setCoords(key, 0);
    line_->point2->setCoords(key, 1);
    const QRect axes = plot_.axisRect()->rect();
    const bool left = pixelX > axes.center().x();
    label_->setPositionAlignment((left ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop);
    label_->position->setCoords(pixelX + (left ? -10 : 10), axes.top() + 8);
}

}  // namespace wb::gui
