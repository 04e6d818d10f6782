#include "gui/answer/shares_chart.h"

#include <QMouseEvent>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include <qcustomplot.h>

#include "core/measure/ablation_attribution.h"
#include "gui/charts/chart_style.h"
#include "gui/charts/waterfall_chart.h"
#include "gui/panels/label_fitting.h"

namespace wb::gui {

namespace {
constexpr double kBarWidth = 0.6;   // of a row's height
constexpr int kLabelGapPx = 6;      // between an error bar's end and its label
constexpr int kMaxTickLines = 3;    // a cause's name beside its bar
constexpr int kTallPx = 300;        // a chart this tall has room for a title of two lines
constexpr double kNameShare = 0.4;  // of the plot's width, at most, for the causes' names
const QString kEmptyTitle = "Share of the gap per cause";
const QColor kSavedColor(44, 160, 44);
const QColor kLargestColor(0, 100, 0);
const QColor kCostColor(214, 39, 40);
const QColor kWhiskerColor(40, 40, 40);

// "62 %", "−12 %", "4.5 %": a share as a reader reads it (a true minus sign).
QString percentText(double fraction) {
    const double pct = fraction * 100;
    const QString digits = QString::number(std::abs(pct), 'f', std::abs(pct) >= 10 ? 0 : 1);
    return (pct < 0 && digits.toDouble() > 0 ? QString("\u2212") : QString()) + digits;
}

// "62 % (55 – 70 %)": the share, then its interval when the rounds give one.
QString shareText(const SharesChart::Cause& c, bool withInterval) {
    QString text = percentText(c.share) + " %";
    if (withInterval) text += " (" + percentText(c.low) + " \u2013 " + percentText(c.high) + " %)";
    return text;
}

// In full: "largest: 62 % (55 – 70 %)", "costs 4.24 ms: −6 % (−7 – −5 %), left out"; short, where
// the plot is narrow: "largest: 62 %", "costs 4.24 ms" (the cost is always named).
QString labelOf(const SharesChart::Cause& c, bool full, bool withInterval) {
    // Beside Shapley values, a share of one order says so.
    const QString order = c.everyOrder || !c.inOneOrderAmongOthers ? QString() : QString(", in the order applied");
    if (c.savedMs < 0) {
        const QString cost = "costs " + formatMs(-c.savedMs);
        return full ? cost + ": " + shareText(c, withInterval) + (c.leftOut ? ", left out" : "") + order : cost;
    }
    const QString text = (c.largest ? "largest: " : "") + shareText(c, full && withInterval);
    return full ? text + (c.leftOut ? ", left out" : "") + order : text;
}

bool named(const std::vector<std::size_t>& list, std::size_t index) {
    return std::find(list.begin(), list.end(), index) != list.end();
}

QString roundsText(int rounds) {
    if (rounds < 2) return QString("%1 round, too few for intervals").arg(rounds);
    return QString("%1 rounds, 95 % intervals").arg(rounds);
}

// Cause `i` of `a` as drawn: its Shapley value's share where every order was measured, else its
// share of this one order's gap.
SharesChart::Cause causeOf(const AblationResult& result, const Attribution& a, std::size_t i, bool everyOrder,
                           double gap) {
    const CauseShare& c = a.causes[i];
    SharesChart::Cause cause;
    cause.name = QString::fromStdString(result.steps[c.step].name);
    cause.savedMs = c.savedMs;
    Interval interval;
    if (everyOrder && c.shapley) {
        cause.everyOrder = true;
        cause.savedMs = *c.shapley;
        cause.share = *c.shapley / *a.shapleyGapMs;
        interval = {c.shapleyInterval.low / *a.shapleyGapMs, c.shapleyInterval.high / *a.shapleyGapMs};
    } else {
        // A step after the fixed loop has no share of its gap: what it saved over that gap, with
        // its saving's interval, says the same in the same unit.
        const double whole = everyOrder ? *a.shapleyGapMs : gap;
        cause.share = c.share && !everyOrder ? *c.share : c.savedMs / whole;
        interval = c.share && !everyOrder ? c.shareInterval : Interval{c.saved.low / whole, c.saved.high / whole};
    }
    cause.low = std::min(interval.low, cause.share);  // a percentile interval can miss its point
    cause.high = std::max(interval.high, cause.share);
    cause.largest = a.largest == i;
    cause.costly = cause.everyOrder ? c.shapleyInterval.high < 0 : named(a.costly, i);
    cause.leftOut = !c.inFixedLoop;
    cause.inOneOrderAmongOthers = everyOrder && !cause.everyOrder;
    cause.label = labelOf(cause, true, a.rounds > 1);
    cause.shortLabel = labelOf(cause, false, false);
    return cause;
}
}  // namespace

SharesChart::SharesChart(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    plot_->setMinimumHeight(200);  // a line for each of six causes under a title, with the axis below
    title_ = applyChartStyle(*plot_, kEmptyTitle, LegendPlace::None);
    plot_->xAxis->setLabel("Share of the gap, %");
    plot_->yAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    plot_->yAxis->grid()->setVisible(false);
    plot_->yAxis->setRangeReversed(true);  // the first fix applied on top
    fullPlaceholder_ = "No answer yet: press \u201cAnswer the question\u201d, or open an answer file";
    placeholder_ = addPlaceholder(*plot_, fullPlaceholder_);
    placeholder_->setVisible(true);
    showAxes(false);
    fullTitle_ = kEmptyTitle;
    connect(plot_, &QCustomPlot::afterLayout, this, &SharesChart::fitLabelsToSize);
    connect(plot_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* event) {
        const long row = std::lround(plot_->yAxis->pixelToCoord(event->position().y()));
        if (row < 1 || row > static_cast<long>(causes_.size())) {
            QToolTip::hideText();
            return;
        }
        const Cause& c = causes_[static_cast<std::size_t>(row - 1)];
        QToolTip::showText(event->globalPosition().toPoint(),
                           "<b>" + c.name.toHtmlEscaped() + "</b><br>" + c.label.toHtmlEscaped() + "<br>saved " +
                               formatMs(c.savedMs) + " per epoch",
                           plot_);
    });
}

// An empty chart is its note alone: axes without bars would only crowd it.
void SharesChart::showAxes(bool shown) {
    plot_->xAxis->setVisible(shown);
    plot_->yAxis->setVisible(shown);
}

void SharesChart::clearDrawing() {
    showAxes(false);
    plot_->clearPlottables();
    for (int i = plot_->itemCount() - 1; i >= 0; --i)
        if (plot_->item(i) != placeholder_) plot_->removeItem(i);
    causes_.clear();
    labels_.clear();
    fitted_.clear();
}

void SharesChart::clear() {
    clearDrawing();
    fullTitle_ = kEmptyTitle;
    shortTitle_.clear();
    fullPlaceholder_ = "No answer yet: press \u201cAnswer the question\u201d, or open an answer file";
    title_->setText(fullTitle_);
    placeholder_->setText(fullPlaceholder_);
    placeholder_->setVisible(true);
    plot_->replot();
}

void SharesChart::setResult(const AblationResult& result) {
    clearDrawing();
    const Attribution a = attribute(result);
    const double gap = result.totalGapMs();
    // Where every combination of the fixes was measured, each one's Shapley value: its saving
    // averaged over every order, the values summing to the gap all of them make.
    // Only where the gap is measurable at all: shares of no difference would be shares of noise.
    const auto comparison = result.gapComparison();
    const bool everyOrder = a.shapleyGapMs && *a.shapleyGapMs > 0 && comparison && comparison->measurable;
    const bool shared = everyOrder || (gap > 0 && std::any_of(a.causes.begin(), a.causes.end(),
                                                              [](const CauseShare& c) { return c.share.has_value(); }));
    const QString engine = QString::fromStdString(result.backend.empty() ? "this engine" : result.backend);
    setTitles(engine, a.rounds, everyOrder, result.status == AblationStatus::Running);
    if (!shared) {
        showNothingToShare(engine, a.causes.empty());
        return;
    }
    fullPlaceholder_.clear();
    placeholder_->setVisible(false);
    for (std::size_t i = 0; i < a.causes.size(); ++i) {
        // The closing step that takes the costly fixes back is no fix: their Shapley values say it.
        if (everyOrder && result.steps[a.causes[i].step].fix == AblationStep::kWithoutCostly) continue;
        causes_.push_back(causeOf(result, a, i, everyOrder, gap));
    }
    draw();
    fitted_.clear();
    plot_->replot();
}

void SharesChart::setTitles(const QString& engine, int rounds, bool everyOrder, bool running) {
    fullTitle_ = "Share of the gap on " + engine + (everyOrder ? ", over every order of the fixes: " : ": ") +
                 roundsText(rounds);
    shortTitle_ = engine + ": " + roundsText(rounds);
    if (running) {
        fullTitle_ += " \u2014 provisional";
        shortTitle_ += " \u2014 provisional";
    }
    title_->setText(fullTitle_);  // whole until a layout fits it to the width
}

void SharesChart::showNothingToShare(const QString& engine, bool noCauses) {
    fullPlaceholder_ = noCauses ? QString("No fix measured yet on %1").arg(engine)
                                : QString(
                                      "No measurable gap on %1: its fixes have no share of it "
                                      "(the waterfall has their milliseconds)")
                                      .arg(engine);
    placeholder_->setText(fullPlaceholder_);
    placeholder_->setVisible(true);
    plot_->replot();
}

void SharesChart::draw() {
    showAxes(true);
    for (std::size_t i = 0; i < causes_.size(); ++i) {
        const Cause& c = causes_[i];
        const double key = static_cast<double>(i + 1);
        auto* bars = new QCPBars(plot_->yAxis, plot_->xAxis);  // horizontal: the causes down the left
        const QColor color = c.savedMs < 0 ? kCostColor : c.largest ? kLargestColor : kSavedColor;
        bars->setName(c.name);
        bars->setBrush(c.leftOut ? color.lighter(150) : color);
        bars->setPen(QPen(color.darker(130), 1));
        bars->setWidth(kBarWidth);
        bars->addData(key, c.share * 100);
        bars->setSelectable(QCP::stNone);
        auto* interval = new QCPErrorBars(plot_->yAxis, plot_->xAxis);
        interval->setDataPlottable(bars);
        interval->setErrorType(QCPErrorBars::etValueError);
        interval->addData((c.share - c.low) * 100, (c.high - c.share) * 100);
        interval->setPen(QPen(kWhiskerColor, 1.5));
        interval->setWhiskerWidth(8);
        interval->setSelectable(QCP::stNone);
        QCPItemText* label = addValueLabel(*plot_, c.label);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        label->position->setCoords(std::max(0.0, c.high) * 100, key);
        label->setPadding(QMargins(kLabelGapPx, 0, 2, 0));
        label->setBrush(QColor(255, 255, 255, 220));  // the 100 % line passes behind it
        labels_.push_back(label);
    }
    // Where nothing is saved, and where all of the gap is.
    for (const double at : {0.0, 100.0}) {
        auto* line = new QCPItemStraightLine(plot_);
        line->point1->setCoords(at, 0);
        line->point2->setCoords(at, 1);
        line->setPen(QPen(QColor(120, 120, 120), 1, at == 0 ? Qt::SolidLine : Qt::DashLine));
        line->setSelectable(false);
        line->setLayer("grid");  // under the bars and their labels
    }
    plot_->yAxis->setRange(0.4, static_cast<double>(causes_.size()) + 0.6);
}

// The causes' names get up to kNameShare of the width, wrapped into the lines a row's height holds;
// each label sits right of its error bar, and the share axis reaches far enough right for the
// widest to end inside the plot (a label that would leave the bars no room drops its interval: the
// tooltip has it). Run after each layout; when the texts change, the layout is redone with them.
void SharesChart::fitLabelsToSize() {
    for (int pass = 0; pass < 2; ++pass) {
        const QRect axes = plot_->axisRect()->rect();
        if (axes.width() <= 0 || axes.height() <= 0) return;  // not laid out yet
        // The whole title where it takes one line or the chart is tall, else the short one: a line of
        // title is a row of bars less.
        const QFontMetrics titleFont(title_->font());
        const int titleWidth = plot_->viewport().width() - 24;
        QString fitted = wrapWords(fullTitle_, titleFont, titleWidth);
        if (fitted.contains('\n') && plot_->viewport().height() < kTallPx && !shortTitle_.isEmpty())
            fitted = wrapWords(shortTitle_, titleFont, titleWidth);
        title_->setText(fitted);
        const QString note = wrapWords(fullPlaceholder_, QFontMetrics(placeholder_->font()), axes.width() - 16);
        placeholder_->setText(note);
        fitted += note;
        const QFontMetrics tickFont(plot_->yAxis->tickLabelFont());
        const double pitch = axes.height() / std::max<double>(1.0, static_cast<double>(causes_.size()));
        const int lines = std::clamp(static_cast<int>(pitch / tickFont.lineSpacing()), 1, kMaxTickLines);
        const int nameWidth = std::max(60, static_cast<int>(plot_->viewport().width() * kNameShare));
        auto ticker = QSharedPointer<QCPAxisTickerText>::create();
        for (std::size_t i = 0; i < causes_.size(); ++i) {
            const QString tick = wrapAtBreaks(causes_[i].name, tickFont, nameWidth, lines);
            ticker->addTick(static_cast<double>(i + 1), tick);
            fitted += tick;
        }
        double lowest = 0, upper = 100;
        for (const Cause& c : causes_) {
            lowest = std::min(lowest, c.low * 100);
            upper = std::max(upper, c.high * 100);
        }
        const double lower = lowest < 0 ? lowest - 5 : 0.0;
        const double width = axes.width();
        for (std::size_t i = 0; i < causes_.size() && i < labels_.size(); ++i) {
            const QFontMetrics labelFont(labels_[i]->font());
            const auto widthOf = [&](const QString& t) { return labelFont.horizontalAdvance(t) + kLabelGapPx + 4; };
            // Rows lower than a line of text would pile the labels up: then the tooltip has them.
            const QString text = pitch < labelFont.lineSpacing()              ? QString()
                                 : widthOf(causes_[i].label) <= width * 2 / 3 ? causes_[i].label
                                                                              : causes_[i].shortLabel;
            labels_[i]->setText(text);
            fitted += text;
            // The label ends inside the plot: (anchor - lower) / (upper - lower) * width + its width <= width.
            const double room = std::max(width / 4, width - widthOf(text));
            const double anchor = std::max(0.0, causes_[i].high) * 100;
            upper = std::max(upper, lower + (anchor - lower) * width / room);
        }
        fitted += QString::number(lower) + "," + QString::number(upper);
        if (fitted == fitted_) return;
        fitted_ = fitted;
        plot_->yAxis->setTicker(ticker);
        plot_->xAxis->setRange(lower, upper);
        for (auto phase : {QCPLayoutElement::upPreparation, QCPLayoutElement::upMargins, QCPLayoutElement::upLayout})
            plot_->plotLayout()->update(phase);
    }
}

}  // namespace wb::gui
