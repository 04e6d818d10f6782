#include "gui/sweeps/sweep_table_model.h"

#include <QBrush>
#include <QFont>

#include "core/platform/csv_field.h"
#include "sweep/sweep_metric.h"
#include "sweep/sweep_report.h"

namespace wb::gui {

SweepTableModel::SweepTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void SweepTableModel::setTrials(const sweep::SweepPlan* plan, const std::vector<sweep::TrialRow>* views,
                                std::optional<std::size_t> best) {
    const int oldRows = rowCount(), oldColumns = columnCount();
    const bool samePlan = plan == plan_;
    plan_ = plan;
    views_ = views;
    best_ = best;
    if (samePlan && oldRows == rowCount() && oldColumns == columnCount()) {
        if (oldRows > 0) emit dataChanged(index(0, 0), index(oldRows - 1, oldColumns - 1));
        return;
    }
    beginResetModel();
    endResetModel();
}

int SweepTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !views_ ? 0 : static_cast<int>(views_->size());
}

int SweepTableModel::columnCount(const QModelIndex& parent) const {
    if (parent.isValid() || !plan_) return 0;
    return kFirstParameterColumn + static_cast<int>(plan_->parameterNames.size()) + 3;  // metric, epoch ms, note
}

int SweepTableModel::metricColumn() const {
    return plan_ ? kFirstParameterColumn + static_cast<int>(plan_->parameterNames.size()) : -1;
}

int SweepTableModel::trialId(int row) const {
    if (!views_ || row < 0 || row >= rowCount()) return -1;
    return (*views_)[static_cast<std::size_t>(row)].trial->id;
}

QVariant SweepTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole || !plan_) return {};
    if (section == kIdColumn) return "Trial";
    if (section == kStateColumn) return "State";
    const int p = section - kFirstParameterColumn;
    if (p < static_cast<int>(plan_->parameterNames.size()))
        return QString::fromStdString(plan_->parameterNames[static_cast<std::size_t>(p)]);
    if (section == metricColumn())
        return QString::fromStdString(plan_->metric.name) +
               (plan_->metric.goal == sweep::Goal::Minimize ? " \u2193" : " \u2191");
    if (section == metricColumn() + 1) return "Epoch ms";
    return "Note";
}

QVariant SweepTableModel::display(int row, int column) const {
    const auto& v = (*views_)[static_cast<std::size_t>(row)];
    if (column == kIdColumn) return v.trial->id;
    if (column == kStateColumn) return QString::fromStdString(toString(v.status.state));
    const int p = column - kFirstParameterColumn;
    if (p < static_cast<int>(plan_->parameterNames.size()))
        return QString::fromStdString(sweep::valueText(
            v.trial->parameters.value(plan_->parameterNames[static_cast<std::size_t>(p)], nlohmann::json())));
    if (column == metricColumn())
        return QString::fromStdString(sweep::figureText(sweep::shownMetric(v, plan_->metric)));
    if (column == metricColumn() + 1) {
        const auto ms = v.figures.is_object() ? sweep::metricValue(v.figures, "median_epoch_ms") : std::nullopt;
        const bool shared = v.status.timing.rfind("shared", 0) == 0;
        return QString::fromStdString(sweep::figureText(ms)) + (ms && shared ? "*" : "");
    }
    if (!v.status.error.empty() && v.status.state != sweep::TrialState::Completed)
        return QString::fromStdString(v.status.error);
    return QString::fromStdString(v.status.timing);
}

QVariant SweepTableModel::sortKey(int row, int column) const {
    const auto& v = (*views_)[static_cast<std::size_t>(row)];
    const int p = column - kFirstParameterColumn;
    if (p >= 0 && p < static_cast<int>(plan_->parameterNames.size())) {
        const auto value =
            v.trial->parameters.value(plan_->parameterNames[static_cast<std::size_t>(p)], nlohmann::json());
        if (value.is_number()) return value.get<double>();
    }
    if (column == metricColumn()) {  // no metric: sorts first
        const auto metric = sweep::shownMetric(v, plan_->metric);
        return metric ? QVariant(*metric) : QVariant();
    }
    if (column == metricColumn() + 1 && v.figures.is_object()) {
        const auto ms = sweep::metricValue(v.figures, "median_epoch_ms");
        return ms ? QVariant(*ms) : QVariant();
    }
    return display(row, column);
}

QVariant SweepTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !views_ || index.row() >= rowCount()) return {};
    const auto& v = (*views_)[static_cast<std::size_t>(index.row())];
    switch (role) {
        case Qt::DisplayRole: return display(index.row(), index.column());
        case kSortRole: return sortKey(index.row(), index.column());
        case Qt::ToolTipRole:
            if (index.column() == metricColumn() + 1 && v.status.timing.rfind("shared", 0) == 0)
                return "Measured while other trials shared the machine (" + QString::fromStdString(v.status.timing) +
                       "); run with --exclusive to compare times";
            return display(index.row(), index.column());
        case Qt::FontRole:
            if (best_ && *best_ == static_cast<std::size_t>(index.row())) {
                QFont bold;
                bold.setBold(true);
                return bold;
            }
            return {};
        case Qt::ForegroundRole:
            if (index.column() != kStateColumn) return {};
            switch (v.status.state) {
                case sweep::TrialState::Failed:
                case sweep::TrialState::Damaged: return QBrush(QColor(190, 30, 30));
                case sweep::TrialState::Cancelled:
                case sweep::TrialState::Stopped: return QBrush(QColor(120, 120, 120));
                case sweep::TrialState::Running: return QBrush(QColor(20, 90, 200));
                default: return {};
            }
        default: return {};
    }
}

namespace {
QString csvField(const QString& text) {
    return QString::fromStdString(csv::field(text.toStdString()));
}
}  // namespace

QString SweepTableModel::toCsv(const std::vector<int>& rows) const {
    QString csv;
    QStringList header;
    for (int c = 0; c < columnCount(); ++c) header << csvField(headerData(c, Qt::Horizontal).toString());
    csv += header.join(',').replace(" \u2193", "").replace(" \u2191", "") + "\n";
    for (int r : rows) {
        QStringList fields;
        for (int c = 0; c < columnCount(); ++c) fields << csvField(display(r, c).toString());
        csv += fields.join(',') + "\n";
    }
    return csv;
}

}  // namespace wb::gui
