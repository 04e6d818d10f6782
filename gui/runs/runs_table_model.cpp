#include "gui/runs/runs_table_model.h"

#include <QBrush>
#include <QFont>
#include <algorithm>
#include <array>

#include <nlohmann/json.hpp>

#include "gui/runs/run_store.h"

namespace wb::gui {

namespace {
constexpr std::array<const char*, RunsTableModel::ColumnCount> kHeaders = {
    "Show",          "Name",         "Data set",   "Preset",     "Backend / device", "Status",
    "Progress",      "Median epoch", "Total time", "Train loss", "Train acc. / R²",  "Val loss",
    "Val acc. / R²", "Speedup",      "Message"};

constexpr std::array<const char*, RunsTableModel::ColumnCount> kHeaderTips = {
    "Colour in the charts; untick to hide the run there",
    "Double-click to rename",
    "The data the run trained on: built-in (the generator) or the file's name",
    "The execution preset the run's switches match (custom when none, peer for PyTorch/JAX/Keras files)",
    "Where it ran",
    "Hover a status for its message",
    "Epochs done / epochs asked for",
    "Median wall time of an epoch, the warm-up epoch excluded",
    "Sum of the epochs' wall times",
    "Training loss after the last epoch",
    "After the last epoch: training accuracy, or for a regression R² and the mean absolute error",
    "Validation loss after the last epoch (empty without a validation split)",
    "After the last epoch: validation accuracy, or for a regression R² and the mean absolute error (empty "
    "without a validation split)",
    "Median epoch time of the baseline run divided by this run's (higher is faster)",
    "Why the run failed, diverged or was cancelled"};

QString formatMs(double ms) {
    return QString("%1 ms").arg(ms, 0, 'f', ms < 10 ? 2 : 1);
}

QString formatDuration(double ms) {
    if (ms < 1000) return QString("%1 ms").arg(ms, 0, 'f', 0);
    const double seconds = ms / 1000;
    if (seconds < 60) return QString("%1 s").arg(seconds, 0, 'f', 1);
    const auto whole = static_cast<long long>(seconds);
    return QString("%1 min %2 s").arg(whole / 60).arg(whole % 60, 2, 10, QChar('0'));
}

QString formatPercent(double fraction) {
    return QString("%1 %").arg(fraction * 100, 0, 'f', 1);
}

// A regression's quality in a cell: R² first (the accuracy's place), then the error in the target's units.
QString formatRegression(const RegressionMetrics& r) {
    return QString("R² %1 · MAE %2").arg(r.r2, 0, 'f', 3).arg(r.mae, 0, 'g', 4);
}

// The final accuracy of a classification, the final R²/MAE of a regression (whose accuracy is null).
QVariant qualityText(const EpochMetrics& last, bool validation) {
    if (last.trainRegression) {
        const auto& r = validation ? last.valRegression : last.trainRegression;
        return r ? QVariant(formatRegression(*r)) : QVariant();
    }
    if (!validation) return formatPercent(last.trainAccuracy);
    return last.valAccuracy ? QVariant(formatPercent(*last.valAccuracy)) : QVariant();
}

QVariant qualityValue(const EpochMetrics& last, bool validation) {
    if (last.trainRegression) {
        const auto& r = validation ? last.valRegression : last.trainRegression;
        return r ? QVariant(r->r2) : QVariant();
    }
    if (!validation) return last.trainAccuracy;
    return last.valAccuracy ? QVariant(*last.valAccuracy) : QVariant();
}

// "cpu / AMD EPYC", "torch 1.13.1 / cuda": a framework's version, and where it trained (its own
// device word when it names no device; Python's platform.processor() is often empty on Linux).
QString backendAndDevice(const RunEntry& run) {
    const auto& env = run.record.environment;
    auto value = [&env](const std::string& key) {
        const auto it = env.find(key);
        return it == env.end() ? QString() : QString::fromStdString(it->second);
    };
    QString backend = run.backend();
    if (const QString version = value(backend.toStdString() + "_version"); !version.isEmpty()) backend += " " + version;
    QString device = value("device");
    if (device.isEmpty()) device = value("framework_device");
    return device.isEmpty() ? backend : backend + " / " + device;
}

bool isNumeric(int column) {
    return column >= RunsTableModel::Progress && column <= RunsTableModel::Speedup;
}

// A text for a value that may be missing.
QVariant textOr(const std::optional<double>& value, QString (*format)(double)) {
    return value ? QVariant(format(*value)) : QVariant();
}

QString formatLoss(double loss) {
    return QString::number(loss, 'f', 4);
}

QString statusText(const RunEntry& run) {
    if (run.queued) return "queued";
    if (run.interrupted) return "interrupted";
    return QString::fromStdString(toString(run.record.status));
}

const QString kInterruptedTip =
    "Its file still says running: the session that trained it ended before the run did. The epochs it "
    "recorded are shown.";
}  // namespace

RunsTableModel::RunsTableModel(RunStore* store, QObject* parent) : QAbstractTableModel(parent), store_(store) {
    for (const RunEntry& run : store_->runs()) {
        ids_.push_back(run.id);
        texts_.push_back(cachedTextOf(run));
    }
    connect(store_, &RunStore::runAdded, this, &RunsTableModel::onRunAdded);
    connect(store_, &RunStore::runRemoved, this, &RunsTableModel::onRunRemoved);
    connect(store_, &RunStore::runChanged, this, &RunsTableModel::onRunChanged);
    connect(store_, &RunStore::epochAppended, this, &RunsTableModel::onRunChanged);
    connect(store_, &RunStore::baselineChanged, this, &RunsTableModel::onBaselineChanged);
}

int RunsTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(ids_.size());
}

int RunsTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

int RunsTableModel::runId(int row) const {
    return row >= 0 && row < rowCount() ? ids_[static_cast<std::size_t>(row)] : 0;
}

int RunsTableModel::rowOf(int id) const {
    // Rows keep the store's order, in which ids only grow.
    const auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
    return it == ids_.end() || *it != id ? -1 : static_cast<int>(it - ids_.begin());
}

QVariant RunsTableModel::data(const QModelIndex& index, int role) const {
    const RunEntry* run = index.isValid() ? store_->find(runId(index.row())) : nullptr;
    if (!run) return {};
    const int column = index.column();
    switch (role) {
        case Qt::DisplayRole: return cachedOr(index.row(), column, *run);
        case Qt::EditRole: return column == Name ? QVariant(run->name) : cachedOr(index.row(), column, *run);
        case Qt::DecorationRole: return column == Shown ? QVariant(run->color) : QVariant();
        case Qt::CheckStateRole:
            return column == Shown ? QVariant(static_cast<int>(run->visible ? Qt::Checked : Qt::Unchecked))
                                   : QVariant();
        case Qt::ToolTipRole: return toolTip(*run, column);
        case Qt::TextAlignmentRole:
            return isNumeric(column) ? QVariant(static_cast<int>(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
        case Qt::ForegroundRole: {
            const bool bad = run->record.status == RunStatus::Failed || run->record.status == RunStatus::Diverged ||
                             run->interrupted;
            return column == Status && bad ? QVariant(QBrush(QColor(0xc6, 0x28, 0x28))) : QVariant();
        }
        case Qt::FontRole: {
            // Asked of every cell a view sizes or paints: the baseline (a median) only where it matters.
            if ((column != Speedup && column != Name) || store_->effectiveBaseline() != run->id) return {};
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        case RunIdRole: return run->id;
        case SortRole: return sortValue(*run, column);
        default: return {};
    }
}

QVariant RunsTableModel::display(const RunEntry& run, int column) const {
    const RunSummary& summary = run.digest.summary;
    const auto& last = summary.final;
    switch (column) {
        case Name: return run.name;
        case Dataset: return run.dataset();
        case Preset: return run.preset();
        case Backend: return backendAndDevice(run);
        case Status: return statusText(run);
        case Progress: return QString("%1/%2").arg(run.digest.epochCount).arg(run.plannedEpochs());
        case MedianEpochMs: return textOr(summary.medianEpochMs, formatMs);
        case TotalTime: return run.digest.epochCount == 0 ? QVariant() : formatDuration(summary.totalMs);
        case TrainLoss: return last ? QVariant(formatLoss(last->trainLoss)) : QVariant();
        case TrainAccuracy: return last ? qualityText(*last, false) : QVariant();
        case ValLoss: return last ? textOr(last->valLoss, formatLoss) : QVariant();
        case ValAccuracy: return last ? qualityText(*last, true) : QVariant();
        case Message: return QString::fromStdString(run.record.message).section('\n', 0, 0);
        case Speedup: {
            if (store_->effectiveBaseline() == run.id) return QString("baseline");
            // The chart's rule: a ratio only where it is measurable and the workloads match.
            const auto verdict = store_->speedVerdict(run.id);
            if (!verdict) return {};
            if (verdict->notComparable) return QString("not comparable");
            if (!verdict->comparison.measurable) return QString("≈ same");
            return QString("%1×").arg(verdict->comparison.ratio, 0, 'f', 2);
        }
        default: return {};
    }
}

QVariant RunsTableModel::sortValue(const RunEntry& run, int column) const {
    const RunSummary& summary = run.digest.summary;
    const auto& last = summary.final;
    auto number = [](const std::optional<double>& v) { return v ? QVariant(*v) : QVariant(); };
    switch (column) {
        case Shown: return run.visible;
        case Progress: return static_cast<qulonglong>(run.digest.epochCount);
        case MedianEpochMs: return number(summary.medianEpochMs);
        case TotalTime: return summary.totalMs;
        case TrainLoss: return last ? QVariant(last->trainLoss) : QVariant();
        case TrainAccuracy: return last ? qualityValue(*last, false) : QVariant();
        case ValLoss: return last ? number(last->valLoss) : QVariant();
        case ValAccuracy: return last ? qualityValue(*last, true) : QVariant();
        case Speedup: return store_->effectiveBaseline() == run.id ? QVariant(1.0) : number(store_->speedup(run.id));
        default: return cachedOr(rowOf(run.id), column, run);
    }
}

// The texts a filter reads for every row (the preset matches the switches against every preset):
// computed when the row comes or changes, not each time they are asked for.
RunsTableModel::CachedText RunsTableModel::cachedTextOf(const RunEntry& run) const {
    return {display(run, Dataset).toString(), display(run, Preset).toString(), display(run, Backend).toString()};
}

QVariant RunsTableModel::cachedOr(int row, int column, const RunEntry& run) const {
    if (row < 0 || static_cast<std::size_t>(row) >= texts_.size()) return display(run, column);
    const CachedText& cached = texts_[static_cast<std::size_t>(row)];
    switch (column) {
        case Dataset: return cached.dataset;
        case Preset: return cached.preset;
        case Backend: return cached.backend;
        default: return display(run, column);
    }
}

QVariant RunsTableModel::toolTip(const RunEntry& run, int column) const {
    switch (column) {
        case Status:
            if (run.interrupted) return kInterruptedTip;
            [[fallthrough]];
        case Message:
            return run.record.message.empty() ? QVariant() : QVariant(QString::fromStdString(run.record.message));
        case Dataset: {
            const QString source = QString::fromStdString(run.record.dataset.source);
            return source.isEmpty() ? QVariant() : QVariant(source);
        }
        case Name: return run.path.isEmpty() ? QVariant() : QVariant(run.path);
        case Speedup:
            if (store_->effectiveBaseline() != run.id) {
                const auto verdict = store_->speedVerdict(run.id);
                if (!verdict) return {};
                return QString::fromStdString(verdict->notComparable ? "not comparable: " + *verdict->notComparable
                                                                     : verdict->comparison.label());
            }
            return store_->baseline() == run.id ? QVariant("The run the others are compared with")
                                                : QVariant(
                                                      "The first run with epoch times: the others are compared with "
                                                      "it until you pick a baseline (Set as baseline)");
        default: return {};
    }
}

QVariant RunsTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
    const auto column = static_cast<std::size_t>(section);
    if (role == Qt::DisplayRole) return QString(kHeaders[column]);
    if (role == Qt::ToolTipRole) return QString(kHeaderTips[column]);
    return {};
}

Qt::ItemFlags RunsTableModel::flags(const QModelIndex& index) const {
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (!index.isValid()) return f;
    if (index.column() == Shown) f |= Qt::ItemIsUserCheckable;
    if (index.column() == Name) f |= Qt::ItemIsEditable;
    return f;
}

bool RunsTableModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    const int id = index.isValid() ? runId(index.row()) : 0;
    if (!store_->find(id)) return false;
    if (index.column() == Shown && role == Qt::CheckStateRole) {
        store_->setVisible(id, value.toInt() == Qt::Checked);
        return true;
    }
    if (index.column() == Name && role == Qt::EditRole) {
        if (value.toString().trimmed().isEmpty()) return false;  // a run keeps a name
        store_->rename(id, value.toString());
        return true;
    }
    return false;
}

void RunsTableModel::onRunAdded(int id) {
    const int row = rowCount();
    const CachedText text = cachedTextOf(*store_->find(id));
    beginInsertRows({}, row, row);
    ids_.push_back(id);
    texts_.push_back(text);
    endInsertRows();
}

void RunsTableModel::onRunRemoved(int id) {
    const int row = rowOf(id);
    if (row < 0) return;
    beginRemoveRows({}, row, row);
    ids_.erase(ids_.begin() + row);
    texts_.erase(texts_.begin() + row);
    endRemoveRows();
    onBaselineChanged();  // it may have been the baseline: the next run with epochs takes over
}

void RunsTableModel::onRunChanged(int id) {
    const int row = rowOf(id);
    const RunEntry* run = store_->find(id);
    if (row < 0 || !run) return;
    texts_[static_cast<std::size_t>(row)] = cachedTextOf(*run);
    emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
    // The baseline's median moves while it trains, and with it every other run's speedup.
    if (store_->effectiveBaseline() == id) onBaselineChanged();
}

void RunsTableModel::onBaselineChanged() {
    if (ids_.empty()) return;
    // Only the speedup column and the names (the baseline's is bold) change.
    emit dataChanged(index(0, Name), index(rowCount() - 1, Name));
    emit dataChanged(index(0, Speedup), index(rowCount() - 1, Speedup));
}

}  // namespace wb::gui
