// libFuzzer target: any bytes given to the RunRecord and ablation loaders load or are refused with
// DataError or ConfigError; anything else (another exception, a sanitizer finding, a stack overflow on
// deep nesting, a hang) is a crash. Build and run: scripts/fuzz.sh. Replay: build-fuzz/tests/fuzz/fuzz_records FILE
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tests/fuzz/fuzz_feed.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    wb::fuzz::feedJsonRecords(std::string_view(reinterpret_cast<const char*>(data), size));
    return 0;
}
