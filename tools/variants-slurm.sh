#!/usr/bin/env bash
# variants-slurm.sh: the variants matrix (`make variants`, experiments/variants.sh) on a Slurm
# cluster, as four jobs, each waiting for the one before it to succeed (docs/experiments.md, *The
# matrix on Slurm*):
#
#   prepare  an array task per scene: E* and ρ (variants.sh --phase prepare), 2 CPUs
#   runs     an array task per cell (scene and variant): its untimed runs (--phase runs), 1 CPU
#   timed    one task, a whole node (--exclusive): every scene's convergence runs and ms-per-frame
#            timings, their rounds going round every scene's variants (--phase timed), so that each
#            cell's repetitions spread over the whole timed phase as under `make variants`
#   gather   one task: every row, OUT_DIR/matrix.tsv (--phase gather); into the default
#            data/results/variants, `make variants-gather`, which also makes the tables and figures
#
# From the project root, on a directory every node sees, after building (the tasks run bin/ from
# there): make bin/opsim bin/opsim-report bin/bench/bench_scenes data, then
#
#   tools/variants-slurm.sh submit [--wait] [OUT_DIR]     (OUT_DIR: data/results/variants)
#
# OUT_DIR/runs is made afresh, as `make variants` does; VARIANTS_SCENES, VARIANTS_ONLY,
# VARIANTS_TIMING_REPEATS and IDLE_WAIT are read at submission and passed to the tasks (sbatch
# exports the environment); SBATCH_PARTITION, SBATCH_TIMELIMIT … as the site wants. Each task's
# messages go to OUT_DIR/runs/slurm-JOBNAME-JOB_TASK.out. --wait returns when the gather job
# ends, with its status; a failed task cancels the jobs after it. A failed task can be run again
# alone (it reuses what it finds): sbatch --array=I --output=... tools/variants-slurm.sh task
# PHASE OUT_DIR. The task side, as sbatch starts it:
#
#   tools/variants-slurm.sh task prepare|runs|timed|gather OUT_DIR
#
# task I runs line I of OUT_DIR/runs/slurm-scenes.txt (prepare) or slurm-cells.txt (runs),
# both written by submit. Exit status: the phase's, or 64 for bad arguments.
#SBATCH --job-name=opsim-variants
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
set -euo pipefail

fail() { echo "variants-slurm.sh: $2" >&2; exit "$1"; }
usage="usage: variants-slurm.sh submit [--wait] [OUT_DIR] | task PHASE OUT_DIR"

submit() {
    local wait=() out
    [[ ${1:-} != --wait ]] || { wait=(--wait); shift; }
    out=${1:-data/results/variants}
    for program in bin/opsim bin/opsim-report bin/bench/bench_scenes; do
        [[ -x $program ]] || fail 64 "$program: missing (make bin/opsim bin/opsim-report bin/bench/bench_scenes data)"
    done
    rm -rf "$out/runs"
    mkdir -p "$out/runs"
    local scenes=${VARIANTS_SCENES:-bar collapse fall bunny}
    printf '%s\n' $scenes >"$out/runs/slurm-scenes.txt"
    VARIANTS_SCENES=$scenes experiments/variants.sh --cells >"$out/runs/slurm-cells.txt"
    local n_scenes n_cells log=$out/runs/slurm-%x-%A_%a.out
    n_scenes=$(wc -l <"$out/runs/slurm-scenes.txt")
    n_cells=$(wc -l <"$out/runs/slurm-cells.txt")
    ((n_cells > 0)) || fail 64 "no cell to run (VARIANTS_SCENES='$scenes', VARIANTS_ONLY='${VARIANTS_ONLY:-}')"
    local prepare runs timed gather
    prepare=$(sbatch --parsable --job-name=opsim-variants-prepare --array=0-$((n_scenes - 1)) \
        --cpus-per-task=2 --output="$log" "$0" task prepare "$out")
    runs=$(sbatch --parsable --job-name=opsim-variants-runs --array=0-$((n_cells - 1)) --cpus-per-task=1 \
        --dependency=afterok:${prepare%%;*} --kill-on-invalid-dep=yes --output="$log" "$0" task runs "$out")
    timed=$(sbatch --parsable --job-name=opsim-variants-timed --exclusive \
        --dependency=afterok:${runs%%;*} --kill-on-invalid-dep=yes --output="$out/runs/slurm-%x-%j.out" \
        "$0" task timed "$out")
    echo "variants-slurm.sh: jobs prepare ${prepare%%;*} ($n_scenes tasks), runs ${runs%%;*} ($n_cells)," \
        "timed ${timed%%;*} (one node alone), then gather"
    gather=$(sbatch --parsable "${wait[@]}" --job-name=opsim-variants-gather --cpus-per-task=2 \
        --dependency=afterok:${timed%%;*} --kill-on-invalid-dep=yes --output="$out/runs/slurm-%x-%j.out" "$0" task gather "$out")
    echo "variants-slurm.sh: gather ${gather%%;*}: $out/matrix.tsv"
}

task() {
    [[ $# -eq 2 ]] || fail 64 "$usage"
    local phase=$1 out=$2 jobs=${SLURM_CPUS_PER_TASK:-1} list line
    # the timing lock is the node's own: a timed task has its node alone (--exclusive), and a
    # lock on the shared directory would hold the other nodes' tasks too
    export VARIANTS_LOCK=${TMPDIR:-/tmp}/opsim-variants-${SLURM_JOB_ID:-0}-${SLURM_ARRAY_TASK_ID:-0}.lock
    case $phase in
    prepare | runs)
        list=$out/runs/slurm-scenes.txt
        [[ $phase != runs ]] || list=$out/runs/slurm-cells.txt
        [[ ${SLURM_ARRAY_TASK_ID:-} =~ ^[0-9]+$ ]] || fail 64 "SLURM_ARRAY_TASK_ID must be a line index of $list"
        [[ -r $list ]] || fail 64 "$list: cannot read it (variants-slurm.sh submit writes it)"
        line=$(sed -n "$((SLURM_ARRAY_TASK_ID + 1))p" "$list")
        [[ -n $line ]] || fail 64 "$list has no line $SLURM_ARRAY_TASK_ID"
        export VARIANTS_SCENES=${line%%$'\t'*}
        [[ $phase != runs ]] || export VARIANTS_ONLY=${line#*$'\t'}
        ;;
    timed | gather)
        [[ -r $out/runs/slurm-scenes.txt ]] || fail 64 "$out/runs/slurm-scenes.txt: cannot read it"
        VARIANTS_SCENES=$(paste -sd' ' "$out/runs/slurm-scenes.txt")
        export VARIANTS_SCENES
        if [[ $phase = gather && $out -ef data/results/variants ]]; then
            exec make variants-gather VARIANTS_SCENES="$VARIANTS_SCENES" VARIANTS_JOBS="$jobs"
        fi
        ;;
    *) fail 64 "$usage" ;;
    esac
    exec experiments/variants.sh --phase "$phase" "$out" "$jobs"
}

case ${1:-} in
submit) shift && submit "$@" ;;
task) shift && task "$@" ;;
*) fail 64 "$usage" ;;
esac
