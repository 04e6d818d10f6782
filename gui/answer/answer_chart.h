// The answer at a glance: time per epoch of every engine's seed loop and fixed loop side by side
// (a logarithmic axis: they differ by orders of magnitude), whiskers for the spread over the
// repeats, each bar labelled with its median and each engine with its speed-up.
#pragma once

#include <QWidget>

#include "answer.h"

class QCustomPlot;
class QCPItemText;

namespace wb::gui {

class AnswerChart : public QWidget {
    Q_OBJECT

public:
    explicit AnswerChart(QWidget* parent = nullptr);
    void setAnswer(const Answer& answer);  // redraws from the engines measured so far
    QCustomPlot& plot() { return *plot_; }
    int engineCount() const { return engines_; }  // engines drawn (seed loop measured)

private:
    void fitAxisTitle();

    QCustomPlot* plot_;
    QCPItemText* placeholder_ = nullptr;
    int engines_ = 0;
    double low_ = 1, high_ = 1;  // the lowest and highest whisker drawn (ms)
};

}  // namespace wb::gui
