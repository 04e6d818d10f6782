// libFuzzer target: any bytes given as a trial's state.json or as a sweep.json load or are refused
// with DataError; anything else (another exception, a sanitizer finding, a hang) is a crash. Build and
// run: scripts/fuzz.sh. Replay: build-fuzz/tests/fuzz/fuzz_sweep FILE
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tests/fuzz/fuzz_sweep_feed.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    wb::fuzz::feedSweepFiles(std::string_view(reinterpret_cast<const char*>(data), size));
    return 0;
}
