// Which fix removed how much of the gap, and how sure that is: one horizontal bar per cause of an
// ablation (its measured cumulative steps, in the order applied, top to bottom) at its share of the
// gap between the seed loop and the fixed loop, in percent, with an error bar for its 95 % interval
// over the rounds (core/measure/ablation_attribution.h). Where every combination of the fixes was measured,
// the shares are the Shapley values' (each fix's saving averaged over every order, summing to the
// gap all the fixes make), and the title says so. A cause that costs time is a red bar below zero with
// its cost named; the largest cause is marked only when attribute() names it (its interval clear of
// every other's). Unlike the waterfall, which pictures one order, this is what the rounds can tell.
#pragma once

#include <QString>
#include <QWidget>
#include <vector>

#include "core/measure/ablation_result.h"

class QCustomPlot;
class QCPItemText;
class QCPTextElement;

namespace wb::gui {

class SharesChart : public QWidget {
    Q_OBJECT

public:
    // One cause as drawn, top to bottom; shares are fractions of the gap (1 = all of it).
    struct Cause {
        QString name;        // the step's name ("data_path=device_resident")
        double share = 0;    // its saving over the gap; negative: it costs time
        double low = 0;      // the share's 95 % interval (low == high with one round)
        double high = 0;     //
        double savedMs = 0;  // negative: what it costs
        bool largest = false;
        bool costly = false;   // its saving's interval lies below zero
        bool leftOut = false;  // after the fixed loop: measured on top of a slower step, not recommended
        // Its Shapley value's share (every combination of the fixes measured): whatever the order.
        bool everyOrder = false;
        bool inOneOrderAmongOthers = false;  // a share of one order beside Shapley values (said in its label)
        QString label;                       // the text beside its bar: the share, its interval, its cost
        QString shortLabel;                  // where the plot is too narrow for that: the share, or the cost
    };

    explicit SharesChart(QWidget* parent = nullptr);
    // Draws `result`'s causes (nothing to share: a note says why, and no bar is drawn).
    void setResult(const AblationResult& result);
    void clear();
    QCustomPlot& plot() { return *plot_; }
    const std::vector<Cause>& causes() const { return causes_; }

private:
    void setTitles(const QString& engine, int rounds, bool everyOrder, bool running);
    void showNothingToShare(const QString& engine, bool noCauses);
    void draw();
    void clearDrawing();
    void showAxes(bool shown);
    void fitLabelsToSize();

    QCustomPlot* plot_;
    QCPTextElement* title_ = nullptr;
    QCPItemText* placeholder_ = nullptr;
    std::vector<Cause> causes_;
    std::vector<QCPItemText*> labels_;  // one per cause
    QString fullTitle_;
    QString shortTitle_;  // the engine and the rounds, where the chart is short and the title long
    QString fullPlaceholder_;
    QString fitted_;  // what the last fit produced: refit only when it changes
};

}  // namespace wb::gui
