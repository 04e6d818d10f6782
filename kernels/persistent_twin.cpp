// The persistent epoch's CPU twin: the kernel's block program with one lane per block and the grid
// barrier emulated (persistent_twin.h); the tests compare it with the CPU reference and with the
// fused step's twin.
#include "kernels/persistent_twin.h"

namespace wb {

void persistentEpochTwin(const PersistentArgs& args, const GridSchedule& schedule) {
    persistentEpochOnHost(
        args, [](auto&& body) { body(fused::Lanes{}, [] {}); }, schedule);
}

}  // namespace wb
