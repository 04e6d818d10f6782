#include "gui/runs/run_store.h"

#include <QFileInfo>
#include <algorithm>
#include <array>

#include <nlohmann/json.hpp>

#include "core/measure/ablation_catalogue.h"
#include "core/model/execution_settings.h"
#include "core/platform/errors.h"
#include "core/platform/json_file.h"
#include "core/run/epoch_journal.h"
#include "core/run/workload.h"

namespace wb::gui {

namespace {
// Tableau 10 (matplotlib's tab10) and two darker hues of tab20b (indigo, ochre): twelve colours that
// stay apart from each other and readable on white, so twelve runs never share one.
constexpr std::array<QRgb, 12> kPalette = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd, 0x8c564b,
                                           0xe377c2, 0x7f7f7f, 0xbcbd22, 0x17becf, 0x393b79, 0x8c6d31};
// Each later pass over the palette shifts the lightness, alternately darker and lighter, so the
// 13th run does not wear the 1st run's colour. Capped so no colour fades into the white background.
constexpr std::array<float, 5> kLightnessShift = {0.0f, -0.15f, 0.12f, -0.25f, 0.2f};
constexpr float kMinLightness = 0.18f;
constexpr float kMaxLightness = 0.72f;

// Ours, or a framework's run by our own generator (torch): its config holds our switches. A peer
// script's "pytorch" or "jax" does not.
bool isOurBackend(const std::string& backend) {
    return findEngine(backend) != nullptr;
}

// timeSpread() of one run, from its digest: its median and the range of its timed epochs.
std::optional<TimeSpread> timeSpreadOf(const RunDigest& digest) {
    const auto median = digest.summary.medianEpochMs;
    if (!median) return std::nullopt;
    return timeSpread(*median, digest.timedLow.value_or(*median), digest.timedHigh.value_or(*median), 1);
}
}  // namespace

QString RunEntry::preset() const {
    // A peer (PyTorch, JAX, Keras) writes its own config: no execution switches to match.
    if (!runConfig || !isOurBackend(runConfig->backend)) return "peer";
    const auto match = matchingPreset(runConfig->execution, runConfig->backend);
    return match ? QString::fromStdString(*match) : QString("custom");
}

QString RunEntry::backend() const {
    return QString::fromStdString(backendOf(record));
}

int RunEntry::plannedEpochs() const {
    return runConfig ? runConfig->train.epochs : static_cast<int>(digest.epochCount);
}

Task RunEntry::task() const {
    return digest.regression ? Task::Regression : record.dataset.task;
}

QString RunEntry::dataset() const {
    // Ours: the configuration's data. A peer: the record's dataset description.
    if (runConfig) {
        if (runConfig->data.kind == DataSpec::Kind::Builtin) return "built-in";
        if (!runConfig->data.path.empty()) return QFileInfo(QString::fromStdString(runConfig->data.path)).fileName();
    }
    if (!record.dataset.source.empty()) {
        const QString source = QString::fromStdString(record.dataset.source);
        return source.startsWith("builtin") || source.startsWith("built-in") ? QString("built-in")
                                                                             : QFileInfo(source).fileName();
    }
    return QString::fromUtf8("—");
}

std::vector<RunRecord> readRunFile(const QString& path) {
    const std::string file = path.toStdString();
    const nlohmann::json j = loadJsonFile(file, "run record");
    std::vector<RunRecord> records;
    if (j.is_array()) {
        if (j.empty()) throw DataError(file, "no run records in the array");
        for (const auto& item : j) records.push_back(RunRecord::fromJson(item));
        return records;
    }
    RunRecord record = RunRecord::fromJson(j);
    // A run still "running" (in progress, or killed): its epochs so far are in the journal.
    if (record.status == RunStatus::Running)
        if (auto journal = EpochJournal::read(file); journal.size() > record.epochs.size())
            record.epochs = std::move(journal);
    records.push_back(std::move(record));
    return records;
}

RunStore::RunStore(QObject* parent) : QObject(parent) {}

int RunStore::add(RunEntry entry) {
    entry.runConfig = runConfigOf(entry.record);
    entry.id = nextId_++;
    if (entry.name.isEmpty()) entry.name = QString("Run %1").arg(entry.id);
    entry.color = nextColor();
    entry.seedLoop = entry.preset() == QString::fromStdString(AblationPlan{}.baseline);
    runs_.push_back(std::move(entry));
    effectiveBaseline_.reset();
    emit runAdded(runs_.back().id);
    return runs_.back().id;
}

int RunStore::addPending(const RunConfig& config) {
    RunEntry entry;
    entry.name = QString::fromStdString(config.name);
    entry.record.config = config;
    entry.record.status = RunStatus::Running;
    entry.queued = true;
    const int id = add(std::move(entry));
    findMutable(id)->record.name = findMutable(id)->name.toStdString();
    return id;
}

int RunStore::addFromFile(const QString& path) {
    // Loaded before anything changes, so a bad file leaves the store as it was.
    return addRecord(RunRecord::load(path.toStdString()), path);
}

std::vector<int> RunStore::addAllFromFile(const QString& path) {
    std::vector<RunRecord> records = readRunFile(path);  // before anything changes
    std::vector<int> ids;
    const bool one = records.size() == 1;
    for (RunRecord& record : records) ids.push_back(addRecord(std::move(record), one ? path : QString()));
    return ids;
}

namespace {
// A run read from `path` (empty for a file of several runs), before it has an id and a colour.
RunEntry entryFor(RunRecord record, const QString& path, bool visible) {
    RunEntry entry;
    entry.name = record.name.empty() ? QFileInfo(path).completeBaseName() : QString::fromStdString(record.name);
    entry.interrupted = record.status == RunStatus::Running;
    entry.digest = digestOf(record);
    entry.record = std::move(record);
    entry.path = path;
    entry.visible = visible;
    return entry;
}
}  // namespace

int RunStore::addRecord(RunRecord record, const QString& path, bool visible) {
    return add(entryFor(std::move(record), path, visible));
}

int RunStore::addSkimmed(SkimmedRun run, const QString& path) {
    RunEntry entry = entryFor(std::move(run.head), path, false);
    entry.digest = run.digest;  // complete before runAdded: the table measures the row as it comes
    entry.epochsOnDisk = true;
    return add(std::move(entry));
}

bool RunStore::ensureEpochs(int id) {
    RunEntry* run = findMutable(id);
    if (!run || !run->epochsOnDisk) return run != nullptr;
    run->epochsOnDisk = false;  // read once, whatever comes of it
    QString failure;
    try {
        std::vector<RunRecord> records = readRunFile(run->path);
        if (records.size() != 1) throw DataError(run->path.toStdString(), "no longer holds one run record");
        run->record.epochs = std::move(records.front().epochs);
    } catch (const std::exception& e) {  // changed or removed since the start: the run stays listed
        failure = QString::fromUtf8(e.what());
    }
    if (failure.isEmpty()) epochsChanged(*run);
    emit runChanged(id);
    if (!failure.isEmpty()) emit epochsUnreadable(id, failure);
    return failure.isEmpty();
}

void RunStore::epochsChanged(RunEntry& run) {
    run.digest = digestOf(run.record);
    effectiveBaseline_.reset();
}

void RunStore::markStarted(int id) {
    RunEntry* run = findMutable(id);
    if (!run || !run->queued) return;
    run->queued = false;
    emit runChanged(id);
}

void RunStore::appendEpoch(int id, const EpochMetrics& metrics) {
    RunEntry* run = findMutable(id);
    if (!run) return;  // removed while it trained: its points have nowhere to go
    run->record.epochs.push_back(metrics);
    epochsChanged(*run);
    emit epochAppended(id);
}

void RunStore::appendEpochs(int id, const QList<EpochMetrics>& metrics) {
    RunEntry* run = findMutable(id);
    if (!run || metrics.isEmpty()) return;
    run->record.epochs.insert(run->record.epochs.end(), metrics.begin(), metrics.end());
    epochsChanged(*run);
    emit epochAppended(id);
}

void RunStore::finish(int id, const RunRecord& record) {
    RunEntry* run = findMutable(id);
    if (!run) return;
    nlohmann::json asked = std::move(run->record.config);
    run->record = record;
    if (!record.config.is_object() || record.config.empty())
        run->record.config = std::move(asked);  // (a stopped setup)
    run->queued = false;
    run->interrupted = false;
    run->epochsOnDisk = false;
    run->record.name = run->name.toStdString();  // the user may have renamed it while it trained
    epochsChanged(*run);
    run->runConfig = runConfigOf(run->record);  // the configuration the backend ran (it may fill in the task)
    emit runChanged(id);
}

void RunStore::remove(int id) {
    const RunEntry* run = find(id);
    if (!run) return;
    runs_.erase(runs_.begin() + (run - runs_.data()));
    effectiveBaseline_.reset();
    emit runRemoved(id);
    if (baseline_ == id) {
        baseline_.reset();
        emit baselineChanged();
    }
}

void RunStore::rename(int id, const QString& name) {
    RunEntry* run = findMutable(id);
    const QString trimmed = name.trimmed();
    if (!run || trimmed.isEmpty() || trimmed == run->name) return;
    run->name = trimmed;
    run->record.name = trimmed.toStdString();
    emit runChanged(id);
}

void RunStore::setVisible(int id, bool visible) {
    RunEntry* run = findMutable(id);
    if (!run || run->visible == visible) return;
    if (visible && run->epochsOnDisk) ensureEpochs(id);  // a chart draws it next
    run->visible = visible;
    emit runChanged(id);
}

void RunStore::setBaseline(int id) {
    if (!find(id) || baseline_ == id) return;
    baseline_ = id;
    effectiveBaseline_.reset();
    emit baselineChanged();
}

void RunStore::clearBaseline() {
    if (!baseline_) return;
    baseline_.reset();
    effectiveBaseline_.reset();
    emit baselineChanged();
}

void RunStore::setPath(int id, const QString& path) {
    RunEntry* run = findMutable(id);
    if (!run || run->path == path) return;
    run->path = path;
    emit runChanged(id);
}

void RunStore::setConfusion(int id, const std::vector<std::size_t>& counts) {
    RunEntry* run = findMutable(id);
    if (!run) return;
    run->confusion = counts;
    emit runChanged(id);
}

const RunEntry* RunStore::find(int id) const {
    // Ids are given in increasing order and runs_ keeps that order: asked for by every cell drawn.
    const auto it = std::lower_bound(runs_.begin(), runs_.end(), id, [](const RunEntry& r, int x) { return r.id < x; });
    return it == runs_.end() || it->id != id ? nullptr : &*it;
}

RunEntry* RunStore::findMutable(int id) {
    return const_cast<RunEntry*>(std::as_const(*this).find(id));
}

std::optional<int> RunStore::effectiveBaseline() const {
    if (effectiveBaseline_) return *effectiveBaseline_;
    auto hasMedian = [](const RunEntry& run) {
        const auto ms = run.digest.summary.medianEpochMs;
        return ms && *ms > 0;
    };
    if (const RunEntry* picked = baseline_ ? find(*baseline_) : nullptr; picked && hasMedian(*picked)) {
        effectiveBaseline_ = picked->id;
    } else {
        auto first = std::find_if(runs_.begin(), runs_.end(),
                                  [&](const RunEntry& run) { return run.seedLoop && hasMedian(run); });
        if (first == runs_.end()) first = std::find_if(runs_.begin(), runs_.end(), hasMedian);
        effectiveBaseline_ = first == runs_.end() ? std::nullopt : std::optional<int>(first->id);
    }
    return *effectiveBaseline_;
}

std::optional<double> RunStore::speedup(int id) const {
    const auto baseId = effectiveBaseline();
    const RunEntry* base = baseId ? find(*baseId) : nullptr;
    const RunEntry* run = find(id);
    if (!base || !run) return std::nullopt;
    const auto baseMs = base->digest.summary.medianEpochMs;
    const auto runMs = run->digest.summary.medianEpochMs;
    if (!baseMs || !runMs || *runMs <= 0) return std::nullopt;
    return *baseMs / *runMs;
}

std::optional<RunStore::SpeedVerdict> RunStore::speedVerdict(int id) const {
    const auto baseId = effectiveBaseline();
    const RunEntry* base = baseId ? find(*baseId) : nullptr;
    const RunEntry* run = find(id);
    if (!base || !run) return std::nullopt;
    const auto baseSpread = timeSpreadOf(base->digest);
    const auto runSpread = timeSpreadOf(run->digest);
    if (!baseSpread || !runSpread || runSpread->median <= 0) return std::nullopt;
    SpeedVerdict verdict;
    verdict.notComparable = workloadDifference(base->record, run->record);
    verdict.comparison = compareSpeed(*baseSpread, *runSpread);
    return verdict;
}

QColor RunStore::nextColor() {
    const auto n = static_cast<std::size_t>(colorIndex_++);
    const QColor base = QColor::fromRgb(kPalette[n % kPalette.size()]).toHsl();
    const float shift = kLightnessShift[(n / kPalette.size()) % kLightnessShift.size()];
    const float lightness = std::clamp(base.lightnessF() + shift, kMinLightness, kMaxLightness);
    return QColor::fromHslF(base.hslHueF(), base.hslSaturationF(), lightness).toRgb();
}

}  // namespace wb::gui
