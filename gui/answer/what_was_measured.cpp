#include "gui/answer/what_was_measured.h"

#include <QLocale>
#include <algorithm>
#include <cmath>
#include <set>

namespace wb::gui {

namespace {
QString esc(const QString& text) {
    return text.toHtmlEscaped();
}

QString count(std::size_t n) {
    return QLocale(QLocale::English).toString(static_cast<qulonglong>(n));
}

QString plural(std::size_t n, const QString& one, const QString& many) {
    return count(n) + " " + (n == 1 ? one : many);
}

// The first run of the first measured step: what every step of the ablation trained on.
const RunRecord* firstRun(const AblationResult& a) {
    for (const auto& s : a.steps)
        if (s.measured()) return &s.runs.front();
    return nullptr;
}

std::string valueOf(const std::map<std::string, std::string>& env, const std::string& key) {
    const auto it = env.find(key);
    return it == env.end() ? std::string() : it->second;
}

QString q(const std::string& text) {
    return QString::fromStdString(text);
}
}  // namespace

QString workloadText(const AblationResult& a) {
    const RunRecord* run = firstRun(a);
    if (!run) return {};
    const DatasetDescription& d = run->dataset;
    QString text = plural(d.rows, "row", "rows") + " \u00d7 " + plural(d.features, "feature", "features");
    if (d.valRows > 0) text += " (" + count(d.trainRows) + " to train, " + count(d.valRows) + " to validate)";
    if (const auto config = runConfigOf(*run)) text += ", batch " + QString::number(config->train.batchSize);
    const auto warmups = static_cast<std::size_t>(
        std::count_if(run->epochs.begin(), run->epochs.end(), [](const EpochMetrics& e) { return e.warmup; }));
    text += ", " + plural(run->epochs.size(), "epoch", "epochs") + " per run";
    if (warmups == 1) text += " (the first a warm-up, left out of the times)";
    if (warmups > 1) text += " (the first " + count(warmups) + " warm-ups, left out of the times)";
    return text;
}

QString roundsText(const AblationResult& a) {
    const int made = a.roundsMade();
    QString text = plural(static_cast<std::size_t>(made), "round", "rounds") + " (" + QString::number(a.plan.repeats) +
                   " at least";
    if (a.plan.budgetSeconds > 0)
        text += QString("; more until every median is known to \u00b1%1 %, within %2 s")
                    .arg(a.plan.target * 100, 0, 'g', 3)
                    .arg(a.plan.budgetSeconds, 0, 'f', 0);
    else
        text += "; no time budget for more";
    text += ")";
    if (!a.precision.empty()) text += ": " + q(a.precision);
    return text;
}

QString machineText(const MachineLoad& m) {
    QStringList parts;
    if (m.otherCores)
        parts << QString("other programs kept %1 of the machine's %2 cores busy")
                         .arg(*m.otherCores, 0, 'f', 1)
                         .arg(m.cores) +
                     (m.busy() ? QString(" (a busy machine: wider intervals)") : QString());
    if (m.loadBefore && m.loadAfter)
        parts << QString("load %1 \u2192 %2").arg(*m.loadBefore, 0, 'f', 1).arg(*m.loadAfter, 0, 'f', 1);
    if (m.mhz) parts << QString("CPU clock %1 MHz").arg(*m.mhz, 0, 'f', 0);
    if (m.stealPercent) parts << QString("stolen by a hypervisor: %1 %").arg(*m.stealPercent, 0, 'f', 1);
    if (parts.isEmpty()) return {};
    QString text = parts.join("; ") + ".";
    text[0] = text[0].toUpper();
    return text;
}

QString environmentSummary(const std::map<std::string, std::string>& env) {
    if (env.empty()) return {};
    QStringList versions;
    const std::string framework = valueOf(env, "framework");
    if (!framework.empty()) versions << q(framework + " " + valueOf(env, framework + "_version")).trimmed();
    // The framework's companions its loop reported ("framework_tensorflow", "framework_jaxlib"),
    // then every other version the run recorded; the loop's own facts repeat what is said already.
    static const std::set<std::string> kLoopFacts = {"framework", "python",      "python_version",
                                                     "device",    "device_name", "threads"};
    for (const auto& [key, value] : env) {
        const std::string fact = key.starts_with("framework_") ? key.substr(10) : std::string();
        if (!fact.empty() && fact != framework && !kLoopFacts.count(fact) && !value.empty())
            versions << q(fact + " " + value);
    }
    for (const auto& [key, value] : env) {
        const bool version = key.size() > 8 && key.ends_with("_version") && !key.starts_with("framework_");
        if (version && key != framework + "_version" && key != "python_version")
            versions << q(key.substr(0, key.size() - 8) + " " + value);
    }
    if (const std::string eigen = valueOf(env, "eigen"); !eigen.empty()) versions << q("Eigen " + eigen);
    if (const std::string python = valueOf(env, "python_version"); !python.empty()) versions << q("Python " + python);
    QStringList parts;
    if (!versions.isEmpty()) parts << versions.join(", ");
    std::string device = valueOf(env, "framework_device");
    const std::string deviceName = valueOf(env, "framework_device_name");
    if (device.empty()) device = valueOf(env, "device");
    if (!device.empty())
        parts << "device " + q(device) + (deviceName.empty() || deviceName == device ? "" : " (" + q(deviceName) + ")");
    if (const std::string target = valueOf(env, "cpu_target"); !target.empty()) parts << "CPU kernels " + q(target);
    std::string threads = valueOf(env, "framework_threads");
    if (threads.empty()) threads = valueOf(env, "threads");
    if (!threads.empty()) {
        const std::string hardware = valueOf(env, "hardware_threads");
        parts << q(threads) + (threads == "1" ? " thread" : " threads") +
                     (hardware.empty() ? QString() : " of " + q(hardware));
    }
    return parts.join("; ");
}

const std::map<std::string, std::string>& recordedEnvironment(const AblationResult& a) {
    static const std::map<std::string, std::string> kNone;
    const RunRecord* run = firstRun(a);
    return run ? run->environment : kNone;
}

QString whatWasMeasuredHtml(const Answer& answer) {
    QString html;
    if (answer.status == AnswerStatus::Running)
        html += "<p><i>Provisional: measured so far, while the answer is still running.</i></p>";
    for (const auto& e : answer.engines) {
        if (!e.ablation || !firstRun(*e.ablation)) continue;
        const AblationResult& a = *e.ablation;
        QString line = "<b>" + esc(q(e.engine)) + "</b>";
        if (const QString env = environmentSummary(recordedEnvironment(a)); !env.isEmpty())
            line += " (" + esc(env) + ")";
        line += ": " + esc(workloadText(a)) + "; " + esc(roundsText(a)) + ".";
        if (a.machine)
            if (const QString machine = machineText(*a.machine); !machine.isEmpty()) line += " " + esc(machine);
        if (a.status == AblationStatus::Running) line += " <i>Still measuring.</i>";
        html += "<p>" + line + "</p>";
    }
    return html;
}

}  // namespace wb::gui
