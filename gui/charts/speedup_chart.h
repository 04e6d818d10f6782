// The answer in one picture: how many times faster each visible configuration's median epoch is than
// the baseline's (baseline median / its median), one horizontal bar per configuration labelled with the
// ratio and its range ("2.41× faster (2.30–2.55×)", or "no measurable difference" when the spreads
// overlap: core/speed_comparison.h), the range drawn as an error bar, with the baseline at 1.0× marked.
// Repeats of one configuration (the same config apart from the name's " · k/n", run_repeats.h) are one
// bar: the median of their medians, the range over them. Only runs of the baseline's workload are
// compared; the others get no bar and say why ("not comparable: different data ...", core/workload.h).
// The baseline is the one the user picked, or, until then, the first run with epochs. A note under the
// chart says which of the switches that differ from the baseline's ran and which did nothing on the
// backend (the CPU ignores several; BackendRegistry::notApplicable), and why.
#pragma once

#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

#include "throttled_chart.h"

class QCustomPlot;
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
    // One line per visible run left out of the comparison, with the reason (headless export prints them).
    QStringList leftOut() const;
    // The note under the chart: for each configuration, the switches that ran and those that did nothing
    // on its backend, with the reason. Empty when no switch differs from the baseline's.
    QString switchesNote() const;

protected:
    void refresh() override;

private:
    // Picks the baseline run (baselineRun_, and the title names it); null when there is none.
    const RunEntry* chooseBaseline();
    void collectRows(const RunEntry* base);
    void drawBars();
    void clearDrawing();
    void showNote();

    QCPTextElement* title_ = nullptr;
    QCPItemText* placeholder_ = nullptr;
    QCPItemStraightLine* baselineLine_ = nullptr;
    QLabel* note_ = nullptr;
    std::vector<QCPAbstractPlottable*> bars_;
    std::vector<QCPItemText*> labels_;
    std::vector<Row> rows_;
    std::optional<int> baselineRun_;
};

}  // namespace wb::gui
