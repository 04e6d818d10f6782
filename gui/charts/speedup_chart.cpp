#include "gui/charts/speedup_chart.h"

#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include <qcustomplot.h>
#include <nlohmann/json.hpp>

#include "core/measure/speed_comparison.h"
#include "core/model/execution_settings.h"
#include "core/platform/errors.h"
#include "core/run/backend.h"
#include "core/run/workload.h"
#include "gui/charts/chart_style.h"
#include "gui/runs/run_repeats.h"
#include "gui/runs/run_store.h"

namespace wb::gui {

namespace {
constexpr double kBarWidth = 0.6;
// The axis never shows less than 0.8× to 1.25×: bars within a few percent of 1× stay readable.
constexpr double kMinLow = 0.8;
constexpr double kMinHigh = 1.25;
constexpr double kEndPixels = 8;

// `text` broken at spaces into lines no wider than `width` pixels (a single word stays whole).
QString wrapped(const QString& text, const QFontMetrics& metrics, int width) {
    QStringList lines;
    QString line;
    for (const QString& word : text.split(' ')) {
        const QString longer = line.isEmpty() ? word : line + ' ' + word;
        if (!line.isEmpty() && metrics.horizontalAdvance(longer) > width) {
            lines << line;
            line = word;
        } else {
            line = longer;
        }
    }
    lines << line;
    return lines.join('\n');
}

int widestLine(const QString& text, const QFontMetrics& metrics) {
    int widest = 0;
    for (const QString& line : text.split('\n')) widest = std::max(widest, metrics.horizontalAdvance(line));
    return widest;
}

// Whether a row draws its range: a configuration other than the baseline's whose range is wider than
// its ratio. (The baseline against itself is 1× by definition; its spread is in the others' ranges.)
bool drawsRange(const SpeedupChart::Row& row) {
    return row.speedup && !row.baseline && (row.ratioLow < *row.speedup || row.ratioHigh > *row.speedup);
}

// What backend `name` ignores under `s`; nullopt when the registry does not know it here.
std::optional<std::vector<IgnoredSwitch>> ignoredOn(const std::string& name, const ExecutionSettings& s) {
    try {
        return BackendRegistry::instance().notApplicable(name, s);
    } catch (const Error&) {
        return std::nullopt;
    }
}

// "ran: data_path, loss; did nothing on cpu: launch (a CPU launches no kernels)": the switches in which
// `run`'s config differs from `base`'s. A switch did nothing when the backends of both ignore it.
QString switchesText(const RunEntry& base, const RunEntry& run) {
    if (!base.runConfig || !run.runConfig) return {};  // a peer's: no switches
    const ExecutionSettings &a = base.runConfig->execution, &b = run.runConfig->execution;
    if (a == b) return {};
    const std::string backend = run.runConfig->backend;
    const auto ignored = ignoredOn(backend, b), ignoredBase = ignoredOn(base.runConfig->backend, a);
    if (!ignored || !ignoredBase) return {};
    const auto da = describeSwitches(a), db = describeSwitches(b);
    QStringList ran, idle;
    for (std::size_t i = 0; i < db.size() && i < da.size(); ++i) {
        if (da[i].value == db[i].value) continue;
        const IgnoredSwitch* why = findIgnored(*ignored, db[i].name);
        if (why && findIgnored(*ignoredBase, db[i].name))
            idle << QString("%1 (%2)").arg(QString::fromStdString(db[i].name), QString::fromStdString(why->reason));
        else
            ran << QString::fromStdString(db[i].name + "=" + db[i].value);
    }
    QString text = "ran: " + (ran.isEmpty() ? QString("none") : ran.join(", "));
    if (!idle.isEmpty())
        text += QString("; did nothing on %1: %2").arg(QString::fromStdString(backend), idle.join(", "));
    return text;
}
}  // namespace

QString formatSpeedup(double speedup) {
    return QString::number(speedup, 'f', speedup < 1.0 ? 2 : 1) + QChar(0x00D7);
}

std::optional<SpeedupBaseline> speedupBaseline(const RunStore& store) {
    const auto chosen = store.effectiveBaseline();  // the runs table's baseline too: one rule
    if (!chosen) return std::nullopt;
    const RunEntry* run = store.find(*chosen);
    const BaselineReason why = store.baseline() == chosen ? BaselineReason::Picked
                               : run && run->seedLoop     ? BaselineReason::SeedLoop
                                                          : BaselineReason::FirstTimed;
    return SpeedupBaseline{*chosen, why};
}

std::vector<double> speedupTicks(double low, double high) {
    std::vector<double> coarse, fine;
    for (double decade = 1e-4; decade <= 1e4; decade *= 10) {
        for (const double step : {1.0, 2.0, 5.0}) coarse.push_back(decade * step);
        for (const double step : {1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0})
            fine.push_back(decade * step);
    }
    auto inside = [&](const std::vector<double>& candidates, auto keep) {
        std::vector<double> ticks;
        for (const double v : candidates)
            if (v >= low * (1 - 1e-9) && v <= high * (1 + 1e-9) && keep(v)) ticks.push_back(v);
        return ticks;
    };
    auto all = [](double) { return true; };
    std::vector<double> ticks = inside(coarse, all);
    if (ticks.size() > 10)  // decades apart: powers of ten only
        return inside(coarse, [](double v) { return std::abs(std::log10(v) - std::round(std::log10(v))) < 1e-9; });
    if (ticks.size() < 3)  // a narrow range: finer steps, where they are few enough to read
        if (std::vector<double> finer = inside(fine, all); finer.size() <= 10) return finer;
    return ticks;
}

SpeedupChart::SpeedupChart(RunStore* store, QWidget* parent) : ThrottledChart(store, parent) {
    // Run names on the left read better than rotated names below vertical bars.
    title_ = applyChartStyle(plot(), "Speedup over the baseline", LegendPlace::None);
    plot().yAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    plot().yAxis->setRangeReversed(true);  // the first run on top, as in the runs table
    plot().yAxis->grid()->setVisible(false);
    // Logarithmic: 2× faster and 2× slower lie as far from 1× on either side.
    plot().xAxis->setScaleType(QCPAxis::stLogarithmic);
    plot().xAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    plot().xAxis->setLabel(
        QString::fromUtf8("Times as fast as the baseline (log scale: right of 1\u00d7 faster, "
                          "left of it slower)"));
    plot().xAxis->setRange(kMinLow, kMinHigh);
    placeholder_ = addPlaceholder(plot(), "No runs with epochs to compare yet");

    baselineLine_ = new QCPItemStraightLine(&plot());
    baselineLine_->setPen(QPen(QColor(90, 90, 90), 1.5, Qt::DashLine));
    baselineLine_->point1->setCoords(1, 0);
    baselineLine_->point2->setCoords(1, 1);
    baselineLine_->setSelectable(false);

    connect(store, &RunStore::baselineChanged, this, &SpeedupChart::scheduleRefresh);
    // Every layout (a resize, an export at another size) fits the axis to the labels in the pixels
    // there are; the signal comes after the layout and before anything is drawn.
    connect(&plot(), &QCustomPlot::afterLayout, this, &SpeedupChart::fitAxisToLabels);

    note_ = new QLabel(this);
    note_->setObjectName("speedupNote");
    note_->setWordWrap(true);
    note_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    note_->setContentsMargins(8, 4, 8, 4);
    note_->hide();
    note_->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);  // the plot keeps the height
    if (auto* column = qobject_cast<QVBoxLayout*>(layout())) {
        column->addWidget(note_);
        column->setStretch(0, 1);  // what the note's lines leave goes to the plot, not around the note
    }
}

void SpeedupChart::refresh() {
    collectRows(chooseBaseline());
    nameBaselineInTitle();
    drawBars();
    showNote();
    replot();
}

const RunEntry* SpeedupChart::chooseBaseline() {
    const auto chosen = speedupBaseline(store());
    baselineRun_ = chosen ? std::optional<int>(chosen->runId) : std::nullopt;
    baselineReason_ = chosen ? std::optional<BaselineReason>(chosen->reason) : std::nullopt;
    return baselineRun_ ? store().find(*baselineRun_) : nullptr;
}

// 'Speedup over "Seed PyTorch loop" (the seed loop, median epoch time)': which run, and why that one.
void SpeedupChart::nameBaselineInTitle() {
    const RunEntry* run = baselineRun_ ? store().find(*baselineRun_) : nullptr;
    if (!run || !baselineReason_) {
        titleText_ = "Speedup over the baseline";
        title_->setText(titleText_);
        return;
    }
    QString name = run->name;
    for (const Row& row : rows_)
        if (row.baseline) name = row.name;  // repeats: the configuration, not its first repeat
    const QString why = *baselineReason_ == BaselineReason::Picked     ? "picked as baseline"
                        : *baselineReason_ == BaselineReason::SeedLoop ? "the seed loop"
                                                                       : "the first run timed";
    titleText_ = QString("Speedup over \u201C%1\u201D (%2, median epoch time)").arg(name, why);
    title_->setText(titleText_);  // whole until a layout wraps it to the chart's width
}

void SpeedupChart::collectRows(const RunEntry* base) {
    rows_.clear();
    // The visible runs by configuration, in the order of their first run.
    std::vector<std::vector<const RunEntry*>> groups;
    std::map<std::string, std::size_t> groupOf;
    for (const RunEntry& run : store().runs()) {
        if (!run.visible) continue;
        const auto [it, added] = groupOf.try_emplace(repeatGroupKey(run), groups.size());
        if (added) groups.emplace_back();
        groups[it->second].push_back(&run);
    }
    auto records = [](const std::vector<const RunEntry*>& group) {
        std::vector<const RunRecord*> list;
        for (const RunEntry* run : group) list.push_back(&run->record);
        return list;
    };
    const std::vector<const RunEntry*>* baseGroup = nullptr;
    for (const auto& group : groups)
        for (const RunEntry* run : group)
            if (base && run->id == base->id) baseGroup = &group;
    // A picked baseline the charts hide still measures the others.
    const auto baseSpread = baseGroup ? timeSpread(records(*baseGroup))
                            : base    ? timeSpread({&base->record})
                                      : std::nullopt;
    for (const auto& group : groups) {
        const RunEntry& first = *group.front();
        Row row;
        row.runId = first.id;
        for (const RunEntry* run : group) row.runIds.push_back(run->id);
        row.name = group.size() > 1 ? repeatedName(first.name) : first.name;
        row.baseline = &group == baseGroup;
        if (const auto difference = base ? workloadDifference(base->record, first.record) : std::nullopt) {
            row.notComparable = QString::fromStdString(*difference);
        } else if (const auto spread = timeSpread(records(group)); baseSpread && spread && spread->median > 0) {
            const SpeedComparison c = compareSpeed(*baseSpread, *spread);
            row.speedup = c.ratio;
            row.ratioLow = c.ratioLow;
            row.ratioHigh = c.ratioHigh;
            row.runs = spread->runs;
            row.verdict = QString::fromStdString(c.label());
            if (!row.baseline) row.switches = switchesText(*base, first);
        }
        rows_.push_back(row);
    }
}

QString SpeedupChart::switchesNote() const {
    QStringList lines;
    QString baseName;
    for (const Row& row : rows_)
        if (row.baseline) baseName = row.name;
    for (const Row& row : rows_)
        if (!row.switches.isEmpty()) lines << QString("%1 vs %2 — %3").arg(row.name, baseName, row.switches);
    return lines.join("\n");
}

void SpeedupChart::showNote() {
    const QString note = switchesNote();
    note_->setText(note.isEmpty() ? QString() : "Switches that differ from the baseline's:\n" + note);
    note_->setVisible(!note.isEmpty());
}

QStringList SpeedupChart::leftOut() const {
    QStringList lines;
    for (const Row& row : rows_)
        if (!row.notComparable.isEmpty()) lines << row.name + ": not comparable: " + row.notComparable;
    return lines;
}

void SpeedupChart::clearDrawing() {
    for (QCPAbstractPlottable* bars : bars_) plot().removePlottable(bars);
    for (QCPAbstractItem* range : ranges_) plot().removeItem(range);
    for (const Label& label : labels_) plot().removeItem(label.item);
    bars_.clear();
    ranges_.clear();
    labels_.clear();
}

// One QCPBars per configuration, so each bar wears its run's colour; bars start at 1×.
void SpeedupChart::drawBars() {
    clearDrawing();
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    barLow_ = barHigh_ = 0;
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        const Row& row = rows_[i];
        const double key = static_cast<double>(i + 1);
        ticker->addTick(
            key, row.runIds.size() > 1 ? QString("%1 (%2 runs)").arg(row.name).arg(row.runIds.size()) : row.name);
        addBar(row, key);
        addLabel(row, key);
    }
    plot().yAxis->setTicker(ticker);
    plot().yAxis->setRange(0.4, static_cast<double>(rows_.size()) + 0.6);
    baselineLine_->setVisible(baselineRun_.has_value() && !rows_.empty());
    placeholder_->setVisible(rows_.empty() || !baselineRun_);
    fitAxisToLabels();  // at the present size; every later layout fits again
}

// A bar from 1× to the configuration's speedup. (QCPBars draws from its base value to base + value,
// so the value is the bar's length: speedup − 1, negative for a slower one.) The baseline's own bar
// has no length: its outline marks 1×.
void SpeedupChart::addBar(const Row& row, double key) {
    if (!row.speedup || *row.speedup <= 0) return;
    const RunEntry* run = store().find(row.runId);
    const double value = row.baseline ? 1.0 : *row.speedup;
    auto* bars = new QCPBars(plot().yAxis, plot().xAxis);
    bars->setWidth(kBarWidth);
    bars->setBaseValue(1.0);  // faster to the right of the baseline, slower to the left
    bars->setBrush(run ? run->color : neutralColor());
    bars->setPen(row.baseline ? QPen(run ? run->color.darker(140) : QColor(40, 40, 40), 4) : QPen(Qt::NoPen));
    bars->addData(key, value - 1.0);
    bars_.push_back(bars);
    barLow_ = std::min(barLow_, std::log10(value));
    barHigh_ = std::max(barHigh_, std::log10(value));
    if (!drawsRange(row)) return;
    // The range over the repeats (one run: over its epochs), as compareSpeed gives it, with whiskers.
    auto* range = new QCPItemLine(&plot());
    range->start->setCoords(row.ratioLow, key);
    range->end->setCoords(row.ratioHigh, key);
    range->setPen(QPen(QColor(40, 40, 40), 1.2));
    range->setHead(QCPLineEnding(QCPLineEnding::esBar, 8));
    range->setTail(QCPLineEnding(QCPLineEnding::esBar, 8));
    range->setSelectable(false);
    ranges_.push_back(range);
    barLow_ = std::min(barLow_, std::log10(std::min(value, row.ratioLow)));
    barHigh_ = std::max(barHigh_, std::log10(std::max(value, row.ratioHigh)));
}

// The label beside the bar's outer end (or its range's), on the side the bar points to: a slower
// configuration's label left of its bar, so it reads as slower before a word is read.
void SpeedupChart::addLabel(const Row& row, double key) {
    Label label;
    label.text = !row.notComparable.isEmpty() ? "not comparable: " + row.notComparable
                 : row.baseline               ? formatSpeedup(1.0) + " (baseline)"
                 : row.speedup                ? row.verdict
                                              : QString("no epochs yet");
    label.item = addValueLabel(plot(), label.text);
    if (!row.speedup || *row.speedup <= 0) {
        label.atEdge = true;
        label.item->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
        label.item->position->setCoords(0, key);
        label.item->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        label.item->setPadding(QMargins(6, 0, 0, 0));
    } else {
        const double value = row.baseline ? 1.0 : *row.speedup;
        label.leftSide = value < 1.0;
        const bool range = drawsRange(row);
        const double end = label.leftSide ? (range ? std::min(value, row.ratioLow) : value)
                                          : (range ? std::max(value, row.ratioHigh) : value);
        label.anchor = std::log10(end);
        label.item->position->setCoords(end, key);
        label.item->setPositionAlignment((label.leftSide ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
        label.item->setPadding(label.leftSide ? QMargins(0, 0, 6, 0) : QMargins(6, 0, 0, 0));
    }
    labels_.push_back(label);
}

// The range [low, high] (log10 of the speedup) that holds 1×, every bar and range, and each label on
// its side: a label w pixels wide beside an end at x needs x ± w / (pixels per decade). The pixels per
// decade depend on the range, so the range is found by fixed-point iteration (it only grows, and
// settles while the labels take less than the axis's width).
void SpeedupChart::fitAxisToLabels() {
    // The title wrapped to the chart's width first: a long baseline's name would leave the chart.
    const int titleWidth = plot().viewport().width() - 24;
    const QString title = titleWidth > 100 ? wrapped(titleText_, QFontMetrics(title_->font()), titleWidth) : titleText_;
    if (!titleText_.isEmpty() && title != title_->text()) {
        title_->setText(title);
        for (auto phase : {QCPLayoutElement::upPreparation, QCPLayoutElement::upMargins, QCPLayoutElement::upLayout})
            plot().plotLayout()->update(phase);
    }
    const int pixels = std::max(plot().axisRect()->width(), 120);
    std::vector<LabelNeed> needs;
    double widestLeft = 0, widestRight = 0;
    for (Label& label : labels_) {
        const QFontMetrics metrics(label.item->font());
        const QString text = label.atEdge ? wrapped(label.text, metrics, pixels - 12) : label.text;
        label.item->setText(text);
        if (label.atEdge) continue;
        const double width = widestLine(text, metrics) + 10.0;  // the padding and a little air
        double& widest = label.leftSide ? widestLeft : widestRight;
        widest = std::max(widest, width);
        needs.push_back({label.anchor, width, label.leftSide});
    }
    // Labels wider than the axis together cannot all fit: shrink their claim so the bars keep room.
    const double claim = widestLeft + widestRight, most = 0.8 * pixels;
    const auto [low, high] = fittedRange(needs, claim > most ? most / claim : 1.0, pixels);
    const double lowTimes = std::pow(10.0, low), highTimes = std::pow(10.0, high);
    plot().xAxis->setRange(lowTimes, highTimes);
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (const double tick : speedupTicks(lowTimes, highTimes))
        ticker->addTick(tick, QString::number(tick, 'g', 3) + QChar(0x00D7));
    plot().xAxis->setTicker(ticker);
    // The layout has computed the ticks already: again, for the range just set.
    plot().axisRect()->update(QCPLayoutElement::upPreparation);
}

std::pair<double, double> SpeedupChart::fittedRange(const std::vector<LabelNeed>& needs, double shrink,
                                                    int pixels) const {
    const double barsLow = std::min(barLow_, std::log10(kMinLow)), barsHigh = std::max(barHigh_, std::log10(kMinHigh));
    double low = barsLow, high = barsHigh;
    for (int round = 0; round < 60; ++round) {
        const double decadesPerPixel = (high - low) / pixels;
        // A few pixels beyond the outermost bar or whisker, so its end is drawn whole.
        double newLow = barsLow - kEndPixels * decadesPerPixel, newHigh = barsHigh + kEndPixels * decadesPerPixel;
        for (const LabelNeed& need : needs) {
            const double reach = need.width * shrink * decadesPerPixel;
            if (need.left)
                newLow = std::min(newLow, need.anchor - reach);
            else
                newHigh = std::max(newHigh, need.anchor + reach);
        }
        const bool settled = newLow >= low - 1e-6 && newHigh <= high + 1e-6;
        low = std::min(low, newLow);
        high = std::max(high, newHigh);
        if (settled) break;
    }
    return {low, high};
}

}  // namespace wb::gui
