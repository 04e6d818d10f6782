#!/usr/bin/env bash
# Checks scripts/gpu-check.sh on any machine, without a GPU: fake nvidia-smi, mlpwb, compute-sanitizer
# and python stand in for the real ones, and five scenarios check the step order, the time caps, the
# streamed logs, summary.json and the exit codes:
#   1. a device, every step passes (full mode)    -> "passed", exit 0, the steps in the documented order
#   2. the verifies hang past their caps (quick) -> timed_out, the later steps still run, "failed", exit 1
#   2b. the same with TOTAL_SECONDS=35            -> the hang gets what is left, the later steps are skipped
#   3. nvidia-smi lists a GPU, mlpwb says CUDA is unavailable -> "failed", exit 1, said loudly
#   4. no GPU at all                               -> "no_device", "passed": false, exit 3
#   scripts/gpu-check-selftest.sh        (about 40 s; exit 0 when all hold)
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
check() {  # check DESCRIPTION COMMAND...
  if "${@:2}"; then echo "ok   $1"; else echo "FAIL $1"; fails=1; fi
}

mkdir -p "$work/bin" "$work/build/cli"
# mlpwb: info says what FAKE_CUDA says; verify hangs when FAKE_HANG_VERIFY is set; train saves weights.
cat >"$work/build/cli/mlpwb" <<'EOF'
#!/usr/bin/env bash
case $1 in
  info) if [ "${FAKE_CUDA:-1}" = 1 ]; then echo "cuda  available: FAKE H200"; else echo "cuda  unavailable: no NVIDIA driver"; fi ;;
  verify) [ -n "${FAKE_HANG_VERIFY:-}" ] && sleep 30
          echo "PASS  launch=fused fake"; echo "1 passed, 0 failed" ;;
  train) while [ $# -gt 0 ]; do [ "$1" = --save-weights ] && echo same-bits >"$2"; shift; done ;;
  ablate) echo "ablation: fake" ;;
esac
EOF
cat >"$work/bin/nvidia-smi" <<'EOF'
#!/usr/bin/env bash
[ -n "${FAKE_NO_GPU:-}" ] && exit 9
case "$*" in
  -L) echo "GPU 0: FAKE H200 (UUID: GPU-0)" ;;
  *compute_cap*) echo "9.0" ;;
  *) echo "FAKE H200, 550.00" ;;
esac
EOF
cat >"$work/bin/compute-sanitizer" <<'EOF'
#!/usr/bin/env bash
while [ "${1#--}" != "$1" ]; do shift 2; done
"$@" >/dev/null; echo "========= ERROR SUMMARY: 0 errors"
EOF
# python: the benchmark writes its --summary JSON.
cat >"$work/bin/fakepython" <<'EOF'
#!/usr/bin/env bash
while [ $# -gt 0 ]; do [ "$1" = --summary ] && summary=$2; shift; done
printf '{"results": [{"program": "mlpwb cuda: Fastest", "status": "ok", "median_epoch_ms": 0.5}], "ratios": {"persistent_speedup_vs_torch_compile": 6.0}}\n' >"$summary"
echo "| program | ... |"
EOF
chmod +x "$work/build/cli/mlpwb" "$work/bin/"*
# The real python reads the JSON figures; the fake one stands for bench/gpu_bench.py.
export PATH=$work/bin:$PATH SKIP_BUILD=1 BUILD_DIR=$work/build
field() { python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print($2)" "$1/summary.json"; }

# 1. everything passes
PYTHON=$work/bin/fakepython "$root/scripts/gpu-check.sh" "$work/o1" >"$work/o1.out" 2>&1
rc=$?
check "1: exit 0" [ "$rc" -eq 0 ]
check "1: status passed" [ "$(field "$work/o1" "s['status'], s['passed']")" = "passed True" ]
order=$(field "$work/o1" "' '.join(x['step'] for x in s['steps'])")
want="build info verify-fused verify-persistent tasks speed verify verify-large sanitize-memcheck-fused sanitize-racecheck-fused sanitize-synccheck-fused sanitize-memcheck-graph_step sanitize-racecheck-graph_step sanitize-synccheck-graph_step sanitize-memcheck-persistent sanitize-racecheck-persistent sanitize-synccheck-persistent determinism bench-rest ablate"
check "1: the steps in order ($order)" [ "$order" = "$want" ]
check "1: the persistent path (Fastest) timed after its verify passed" grep -q -- "--programs Fastest,Fused step,Static" "$work/o1.out"
check "1: determinism on the persistent path" grep -q 'two Fastest runs (launch=persistent' "$work/o1/table.md"
check "1: speed figures from its JSON" grep -q "Fastest 0.500 ms; xtorch_compile 6.0" "$work/o1/summary.json"
check "1: the Markdown table" grep -q '^| determinism | ok | [0-9]* | two Fastest runs' "$work/o1/table.md"
check "1: per-step logs" grep -q "ERROR SUMMARY: 0 errors" "$work/o1/sanitize-memcheck-fused.log"

# 2. the fused verify hangs past its cap: timed out, the rest still runs
FAKE_HANG_VERIFY=1 CAP_SCALE=0.01 PYTHON=$work/bin/fakepython "$root/scripts/gpu-check.sh" --quick "$work/o2" \
  >"$work/o2.out" 2>&1
rc=$?
check "2: exit 1" [ "$rc" -eq 1 ]
check "2: verify-fused timed_out" [ "$(field "$work/o2" "[x['status'] for x in s['steps'] if x['step']=='verify-fused'][0]")" = timed_out ]
check "2: verify-persistent timed_out" [ "$(field "$work/o2" "[x['status'] for x in s['steps'] if x['step']=='verify-persistent'][0]")" = timed_out ]
check "2: quick mode's steps" [ "$(field "$work/o2" "s['mode'], ' '.join(x['step'] for x in s['steps'])")" = \
  "quick build info verify-fused verify-persistent tasks speed sanitize-memcheck-fused sanitize-memcheck-graph_step sanitize-memcheck-persistent determinism" ]
check "2: a persistent path that hung is neither timed nor sanitized" \
  grep -q '| sanitize-memcheck-persistent | skipped | 0 | verify-persistent did not pass |' "$work/o2/table.md"
check "2: ... and not in the speed table" grep -q -- "--programs Fused step,Static" "$work/o2.out"
check "2: status failed" [ "$(field "$work/o2" "s['status'], s['passed']")" = "failed False" ]

# 2b. an overall budget: the hang takes what is left, the later steps are skipped
FAKE_HANG_VERIFY=1 TOTAL_SECONDS=35 PYTHON=$work/bin/fakepython "$root/scripts/gpu-check.sh" --quick "$work/o2b" \
  >"$work/o2b.out" 2>&1
check "2b: later steps skipped for the budget" grep -q '| determinism | skipped | 0 | TOTAL_SECONDS=35 spent |' "$work/o2b/table.md"
check "2b: within the budget" [ "$(field "$work/o2b" "s['seconds'] <= 40")" = True ]

# 3. a GPU that CUDA cannot use
FAKE_CUDA=0 PYTHON=$work/bin/fakepython "$root/scripts/gpu-check.sh" --quick "$work/o3" >"$work/o3.out" 2>&1
rc=$?
check "3: exit 1" [ "$rc" -eq 1 ]
check "3: said loudly" grep -q "FAILED: nvidia-smi lists a GPU" "$work/o3.out"
check "3: status failed" [ "$(field "$work/o3" "s['status'], s['passed']")" = "failed False" ]

# 4. no GPU
FAKE_NO_GPU=1 FAKE_CUDA=0 PYTHON=$work/bin/fakepython "$root/scripts/gpu-check.sh" "$work/o4" >"$work/o4.out" 2>&1
rc=$?
check "4: exit 3" [ "$rc" -eq 3 ]
check "4: status no_device" [ "$(field "$work/o4" "s['status'], s['passed']")" = "no_device False" ]
check "4: device steps skipped" grep -q '| determinism | skipped | 0 | no CUDA device |' "$work/o4/table.md"

[ "$fails" -eq 0 ] && echo "gpu-check-selftest: all passed" || echo "gpu-check-selftest: FAILED (outputs were in $work)"
exit "$fails"
