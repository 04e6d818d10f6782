// Writes a JSON document (a RunRecord, an AblationResult) so that readers never see half a file.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/platform/atomic_file.h"

namespace wb {

// Writes `document` (indent 1, a final newline) with writeFileAtomically: a reader sees the old
// file or the new one. `what` names the document in the IoError thrown on failure (e.g. "run
// record"); no temporary file is left behind then.
void saveJsonAtomically(const nlohmann::json& document, const std::string& path, const std::string& what,
                        Symlink symlink = Symlink::Follow);

// Parses JSON text as loadJsonFile does (depth limit, Python's NaN/Infinity as null); `name` stands for
// the file in the DataError.
nlohmann::json parseJsonText(const std::string& text, const std::string& name, const std::string& what);

// Reads and parses the JSON file at `path`; Python's NaN/Infinity (peers write them) read as null.
// Throws DataError(path, "cannot open <what>") or DataError(path, "invalid <what>: <parser's reason>").
nlohmann::json loadJsonFile(const std::string& path, const std::string& what);

}  // namespace wb
