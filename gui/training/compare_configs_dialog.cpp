#include "gui/training/compare_configs_dialog.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "core/run/workload.h"
#include "gui/runs/run_store.h"

namespace wb::gui {

namespace {
const QString kNotSet = "(not set)";

// {"optimizer": {"lr": 0.001}} -> {"optimizer.lr": "0.001"}. Arrays stay one value ("[20,10]"):
// a list of layer widths reads better whole than as model.hidden.0, model.hidden.1.
void flatten(const nlohmann::json& j, const std::string& prefix, std::map<std::string, std::string>& out) {
    if (j.is_object() && !j.empty()) {
        for (const auto& [key, value] : j.items()) {
            std::string dotted = prefix;
            if (!dotted.empty()) dotted += '.';
            dotted += key;
            flatten(value, dotted, out);
        }
        return;
    }
    out[prefix] = j.is_string() ? j.get<std::string>() : j.dump();
}

std::map<std::string, std::string> flattenConfig(const nlohmann::json& config) {
    std::map<std::string, std::string> out;
    if (!config.is_object()) return out;
    flatten(config, "", out);
    out.erase("name");  // every run has its own name; it is not a setting
    return out;
}

QString valueOf(const std::map<std::string, std::string>& values, const std::string& key) {
    const auto it = values.find(key);
    return it == values.end() ? kNotSet : QString::fromStdString(it->second);
}

// The record's facts that a config does not hold: what the data turned out to be, and where it ran.
nlohmann::json recordFacts(const RunEntry& run) {
    const DatasetDescription& d = run.record.dataset;
    nlohmann::json facts = nlohmann::json::object();
    if (!d.source.empty()) facts["dataset"]["source"] = d.source;
    if (d.rows) facts["dataset"]["rows"] = d.rows;
    if (!d.hash.empty()) facts["dataset"]["hash"] = d.hash;
    if (d.trainRows) facts["dataset"]["train_rows"] = d.trainRows;
    for (const char* key : {"device", "machine", "threads"})
        if (const auto it = run.record.environment.find(key); it != run.record.environment.end())
            facts["environment"][key] = it->second;
    return facts;
}

QTableWidget* makeTable(const QString& name, const std::vector<ConfigDifference>& diffs, const QString& nameA,
                        const QString& nameB, const QColor& highlight) {
    auto* table = new QTableWidget(static_cast<int>(diffs.size()), 3);
    table->setObjectName(name);
    table->setHorizontalHeaderLabels({"Setting", nameA, nameB});
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    for (int row = 0; row < table->rowCount(); ++row) {
        const ConfigDifference& d = diffs[static_cast<std::size_t>(row)];
        int column = 0;
        for (const QString& text : {d.key, d.a, d.b}) {
            auto* item = new QTableWidgetItem(text);
            item->setToolTip(text);
            if (highlight.isValid()) item->setBackground(highlight);
            table->setItem(row, column++, item);
        }
    }
    table->resizeColumnsToContents();
    table->horizontalHeader()->setStretchLastSection(true);
    return table;
}
}  // namespace

std::vector<ConfigDifference> configDifferences(const nlohmann::json& a, const nlohmann::json& b) {
    const auto flatA = flattenConfig(a);
    const auto flatB = flattenConfig(b);
    std::set<std::string> keys;
    for (const auto& [key, value] : flatA) keys.insert(key);
    for (const auto& [key, value] : flatB) keys.insert(key);
    std::vector<ConfigDifference> diffs;
    for (const auto& key : keys) {
        const QString va = valueOf(flatA, key);
        const QString vb = valueOf(flatB, key);
        if (va != vb) diffs.push_back({QString::fromStdString(key), va, vb});
    }
    return diffs;
}

bool isWorkloadKey(const QString& key) {
    for (const char* prefix : {"data.", "dataset.", "prepare.", "model.", "optimizer."})
        if (key.startsWith(prefix)) return true;
    return key == "train.batch_size" || key == "train.epochs";
}

CompareConfigsDialog::CompareConfigsDialog(const RunEntry& a, const RunEntry& b, QWidget* parent) : QDialog(parent) {
    setObjectName("configDiffDialog");
    setWindowTitle(QString("Compare configs: %1 vs %2").arg(a.name, b.name));
    nlohmann::json configA = a.record.config, configB = b.record.config;
    if (configA.is_object()) configA.update(recordFacts(a));
    if (configB.is_object()) configB.update(recordFacts(b));
    for (ConfigDifference& d : configDifferences(configA, configB))
        (isWorkloadKey(d.key) ? workload_ : execution_).push_back(std::move(d));

    const auto difference = workloadDifference(a.record, b.record);
    verdict_ = difference
                   ? QString("Different workload \u2014 not comparable: %1").arg(QString::fromStdString(*difference))
                   : QString("Same workload: speed comparable");
    auto* layout = new QVBoxLayout(this);
    auto* header = new QLabel(verdict_);
    header->setObjectName("workloadVerdict");
    header->setWordWrap(true);
    QFont bold = header->font();
    bold.setBold(true);
    header->setFont(bold);
    QPalette palette = header->palette();
    palette.setColor(QPalette::WindowText, difference ? QColor(176, 0, 32) : QColor(0, 110, 40));
    header->setPalette(palette);
    layout->addWidget(header);
    if (!workload_.empty()) {
        layout->addWidget(new QLabel(QString("Workload: %1 setting(s) differ").arg(workload_.size())));
        layout->addWidget(makeTable("workloadTable", workload_, a.name, b.name, QColor(255, 224, 178)));
    }
    if (execution_.empty()) {
        layout->addWidget(new QLabel(workload_.empty() ? "The two configurations are identical."
                                                       : "The execution settings are the same."));
    } else {
        layout->addWidget(new QLabel(QString("Execution and other settings: %1 differ").arg(execution_.size())));
        layout->addWidget(makeTable("executionTable", execution_, a.name, b.name, QColor()));
    }
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    resize(680, 420);
}

}  // namespace wb::gui
