#include "speedup_chart.h"

#include <QVBoxLayout>
#include <algorithm>

#include <qcustomplot.h>

#include "chart_style.h"
#include "run_store.h"

namespace wb::gui {

namespace {
constexpr int kRefreshIntervalMs = 33;
constexpr double kBarWidth = 0.6;
}  // namespace

QString formatSpeedup(double speedup) {
    return QString::number(speedup, 'f', speedup < 1.0 ? 2 : 1) + QChar(0x00D7);
}

SpeedupChart::SpeedupChart(RunStore* store, QWidget* parent)
    : QWidget(parent), store_(store), plot_(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);

    // Run names on the left read better than rotated names below vertical bars.
    title_ = applyChartStyle(*plot_, "Speedup over the baseline", LegendPlace::None);
    plot_->yAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    plot_->yAxis->setRangeReversed(true);  // the first run on top, as in the runs table
    plot_->yAxis->grid()->setVisible(false);
    plot_->xAxis->setLabel("Times faster than the baseline (baseline median epoch / run median epoch)");
    placeholder_ = addPlaceholder(*plot_, "No runs with epochs to compare yet");

    baselineLine_ = new QCPItemStraightLine(plot_);
    baselineLine_->setPen(QPen(QColor(90, 90, 90), 1.5, Qt::DashLine));
    baselineLine_->point1->setCoords(1, 0);
    baselineLine_->point2->setCoords(1, 1);
    baselineLine_->setSelectable(false);

    refreshTimer_.setSingleShot(true);
    refreshTimer_.setInterval(kRefreshIntervalMs);
    connect(&refreshTimer_, &QTimer::timeout, this, &SpeedupChart::refresh);
    connect(store_, &RunStore::runAdded, this, &SpeedupChart::scheduleRefresh);
    connect(store_, &RunStore::runChanged, this, &SpeedupChart::scheduleRefresh);
    connect(store_, &RunStore::epochAppended, this, &SpeedupChart::scheduleRefresh);
    connect(store_, &RunStore::runRemoved, this, &SpeedupChart::scheduleRefresh);
    connect(store_, &RunStore::baselineChanged, this, &SpeedupChart::scheduleRefresh);
    scheduleRefresh();
}

void SpeedupChart::refreshNow() {
    refresh();
}

void SpeedupChart::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (replotPending_) replot();
}

void SpeedupChart::scheduleRefresh() {
    if (!refreshTimer_.isActive()) refreshTimer_.start();
}

void SpeedupChart::refresh() {
    refreshTimer_.stop();
    collectRows(chooseBaseline());
    drawBars();
    replot();
}

// The user's baseline, else the first run with a median, so a Compare shows an answer at once.
std::optional<double> SpeedupChart::chooseBaseline() {
    baselineRun_.reset();
    std::vector<const RunEntry*> candidates;
    if (const auto picked = store_->baseline())
        if (const RunEntry* run = store_->find(*picked)) candidates.push_back(run);
    for (const RunEntry& run : store_->runs()) candidates.push_back(&run);
    for (const RunEntry* run : candidates) {
        const auto ms = run->record.summary().medianEpochMs;
        if (!ms || *ms <= 0) continue;
        baselineRun_ = run->id;
        title_->setText("Speedup over \u201C" + run->name + "\u201D (median epoch time)");
        return ms;
    }
    title_->setText("Speedup over the baseline");
    return std::nullopt;
}

void SpeedupChart::collectRows(std::optional<double> baseMs) {
    rows_.clear();
    for (const RunEntry& run : store_->runs()) {
        if (!run.visible) continue;
        Row row{run.id, run.name, std::nullopt, run.id == baselineRun_};
        const auto ms = run.record.summary().medianEpochMs;
        if (baseMs && ms && *ms > 0) row.speedup = *baseMs / *ms;
        rows_.push_back(row);
    }
}

void SpeedupChart::clearDrawing() {
    for (QCPAbstractPlottable* bars : bars_) plot_->removePlottable(bars);
    for (QCPItemText* label : labels_) plot_->removeItem(label);
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
        const RunEntry* run = store_->find(row.runId);
        const double value = row.speedup.value_or(0.0);
        top = std::max(top, value);
        auto* bars = new QCPBars(plot_->yAxis, plot_->xAxis);
        bars->setWidth(kBarWidth);
        bars->setBrush(run ? run->color : neutralColor());
        bars->setPen(row.baseline ? QPen(QColor(40, 40, 40), 2) : QPen(Qt::NoPen));
        bars->addData(key, value);
        bars_.push_back(bars);

        QString text = row.speedup ? formatSpeedup(*row.speedup) : QString("no epochs yet");
        if (row.baseline) text += " (baseline)";
        QCPItemText* label = addValueLabel(*plot_, text);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        label->position->setCoords(value, key);
        label->setPadding(QMargins(6, 0, 0, 0));
        labels_.push_back(label);
    }
    plot_->yAxis->setTicker(ticker);
    plot_->yAxis->setRange(0.4, static_cast<double>(rows_.size()) + 0.6);
    plot_->xAxis->setRange(0, top * 1.2);  // room for the labels right of the longest bar
    baselineLine_->setVisible(baselineRun_.has_value() && !rows_.empty());
    placeholder_->setVisible(rows_.empty() || !baselineRun_);
}

void SpeedupChart::replot() {
    if (!isVisible()) {
        replotPending_ = true;
        return;
    }
    replotPending_ = false;
    plot_->replot();
    ++replotCount_;
}

}  // namespace wb::gui
