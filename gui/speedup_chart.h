// The answer in one picture: how many times faster each visible run's median epoch is than the
// baseline run's (baseline median / run median), one horizontal bar per run labelled "12.3×",
// with the baseline at 1.0× marked. The baseline is the one the user picked in the runs table,
// or, until then, the first run that has epochs.
#pragma once

#include <QString>
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

// "12.3×"; two decimals below 1× where one would hide the difference.
QString formatSpeedup(double speedup);

class SpeedupChart : public ThrottledChart {
    Q_OBJECT

public:
    struct Row {
        int runId = 0;
        QString name;
        std::optional<double> speedup;  // nullopt while the run has no epochs
        bool baseline = false;
    };

    explicit SpeedupChart(RunStore* store, QWidget* parent = nullptr);

    const std::vector<Row>& rows() const { return rows_; }  // top to bottom
    std::optional<int> baselineRun() const { return baselineRun_; }

protected:
    void refresh() override;

private:
    // Picks the baseline run (baselineRun_, and the title names it); returns its median epoch ms.
    std::optional<double> chooseBaseline();
    void collectRows(std::optional<double> baseMs);
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
