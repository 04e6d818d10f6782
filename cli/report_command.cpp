// `mlpwb report INPUTS... --out report.pdf|html`: the experiment report. Its pages are drawn by Qt
// (text, tables, the charts as vector graphics), so the desktop program writes them:
// `mlp-workbench --report` runs without a display. mlpwb itself links no Qt (it builds on a GPU
// server that has none), so it hands the command over, and says so where that program is missing.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/sweep_engine_run.h"
#include "core/platform/errors.h"

namespace wb::cli {

namespace {
namespace fs = std::filesystem;

struct ReportOptions {
    std::vector<std::string> inputs;
    std::string out;
};

bool executable(const fs::path& p) {
    return ::access(p.c_str(), X_OK) == 0 && !fs::is_directory(p);
}

// Beside mlpwb (an installed package: both in /usr/bin), in a build tree (build/cli/mlpwb and
// build/gui/mlp-workbench), then on PATH.
std::string findWorkbench() {
    const fs::path here = fs::path(selfPath()).parent_path();
    for (const fs::path& p : {here / "mlp-workbench", here.parent_path() / "gui" / "mlp-workbench"})
        if (executable(p)) return p.string();
    const char* path = std::getenv("PATH");
    std::istringstream dirs(path ? path : "");
    for (std::string dir; std::getline(dirs, dir, ':');)
        if (!dir.empty() && executable(fs::path(dir) / "mlp-workbench"))
            return (fs::path(dir) / "mlp-workbench").string();
    throw DeviceError("",
                      "the report is drawn by the desktop program mlp-workbench, which is not installed here "
                      "(install the mlp-workbench package; it needs no display for this)");
}

int runReport(const ReportOptions& o) {
    const std::string workbench = findWorkbench();
    std::vector<std::string> args = {workbench, "--report"};
    args.insert(args.end(), o.inputs.begin(), o.inputs.end());
    args.insert(args.end(), {"--out", o.out});
    std::vector<char*> argv;
    argv.reserve(args.size() + 1);
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(workbench.c_str(), argv.data());
    throw IoError("cannot start " + workbench + ": " + std::strerror(errno));
}
}  // namespace

Command addReportCommand(CLI::App& app) {
    auto* cmd = app.add_subcommand("report",
                                   "one document (PDF or HTML) of runs, ablations, an answer or sweeps: the "
                                   "question, the data, the settings, the charts, the tables, the conclusion");
    auto o = std::make_shared<ReportOptions>();
    cmd->add_option("inputs", o->inputs, "RunRecord files, ablation or answer JSONs, sweep folders")->required();
    cmd->add_option("--out", o->out, "report.pdf or report.html")->required();
    return [o] { return runReport(*o); };
}

}  // namespace wb::cli
