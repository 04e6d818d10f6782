// `mlpwb presets` and `mlpwb info`: what can be chosen, and what this machine offers.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "core/model/execution_settings.h"
#include "core/run/backend.h"
#include "frameworks/python_interpreter.h"

namespace wb::cli {

Command addPresetsCommand(CLI::App& app) {
    app.add_subcommand("presets", "list the execution presets and their switches");
    return [] {
        for (const auto& p : presets()) {
            std::printf("%s\n  %s\n ", p.name.c_str(), p.description.c_str());
            for (const auto& s : describeSwitches(p.settings)) std::printf(" %s=%s", s.name.c_str(), s.value.c_str());
            const auto refusal = p.settings.refusal();
            std::printf("\n%s", refusal ? ("  refused: " + *refusal + "\n").c_str() : "");
        }
        std::printf("\nSwitches and their values:\n");
        for (const auto& s : describeSwitches(ExecutionSettings{})) {
            std::printf("  %-17s", s.name.c_str());
            for (const auto& v : s.values) std::printf(" %s", v.c_str());
            std::printf("\n");
        }
        return int{kOk};
    };
}

Command addInfoCommand(CLI::App& app) {
    auto* cmd = app.add_subcommand("info", "list the backends and devices, and why one is unavailable");
    auto python = std::make_shared<std::string>();
    cmd->add_option("--python", *python,
                    "ask this interpreter about the frameworks (default: $MLPWB_PYTHON, else python3)");
    return [python] {
        if (!python->empty()) setPreferredPython(*python);
        for (const auto& b : BackendRegistry::instance().list()) {
            if (b.available)
                std::printf("%-5s available: %s\n", b.name.c_str(), b.device.c_str());
            else
                std::printf("%-5s unavailable: %s\n", b.name.c_str(), b.reason.c_str());
            for (const auto& [k, v] : b.details) std::printf("      %s: %s\n", k.c_str(), v.c_str());
        }
        return int{kOk};
    };
}

}  // namespace wb::cli
