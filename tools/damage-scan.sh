#!/usr/bin/env bash
# The damaged-run-file scan: N copies of one run file, each damaged at a
# pseudo-random place (seeded, so a scan is repeatable), each read by `opsim verify`, `opsim
# info` and `opsim export F /particles/position/value`. Prints one line per copy that is not a
# clean refusal or an unaltered acceptance, then the counts:
#   refused            every command that failed exited 65 or 74 (no signal, no 70, no hang)
#   accepted-same      every command exited 0 and h5diff finds the copy equal to the original
#   accepted-altered   every command exited 0 but h5diff finds a difference (silent damage)
#   mixed              some commands accepted, some refused (a damage only some commands read)
#   bad                a signal, exit 70, or a hang past 60 s
# Exit status 1 when any copy is accepted-altered or bad.
#   tools/damage-scan.sh RUN.h5 N [SEED]          (run from the project root; needs h5diff)
# OPSIM=PATH runs another binary than bin/opsim (a copy, so that a rebuild meanwhile cannot
# turn into exit 126).
# Damage kinds, in turn: one byte XOR 0xff; 512 bytes of 0xff; 4 KiB of zeros; a cut.
set -uo pipefail
run=$1 count=$2 seed=${3:-42} opsim=${OPSIM:-bin/opsim}
size=$(stat -c %s "$run")
work=$(mktemp -d "${TMPDIR:-/tmp}/opsim-damage-XXXXXX")
trap 'rm -rf "$work"' EXIT
declare -A tally=([refused]=0 [accepted-same]=0 [accepted-altered]=0 [mixed]=0 [bad]=0)
state=$seed
# A 63-bit LCG in the shell's arithmetic; sets $pick to a value in [0, $1).
next() { state=$(( (state * 6364136223846793005 + 1442695040888963407) & 0x7fffffffffffffff )); pick=$(( (state >> 16) % $1 )); }
for ((i = 0; i < count; ++i)); do
    f=$work/d.h5
    cp "$run" "$f"
    next "$size"
    at=$pick
    case $((i % 4)) in
        0) kind="xor-byte@$at"
           byte=$(od -An -tu1 -j "$at" -N1 "$run" | tr -d ' ')
           printf "\\$(printf %03o $(( byte ^ 255 )))" | dd of="$f" bs=1 seek="$at" conv=notrunc status=none ;;
        1) kind="ff-512@$at"
           head -c 512 /dev/zero | tr '\000' '\377' | dd of="$f" bs=1 seek="$at" conv=notrunc status=none ;;
        2) kind="zero-4k@$at"
           dd if=/dev/zero of="$f" bs=1 seek="$at" count=4096 conv=notrunc status=none ;;
        3) kind="cut@$at"
           truncate -s "$at" "$f" ;;
    esac
    truncate -s "$(( $(stat -c %s "$f") > size ? size : $(stat -c %s "$f") ))" "$f"
    statuses=()
    for command in "verify $f" "info $f" "export $f /particles/position/value"; do
        timeout 60 "$opsim" $command > /dev/null 2>&1
        statuses+=($?)
    done
    accepted=0 refused=0 bad=0
    for s in "${statuses[@]}"; do
        case $s in 0) accepted=$((accepted + 1)) ;; 65 | 74) refused=$((refused + 1)) ;; *) bad=$((bad + 1)) ;; esac
    done
    if ((bad)); then verdict=bad
    elif ((refused == 0)); then
        if h5diff -q "$run" "$f" > /dev/null 2>&1; then verdict=accepted-same; else verdict=accepted-altered; fi
    elif ((accepted)); then verdict=mixed
    else verdict=refused; fi
    tally[$verdict]=$(( ${tally[$verdict]} + 1 ))
    case $verdict in refused | accepted-same) ;; *) echo "$kind: $verdict (exit ${statuses[*]})" ;; esac
done
echo "# $count damaged copies of $run (seed $seed): refused ${tally[refused]}, accepted-same ${tally[accepted-same]}," \
     "accepted-altered ${tally[accepted-altered]}, mixed ${tally[mixed]}, bad ${tally[bad]}"
(( tally[accepted-altered] == 0 && tally[bad] == 0 ))
