// Where an epoch's time goes: one stacked bar per visible run (or per configuration, its repeats as
// one bar with their spread) of the median time per epoch spent in data, forward, backward,
// optimizer and other. A run whose path cannot separate the phases
// (fused steps, most peers) is drawn as one neutral bar of its median wall time, labelled
// "not separable": docs/ARCHITECTURE.md ("Timing") never invents the parts.
#pragma once

#include <QString>
#include <QStringList>
#include <array>
#include <optional>
#include <vector>

#include "core/run/run_record.h"
#include "gui/charts/chart_style.h"
#include "gui/charts/throttled_chart.h"

class QCustomPlot;
class QCPBars;
class QCPItemText;
class QCPAbstractItem;
class QMouseEvent;

namespace wb::gui {

class RunStore;

struct PhaseBreakdown {
    bool separable = false;
    std::array<double, kPhaseCount> phaseMs{};  // per phase, in phaseNames() order; zero when not separable
    double totalMs = 0;                         // the phases' sum, or the median wall time when not separable
    double medianWallMs = 0;                    // the median epoch's wall time
};

// Medians over the epochs after warm-up (all epochs when there is only the warm-up one). Separable
// when every such epoch measured its phases. nullopt for a run without epochs.
std::optional<PhaseBreakdown> phaseBreakdown(const RunRecord& record);

class BreakdownChart : public ThrottledChart {
    Q_OBJECT

public:
    // A bar: one run, or the shown repeats of one configuration (repeatGroupKey, run_repeats.h) as
    // the Speedup chart groups them: each phase's median over the repeats, and the spread of their
    // totals drawn as a whisker.
    struct Row {
        int runId = 0;  // the first of its repeats
        QString name;
        PhaseBreakdown breakdown;
        int repeats = 1;
        double lowMs = 0, highMs = 0;  // the repeats' totals, lowest and highest
    };

    explicit BreakdownChart(RunStore* store, QWidget* parent = nullptr);

    const std::vector<Row>& rows() const { return rows_; }  // the bars drawn, left to right
    // Visible runs of another workload than the baseline's, "name: not comparable: why"; they get no
    // bar (their phases would compare different work) and are listed in the chart's corner.
    const QStringList& leftOut() const { return leftOut_; }

protected:
    void refresh() override;

private:
    void collectRows();
    void fillBars();
    void labelBars();
    void drawSpreads();
    void showHoverTip(QMouseEvent* event);

    std::array<QCPBars*, kPhaseCount> phaseBars_{};
    QCPBars* notSeparableBars_ = nullptr;
    QCPItemText* placeholder_ = nullptr;
    QCPItemText* leftOutNote_ = nullptr;
    QStringList leftOut_;
    std::vector<QCPItemText*> labels_;
    std::vector<QCPAbstractItem*> spreads_;
    std::vector<Row> rows_;
};

}  // namespace wb::gui
