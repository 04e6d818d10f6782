#include "experiment_report.h"

#include <QDateTime>
#include <QFileInfo>
#include <algorithm>
#include <map>
#include <set>

#include <qcustomplot.h>

#include "errors.h"
#include "framework_backend.h"
#include "metric_chart.h"
#include "quality_metric.h"
#include "run_config.h"
#include "run_store.h"
#include "speed_comparison.h"
#include "speedup_chart.h"
#include "waterfall_chart.h"

namespace wb::gui {

namespace {
const QSize kChartLayout(900, 470);  // pixels: the fonts and lines of a chart on a third of a page

QString esc(const std::string& text) {
    return QString::fromStdString(text).toHtmlEscaped();
}

QString ms(const std::optional<double>& v) {
    return v ? formatMs(*v) : QString("\u2013");
}

QString figure(const std::optional<double>& v, int decimals = 4) {
    return v ? QString::number(*v, 'f', decimals) : QString("\u2013");
}

// A table: one header row, then the rows; cells are HTML already (escape text first).
QString table(const QStringList& header, const std::vector<QStringList>& rows, const std::set<int>& numeric = {}) {
    QString html = "<table width='100%' border='0.5' cellspacing='0'><tr>";
    for (const auto& h : header) html += "<th>" + h + "</th>";
    html += "</tr>";
    for (const auto& row : rows) {
        html += "<tr>";
        for (int i = 0; i < row.size(); ++i) html += (numeric.count(i) ? "<td class='n'>" : "<td>") + row[i] + "</td>";
        html += "</tr>";
    }
    return html + "</table>";
}

std::optional<RunConfig> configOf(const RunRecord& r) {
    try {
        return r.config.get<RunConfig>();
    } catch (const std::exception&) {  // a peer's record: what it wrote is not a full configuration
        return std::nullopt;
    }
}

// "data_path=device_resident, loss=bce_with_logits, ..." of a run (peers: what their record says).
QString settingsOf(const RunRecord& r) {
    const auto config = configOf(r);
    if (!config) return esc(r.config.value("backend", std::string("peer")));
    QStringList parts;
    for (const auto& s : describeSwitches(config->execution)) parts << esc(s.name + "=" + s.value);
    return parts.join(", ");
}

QString modelOf(const RunConfig& c) {
    QStringList widths;
    for (int w : c.model.hidden) widths << QString::number(w);
    return QString("%1 hidden, %2; %3, lr %4; batch %5, %6 epochs")
        .arg(widths.join("\u2192"), esc(toString(c.model.activation)), esc(toString(c.optimizer.kind)))
        .arg(c.optimizer.lr)
        .arg(c.train.batchSize)
        .arg(c.train.epochs);
}

std::optional<TimeSpread> spreadOf(const RunRecord& r) {
    return timeSpread(std::vector<const RunRecord*>{&r});
}

QString header(const ReportSources& s) {
    QString html = "<h1>Why is this training slow?</h1><p class='lead'>An experiment report by MLP Workbench, " +
                   QDateTime::currentDateTime().toString("d MMMM yyyy, HH:mm") + ".</p>";
    html +=
        "<h2>The question</h2><p>The same small network trains many times faster one way than another: "
        "the founding case, a 61\u219220\u219210\u21921 MLP with Adam at batch 2048, took about 10 s with "
        "Keras and 70 s with a plain PyTorch loop. The suspects are how the data reaches each step (a "
        "DataLoader gathering rows one by one, a copy per batch), how the step is launched (one kernel per "
        "operation, a host sync each step), the loss (Sigmoid + BCELoss), duplicate gradient zeroing and "
        "the precision. This report measures each of them on the runs below, with repeats, and says "
        "which one costs the time.</p>";
    const auto runs = s.chartedRuns();
    if (!runs.empty())
        if (const auto c = configOf(runs.front())) html += "<p><b>The workload:</b> " + modelOf(*c) + ".</p>";
    return html;
}

QString conclusionHtml(const ReportSources& s) {
    QString html = "<h2>Conclusion</h2>";
    for (const QString& line : reportConclusion(s)) html += "<p>" + line.toHtmlEscaped() + "</p>";
    return html;
}

QString datasetHtml(const std::vector<RunRecord>& runs) {
    std::vector<QStringList> rows;
    std::set<std::string> seen;
    for (const auto& r : runs) {
        const DatasetDescription& d = r.dataset;
        if (!seen.insert(d.hash + d.source).second) continue;
        rows.push_back({esc(d.source.empty() ? "(not recorded)" : d.source), QString::number(d.rows),
                        QString::number(d.features), esc(d.label), esc(toString(d.task)),
                        QString("%1 / %2").arg(d.trainRows).arg(d.valRows), esc(d.hash.substr(0, 23))});
    }
    return "<h2>Data set</h2>" +
           table({"source", "rows", "features", "label", "task", "train / validation", "hash"}, rows, {1, 2});
}

QString runsHtml(const std::vector<RunRecord>& runs) {
    std::vector<QStringList> rows;
    for (const auto& r : runs) {
        const RunSummary sum = r.summary();
        const auto spread = spreadOf(r);
        const QualityMetric q = qualityFor(r.dataset.task);
        const auto final = sum.final;
        rows.push_back({esc(r.name), esc(r.config.value("backend", std::string("?"))), ms(sum.medianEpochMs),
                        spread ? formatMs(spread->low) + " \u2013 " + formatMs(spread->high) : QString("\u2013"),
                        final ? figure(final->trainLoss) : QString("\u2013"),
                        final ? figure(final->valLoss) : QString("\u2013"),
                        final ? figure(qualityValue(q, *final, final->valLoss.has_value())) : QString("\u2013"),
                        esc(toString(r.status))});
    }
    QString html =
        "<h2>Runs</h2><p class='small'>Median epoch time without the warm-up epoch, and the range of "
        "the timed epochs; the final training and validation loss, and the task's metric.</p>";
    html += table({"run", "backend", "median", "spread", "train loss", "val loss", "metric", "status"}, rows,
                  {2, 3, 4, 5, 6});
    // Each run's model and switches, under the table (long lines would squeeze its columns).
    html += "<p class='small'>";
    for (const auto& r : runs) {
        const auto c = configOf(r);
        html += "<b>" + esc(r.name) + "</b>: " + (c ? modelOf(*c) + "; " : QString()) + settingsOf(r) + "<br>";
    }
    return html + "</p>";
}

QString environmentHtml(const std::vector<RunRecord>& runs) {
    std::map<std::string, std::map<std::string, std::string>> byBackend;  // one environment per backend
    for (const auto& r : runs) {
        const std::string backend = r.config.value("backend", std::string("?"));
        if (!byBackend.count(backend)) byBackend[backend] = r.environment;
    }
    QString html = "<h2>Environment</h2>";
    for (const auto& [backend, env] : byBackend) {
        std::vector<QStringList> rows;
        for (const auto& [key, value] : env) rows.push_back({esc(key), esc(value)});
        html += "<p><b>" + esc(backend) + "</b></p>" + table({"", ""}, rows);
    }
    return html;
}

QString ablationHtml(const AblationResult& a, const std::string& who) {
    std::vector<QStringList> rows;
    for (const auto& s : a.steps)
        rows.push_back({esc(s.name), s.measured() ? formatMs(s.medianEpochMs) : QString("\u2013"),
                        s.measured() ? formatMs(s.minEpochMs) + " \u2013 " + formatMs(s.maxEpochMs) : QString("\u2013"),
                        formatMs(s.savedMs),
                        s.share ? QString::number(*s.share * 100, 'f', 0) + "%" : QString("\u2013"),
                        esc(toString(s.status)) + (s.message.empty() ? QString() : ": " + esc(s.message))});
    const auto gap = a.gapComparison();
    return "<h2>Ablation on " + esc(who) + "</h2><p>From the seed loop, the fixes applied one at a time, " +
           QString::number(a.plan.repeats) + " run(s) each" +
           (gap ? ": the fixed loop is " + esc(gap->label()) + " than the seed loop." : QString(".")) + "</p>" +
           table({"step", "median", "spread (min \u2013 max)", "saved", "share", "status"}, rows, {1, 2, 3, 4});
}

QString sweepHtml(const ReportSweep& s) {
    return "<h2>Sweep " + esc(s.report.sweepName) + "</h2><p class='small'>" + s.folder.toHtmlEscaped() + "</p><pre>" +
           esc(sweep::reportText(s.report)) + "</pre>";
}

// The fixed loop's settings: the answer's (on the report's framework) or an ablation's last
// measured step, else the fastest run's.
std::optional<RunConfig> fixedLoopConfig(const ReportSources& s, const std::string& framework) {
    std::vector<const AblationResult*> ablations;
    if (s.answer)
        for (const auto& e : s.answer->engines)
            if (e.ablation && e.engine == framework) ablations.push_back(&*e.ablation);
    if (s.answer)
        for (const auto& e : s.answer->engines)
            if (e.ablation) ablations.push_back(&*e.ablation);
    for (const auto& a : s.ablations) ablations.push_back(&a);
    for (const AblationResult* a : ablations) {
        if (const AblationStep* fixed = a->fixedLoop())
            if (auto c = configOf(fixed->runs.front())) return c;
    }
    const RunRecord* fastest = nullptr;
    for (const auto& r : s.runs) {
        const auto m = r.summary().medianEpochMs;
        if (m && configOf(r) && (!fastest || *m < *fastest->summary().medianEpochMs)) fastest = &r;
    }
    return fastest ? configOf(*fastest) : std::nullopt;
}

QString codeHtml(const ReportSources& s) {
    const std::string framework = reportFramework(s);
    auto config = fixedLoopConfig(s, framework);
    if (!config) return {};
    config->backend = framework;
    std::string code;
    try {
        code = frameworkScript(*config);
    } catch (const Error& e) {
        return "<h2>The fixed loop</h2><p>Its " + esc(framework) + " code cannot be written: " + esc(e.what()) + "</p>";
    }
    return "<h2>The fixed loop in " +
           esc(framework == "torch"   ? "PyTorch"
               : framework == "keras" ? "Keras"
                                      : "JAX") +
           "</h2><p class='small'>The loop the workbench runs for the fixed settings, as a script of your own "
           "(also: mlpwb export). Run it with: python3 loop.py --data x.npy --labels y.npy</p><pre>" +
           esc(code) + "</pre>";
}

// A chart of the runs, off screen, in its own store; the slowest run is the speedup's baseline.
template <typename Chart, typename... Args>
Chart& addRunsChart(ReportDocument& doc, const std::vector<RunRecord>& runs, const QString& caption, Args... args) {
    auto holder = std::make_unique<QWidget>();
    auto* store = new RunStore(holder.get());
    std::optional<std::pair<double, int>> slowest;
    for (const auto& r : runs) {
        const int id = store->addRecord(r, {});
        if (const auto m = r.summary().medianEpochMs; m && (!slowest || *m > slowest->first)) slowest = {{*m, id}};
    }
    if (slowest) store->setBaseline(slowest->second);
    auto* chart = new Chart(store, args..., holder.get());
    chart->resize(kChartLayout);
    QCustomPlot& plot = chart->plot();
    doc.addChart(std::move(holder), plot, kChartLayout, caption);
    return *chart;
}

// Epoch times that span more than a decade read on a logarithmic axis (a seed loop 80x slower
// would flatten the others onto zero).
bool spansDecades(const std::vector<RunRecord>& runs) {
    std::vector<double> medians;
    for (const auto& r : runs)
        if (const auto m = r.summary().medianEpochMs; m && *m > 0) medians.push_back(*m);
    if (medians.size() < 2) return false;
    const auto [low, high] = std::minmax_element(medians.begin(), medians.end());
    return *high / *low > 20;
}

void addWaterfall(ReportDocument& doc, const AblationResult& a, const std::string& who) {
    auto chart = std::make_unique<WaterfallChart>();
    chart->resize(kChartLayout);
    chart->setResult(a);
    QCustomPlot& plot = chart->plot();
    doc.addChart(std::move(chart), plot, kChartLayout,
                 QString::fromStdString("What each fix saved on " + who + " (ms per epoch; whiskers: the spread)"));
}
}  // namespace

QStringList reportConclusion(const ReportSources& s) {
    QStringList lines;
    if (s.answer) {
        for (const auto& l : s.answer->conclusion()) lines << QString::fromStdString(l);
        return lines;
    }
    for (const auto& a : s.ablations) {
        Answer one;  // an ablation says what an answer with one engine says
        AnswerEngine e;
        e.engine = a.backend;
        e.available = true;
        e.device = a.device;
        e.ablation = a;
        one.engines.push_back(e);
        one.status = AnswerStatus::Completed;
        lines << QString::fromStdString(one.conclusion().front());
    }
    // The runs: the fastest against the slowest, with the spread of their epochs.
    const RunRecord *fastest = nullptr, *slowest = nullptr;
    for (const auto& r : s.runs) {
        const auto m = r.summary().medianEpochMs;
        if (!m) continue;
        if (!fastest || *m < *fastest->summary().medianEpochMs) fastest = &r;
        if (!slowest || *m > *slowest->summary().medianEpochMs) slowest = &r;
    }
    if (fastest && slowest && fastest != slowest) {
        const auto cmp = compareSpeed(*spreadOf(*slowest), *spreadOf(*fastest));
        lines << QString::fromStdString("Of the runs, " + fastest->name + " is the fastest: " + cmp.label() + " than " +
                                        slowest->name + " (" +
                                        formatMs(*slowest->summary().medianEpochMs).toStdString() + " \u2192 " +
                                        formatMs(*fastest->summary().medianEpochMs).toStdString() + " per epoch).");
    }
    for (const auto& sw : s.sweeps)
        if (sw.report.bestId)
            lines << QString::fromStdString("In the sweep " + sw.report.sweepName + ", the best trial is " +
                                            sw.report.bestName + " (" + sw.report.metric.name + " " +
                                            sweep::figureText(sw.report.bestMetric) + ").");
    if (lines.isEmpty()) lines << "Nothing in these files was measured.";
    return lines;
}

std::string reportFramework(const ReportSources& s) {
    for (const auto& r : s.chartedRuns()) {
        const std::string backend = r.config.value("backend", std::string());
        if (backend == "torch" || backend == "keras" || backend == "jax") return backend;
    }
    return "torch";
}

ReportDocument buildReport(const ReportSources& s) {
    if (s.empty()) throw ConfigError("a report needs run files, ablations, an answer or sweep folders");
    ReportDocument doc;
    doc.addHtml(header(s) + conclusionHtml(s));
    const auto runs = s.chartedRuns();
    if (!runs.empty()) {
        auto& times =
            addRunsChart<MetricChart>(doc, runs, "Time per epoch of each run (the hollow circle: the warm-up epoch)",
                                      MetricChart::Kind::EpochTime);
        times.setLogScale(spansDecades(runs));
        times.refreshNow();
        if (runs.size() > 1)
            addRunsChart<SpeedupChart>(doc, runs,
                                       "Speed of each run against the slowest, with the spread of its epochs")
                .refreshNow();
    }
    if (s.answer)
        for (const auto& e : s.answer->engines)
            if (e.ablation) addWaterfall(doc, *e.ablation, e.engine);
    for (const auto& a : s.ablations) addWaterfall(doc, a, a.backend);
    if (!runs.empty()) {
        addRunsChart<MetricChart>(doc, runs, "Training loss (solid) and validation loss (dashed) per epoch",
                                  MetricChart::Kind::Loss)
            .refreshNow();
        doc.addHtml(runsHtml(runs));
        doc.addHtml(datasetHtml(runs));
    }
    if (s.answer)
        for (const auto& e : s.answer->engines)
            if (e.ablation) doc.addHtml(ablationHtml(*e.ablation, e.engine));
    for (const auto& a : s.ablations) doc.addHtml(ablationHtml(a, a.backend));
    for (const auto& sw : s.sweeps) doc.addHtml(sweepHtml(sw));
    if (!runs.empty()) doc.addHtml(environmentHtml(runs));
    if (const QString code = codeHtml(s); !code.isEmpty()) doc.addHtml(code);
    return doc;
}

void writeReport(const ReportSources& sources, const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix != "pdf" && suffix != "html" && suffix != "htm")
        throw ConfigError("a report is written as .pdf or .html, not '" + path.toStdString() + "'");
    const ReportDocument doc = buildReport(sources);
    const QString title = "Why is this training slow? \u2014 MLP Workbench report";
    if (suffix == "pdf")
        doc.writePdf(path, title);
    else
        doc.writeHtml(path, title);
}

}  // namespace wb::gui
