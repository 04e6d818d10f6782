// The answer in one picture: how many times faster each visible configuration's median epoch is than
// the baseline's (baseline median / its median), one horizontal bar per configuration on a logarithmic
// axis centred on the baseline's 1×: a faster configuration's bar runs right of 1×, a slower one's left,
// each labelled on its side with SpeedComparison::label() ("2.41× faster (2.30–2.55×)", "1.60× slower
// (...)", or "no measurable difference (...)" when the spreads overlap: core/measure/speed_comparison.h), the
// range drawn as an error bar. The axis fits the bars, their ranges and their labels, measured in pixels
// at every layout (a resize, an export at another size).
// Repeats of one configuration (the same config apart from the name's " · k/n", run_repeats.h) are one
// bar: the median of their medians, the range over them. Only runs of the baseline's workload are
// compared; the others get no bar and say why ("not comparable: different data ...", core/run/workload.h).
// The baseline (speedupBaseline): the run the user picked; else the seed loop of a Compare (the first
// visible run of the "Seed PyTorch loop" preset with a timed epoch); else the first run with one. A note under the
// chart says which of the switches that differ from the baseline's ran and which did nothing on the
// backend (the CPU ignores several; BackendRegistry::notApplicable), and why.
#pragma once

#include <QString>
#include <QStringList>
#include <optional>
#include <utility>
#include <vector>

#include "gui/charts/throttled_chart.h"

class QCustomPlot;
class QCPAbstractItem;
class QCPAbstractPlottable;
class QCPItemStraightLine;
class QCPItemText;
class QCPTextElement;
class QLabel;

namespace wb::gui {

class RunStore;
struct RunEntry;

// "12.3×"; two decimals below 1× where one would hide the difference.
QString formatSpeedup(double speedup);

// Why a run is the baseline, for the chart's title.
enum class BaselineReason { Picked, SeedLoop, FirstTimed };
struct SpeedupBaseline {
    int runId = 0;
    BaselineReason reason = BaselineReason::FirstTimed;
};
// The run speedups are measured against (see above); nullopt while no run has a timed epoch.
std::optional<SpeedupBaseline> speedupBaseline(const RunStore& store);
// The tick values of a logarithmic speedup axis from `low` to `high` (times, > 0): 1-2-5 steps, finer
// where the range is narrow, coarser where it spans decades; 1× whenever it lies inside.
std::vector<double> speedupTicks(double low, double high);

class SpeedupChart : public ThrottledChart {
    Q_OBJECT

public:
    struct Row {
        int runId = 0;                  // the first run of the configuration (its colour)
        std::vector<int> runIds;        // every visible run of it: its repeats
        QString name;                   // the configuration's name (without " · k/n" when repeated)
        std::optional<double> speedup;  // nullopt while the run has no epochs, or is not comparable
        bool baseline = false;
        QString verdict;        // "2.41× faster (2.30–2.55×)", "no measurable difference (...)"
        QString notComparable;  // the first workload difference; empty when comparable
        double ratioLow = 1;    // the range over the repeats (compareSpeed's), when there is a speedup
        double ratioHigh = 1;
        int runs = 1;      // runs with a timed epoch among runIds
        QString switches;  // which switches that differ from the baseline's ran and which did nothing
    };

    explicit SpeedupChart(RunStore* store, QWidget* parent = nullptr);

    const std::vector<Row>& rows() const { return rows_; }  // top to bottom
    std::optional<int> baselineRun() const { return baselineRun_; }
    std::optional<BaselineReason> baselineReason() const { return baselineReason_; }
    // One line per visible run left out of the comparison, with the reason (headless export prints them).
    QStringList leftOut() const;
    // The note under the chart: for each configuration, the switches that ran and those that did nothing
    // on its backend, with the reason. Empty when no switch differs from the baseline's.
    QString switchesNote() const;

protected:
    void refresh() override;

private:
    // A value label and where it hangs: beside the end of its bar (in log10 of the speedup), on the
    // side the bar points to, or at the axis rect's left edge for a row without a bar.
    struct Label {
        QCPItemText* item = nullptr;
        double anchor = 0;  // log10 of the speedup at the bar's (or its range's) outer end
        bool leftSide = false;
        bool atEdge = false;  // no bar: written from the left edge
        QString text;         // unwrapped
    };

    // Picks the baseline run (baselineRun_); null when there is none.
    const RunEntry* chooseBaseline();
    void collectRows(const RunEntry* base);
    void nameBaselineInTitle();
    void drawBars();
    void addBar(const Row& row, double key);
    void addLabel(const Row& row, double key);
    void clearDrawing();
    void showNote();
    // After every layout: the value axis from the pixels the axis rect got (see the header comment).
    void fitAxisToLabels();
    struct LabelNeed {
        double anchor;  // log10 of where the label hangs
        double width;   // pixels
        bool left;
    };
    // [low, high] in log10 of the speedup: the bars, 0.8× to 1.25× at least, and the labels' room
    // (their widths times `shrink`) at `pixels` across.
    std::pair<double, double> fittedRange(const std::vector<LabelNeed>& needs, double shrink, int pixels) const;

    QCPTextElement* title_ = nullptr;
    QString titleText_;  // the title in one line; wrapped to the chart's width at each layout
    QCPItemText* placeholder_ = nullptr;
    QCPItemStraightLine* baselineLine_ = nullptr;
    QLabel* note_ = nullptr;
    std::vector<QCPAbstractPlottable*> bars_;
    std::vector<QCPAbstractItem*> ranges_;  // the range over the repeats, one line per bar
    std::vector<Label> labels_;
    std::vector<Row> rows_;
    std::optional<int> baselineRun_;
    std::optional<BaselineReason> baselineReason_;
    double barLow_ = 0;  // log10 of the leftmost and rightmost bar or range end (0: 1×)
    double barHigh_ = 0;
};

}  // namespace wb::gui
