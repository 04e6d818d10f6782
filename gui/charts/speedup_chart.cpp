#include "speedup_chart.h"

#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>
#include <map>
#include <string>

#include <qcustomplot.h>
#include <nlohmann/json.hpp>

#include "backend.h"
#include "chart_style.h"
#include "errors.h"
#include "execution_settings.h"
#include "run_repeats.h"
#include "run_store.h"
#include "speed_comparison.h"
#include "workload.h"

namespace wb::gui {

namespace {
constexpr double kBarWidth = 0.6;

// What makes runs repeats of one configuration: the name without its repeat index, and the config
// apart from the name.
std::string groupKey(const RunEntry& run) {
    nlohmann::json config = run.config;
    if (config.is_object()) config.erase("name");
    return repeatedName(run.name).toStdString() + '\n' + config.dump();
}

std::optional<ExecutionSettings> executionOf(const nlohmann::json& config) {
    if (!config.is_object() || !config.contains("execution")) return std::nullopt;
    try {
        return config.at("execution").get<ExecutionSettings>();
    } catch (const std::exception&) {
        return std::nullopt;  // a peer's own keys
    }
}

std::string backendOf(const nlohmann::json& config) {
    const auto it = config.is_object() ? config.find("backend") : config.end();
    return it != config.end() && it->is_string() ? it->get<std::string>() : std::string("cpu");
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
QString switchesText(const nlohmann::json& base, const nlohmann::json& run) {
    const auto a = executionOf(base), b = executionOf(run);
    if (!a || !b || *a == *b) return {};
    const std::string backend = backendOf(run), baseBackend = backendOf(base);
    const auto ignored = ignoredOn(backend, *b), ignoredBase = ignoredOn(baseBackend, *a);
    if (!ignored || !ignoredBase) return {};
    const auto da = describeSwitches(*a), db = describeSwitches(*b);
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

    note_ = new QLabel(this);
    note_->setObjectName("speedupNote");
    note_->setWordWrap(true);
    note_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    note_->setContentsMargins(8, 4, 8, 4);
    note_->hide();
    note_->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);  // the plot keeps the height
    if (auto* column = qobject_cast<QVBoxLayout*>(layout())) column->addWidget(note_);
}

void SpeedupChart::refresh() {
    collectRows(chooseBaseline());
    drawBars();
    showNote();
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
    // The visible runs by configuration, in the order of their first run.
    std::vector<std::vector<const RunEntry*>> groups;
    std::map<std::string, std::size_t> groupOf;
    for (const RunEntry& run : store().runs()) {
        if (!run.visible) continue;
        const auto [it, added] = groupOf.try_emplace(groupKey(run), groups.size());
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
    const auto baseSpread = baseGroup ? timeSpread(records(*baseGroup)) : std::nullopt;
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
            if (!row.baseline) row.switches = switchesText(base->config, first.config);
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
    for (QCPItemText* label : labels_) plot().removeItem(label);
    bars_.clear();
    labels_.clear();
}

// One QCPBars per run, so each bar wears its run's colour.
void SpeedupChart::drawBars() {
    clearDrawing();
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    double top = 1.0;
    int widestLabel = 0;
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        const Row& row = rows_[i];
        const double key = static_cast<double>(i + 1);
        ticker->addTick(
            key, row.runIds.size() > 1 ? QString("%1 (%2 runs)").arg(row.name).arg(row.runIds.size()) : row.name);
        const RunEntry* run = store().find(row.runId);
        const double value = row.speedup.value_or(0.0);
        top = std::max(top, value);
        auto* bars = new QCPBars(plot().yAxis, plot().xAxis);
        bars->setWidth(kBarWidth);
        bars->setBrush(run ? run->color : neutralColor());
        bars->setPen(row.baseline ? QPen(QColor(40, 40, 40), 2) : QPen(Qt::NoPen));
        bars->addData(key, value);
        bars_.push_back(bars);
        double labelAt = value;
        if (row.speedup && (row.ratioLow < value || row.ratioHigh > value)) {
            // The range over the repeats (one run: over its epochs), as compareSpeed gives it.
            auto* range = new QCPErrorBars(plot().yAxis, plot().xAxis);
            range->setDataPlottable(bars);
            range->setErrorType(QCPErrorBars::etValueError);
            range->setPen(QPen(QColor(40, 40, 40), 1.2));
            range->setWhiskerWidth(8);
            range->addData(std::max(0.0, value - row.ratioLow), std::max(0.0, row.ratioHigh - value));
            range->removeFromLegend();
            bars_.push_back(range);
            labelAt = std::max(value, row.ratioHigh);
        }
        top = std::max(top, labelAt);

        QString text = !row.notComparable.isEmpty() ? "not comparable: " + row.notComparable
                       : row.baseline               ? formatSpeedup(1.0) + " (baseline)"
                       : row.speedup                ? row.verdict
                                                    : QString("no epochs yet");
        QCPItemText* label = addValueLabel(plot(), text);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        label->position->setCoords(labelAt, key);
        label->setPadding(QMargins(6, 0, 0, 0));
        labels_.push_back(label);
        widestLabel = std::max(widestLabel, QFontMetrics(label->font()).horizontalAdvance(text) + 12);
    }
    plot().yAxis->setTicker(ticker);
    plot().yAxis->setRange(0.4, static_cast<double>(rows_.size()) + 0.6);
    // Room for the labels right of the longest bar (or range): the label's share of the axis, in pixels.
    const int axisPixels = std::max(plot().axisRect()->width(), 300);
    const double labelShare = std::min(0.6, static_cast<double>(widestLabel) / axisPixels);
    plot().xAxis->setRange(0, std::max(top * 1.05, top / (1.0 - labelShare)));
    baselineLine_->setVisible(baselineRun_.has_value() && !rows_.empty());
    placeholder_->setVisible(rows_.empty() || !baselineRun_);
}

}  // namespace wb::gui
