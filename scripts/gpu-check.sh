#!/usr/bin/env bash
# The check to run on a machine with an NVIDIA GPU, in under 8 minutes:
#   scripts/gpu-check.sh OUTDIR        (writes OUTDIR/ and the archive OUTDIR.tgz of all of it)
# On the project's H200 through the device tool (its image has no Eigen, nlohmann-json, CLI11 or OpenSSL
# headers and nothing installs there):
#   here:  scripts/gpu-deps.sh          (copies them into .gpu-deps/, 15 MB, git-ignored)
#   there: run with carry [".gpu-deps"], timeout_s 560 and the command
#     TOTAL_SECONDS=330 BENCH_SECONDS=150 scripts/gpu-check.sh /tmp/gc; rc=$?; cp /tmp/gc.tgz /tmp/gc/summary.json /tmp/gc/verify.log "$OUT"/; exit $rc
#   (the smaller budget for a first run, which also pays for a cold build; drop the two variables
#   once the build is known to work). What comes back: gc.tgz (every log, summary.json, the benchmark's
#   and the ablation's JSON, the RunRecords), and summary.json and verify.log to read at once.
# 1. configures a Release build without the GUI (no Qt needed) for this machine's GPU,
# 2. builds core + kernels + the CLI (mlpwb),
# 3. runs `mlpwb verify` (every valid switch combination on CUDA against the CPU reference), then
#    again at batch 1024 in file order on gemm=custom (split-K, per-step graphs on views),
# 4. runs `mlpwb ablate --backend cuda` on the seed workload (20 epochs, 3 repeats; ablation.json/.csv),
# 5. runs the GPU benchmark (bench/gpu_bench.py: the workbench presets on the seed workload and the
#    PyTorch/JAX peers where they are installed, scale 10^4..10^7 rows, and 10^7 rows through
#    pinned_async while bench/hold_gpu_memory.py leaves only 1.5 GiB of the device free),
# and writes every log and OUTDIR/summary.json (one entry per step with its status and seconds).
# Needs: the CUDA toolkit, CMake, a C++ toolchain and the core's header libraries (Eigen, nlohmann-json,
# CLI11, OpenSSL); python3 for the benchmark (torch/jax only for the peers). Without a GPU every step
# still runs: verify and the benchmark say "no device" and skip what needs one.
# Environment: BUILD_DIR (default build-gpu), CUDA_ARCHS (default: this machine's GPU as nvidia-smi
# reports it, so the build is fast; the project's list when there is none), JOBS (default: all cores), DEVICE (default 0), PYTHON (default the python3 on PATH, which
# runs the benchmark and its peers), BENCH_SECONDS (the benchmark's time budget, default 240, less when the
# build and verify took long), ABLATE_SECONDS (the ablation's limit, default 90), TOTAL_SECONDS (the
# budget of the whole check, default 450).
set -uo pipefail

outdir=${1:?usage: scripts/gpu-check.sh OUTDIR}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mkdir -p "$outdir" && outdir=$(cd "$outdir" && pwd)
build_dir=${BUILD_DIR:-$root/build-gpu}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 4)}
device=${DEVICE:-0}
# This machine's GPU only (fast to build), from nvidia-smi ("9.0" -> 90); else the project's default list.
archs=${CUDA_ARCHS:-$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .' || true)}
# The python3 on PATH: on the H200 image it is the one with torch and jax (/opt/torch/.venv), the
# benchmark runs the peers with it too (--python).
python=${PYTHON:-$(command -v python3 || echo /usr/bin/python3)}
bench_seconds=${BENCH_SECONDS:-240}
ablate_seconds=${ABLATE_SECONDS:-90}  # mlpwb ablate --backend cuda (20 epochs, 3 repeats; partial JSON on timeout)
total_seconds=${TOTAL_SECONDS:-450}  # the whole check stays under 8 minutes: the benchmark gets what is left
start=$SECONDS
# nvcc is not always on PATH (CMake finds it there or through CUDACXX).
if ! command -v nvcc >/dev/null 2>&1 && [ -z "${CUDACXX:-}" ] && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
steps_json=()
failed=0

say() { echo "gpu-check: $*" | tee -a "$outdir/gpu-check.log"; }
# step NAME LOGFILE COMMAND...: runs one step with its output in OUTDIR/LOGFILE, records status and time.
step() {
  local name=$1 log=$2 t0=$SECONDS status=ok rc=0
  shift 2
  say "$name: $*"
  "$@" >"$outdir/$log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then status=failed; failed=1; fi
  say "$name: $status (exit $rc, $((SECONDS - t0)) s; log $log)"
  steps_json+=("{\"step\": \"$name\", \"status\": \"$status\", \"exit_code\": $rc, \"seconds\": $((SECONDS - t0)), \"log\": \"$log\"}")
  return "$rc"
}
write_summary() {
  local gpu="none"
  if command -v nvidia-smi >/dev/null 2>&1; then
    gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1 || true)
    [ -n "$gpu" ] || gpu="none"
  fi
  {
    echo "{"
    echo "  \"schema\": \"mlpwb.gpu_check/1\","
    echo "  \"gpu\": \"${gpu//\"/}\","
    echo "  \"commit\": \"$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)\","
    echo "  \"seconds\": $((SECONDS - start)),"
    echo "  \"passed\": $([ "$failed" -eq 0 ] && echo true || echo false),"
    echo "  \"steps\": ["
    local i
    for i in "${!steps_json[@]}"; do
      if [ "$i" -gt 0 ]; then echo ","; fi
      printf '    %s' "${steps_json[$i]}"
    done
    echo ""
    echo "  ],"
    echo "  \"benchmark\": \"gpu_bench.json\""
    echo "}"
  } >"$outdir/summary.json"
  say "summary: $outdir/summary.json ($((SECONDS - start)) s in all)"
}

: >"$outdir/gpu-check.log"
say "root $root, build $build_dir, CUDA architectures ${archs:-the project default}, device $device"
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi >"$outdir/nvidia-smi.txt" 2>&1

# The dependencies carried from the development machine (scripts/gpu-deps.sh) when this machine lacks them.
deps=${GPU_DEPS:-$root/.gpu-deps}
deps_flags=()
if [ -d "$deps" ]; then
  deps_flags=(-DCMAKE_PREFIX_PATH="$deps" -DOPENSSL_ROOT_DIR="$deps" -DOPENSSL_INCLUDE_DIR="$deps/include")
  # This machine's own libcrypto.so.3 when it has one (same OpenSSL 3.0 ABI), else the carried copy.
  crypto=$deps/lib/libcrypto.so.3
  for own in /usr/lib/x86_64-linux-gnu/libcrypto.so.3 /lib/x86_64-linux-gnu/libcrypto.so.3 /usr/lib64/libcrypto.so.3; do
    if [ -e "$own" ]; then crypto=$own && break; fi
  done
  deps_flags+=(-DOPENSSL_CRYPTO_LIBRARY="$crypto")
  say "dependencies from $deps (libcrypto: $crypto)"
fi

generator=()
if [ ! -f "$build_dir/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then generator=(-G Ninja); fi
launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
arch_flag=()
if [ -n "$archs" ]; then arch_flag=(-DCMAKE_CUDA_ARCHITECTURES="$archs"); fi
if step configure configure.log cmake -S "$root" -B "$build_dir" "${generator[@]}" "${launcher[@]}" \
     -DCMAKE_BUILD_TYPE=Release -DWB_GUI=OFF -DWB_TESTS=OFF -DWB_CUDA=ON "${arch_flag[@]}" "${deps_flags[@]}"; then
  if step build build.log cmake --build "$build_dir" -j "$jobs" --target mlpwb; then
    mlpwb=$build_dir/cli/mlpwb
    step info info.log "$mlpwb" info
    step verify verify.log timeout 240 "$mlpwb" verify --device "$device"
    tail -n 1 "$outdir/verify.log" | sed 's/^/gpu-check: verify: /' | tee -a "$outdir/gpu-check.log"
    # The same at batch 1024 in file order, on the custom GEMM: long-k weight gradients split along k
    # (split-K workspace), graph steps on resident rows read views (one graph per step, replayed).
    step verify-large verify-large.log timeout 120 "$mlpwb" verify --device "$device" --rows 3000 \
      --batch-size 1024 --epochs 3 --file-order --only gemm=custom
    tail -n 1 "$outdir/verify-large.log" | sed 's/^/gpu-check: verify-large: /' | tee -a "$outdir/gpu-check.log"
    # The ablation on the GPU (the table of the README's "Why" on CUDA): the seed workload, few epochs.
    if grep -Eq '^cuda +available:' "$outdir/info.log"; then
      left=$((total_seconds - (SECONDS - start) - 15 - 60))  # keep a minute for the benchmark
      if [ "$left" -lt "$ablate_seconds" ]; then ablate_seconds=$left; fi
      if [ "$ablate_seconds" -ge 30 ]; then
        step ablate ablate.log timeout "$ablate_seconds" "$mlpwb" ablate --backend cuda --device "$device" \
          --builtin --epochs 20 --repeats 3 --quiet --out "$outdir/ablation.json" --csv "$outdir/ablation.csv"
      else
        say "ablate: skipped (only $ablate_seconds s left of the $total_seconds s budget)"
      fi
    else
      say "ablate: skipped (no CUDA device: $(grep -E '^cuda' "$outdir/info.log" | head -1))"
    fi
    left=$((total_seconds - (SECONDS - start) - 15))
    if [ "$left" -lt "$bench_seconds" ]; then bench_seconds=$left; fi
    if [ "$bench_seconds" -lt 30 ]; then
      say "benchmark: skipped (only $bench_seconds s left of the $total_seconds s budget)"
    elif command -v "$python" >/dev/null 2>&1; then
      step benchmark bench.log "$python" "$root/bench/gpu_bench.py" --mlpwb "$mlpwb" --device "$device" \
        --python "$python" --out-dir "$outdir/bench" --summary "$outdir/gpu_bench.json" --budget-seconds "$bench_seconds"
    else
      say "benchmark: skipped ($python not found)"
    fi
  fi
fi
write_summary
# One archive of everything above (logs, summary, RunRecords; a few MB at most) beside OUTDIR: the device
# tool brings back at most 8 files of 16 MiB each, two folders deep.
if tar -czf "$outdir.tgz" -C "$(dirname "$outdir")" "$(basename "$outdir")"; then
  say "archive: $outdir.tgz ($(du -k "$outdir.tgz" | cut -f1) KiB)"
else
  say "archive: tar failed"
fi
exit "$failed"
