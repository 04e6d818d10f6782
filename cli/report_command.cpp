// `mlpwb report INPUTS... --out report.pdf|html`: the experiment report. Its pages are drawn by Qt
// (text, tables, the charts as vector graphics), so the desktop program writes them:
// `mlp-workbench --report` runs without a display. mlpwb itself links no Qt (it builds on a GPU
// server that has none), so it hands the command over (a child with our terminal, whose exit status
// is ours), and says so where that program is missing.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/sweep_engine_run.h"
#include "cli/train_run.h"
#include "core/platform/child_process.h"
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

// Waits for the desktop program and returns its exit status. It runs in a process group of its own,
// which a Ctrl+C in the terminal does not reach: SIGINT and SIGTERM to us end it (exit 130).
int waitFor(ChildProcess& workbench) {
    catchStopSignals();
    std::optional<int> status;
    while (!(status = workbench.tryWait())) {
        if (stopFlag().load()) {
            workbench.terminate();
            status = kCancelled;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    releaseStopSignals();
    return *status;
}

int runReport(const ReportOptions& o) {
    std::vector<std::string> args = {findWorkbench(), "--report"};
    args.insert(args.end(), o.inputs.begin(), o.inputs.end());
    args.insert(args.end(), {"--out", o.out});
    ChildProcess::Options terminal;  // its output is the user's: our own stdout and stderr
    terminal.stdoutFd = STDOUT_FILENO;
    terminal.stderrFd = STDERR_FILENO;
    std::fflush(nullptr);
    ChildProcess workbench(args, terminal);
    return waitFor(workbench);
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
