#!/usr/bin/env bash
# The check to run on a machine with an NVIDIA GPU, ordered so that a run cut short still leaves the
# figures that matter most:
#   scripts/gpu-check.sh [--quick] OUTDIR     (writes OUTDIR/ and the archive OUTDIR.tgz of all of it)
# Steps, each with its own time cap (timeout), its output streamed to the terminal and to
# OUTDIR/<step>.log as it happens, and OUTDIR/summary.json rewritten after every step:
#   1. configure + build (Release, -DWB_GUI=OFF, no tests, the device's architecture only: nvidia-smi's
#      compute_cap -> CMAKE_CUDA_ARCHITECTURES),
#   2. mlpwb info (fails loudly when nvidia-smi lists a GPU but mlpwb finds CUDA unavailable),
#   3. mlpwb verify --isolate --only launch=fused, then --only launch=persistent (the Fastest preset's; a
#      short cap, since a grid barrier that never opens hangs rather than fails),
#   3b. multiclass and regression on the eager and graph paths against PyTorch's fixture
#      (scripts/check_task_parity.py; their first run on a GPU),
#   4. the decisive speed table (bench/gpu_bench.py): Fastest (launch=persistent; only when its verify
#      passed), Fused step (Fastest with launch=fused), Static graph, torch.compile
#      reduce-overhead (with ~200 s for its compiling warm-up), JAX jit+scan, PyTorch resident,
#   5. the full mlpwb verify --isolate (and, in full mode, the batch-1024 split-K variant),
#   6. compute-sanitizer memcheck, racecheck, synccheck on one fused, one graph_step and (when its verify
#      passed) one persistent combination,
#   7. two Fastest runs compared bit for bit (the saved weights, cmp; with launch=fused where the
#      persistent verify did not pass),
#   8. the rest of gpu_bench.py (the other presets and peers, the DataLoader loop last, scale,
#      larger than the GPU's memory),
#   9. mlpwb ablate --backend cuda.
# --quick (at most 5 minutes after the build, TOTAL_SECONDS=300; a cold build adds its own minutes):
# steps 1-4 (and 3b) with one repeat and fewer epochs, step 6 with memcheck only, step 7; no full verify, no
# rest, no ablation.
# The full mode takes about 20 minutes after the build.
# At the end: one Markdown table (step, status, seconds, key figures) to paste into bench/RESULTS.md.
# summary.json: "status" is "passed", "failed" or "no_device" ("running" while it runs); "passed" is
# true only when a CUDA device was found and every step that ran passed. Exit 0 only then; 3 without
# a device (every step that needs one is listed as skipped), 1 on a failure.
# Needs: the CUDA toolkit, CMake, a C++ toolchain and the core's header libraries (Eigen, nlohmann-json,
# CLI11, OpenSSL; or .gpu-deps/ from scripts/gpu-deps.sh); python3 for the benchmark (torch/jax for the peers).
# Environment: BUILD_DIR (default build-gpu), CUDA_ARCHS (default: this machine's GPU), JOBS (default all
# cores), DEVICE (default 0), PYTHON (default the python3 on PATH; runs the benchmark and its peers),
# SKIP_BUILD=1 (use BUILD_DIR's mlpwb as it is), GPU_CHECK_STEPS (comma-separated step names to run,
# default all; for testing the script), CAP_SCALE (multiplies every time cap, default 1), TOTAL_SECONDS
# (an overall budget counted after the build: each step gets at most what is left, and is skipped under
# 20 s; default 300 with --quick, none without).
# shellcheck disable=SC2317  # the *_figures functions are called through a variable
set -uo pipefail

quick=0
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1; shift ;;
    -h|--help) awk 'NR > 1 && /^# shellcheck/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) break ;;
  esac
done
outdir=${1:?usage: scripts/gpu-check.sh [--quick] OUTDIR}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mkdir -p "$outdir" && outdir=$(cd "$outdir" && pwd)
build_dir=$(realpath -m "${BUILD_DIR:-$root/build-gpu}")
jobs=${JOBS:-$(nproc 2>/dev/null || echo 4)}
device=${DEVICE:-0}
python=${PYTHON:-$(command -v python3 || echo /usr/bin/python3)}
only_steps=${GPU_CHECK_STEPS:-}
cap_scale=${CAP_SCALE:-1}
# The overall budget after the build (0: none; each step still has its cap); --quick: 300 s.
total_seconds=${TOTAL_SECONDS:-$([ "$quick" -eq 1 ] && echo 300 || echo 0)}
budget_start=$SECONDS  # reset after the build
budget_active=0        # 1 after the build: the build has its own cap, not the budget's
start=$SECONDS
if ! command -v nvcc >/dev/null 2>&1 && [ -z "${CUDACXX:-}" ] && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
# The GPU nvidia-smi lists (empty when none): decides whether "CUDA unavailable" is a failure.
nvidia_gpu=$(nvidia-smi -L 2>/dev/null | grep -m1 '^GPU ' || true)
archs=${CUDA_ARCHS:-$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .' || true)}
mlpwb=$build_dir/cli/mlpwb

steps_json=()
table_rows=()
failed=0
has_device=0
state=running

say() { echo "gpu-check: $*" | tee -a "$outdir/gpu-check.log"; }
json_str() { local s=${1//\\/\\\\}; s=${s//\"/\\\"}; printf '%s' "${s//$'\n'/ }"; }

write_summary() {
  local passed=false gpu=${nvidia_gpu:-none}
  if [ "$state" != running ]; then
    if [ "$failed" -ne 0 ]; then state=failed
    elif [ "$has_device" -eq 0 ]; then state=no_device
    else state=passed; passed=true; fi
  fi
  {
    echo "{"
    echo "  \"schema\": \"mlpwb.gpu_check/2\","
    echo "  \"mode\": \"$([ "$quick" -eq 1 ] && echo quick || echo full)\","
    echo "  \"gpu\": \"$(json_str "$gpu")\","
    echo "  \"commit\": \"$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)\","
    echo "  \"seconds\": $((SECONDS - start)),"
    echo "  \"status\": \"$state\","
    echo "  \"passed\": $passed,"
    echo "  \"steps\": ["
    local i
    for i in "${!steps_json[@]}"; do
      [ "$i" -gt 0 ] && echo ","
      printf '    %s' "${steps_json[$i]}"
    done
    echo ""
    echo "  ]"
    echo "}"
  } >"$outdir/summary.json.tmp" && mv "$outdir/summary.json.tmp" "$outdir/summary.json"
}

# record NAME STATUS SECONDS EXIT FIGURES: one entry in summary.json (rewritten now) and the final table.
record() {
  local name=$1 status=$2 secs=$3 rc=$4 figures=$5
  case $status in failed|timed_out) failed=1 ;; esac
  steps_json+=("{\"step\": \"$name\", \"status\": \"$status\", \"exit_code\": $rc, \"seconds\": $secs, \"log\": \"$name.log\", \"figures\": \"$(json_str "$figures")\"}")
  table_rows+=("| $name | $status | $secs | ${figures//|//} |")
  write_summary
}
skip() {  # skip NAME REASON
  say "$1: skipped ($2)"
  record "$1" skipped 0 0 "$2"
}
wanted() { [ -z "$only_steps" ] || [[ ",$only_steps," == *",$1,"* ]]; }

# step NAME CAP_SECONDS COMMAND...: runs COMMAND under `timeout`, its output streamed to the terminal
# and OUTDIR/NAME.log; status ok, failed or timed_out (exit 124/137). Sets step_rc.
step_rc=0
step() {
  local name=$1 cap=$2 t0=$SECONDS status=ok
  shift 2
  cap=$(awk -v c="$cap" -v s="$cap_scale" 'BEGIN { v = int(c * s); printf "%d", v < 1 ? 1 : v }')
  say "$name (cap $cap s): $*"
  timeout -k 10 "$cap" "$@" 2>&1 | tee "$outdir/$name.log"
  step_rc=${PIPESTATUS[0]}
  if [ "$step_rc" -eq 124 ] || [ "$step_rc" -eq 137 ]; then status=timed_out
  elif [ "$step_rc" -ne 0 ]; then status=failed; fi
  say "$name: $status (exit $step_rc, $((SECONDS - t0)) s)"
  step_status=$status step_seconds=$((SECONDS - t0))
  return "$step_rc"
}
# run NAME CAP FIGURES_FUNCTION COMMAND...: step, then record with the figures the function reads from the log.
run() {
  local name=$1 cap=$2 fig=$3
  shift 3
  if ! wanted "$name"; then return 0; fi
  if [ "$total_seconds" -gt 0 ] && [ "$budget_active" -eq 1 ]; then  # the budget: a step gets at most what is left
    local left=$((total_seconds - (SECONDS - budget_start) - 10))
    if [ "$left" -lt 20 ]; then skip "$name" "TOTAL_SECONDS=$total_seconds spent"; return 0; fi
    [ "$left" -lt "$cap" ] && cap=$left
  fi
  step "$name" "$cap" "$@"
  local rc=$step_rc
  record "$name" "$step_status" "$step_seconds" "$rc" "$($fig "$outdir/$name.log" "$rc")"
  return "$rc"
}
no_figures() { :; }
last_line() { grep -v '^\s*$' "$1" 2>/dev/null | tail -n 1; }
verify_figures() { grep -E '^[0-9]+ passed, [0-9]+ failed' "$1" | tail -n 1; }
bench_figures() {  # the speed table's decisive figures from its JSON
  local json=${1%.log}.json
  [ -f "$json" ] || { last_line "$1"; return; }
  "$(command -v python3 || echo "$python")" - "$json" <<'EOF' 2>/dev/null || last_line "$1"
import json, statistics, sys
s = json.load(open(sys.argv[1]))
parts = []
names = list(dict.fromkeys(r["program"] for r in s.get("results", [])))
for n in names:
    ok = [r["median_epoch_ms"] for r in s["results"] if r["program"] == n and r["status"] == "ok"]
    short = n.replace("mlpwb cuda: ", "").replace(" (Keras-like)", "")
    parts.append(f"{short} {statistics.median(ok):.3f} ms" if ok else f"{short} " +
                 [r for r in s["results"] if r["program"] == n][-1]["status"])
parts += [f"{k.replace('persistent_speedup_vs_', 'x').replace('fused_speedup_vs_', 'fused x')} {v:.1f}"
          for k, v in s.get("ratios", {}).items()]
print("; ".join(parts))
EOF
}

: >"$outdir/gpu-check.log"
say "mode $([ "$quick" -eq 1 ] && echo quick || echo full), root $root, build $build_dir, device $device, GPU: ${nvidia_gpu:-none listed by nvidia-smi}, CUDA architectures ${archs:-the project default}"
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi >"$outdir/nvidia-smi.txt" 2>&1

finish() {  # the summary, the table, the archive, the exit code
  state=finished
  write_summary
  say "summary: $outdir/summary.json: $state ($((SECONDS - start)) s in all)"
  {
    echo ""
    echo "gpu-check $(git -C "$root" rev-parse --short HEAD 2>/dev/null), $([ "$quick" -eq 1 ] && echo quick || echo full) mode, GPU: ${nvidia_gpu:-none}: **$state**"
    echo ""
    echo "| step | status | seconds | key figures |"
    echo "| --- | --- | ---: | --- |"
    printf '%s\n' "${table_rows[@]}"
  } | tee "$outdir/table.md"
  # One archive of everything above beside OUTDIR (logs, summary, RunRecords; a few MB).
  if tar -czf "$outdir.tgz" -C "$(dirname "$outdir")" "$(basename "$outdir")"; then
    say "archive: $outdir.tgz ($(du -k "$outdir.tgz" | cut -f1) KiB)"
  fi
  case $state in
    passed) exit 0 ;;
    no_device) exit 3 ;;
    *) exit 1 ;;
  esac
}

# 1. configure + build --------------------------------------------------------------------------------
deps=${GPU_DEPS:-$root/.gpu-deps}
deps_flags=()
if [ -d "$deps" ]; then
  deps_flags=(-DCMAKE_PREFIX_PATH="$deps" -DOPENSSL_ROOT_DIR="$deps" -DOPENSSL_INCLUDE_DIR="$deps/include")
  crypto=$deps/lib/libcrypto.so.3  # this machine's own libcrypto.so.3 when it has one (same ABI)
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
if [ "${SKIP_BUILD:-0}" = 1 ]; then
  skip build "SKIP_BUILD=1: $mlpwb as it is"
else
  run configure 120 no_figures cmake -S "$root" -B "$build_dir" "${generator[@]}" "${launcher[@]}" \
    -DCMAKE_BUILD_TYPE=Release -DWB_GUI=OFF -DWB_TESTS=OFF -DWB_CUDA=ON "${arch_flag[@]}" "${deps_flags[@]}" &&
    run build 900 last_line cmake --build "$build_dir" -j "$jobs" --target mlpwb
fi
budget_start=$SECONDS budget_active=1
if [ ! -x "$mlpwb" ]; then
  say "no $mlpwb: nothing else can run"
  failed=1
  finish
fi

# 2. info: is there a device? ----------------------------------------------------------------------------
info_figures() { grep -E '^cuda' "$1" | head -n 1; }
run info 60 info_figures "$mlpwb" info
if grep -Eq '^cuda +available:' "$outdir/info.log"; then
  has_device=1
elif [ -n "$nvidia_gpu" ]; then
  say "FAILED: nvidia-smi lists a GPU ($nvidia_gpu) but mlpwb reports: $(info_figures "$outdir/info.log")"
  record cuda-available failed 0 1 "nvidia-smi lists $nvidia_gpu; mlpwb: $(info_figures "$outdir/info.log")"
else
  say "no device: nvidia-smi lists no GPU; $(info_figures "$outdir/info.log")"
fi
need_device() {  # need_device NAME: true when the step can run, else records it skipped
  if [ "$has_device" -eq 1 ]; then return 0; fi
  wanted "$1" && skip "$1" "no CUDA device"
  return 1
}

# 3. the fused combinations, then the persistent ones (the Fastest preset's) -------------------------------
# Without a device verify skips every combination and exits 0: run anyway, it checks the path.
run verify-fused "$([ "$quick" -eq 1 ] && echo 120 || echo 180)" verify_figures \
  "$mlpwb" verify --isolate --combination-timeout 120 --device "$device" --only launch=fused
# The persistent path (one cooperative kernel per epoch: Fastest), compared with the CPU like fused.
# Its 12 combinations each take seconds; a cap well under fused's keeps a hang from eating the lease.
# Only a path that passed here is timed in step 4 and sanitized in step 6: a hang there would eat the lease.
persistent_ok=0
run verify-persistent "$([ "$quick" -eq 1 ] && echo 60 || echo 120)" verify_figures \
  "$mlpwb" verify --isolate --combination-timeout "$([ "$quick" -eq 1 ] && echo 30 || echo 60)" --device "$device" \
  --only launch=persistent && persistent_ok=1

# 3b. the tasks beyond yes/no: each fixture case on eager and graph_step, PyTorch's loss curve ------------
if need_device tasks; then
  if command -v "$python" >/dev/null 2>&1; then
    run tasks 120 verify_figures "$python" "$root/scripts/check_task_parity.py" --mlpwb "$mlpwb" --backend cuda \
      --device "$device" --launches eager,graph_step --timeout 60 --out-dir "$outdir/tasks"
  else
    skip tasks "$python not found"
  fi
fi

# 4. the decisive speed table ----------------------------------------------------------------------------
decisive="Fused step,Static graph (Keras-like),torch_compile,jax_scan,torch_resident"
[ "$persistent_ok" -eq 1 ] && decisive="Fastest,$decisive"
if [ "$quick" -eq 1 ]; then bench_args=(--repeats 1 --epochs 40); speed_budget=230
else bench_args=(--repeats 2 --epochs 100); speed_budget=420; fi
if command -v "$python" >/dev/null 2>&1; then
  run speed "$((speed_budget + 30))" bench_figures "$python" "$root/bench/gpu_bench.py" --mlpwb "$mlpwb" \
    --device "$device" --python "$python" --out-dir "$outdir/speed" --summary "$outdir/speed.json" \
    --programs "$decisive" --no-scale --no-larger-than-gpu --compile-timeout 230 --budget-seconds "$speed_budget" \
    "${bench_args[@]}"
else
  skip speed "$python not found"
fi

# 5. every combination -------------------------------------------------------------------------------------
if [ "$quick" -eq 0 ]; then
  if need_device verify; then
    run verify 480 verify_figures "$mlpwb" verify --isolate --combination-timeout 120 --device "$device"
    # Batch 1024 in file order on the custom GEMM: split-K workspace, graph steps on views.
    run verify-large 150 verify_figures "$mlpwb" verify --isolate --combination-timeout 120 --device "$device" --rows 3000 \
      --batch-size 1024 --epochs 3 --file-order --only gemm=custom
  fi
fi

# 6. compute-sanitizer on one fused and one graph_step combination, a few steps ----------------------------
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ "$quick" -eq 1 ]; then tools=(memcheck); else tools=(memcheck racecheck synccheck); fi
sanitizer_figures() { grep -E 'ERROR SUMMARY' "$1" | tail -n 1; }
# The persistent kernel's grid barrier and its flags are what racecheck and synccheck are for; after
# the two established paths, and only once it passed its verify.
for launch in fused graph_step persistent; do
  for tool in "${tools[@]}"; do
    name=sanitize-$tool-$launch
    wanted "$name" || continue
    need_device "$name" || continue
    if [ "$launch" = persistent ] && [ "$persistent_ok" -ne 1 ]; then skip "$name" "verify-persistent did not pass"; continue; fi
    if [ ! -x "$sanitizer" ]; then skip "$name" "compute-sanitizer not found"; continue; fi
    run "$name" 240 sanitizer_figures "$sanitizer" --tool "$tool" --error-exitcode 9 \
      "$mlpwb" verify --device "$device" --only "launch=$launch" --limit 1 --rows 160 --batch-size 64 --epochs 1
  done
done

# 7. determinism: two Fastest runs, the same bits (launch=fused where the persistent verify did not pass) ----
if [ "$total_seconds" -gt 0 ] && [ $((total_seconds - (SECONDS - budget_start))) -lt 60 ]; then
  wanted determinism && skip determinism "TOTAL_SECONDS=$total_seconds spent"
elif wanted determinism && need_device determinism; then
  t0=$SECONDS
  : >"$outdir/determinism.log"
  ok=1
  det_launch=persistent
  [ "$persistent_ok" -eq 1 ] || det_launch=fused
  for i in 1 2; do
    step "determinism-$i" 120 "$mlpwb" train --backend cuda --device "$device" --preset Fastest --launch "$det_launch" \
      --builtin --epochs 10 --seed 7 --quiet --out "$outdir/determinism-$i.json" --save-weights "$outdir/determinism-$i.safetensors" || ok=0
    cat "$outdir/determinism-$i.log" >>"$outdir/determinism.log"
  done
  if [ "$ok" -eq 1 ] && cmp "$outdir/determinism-1.safetensors" "$outdir/determinism-2.safetensors" \
       >>"$outdir/determinism.log" 2>&1; then
    record determinism ok "$((SECONDS - t0))" 0 "two Fastest runs (launch=$det_launch, 10 epochs): weights bitwise equal"
  elif [ "$ok" -eq 1 ]; then
    record determinism failed "$((SECONDS - t0))" 1 "weights differ: $(last_line "$outdir/determinism.log")"
  else
    record determinism failed "$((SECONDS - t0))" 1 "a run failed: $(last_line "$outdir/determinism.log")"
  fi
fi

# 8. the rest of the benchmark; 9. the ablation ----------------------------------------------------------------
if [ "$quick" -eq 0 ]; then
  if command -v "$python" >/dev/null 2>&1; then
    run bench-rest 560 bench_figures "$python" "$root/bench/gpu_bench.py" --mlpwb "$mlpwb" --device "$device" \
      --python "$python" --out-dir "$outdir/bench" --summary "$outdir/bench-rest.json" --exclude "$decisive" \
      --repeats 2 --budget-seconds 520
  else
    skip bench-rest "$python not found"
  fi
  if need_device ablate; then
    run ablate 150 last_line "$mlpwb" ablate --backend cuda --device "$device" --builtin --epochs 20 --repeats 3 \
      --out "$outdir/ablation.json" --csv "$outdir/ablation.csv"
  fi
fi

finish
