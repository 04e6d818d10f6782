#include "gui/report/experiment_report.h"

#include <QDateTime>
#include <QFileInfo>
#include <QLocale>
#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include <qcustomplot.h>

#include "core/measure/ablation_attribution.h"
#include "core/measure/speed_comparison.h"
#include "core/platform/errors.h"
#include "core/run/quality_metric.h"
#include "core/run/run_config.h"
#include "frameworks/fixed_loop_script.h"
#include "frameworks/framework_backend.h"
#include "frameworks/python_interpreter.h"
#include "gui/answer/shares_chart.h"
#include "gui/answer/what_was_measured.h"
#include "gui/charts/metric_chart.h"
#include "gui/charts/speedup_chart.h"
#include "gui/charts/waterfall_chart.h"
#include "gui/runs/run_store.h"

namespace wb::gui {

namespace {
const QSize kChartLayout(900, 470);  // pixels: the fonts and lines of a chart on a third of a page
// Runs drawn one by one in a chart, at most: fifty lines or bars are already more than a reader tells
// apart, and a chart's cost grows faster than its runs (QCustomPlot's legend and plottables: 5,000 runs
// took minutes to tear down). Beyond it a chart shows a sample across the speeds (chartSample), and
// the tables and the conclusion count every run.
constexpr std::size_t kMaxChartedRuns = 50;
// Rows of the runs table (and of its per-run lines) at most: the first runs as given, then how many
// more, with the range of all of them. The data set and environment tables are bounded the same way.
constexpr std::size_t kMaxTableRuns = 200;
constexpr std::size_t kMaxTableRows = 50;

QString esc(const std::string& text) {
    return QString::fromStdString(text).toHtmlEscaped();
}

QString ms(const std::optional<double>& v) {
    return v ? formatMs(*v) : QString("\u2013");
}

QString figure(const std::optional<double>& v, int decimals = 4) {
    return v ? QString::number(*v, 'f', decimals) : QString("\u2013");
}

// A table: one header row, then the rows; cells are HTML already (escape text first). `more`, when
// not empty, is a last row saying what was left out (moreRow).
QString table(const QStringList& header, const std::vector<QStringList>& rows, const std::set<int>& numeric = {},
              const QString& more = {}) {
    QString html = "<table width='100%' border='0.5' cellspacing='0'><tr>";
    for (const auto& h : header) html += "<th>" + h + "</th>";
    html += "</tr>";
    for (const auto& row : rows) {
        html += "<tr>";
        for (int i = 0; i < row.size(); ++i) html += (numeric.count(i) ? "<td class='n'>" : "<td>") + row[i] + "</td>";
        html += "</tr>";
    }
    return html + more + "</table>";
}

// "10,000": counts as a reader reads them.
QString count(std::size_t n) {
    return QLocale(QLocale::English).toString(static_cast<qulonglong>(n));
}

// The row that stands for `left` rows not shown ("… and 9,800 more runs"), spanning the table.
QString moreRow(std::size_t left, int columns, const QString& what) {
    return QString("<tr><td colspan='%1'><i>\u2026 and %2 more %3</i></td></tr>").arg(columns).arg(count(left), what);
}

// "data_path=device_resident, loss=bce_with_logits, ..." of a run (peers: what their record says).
QString settingsOf(const RunRecord& r) {
    const auto config = runConfigOf(r);
    if (!config) return esc(backendOf(r));
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
        if (const auto c = runConfigOf(runs.front())) html += "<p><b>The workload:</b> " + modelOf(*c) + ".</p>";
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
        if (!seen.insert(d.hash + d.source).second || rows.size() == kMaxTableRows) continue;
        rows.push_back({esc(d.source.empty() ? "(not recorded)" : d.source), QString::number(d.rows),
                        QString::number(d.features), esc(d.label), esc(toString(d.task)),
                        QString("%1 / %2").arg(d.trainRows).arg(d.valRows), esc(d.hash.substr(0, 23))});
    }
    const QString more = seen.size() > rows.size() ? moreRow(seen.size() - rows.size(), 7, "data sets") : QString();
    return "<h2>Data set</h2>" +
           table({"source", "rows", "features", "label", "task", "train / validation", "hash"}, rows, {1, 2}, more);
}

// "All 10,000 runs: median epoch times from 1.20 ms to 95.3 ms." for a table that lists only some.
QString allRunsLine(const std::vector<RunRecord>& runs) {
    std::optional<double> low, high;
    for (const auto& r : runs)
        if (const auto m = r.summary().medianEpochMs) {
            low = std::min(low.value_or(*m), *m);
            high = std::max(high.value_or(*m), *m);
        }
    QString line = "The table lists the first " + count(kMaxTableRuns) + " of " + count(runs.size()) + " runs";
    if (low) line += "; the median epoch times of all of them range from " + formatMs(*low) + " to " + formatMs(*high);
    return "<p class='small'>" + line + ".</p>";
}

QString runsHtml(const std::vector<RunRecord>& all) {
    const std::vector<RunRecord> runs(all.begin(),
                                      all.begin() + static_cast<std::ptrdiff_t>(std::min(all.size(), kMaxTableRuns)));
    std::vector<QStringList> rows;
    for (const auto& r : runs) {
        const RunSummary sum = r.summary();
        const auto spread = spreadOf(r);
        const QualityMetric q = qualityFor(r.dataset.task);
        const auto final = sum.final;
        rows.push_back({esc(r.name), esc(backendOf(r)), ms(sum.medianEpochMs),
                        spread ? formatMs(spread->low) + " \u2013 " + formatMs(spread->high) : QString("\u2013"),
                        final ? figure(final->trainLoss) : QString("\u2013"),
                        final ? figure(final->valLoss) : QString("\u2013"),
                        final ? figure(qualityValue(q, *final, final->valLoss.has_value())) : QString("\u2013"),
                        esc(toString(r.status))});
    }
    QString html =
        "<h2>Runs</h2><p class='small'>Median epoch time without the warm-up epoch, and the range of "
        "the timed epochs; the final training and validation loss, and the task's metric.</p>";
    const bool cut = all.size() > runs.size();
    html += table({"run", "backend", "median", "spread", "train loss", "val loss", "metric", "status"}, rows,
                  {2, 3, 4, 5, 6}, cut ? moreRow(all.size() - runs.size(), 8, "runs") : QString());
    if (cut) html += allRunsLine(all);
    // Each run's model and switches, under the table (long lines would squeeze its columns).
    html += "<p class='small'>";
    for (const auto& r : runs) {
        const auto c = runConfigOf(r);
        html += "<b>" + esc(r.name) + "</b>: " + (c ? modelOf(*c) + "; " : QString()) + settingsOf(r) + "<br>";
    }
    return html + "</p>";
}

// One environment per backend: every engine of the answer and every ablation as its runs recorded
// it (each engine its own: versions, device and threads differ), then the runs' other backends.
QString environmentHtml(const ReportSources& s, const std::vector<RunRecord>& runs) {
    std::map<std::string, std::map<std::string, std::string>> byBackend;
    std::set<std::string> backends;
    const auto add = [&](const std::string& name, const std::map<std::string, std::string>& env) {
        if (env.empty()) return;
        if (backends.insert(name).second && byBackend.size() < kMaxTableRows) byBackend[name] = env;
    };
    if (s.answer)
        for (const auto& e : s.answer->engines)
            if (e.ablation) add(e.engine, recordedEnvironment(*e.ablation));
    for (const auto& a : s.ablations) add(a.backend, recordedEnvironment(a));
    for (const auto& r : runs) add(backendOf(r), r.environment);
    QString html = "<h2>Environment</h2>";
    if (byBackend.empty()) return {};
    if (backends.size() > byBackend.size())
        html += "<p class='small'>The environments of " + count(byBackend.size()) + " of the " +
                count(backends.size()) + " backends the runs name.</p>";
    for (const auto& [backend, env] : byBackend) {
        std::vector<QStringList> rows;
        for (const auto& [key, value] : env)
            if (rows.size() < kMaxTableRows) rows.push_back({esc(key), esc(value)});
        const QString more = env.size() > rows.size() ? moreRow(env.size() - rows.size(), 2, "keys") : QString();
        html += "<p><b>" + esc(backend) + "</b>: " + environmentSummary(env).toHtmlEscaped() + "</p>" +
                table({"", ""}, rows, {}, more);
    }
    return html;
}

// How the ablation was measured: the workload as run, its rounds and why they stopped, and the
// machine meanwhile (the sentences of the Answer tab: what_was_measured.h).
QString measuredHtml(const AblationResult& a) {
    QString text;
    if (const QString workload = workloadText(a); !workload.isEmpty()) text += "Each run: " + workload + ". ";
    text += roundsText(a) + ".";
    if (a.machine)
        if (const QString machine = machineText(*a.machine); !machine.isEmpty())
            text += " The machine meanwhile: " + machine;
    if (const QString env = environmentSummary(recordedEnvironment(a)); !env.isEmpty())
        text += " Environment: " + env + ".";
    return "<p class='small'>" + text.toHtmlEscaped() + "</p>";
}

// The answer's workload, rounds, environment and machine per engine, after its conclusion.
QString whatWasMeasured(const Answer& answer) {
    const QString body = whatWasMeasuredHtml(answer);
    return body.isEmpty() ? QString() : "<h2>What was measured</h2>" + body;
}

QString ablationHtml(const AblationResult& a, const std::string& who) {
    const Attribution attribution = attribute(a);
    const auto causeOf = [&](const AblationStep& s) -> const CauseShare* {
        for (const auto& c : attribution.causes)
            if (&a.steps[c.step] == &s) return &c;
        return nullptr;
    };
    std::vector<QStringList> rows;
    for (const auto& s : a.steps) {
        const CauseShare* c = causeOf(s);
        const QString saved =
            formatMs(s.savedMs) + (c && attribution.rounds > 1
                                       ? " (" + formatMs(c->saved.low) + " \u2013 " + formatMs(c->saved.high) + ")"
                                       : QString());
        const QString share =
            !s.share ? QString("\u2013")
                     : QString::number(*s.share * 100, 'f', 0) + "%" +
                           (c && c->share && attribution.rounds > 1 ? QString(" (%1 \u2013 %2%)")
                                                                          .arg(c->shareInterval.low * 100, 0, 'f', 0)
                                                                          .arg(c->shareInterval.high * 100, 0, 'f', 0)
                                                                    : QString());
        rows.push_back({esc(s.name), s.measured() ? formatMs(s.medianEpochMs) : QString("\u2013"),
                        s.measured() ? formatMs(s.minEpochMs) + " \u2013 " + formatMs(s.maxEpochMs) : QString("\u2013"),
                        saved, share,
                        esc(toString(s.status)) + (s.message.empty() ? QString() : ": " + esc(s.message))});
    }
    const auto gap = a.gapComparison();
    const AblationStep* fixed = a.fixedLoop();
    return "<h2>Ablation on " + esc(who) + "</h2><p>From the seed loop, the fixes applied one at a time" +
           (gap ? ": the fixed loop (" + esc(fixed->name) + ", the fastest step measured) is " + esc(gap->label()) +
                      " than the seed loop."
                : QString(".")) +
           " Saved and share with their 95 % interval over the rounds.</p>" + measuredHtml(a) +
           table({"step", "median", "spread (min \u2013 max)", "saved", "share", "status"}, rows, {1, 2, 3, 4});
}

QString sweepHtml(const ReportSweep& s) {
    return "<h2>Sweep " + esc(s.report.sweepName) + "</h2><p class='small'>" + s.folder.toHtmlEscaped() + "</p><pre>" +
           esc(sweep::reportText(s.report)) + "</pre>";
}

// The fixed loop's record: the answer's (on the report's framework) or an ablation's last measured
// step, else the fastest run's; null when no record holds a workbench configuration.
const RunRecord* fixedLoopRecord(const ReportSources& s, const std::string& framework) {
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
            if (runConfigOf(fixed->runs.front())) return &fixed->runs.front();
    }
    const RunRecord* fastest = nullptr;
    for (const auto& r : s.runs) {
        const auto m = r.summary().medianEpochMs;
        if (m && runConfigOf(r) && (!fastest || *m < *fastest->summary().medianEpochMs)) fastest = &r;
    }
    return fastest;
}

// What the files say of `framework` as it ran: the fixed loop's own record, else any run of it.
// Read, never asked: a record's interpreter is someone else's path, and a report runs no program.
FrameworkFacts recordedFacts(const ReportSources& s, const std::string& framework, const RunRecord& fixed) {
    if (auto f = recordedFrameworkFacts(framework, fixed.environment); f.available) return f;
    std::vector<const RunRecord*> records;
    for (const auto& r : s.runs) records.push_back(&r);
    for (const auto& a : s.ablations)
        for (const auto& step : a.steps)
            for (const auto& r : step.runs) records.push_back(&r);
    if (s.answer)
        for (const auto& e : s.answer->engines)
            if (e.ablation)
                for (const auto& step : e.ablation->steps)
                    for (const auto& r : step.runs) records.push_back(&r);
    for (const RunRecord* r : records)
        if (auto f = recordedFrameworkFacts(framework, r->environment); f.available) return f;
    return recordedFrameworkFacts(framework, {});
}

QString frameworkLabel(const std::string& framework) {
    return QString::fromStdString(engineLabel(framework));
}

// Which version the loop is written for, as the records say (their interpreter only as text).
QString recordedAs(const FrameworkFacts& f) {
    if (!f.available)
        return "No " + frameworkLabel(f.framework) +
               " version is recorded in these files: the loop is written for the newest API, on the CPU.";
    return "Written for " + frameworkLabel(f.framework) + " " + esc(f.version) +
           (f.cuda ? " on a CUDA device" : " on the CPU") + ", as recorded by the run" +
           (f.python.empty() ? QString() : " (interpreter " + esc(f.python) + ")") + ".";
}

// The answer's (else the first ablation's) fixed loop as `mlpwb export --answer/--ablation` writes
// it, with the comment that says which step it is and which fixes it leaves out. Null when neither
// holds a measured fixed loop whose run reads back as its step (a record made by hand, another
// backend's run): the fixed loop's record is written as it is then.
std::optional<std::string> recommendedScript(const ReportSources& s, const std::string& framework) {
    try {
        if (s.answer && !whyNoFixedLoop(*s.answer, framework))
            return fixedLoopScript(*s.answer, framework, "this report's answer");
        for (const auto& a : s.ablations)
            if (a.fixedLoop()) return fixedLoopScript(a, framework, "this report's ablation");
    } catch (const DataError&) {
    }
    return std::nullopt;
}

QString codeHtml(const ReportSources& s) {
    const std::string framework = reportFramework(s);
    const RunRecord* fixed = fixedLoopRecord(s, framework);
    if (!fixed) return {};
    auto config = runConfigOf(*fixed);
    config->backend = framework;
    const FrameworkFacts facts = recordedFacts(s, framework, *fixed);
    std::string code;
    try {
        code = recommendedScript(s, framework).value_or(frameworkScript(*config, facts));
    } catch (const Error& e) {
        return "<h2>The fixed loop</h2><p>Its " + esc(framework) + " code cannot be written: " + esc(e.what()) + "</p>";
    }
    return "<h2>Appendix: the fixed loop in " + frameworkLabel(framework) +
           "</h2><p class='small'>The loop the workbench runs for the fixed settings, as a script of your own "
           "(also: mlpwb export). Run it with: python3 loop.py --data x.npy --labels y.npy. " +
           recordedAs(facts) + "</p><pre>" + esc(code) + "</pre>";
}

// The runs a chart draws: all of them up to kMaxChartedRuns, else that many evenly spaced by median
// epoch time, from the fastest to the slowest (runs without a time last), in the order given.
std::vector<RunRecord> chartSample(const std::vector<RunRecord>& runs) {
    if (runs.size() <= kMaxChartedRuns) return runs;
    std::vector<std::pair<double, std::size_t>> bySpeed;  // (median, index); no time sorts last
    bySpeed.reserve(runs.size());
    for (std::size_t i = 0; i < runs.size(); ++i)
        bySpeed.emplace_back(runs[i].summary().medianEpochMs.value_or(std::numeric_limits<double>::infinity()), i);
    std::sort(bySpeed.begin(), bySpeed.end());
    std::set<std::size_t> chosen;
    for (std::size_t k = 0; k < kMaxChartedRuns; ++k)
        chosen.insert(bySpeed[k * (bySpeed.size() - 1) / (kMaxChartedRuns - 1)].second);
    std::vector<RunRecord> sample;
    for (const std::size_t i : chosen) sample.push_back(runs[i]);
    return sample;
}

// What a sampled chart's caption adds: how many runs it shows, and where the others are.
QString sampleNote(std::size_t shown, std::size_t all) {
    if (shown == all) return {};
    return " \u2014 " + count(shown) + " of " + count(all) +
           " runs, the fastest to the slowest evenly by median epoch time; " + count(all - shown) +
           " runs are left out of the charts (the tables and the conclusion count them)";
}

// The pixels a chart is laid out at: a third of a page, or for a chart with a bar a row, as tall as
// its rows need (a line of text each) when that is taller.
QSize layoutOf(const QWidget&) {
    return kChartLayout;
}
QSize layoutOf(const SpeedupChart& chart) {
    constexpr int kRowPx = 20, kFramePx = 150;  // a row's label and air; the title, axis and note
    const int rows = static_cast<int>(chart.rows().size());
    return {kChartLayout.width(), std::max(kChartLayout.height(), kFramePx + kRowPx * rows)};
}

// A chart of the runs, off screen, in its own store, drawn; the slowest run is the speedup's baseline.
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
    chart->refreshNow();
    const QSize layout = layoutOf(*chart);
    chart->resize(layout);
    QCustomPlot& plot = chart->plot();
    doc.addChart(std::move(holder), plot, layout, caption);
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
                 QString::fromStdString("What each fix saved on " + who +
                                        ", in the order applied (ms per epoch; whiskers: the spread of the rounds)"));
    auto shares = std::make_unique<SharesChart>();
    shares->resize(kChartLayout);
    shares->setResult(a);
    QCustomPlot& sharesPlot = shares->plot();
    doc.addChart(
        std::move(shares), sharesPlot, kChartLayout,
        QString::fromStdString(
            "Each fix's share of the gap on " + who +
            ", with its 95 % interval over the rounds (the title says whether over every order of the fixes)"));
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
        const std::string backend = backendOf(r);
        if (backend == "torch" || backend == "keras" || backend == "jax") return backend;
    }
    return "torch";
}

ReportDocument buildReport(const ReportSources& s) {
    if (s.empty()) throw ConfigError("a report needs run files, ablations, an answer or sweep folders");
    const NoProbes noProbes;  // what the charts ask of a framework is answered without running Python
    ReportDocument doc;
    doc.addHtml(header(s) + conclusionHtml(s) + (s.answer ? whatWasMeasured(*s.answer) : QString()));
    const auto runs = s.chartedRuns();
    const auto sample = chartSample(runs);
    const QString note = sampleNote(sample.size(), runs.size());
    if (!runs.empty()) {
        auto& times = addRunsChart<MetricChart>(
            doc, sample, "Time per epoch of each run (the hollow circle: the warm-up epoch)" + note,
            MetricChart::Kind::EpochTime);
        times.setLogScale(spansDecades(sample));
        times.refreshNow();
        if (sample.size() > 1)
            addRunsChart<SpeedupChart>(doc, sample,
                                       "Speed of each run against the slowest, with the spread of its epochs" + note);
    }
    if (s.answer)
        for (const auto& e : s.answer->engines)
            if (e.ablation) addWaterfall(doc, *e.ablation, e.engine);
    for (const auto& a : s.ablations) addWaterfall(doc, a, a.backend);
    if (!runs.empty()) {
        addRunsChart<MetricChart>(doc, sample, "Training loss (solid) and validation loss (dashed) per epoch" + note,
                                  MetricChart::Kind::Loss);
        doc.addHtml(runsHtml(runs));
        doc.addHtml(datasetHtml(runs));
    }
    if (s.answer)
        for (const auto& e : s.answer->engines)
            if (e.ablation) doc.addHtml(ablationHtml(*e.ablation, e.engine));
    for (const auto& a : s.ablations) doc.addHtml(ablationHtml(a, a.backend));
    for (const auto& sw : s.sweeps) doc.addHtml(sweepHtml(sw));
    if (const QString environment = environmentHtml(s, runs); !environment.isEmpty()) doc.addHtml(environment);
    if (const QString code = codeHtml(s); !code.isEmpty()) doc.addHtml(code);
    return doc;
}

void writeReport(const ReportSources& sources, const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix != "pdf" && suffix != "html" && suffix != "htm")
        throw ConfigError("a report is written as .pdf or .html, not '" + path.toStdString() + "'");
    const NoProbes noProbes;  // drawing the charts asks nothing either
    const ReportDocument doc = buildReport(sources);
    const QString title = "Why is this training slow? \u2014 MLP Workbench report";
    if (suffix == "pdf")
        doc.writePdf(path, title);
    else
        doc.writeHtml(path, title);
}

}  // namespace wb::gui
