// Starting a sweep from the GUI: the same `mlpwb sweep` a shell would run, so the GUI never trains a
// sweep itself and a sweep outlives the window (it runs detached, its folder is the truth). The
// spec is checked first with --dry-run, so a refusal is shown where the user acted.
#pragma once

#include <QString>
#include <QStringList>

namespace wb::gui {

// The mlpwb to run: beside this program (installed together), the build tree's cli/, then PATH.
// Empty when there is none.
QString mlpwbProgram();

struct SweepLaunch {
    QString specPath;        // the sweep file (YAML)
    QString outDir;          // the sweep folder, created by mlpwb
    QStringList engineArgs;  // --engine ..., --jobs ..., --slurm-arg=...
    QStringList baseArgs;    // the current configuration as `mlpwb train` options
};

// Checks (`mlpwb sweep ... --dry-run`) and starts the sweep detached. Returns "" when it started,
// else the reason (mlpwb's own one-line message for a refused spec).
QString launchSweep(const SweepLaunch& launch);

}  // namespace wb::gui
