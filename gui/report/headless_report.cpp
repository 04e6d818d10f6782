#include "gui/report/headless_report.h"

#include <cstdio>

#include "core/platform/errors.h"
#include "gui/report/experiment_report.h"

namespace wb::gui {

namespace {
int fail(int code, const std::string& message) {
    std::fprintf(stderr, "mlp-workbench: %s\n", message.c_str());
    return code;
}
}  // namespace

int runHeadlessReport(const QStringList& args) {
    QStringList inputs;
    QString out;
    for (qsizetype i = 1; i < args.size(); ++i) {
        if (args[i] == "--report") continue;
        if (args[i] == "--out") {
            if (i + 1 >= args.size()) return fail(2, "--out needs a value (report.pdf or report.html)");
            out = args[++i];
        } else if (args[i].startsWith("--")) {
            return fail(2, "unknown argument '" + args[i].toStdString() + "'");
        } else {
            inputs << args[i];
        }
    }
    if (out.isEmpty()) return fail(2, "--out wants the report to write (.pdf or .html)");
    if (inputs.isEmpty()) return fail(2, "--report wants run files, ablations, an answer or sweep folders");
    ReportSources sources;
    try {
        sources = loadReportSources(inputs);
    } catch (const Error& e) {
        return fail(3, e.what());
    }
    try {
        writeReport(sources, out);
    } catch (const ConfigError& e) {
        return fail(2, e.what());
    } catch (const Error& e) {
        return fail(6, e.what());
    }
    std::printf("wrote %s\n", qPrintable(out));
    return 0;
}

}  // namespace wb::gui
