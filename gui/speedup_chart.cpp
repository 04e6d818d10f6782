#include "speedup_chart.h"

#include <algorithm>

#include <qcustomplot.h>

#include "chart_style.h"
#include "run_store.h"
#include "speed_comparison.h"
#include "workload.h"

namespace wb::gui {

namespace {
constexpr double kBarWidth = 0.6;
}  // namespace

QString formatSpeedup(double speedup) {
    return QString::number(speedup, 'f', speedup < 1.0 ? 2 : 1) + QChar(0x00D7);
}

SpeedupChart::SpeedupChart(RunStore* store, QWidget* parent) : ThrottledChart(store, parent) {
    // Run names on the left read better than rotated names below vertical bars.
    title_ = applyChartStyle(plot(), "Speedup over the baseline", LegendPlace::None);
    plot().yAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    plot().yAxis->setRangeReversed(true);  // the first run on top, as in the runs table
    plot().yAxis->grid()->setVisible(false);
    plot().xAxis->setLabel("Times faster than the baseline (baseline median epoch / run median epoch)");
    placeholder_ = addPlaceholder(plot(), "No runs with epochs to compare yet");

    baselineLine_ = new QCPItemStraightLine(&plot());
    baselineLine_->setPen(QPen(QColor(90, 90, 90), 1.5, Qt::DashLine));
    baselineLine_->point1->setCoords(1, 0);
    baselineLine_->point2->setCoords(1, 1);
    baselineLine_->setSelectable(false);

    connect(store, &RunStore::baselineChanged, this, &SpeedupChart::scheduleRefresh);
}

void SpeedupChart::refresh() {
    collectRows(chooseBaseline());
    drawBars();
    replot();
}

// The user's baseline, else the first run with a median, so a Compare shows an answer at once.
const RunEntry* SpeedupChart::chooseBaseline() {
    baselineRun_ = store().effectiveBaseline();
    if (const RunEntry* run = baselineRun_ ? store().find(*baselineRun_) : nullptr) {
        title_->setText("Speedup over \u201C" + run->name + "\u201D (median epoch time)");
        return run;
    }
    title_->setText("Speedup over the baseline");
    return nullptr;
}

void SpeedupChart::collectRows(const RunEntry* base) {
    rows_.clear();
    const auto baseSpread = base ? timeSpread({&base->record}) : std::nullopt;
    for (const RunEntry& run : store().runs()) {
        if (!run.visible) continue;
        Row row{run.id, run.name, std::nullopt, run.id == baselineRun_, {}, {}};
        if (const auto difference = base ? workloadDifference(base->record, run.record) : std::nullopt)
            row.notComparable = QString::fromStdString(*difference);
        else if (const auto spread = timeSpread({&run.record}); baseSpread && spread && spread->median > 0) {
            const SpeedComparison c = compareSpeed(*baseSpread, *spread);
            row.speedup = c.ratio;
            row.verdict = QString::fromStdString(c.label());
        }
        rows_.push_back(row);
    }
}

QStringList SpeedupChart::leftOut() const {
    QStringList lines;
    for (const Row& row : rows_)
        if (!row.notComparable.isEmpty()) lines << row.name + ": not comparable: " + row.notComparable;
    return lines;
}

void SpeedupChart::clearDrawing() {
    for (QCPAbstractPlottable* bars : bars_) plot().removePlottable(bars);
    for (QCPItemText* label : labels_) plot().removeItem(label);
    bars_.clear();
    labels_.clear();
}

// One QCPBars per run, so each bar wears its run's colour.
void SpeedupChart::drawBars() {
    clearDrawing();
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    double top = 1.0;
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        const Row& row = rows_[i];
        const double key = static_cast<double>(i + 1);
        ticker->addTick(key, row.name);
        const RunEntry* run = store().find(row.runId);
        const double value = row.speedup.value_or(0.0);
        top = std::max(top, value);
        auto* bars = new QCPBars(plot().yAxis, plot().xAxis);
        bars->setWidth(kBarWidth);
        bars->setBrush(run ? run->color : neutralColor());
        bars->setPen(row.baseline ? QPen(QColor(40, 40, 40), 2) : QPen(Qt::NoPen));
        bars->addData(key, value);
        bars_.push_back(bars);

        QString text = !row.notComparable.isEmpty() ? "not comparable: " + row.notComparable
                       : row.baseline               ? formatSpeedup(1.0) + " (baseline)"
                       : row.speedup                ? row.verdict
                                                    : QString("no epochs yet");
        QCPItemText* label = addValueLabel(plot(), text);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        label->position->setCoords(value, key);
        label->setPadding(QMargins(6, 0, 0, 0));
        labels_.push_back(label);
    }
    plot().yAxis->setTicker(ticker);
    plot().yAxis->setRange(0.4, static_cast<double>(rows_.size()) + 0.6);
    plot().xAxis->setRange(0, top * 1.2);  // room for the labels right of the longest bar
    baselineLine_->setVisible(baselineRun_.has_value() && !rows_.empty());
    placeholder_->setVisible(rows_.empty() || !baselineRun_);
}

}  // namespace wb::gui
