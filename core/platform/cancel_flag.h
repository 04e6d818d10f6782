// The flag that stops a long operation: set by another thread (the GUI's Stop button, Ctrl+C) and
// checked between steps (a training step, a line of a child's output).
#pragma once

#include <atomic>

namespace wb {

using CancelFlag = std::atomic<bool>;

}  // namespace wb
