#include "gui/charts/headless_export.h"

#include <cstdio>

#include <QApplication>
#include <QRegularExpression>
#include <cstring>
#include <iostream>
#include <stdexcept>
#include <vector>

#include "core/platform/errors.h"
#include "gui/charts/breakdown_chart.h"
#include "gui/charts/chart_export.h"
#include "gui/charts/metric_chart.h"
#include "gui/charts/speedup_chart.h"
#include "gui/charts/waterfall_chart.h"
#include "gui/runs/run_store.h"
#include "gui/sweeps/metric_by_parameter_chart.h"
#include "gui/sweeps/parallel_coordinates_chart.h"
#include "gui/sweeps/sweep_axes.h"
#include "gui/sweeps/sweep_watcher.h"

namespace wb::gui {

namespace {
constexpr int kExitUsage = 2;
constexpr int kExitBadFile = 3;
constexpr int kExitWrite = 6;
const QStringList kCharts = {"loss",    "accuracy",  "epoch-time",           "breakdown",
                             "speedup", "waterfall", "parallel-coordinates", "metric-by-parameter"};

bool isSweepChart(const QString& chart) {
    return chart == "parallel-coordinates" || chart == "metric-by-parameter";
}

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Options {
    QString chart;
    QStringList runs;
    QString ablation;   // the ablation JSON of the waterfall chart
    QString sweep;      // the sweep folder of the sweep charts
    QString parameter;  // metric-by-parameter: the parameter (default: the first)
    QString out;
    int width = 1600;
    int height = 900;
    double scale = 1.0;
    int baseline = 1;  // 1-based position in --runs
    bool logScale = false;
    MetricChart::Repeats repeats = MetricChart::Repeats::EachRun;  // loss, accuracy, epoch-time
};

int fail(int code, const std::string& message) {
    std::cerr << "mlp-workbench: " << message << std::endl;
    return code;
}

QString valueOf(const QStringList& args, qsizetype& i) {
    if (i + 1 >= args.size() || args[i + 1].startsWith("--"))
        throw UsageError(args[i].toStdString() + " needs a value");
    return args[++i];
}

void parseSize(const QString& text, Options& o) {
    static const QRegularExpression pattern("^(\\d{2,5})[xX](\\d{2,5})$");
    const auto match = pattern.match(text);
    if (!match.hasMatch())
        throw UsageError("--size wants WIDTHxHEIGHT in pixels (points for a .pdf page), e.g. 1600x900, not '" +
                         text.toStdString() + "'");
    o.width = match.captured(1).toInt();
    o.height = match.captured(2).toInt();
    if (o.width < 100 || o.height < 100 || o.width > 16384 || o.height > 16384)
        throw UsageError("--size " + text.toStdString() + " is out of range (100 to 16384 pixels or points a side)");
}

double parseNumber(const QString& flag, const QString& text, double low, double high) {
    bool ok = false;
    const double v = text.toDouble(&ok);
    if (!ok || v < low || v > high)
        throw UsageError((flag + " wants a number from " + QString::number(low) + " to " + QString::number(high) +
                          ", not '" + text + "'")
                             .toStdString());
    return v;
}

void checkComplete(const Options& o) {
    if (!kCharts.contains(o.chart))
        throw UsageError("--export-chart wants one of " + kCharts.join(", ").toStdString() + ", not '" +
                         o.chart.toStdString() + "'");
    if (o.chart == "waterfall" && o.ablation.isEmpty())
        throw UsageError("--export-chart waterfall wants --ablation ABLATION.json (written by mlpwb ablate)");
    if (isSweepChart(o.chart) && o.sweep.isEmpty())
        throw UsageError("--export-chart " + o.chart.toStdString() + " wants --sweep DIR (a folder of mlpwb sweep)");
    const bool ofRuns = o.chart != "waterfall" && !isSweepChart(o.chart);
    if (ofRuns && o.runs.isEmpty()) throw UsageError("--runs wants one or more RunRecord JSON files");
    if (o.out.isEmpty()) throw UsageError("--out wants the chart file to write (.png, .jpg, .pdf or .svg)");
    if (!chartFormatForPath(o.out))
        throw UsageError("--out " + o.out.toStdString() + ": the name must end in .png, .jpg, .pdf or .svg");
    if (ofRuns && o.baseline > o.runs.size())
        throw UsageError("--baseline " + std::to_string(o.baseline) + " is beyond the " +
                         std::to_string(o.runs.size()) + " file(s) of --runs");
}

Options parseOptions(const QStringList& args) {
    Options o;
    const qsizetype first = !args.isEmpty() && !args[0].startsWith("--") ? 1 : 0;  // skip the program name
    for (qsizetype i = first; i < args.size(); ++i) {
        const QString& flag = args[i];
        if (flag == "--export-chart") {
            o.chart = valueOf(args, i);
        } else if (flag == "--runs") {
            while (i + 1 < args.size() && !args[i + 1].startsWith("--")) o.runs << args[++i];
        } else if (flag == "--ablation") {
            o.ablation = valueOf(args, i);
        } else if (flag == "--sweep") {
            o.sweep = valueOf(args, i);
        } else if (flag == "--parameter") {
            o.parameter = valueOf(args, i);
        } else if (flag == "--out") {
            o.out = valueOf(args, i);
        } else if (flag == "--size") {
            parseSize(valueOf(args, i), o);
        } else if (flag == "--scale") {
            o.scale = parseNumber(flag, valueOf(args, i), 0.25, 8);
        } else if (flag == "--log") {
            o.logScale = true;
        } else if (flag == "--repeats") {
            const QString how = valueOf(args, i);
            if (how != "each" && how != "median" && how != "mean")
                throw UsageError("--repeats wants each, median (min-max band) or mean (95 % CI band), not '" +
                                 how.toStdString() + "'");
            o.repeats = how == "each"     ? MetricChart::Repeats::EachRun
                        : how == "median" ? MetricChart::Repeats::MedianRange
                                          : MetricChart::Repeats::MeanInterval;
        } else if (flag == "--baseline") {
            o.baseline = static_cast<int>(parseNumber(flag, valueOf(args, i), 1, 1e6));
        } else {
            throw UsageError("unknown argument '" + flag.toStdString() + "'");
        }
    }
    checkComplete(o);
    return o;
}

// Builds the chart off screen, applies its data at once (no timer), and writes it.
void renderChart(const Options& o, RunStore& store) {
    if (o.chart == "breakdown") {
        BreakdownChart chart(&store);
        chart.refreshNow();
        exportChart(chart.plot(), o.out, o.width, o.height, o.scale);
        for (const QString& line : chart.leftOut()) std::printf("left out: %s\n", qPrintable(line));
    } else if (o.chart == "speedup") {
        SpeedupChart chart(&store);
        chart.refreshNow();
        exportChart(chart.plot(), o.out, o.width, o.height, o.scale);
        for (const QString& line : chart.leftOut()) std::printf("left out: %s\n", qPrintable(line));
        // The note the window shows under the chart: which differing switches ran, which did nothing.
        for (const QString& line : chart.switchesNote().split('\n', Qt::SkipEmptyParts))
            std::printf("switches: %s\n", qPrintable(line));
    } else {
        const auto kind = o.chart == "loss"       ? MetricChart::Kind::Loss
                          : o.chart == "accuracy" ? MetricChart::Kind::Accuracy
                                                  : MetricChart::Kind::EpochTime;
        MetricChart chart(&store, kind);
        chart.setLogScale(o.logScale);
        chart.setRepeats(o.repeats);
        chart.refreshNow();
        exportChart(chart.plot(), o.out, o.width, o.height, o.scale);
    }
}
// The waterfall of an ablation JSON (it is not a set of runs, so it does not go through a RunStore).
int exportWaterfall(const Options& o) {
    AblationResult result;
    try {
        result = AblationResult::load(o.ablation.toStdString());
    } catch (const Error& e) {
        return fail(kExitBadFile, e.what());
    }
    WaterfallChart chart;
    chart.setResult(result);
    try {
        exportChart(chart.plot(), o.out, o.width, o.height, o.scale);
    } catch (const ConfigError& e) {
        return fail(kExitUsage, e.what());
    } catch (const Error& e) {
        return fail(kExitWrite, e.what());
    }
    return 0;
}

// A sweep folder's chart, as the Sweeps view draws it with nothing brushed or selected.
int exportSweepChart(const Options& o) {
    SweepWatcher watcher;
    try {
        watcher.open(o.sweep);
    } catch (const Error& e) {
        return fail(kExitBadFile, e.what());
    }
    const auto& views = watcher.views();
    const SweepAxes axes = SweepAxes::build(watcher.plan(), views);
    ParallelCoordinatesChart parallel;
    MetricByParameterChart byParameter;
    QCustomPlot* plot = &parallel.plot();
    if (o.chart == "parallel-coordinates") {
        parallel.setTrials(axes, views, watcher.plan().metric, watcher.best(), std::vector<bool>(views.size(), true),
                           std::vector<bool>(views.size(), false), {});
    } else {
        byParameter.setTrials(watcher.plan(), views, axes, watcher.best());
        if (!o.parameter.isEmpty()) {
            const int at = byParameter.parameterChoice().findText(o.parameter);
            if (at < 0)
                return fail(kExitUsage,
                            "--parameter " + o.parameter.toStdString() + ": the sweep varies no such parameter");
            byParameter.parameterChoice().setCurrentIndex(at);
        }
        plot = &byParameter.plot();
    }
    try {
        exportChart(*plot, o.out, o.width, o.height, o.scale);
    } catch (const Error& e) {
        return fail(kExitWrite, e.what());
    }
    return 0;
}
}  // namespace

int runHeadlessExport(const QStringList& args) {
    if (!qobject_cast<QApplication*>(QCoreApplication::instance()))
        return fail(1, "the chart export needs a QApplication");
    Options options;
    try {
        options = parseOptions(args);
    } catch (const UsageError& e) {
        return fail(kExitUsage, e.what());
    }
    if (options.chart == "waterfall") return exportWaterfall(options);
    if (isSweepChart(options.chart)) return exportSweepChart(options);
    RunStore store;
    std::vector<int> ids;
    try {
        for (const QString& path : options.runs) ids.push_back(store.addFromFile(path));
    } catch (const Error& e) {
        return fail(kExitBadFile, e.what());
    }
    store.setBaseline(ids[static_cast<std::size_t>(options.baseline - 1)]);
    try {
        renderChart(options, store);
    } catch (const ConfigError& e) {
        return fail(kExitUsage, e.what());
    } catch (const Error& e) {
        return fail(kExitWrite, e.what());
    }
    return 0;
}

void prepareHeadlessPlatform(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        if ((std::strcmp(argv[i], "--export-chart") == 0 || std::strcmp(argv[i], "--report") == 0) &&
            qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
            qputenv("QT_QPA_PLATFORM", "offscreen");
            return;
        }
}

}  // namespace wb::gui
