// A sweep as parallel coordinates: one vertical axis per parameter and one for the metric, each
// trial a line across them coloured by its metric (the colour scale on the right), the best trial
// drawn thick on top. Dragging along an axis draws a brush that filters the trial table to the
// trials inside it; a double click on the axis removes it. Trials outside the brushes are grey.
#pragma once

#include <QWidget>
#include <map>
#include <optional>
#include <vector>

#include "gui/sweeps/sweep_axes.h"
#include "sweep/sweep_folder.h"

class QCustomPlot;
class QCPColorScale;
class QCPItemRect;
class QMouseEvent;

namespace wb::gui {

class ParallelCoordinatesChart : public QWidget {
    Q_OBJECT

public:
    explicit ParallelCoordinatesChart(QWidget* parent = nullptr);

    // Redraws: `inside[i]` says whether views[i] passes the brushes (drawn as `brushes`: axis ->
    // [lo, hi]), `selected[i]` whether the table selects it (drawn thicker).
    using Brushes = std::map<std::size_t, std::pair<double, double>>;
    void setTrials(const SweepAxes& axes, const std::vector<sweep::TrialRow>& views, const sweep::Metric& metric,
                   std::optional<std::size_t> best, const std::vector<bool>& inside, const std::vector<bool>& selected,
                   const Brushes& brushes);
    QCustomPlot& plot() { return *plot_; }
    int trialLineCount() const { return lines_; }

    // A brush from position lo to hi (0..1) on axis `axis`, as a drag would draw it.
    void brush(std::size_t axis, double lo, double hi);
    void clearBrushes();  // every brush: brushCleared for each

signals:
    void brushChanged(std::size_t axis, double lo, double hi);
    void brushCleared(std::size_t axis);

private:
    void pressed(QMouseEvent* event);
    void moved(QMouseEvent* event);
    void released(QMouseEvent* event);
    void doubleClicked(QMouseEvent* event);
    std::optional<std::size_t> axisAt(double pixelX) const;
    void drawBrush(std::size_t axis, double lo, double hi);
    void drawAxes(const SweepAxes& axes);

    QCustomPlot* plot_ = nullptr;
    QCPColorScale* scale_ = nullptr;
    std::size_t axisCount_ = 0;
    int lines_ = 0;
    std::map<std::size_t, QCPItemRect*> brushes_;
    std::optional<std::size_t> dragAxis_;
    double dragStart_ = 0;
};

}  // namespace wb::gui
