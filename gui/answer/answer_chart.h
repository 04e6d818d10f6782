// The answer at a glance: time per epoch of every engine's seed loop and fixed loop side by side
// (a logarithmic axis: they differ by orders of magnitude), whiskers for the spread over the
// repeats, each bar labelled with its median and each engine with its speed-up. Where the chart has
// no room for those labels whole (many engines in a narrow or short chart), they leave the chart
// and the same numbers are written in a line under it: a label is never cut or laid on another.
#pragma once

#include <QStringList>
#include <QWidget>
#include <optional>
#include <vector>

#include "core/measure/answer.h"

class QCustomPlot;
class QCPItemText;
class QLabel;

namespace wb::gui {

class AnswerChart : public QWidget {
    Q_OBJECT

public:
    explicit AnswerChart(QWidget* parent = nullptr);
    void setAnswer(const Answer& answer);  // redraws from the engines measured so far
    QCustomPlot& plot() { return *plot_; }
    int engineCount() const { return engines_; }  // engines drawn (seed loop measured)
    // Whether the numbers are labels in the chart (true) or the line under it (false).
    bool labelsInChart() const;

private:
    // One engine's labels: the medians over its two bars, the speed-up over both.
    struct EngineLabels {
        QCPItemText* seed = nullptr;
        QCPItemText* fixed = nullptr;  // null when no fixed loop was measured
        QCPItemText* gap = nullptr;    // null when there is no speed-up to tell
        QString gapText;               // the speed-up in one line, wrapped to the engine's band when fitted
    };
    void clearDrawing();
    EngineLabels addMedianLabels(double key, const AblationStep& s, const AblationStep* f);
    void addGapLabel(EngineLabels& labels, double key, const SpeedComparison& gap, QCPItemText* anchor);
    void fitToSize();
    std::optional<int> labelsFit(double bandPx, double heightPx);
    void setLabelsShown(bool shown);

    QCustomPlot* plot_;
    QLabel* numbers_;  // "torch 746 → 42.1 ms, 18× faster (14–19×) · …", shown when the labels are not
    QCPItemText* placeholder_ = nullptr;
    std::vector<EngineLabels> labels_;
    int engines_ = 0;
    double low_ = 1, high_ = 1;  // the lowest and highest whisker drawn (ms)
};

}  // namespace wb::gui
