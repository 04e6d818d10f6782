#!/usr/bin/env bash
# core/ is built in floors, each folder using only the folders below it (docs/ARCHITECTURE.md, "The
# folders of core/"): platform, data, model, run, cpu, train, measure. This check names every
# #include of core/ that reaches up a floor, or into a folder that is not on the list, and fails.
#   scripts/check-core-floors.sh
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

floors=(platform data model run cpu train measure)
floor_of() {  # floor_of FOLDER: its index in floors, or nothing
    local i
    for i in "${!floors[@]}"; do [[ ${floors[$i]} == "$1" ]] && echo "$i"; done
}

bad=0
for file in $(git ls-files 'core/*.h' 'core/*.cpp'); do
    folder=${file#core/}
    folder=${folder%%/*}
    own=$(floor_of "$folder")
    if [[ -z $own ]]; then
        echo "$file: core/$folder/ is not a floor (${floors[*]})"
        bad=1
        continue
    fi
    while IFS= read -r used; do
        target=$(floor_of "$used")
        if [[ -z $target || $target -gt $own ]]; then
            echo "$file includes core/$used/: above core/$folder/"
            bad=1
        fi
    done < <(sed -n 's|^#include "core/\([a-z_]*\)/.*|\1|p' "$file" | sort -u)
done
[ "$bad" -eq 0 ] && echo "every include of core/ stays on its floor or goes down (${floors[*]})"
exit "$bad"
