// mlpwb: the command-line front end of MLP Workbench. Every failure ends in one line on stderr and
// a documented exit code (exit_codes.h).
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "core/platform/errors.h"
#include "core/platform/machine_memory.h"
#include "core/train/plugin_loader.h"
#include "frameworks/framework_backend.h"

using namespace wb::cli;

// A function-try-block: building the command line (CLI11 throws on a malformed option set) happens outside
// the handlers below, and no exception may leave main (std::terminate would abort without our one line).
int main(int argc, char** argv) try {
    wb::registerBackendPlugins();     // "cuda" from its plugin: available, or with the reason why not
    wb::registerFrameworkBackends();  // "torch": the user's PyTorch, in a subprocess
    CLI::App app{"MLP Workbench: train small MLPs and measure why one way of executing them is faster"};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("mlpwb ") + WB_VERSION);
    const std::vector<std::pair<std::string, Command>> commands = {
        {"train", addTrainCommand(app)},     {"ablate", addAblateCommand(app)}, {"dataset", addDatasetCommand(app)},
        {"presets", addPresetsCommand(app)}, {"info", addInfoCommand(app)},     {"verify", addVerifyCommand(app)},
        {"export", addExportCommand(app)},   {"sweep", addSweepCommand(app)},   {"answer", addAnswerCommand(app)},
        {"report", addReportCommand(app)},
    };
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::fprintf(stderr, "mlpwb: %s (see mlpwb --help)\n", e.what());
        return kUsage;
    }
    try {
        for (const auto& [name, run] : commands)
            if (app.got_subcommand(name)) return run();
    } catch (const wb::DataError& e) {
        std::fprintf(stderr, "mlpwb: data error: %s\n", e.what());
        return kDataError;
    } catch (const wb::ConfigError& e) {
        std::fprintf(stderr, "mlpwb: %s\n", e.what());
        return kConfigError;
    } catch (const wb::DeviceError& e) {
        std::fprintf(stderr, "mlpwb: %s\n", e.what());
        return kDeviceError;
    } catch (const wb::IoError& e) {
        std::fprintf(stderr, "mlpwb: %s\n", e.what());
        return kIoError;
    } catch (const wb::MemoryError& e) {  // refused before allocating
        std::fprintf(stderr, "mlpwb: %s\n", e.what());
        return kMemoryError;
    } catch (const wb::FrameworkError& e) {  // the framework's interpreter or loop failed
        std::fprintf(stderr, "mlpwb: %s\n", e.what());
        return kDeviceError;
    } catch (const std::bad_alloc&) {
        // The stages that allocate much name themselves (loading, preparing, setup); this is the rest.
        std::fprintf(stderr, "mlpwb: out of memory (outside the run's allocations: the flags, the outputs)\n");
        return kRunFailed;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mlpwb: %s\n", e.what());
        return kRunFailed;
    }
    return kUsage;
} catch (const std::exception& e) {
    std::fprintf(stderr, "mlpwb: internal error: %s\n", e.what());
    return kRunFailed;
} catch (...) {
    std::fprintf(stderr, "mlpwb: internal error: unknown exception\n");
    return kRunFailed;
}
