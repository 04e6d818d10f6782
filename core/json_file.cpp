#include "json_file.h"

#include <filesystem>
#include <fstream>
#include <system_error>

#include "errors.h"

namespace wb {

void saveJsonAtomically(const nlohmann::json& document, const std::string& path, const std::string& what) {
    const std::string tmp = path + ".tmp";
    std::error_code ec;
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw IoError("cannot write " + what + " '" + tmp + "'");
        out << document.dump(1) << '\n';
        if (!out.flush()) {
            out.close();
            std::filesystem::remove(tmp, ec);
            throw IoError("cannot write " + what + " '" + tmp + "' (disk full?)");
        }
    }
    std::filesystem::rename(tmp, path, ec);  // atomic on POSIX: readers see the old or the new file
    if (ec) {
        const std::string reason = ec.message();
        std::filesystem::remove(tmp, ec);
        throw IoError("cannot replace " + what + " '" + path + "': " + reason);
    }
}

}  // namespace wb
