#include "gui/charts/breakdown_chart.h"

#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <map>

#include <qcustomplot.h>

#include "core/run/workload.h"
#include "gui/runs/run_repeats.h"
#include "gui/runs/run_store.h"

namespace wb::gui {

namespace {
constexpr double kBarWidth = 0.6;
const QColor kNotSeparableFill(205, 205, 205);
const QColor kNotSeparableEdge(120, 120, 120);

// The epochs a summary speaks for: after warm-up, unless the warm-up epoch is all there is.
std::vector<const EpochMetrics*> measuredEpochs(const RunRecord& record) {
    std::vector<const EpochMetrics*> epochs;
    for (const EpochMetrics& e : record.epochs)
        if (!e.warmup) epochs.push_back(&e);
    if (epochs.empty())
        for (const EpochMetrics& e : record.epochs) epochs.push_back(&e);
    return epochs;
}

double phaseOf(const PhaseTimes& p, int phase) {
    switch (phase) {
        case 0: return p.data;
        case 1: return p.forward;
        case 2: return p.backward;
        case 3: return p.optimizer;
        default: return p.other;
    }
}

QString formatMs(double ms) {
    return QString::number(ms, 'f', ms >= 100 ? 0 : (ms >= 10 ? 1 : 2)) + " ms";
}

// The repeats of one configuration as one bar: each part's median over them (separable only when
// each of them is), and the lowest and highest of their totals.
BreakdownChart::Row combined(const std::vector<BreakdownChart::Row>& repeats) {
    BreakdownChart::Row row = repeats.front();
    row.repeats = static_cast<int>(repeats.size());
    std::vector<double> totals, walls;
    for (const auto& r : repeats) {
        totals.push_back(r.breakdown.totalMs);
        walls.push_back(r.breakdown.medianWallMs);
        row.breakdown.separable = row.breakdown.separable && r.breakdown.separable;
    }
    row.lowMs = *std::min_element(totals.begin(), totals.end());
    row.highMs = *std::max_element(totals.begin(), totals.end());
    row.breakdown.medianWallMs = median(walls).value_or(0.0);
    row.breakdown.totalMs = 0;
    for (std::size_t p = 0; p < kPhaseCount; ++p) {
        std::vector<double> parts;
        for (const auto& r : repeats) parts.push_back(r.breakdown.phaseMs[p]);
        row.breakdown.phaseMs[p] = row.breakdown.separable ? median(parts).value_or(0.0) : 0.0;
        row.breakdown.totalMs += row.breakdown.phaseMs[p];
    }
    if (!row.breakdown.separable) row.breakdown.totalMs = median(totals).value_or(0.0);
    row.name = QString("%1 (%2 repeats)").arg(repeatedName(row.name)).arg(row.repeats);
    return row;
}
}  // namespace

std::optional<PhaseBreakdown> phaseBreakdown(const RunRecord& record) {
    const std::vector<const EpochMetrics*> epochs = measuredEpochs(record);
    if (epochs.empty()) return std::nullopt;
    PhaseBreakdown b;
    b.separable = std::all_of(epochs.begin(), epochs.end(), [](const EpochMetrics* e) { return e->phases; });
    std::vector<double> wall;
    for (const EpochMetrics* e : epochs) wall.push_back(e->wallMs);
    b.medianWallMs = median(wall).value_or(0.0);
    if (!b.separable) {
        b.totalMs = b.medianWallMs;
        return b;
    }
    for (int phase = 0; phase < kPhaseCount; ++phase) {
        std::vector<double> values;
        for (const EpochMetrics* e : epochs) values.push_back(phaseOf(*e->phases, phase));
        b.phaseMs[static_cast<std::size_t>(phase)] = median(values).value_or(0.0);
        b.totalMs += b.phaseMs[static_cast<std::size_t>(phase)];
    }
    return b;
}

BreakdownChart::BreakdownChart(RunStore* store, QWidget* parent) : ThrottledChart(store, parent) {
    applyChartStyle(plot(), "Time per epoch by phase (median after warm-up)");
    setLegendColumns(plot(), kPhaseCount + 1);
    plot().yAxis->setLabel("Median time per epoch (ms)");
    plot().xAxis->grid()->setVisible(false);
    plot().xAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    placeholder_ = addPlaceholder(plot(), "No runs to show yet");
    leftOutNote_ = addValueLabel(plot(), {});
    leftOutNote_->position->setType(QCPItemPosition::ptAxisRectRatio);
    leftOutNote_->position->setCoords(0.01, 0.02);
    leftOutNote_->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    leftOutNote_->setTextAlignment(Qt::AlignLeft);

    QCPBars* below = nullptr;
    for (int phase = 0; phase < kPhaseCount; ++phase) {
        auto* bars = new QCPBars(plot().xAxis, plot().yAxis);
        bars->setName(phaseNames()[static_cast<std::size_t>(phase)]);
        bars->setBrush(phaseColors()[static_cast<std::size_t>(phase)]);
        bars->setPen(QPen(Qt::white, 1));  // a thin gap between the stacked parts
        bars->setWidth(kBarWidth);
        if (below) bars->moveAbove(below);
        phaseBars_[static_cast<std::size_t>(phase)] = below = bars;
    }
    notSeparableBars_ = new QCPBars(plot().xAxis, plot().yAxis);
    notSeparableBars_->setName("not separable (total only)");
    notSeparableBars_->setBrush(kNotSeparableFill);
    notSeparableBars_->setPen(QPen(kNotSeparableEdge, 1));
    notSeparableBars_->setWidth(kBarWidth);

    plot().setMouseTracking(true);
    connect(&plot(), &QCustomPlot::mouseMove, this, &BreakdownChart::showHoverTip);
}

void BreakdownChart::refresh() {
    collectRows();
    fillBars();
    drawSpreads();
    labelBars();
    replot();
}

// A bar of repeats carries a whisker from the lowest to the highest of their totals.
void BreakdownChart::drawSpreads() {
    for (QCPAbstractItem* item : spreads_) plot().removeItem(item);
    spreads_.clear();
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        if (rows_[i].repeats < 2) continue;
        auto* whisker = new QCPItemLine(&plot());
        whisker->setPen(QPen(QColor(40, 40, 40), 1.5));
        whisker->start->setCoords(static_cast<double>(i + 1), rows_[i].lowMs);
        whisker->end->setCoords(static_cast<double>(i + 1), rows_[i].highMs);
        whisker->setHead(QCPLineEnding(QCPLineEnding::esBar, 10));
        whisker->setTail(QCPLineEnding(QCPLineEnding::esBar, 10));
        spreads_.push_back(whisker);
    }
}

void BreakdownChart::collectRows() {
    rows_.clear();
    leftOut_.clear();
    const auto baselineId = store().effectiveBaseline();
    const RunEntry* base = baselineId ? store().find(*baselineId) : nullptr;
    std::vector<std::vector<Row>> groups;
    std::map<std::string, std::size_t> groupOf;
    for (const RunEntry& run : store().runs()) {
        if (!run.visible) continue;
        if (const auto difference = base ? workloadDifference(base->record, run.record) : std::nullopt) {
            leftOut_ << run.name + ": not comparable: " + QString::fromStdString(*difference);
            continue;
        }
        const auto b = phaseBreakdown(run.record);
        if (!b) continue;
        const auto [it, added] = groupOf.try_emplace(repeatGroupKey(run), groups.size());
        if (added) groups.emplace_back();
        groups[it->second].push_back({run.id, run.name, *b, 1, b->totalMs, b->totalMs});
    }
    for (const auto& group : groups) rows_.push_back(group.size() == 1 ? group.front() : combined(group));
    leftOutNote_->setText(leftOut_.join("\n"));
    leftOutNote_->setVisible(!leftOut_.isEmpty());
}

void BreakdownChart::fillBars() {
    std::array<QVector<double>, kPhaseCount> phaseKeys, phaseValues;
    QVector<double> fusedKeys, fusedValues;
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    double top = 0;
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        const double x = static_cast<double>(i + 1);
        const PhaseBreakdown& b = rows_[i].breakdown;
        ticker->addTick(x, b.separable ? rows_[i].name : rows_[i].name + "\n(not separable)");
        top = std::max({top, b.totalMs, rows_[i].highMs});
        if (!b.separable) {
            fusedKeys.push_back(x);
            fusedValues.push_back(b.totalMs);
            continue;
        }
        for (std::size_t p = 0; p < kPhaseCount; ++p) {
            phaseKeys[p].push_back(x);
            phaseValues[p].push_back(b.phaseMs[p]);
        }
    }
    for (std::size_t p = 0; p < kPhaseCount; ++p) phaseBars_[p]->setData(phaseKeys[p], phaseValues[p], true);
    notSeparableBars_->setData(fusedKeys, fusedValues, true);
    if (fusedKeys.isEmpty())
        notSeparableBars_->removeFromLegend();
    else if (!plot().legend->hasItemWithPlottable(notSeparableBars_))
        notSeparableBars_->addToLegend();

    plot().xAxis->setTicker(ticker);
    plot().xAxis->setTickLabelRotation(rows_.size() > 5 ? -25 : 0);  // long names side by side collide
    plot().xAxis->setRange(0.4, static_cast<double>(rows_.size()) + 0.6);
    plot().yAxis->setRange(0, top > 0 ? top * 1.2 : 1.0);  // room for the totals above the bars
    placeholder_->setVisible(rows_.empty());
}

void BreakdownChart::labelBars() {
    for (QCPItemText* label : labels_) plot().removeItem(label);
    labels_.clear();
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        const PhaseBreakdown& b = rows_[i].breakdown;
        QString text = formatMs(b.totalMs);
        // Medians of the parts add up to the median epoch only when epochs are alike; say so when not.
        if (b.separable && std::abs(b.totalMs - b.medianWallMs) > 0.15 * b.medianWallMs)
            text += "\n(median epoch " + formatMs(b.medianWallMs) + ")";
        QCPItemText* label = addValueLabel(plot(), text);
        label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        label->position->setCoords(static_cast<double>(i + 1), std::max(b.totalMs, rows_[i].highMs));
        label->setPadding(QMargins(0, 0, 0, 3));
        labels_.push_back(label);
    }
}

// Hovering a bar lists all its parts, the small ones too.
void BreakdownChart::showHoverTip(QMouseEvent* event) {
    const double key = plot().xAxis->pixelToCoord(event->position().x());
    const double value = plot().yAxis->pixelToCoord(event->position().y());
    const long index = std::lround(key) - 1;
    if (index < 0 || index >= static_cast<long>(rows_.size()) || std::abs(key - std::round(key)) > kBarWidth / 2) {
        QToolTip::hideText();
        return;
    }
    const Row& row = rows_[static_cast<std::size_t>(index)];
    if (value < 0 || value > row.breakdown.totalMs) {
        QToolTip::hideText();
        return;
    }
    QString text = "<b>" + row.name.toHtmlEscaped() + "</b>";
    if (!row.breakdown.separable) text += "<br>phases not separable on this path";
    for (std::size_t p = 0; row.breakdown.separable && p < kPhaseCount; ++p)
        text += "<br>" + phaseNames()[p] + ": " + formatMs(row.breakdown.phaseMs[p]);
    text += "<br>total: " + formatMs(row.breakdown.totalMs);
    if (row.repeats > 1)
        text += QString("<br>%1 repeats: each part their median; totals from %2 to %3")
                    .arg(row.repeats)
                    .arg(formatMs(row.lowMs), formatMs(row.highMs));
    if (row.breakdown.separable)  // medians of the parts need not add up to the median epoch
        text += "<br>median epoch (wall): " + formatMs(row.breakdown.medianWallMs);
    QToolTip::showText(event->globalPosition().toPoint(), text, &plot());
}

}  // namespace wb::gui
