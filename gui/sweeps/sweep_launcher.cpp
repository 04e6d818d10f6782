#include "gui/sweeps/sweep_launcher.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>

namespace wb::gui {

QString mlpwbProgram() {
    const QDir here(QCoreApplication::applicationDirPath());
    for (const QString& candidate : {here.filePath("mlpwb"), here.filePath("../cli/mlpwb")})
        if (QFileInfo(candidate).isExecutable()) return QFileInfo(candidate).canonicalFilePath();
    return QStandardPaths::findExecutable("mlpwb");
}

QString launchSweep(const SweepLaunch& launch) {
    const QString program = mlpwbProgram();
    if (program.isEmpty()) return "mlpwb was not found beside the workbench or on PATH (install the mlpwb package)";
    const QStringList args =
        QStringList{"sweep", launch.specPath, "--out", launch.outDir} + launch.engineArgs + launch.baseArgs;
    QProcess check;
    check.start(program, args + QStringList{"--dry-run"});
    if (!check.waitForFinished(60000)) {
        check.kill();
        return "mlpwb did not answer the check of the sweep file within a minute";
    }
    if (check.exitStatus() != QProcess::NormalExit || check.exitCode() != 0) {
        QString why = QString::fromUtf8(check.readAllStandardError()).trimmed();
        if (why.startsWith("mlpwb: ")) why = why.mid(7);
        return why.isEmpty() ? "mlpwb refused the sweep (exit " + QString::number(check.exitCode()) + ")" : why;
    }
    // Detached: its output goes to the folder's log beside the trials' (mlpwb creates the folder).
    QProcess sweep;
    sweep.setProgram(program);
    sweep.setArguments(args);
    sweep.setStandardOutputFile(launch.outDir + ".log");
    sweep.setStandardErrorFile(launch.outDir + ".log", QIODevice::Append);
    sweep.setStandardInputFile(QProcess::nullDevice());
    if (!sweep.startDetached()) return "mlpwb could not be started: " + sweep.errorString();
    return {};
}

}  // namespace wb::gui
