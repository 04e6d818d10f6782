// The answer of an ablation in one picture of one order: a waterfall of median epoch time from the
// baseline through the fixes in the order applied (its title says so). The baseline is a full bar; each fix is a
// floating bar from the level before it to the level after it (green when it saved time, red when it cost time),
// labelled with the milliseconds it saved, its share of the total gap and the step's final loss and the task's metric
// (accuracy, or R^2 for a regression: quality_metric.h); whiskers show the spread over the repeats; a last full bar
// shows where all fixes together end. A step that did not run (refused, not applicable, failed) is a flat grey line at
// the level it started from, labelled why.
#pragma once

#include <QString>
#include <QWidget>
#include <optional>
#include <vector>

#include "core/measure/ablation.h"

class QCustomPlot;
class QCPAbstractItem;
class QCPAbstractPlottable;
class QCPAxisTickerText;
class QCPItemText;
class QCPTextElement;
class QMouseEvent;

namespace wb::gui {

class WaterfallChart : public QWidget {
    Q_OBJECT

public:
    // One bar as drawn, left to right.
    struct Bar {
        enum class Kind { Baseline, Step, Total };
        Kind kind = Kind::Step;
        QString name;           // the step's name ("baseline", "loss=bce_with_logits", "after all fixes")
        double low = 0;         // the bar spans low..high (ms); low == high for a step that did nothing
        double high = 0;        //
        bool measured = false;  // the step ran; false: refused / not applicable / failed / cancelled
        bool slower = false;    // the step made the epoch slower
        QString label;          // the text above the bar
        QString shortLabel;     // what it says when a bar is too narrow for the label's first line
        std::optional<double> spreadLow, spreadHigh;  // whisker over the repeats (measured steps)
    };

    explicit WaterfallChart(QWidget* parent = nullptr);

    // Draws `result` (the cumulative steps; the "alone" steps are not part of the waterfall).
    void setResult(const AblationResult& result);
    void clear();
    // What the empty chart says (the Ablation tab's by default: where another view shows it, its own).
    void setPlaceholder(const QString& text);
    QCustomPlot& plot() { return *plot_; }
    const std::vector<Bar>& bars() const { return bars_; }
    // What the tooltip over bar `index` says: the step's description, settings, numbers and notes.
    QString tooltipFor(std::size_t index) const;

private:
    void collectBars(const AblationResult& result);
    void addFixedLoopBar(const AblationResult& result);
    void drawBars(const AblationResult& result);
    void setTitles(const AblationResult& result);
    void drawBar(const Bar& bar, double key);
    void drawSpread(const Bar& bar, double key);
    void drawConnector(double fromKey, double toKey, double level);
    void clearDrawing();
    void showHoverTip(QMouseEvent* event);
    void fitLabelsToSize();
    QString fitTitleAndPlaceholder(int axesWidth);
    bool fitTicks(QCPAxisTickerText& ticker, int room, QString& fitted) const;
    int fitValueLabels(int room, QString& fitted);
    QString numberedTick(std::size_t i) const;

    QCustomPlot* plot_;
    QCPTextElement* title_ = nullptr;
    QCPItemText* placeholder_ = nullptr;
    QString placeholderText_;  // whole; fitLabelsToSize() wraps it to the axes' width
    std::vector<QCPAbstractPlottable*> plottables_;
    std::vector<QCPAbstractItem*> items_;
    std::vector<Bar> bars_;
    std::vector<QString> tooltips_;
    // What is drawn in full when there is room; fitLabelsToSize() shortens it to the pixels there are.
    QString fullTitle_;
    QString shortTitle_;  // where the full one would take more than two lines: the engine and the rounds
    std::vector<QString> tickTexts_;
    std::vector<QCPItemText*> labels_;  // one per bar
    double top_ = 0;                    // the highest bar or whisker (ms)
    QString fitted_;                    // what the last fit produced: refit only when it changes
};

// "3.21 ms" with as many decimals as the size of the number deserves.
QString formatMs(double ms);
// A value of the task's metric as the ablation views show it: accuracy (a fraction) as "89.9%" with
// `decimals` decimals, R^2 as "0.873" (two more: it has no unit), MAE with 4 significant digits.
QString formatQuality(QualityMetric q, double value, int decimals = 1);
// Its name beside a number: "acc", "R²", "MAE".
QString qualityShortName(QualityMetric q);
// The tick label of a step: each "switch=value" on its own line, long ones broken after the '='.
QString stepTickLabel(const std::string& name);

}  // namespace wb::gui
