// The metric chart's hover label: what the crosshair (chart_interaction.h) lists at the cursor's x.
#include <QStringList>
#include <cmath>

#include <qcustomplot.h>

#include "gui/charts/metric_chart.h"
#include "gui/runs/run_store.h"

namespace wb::gui {

namespace {
// The index of the point of `graph` whose key is nearest `key`; -1 for an empty graph.
int nearestIndex(const QCPGraph* graph, double key) {
    const auto& data = *graph->data();
    if (data.isEmpty()) return -1;
    auto it = data.findBegin(key, false);  // the first point at or after key
    if (it == data.constEnd()) return data.size() - 1;
    int i = static_cast<int>(it - data.constBegin());
    if (i > 0 && key - data.at(i - 1)->key < it->key - key) --i;
    return i;
}

}  // namespace

QString MetricChart::formatKey(double key) const {
    switch (xAxis_) {
        case XAxis::Epoch: return QString("epoch %1").arg(std::lround(key));
        case XAxis::ElapsedTime: return QString("%1 s").arg(key, 0, 'f', 2);
        case XAxis::SamplesSeen: return QString("%L1 samples").arg(std::llround(key));
    }
    return {};
}

// One line per visible run: its value at the point nearest the cursor, as TensorBoard's hover
// table. A run with no point within `tolerance` of the cursor is left out (it ended earlier).
QString MetricChart::crosshairText(double key) const {
    const double visibleWidth = plot().xAxis->range().size();
    QStringList lines;
    for (const RunGraphs& g : graphs_) {
        const QString line = runLine(g, key, 0.01 * visibleWidth);
        if (!line.isEmpty()) lines << line;
    }
    if (lines.isEmpty()) return {};
    // A label taller than the plot helps nobody: the first runs, then how many more there are.
    constexpr qsizetype kMostLines = 15;
    if (lines.size() > kMostLines) {
        const qsizetype more = lines.size() - (kMostLines - 1);
        lines.resize(kMostLines - 1);
        lines << QString("… and %1 more runs").arg(more);
    }
    return formatKey(key) + "\n" + lines.join('\n');
}

QString MetricChart::runLine(const RunGraphs& g, double key, double tolerance) const {
    const RunEntry* run = store().find(g.runId);
    if (!run || !g.train || g.train->dataCount() == 0) return {};
    // Half the run's own spacing of points: the cursor is "at" an epoch until halfway to the next.
    const auto& points = *g.train->data();
    const double spacing =
        points.size() > 1 ? (points.at(points.size() - 1)->key - points.at(0)->key) / (points.size() - 1) : 1.0;
    const double near = std::max(tolerance, 0.5 * spacing);
    const int i = nearestIndex(g.train, key);
    if (std::abs(points.at(i)->key - key) > near) return {};

    if (g.bandLow) {  // a band: its configuration, the line's value and the band's, over its repeats
        QString line = g.train->name() + ": " + formatValue(points.at(i)->value) + " (" +
                       formatValue(g.bandLow->data()->at(i)->value) + "\u2013" +
                       formatValue(g.bandHigh->data()->at(i)->value) + ")";
        if (g.validation) {
            const int v = nearestIndex(g.validation, key);
            if (v >= 0) line += " · validation " + formatValue(g.validation->data()->at(v)->value);
        }
        if (xAxis_ != XAxis::Epoch) line += QString(" (epoch %1)").arg(g.trainEpochs[static_cast<std::size_t>(i)] + 1);
        return line;
    }
    const EpochMetrics& epoch = run->record.epochs[g.trainEpochs[static_cast<std::size_t>(i)]];
    QString line = run->name + ": " + formatValue(points.at(i)->value);
    if (smoothing_ > 0) line += " (raw " + formatValue(valueOf(epoch, false).value_or(0.0)) + ")";
    if (g.validation) {
        const int v = nearestIndex(g.validation, key);
        if (v >= 0) line += " · validation " + formatValue(g.validation->data()->at(v)->value);
    }
    if (xAxis_ != XAxis::Epoch) line += QString(" (epoch %1)").arg(epoch.epoch);
    if (epoch.warmup) line += " (warm-up)";
    if (g.byEpochInstead) line += " [by epoch: training rows unknown]";
    return line;
}

}  // namespace wb::gui
