#include "gui/runs/run_repeats.h"

#include <QRegularExpression>
#include <QSet>
#include <algorithm>
#include <utility>

#include <nlohmann/json.hpp>

#include "gui/runs/run_store.h"

namespace wb::gui {

namespace {
QString uniqueName(const QString& wanted, const QSet<QString>& taken) {
    if (!taken.contains(wanted)) return wanted;
    for (int n = 2;; ++n)
        if (const QString name = QString("%1 #%2").arg(wanted).arg(n); !taken.contains(name)) return name;
}
}  // namespace

std::vector<RunConfig> planRepeats(const std::vector<RunConfig>& configs, int repeats, const QStringList& taken) {
    repeats = std::max(repeats, 1);
    QSet<QString> names(taken.begin(), taken.end());
    std::vector<RunConfig> plan;
    for (int round = 1; round <= repeats; ++round)
        for (RunConfig config : configs) {
            QString name = QString::fromStdString(config.name);
            if (repeats > 1) name += QString(" \u00b7 %1/%2").arg(round).arg(repeats);
            name = uniqueName(name, names);
            names.insert(name);
            config.name = name.toStdString();
            plan.push_back(std::move(config));
        }
    return plan;
}

QString repeatedName(const QString& runName) {
    static const QRegularExpression suffix(QString::fromUtf8("( \u00b7 \\d+/\\d+)?( #\\d+)?$"));
    QString name = runName;
    name.remove(suffix);
    return name.isEmpty() ? runName : name;
}

std::string repeatGroupKey(const RunEntry& run) {
    nlohmann::json config = run.record.config;
    if (config.is_object()) config.erase("name");
    return repeatedName(run.name).toStdString() + '\n' + config.dump();
}

}  // namespace wb::gui
