#!/usr/bin/env bash
# Runs every peer (PyTorch DataLoader loop, PyTorch resident tensors, torch.compile, CUDA Graph
# step, JAX jit+scan, Keras fit) and the workbench's presets on the same .npy data from the same
# initial weights, and prints one table: median epoch ms, ratio to the fastest, final loss and
# accuracy (bench/compare_table.py makes it from the RunRecords).
#
#   bench/compare.sh DATA_PREFIX|--builtin [options]
#
# DATA_PREFIX: PREFIX_x.npy + PREFIX_y.npy (what `mlpwb dataset --npy-out PREFIX` writes), or a
#              folder holding x.npy + y.npy (what bench/peers/make_dataset.py writes).
# --builtin:   the seed workload, 100000 x 61, made by bench/peers/make_dataset.py (seed 1).
# Options:
#   --epochs N             epochs of every run except the DataLoader loop (default 20)
#   --dataloader-epochs N  epochs of the founding DataLoader loop (default: min(N, 8); it is slow)
#   --wb-epochs N          epochs of the workbench presets (default: N)
#   --repeats R            runs of each program, interleaved (default 3)
#   --device cpu|cuda      the peers' --device and the workbench's --backend (default cpu)
#   --build DIR            the workbench's build folder, with cli/mlpwb (default: build)
#   --threads T|default    --threads for the peers (default 1 on cpu, the workbench CPU backend's
#                          count; "default" leaves each framework its own choice, which on a busy
#                          2-core machine can be far slower: OpenMP threads waiting on each other)
#   --only KEYS            comma-separated subset of: dataloader,resident,compile,cudagraph,jax,keras,wb
#   --out DIR              where data, RunRecords (DIR/runs) and compare.md go (default bench/out/compare)
#   --results FILE         Markdown file whose compare.sh section is replaced (default bench/RESULTS.md;
#                          "none" to leave it alone)
#   --note TEXT            a paragraph for the section, above the table
#   --table-only           make the table again from OUT/manifest.tsv and its RunRecords, run nothing
# Interpreters: Debian's /usr/bin/python3 (PyTorch 1.13) runs the DataLoader and resident-tensor
# peers, or $WB_TORCH1_PYTHON; the peers' venv runs the others: $WB_PEER_PYTHON, default
# .venv/bin/python (make it with bench/peers/setup_venv.sh). A peer whose framework or GPU is
# missing prints "SKIP: reason" and shows as skipped in the table.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
peers="$here/peers"
torch1_python="${WB_TORCH1_PYTHON:-/usr/bin/python3}"
peer_python="${WB_PEER_PYTHON:-$root/.venv/bin/python}"
table_python=/usr/bin/python3
[[ -x "$table_python" ]] || table_python=python3

usage() { sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }
die() { echo "compare.sh: $*" >&2; exit 2; }

data="" epochs=20 dataloader_epochs="" wb_epochs="" repeats=3 device=cpu build="$root/build"
threads="" only="dataloader,resident,compile,cudagraph,jax,keras,wb" out="$here/out/compare"
results="$here/RESULTS.md" note="" table_only=0
command_line="bench/compare.sh$(printf ' %q' "$@")"
[[ -z "${WB_PEER_PYTHON:-}" ]] || command_line="WB_PEER_PYTHON=$WB_PEER_PYTHON $command_line"
while [[ $# -gt 0 ]]; do
    case "$1" in
        -h|--help) usage 0 ;;
        --builtin) data=builtin ;;
        --epochs) epochs="$2"; shift ;;
        --dataloader-epochs) dataloader_epochs="$2"; shift ;;
        --wb-epochs) wb_epochs="$2"; shift ;;
        --repeats) repeats="$2"; shift ;;
        --device) device="$2"; shift ;;
        --build) build="$2"; shift ;;
        --threads) threads="$2"; shift ;;
        --only) only="$2"; shift ;;
        --out) out="$2"; shift ;;
        --results) results="$2"; shift ;;
        --note) note="$2"; shift ;;
        --table-only) table_only=1 ;;
        -*) die "unknown option $1 (see --help)" ;;
        *) [[ -z "$data" ]] || die "one data set only (got $data and $1)"; data="$1" ;;
    esac
    shift
done
[[ -n "$data" ]] || usage 2
[[ "$device" == cpu || "$device" == cuda ]] || die "--device must be cpu or cuda"
for n in "$epochs" "$repeats"; do [[ "$n" =~ ^[1-9][0-9]*$ ]] || die "--epochs and --repeats take a positive integer"; done
dataloader_epochs="${dataloader_epochs:-$(( epochs < 8 ? epochs : 8 ))}"
if [[ -z "$threads" && "$device" == cpu ]]; then threads=1; fi
[[ "$threads" != default ]] || threads=""
wb_epochs="${wb_epochs:-$epochs}"
mlpwb="$build/cli/mlpwb"
export WB_MLPWB="$mlpwb"  # the torch peers run this workbench's exported loop (peers/exported_loop.py)

# ---- the data and the initial weights every run starts from -------------------------------------
mkdir -p "$out/runs"
if [[ "$data" == builtin ]]; then
    if [[ ! -f "$out/data/x.npy" || ! -f "$out/data/y.npy" ]]; then
        "$torch1_python" "$peers/make_dataset.py" --rows 100000 --features 61 --seed 1 --out-dir "$out/data"
    fi
    x="$out/data/x.npy" y="$out/data/y.npy"
elif [[ -d "$data" ]]; then
    x="$data/x.npy" y="$data/y.npy"
else
    x="${data}_x.npy" y="${data}_y.npy"
fi
[[ -f "$x" && -f "$y" ]] || die "no data at $x and $y"
x="$(cd "$(dirname "$x")" && pwd)/$(basename "$x")"
y="$(cd "$(dirname "$y")" && pwd)/$(basename "$y")"
init="$out/init.safetensors"
(cd "$peers" && "$table_python" - "$x" "$init" <<'PY'
import sys
import numpy as np
import peer_core
features = np.load(sys.argv[1], mmap_mode="r").shape[1]
peer_core.write_safetensors(sys.argv[2], peer_core.torch_default_init(features, peer_core.DEFAULT_HIDDEN, 0))
PY
)

# ---- the programs: key|name|command (without --out) ---------------------------------------------
common=(--data "$x" --labels "$y" --batch-size 2048 --device "$device" --init-weights "$init")
[[ -z "$threads" ]] || common+=(--threads "$threads")
programs=()
add() { [[ ",$only," == *",$1,"* ]] && programs+=("$1|$2|$3") || true; }
q() { printf '%q ' "$@"; }
add dataloader "PyTorch (DataLoader)" "$(q "$torch1_python" "$peers/torch_dataloader.py" "${common[@]}" --epochs "$dataloader_epochs")"
add resident "PyTorch (resident tensors)" "$(q "$torch1_python" "$peers/torch_resident.py" "${common[@]}" --epochs "$epochs")"
compile_name="PyTorch torch.compile (reduce-overhead)"
[[ "$device" == cuda ]] || compile_name+=" (CPU)"
add compile "$compile_name" "$(q "$peer_python" "$peers/torch_compile.py" "${common[@]}" --epochs "$epochs" --name "$compile_name")"
add cudagraph "PyTorch CUDA Graph step" "$(q "$peer_python" "$peers/torch_cuda_graph.py" "${common[@]}" --epochs "$epochs")"
add jax "JAX jit+scan" "$(q "$peer_python" "$peers/jax_scan.py" "${common[@]}" --epochs "$epochs")"
add keras "Keras model.fit" "$(q "$peer_python" "$peers/keras_fit.py" "${common[@]}" --epochs "$epochs")"
if [[ ",$only," == *",wb,"* ]]; then
    [[ -x "$mlpwb" ]] || die "no workbench at $mlpwb (build it, or pass --build DIR)"
    wb_backend=cpu; [[ "$device" == cpu ]] || wb_backend=cuda
    while IFS= read -r preset; do
        add wb "mlpwb $wb_backend: $preset" "$(q "$mlpwb" train --data "$x" --labels "$y" --backend "$wb_backend" \
            --preset "$preset" --epochs "$wb_epochs" --batch-size 2048 --layers 20,10 --activation tanh \
            --optimizer adam --lr 0.001 --val-split 0 --no-standardize --init-weights "$init" --quiet \
            --name "mlpwb $wb_backend: $preset")"
    done < <("$mlpwb" presets | grep -v '^[[:space:]]' | sed -n '/^Switches/q;p' | grep -v '^$')
fi

# ---- run them, interleaved so that a slow spell of the machine hits every program ---------------
manifest="$out/manifest.tsv"
load_before="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || true)"
if [[ "$table_only" == 1 ]]; then
    [[ -f "$manifest" ]] || die "--table-only: no $manifest"
    repeats=0 load_before="$(cat "$out/load_before" 2>/dev/null || true)"
    repeats_text="$(cut -f3 "$manifest" | sort -n | tail -1)"
    command_line="$(cat "$out/command" 2>/dev/null || echo "$command_line")"
else
    : > "$manifest"
    echo "$load_before" > "$out/load_before"
    echo "$command_line" > "$out/command"
    repeats_text="$repeats"
fi
for ((r = 1; r <= repeats; r++)); do
    i=0
    for entry in "${programs[@]}"; do
        i=$((i + 1))
        IFS='|' read -r key name cmd <<<"$entry"
        record="$out/runs/$(printf '%02d' "$i")-$key-r$r.json"
        [[ "$key" != wb ]] || record="$out/runs/$(printf '%02d' "$i")-wb-$(echo "$name" | tr -c 'A-Za-z0-9\n' '_')-r$r.json"
        log="${record%.json}.log"
        rm -f "$record"
        echo "[$r/$repeats] $name" >&2
        status=ran message=""
        if eval "$cmd --out $(q "$record")" >"$log" 2>&1; then
            if grep -q '^SKIP:' "$log"; then
                status=skipped message="$(grep -m1 '^SKIP:' "$log" | sed 's/^SKIP: //')"
                echo "    skipped: $message" >&2
            else
                echo "    $(grep -m1 '^median epoch ms\|median' "$log" | tail -1)" >&2
            fi
        else
            status=failed message="exit $?: $(tail -1 "$log" | tr '\t' ' ')"
            echo "    FAILED ($message), see $log" >&2
        fi
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$key" "$name" "$r" "$status" "$record" "$message" >> "$manifest"
    done
done

if [[ "$table_only" == 1 ]]; then
    load_after="$(cat "$out/load_after" 2>/dev/null || true)"
else
    load_after="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || true)"
    echo "$load_after" > "$out/load_after"
fi

# ---- the table ----------------------------------------------------------------------------------
title="Every peer and the workbench on the same data ($device)"
wb_version="$("$mlpwb" --version 2>/dev/null || true)"
full_note="Data: $(basename "$x")/$(basename "$y") ($data); $repeats_text repeats, interleaved; batch 2048, "
full_note+="features→20→10→1 tanh, Adam lr 1e-3, BCE, no shuffling, no standardisation, "
full_note+="the same initial weights for every run ($init). Epochs: DataLoader loop $dataloader_epochs, "
threads_text="${threads:-the framework default}"
full_note+="other peers $epochs, workbench $wb_epochs. Peer threads: $threads_text.${wb_version:+ Workbench: $wb_version ($mlpwb).}"
[[ -z "$note" ]] || full_note="$note"$'\n\n'"$full_note"
results_args=()
[[ "$results" == none ]] || results_args=(--results "$results")
"$table_python" "$here/compare_table.py" --manifest "$manifest" --markdown "$out/compare.md" \
    "${results_args[@]}" --section "$title" --command "$command_line" --note "$full_note" \
    --load-before "$load_before" --load-after "$load_after"
echo "RunRecords: $out/runs; table and machine: $out/compare.md${results_args:+; section updated in $results}" >&2
