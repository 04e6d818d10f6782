// mlp-workbench: the desktop workbench. With --export-chart it renders a chart from RunRecord
// files without showing a window (for scripts), and exits.
#include <QApplication>
#include <QCommandLineParser>
#include <cstdio>

#include "framework_backend.h"
#include "headless_export.h"
#include "main_window.h"
#include "metatypes.h"
#ifdef WB_WITH_CUDA
#include "cuda_backend.h"
#endif

int main(int argc, char** argv) {
    wb::gui::prepareHeadlessPlatform(argc, argv);
    QApplication app(argc, argv);
    Q_INIT_RESOURCE(resources);  // wb_gui is a static library: its resources need an explicit init
    QApplication::setApplicationName("mlp-workbench");
    QApplication::setOrganizationName("MLP Workbench");
    QApplication::setApplicationVersion(WB_VERSION);
    wb::gui::registerMetaTypes();
#ifdef WB_WITH_CUDA
    wb::registerCudaBackend();  // the backend list then shows "cuda", available or with the reason
#endif
    wb::registerFrameworkBackends();  // and "torch", the user's PyTorch in a subprocess

    const QStringList args = QApplication::arguments();
    if (args.contains("--version")) {
        std::printf("mlp-workbench %s\n", WB_VERSION);
        return 0;
    }
    if (args.contains("--export-chart")) return wb::gui::runHeadlessExport(args);

    wb::gui::MainWindow window;
    window.resize(1400, 900);
    window.show();
    return QApplication::exec();
}
