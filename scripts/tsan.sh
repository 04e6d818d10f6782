#!/usr/bin/env bash
# Builds the training worker's tests with ThreadSanitizer in their own build directory and runs
# them: the GUI's TrainingController/TrainingWorker suites (offscreen), the core trainer tests, and
# the CPU backend's threads (the worker pool, and training on 1, 2 and 7 threads).
# Any data race, lock-order problem or thread leak in our code fails the run.
#   scripts/tsan.sh [BUILD_DIR]      default BUILD_DIR: build-tsan (relative to the repository root)
# Environment: JOBS (default: all cores), CMAKE_ARGS (extra configure flags), CTEST_ARGS.
# Qt's own libraries are not instrumented (see TSAN_OPTIONS below); scripts/tsan.supp is for a
# report whose racing accesses both lie inside Qt's code, each entry with its reason. Never add an
# entry for our code. Takes about 15 minutes on 2 busy cores (nearly all of it the build): not in CI.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${1:-build-tsan}
case "$build_dir" in /*) ;; *) build_dir="$root/$build_dir" ;; esac
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
targets=(test_gui_training_controller test_gui_queue_panel test_trainer test_worker_pool test_cpu_threads)
tests='^(gui_training_controller|gui_queue_panel|trainer|worker_pool|cpu_threads)$'

start=$(date +%s)
# shellcheck disable=SC2086  # CMAKE_ARGS is a list of flags
cmake -S "$root" -B "$build_dir" -G Ninja -DWB_SANITIZE=thread -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DWB_GUI=ON -DWB_CUDA=OFF ${CMAKE_ARGS:-}
cmake --build "$build_dir" -j "$jobs" --target "${targets[@]}"
built=$(date +%s)

# Every report is fatal (exit code 66 fails the test), with both stacks and the thread history.
# ignore_noninstrumented_modules=1: the libc calls that Qt, glib and the other uninstrumented
# libraries make themselves (pthread_cond_* inside QWaitCondition, write() on glib's wake-up
# eventfd) are not checked: ThreadSanitizer cannot see those libraries' own atomics and futexes, so
# it would report their internals. Every access our code makes, directly or through a template
# instantiated in our code, is still checked, and the synchronisation the skipped calls perform
# still counts. Our hand-offs through Qt's event queue are made visible by gui/training/thread_handoff.h.
opts="halt_on_error=1:exitcode=66:second_deadlock_stack=1:history_size=4:ignore_noninstrumented_modules=1"
export TSAN_OPTIONS="$opts:suppressions=$root/scripts/tsan.supp"
symbolizer=$(command -v llvm-symbolizer || true)
[ -n "$symbolizer" ] && export TSAN_SYMBOLIZER_PATH="$symbolizer"

status=0
# shellcheck disable=SC2086  # CTEST_ARGS is a list of flags
(cd "$build_dir" && ctest --output-on-failure -R "$tests" ${CTEST_ARGS:-}) || status=$?
end=$(date +%s)
echo "tsan.sh: build $((built - start)) s, tests $((end - built)) s, in $build_dir"
if [ "$status" -ne 0 ]; then
  echo "tsan.sh: FAILED: a test failed or ThreadSanitizer reported a problem (see the output above)" >&2
fi
exit "$status"
