#include "gui/runs/pytorch_export.h"

#include <QFile>
#include <QRegularExpression>
#include <QSaveFile>

#include <nlohmann/json.hpp>

#include "core/platform/errors.h"
#include "frameworks/fixed_loop_script.h"
#include "frameworks/framework_backend.h"
#include "gui/runs/run_store.h"

namespace wb::gui {

RunConfig torchConfigOf(const RunEntry& run) {
    // A peer (bench/peers) writes its own keys; read as ours they would become a default loop.
    RunConfig config = requireRunConfig(run.record);
    config.backend = "torch";
    if (config.name.empty()) config.name = run.name.toStdString();
    return config;
}

namespace {
// `script` to `path` (replacing it whole, or leaving it as it was), executable.
void writeScript(const std::string& script, const QString& path) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        throw IoError("cannot write " + path.toStdString() + ": " + file.errorString().toStdString());
    file.write(script.data(), static_cast<qint64>(script.size()));
    if (!file.commit()) throw IoError("cannot write " + path.toStdString() + ": " + file.errorString().toStdString());
    // A script to run: python3 loop.py --data x.npy --labels y.npy (its first line names python3).
    QFile::Permissions p = QFile::permissions(path);  // executable wherever it is readable, like chmod +x
    if (p & QFile::ReadOwner) p |= QFile::ExeOwner | QFile::ExeUser;
    if (p & QFile::ReadGroup) p |= QFile::ExeGroup;
    if (p & QFile::ReadOther) p |= QFile::ExeOther;
    QFile::setPermissions(path, p);
}
}  // namespace

void exportPytorchScript(const RunEntry& run, const QString& path) {
    // For the PyTorch the run's record names, else the newest on the CPU: the record's interpreter is
    // text from a file, never a program to ask. May throw ConfigError: nothing written.
    writeScript(frameworkScript(torchConfigOf(run), recordedFrameworkFacts("torch", run.record.environment)), path);
}

void exportFixedLoopScript(const Answer& answer, const std::string& source, const QString& path) {
    writeScript(fixedLoopScript(answer, "torch", source), path);  // may throw DataError: nothing written
}

QString scriptFileName(const RunEntry& run) {
    static const QRegularExpression notWord("[^a-z0-9]+");
    QString base = run.name.toLower().replace(notWord, "_");
    base.remove(QRegularExpression("^_+|_+$"));
    return (base.isEmpty() ? QString("run") : base) + ".py";
}

}  // namespace wb::gui
