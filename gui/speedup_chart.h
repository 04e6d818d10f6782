// The answer in one picture: how many times faster each visible run's median epoch is than the
// baseline run's (baseline median / run median), one horizontal bar per run labelled with the ratio
// and its range ("2.41× faster (2.30–2.55×)", or "no measurable difference" when the spreads
// overlap: core/speed_comparison.h), with the baseline at 1.0× marked. Only runs of the baseline's
// workload are compared; the others get no bar and say why ("not comparable: different data ...",
// core/workload.h). The baseline is the one the user picked, or, until then, the first run with epochs.
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

namespace wb::gui {

class RunStore;
struct RunEntry;

// "12.3×"; two decimals below 1× where one would hide the difference.
QString formatSpeedup(double speedup);

class SpeedupChart : public ThrottledChart {
    Q_OBJECT

public:
    struct Row {
        int runId = 0;
        QString name;
        std::optional<double> speedup;  // nullopt while the run has no epochs, or is not comparable
        bool baseline = false;
        QString verdict;        // "2.41× faster (2.30–2.55×)", "no measurable difference (...)"
        QString notComparable;  // the first workload difference; empty when comparable
    };

    explicit SpeedupChart(RunStore* store, QWidget* parent = nullptr);

    const std::vector<Row>& rows() const { return rows_; }  // top to bottom
    std::optional<int> baselineRun() const { return baselineRun_; }
    // One line per visible run left out of the comparison, with the reason (headless export prints them).
    QStringList leftOut() const;

protected:
    void refresh() override;

private:
    // Picks the baseline run (baselineRun_, and the title names it); null when there is none.
    const RunEntry* chooseBaseline();
    void collectRows(const RunEntry* base);
    void drawBars();
    void clearDrawing();

    QCPTextElement* title_ = nullptr;
    QCPItemText* placeholder_ = nullptr;
    QCPItemStraightLine* baselineLine_ = nullptr;
    std::vector<QCPAbstractPlottable*> bars_;
    std::vector<QCPItemText*> labels_;
    std::vector<Row> rows_;
    std::optional<int> baselineRun_;
};

}  // namespace wb::gui
