// The loop an answer or an ablation recommends, as the user's own script: its fixed loop (the
// fastest measured cumulative step, AblationResult::fixedLoop, not every fix applied) with the
// configuration its first run recorded, written by the framework's generator, and a comment at the
// top that says which step it is, what it measured and which fixes it leaves out with what they
// cost. What `mlpwb export --answer/--ablation` and the Answer tab's "Export fixed loop as PyTorch
// code…" write. The files are someone else's: read as text, never a program they name run or asked.
#pragma once

#include <optional>
#include <string>

#include "core/measure/answer.h"

namespace wb {

// Why `answer` has no measured fixed loop on `engine` ("it was not available: torch is not
// importable by python3"); null when it has one.
std::optional<std::string> whyNoFixedLoop(const Answer& answer, const std::string& engine);

// The script of `answer`'s fixed loop on `engine` (torch, keras, jax), for the framework version and
// device its run recorded. `source` names the answer in the script's comment and in the errors
// ("answer.json"); `name`, when not empty, is the run's name (else the run's own).
// Throws DataError (file `source`) when the answer has no measured fixed loop on `engine` (the
// reason in one line), or when that loop's run holds no configuration that reads back.
std::string fixedLoopScript(const Answer& answer, const std::string& engine, const std::string& source,
                            const std::string& name = {});

// The script of `ablation`'s fixed loop, written for `framework` (torch, keras, jax): its own
// backend's loop, or, for an ablation of another backend (cpu, cuda), its switches as that
// framework's constructs. Throws DataError as above.
std::string fixedLoopScript(const AblationResult& ablation, const std::string& framework, const std::string& source,
                            const std::string& name = {});

}  // namespace wb
