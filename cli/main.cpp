// mlpwb: the command-line front end of MLP Workbench. Every failure ends in one line on stderr and
// a documented exit code (exit_codes.h).
#include <cstdio>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "core/platform/errors.h"
#include "core/platform/machine_memory.h"
#include "core/train/plugin_loader.h"
#include "frameworks/framework_backend.h"

using namespace wb::cli;

namespace {
using Commands = std::vector<std::pair<std::string, Command>>;

void registerBackends() {
    wb::registerBackendPlugins();     // "cuda" from its plugin: available, or with the reason why not
    wb::registerFrameworkBackends();  // "torch": the user's PyTorch, in a subprocess
}

Commands addCommands(CLI::App& app) {
    return {
        {"train", addTrainCommand(app)},     {"ablate", addAblateCommand(app)}, {"dataset", addDatasetCommand(app)},
        {"presets", addPresetsCommand(app)}, {"info", addInfoCommand(app)},     {"verify", addVerifyCommand(app)},
        {"export", addExportCommand(app)},   {"sweep", addSweepCommand(app)},   {"answer", addAnswerCommand(app)},
        {"report", addReportCommand(app)},
    };
}

// The exit code when parsing already answered (help, the version, a usage error); nullopt to go on.
std::optional<int> parseArguments(CLI::App& app, int argc, char** argv) {
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
    return std::nullopt;
}

int fail(const char* prefix, const std::exception& e, int code) {
    std::fprintf(stderr, "mlpwb: %s%s\n", prefix, e.what());
    return code;
}

// The exception a command ended with, as one line on stderr and its exit code (exit_codes.h).
int exitCodeOfCurrentException() {
    try {
        throw;
    } catch (const wb::DataError& e) {
        return fail("data error: ", e, kDataError);
    } catch (const wb::ConfigError& e) {
        return fail("", e, kConfigError);
    } catch (const wb::DeviceError& e) {
        return fail("", e, kDeviceError);
    } catch (const wb::IoError& e) {
        return fail("", e, kIoError);
    } catch (const wb::MemoryError& e) {  // refused before allocating
        return fail("", e, kMemoryError);
    } catch (const wb::FrameworkError& e) {  // the framework's interpreter or loop failed
        return fail("", e, kDeviceError);
    } catch (const wb::ProcessError& e) {  // a program it needs would not start (verify's child, mlp-workbench)
        return fail("", e, kDeviceError);
    } catch (const std::bad_alloc&) {
        // The stages that allocate much name themselves (loading, preparing, setup); this is the rest.
        std::fprintf(stderr, "mlpwb: out of memory (outside the run's allocations: the flags, the outputs)\n");
        return kRunFailed;
    } catch (const std::exception& e) {
        return fail("", e, kRunFailed);
    }
}

int runChosenCommand(const CLI::App& app, const Commands& commands) {
    try {
        for (const auto& [name, run] : commands)
            if (app.got_subcommand(name)) return run();
    } catch (...) {
        return exitCodeOfCurrentException();
    }
    return kUsage;
}
}  // namespace

// A function-try-block: building the command line (CLI11 throws on a malformed option set) happens outside
// the handlers above, and no exception may leave main (std::terminate would abort without our one line).
int main(int argc, char** argv) try {
    registerBackends();
    CLI::App app{"MLP Workbench: train small MLPs and measure why one way of executing them is faster"};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("mlpwb ") + WB_VERSION);
    const Commands commands = addCommands(app);
    if (const auto answered = parseArguments(app, argc, argv)) return *answered;
    return runChosenCommand(app, commands);
} catch (const std::exception& e) {
    std::fprintf(stderr, "mlpwb: internal error: %s\n", e.what());
    return kRunFailed;
} catch (...) {
    std::fprintf(stderr, "mlpwb: internal error: unknown exception\n");
    return kRunFailed;
}
