// "Compare configs…" for two runs: first whether their speeds can be compared at all (the workload —
// data by content hash and prepared split, model, optimizer, batch size, epochs — must be the same:
// core/run/workload.h), then the workload settings that differ (highlighted), then the execution
// switches and the other settings that differ (what a comparison is about).
#pragma once

#include <QDialog>
#include <QString>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace wb::gui {

struct RunEntry;

// One setting that differs between two configs: its dotted key ("optimizer.lr") and both values
// ("(not set)" where a config lacks it). Strings appear without quotes, arrays as JSON.
struct ConfigDifference {
    QString key;
    QString a;
    QString b;
};
// The settings (every key but the run's name) whose values differ, sorted by key.
std::vector<ConfigDifference> configDifferences(const nlohmann::json& a, const nlohmann::json& b);

// Whether a dotted config key (or a "dataset." fact of the record) belongs to the run's workload.
bool isWorkloadKey(const QString& key);

class CompareConfigsDialog : public QDialog {
    Q_OBJECT

public:
    CompareConfigsDialog(const RunEntry& a, const RunEntry& b, QWidget* parent = nullptr);

    // "Same workload: speed comparable" or "Different workload — not comparable: <first difference>".
    QString verdict() const { return verdict_; }
    const std::vector<ConfigDifference>& workloadDifferences() const { return workload_; }
    const std::vector<ConfigDifference>& executionDifferences() const { return execution_; }

private:
    QString verdict_;
    std::vector<ConfigDifference> workload_;
    std::vector<ConfigDifference> execution_;
};

}  // namespace wb::gui
