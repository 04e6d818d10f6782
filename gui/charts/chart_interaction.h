// Mouse interaction of the metric charts, as TensorBoard and W&B users expect it: drag a box to zoom
// into it (Ctrl+drag pans, the wheel zooms, a double click resets), and a hover crosshair whose label
// lists every visible run's value at the cursor's x.
#pragma once

#include <QObject>
#include <QPointF>
#include <QString>
#include <QTimer>
#include <functional>

class QCustomPlot;
class QCPItemStraightLine;
class QCPItemText;
class QCPLayer;
class QMouseEvent;

namespace wb::gui {

// Drag zooms into the dragged box inside the axes; Ctrl+drag (or any button but the left) pans, and
// a press outside the axes (the legend) is an ordinary click, so legend clicks still arrive.
void installBoxZoom(QCustomPlot& plot);

class HoverCrosshair : public QObject {
    Q_OBJECT

public:
    // At most one redraw per interval however fast the mouse moves; the line and label live on a
    // layer of their own, so a redraw repaints them alone, not the curves.
    static constexpr int kIntervalMs = 40;
    // Gives the label's text for an x value of the plot; empty: nothing to show there.
    using TextAt = std::function<QString(double key)>;

    HoverCrosshair(QCustomPlot& plot, TextAt textAt);

    QString text() const;  // what the label shows now, empty while hidden
    void hide();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;  // the mouse leaving the plot

private:
    void createItems();
    void mouseMoved(QMouseEvent* event);
    void update();
    void place(double pixelX);

    QCustomPlot& plot_;
    TextAt textAt_;
    QCPLayer* layer_ = nullptr;
    QCPItemStraightLine* line_ = nullptr;
    QCPItemText* label_ = nullptr;
    QTimer timer_;
    QPointF pending_;
    bool pressed_ = false;
};

}  // namespace wb::gui
