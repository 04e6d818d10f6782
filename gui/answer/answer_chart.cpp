#include "answer_chart.h"

#include <QVBoxLayout>
#include <cmath>

#include <qcustomplot.h>

#include "chart_style.h"
#include "label_fitting.h"
#include "waterfall_chart.h"

namespace wb::gui {

namespace {
const QString kPlaceholder = "Press \u201cAnswer the question\u201d, or open an answer file";
const QColor kSeedColor(150, 150, 150);
const QColor kFixedColor(31, 119, 180);

QCPBars* addBars(QCustomPlot& plot, QCPBarsGroup* group, const QString& name, const QColor& color) {
    auto* bars = new QCPBars(plot.xAxis, plot.yAxis);
    bars->setName(name);
    bars->setPen(QPen(color.darker(130)));
    bars->setBrush(color);
    bars->setWidth(0.35);
    bars->setBarsGroup(group);
    bars->setBaseValue(1e-6);  // a logarithmic axis has no zero
    return bars;
}
}  // namespace

AnswerChart::AnswerChart(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    applyChartStyle(*plot_, "Time per epoch on every engine");
    plot_->yAxis->setLabel("Median epoch, ms (log)");  // short: the tab's chart is ~230 px tall
    plot_->yAxis->setScaleType(QCPAxis::stLogarithmic);
    plot_->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    plot_->legend->setVisible(true);
    placeholder_ = addPlaceholder(*plot_, kPlaceholder);
    placeholder_->setVisible(true);
    plot_->xAxis->setVisible(false);  // an empty chart is its note alone
    plot_->yAxis->setVisible(false);
    connect(plot_, &QCustomPlot::afterLayout, this, &AnswerChart::fitAxisTitle);
}

// The value axis's title, as long as the axis has room for (rotated, a longer one would run into
// the chart's title), and the note of an empty chart wrapped to its width; the layout is redone
// when they change.
void AnswerChart::fitAxisTitle() {
    const int room = plot_->axisRect()->height();
    if (room <= 0) return;
    const QFontMetrics metrics(plot_->yAxis->labelFont());
    QString fitting = "ms";
    for (const QString& title : {QString("Median epoch, ms (log)"), QString("ms per epoch (log)")})
        if (metrics.horizontalAdvance(title) <= room) {
            fitting = title;
            break;
        }
    const QString note = wrapWords(kPlaceholder, QFontMetrics(placeholder_->font()), plot_->axisRect()->width() - 16);
    // Headroom above the tallest bar for its two labels (a line of 8 pt, two of 9 pt, their gaps), in
    // pixels, on the logarithmic axis: log(upper) - log(high) = headroom / room of log(upper) - log(lower).
    double upper = plot_->yAxis->range().upper;
    if (engines_ > 0) {
        const double headroom = QFontMetrics(QFont(font().family(), 8)).lineSpacing() +
                                2 * QFontMetrics(QFont(font().family(), 9, QFont::Bold)).lineSpacing() + 12;
        const double f = std::min(0.7, headroom / room);
        const double lower = std::log(low_ / 2), high = std::log(high_);
        upper = std::exp((high - f * lower) / (1 - f));
    }
    const bool rangeChanged = std::abs(upper - plot_->yAxis->range().upper) > 0.01 * upper;
    if (fitting == plot_->yAxis->label() && note == placeholder_->text() && !rangeChanged) return;
    if (rangeChanged) plot_->yAxis->setRange(low_ / 2, upper);
    placeholder_->setText(note);
    plot_->yAxis->setLabel(fitting);
    for (auto phase : {QCPLayoutElement::upPreparation, QCPLayoutElement::upMargins, QCPLayoutElement::upLayout})
        plot_->plotLayout()->update(phase);
}

void AnswerChart::setAnswer(const Answer& answer) {
    plot_->clearPlottables();
    for (int i = plot_->itemCount() - 1; i >= 0; --i)
        if (plot_->item(i) != placeholder_) plot_->removeItem(i);
    auto* group = new QCPBarsGroup(plot_);
    QCPBars* seed = addBars(*plot_, group, "seed loop", kSeedColor);
    QCPBars* fixed = addBars(*plot_, group, "fixed loop", kFixedColor);
    auto* seedSpread = new QCPErrorBars(plot_->xAxis, plot_->yAxis);
    auto* fixedSpread = new QCPErrorBars(plot_->xAxis, plot_->yAxis);
    for (auto* e : {seedSpread, fixedSpread}) {
        e->removeFromLegend();
        e->setPen(QPen(Qt::black));
    }
    seedSpread->setDataPlottable(seed);
    fixedSpread->setDataPlottable(fixed);
    QSharedPointer<QCPAxisTickerText> ticks(new QCPAxisTickerText);
    double low = 1e300, high = 0;
    engines_ = 0;
    for (const auto& e : answer.engines) {
        if (!e.ablation || !e.ablation->seedLoop()) continue;
        const double key = ++engines_;
        ticks->addTick(key, QString::fromStdString(e.engine));
        const AblationStep& s = *e.ablation->seedLoop();
        seed->addData(key, s.medianEpochMs);
        seedSpread->addData(s.medianEpochMs - s.minEpochMs, s.maxEpochMs - s.medianEpochMs);
        low = std::min(low, s.minEpochMs);
        high = std::max(high, s.maxEpochMs);
        const AblationStep* f = e.ablation->fixedLoop();
        fixed->addData(key, f ? f->medianEpochMs : std::nan(""));
        fixedSpread->addData(f ? f->medianEpochMs - f->minEpochMs : 0.0, f ? f->maxEpochMs - f->medianEpochMs : 0.0);
        if (f) {
            low = std::min(low, f->minEpochMs);
            high = std::max(high, f->maxEpochMs);
        }
        QCPItemText* highest = nullptr;  // the label of the taller bar (whisker included)
        for (const auto& [step, offset] : {std::pair{&s, -0.18}, std::pair{f, 0.18}}) {
            if (!step) continue;
            auto* label = new QCPItemText(plot_);
            label->position->setCoords(key + offset, step->maxEpochMs);
            label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
            label->setText(formatMs(step->medianEpochMs));
            label->setFont(QFont(font().family(), 8));
            label->setPadding(QMargins(0, 0, 0, 4));  // clear of the whisker's cap
            if (!highest || step->maxEpochMs >= s.maxEpochMs) highest = label;
        }
        if (const auto gap = e.gap()) {  // above the engine's bars and their labels, a few pixels up
            auto* label = new QCPItemText(plot_);
            label->position->setTypeX(QCPItemPosition::ptPlotCoords);
            label->position->setParentAnchorY(highest->top);
            label->position->setCoords(key, -2);
            label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
            // "3.71× faster" over "(3.68–4.46×)": one line would be wider than an engine's band.
            QString text = QString::fromStdString(gap->label());
            if (const auto open = text.indexOf(" ("); open > 0) text.replace(open, 1, '\n');
            label->setText(text);
            label->setTextAlignment(Qt::AlignHCenter);
            label->setFont(QFont(font().family(), 9, QFont::Bold));
        }
    }
    placeholder_->setVisible(engines_ == 0);
    plot_->xAxis->setVisible(engines_ > 0);
    plot_->yAxis->setVisible(engines_ > 0);
    plot_->xAxis->setTicker(ticks);
    plot_->xAxis->setRange(0.4, std::max(1, engines_) + 0.6);
    // Room above the tallest bar for its two labels (~45 px) where the chart is ~150 px tall.
    low_ = low;
    high_ = high;
    if (engines_ > 0) plot_->yAxis->setRange(low / 2, high * 20);  // fitAxisTitle() sets the headroom
    plot_->replot();
}

}  // namespace wb::gui
