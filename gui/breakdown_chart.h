// Where an epoch's time goes: one stacked bar per visible run of the median time per epoch spent
// in data, forward, backward, optimizer and other. A run whose path cannot separate the phases
// (fused steps, most peers) is drawn as one neutral bar of its median wall time, labelled
// "not separable": DESIGN.md forbids inventing the parts.
#pragma once

#include <QString>
#include <QTimer>
#include <QWidget>
#include <array>
#include <optional>
#include <vector>

#include "chart_style.h"
#include "run_record.h"

class QCustomPlot;
class QCPBars;
class QCPItemText;
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

class BreakdownChart : public QWidget {
    Q_OBJECT

public:
    struct Row {
        int runId = 0;
        QString name;
        PhaseBreakdown breakdown;
    };

    explicit BreakdownChart(RunStore* store, QWidget* parent = nullptr);

    QCustomPlot& plot() { return *plot_; }
    void refreshNow();                                      // applies pending changes now (tests, the headless export)
    const std::vector<Row>& rows() const { return rows_; }  // the bars drawn, left to right
    int replotCount() const { return replotCount_; }

protected:
    void showEvent(QShowEvent* event) override;

private:
    void scheduleRefresh();
    void refresh();
    void collectRows();
    void fillBars();
    void labelBars();
    void replot();
    void showHoverTip(QMouseEvent* event);

    RunStore* store_;
    QCustomPlot* plot_;
    std::array<QCPBars*, kPhaseCount> phaseBars_{};
    QCPBars* notSeparableBars_ = nullptr;
    QCPItemText* placeholder_ = nullptr;
    std::vector<QCPItemText*> labels_;
    std::vector<Row> rows_;
    QTimer refreshTimer_;
    bool replotPending_ = false;
    int replotCount_ = 0;
};

}  // namespace wb::gui
