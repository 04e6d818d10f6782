// MetricChart's bands: the repeats of one configuration drawn as one line with a band
// (MetricChart::Repeats), grouped by repeatGroupKey (run_repeats.h), their numbers from chart_math.h.
#include <QColor>
#include <algorithm>
#include <cmath>
#include <map>

#include <qcustomplot.h>

#include "gui/charts/metric_chart.h"
#include "gui/runs/run_repeats.h"
#include "gui/runs/run_store.h"

namespace wb::gui {

namespace {
QString bandLabel(MetricChart::Repeats repeats) {
    return repeats == MetricChart::Repeats::MeanInterval ? "mean, 95 % CI" : "median, min\u2013max";
}

}  // namespace

int MetricChart::bandCount() const {
    return static_cast<int>(
        std::count_if(graphs_.begin(), graphs_.end(), [](const RunGraphs& g) { return g.bandLow; }));
}

const QCPGraph* MetricChart::bandEdge(int runId, bool high) const {
    for (const RunGraphs& g : graphs_)
        if (g.runId == runId) return high ? g.bandHigh : g.bandLow;
    return nullptr;
}

void MetricChart::setRepeats(Repeats repeats) {
    if (repeats == repeats_) return;
    repeats_ = repeats;
    autoFit_ = true;
    markAllDirty();
}

// The shown repeats of one configuration become one band, led by the first of them (its colour, its
// place in the legend, named for the configuration); a configuration shown once stays a line.
void MetricChart::groupRepeats(std::vector<RunShape>& shape) const {
    const auto& runs = store().runs();
    std::map<std::string, std::size_t> firstOf;  // group key -> index of its first shown run
    std::vector<std::size_t> leader(shape.size(), shape.size());
    std::vector<int> count(shape.size(), 0);
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (!shape[i].visible) continue;
        leader[i] = firstOf.try_emplace(repeatGroupKey(runs[i]), i).first->second;
        ++count[leader[i]];
    }
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (leader[i] == shape.size() || count[leader[i]] < 2) continue;
        RunShape& lead = shape[leader[i]];
        shape[i].leader = lead.id;
        if (leader[i] != i) continue;
        lead.repeats = count[i];
        lead.name = QString("%1 (%2 repeats: %3)").arg(repeatedName(lead.name)).arg(count[i]).arg(bandLabel(repeats_));
    }
}

// The band's edges: no lines of their own, the space between them filled in the run's colour.
void MetricChart::addBand(RunGraphs& graphs, const RunShape& shape) {
    graphs.bandLow = addGraph(shape.name + " (band, low)", QPen(Qt::NoPen), false);
    graphs.bandHigh = addGraph(shape.name + " (band, high)", QPen(Qt::NoPen), false);
    QColor fill = shape.color;
    fill.setAlpha(56);
    graphs.bandHigh->setBrush(fill);
    graphs.bandHigh->setChannelFillGraph(graphs.bandLow);
}

// Epoch by epoch over the band's runs (each epoch of those that reached it, at the median of their x):
// the line at the median or mean, the band from the lowest to the highest value or over the mean's
// 95 % interval; smoothed as a single run's line is.
void MetricChart::fillBand(RunGraphs& graphs) const {
    const BandKind kind = repeats_ == Repeats::MeanInterval ? BandKind::MeanInterval : BandKind::MedianRange;
    std::vector<const RunEntry*> runs;
    std::vector<std::vector<double>> x;
    std::size_t epochs = 0;
    graphs.byEpochInstead = false;
    for (int id : graphs.members)
        if (const RunEntry* run = store().find(id)) {
            bool byEpoch = false;
            runs.push_back(run);
            x.push_back(xKeys(*run, xAxis_, &byEpoch));
            graphs.byEpochInstead = graphs.byEpochInstead || byEpoch;
            epochs = std::max(epochs, run->record.epochs.size());
        }
    const auto smoothed = [this](const std::vector<double>& v) {
        const std::vector<double> s = smoothExponential(v, smoothing_);
        return QVector<double>(s.begin(), s.end());
    };
    for (const bool validation : {false, true}) {
        QCPGraph* line = validation ? graphs.validation : graphs.train;
        if (!line) continue;
        std::vector<std::size_t>& index = validation ? graphs.validationEpochs : graphs.trainEpochs;
        index.clear();
        std::vector<double> keys, center, low, high;
        for (std::size_t e = 0; e < epochs; ++e) {
            std::vector<double> values, at;
            for (std::size_t k = 0; k < runs.size(); ++k) {
                if (e >= runs[k]->record.epochs.size()) continue;
                const auto v = valueOf(runs[k]->record.epochs[e], validation);
                if (!v || !std::isfinite(*v) || (logScale_ && *v <= 0)) continue;
                values.push_back(*v);
                at.push_back(x[k][e]);
            }
            if (values.empty()) continue;
            BandPoint band = repeatBand(values, kind);
            if (logScale_ && band.low <= 0) band.low = *std::min_element(values.begin(), values.end());
            keys.push_back(repeatBand(at, BandKind::MedianRange).center);
            center.push_back(band.center);
            low.push_back(band.low);
            high.push_back(band.high);
            index.push_back(e);
        }
        const QVector<double> k(keys.begin(), keys.end());
        line->setData(k, smoothed(center), true);
        showMarkersIfShort(line);
        if (!validation && graphs.bandLow) {
            graphs.bandLow->setData(k, smoothed(low), true);
            graphs.bandHigh->setData(k, smoothed(high), true);
        }
    }
    if (graphs.warmup && !runs.empty()) fillWarmup(graphs.warmup, *runs.front(), x.front());
}

}  // namespace wb::gui
