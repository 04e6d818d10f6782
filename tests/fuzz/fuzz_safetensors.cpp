// libFuzzer target: any bytes given to the safetensors reader load or are refused with DataError or
// ConfigError; anything else (another exception, a sanitizer finding, a hang, a leak) is a crash.
// Build and run: scripts/fuzz.sh. Replay one input: build-fuzz/tests/fuzz/fuzz_safetensors FILE
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tests/fuzz/fuzz_feed.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    wb::fuzz::feedSafetensors(std::string_view(reinterpret_cast<const char*>(data), size));
    return 0;
}
