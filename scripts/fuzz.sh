#!/usr/bin/env bash
# Fuzzes the readers (CSV, .npy, safetensors, run records) with libFuzzer + AddressSanitizer + UBSan.
#   scripts/fuzz.sh [SECONDS=60] [BUILD_DIR=build-fuzz]
# Configures BUILD_DIR with clang and -DWB_FUZZ=ON (unless it is configured so already), builds the
# targets, and runs each for SECONDS, as many at once as there are cores. The seeds
# (tests/fuzz/corpus/<reader>) and the stored crash inputs (tests/fuzz/regressions/<reader>) are
# copied into BUILD_DIR/fuzz-work/<reader>/corpus, which keeps what the fuzzer finds between runs, so
# the repository's corpus stays small.
# Exits non-zero when any target finds a crash, a leak, a timeout or an out-of-memory input, and
# prints where each reproducer is. A reproducer becomes a regression test by copying it to
# tests/fuzz/regressions/<reader>/ (tst_fuzz_regressions replays every file there).
# Environment: JOBS (build jobs and targets fuzzed at once, default: all cores), FUZZ_TARGETS
# (default "csv npy safetensors records sweep"), FUZZ_ARGS (extra libFuzzer flags).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-60}
build_dir=${2:-build-fuzz}
case "$build_dir" in /*) ;; *) build_dir="$root/$build_dir" ;; esac
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
targets=${FUZZ_TARGETS:-csv npy safetensors records sweep}

start=$(date +%s)
# A build already configured with WB_FUZZ=ON (e.g. scripts/sanitize.sh's, built with clang and
# CMAKE_ARGS=-DWB_FUZZ=ON) is reused as it is: its wb_core is instrumented for the fuzzer already.
if ! grep -qx 'WB_FUZZ:BOOL=ON' "$build_dir/CMakeCache.txt" 2>/dev/null; then
  CC=${CC:-clang} CXX=${CXX:-clang++} cmake -S "$root" -B "$build_dir" -G Ninja \
    -DWB_FUZZ=ON -DWB_TESTS=OFF -DWB_GUI=OFF -DWB_CUDA=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
build_targets=()
for t in $targets; do build_targets+=("fuzz_$t"); done
cmake --build "$build_dir" -j "$jobs" --target "${build_targets[@]}"
built=$(date +%s)

export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:print_stacktrace=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
symbolizer=$(command -v llvm-symbolizer || true)
[ -n "$symbolizer" ] && export ASAN_SYMBOLIZER_PATH="$symbolizer"

# fuzz_one TARGET: fuzzes one target for $seconds; its report goes to fuzz-work/TARGET/report.txt,
# which ends in a line "result: ok" or "result: FAILED".
fuzz_one() {
  local t=$1 work="$build_dir/fuzz-work/$1" status=0 new dict=()
  rm -f "$work/report.txt"
  mkdir -p "$work/corpus" "$work/artifacts"
  cp -n "$root/tests/fuzz/corpus/$t/"* "$work/corpus/" 2>/dev/null || true
  cp -n "$root/tests/fuzz/regressions/$t/"* "$work/corpus/" 2>/dev/null || true
  [ -f "$root/tests/fuzz/dict/$t.dict" ] && dict=("-dict=$root/tests/fuzz/dict/$t.dict")
  find "$work/artifacts" -type f | sort >"$work/artifacts.before"
  # shellcheck disable=SC2086  # FUZZ_ARGS is a list of flags
  "$build_dir/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$work/artifacts/" "${dict[@]}" ${FUZZ_ARGS:-} \
    "$work/corpus" >"$work/log.txt" 2>&1 || status=$?
  new=$(find "$work/artifacts" -type f | sort | comm -13 "$work/artifacts.before" -)
  {
    echo "== fuzz_$t for $seconds s (corpus $work/corpus)"
    grep -E '^(stat::number_of_executed_units|stat::new_units_added|#[0-9]+ +DONE)' "$work/log.txt" || true
    if [ "$status" -ne 0 ] || [ -n "$new" ]; then
      echo "fuzz_$t FAILED (exit $status); the end of its log ($work/log.txt):"
      tail -n 40 "$work/log.txt"
      echo "reproducers (replay with $build_dir/tests/fuzz/fuzz_$t FILE, then copy to tests/fuzz/regressions/$t/):"
      echo "${new:-  (none written; see the log)}"
      echo "result: FAILED"
    else
      echo "result: ok"
    fi
  } >"$work/report.txt"
}

# The targets run side by side, as many at once as there are cores (libFuzzer uses one each).
for t in $targets; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  fuzz_one "$t" &
done
wait
failed=()
for t in $targets; do
  report="$build_dir/fuzz-work/$t/report.txt"
  if [ -f "$report" ]; then cat "$report"; else echo "fuzz_$t: no report (the run itself failed)"; fi
  grep -qx "result: ok" "$report" 2>/dev/null || failed+=("$t")
done
end=$(date +%s)
echo "fuzz.sh: build $((built - start)) s, fuzzing $((end - built)) s, in $build_dir"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzz.sh: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz.sh: no crash, leak, timeout or out-of-memory input found"
