#!/usr/bin/env bash
# sweep-slurm.sh DIR: one run of an `opsim sweep` (core/io/sweep.h) as one task of a Slurm job
# array. Task i runs data line i of DIR/sweep.tsv (0 is the first line, DIR/run-000.h5): the
# command is rebuilt from the table's header lines (the config, the shared --set overrides, the
# grid keys) and the line's values, exactly as DIR/sweep.mk spells it. Submit from the project
# root, where Slurm starts each task, one array task per line:
#
#   bin/opsim sweep experiments/fig2.ini --grid world.iterations=10,100 --out sweep
#   sbatch --array=0-$(( $(grep -vc '^#' sweep/sweep.tsv) - 1 )) tools/sweep-slurm.sh sweep
#
# Each task writes its run file and sidecar (run-NNN.h5, run-NNN.xmf) like `opsim run`; a task
# that fails leaves no run file, so resubmitting only the failed indices (--array=2,5) is safe.
# OPSIM=PATH picks another binary than bin/opsim. Without Slurm, for a try:
#   SLURM_ARRAY_TASK_ID=1 tools/sweep-slurm.sh sweep
# Exit status: opsim's own, or 64 for a bad DIR or task index, 65 for a malformed table.
#SBATCH --job-name=opsim-sweep
#SBATCH --output=%x-%A_%a.out
#SBATCH --cpus-per-task=1
#SBATCH --ntasks=1
set -euo pipefail

fail() { echo "sweep-slurm.sh: $2" >&2; exit "$1"; }

[[ $# -eq 1 ]] || fail 64 "usage: sweep-slurm.sh DIR (the --out DIR of opsim sweep)"
table=$1/sweep.tsv
task=${SLURM_ARRAY_TASK_ID:-}
[[ $task =~ ^[0-9]+$ ]] || fail 64 "SLURM_ARRAY_TASK_ID must be a line index 0, 1, ..., not '$task'"
[[ -r $table ]] || fail 64 "$table: cannot read it (run opsim sweep ... --out $1 first)"

config='' keys=() sets=() run=() lines=0
# Tab is the only separator: keys and values may hold blanks ('body bar_k.stiffness').
while IFS=$'\t' read -r -a fields; do
    case ${fields[0]:-} in
    '# config') config=${fields[1]:-} ;;
    '# set') sets+=(--set "${fields[1]:-}") ;;
    '# run') keys=("${fields[@]:1}") ;;
    '#'*) ;;
    *)
        if ((lines == task)); then run=("${fields[@]}"); fi
        lines=$((lines + 1))
        ;;
    esac
done <"$table"

[[ -n $config ]] || fail 65 "$table: no '# config' line"
((task < lines)) || fail 64 "$table has $lines runs (0 to $((lines - 1))); there is no run $task"
((${#run[@]} == ${#keys[@]} + 1)) ||
    fail 65 "$table: run $task has $((${#run[@]} - 1)) values for ${#keys[@]} keys"

args=()
for i in "${!keys[@]}"; do
    args+=(--set "${keys[i]}=${run[i + 1]}")
done
exec "${OPSIM:-bin/opsim}" run "$config" "${sets[@]}" "${args[@]}" --out "${run[0]}"
