#include "gui/answer/answer_chart.h"

#include <QLabel>
#include <QVBoxLayout>
#include <cmath>

#include <qcustomplot.h>

#include "gui/charts/chart_style.h"
#include "gui/charts/waterfall_chart.h"
#include "gui/panels/label_fitting.h"

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

// The two loops' bars of every engine, side by side, and their whiskers.
struct LoopSeries {
    QCPBars* seed = nullptr;
    QCPBars* fixed = nullptr;
    QCPErrorBars* seedSpread = nullptr;
    QCPErrorBars* fixedSpread = nullptr;

    // An engine's seed loop at `key`, and its fixed loop where one was measured.
    void add(double key, const AblationStep& s, const AblationStep* f) const {
        seed->addData(key, s.medianEpochMs);
        seedSpread->addData(s.medianEpochMs - s.minEpochMs, s.maxEpochMs - s.medianEpochMs);
        fixed->addData(key, f ? f->medianEpochMs : std::nan(""));
        fixedSpread->addData(f ? f->medianEpochMs - f->minEpochMs : 0.0, f ? f->maxEpochMs - f->medianEpochMs : 0.0);
    }
};

LoopSeries addLoopSeries(QCustomPlot& plot) {
    auto* group = new QCPBarsGroup(&plot);
    LoopSeries series;
    series.seed = addBars(plot, group, "seed loop", kSeedColor);
    series.fixed = addBars(plot, group, "fixed loop", kFixedColor);
    series.seedSpread = new QCPErrorBars(plot.xAxis, plot.yAxis);
    series.fixedSpread = new QCPErrorBars(plot.xAxis, plot.yAxis);
    for (auto* e : {series.seedSpread, series.fixedSpread}) {
        e->removeFromLegend();
        e->setPen(QPen(Qt::black));
    }
    series.seedSpread->setDataPlottable(series.seed);
    series.fixedSpread->setDataPlottable(series.fixed);
    return series;
}

// "torch 746 ms → 42.1 ms, 18× faster": an engine's entry in the line under the chart, its spaces
// unbreakable so that the line breaks between engines only.
QString numbersEntry(const std::string& engine, const AblationStep& s, const AblationStep* f,
                     const std::optional<QString>& gapText) {
    QString entry = QString::fromStdString(engine) + " " + formatMs(s.medianEpochMs);
    if (f) entry += " \u2192 " + formatMs(f->medianEpochMs);
    if (gapText) entry += ", " + *gapText;
    return entry.toHtmlEscaped().replace(' ', "&nbsp;");
}
}  // namespace

AnswerChart::AnswerChart(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)), numbers_(new QLabel) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_, 1);
    numbers_->setObjectName("answerChartNumbers");
    numbers_->setTextFormat(Qt::RichText);
    numbers_->setWordWrap(true);
    numbers_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    numbers_->setVisible(false);
    layout->addWidget(numbers_);
    plot_->setMinimumHeight(170);  // the legend, three decades and the engines' names
    applyChartStyle(*plot_, "Time per epoch on every engine");
    plot_->yAxis->setLabel("Median epoch, ms (log)");  // short: the tab's chart is ~230 px tall
    plot_->yAxis->setScaleType(QCPAxis::stLogarithmic);
    plot_->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    plot_->legend->setVisible(true);
    placeholder_ = addPlaceholder(*plot_, kPlaceholder);
    placeholder_->setVisible(true);
    plot_->xAxis->setVisible(false);  // an empty chart is its note alone
    plot_->yAxis->setVisible(false);
    connect(plot_, &QCustomPlot::afterLayout, this, &AnswerChart::fitToSize);
}

bool AnswerChart::labelsInChart() const {
    return engines_ > 0 && !numbers_->isVisible();
}

namespace {
double textWidth(const QCPItemText* label) {
    if (!label) return 0;
    const QFontMetrics metrics(label->font());
    double widest = 0;
    for (const QString& line : label->text().split('\n'))
        widest = std::max<double>(widest, metrics.horizontalAdvance(line));
    return widest + label->padding().left() + label->padding().right();
}

// Pixels above the tallest bar for its labels: a median (8 pt), the speed-up's lines (9 pt bold) and
// their gaps.
double headroomPx(const QFont& base, int gapLines) {
    return QFontMetrics(QFont(base.family(), 8)).lineSpacing() +
           gapLines * QFontMetrics(QFont(base.family(), 9, QFont::Bold)).lineSpacing() + 12;
}
}  // namespace

// Whether every label fits whole at an engine's band of `bandPx` pixels and a value axis of
// `heightPx`: the two medians side by side over their bars and apart from the next engine's, the
// speed-up wrapped into the band, and all of them in the headroom above the bars; if so, the lines of
// the tallest speed-up. Wraps the speed-ups on the way.
std::optional<int> AnswerChart::labelsFit(double bandPx, double heightPx) {
    constexpr double kGapPx = 4;
    int gapLines = 0;
    for (std::size_t i = 0; i < labels_.size(); ++i) {
        const EngineLabels& e = labels_[i];
        const double seed = textWidth(e.seed), fixed = textWidth(e.fixed);
        if ((seed + fixed) / 2 + kGapPx > 0.36 * bandPx) return std::nullopt;  // bar centres 0.36 of a band apart
        if (i + 1 < labels_.size() && (fixed + textWidth(labels_[i + 1].seed)) / 2 + kGapPx > 0.64 * bandPx)
            return std::nullopt;
        if (!e.gap) continue;
        const QFontMetrics metrics(e.gap->font());
        const QString wrapped = wrapWords(e.gapText, metrics, static_cast<int>(bandPx - kGapPx));
        if (wrapped.contains(QChar(0x2026))) return std::nullopt;  // a word wider than the band
        e.gap->setText(wrapped);
        gapLines = std::max(gapLines, static_cast<int>(wrapped.count('\n')) + 1);
    }
    if (headroomPx(font(), gapLines) > 0.6 * heightPx) return std::nullopt;
    return gapLines;
}

void AnswerChart::setLabelsShown(bool shown) {
    for (const EngineLabels& e : labels_)
        for (QCPItemText* label : {e.seed, e.fixed, e.gap})
            if (label) label->setVisible(shown);
    numbers_->setVisible(!shown && engines_ > 0);
}

// Fits the chart to its pixels after each layout: the value axis's title as long as the axis has
// room for (rotated, a longer one would run into the chart's title), as many decades ticked as there
// is room to read, the labels in the chart or in the line under it, the headroom above the bars for
// the labels, and the note of an empty chart wrapped to its width. The layout is redone when any of
// them changes.
void AnswerChart::fitToSize() {
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
    // Decided on the height the axis would have without the line under the chart, so that showing
    // the line (which takes that height) does not bring the labels back.
    const double band = plot_->axisRect()->width() / (std::max(1, engines_) + 0.2);
    const double height = room + (numbers_->isVisible() ? numbers_->height() : 0);
    const std::optional<int> gapLines = engines_ > 0 ? labelsFit(band, height) : std::nullopt;
    const bool inChart = gapLines.has_value();
    // Headroom above the tallest bar, in pixels, on the logarithmic axis:
    // log(upper) - log(high) = headroom / room of log(upper) - log(lower).
    double upper = plot_->yAxis->range().upper;
    if (engines_ > 0) {
        const double f = inChart ? std::min(0.6, headroomPx(font(), *gapLines) / room) : 0.05;
        const double lower = std::log(low_ / 2), high = std::log(high_);
        upper = std::exp((high - f * lower) / (1 - f));
    }
    // A decade's tick label every two lines at least: a short axis ticks every other decade or fewer.
    const auto ticker = plot_->yAxis->ticker().dynamicCast<QCPAxisTickerLog>();
    const int ticks =
        std::max(1, static_cast<int>(room / (2.0 * QFontMetrics(plot_->yAxis->tickLabelFont()).lineSpacing())));
    const bool ticksChanged = ticker && ticker->tickCount() != ticks;
    if (ticksChanged) ticker->setTickCount(ticks);
    const bool rangeChanged = std::abs(upper - plot_->yAxis->range().upper) > 0.01 * upper;
    const bool placementChanged = engines_ > 0 && inChart != labelsInChart();
    if (fitting == plot_->yAxis->label() && note == placeholder_->text() && !rangeChanged && !ticksChanged &&
        !placementChanged)
        return;
    if (rangeChanged) plot_->yAxis->setRange(low_ / 2, upper);
    if (placementChanged) setLabelsShown(inChart);
    placeholder_->setText(note);
    plot_->yAxis->setLabel(fitting);
    for (auto phase : {QCPLayoutElement::upPreparation, QCPLayoutElement::upMargins, QCPLayoutElement::upLayout})
        plot_->plotLayout()->update(phase);
}

void AnswerChart::setAnswer(const Answer& answer) {
    clearDrawing();
    const LoopSeries series = addLoopSeries(*plot_);
    QSharedPointer<QCPAxisTickerText> ticks(new QCPAxisTickerText);
    QStringList numbers;  // the line under the chart, an engine an entry
    double low = 1e300, high = 0;
    engines_ = 0;
    for (const auto& e : answer.engines) {
        if (!e.ablation || !e.ablation->seedLoop()) continue;
        const double key = ++engines_;
        ticks->addTick(key, QString::fromStdString(e.engine));
        const AblationStep& s = *e.ablation->seedLoop();
        const AblationStep* f = e.ablation->fixedLoop();
        series.add(key, s, f);
        low = std::min(low, s.minEpochMs);
        high = std::max(high, s.maxEpochMs);
        if (f) {
            low = std::min(low, f->minEpochMs);
            high = std::max(high, f->maxEpochMs);
        }
        EngineLabels labels = addMedianLabels(key, s, f);
        // The label of the taller bar (whisker included): the speed-up goes above it.
        QCPItemText* highest = f && f->maxEpochMs >= s.maxEpochMs ? labels.fixed : labels.seed;
        if (const auto gap = e.gap()) addGapLabel(labels, key, *gap, highest);
        labels_.push_back(labels);
        numbers << numbersEntry(e.engine, s, f, labels.gap ? labels.gapText : std::optional<QString>());
    }
    numbers_->setText(numbers.join(" \u00b7 "));
    numbers_->setVisible(false);  // until a layout finds the labels too many for the chart
    placeholder_->setVisible(engines_ == 0);
    plot_->xAxis->setVisible(engines_ > 0);
    plot_->yAxis->setVisible(engines_ > 0);
    plot_->xAxis->setTicker(ticks);
    plot_->xAxis->setRange(0.4, std::max(1, engines_) + 0.6);
    low_ = low;
    high_ = high;
    if (engines_ > 0) plot_->yAxis->setRange(low / 2, high * 20);  // fitToSize() sets the headroom
    plot_->replot();
}

// Everything but the note of an empty chart.
void AnswerChart::clearDrawing() {
    plot_->clearPlottables();
    for (int i = plot_->itemCount() - 1; i >= 0; --i)
        if (plot_->item(i) != placeholder_) plot_->removeItem(i);
    labels_.clear();
}

// The medians over an engine's two bars, each over its whisker.
AnswerChart::EngineLabels AnswerChart::addMedianLabels(double key, const AblationStep& s, const AblationStep* f) {
    EngineLabels labels;
    for (const auto& [step, offset] : {std::pair{&s, -0.18}, std::pair{f, 0.18}}) {
        if (!step) continue;
        const bool isSeed = offset < 0;  // the fixed loop may be the seed loop itself
        auto* label = new QCPItemText(plot_);
        label->position->setCoords(key + offset, step->maxEpochMs);
        label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        label->setText(formatMs(step->medianEpochMs));
        label->setFont(QFont(font().family(), 8));
        label->setPadding(QMargins(0, 0, 0, 4));  // clear of the whisker's cap
        (isSeed ? labels.seed : labels.fixed) = label;
    }
    return labels;
}

// The speed-up above the engine's bars and their labels, a few pixels over `anchor`.
void AnswerChart::addGapLabel(EngineLabels& labels, double key, const SpeedComparison& gap, QCPItemText* anchor) {
    auto* label = new QCPItemText(plot_);
    label->position->setTypeX(QCPItemPosition::ptPlotCoords);
    label->position->setParentAnchorY(anchor->top);
    label->position->setCoords(key, -2);
    label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
    labels.gapText = QString::fromStdString(gap.label());
    label->setText(labels.gapText);  // wrapped to the engine's band when the chart is laid out
    label->setTextAlignment(Qt::AlignHCenter);
    label->setFont(QFont(font().family(), 9, QFont::Bold));
    labels.gap = label;
}

}  // namespace wb::gui
