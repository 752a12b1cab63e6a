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
#   timed    each scene's convergence run and its ms-per-frame timing (timed: alone on the node)
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
# - convergence: one `opsim converge CONFIG --frame F --study LABEL:solver.KEY=VALUE;… …` a
#   scene, every variant a study (the configured arap to frame F, then each variant solves the
#   next sub-step from that one state, 300 iterations, seven times after an untimed one, the
#   repetitions interleaved across the variants: round 1 each once in the matrix's order,
#   round 2 from the second on, …; the median time to each iteration, --repeats 7); iterations
#   and ms to a relative energy error r = |E_k − E*| / (E_0 − E*) of 1e-2, 1e-4, 1e-6 (the first
#   k after which r stays below), E* from 5,000 plain Gauss–Seidel iterations; r after 300 and
#   r after the scene's own iteration count (r_at_ni: bar and collapse 10, fall 3, bunny 2);
#   each ms's 95 % interval over the seven and its noisy flag (ms_1e-4_lo, ms_1e-4_hi,
#   ms_1e-4_noisy, …). opsim-report convergence-cells computes them
#   (reports/report_convergence.h) from runs/converge-SCENE/LABEL.tsv. A variant the scene's
#   run refuses or fails on (converge names its study) gets its verdict from that message and
#   the others run again without it (converge_scene).
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
#   bin/bench/bench_scenes call a scene times every variant that ran on it, interleaved (round 1:
#   each variant once, round 2: …), VARIANTS_TIMING_REPEATS repetitions (7: the least count
#   whose median interval reaches 95 %, plus one, as converge's), each loaded afresh with energy
#   logging off, WARMUP untimed frames then TIMED frames from the scene's start (bar 10 + 30 at
#   10 iterations, 1/30 s; collapse and fall 5 + 15; bunny 2 + 6: seven repetitions time about
#   as many frames as the one timed run they replace, which is still made, untimed and beside
#   the others, for the verdict and the collapse's recovery; so the matrix's serial, timed part
#   does not grow); a repetition's value its median frame. The matrix gives the median of the repetitions
#   (ms_per_frame), its order-statistic 95 % interval (ms_per_frame_lo, ms_per_frame_hi) and
#   ms_per_frame_noisy (1 when the half-width exceeds 5 % of the median). `variants.sh --list
#   OUT_DIR` prints the timing runs' order (scene, round, variant) and runs nothing.
# Timed work runs alone (the timing protocol): every command holds a lock on
# OUT_DIR/runs/.timing.lock, the untimed ones shared (JOBS of them side by side), the timed ones
# (each scene's converge and each scene's bench_scenes) exclusive, so that a timed command waits
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
    $OPSIM export "$out" /observables/tip/value |
        awk -v fps="$(awk -v h=$4 'BEGIN { printf "%.0f", 1 / h }')" '{ v[NR] = $1; a = $1 < 0 ? -$1 : $1; if (a > big) big = a }
            END { n = 2 * fps; if (n > NR) n = NR; s = 0; for (k = NR - n + 1; k <= NR; ++k) s += v[k];
                  printf "ok %.17g %.17g\n", s / n, big }'
}

cell() { # LABEL SETTINGS SCENE
    local label=$1 spec=$2 scene=$3 out=$RUNS/$1-$3
    local -a run
    mapfile -d '' run < <(run_settings "$spec" "$scene")
    local convergence own own_interval own_step=– timed=ok recovery=– spread=– max_h=– max_k=– note=""
    # convergence of one sub-step: the scene's converge run (converge_scene) made LABEL.tsv, or
    # the variant's message is in OUT.converge.err
    local table=$RUNS/converge-$scene/$label.tsv
    if [ "$PHASE" = runs ]; then
        : # the untimed runs alone: --phase gather reads the convergence and writes the row
    elif [ -s "$table" ]; then
        local cells
        cells=$(${REPORT:-bin/opsim-report} convergence-cells --reference "$RUNS/reference-$scene.tsv" \
            --run "$table" --at "${NI[$scene]}")
        convergence=$(echo "$cells" | cut -f1-17)
        own_interval=$(echo "$cells" | cut -f18-26)
        own=$(sed -n 's/^own_fields = //p' "$table.meta")
        own_step=$(sed -n 's/^fixed point last step = \([^ ]*\).*/\1/p' "$table.meta")
        # a single update reaches no tolerance of E* either: said so, not "–"
        case $own in "single update"*) convergence=$(echo "$convergence" |
            awk -F'\t' -v OFS='\t' '{ for (i = 1; i <= 6; ++i) if ($i == "–") $i = "single update"; print }') ;; esac
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
            recovery=$($OPSIM export "$out.h5" /observables/shape_error/value |
                awk '{ v[NR] = $1 } END { r = -1; for (i = NR; i >= 1; --i) { if (!(v[i] < 0.02)) break; r = i }
                      if (r < 0) print "never in 5 s"; else printf "%.3f\n", (r - 1) / 30 }')
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
        [ "$values" = failed ] || spread=$(echo "$values" | awk '{ lo = 1e300; hi = -1e300;
            for (i = 1; i <= NF; ++i) { a = $i < 0 ? -$i : $i; if (a < lo) lo = a; if (a > hi) hi = a }
            printf "%.3f", (lo > 0 ? hi / lo : -1) }')
        # robustness: the largest stable h, the largest stable k (every value of the range is run)
        local fps frames best=none refused=0
        for fps in 240 120 60 30 15 10; do
            frames=$((5 * fps))
            result=$(bar_run "$label" "$spec" h$fps "$(awk -v f=$fps 'BEGIN { printf "%.17g", 1 / f }')" $frames 10 1e9)
            set -- $result
            [ "$1" != refused ] || refused=1
            if [ "$1" = ok ] && awk -v d="$3" 'BEGIN { exit !(d <= 10) }'; then best=1/$fps; fi
        done
        [ $refused = 0 ] || best=refused
        max_h=$([ "$best" = 1/10 ] && echo "≥1/10" || echo "$best")
        best=none
        for k in 1e6 1e7 1e8 1e9 1e10 1e11; do
            result=$(bar_run "$label" "$spec" k$k 0.033333333333333333 150 10 $k)
            set -- $result
            [ "$1" != refused ] || refused=1
            if [ "$1" = ok ] && awk -v d="$3" 'BEGIN { exit !(d <= 10) }'; then best=$k; fi
        done
        [ $refused = 0 ] || best=refused
        max_k=$([ "$best" = 1e11 ] && echo "≥1e11" || echo "$best")
    fi
    rm -f "$out.err"
    echo "$timed" > "$out.timed"
    [ "$PHASE" = runs ] || printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$convergence" "$own" "$own_step" \
        "$recovery" "$spread" "$max_h" "$max_k" "$note" "$own_interval" > "$out.line"
}

# ---- convergence: each scene's variants in one converge run, interleaved --------------------

# every variant's convergence on SCENE: one `opsim converge --study LABEL:… …` run, timed alone,
# into RUNS/converge-SCENE/LABEL.tsv. A run that fails names the study at fault ("--study LABEL:
# …"): its message goes to RUNS/LABEL-SCENE.converge.err (its verdict: refused or failed, as a
# converge of that variant alone would say) and the others run again without it; a failure
# naming no study (the frames before the sub-step) is every variant's.
converge_scene() { # SCENE
    local scene=$1 dir=$RUNS/converge-$scene entry label why failed
    local -A spec=()
    local -a labels=() studies rest
    for entry in "${VARIANTS[@]}"; do
        label=${entry%%	*}
        labels+=("$label")
        spec[$label]=$(bench_variant "$label" "${entry#*	}" "$scene" source)
    done
    # a scene whose converge run finished before (an interrupted matrix finished by hand) keeps it
    rest=()
    for label in "${labels[@]}"; do [ -s "$dir/$label.tsv" ] || rest+=("$label"); done
    [ ${#rest[@]} -gt 0 ] || return 0
    while [ ${#labels[@]} -gt 0 ]; do
        studies=()
        for label in "${labels[@]}"; do studies+=(--study "${spec[$label]}"); done
        $OPSIM_ALONE converge "${CONFIG[$scene]}" --frame "${FRAME[$scene]}" --iterations $ITERATIONS \
            --repeats $REPEATS --fixed-point $REFERENCE "${studies[@]}" --out "$dir" 2> "$dir.err" && break
        why=$(reason "$dir.err")
        failed=""
        case $why in "--study "*:*) failed=${why#--study } && failed=${failed%%:*} ;; esac
        if [ -z "$failed" ] || [ -z "${spec[$failed]:-}" ]; then
            for label in "${labels[@]}"; do cp "$dir.err" "$RUNS/$label-$scene.converge.err"; done
            break
        fi
        sed "1s/^opsim: --study $failed: /opsim: /" "$dir.err" > "$RUNS/$failed-$scene.converge.err"
        rest=()
        for label in "${labels[@]}"; do [ "$label" = "$failed" ] || rest+=("$label"); done
        labels=("${rest[@]}")
    done
    rm -f "$dir.err"
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

# the timing of one scene's variants (those whose run of the scene worked): bench_scenes' CSV
time_scene() { # SCENE LABEL...
    local scene=$1
    shift
    local -a args=()
    local label entry
    for label in "$@"; do
        for entry in "${VARIANTS[@]}"; do
            # (--list: no ρ estimated yet, an empty value; nothing is run)
            [ "${entry%%	*}" != "$label" ] ||
                args+=(-V "$(bench_variant "$label" "${entry#*	}" "$scene" 2> /dev/null)")
        done
    done
    local -a command=(-w "${WARMUP[$scene]}" -f "${TIMED[$scene]}" -r "$TIMING_REPEATS" -i "${CONFIG[$scene]}" "${args[@]}")
    if [ $LIST = 1 ]; then
        ${BENCH:-bin/bench/bench_scenes} -n "${command[@]}" | cut -f1,3 | sed "s/^/$scene\t/"
        return
    fi
    [ ${#args[@]} = 0 ] || $BENCH_ALONE "${command[@]}" -o "$RUNS/timing-$scene.csv" > "$RUNS/timing-$scene.txt" ||
        { echo "variants.sh: timing $scene failed" >&2; return 1; }
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
        value=$(${REPORT:-bin/opsim-report} lookup --in "$RUNS/timing-$2.csv" --separator , --where "setting=$1" \
            --column $column) || return 1
        fields="$fields${fields:+	}$value"
    done
    printf '%s' "$fields"
}

# ---- the jobs, JOBS at a time ---------------------------------------------------------------
throttle() { while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done; }

if [ $LIST = 1 ]; then # the timing order, every variant taken as running every scene
    mapfile -t VARIANTS < <(variants)
    for scene in $SCENES; do
        time_scene $scene "${VARIANTS[@]%%	*}"
    done
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
time_scenes() { # each scene's variants that ran it, timed together
    local scene entry
    local -a timed
    for scene in $SCENES; do
        timed=()
        for entry in "${VARIANTS[@]}"; do
            [ -s "$RUNS/${entry%%	*}-$scene.timed" ] ||
                stop "$RUNS/${entry%%	*}-$scene.timed: missing (variants.sh --phase runs makes it)"
            [ "$(cat "$RUNS/${entry%%	*}-$scene.timed")" != ok ] || timed+=("${entry%%	*}")
        done
        time_scene $scene "${timed[@]}" || exit 1
    done
}
measured() { # every scene's convergence run and timing made (--phase timed)
    local scene entry label
    for scene in $SCENES; do
        for entry in "${VARIANTS[@]}"; do
            label=${entry%%	*}
            [ -s "$RUNS/converge-$scene/$label.tsv" ] || [ -e "$RUNS/$label-$scene.converge.err" ] ||
                stop "no convergence of $label on $scene in $RUNS (variants.sh --phase timed makes it)"
            [ "$(cat "$RUNS/$label-$scene.timed" 2> /dev/null)" != ok ] || [ -s "$RUNS/timing-$scene.csv" ] ||
                stop "$RUNS/timing-$scene.csv: missing (variants.sh --phase timed makes it)"
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
all) # timed, alone: each scene's convergence, one after another, before the untimed cells
    for scene in $SCENES; do converge_scene $scene; done
    cells
    time_scenes
    ;;
runs) cells && exit 0 ;;
timed)
    for scene in $SCENES; do converge_scene $scene; done
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
# the cells as gathered (words where a cell could not be measured) made a table of numbers with
# status and bound columns before note (opsim-report matrix, docs/results.md)
${REPORT:-bin/opsim-report} matrix --in "$RUNS/matrix-cells.txt" --out "$OUT/matrix.tsv"
