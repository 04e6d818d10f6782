#include "gui/charts/waterfall_chart.h"

#include <QMouseEvent>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include <qcustomplot.h>

#include "gui/charts/chart_style.h"
#include "gui/panels/label_fitting.h"

namespace wb::gui {

namespace {
constexpr double kBarWidth = 0.62;
constexpr int kLabelGapPx = 5;    // between a bar (or its whisker) and its label
constexpr int kBarMarginPx = 6;   // between neighbouring labels
constexpr int kMaxTickLines = 3;  // a step's name under its bar; more would squeeze the bars
const QString kEmptyTitle = "Ablation: where the epoch time goes";
// The value axis's title, and what it says where the axis is shorter than that (the tab's chart can be
// ~110 px tall): a rotated title longer than its axis runs into the chart's title.
const QString kValueTitle = "Median epoch (ms, no warm-up)";
const QString kShortValueTitle = "ms per epoch";
const QString kNumberedTitle = "fixes numbered in the order applied; hover a bar for its name";
const QChar kEllipsis(0x2026);
const QColor kSavedColor(44, 160, 44);
const QColor kSlowerColor(214, 39, 40);
const QColor kTotalColor(31, 119, 180);
const QColor kNothingColor(120, 120, 120);
const QColor kWhiskerColor(40, 40, 40);

QString percent(double fraction, int decimals = 1) {
    return QString::number(fraction * 100.0, 'f', decimals) + "%";
}

// "acc 89.9%" or "R² 0.873": the task's metric beside the loss; nothing where the split has none.
QString qualityText(const StepFinal& f, QualityMetric q, bool validation) {
    const std::optional<double> value = f.quality(q, validation);
    return value ? qualityShortName(q) + " " + formatQuality(q, *value) : QString();
}

QString finalText(const std::optional<StepFinal>& f, QualityMetric q) {
    if (!f) return {};
    const QString loss = QString("loss %1").arg(f->trainLoss, 0, 'f', 4);
    const QString quality = qualityText(*f, q, false);
    return quality.isEmpty() ? loss : loss + ", " + quality;
}

QString statusWords(const AblationStep& s, const std::string& backend) {
    switch (s.status) {
        case StepStatus::NotApplicable: return QString("not applicable on %1").arg(QString::fromStdString(backend));
        case StepStatus::Refused: return "refused";
        case StepStatus::Failed: return "failed";
        case StepStatus::Cancelled: return "cancelled";
        case StepStatus::Ran: break;
    }
    return {};
}

// `afterFixedLoop`: measured only on top of a slower step, so it has no share of the fixed loop's gap.
QString stepLabel(const AblationStep& s, const std::string& backend, QualityMetric q, bool afterFixedLoop) {
    if (!s.measured()) return statusWords(s, backend) + "\n0 ms (not run)";
    const QString saved = s.savedMs >= 0 ? "saved " + formatMs(s.savedMs) : "slower by " + formatMs(-s.savedMs);
    const QString share = s.share          ? percent(*s.share) + " of the gap"
                          : afterFixedLoop ? QString("after the fixed loop")
                                           : QString("no gap to share");  // a zero gap
    return saved + "\n" + share + "\n" + finalText(s.final, q);
}

WaterfallChart::Bar barOf(const AblationStep& s, double before, const std::string& backend, QualityMetric q,
                          bool afterFixedLoop) {
    WaterfallChart::Bar bar;
    bar.name = QString::fromStdString(s.name);
    bar.low = std::min(before, s.medianEpochMs);
    bar.high = std::max(before, s.medianEpochMs);
    bar.measured = s.measured();
    bar.slower = s.measured() && s.medianEpochMs > before;
    bar.label = stepLabel(s, backend, q, afterFixedLoop);
    bar.shortLabel =
        !s.measured() ? QString("not run") : QString(s.savedMs >= 0 ? "\u2212" : "+") + formatMs(std::abs(s.savedMs));
    if (s.measured()) {
        bar.spreadLow = s.minEpochMs;
        bar.spreadHigh = s.maxEpochMs;
    }
    return bar;
}

WaterfallChart::Bar baselineBar(const AblationStep& s, const std::string& baseline, QualityMetric q) {
    WaterfallChart::Bar base;
    base.kind = WaterfallChart::Bar::Kind::Baseline;
    base.name = QString::fromStdString(baseline);
    base.high = s.medianEpochMs;
    base.measured = s.measured();
    base.label = formatMs(s.medianEpochMs) + "\n" + finalText(s.final, q);
    base.shortLabel = formatMs(s.medianEpochMs);
    if (s.measured()) {
        base.spreadLow = s.minEpochMs;
        base.spreadHigh = s.maxEpochMs;
    }
    return base;
}

QString settingsText(const ExecutionSettings& settings) {
    QStringList parts;
    for (const auto& d : describeSwitches(settings))
        parts << QString::fromStdString(d.name) + "=" + QString::fromStdString(d.value);
    return parts.join(", ");
}

QString stepTooltip(const AblationStep& s, const std::string& backend, QualityMetric q) {
    QString text = "<b>" + QString::fromStdString(s.name).toHtmlEscaped() + "</b>";
    if (!s.description.empty()) text += "<br>" + QString::fromStdString(s.description).toHtmlEscaped();
    text += "<br>settings: " + settingsText(s.settings).toHtmlEscaped();
    if (s.measured()) {
        text += QString("<br>median epoch %1 (spread %2 to %3 over %4 run(s))")
                    .arg(formatMs(s.medianEpochMs), formatMs(s.minEpochMs), formatMs(s.maxEpochMs))
                    .arg(s.runs.size());
        if (!s.fix.empty())
            text += "<br>saved " + formatMs(s.savedMs) + (s.share ? ", " + percent(*s.share) + " of the gap" : "");
        text += "<br>final " + finalText(s.final, q).toHtmlEscaped();
        if (s.final && s.final->valLoss) {
            text += QString("; validation loss %1").arg(*s.final->valLoss, 0, 'f', 4);
            if (const QString quality = qualityText(*s.final, q, true); !quality.isEmpty())
                text += " · " + quality.toHtmlEscaped();
        }
    } else {
        text += "<br>" + statusWords(s, backend) + ": not run, 0 ms";
    }
    if (!s.message.empty()) text += "<br><i>" + QString::fromStdString(s.message).toHtmlEscaped() + "</i>";
    for (const std::string& line : s.noteLines())
        text += "<br><i>note: " + QString::fromStdString(line).toHtmlEscaped() + "</i>";
    return text;
}
}  // namespace

QString qualityShortName(QualityMetric q) {
    return q == QualityMetric::Accuracy ? QString("acc") : QString::fromStdString(qualityName(q));
}

QString formatQuality(QualityMetric q, double value, int decimals) {
    switch (q) {
        case QualityMetric::Accuracy: return percent(value, decimals);
        case QualityMetric::R2: return QString::number(value, 'f', decimals + 2);  // 0.873: R^2 has no unit
        case QualityMetric::Mae: return QString::number(value, 'g', 4);            // in the target's units
    }
    return {};
}

QString formatMs(double ms) {
    const double magnitude = std::abs(ms);
    const int decimals = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : magnitude >= 0.1 ? 2 : 3;
    return QString::number(ms, 'f', decimals) + " ms";
}

QString stepTickLabel(const std::string& name) {
    constexpr qsizetype kLongPart = 16;
    QStringList lines;
    for (QString part : QString::fromStdString(name).split(", ")) {
        const qsizetype eq = part.indexOf('=');
        if (part.size() > kLongPart && eq > 0) part.insert(eq + 1, '\n');
        lines << part;
    }
    return lines.join('\n');
}

WaterfallChart::WaterfallChart(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    title_ = applyChartStyle(*plot_, "Ablation: where the epoch time goes", LegendPlace::None);
    plot_->xAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    plot_->xAxis->grid()->setVisible(false);
    plot_->yAxis->setLabel(kValueTitle);
    placeholderText_ = "No ablation yet: press Run in the Ablation tab, or open an ablation JSON";
    placeholder_ = addPlaceholder(*plot_, placeholderText_);
    placeholder_->setVisible(true);
    connect(plot_, &QCustomPlot::mouseMove, this, &WaterfallChart::showHoverTip);
    // Every layout (a resize, new data, an export at another size) fits the labels to the pixels
    // the bars got; the signal comes after the layout and before anything is drawn.
    connect(plot_, &QCustomPlot::afterLayout, this, &WaterfallChart::fitLabelsToSize);
    fullTitle_ = kEmptyTitle;
}

void WaterfallChart::clearDrawing() {
    for (QCPAbstractPlottable* p : plottables_) plot_->removePlottable(p);
    for (QCPAbstractItem* item : items_) plot_->removeItem(item);
    plottables_.clear();
    items_.clear();
    bars_.clear();
    tooltips_.clear();
    tickTexts_.clear();
    labels_.clear();
    top_ = 0;
    fitted_.clear();
}

void WaterfallChart::clear() {
    clearDrawing();
    fullTitle_ = shortTitle_ = kEmptyTitle;
    title_->setText(fullTitle_);
    placeholder_->setVisible(true);
    plot_->replot();
}

void WaterfallChart::setResult(const AblationResult& result) {
    clearDrawing();
    placeholder_->setVisible(result.steps.empty());
    collectBars(result);
    addFixedLoopBar(result);
    drawBars(result);
    setTitles(result);
    fitted_.clear();  // new texts: fit them at the next layout
    plot_->replot();
}

// A bar and a tooltip per step: the first step is the baseline's full bar, each later one floats
// from the level of the step before it.
void WaterfallChart::collectBars(const AblationResult& result) {
    const QualityMetric quality = result.quality();
    for (std::size_t i = 0; i < result.steps.size(); ++i) {
        const AblationStep& s = result.steps[i];
        if (i == 0) {
            bars_.push_back(baselineBar(s, result.plan.baseline, quality));
        } else {
            const bool afterFixedLoop = result.fixedLoop() && &s > result.fixedLoop();
            bars_.push_back(barOf(s, result.steps[i - 1].medianEpochMs, result.backend, quality, afterFixedLoop));
        }
        tooltips_.push_back(stepTooltip(s, result.backend, quality));
    }
}

// The closing bar is the fixed loop: the fastest step measured (the steps of this one order after
// it are fixes it leaves out), with the verdict of the repeats' spreads.
void WaterfallChart::addFixedLoopBar(const AblationResult& result) {
    const AblationStep* fixed = result.fixedLoop();
    if (!fixed) return;
    const double first = result.steps.front().medianEpochMs, last = fixed->medianEpochMs;
    Bar total;
    total.kind = Bar::Kind::Total;
    total.name = "fixed loop";
    total.high = last;
    total.measured = true;
    const double speedup = last > 0 ? first / last : 0.0;
    // The same verdict as the CLI's total gap: a speedup only where the repeats' spreads do not overlap.
    const auto gap = result.gapComparison();
    const bool measurable = gap && gap->measurable;
    total.label =
        formatMs(last) + "\n" +
        (measurable || !gap ? "speedup " + QString::number(speedup, 'f', 2) + "×" : QString("no measurable speedup"));
    total.shortLabel = formatMs(last);
    bars_.push_back(total);
    tooltips_.push_back(
        QString("<b>The fixed loop</b>: the fastest step measured, %5<br>%1 → %2 per epoch: %3 saved; %4")
            .arg(formatMs(first), formatMs(last), formatMs(first - last),
                 gap ? QString::fromStdString(gap->label()) : QString("%1× faster").arg(speedup, 0, 'f', 2),
                 QString::fromStdString(fixed->name).toHtmlEscaped()));
}

void WaterfallChart::drawBars(const AblationResult& result) {
    for (std::size_t i = 0; i < bars_.size(); ++i) {
        const double key = static_cast<double>(i + 1);
        const Bar& bar = bars_[i];
        tickTexts_.push_back(bar.kind == Bar::Kind::Baseline ? "baseline\n" + stepTickLabel(bar.name.toStdString())
                             : bar.kind == Bar::Kind::Total  ? QString("fixed loop\n(fastest)")
                                                             : stepTickLabel(bar.name.toStdString()));
        drawBar(bar, key);
        drawSpread(bar, key);
        if (i + 1 < bars_.size() && bars_[i + 1].kind == Bar::Kind::Step)
            drawConnector(key, key + 1, result.steps[i].medianEpochMs);
        top_ = std::max({top_, bar.high, bar.spreadHigh.value_or(0.0)});
    }
    plot_->xAxis->setRange(0.4, static_cast<double>(bars_.size()) + 0.6);
}

void WaterfallChart::setTitles(const AblationResult& result) {
    const std::string& backend = result.backend;
    QString title = "Ablation from \u201C" + QString::fromStdString(result.plan.baseline) + "\u201D";
    if (!backend.empty())
        title += QString(" on %1 (%2), %3 round(s)")
                     .arg(QString::fromStdString(backend), QString::fromStdString(result.device))
                     .arg(result.roundsMade());
    // One order of the fixes: another order would give each fix another bar (the shares chart has
    // what the rounds can tell whatever the order).
    title += ", the fixes in the order applied";
    QString state;
    if (result.status == AblationStatus::Running) state = " — running";
    if (result.status == AblationStatus::Cancelled) state = " — cancelled";
    if (result.status == AblationStatus::Failed) state = " — failed";
    fullTitle_ = title + state;
    shortTitle_ = (backend.empty()
                       ? QString("Ablation")
                       : QString("On %1, %2 round(s)").arg(QString::fromStdString(backend)).arg(result.roundsMade())) +
                  ", in the order applied" + state;
}

void WaterfallChart::drawBar(const Bar& bar, double key) {
    const bool flat = bar.high - bar.low <= 0.0;
    if (bar.kind == Bar::Kind::Step && (!bar.measured || flat)) {
        // Nothing happened here: a flat line at the level, dashed when the step did not even run.
        auto* line = new QCPItemLine(plot_);
        line->start->setCoords(key - kBarWidth / 2, bar.low);
        line->end->setCoords(key + kBarWidth / 2, bar.low);
        line->setPen(QPen(kNothingColor, 2.5, bar.measured ? Qt::SolidLine : Qt::DashLine));
        line->setSelectable(false);
        items_.push_back(line);
    } else {
        auto* bars = new QCPBars(plot_->xAxis, plot_->yAxis);
        bars->setWidth(kBarWidth);
        const QColor color = bar.kind == Bar::Kind::Baseline ? neutralColor()
                             : bar.kind == Bar::Kind::Total  ? kTotalColor
                             : bar.slower                    ? kSlowerColor
                                                             : kSavedColor;
        bars->setBrush(color);
        bars->setPen(QPen(color.darker(130), 1));
        bars->setBaseValue(bar.low);  // a floating bar: from the lower level up by the difference
        bars->addData(key, bar.high - bar.low);
        bars->setSelectable(QCP::stNone);
        plottables_.push_back(bars);
    }
    QCPItemText* label = addValueLabel(*plot_, bar.label);
    label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
    label->setTextAlignment(Qt::AlignHCenter);
    label->position->setCoords(key, std::max(bar.high, bar.spreadHigh.value_or(0.0)));
    label->setPadding(QMargins(0, 0, 0, kLabelGapPx));
    if (!bar.measured) label->setColor(kNothingColor);
    items_.push_back(label);
    labels_.push_back(label);
}

// The spread over the repeats: a whisker from the fastest to the slowest run's median.
void WaterfallChart::drawSpread(const Bar& bar, double key) {
    if (!bar.spreadLow || !bar.spreadHigh || *bar.spreadHigh <= *bar.spreadLow) return;
    auto* whisker = new QCPItemLine(plot_);
    whisker->start->setCoords(key, *bar.spreadLow);
    whisker->end->setCoords(key, *bar.spreadHigh);
    whisker->setPen(QPen(kWhiskerColor, 1.5));
    whisker->setHead(QCPLineEnding(QCPLineEnding::esBar, 10));
    whisker->setTail(QCPLineEnding(QCPLineEnding::esBar, 10));
    whisker->setSelectable(false);
    items_.push_back(whisker);
}

// A dotted line carrying the level from one bar's edge to the next bar's.
void WaterfallChart::drawConnector(double fromKey, double toKey, double level) {
    auto* line = new QCPItemLine(plot_);
    line->start->setCoords(fromKey + kBarWidth / 2, level);
    line->end->setCoords(toKey - kBarWidth / 2, level);
    line->setPen(QPen(QColor(150, 150, 150), 1, Qt::DotLine));
    line->setSelectable(false);
    items_.push_back(line);
}

// The bars get what the axes' width divided by their number allows: a step name wraps at its '_',
// '=' and spaces into at most three lines of a bar's width, elided beyond (the tooltip has it
// whole); a value label keeps its first line (the time saved) and then only the lines that fit
// whole, or, where even the first line does not fit, says just the signed milliseconds; the value axis leaves above the
// tallest bar just the height its label needs; the title wraps to the plot's width. Run after each layout; when the
// texts change, the layout is redone once with them before anything is drawn.
void WaterfallChart::fitLabelsToSize() {
    const QRect axes = plot_->axisRect()->rect();
    // Not laid out yet (a plot never shown nor sized, as in the headless export before it renders):
    // nothing fits in no room, and empty tick labels would make QCustomPlot paint into empty pixmaps.
    if (axes.width() <= 0 || axes.height() <= 0) return;
    const int room =
        bars_.empty() ? axes.width() : static_cast<int>(axes.width() / plot_->xAxis->range().size()) - kBarMarginPx;
    QString fitted = fitTitleAndPlaceholder(axes.width());
    const QFontMetrics axisTitleFont(plot_->yAxis->labelFont());
    const QString valueTitle = axisTitleFont.horizontalAdvance(kValueTitle) <= axes.height()        ? kValueTitle
                               : axisTitleFont.horizontalAdvance(kShortValueTitle) <= axes.height() ? kShortValueTitle
                                                                                                    : QString("ms");
    fitted += valueTitle;
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    const bool numbered = fitTicks(*ticker, room, fitted);
    const QString keyTitle = numbered ? wrapWords(kNumberedTitle, axisTitleFont, axes.width()) : QString();
    fitted += keyTitle;
    const int labelLines = fitValueLabels(room, fitted);
    // The value axis: the tallest bar ends `needed` pixels below the top, where its label begins.
    const int lineHeight = labels_.empty() ? 0 : QFontMetrics(labels_.front()->font()).lineSpacing();
    const double needed = labelLines * lineHeight + kLabelGapPx + 4;
    const double share = std::clamp(1.0 - needed / std::max(1, axes.height()), 0.3, 1.0);
    const double upper = top_ > 0 ? top_ / share : 1.0;
    fitted += QString::number(upper);
    if (fitted == fitted_) return;
    fitted_ = fitted;
    plot_->xAxis->setTicker(ticker);
    plot_->xAxis->setLabel(keyTitle);
    plot_->yAxis->setLabel(valueTitle);
    plot_->yAxis->setRange(0, upper);
    for (auto phase : {QCPLayoutElement::upPreparation, QCPLayoutElement::upMargins, QCPLayoutElement::upLayout})
        plot_->plotLayout()->update(phase);
}

// The whole title in two lines at most, else the short one (the tooltip and the tab say the rest):
// every line of a title is a line less for the bars. Returns the texts set.
QString WaterfallChart::fitTitleAndPlaceholder(int axesWidth) {
    const QFontMetrics titleFont(title_->font());
    QString fitted = wrapWords(fullTitle_, titleFont, plot_->viewport().width() - 24);
    if (fitted.count('\n') > 1) fitted = wrapWords(shortTitle_, titleFont, plot_->viewport().width() - 24);
    title_->setText(fitted);
    const QString note = wrapWords(placeholderText_, QFontMetrics(placeholder_->font()), axesWidth - 16);
    placeholder_->setText(note);
    return fitted + note;
}

// Names that would be cut ("devi…") say nothing: then every step is numbered in the order its
// fix was applied, the axis says so, and the tooltip (and the Ablation tab's table) names it.
// Adds the ticks to `ticker` and their texts to `fitted`; true when they are numbered.
bool WaterfallChart::fitTicks(QCPAxisTickerText& ticker, int room, QString& fitted) const {
    const QFontMetrics tickFont(plot_->xAxis->tickLabelFont());
    std::vector<QString> ticks;
    for (const QString& text : tickTexts_) ticks.push_back(wrapAtBreaks(text, tickFont, room, kMaxTickLines));
    const bool numbered =
        std::any_of(ticks.begin(), ticks.end(), [](const QString& t) { return t.contains(kEllipsis); });
    for (std::size_t i = 0; i < ticks.size(); ++i) {
        const QString tick = numbered ? numberedTick(i) : ticks[i];
        ticker.addTick(static_cast<double>(i + 1), tick);
        fitted += tick;
    }
    return numbered;
}

// Sets each bar's label to what fits in `room` and adds it to `fitted`; returns the lines of the
// tallest label.
int WaterfallChart::fitValueLabels(int room, QString& fitted) {
    int labelLines = 0;
    for (std::size_t i = 0; i < labels_.size() && i < bars_.size(); ++i) {
        const QFontMetrics labelFont(labels_[i]->font());
        const bool fits = labelFont.horizontalAdvance(bars_[i].label.section('\n', 0, 0)) <= room;
        QString compact = bars_[i].shortLabel;
        if (labelFont.horizontalAdvance(compact) > room) compact.remove(" ms");  // the axis says ms
        // A number that does not fit whole is left to the tooltip: one cut mid-number reads as another.
        const QString text = fits ? keepFittingLines(bars_[i].label, labelFont, room)
                             : labelFont.horizontalAdvance(compact) <= room ? compact
                                                                            : QString();
        labels_[i]->setText(text);
        labelLines = std::max(labelLines, static_cast<int>(text.count('\n')) + 1);
        fitted += text;
    }
    return labelLines;
}

void WaterfallChart::setPlaceholder(const QString& text) {
    placeholderText_ = text;
    placeholder_->setText(text);
    fitted_.clear();
    plot_->replot();
}

// Bar `i`'s tick when the steps are numbered: the seed loop and the fixed loop keep a short word,
// each fix its number in the order applied (1 for the first fix).
QString WaterfallChart::numberedTick(std::size_t i) const {
    if (bars_[i].kind == Bar::Kind::Baseline) return "seed";
    if (bars_[i].kind == Bar::Kind::Total) return "fixed";
    return QString::number(i);
}

QString WaterfallChart::tooltipFor(std::size_t index) const {
    return index < tooltips_.size() ? tooltips_[index] : QString();
}

void WaterfallChart::showHoverTip(QMouseEvent* event) {
    const double key = plot_->xAxis->pixelToCoord(event->position().x());
    const long nearest = std::lround(key);
    if (nearest < 1 || nearest > static_cast<long>(bars_.size()) || std::abs(key - double(nearest)) > kBarWidth / 2) {
        QToolTip::hideText();
        return;
    }
    QToolTip::showText(event->globalPosition().toPoint(), tooltipFor(static_cast<std::size_t>(nearest - 1)), plot_);
}

}  // namespace wb::gui
