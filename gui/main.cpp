// mlp-workbench: the desktop workbench. With --export-chart it renders a chart from RunRecord
// files without showing a window (for scripts), and exits.
#include <QApplication>
#include <QCommandLineParser>
#include <QScreen>
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "core/train/plugin_loader.h"
#include "frameworks/framework_backend.h"
#include "gui/charts/headless_export.h"
#include "gui/report/headless_report.h"
#include "gui/training/metatypes.h"
#include "gui/window/main_window.h"

// --help and --version answer before any window system is asked for, so they work on a server.
int answerWithoutDisplay(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--version") == 0) {
            std::printf("mlp-workbench %s\n", WB_VERSION);
            return 0;
        }
        if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
            std::printf(
                "Usage: mlp-workbench               open the workbench window\n"
                "       mlp-workbench --sweep DIR   open it on the Sweeps view, following the sweep folder DIR\n"
                "       mlp-workbench --answer FILE open it on the Answer view, showing FILE (mlpwb answer --out)\n"
                "       mlp-workbench --export-chart loss|accuracy|epoch-time|breakdown|speedup \\\n"
                "                     --runs RUN.json... --out CHART.png|jpg|pdf|svg [--size WxH] [--baseline N]\n"
                "                     [--repeats each|median|mean] (loss, accuracy, epoch-time: repeats as a band)\n"
                "       mlp-workbench --export-chart waterfall --ablation ABLATION.json --out CHART.png\n"
                "       mlp-workbench --export-chart parallel-coordinates|metric-by-parameter --sweep DIR \\\n"
                "                     [--parameter NAME] --out CHART.png\n"
                "       mlp-workbench --report RUN.json|ABLATION.json|ANSWER.json|SWEEP_DIR... \\\n"
                "                     --out REPORT.pdf|html\n"
                "       mlp-workbench --version\n"
                "--export-chart and --report need no display (they render off screen). The command-line trainer is "
                "mlpwb.\n");
            return 0;
        }
    }
    return -1;
}

int main(int argc, char** argv) {
    if (const int code = answerWithoutDisplay(argc, argv); code >= 0) return code;
    wb::gui::prepareHeadlessPlatform(argc, argv);
    QApplication app(argc, argv);
    Q_INIT_RESOURCE(resources);  // wb_gui is a static library: its resources need an explicit init
    QApplication::setApplicationName("mlp-workbench");
    QApplication::setOrganizationName("MLP Workbench");
    QApplication::setApplicationVersion(WB_VERSION);
    wb::gui::registerMetaTypes();
    wb::registerBackendPlugins();     // "cuda" from its plugin: the backend list shows it, or why not
    wb::registerFrameworkBackends();  // and "torch", the user's PyTorch in a subprocess

    const QStringList args = QApplication::arguments();
    if (args.contains("--export-chart")) return wb::gui::runHeadlessExport(args);
    if (args.contains("--report")) return wb::gui::runHeadlessReport(args);

    wb::gui::MainWindow window;
    // 1,400 x 900, or what the screen has room for (a 1,280 x 800 laptop): never wider than the screen.
    const QRect screen = window.screen()->availableGeometry();
    window.resize(std::min(1400, screen.width()), std::min(900, screen.height()));
    window.show();
    if (const auto at = args.indexOf("--sweep"); at >= 0 && at + 1 < args.size()) window.openSweep(args[at + 1]);
    if (const auto at = args.indexOf("--answer"); at >= 0 && at + 1 < args.size()) window.openAnswer(args[at + 1]);
    return QApplication::exec();
}
