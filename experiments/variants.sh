#!/bin/bash
# The comparison matrix (make variants, experiments/variants.mk): every solver variant and option
# on the paper's scenes, measured by the harness alike. Usage:
#   experiments/variants.sh [--list | --cells | --phase prepare|runs|timed|gather] OUT_DIR JOBS
# writes OUT_DIR/matrix.tsv (one row per variant and scene, a plain header line) from runs under
# OUT_DIR/runs/, JOBS of them side by side, each with one OpenMP thread. A part of the matrix:
# VARIANTS_SCENES (e.g. "bar") and VARIANTS_ONLY (labels, e.g. "arap-gs arap-jacobi") in the
# environment; VARIANTS_TIMING_REPEATS the ms-per-frame repetitions (7).
#
# Phases, for a cluster (tools/variants-slurm.sh, docs/experiments.md, *The matrix on Slurm*): the
# matrix is four phases, which `--phase P` runs one at a time on the scenes of VARIANTS_SCENES
# and the variants of VARIANTS_ONLY, each reusing what the ones before it left in OUT_DIR/runs:
#   prepare  E* and ρ of each scene (untimed)
#   runs     each cell's untimed runs (the scene's run, the bar's 15), its ms-per-frame verdict
#   timed    every scene's convergence runs and ms-per-frame timings, in one converge batch and one
#            bench_scenes run whose rounds go round all of them (timed: alone on the node)
#   gather   each cell's row from what the others left (no run is made again: a run that stopped
#            kept its message) and OUT_DIR/matrix.tsv, as the whole script writes it
# Without --phase, all four in one go (convergence before the untimed runs). `--cells` prints
# the cells, "SCENE<tab>LABEL" a line, and runs nothing. VARIANTS_LOCK names the timing lock
# (default OUT_DIR/runs/.timing.lock: below).
#
# Variants: `bin/opsim solvers --names`, arap expanded into its options (Gauss–Seidel and Jacobi
# rotations, each plain, with Chebyshev (ρ from opsim estimate-rho for the scene and order) and
# with Anderson (m = 5)); shape-matching in each group order (jacobi, its default, and gs),
# meshless with its default goals (start: one explicit update a sub-step) and with predicted
# goals (an iteration); vbd plain and with Chebyshev (ρ estimated for vbd), as Chen et al. 2024
# run it; every other variant plain with its defaults (a variant landing later joins as it is).
# rigid is the k → ∞ reference (one rigid body, implicit Euler), not a solver of
# the elastic problem: its energy never approaches the elastic E*.
#
# Scenes and what is measured on each (every measure by bin/opsim, never by the variant):
#   bar       experiments/fig3.ini (Fig. 2's bar at 2k, one end pinned, hanging; Fig. 3's scene)
#   collapse  experiments/fig4.ini (Fig. 4: collapsed to the pinned centre particle)
#   fall      experiments/fig5.ini (Fig. 5: onto the floor, 3 sub-steps x 3 iterations)
#   bunny     experiments/fig6-bunny.ini (Fig. 6: onto the held sheet, 6 x 2, collisions)
# - convergence: one `opsim converge --batch` for every scene, a line a scene (CONFIG --frame F
#   --study LABEL:solver.KEY=VALUE;… …), every variant a study (the configured arap to frame F,
#   then each variant solves the next sub-step from that one state, 300 iterations, seven times
#   after an untimed one, the repetitions interleaved across every scene's variants: round 1 of
#   every scene, each scene's variants once in the matrix's order, then round 2 of every scene,
#   each from its second variant on, …; the median time to each iteration, --repeats 7); iterations
#   and ms to a relative energy error r = |E_k − E*| / (E_0 − E*) of 1e-2, 1e-4, 1e-6 (the first
#   k after which r stays below), E* from 5,000 plain Gauss–Seidel iterations; r after 300 and
#   r after the scene's own iteration count (r_at_ni: bar and collapse 10, fall 3, bunny 2);
#   each ms's 95 % interval over the seven and its noisy flag (ms_1e-4_lo, ms_1e-4_hi,
#   ms_1e-4_noisy, …). opsim-report convergence-cells computes them
#   (reports/report_convergence.h) from runs/converge-SCENE/LABEL.tsv. A variant the scene's
#   run refuses or fails on (converge names its study) gets its verdict from that message and
#   the others run again without it (converge_all).
#   Frames: bar 60, collapse 5, fall 15, bunny 20.
# - convergence to the variant's own solution (own_*): the same run with --fixed-point 5000:
#   iterations and ms until ‖x_k − x*‖ / ‖x_0 − x*‖ stays below 1e-2, 1e-4, 1e-6, x* the positions
#   after 5,000 iterations of the same variant from the same state, for every family (shape
#   matching, springs, meshless minimise no ARAP energy, so their energy cells say little);
#   opsim converge computes the cells ("single update" for a variant whose first iteration
#   gives x*; "x* unsettled" where x*'s last step is above 1/100 of the tolerance);
#   own_last_step is that last step; own_ms_1e-2_lo, own_ms_1e-2_hi, own_ms_1e-2_noisy, … (the
#   row's last nine columns) each own ms's 95 % interval and noisy flag, as ms_TOL's.
# - ms per frame, by the timing protocol (docs/timing.md): after every cell is computed, one
#   bin/bench/bench_scenes call times every variant on every scene it ran on (-P, the plan
#   RUNS/timing-plan.tsv: a line per scene and variant), round r going round them all (every
#   scene, every variant of it) before round r + 1, so that each scene's repetitions spread over
#   the whole timed phase; VARIANTS_TIMING_REPEATS repetitions (7: the least count
#   whose median interval reaches 95 %, plus one, as converge's), each loaded afresh with energy
#   logging off, WARMUP untimed frames then TIMED frames from the scene's start (bar 10 + 30 at
#   10 iterations, 1/30 s; collapse and fall 5 + 15; bunny 2 + 6: seven repetitions time about
#   as many frames as the one timed run they replace, which is still made, untimed and beside
#   the others, for the verdict and the collapse's recovery; so the matrix's serial, timed part
#   does not grow); a repetition's value its median frame. The matrix gives the median of the repetitions
#   (ms_per_frame), its order-statistic 95 % interval (ms_per_frame_lo, ms_per_frame_hi) and
#   ms_per_frame_noisy (1 when the half-width exceeds 5 % of the median). `variants.sh --list
#   OUT_DIR` prints the timing runs' order (scene, round, variant) and runs nothing.
# - the machine probe (core/base/probe.h), timed at the start of every timed round of each
#   scene's converge and of the bench_scenes call: RUNS/probe.tsv ("phase round started_s
#   probe_ms"), which make variants-stability sets beside the cells' change between two runs.
# Timed work runs alone (the timing protocol): every command holds a lock on
# OUT_DIR/runs/.timing.lock, the untimed ones shared (JOBS of them side by side), the timed ones
# (each scene's converge and the one bench_scenes) exclusive, so that a timed command waits
# until nothing else of the matrix runs and nothing starts beside it; bench_scenes also starts
# through tools/when-idle.sh, which waits (up to IDLE_WAIT s, 30) for the machine to be idle.
# - recovery (collapse): the time from which the rest-shape error stays below 2 % (5 s run).
# - stiffness (bar): Fig. 3's spread: the steady tip deflection (mean over the last 2 s of 10 s)
#   at 10, 100 and 1000 iterations (1/30 s) and at 1/60 and 1/120 s (10 iterations); the
#   largest over the smallest of the five.
# - robustness (bar): the largest h of 1/240, 1/120, 1/60, 1/30, 1/15, 1/10 s (k = 1e9, 10
#   iterations) and the largest k of 1e6 … 1e11 (h = 1/30 s) at which a 5 s run completes with
#   finite positions and a tip deflection that never exceeds 10 m (the bar is 1 m long; a soft
#   one hangs stretched, at k = 1e6 about 2 m below; ten lengths is a blown-up bar); every value
#   of the range is run and the largest stable one given; '≥' marks the top of the range. Chebyshev takes the ρ estimated at the
#   defaults for every h and k.
# A cell that cannot be measured says so: "refused" when the variant refuses the scene or its
# options (opsim exits 64/65 before running), "failed" when the run stops (a non-finite state,
# a solver error), with opsim's message in the row's note; "–" when a tolerance is never reached
# or the measure does not apply to the scene; "none" when no h or k of the range was stable.
# Those words are the gathered cells' (OUT_DIR/runs/matrix-cells.txt, not a result table);
# `opsim-report matrix` makes them matrix.tsv, whose number columns hold numbers only: a word
# moves to its status column (timing_status, convergence_status, own_status_1e-2 …,
# recovery_s_status, …, before note), '≥' to a bound column (max_h_s_bound, max_k_bound: "ge"),
# "1/10" becomes 0.1, '–' an empty cell (docs/results.md, *The variants matrix*).
set -u
USAGE="usage: variants.sh [--list | --cells | --phase prepare|runs|timed|gather] OUT_DIR JOBS"
LIST=0 PHASE=all
while [ $# -gt 0 ]; do
    case $1 in
    --list) LIST=1 && shift ;;
    --cells) LIST=2 && shift ;;
    --phase) PHASE=${2:-} && shift $(($# > 1 ? 2 : 1)) ;;
    *) break ;;
    esac
done
case $PHASE in all | prepare | runs | timed | gather) ;; *) echo "variants.sh: --phase '$PHASE': $USAGE" >&2 && exit 64 ;; esac
[ $LIST = 2 ] || [ $# -gt 0 ] || { echo "variants.sh: $USAGE" >&2; exit 64; }
OUT=${1:-}
JOBS=${2:-2}
export OMP_NUM_THREADS=1
RUNS=$OUT/runs
LOCK=${VARIANTS_LOCK:-$RUNS/.timing.lock} # the Slurm route's tasks: a lock of the node's own
# timed: alone (the file comment), and started once the machine is idle (up to IDLE_WAIT s, 30)
BENCH_ALONE="flock -x $LOCK env IDLE_WAIT=${IDLE_WAIT:-30} tools/when-idle.sh ${BENCH:-bin/bench/bench_scenes}"
OPSIM_ALONE="flock -x $LOCK ${OPSIM:-bin/opsim}"
REPORT=${REPORT:-bin/opsim-report} # every number the script derives, computed here
OPSIM="flock -s $LOCK ${OPSIM:-bin/opsim}" # untimed: beside other untimed work
[ $LIST = 0 ] || OPSIM=${OPSIM#flock -s $LOCK } # --list, --cells run nothing: no lock, no OUT_DIR
REPEATS=7 # converge --repeats: the least count whose median interval is 95 % or more, plus one
TIMING_REPEATS=${VARIANTS_TIMING_REPEATS:-7} # ms per frame's repetitions (the file comment)

SCENES=${VARIANTS_SCENES:-bar collapse fall bunny} # a part of the matrix: VARIANTS_SCENES, VARIANTS_ONLY
declare -A CONFIG=([bar]=experiments/fig3.ini [collapse]=experiments/fig4.ini [fall]=experiments/fig5.ini
    [bunny]=experiments/fig6-bunny.ini)
declare -A FRAME=([bar]=60 [collapse]=5 [fall]=15 [bunny]=20)
declare -A FRAMES=([bar]=300 [collapse]=150 [fall]=150 [bunny]=60)
declare -A NI=([bar]=10 [collapse]=10 [fall]=3 [bunny]=2) # the configs' iterations a sub-step
declare -A WARMUP=([bar]=10 [collapse]=5 [fall]=5 [bunny]=2) # ms per frame: untimed, then timed frames
declare -A TIMED=([bar]=30 [collapse]=15 [fall]=15 [bunny]=6)
ITERATIONS=300
REFERENCE=5000

# label and its [solver] settings, space separated KEY=VALUE; 'rho:ORDER' marks Chebyshev (ORDER
# gs or jacobi: arap's rotations; vbd: the vbd variant); only the labels in VARIANTS_ONLY when set
variants() {
    local entry
    all_variants | while IFS= read -r entry; do
        case " ${VARIANTS_ONLY:-${entry%%	*}} " in *" ${entry%%	*} "*) printf '%s\n' "$entry" ;; esac
    done
}
all_variants() {
    for name in $($OPSIM solvers --names); do
        if [ "$name" = arap ]; then
            for order in gs jacobi; do
                printf 'arap-%s\tname=arap rotations=%s\n' $order $order
                printf 'arap-%s-chebyshev\tname=arap rotations=%s chebyshev=on rho:%s\n' $order $order $order
                printf 'arap-%s-anderson\tname=arap rotations=%s anderson=on anderson_m=5\n' $order $order
            done
        elif [ "$name" = shape-matching ]; then
            printf '%s\tname=%s\n' "$name" "$name"
            printf '%s-gs\tname=%s order=gs\n' "$name" "$name"
        elif [ "$name" = meshless ]; then
            printf '%s\tname=%s\n' "$name" "$name"
            printf '%s-predicted\tname=%s goals=predicted\n' "$name" "$name"
        elif [ "$name" = vbd ]; then
            # Chen et al. 2024 accelerate VBD with Chebyshev (their Sec. 3.8): both, ρ estimated for vbd
            printf 'vbd\tname=vbd\n'
            printf 'vbd-chebyshev\tname=vbd chebyshev=on rho:vbd\n'
        else
            printf '%s\tname=%s\n' "$name" "$name"
        fi
    done
}

# the settings of a variant on a scene as repeated FLAG PREFIXKEY=VALUE (NUL-separated), ρ filled in
settings() { # FLAG PREFIX SETTINGS SCENE
    local flag=$1 prefix=$2 scene=$4 word
    for word in $3; do
        case $word in
        rho:*)
            local file=$RUNS/rho-$scene-${word#rho:}.txt
            printf '%s\0%schebyshev_rho=%s\0' "$flag" "$prefix" "$(sed -n 's/^chebyshev_rho = //p' "$file")"
            printf '%s\0%schebyshev_rho_source=%s\0' "$flag" "$prefix" \
                "$(sed -n 's/^chebyshev_rho_source = //p' "$file")"
            ;;
        *) printf '%s\0%s%s\0' "$flag" "$prefix" "$word" ;;
        esac
    done
}

# --set form for opsim run (solver.KEY=VALUE)
run_settings() { settings --set solver. "$1" "$2"; }

reason() { head -n 1 "$1" | sed 's/^opsim: //' | tr '\t' ' ' | cut -c1-160; }
# how a run that stopped is named from opsim's message (FILE of its standard error): "refused"
# when the config or an option was refused before anything ran (the message names the config's
# line or the --set), "failed" when the run itself stopped (a non-finite state, a solver error)
verdict() { case $(reason "$1") in experiments/*.ini:* | --set* | --solver*) echo refused ;; *) echo failed ;; esac; }

# ---- prerequisites: E* and ρ per scene ------------------------------------------------------
prerequisite() { # KIND SCENE [ORDER]
    local kind=$1 scene=$2
    if [ "$kind" = reference ]; then
        local out=$RUNS/reference-$scene.tsv
        [ -s "$out" ] || $OPSIM converge "${CONFIG[$scene]}" --frame "${FRAME[$scene]}" --iterations $REFERENCE \
            --solver rotations=gs --out "$out" 2> "$out.err" || { cat "$out.err" >&2; return 1; }
    else
        local out=$RUNS/rho-$scene-$3.txt setting=solver.rotations=$3
        [ "$3" != vbd ] || setting=solver.name=vbd
        [ -s "$out" ] || { $OPSIM estimate-rho "${CONFIG[$scene]}" --frame "${FRAME[$scene]}" \
            --set $setting > "$out.tmp" 2> "$out.err" && mv "$out.tmp" "$out"; } ||
            { cat "$out.err" >&2; return 1; }
    fi
    rm -f "$out.err"
}

# ---- one cell ---------------------------------------------------------------------------------

# A run that stops keeps opsim's message beside it (RUN.failed), as a run that ends keeps its
# file: a later pass over the cell (--phase gather) takes both as they are, running nothing again.

# a bar run for the stiffness and robustness columns: prints "ok DEFLECTION LARGEST" (the steady
# mean over the last 2 s, the largest |deflection|) or "refused REASON" or "failed REASON"
bar_run() { # LABEL SETTINGS TAG FRAME_TIME FRAMES ITERATIONS STIFFNESS
    local out=$RUNS/bar-$1-$3.h5
    local -a args
    mapfile -d '' args < <(run_settings "$2" bar)
    if [ ! -s "$out" ]; then
        [ -e "$out.failed" ] || $OPSIM run "${CONFIG[bar]}" "${args[@]}" --set world.frame_time=$4 \
            --set run.frames=$5 --set run.output_every=$5 --set world.iterations=$6 \
            --set "body bar.stiffness=$7" --no-surface --out "$out" > /dev/null 2> "$out.err" ||
            mv "$out.err" "$out.failed"
        rm -f "$out.err"
        if [ -e "$out.failed" ]; then
            echo "$(verdict "$out.failed") $(reason "$out.failed")"
            return
        fi
    fi
    local tip fps
    tip=$($OPSIM export "$out" /observables/tip/value)
    fps=$($REPORT calc --format %.0f "1 / $4")
    echo "ok $(echo "$tip" | $REPORT series --rows -$((2 * fps)): --of mean) $(echo "$tip" | $REPORT series --of absmax)"
}

cell() { # LABEL SETTINGS SCENE
    local label=$1 spec=$2 scene=$3 out=$RUNS/$1-$3
    local -a run
    mapfile -d '' run < <(run_settings "$spec" "$scene")
    local convergence own own_interval own_step=– timed=ok recovery=– spread=– max_h=– max_k=– note=""
    # convergence of one sub-step: the converge run (converge_all) made LABEL.tsv, or
    # the variant's message is in OUT.converge.err
    local table=$RUNS/converge-$scene/$label.tsv
    if [ "$PHASE" = runs ]; then
        : # the untimed runs alone: --phase gather reads the convergence and writes the row
    elif [ -s "$table" ]; then
        local cells
        cells=$($REPORT convergence-cells --reference "$RUNS/reference-$scene.tsv" \
            --run "$table" --at "${NI[$scene]}")
        convergence=$(echo "$cells" | cut -f1-17)
        own_interval=$(echo "$cells" | cut -f18-26)
        own=$(sed -n 's/^own_fields = //p' "$table.meta")
        own_step=$(sed -n 's/^fixed point last step = \([^ ]*\).*/\1/p' "$table.meta")
        # a single update reaches no tolerance of E* either: said so, not "–"
        case $own in "single update"*)
            local -a field
            IFS=$'\t' read -r -a field <<< "$convergence"
            for i in 0 1 2 3 4 5; do [ "${field[$i]}" != – ] || field[$i]="single update"; done
            convergence=$(IFS=$'\t'; echo "${field[*]}") ;;
        esac
    else
        local why
        why=$(reason "$out.converge.err")
        convergence=$(printf '%s\t–\t–\t–\t–\t–\t–\t–\t–\t–\t–\t–\t–\t–\t–\t–\t–' "$(verdict "$out.converge.err")")
        own=$(printf '%s\t–\t–\t–\t–\t–' "$(verdict "$out.converge.err")")
        own_interval=$(printf '–\t–\t–\t–\t–\t–\t–\t–\t–')
        note="$(verdict "$out.converge.err"): $why"
    fi
    # a run of the scene, untimed: whether the variant runs it (timed afterwards if so, the
    # file comment; OUT.timed says "ok" or why not) and the collapse's recovery
    if [ "$scene" = bar ]; then
        local result
        result=$(bar_run "$label" "$spec" i10-f30 0.033333333333333333 300 10 1e9)
        if [ "${result%% *}" != ok ]; then
            timed=${result%% *}
            [ -n "$note" ] || note="${result%% *}: ${result#* }"
        fi
    elif [ -s "$out.h5" ] || { [ ! -e "$out.failed" ] && { $OPSIM run "${CONFIG[$scene]}" "${run[@]}" \
        --set world.log_energy=false --set run.frames=${FRAMES[$scene]} --set run.output_every=${FRAMES[$scene]} \
        --no-surface --out "$out.h5" > /dev/null 2> "$out.err" || { mv "$out.err" "$out.failed"; false; }; }; }; then
        if [ "$scene" = collapse ]; then
            # the first frame from which the shape error stays below 2 %, in seconds (30 frames a s)
            recovery=$($OPSIM export "$out.h5" /observables/shape_error/value |
                $REPORT series --of settles-below:0.02)
            case $recovery in
                0) recovery="never in 5 s" ;;
                *) recovery=$($REPORT calc --format %.3f "($recovery - 1) / 30") ;;
            esac
        fi
    else
        timed=$(verdict "$out.failed")
        local why
        why=$(reason "$out.failed")
        case $note in *"$why"*) ;; *) note="${note:+$note; }run $timed: $why" ;; esac
        [ "$scene" != collapse ] || recovery=$timed
    fi
    if [ "$scene" = bar ]; then
        # stiffness: Fig. 3's five settings
        local values="" setting result
        for setting in "i10-f30 0.033333333333333333 300 10" "i100-f30 0.033333333333333333 300 100" \
            "i1000-f30 0.033333333333333333 300 1000" "i10-f60 0.016666666666666666 600 10" \
            "i10-f120 0.0083333333333333332 1200 10"; do
            set -- $setting
            result=$(bar_run "$label" "$spec" "$1" "$2" "$3" "$4" 1e9)
            if [ "${result%% *}" != ok ]; then
                values=failed
                spread="${result%% *}"
                [ "$1" = i10-f30 ] || spread="$spread at $1"
                case $note in *"${result#* }"*) ;; *) note="${note:+$note; }$spread: ${result#* }" ;; esac
                break
            fi
            values="$values $(echo "$result" | cut -d' ' -f2)"
        done
        if [ "$values" != failed ]; then # the largest |deflection| over the smallest
            set -- $(echo $values | tr ' ' '\n' | $REPORT series --of absmax --of absmin)
            spread=$($REPORT calc --format %.3f "$1 / $2" 2> /dev/null) || spread=-1.000 # $2 = 0
        fi
        # robustness: the largest stable h, the largest stable k (every value of the range is run)
        local fps frames best=none refused=0
        for fps in 240 120 60 30 15 10; do
            frames=$((5 * fps))
            result=$(bar_run "$label" "$spec" h$fps "$($REPORT calc "1 / $fps")" $frames 10 1e9)
            set -- $result
            [ "$1" != refused ] || refused=1
            if [ "$1" = ok ] && [ "$($REPORT calc "le($3, 10)")" = 1 ]; then best=1/$fps; fi
        done
        [ $refused = 0 ] || best=refused
        max_h=$([ "$best" = 1/10 ] && echo "≥1/10" || echo "$best")
        best=none
        for k in 1e6 1e7 1e8 1e9 1e10 1e11; do
            result=$(bar_run "$label" "$spec" k$k 0.033333333333333333 150 10 $k)
            set -- $result
            [ "$1" != refused ] || refused=1
            if [ "$1" = ok ] && [ "$($REPORT calc "le($3, 10)")" = 1 ]; then best=$k; fi
        done
        [ $refused = 0 ] || best=refused
        max_k=$([ "$best" = 1e11 ] && echo "≥1e11" || echo "$best")
    fi
    rm -f "$out.err"
    echo "$timed" > "$out.timed"
    [ "$PHASE" = runs ] || printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$convergence" "$own" "$own_step" \
        "$recovery" "$spread" "$max_h" "$max_k" "$note" "$own_interval" > "$out.line"
}

# ---- convergence: every scene's variants in one converge run, interleaved ---------------------

# every variant's convergence on every scene: one `opsim converge --batch` run, a line a scene
# (its `--study LABEL:… …`), timed alone, into RUNS/converge-SCENE/LABEL.tsv, its rounds going
# round every scene's variants (round r of every scene before round r + 1 of any) and the
# machine probe at each round's start (RUNS/probe-converge.tsv). A run that fails names the line
# and the study at fault ("--batch FILE:N: --study LABEL: …"): its message goes to
# RUNS/LABEL-SCENE.converge.err (its verdict: refused or failed, as a converge of that variant
# alone would say) and the batch runs again without it; a failure naming a line but no study
# (the frames before the sub-step) is every variant's of that scene, and one naming no line
# every variant's of every scene left.
converge_all() {
    local scene entry label why failed line number
    local -A spec=() labels=()
    for scene in $SCENES; do
        for entry in "${VARIANTS[@]}"; do
            label=${entry%%	*}
            labels[$scene]="${labels[$scene]:-} $label"
            spec[$scene:$label]=$(bench_variant "$label" "${entry#*	}" "$scene" source)
        done
        # a scene whose converge run finished before (an interrupted matrix finished by hand) keeps it
        local done=1
        for label in ${labels[$scene]}; do [ -s "$RUNS/converge-$scene/$label.tsv" ] || done=0; done
        [ $done = 0 ] || labels[$scene]=""
    done
    local batch=$RUNS/converge-batch.txt err=$RUNS/converge-batch.err
    while :; do
        local -a order=()
        : > "$batch"
        for scene in $SCENES; do
            [ -n "${labels[$scene]// /}" ] || continue
            order+=("$scene")
            printf '%s\t--frame\t%s\t--iterations\t%s\t--repeats\t%s\t--fixed-point\t%s' "${CONFIG[$scene]}" \
                "${FRAME[$scene]}" $ITERATIONS $REPEATS $REFERENCE >> "$batch"
            for label in ${labels[$scene]}; do printf '\t--study\t%s' "${spec[$scene:$label]}" >> "$batch"; done
            printf '\t--out\t%s\n' "$RUNS/converge-$scene" >> "$batch"
        done
        [ ${#order[@]} -gt 0 ] || break
        $OPSIM_ALONE converge --batch "$batch" --probe "$RUNS/probe-converge.tsv" 2> "$err" && break
        why=$(reason "$err")
        number="" failed=""
        case $why in "--batch $batch:"*) line=${why#"--batch $batch:"} && number=${line%%:*} && why=${line#*: } ;; esac
        case $why in "--study "*:*) failed=${why#--study } && failed=${failed%%:*} && why=${why#"--study $failed: "} ;; esac
        # the message as a converge of the scene's variant alone would give it: no line, no study
        sed -e "1s|^opsim: --batch [^:]*:[0-9]*: |opsim: |" -e "1s|^opsim: --study [^:]*: |opsim: |" "$err" > "$err.own"
        if [ -z "$number" ]; then # every variant of every scene left
            for scene in "${order[@]}"; do
                for label in ${labels[$scene]}; do cp "$err.own" "$RUNS/$label-$scene.converge.err"; done
            done
            break
        fi
        scene=${order[$((number - 1))]}
        if [ -z "$failed" ] || [ -z "${spec[$scene:$failed]:-}" ]; then # the scene's every variant
            for label in ${labels[$scene]}; do cp "$err.own" "$RUNS/$label-$scene.converge.err"; done
            labels[$scene]=""
            continue
        fi
        cp "$err.own" "$RUNS/$failed-$scene.converge.err"
        labels[$scene]=$(for label in ${labels[$scene]}; do [ "$label" = "$failed" ] || printf ' %s' "$label"; done)
    done
    rm -f "$err" "$err.own"
}

# ---- ms per frame: each scene's variants timed together, interleaved ---------------------------

# the bench_scenes -V argument of a variant on a scene: LABEL:solver.KEY=VALUE;… (ρ filled in;
# its source, free text recorded beside it, left out: it changes nothing timed; kept with a
# fourth argument, for converge --study, whose tables' provenance names it)
bench_variant() { # LABEL SETTINGS SCENE [source]
    local -a words
    mapfile -d '' words < <(settings "" solver. "$2" "$3")
    local text=$1: word
    for word in "${words[@]}"; do
        case $word in
        "") ;;
        solver.chebyshev_rho_source=*) [ -z "${4:-}" ] || text="$text$word;" ;;
        *) text="$text$word;" ;;
        esac
    done
    printf '%s' "${text%;}"
}

# the plan of the timing (bench_scenes -P): a line per scene and variant whose run of the scene
# worked (SCENE:LABEL … as arguments), the scene's config, warm-up and timed frames
timing_plan() { # SCENE:LABEL...
    local item scene label entry
    for item in "$@"; do
        scene=${item%%:*} label=${item#*:}
        for entry in "${VARIANTS[@]}"; do
            # (--list: no ρ estimated yet, an empty value; nothing is run)
            [ "${entry%%	*}" != "$label" ] || printf '%s\t%s\t%s\t%s\n' "${CONFIG[$scene]}" "${WARMUP[$scene]}" \
                "${TIMED[$scene]}" "$(bench_variant "$label" "${entry#*	}" "$scene" 2> /dev/null)"
        done
    done
}

# the ms per frame of every scene's variants, one bench_scenes call whose rounds go round them all
# (round r: every scene, every variant of it), the machine probe at each round's start:
# RUNS/timing.csv, RUNS/probe-frames.tsv
time_all() { # SCENE:LABEL...
    local plan=$RUNS/timing-plan.tsv
    [ $LIST = 0 ] || plan=$(mktemp)
    timing_plan "$@" > "$plan"
    if [ $LIST = 1 ]; then # the order as "scene round variant", the scene named from its config
        [ ! -s "$plan" ] || ${BENCH:-bin/bench/bench_scenes} -n -r "$TIMING_REPEATS" -P "$plan" | while IFS='	' read -r round config label; do
            for scene in $SCENES; do [ "${CONFIG[$scene]}" != "$config" ] || printf '%s\t%s\t%s\n' "$scene" "$round" "$label"; done
        done
        rm -f "$plan"
        return
    fi
    [ -s "$plan" ] || return 0
    $BENCH_ALONE -r "$TIMING_REPEATS" -P "$plan" -p "$RUNS/probe-frames.tsv" -o "$RUNS/timing.csv" > "$RUNS/timing.txt" ||
        { echo "variants.sh: timing failed" >&2; return 1; }
}

# the ms-per-frame cells of a variant on a scene: median, lo, hi, noisy, or its verdict and "–"
timing_fields() { # LABEL SCENE
    local timed
    timed=$(cat "$RUNS/$1-$2.timed")
    if [ "$timed" != ok ]; then
        printf '%s\t–\t–\t–' "$timed"
        return
    fi
    local column value fields=""
    for column in total_ms total_lo_ms total_hi_ms total_noisy; do
        value=$($REPORT lookup --in "$RUNS/timing.csv" --separator , --where "setting=$1" \
            --where "config=${CONFIG[$2]}" --column $column) || return 1
        fields="$fields${fields:+	}$value"
    done
    printf '%s' "$fields"
}

# ---- the jobs, JOBS at a time ---------------------------------------------------------------
throttle() { while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done; }

if [ $LIST = 1 ]; then # the timing order, every variant taken as running every scene
    mapfile -t VARIANTS < <(variants)
    timed=()
    for scene in $SCENES; do
        for entry in "${VARIANTS[@]}"; do timed+=("$scene:${entry%%	*}"); done
    done
    time_all "${timed[@]}"
    exit 0
fi
if [ $LIST = 2 ]; then # the cells, "SCENE<tab>LABEL" a line: the Slurm route's untimed tasks
    mapfile -t VARIANTS < <(variants)
    for scene in $SCENES; do
        for entry in "${VARIANTS[@]}"; do printf '%s\t%s\n' $scene "${entry%%	*}"; done
    done
    exit 0
fi

# the phases (the file comment, *Phases*); each but prepare needs what the ones before it left
stop() { echo "variants.sh: $*" >&2; exit 1; }
prepare() { # E* and ρ of each scene
    local failed=0 scene job
    for scene in $SCENES; do
        for job in "reference $scene" "rho $scene gs" "rho $scene jacobi" "rho $scene vbd"; do
            throttle
            prerequisite $job &
        done
    done
    while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n || failed=1; done
    [ $failed = 0 ] || stop "a reference or rho estimate failed"
}
prepared() {
    local scene file
    for scene in $SCENES; do
        for file in reference-$scene.tsv rho-$scene-gs.txt rho-$scene-jacobi.txt rho-$scene-vbd.txt; do
            [ -s "$RUNS/$file" ] || stop "$RUNS/$file: missing (variants.sh --phase prepare makes it)"
        done
    done
}
cells() { # every cell's runs (--phase runs), or its runs reused and its row written
    local scene entry
    for scene in $SCENES; do
        for entry in "${VARIANTS[@]}"; do
            throttle
            cell "${entry%%	*}" "${entry#*	}" "$scene" &
        done
    done
    wait
}
time_scenes() { # every scene's variants that ran it, timed together in one spread run
    local scene entry
    local -a timed=()
    for scene in $SCENES; do
        for entry in "${VARIANTS[@]}"; do
            [ -s "$RUNS/${entry%%	*}-$scene.timed" ] ||
                stop "$RUNS/${entry%%	*}-$scene.timed: missing (variants.sh --phase runs makes it)"
            [ "$(cat "$RUNS/${entry%%	*}-$scene.timed")" != ok ] || timed+=("$scene:${entry%%	*}")
        done
    done
    time_all "${timed[@]}" || exit 1
}
measured() { # every scene's convergence run and timing made (--phase timed)
    local scene entry label
    for scene in $SCENES; do
        for entry in "${VARIANTS[@]}"; do
            label=${entry%%	*}
            [ -s "$RUNS/converge-$scene/$label.tsv" ] || [ -e "$RUNS/$label-$scene.converge.err" ] ||
                stop "no convergence of $label on $scene in $RUNS (variants.sh --phase timed makes it)"
            [ "$(cat "$RUNS/$label-$scene.timed" 2> /dev/null)" != ok ] || [ -s "$RUNS/timing.csv" ] ||
                stop "$RUNS/timing.csv: missing (variants.sh --phase timed makes it)"
        done
    done
}

mkdir -p "$RUNS"
case $PHASE in
all | prepare) prepare ;;
*) prepared ;;
esac
[ $PHASE != prepare ] || exit 0
mapfile -t VARIANTS < <(variants)
case $PHASE in
all) # timed, alone: every scene's convergence in one batch, before the untimed cells
    converge_all
    cells
    time_scenes
    ;;
runs) cells && exit 0 ;;
timed)
    converge_all
    time_scenes
    exit 0
    ;;
gather) measured && cells ;;
esac

tmp=$OUT/matrix.tsv.$$.tmp
printf 'variant\tscene\tms_per_frame\tms_per_frame_lo\tms_per_frame_hi\tms_per_frame_noisy\titerations_1e-2\tms_1e-2\titerations_1e-4\tms_1e-4\titerations_1e-6\tms_1e-6\tr_final\tr_at_ni\tms_1e-2_lo\tms_1e-2_hi\tms_1e-2_noisy\tms_1e-4_lo\tms_1e-4_hi\tms_1e-4_noisy\tms_1e-6_lo\tms_1e-6_hi\tms_1e-6_noisy\town_iterations_1e-2\town_ms_1e-2\town_iterations_1e-4\town_ms_1e-4\town_iterations_1e-6\town_ms_1e-6\town_last_step\trecovery_s\tstiffness_spread\tmax_h_s\tmax_k\tnote\town_ms_1e-2_lo\town_ms_1e-2_hi\town_ms_1e-2_noisy\town_ms_1e-4_lo\town_ms_1e-4_hi\town_ms_1e-4_noisy\town_ms_1e-6_lo\town_ms_1e-6_hi\town_ms_1e-6_noisy\n' > "$tmp"
for entry in "${VARIANTS[@]}"; do
    for scene in $SCENES; do
        line=$RUNS/${entry%%	*}-$scene.line
        [ -s "$line" ] || { echo "variants.sh: no result for ${entry%%	*} on $scene" >&2; rm -f "$tmp"; exit 1; }
        fields=$(timing_fields "${entry%%	*}" $scene) || { rm -f "$tmp"; exit 1; }
        printf '%s\t%s\t%s\t%s\n' "${entry%%	*}" $scene "$fields" "$(cat "$line")" >> "$tmp"
    done
done
mv "$tmp" "$RUNS/matrix-cells.txt"
# the machine probe of every timed round, converge's and bench_scenes', in one table (its header once)
{ cat "$RUNS/probe-converge.tsv" && tail -n +2 "$RUNS/probe-frames.tsv"; } > "$RUNS/probe.tsv" 2> /dev/null ||
    { echo "variants.sh: no machine probe" >&2; exit 1; }
# the cells as gathered (words where a cell could not be measured) made a table of numbers with
# status and bound columns before note (opsim-report matrix, docs/results.md)
$REPORT matrix --in "$RUNS/matrix-cells.txt" --out "$OUT/matrix.tsv"
