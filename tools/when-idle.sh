#!/usr/bin/env bash
# Runs a command once the machine has been idle (at least IDLE_PERCENT, 90 by default, of every
# core's time idle over one second, from /proc/stat), waiting up to IDLE_WAIT seconds (60) for
# that; after the wait it runs the command anyway. For timing builds against each other on a
# shared machine: a run that starts while another job holds a core times that job's slices too
# (docs/performance.md, "The contact call in the frame"). It cannot tell when the machine will
# stay idle, so compare builds in alternated rounds all the same.
#   tools/when-idle.sh env OMP_NUM_THREADS=2 bin/bench/bench_scenes -r 3 -f 60 -s fig7
set -u
if [[ $# -eq 0 ]]; then
    echo "usage: tools/when-idle.sh COMMAND [ARGUMENT]..." >&2
    exit 64
fi
want=${IDLE_PERCENT:-90} wait=${IDLE_WAIT:-60}
cpu_times() { awk '/^cpu /{ total = 0; for (f = 2; f <= NF; ++f) total += $f; print total, $5 }' /proc/stat; }
for ((second = 0; second < wait; ++second)); do
    read -r total0 idle0 < <(cpu_times)
    sleep 1
    read -r total1 idle1 < <(cpu_times)
    (( total1 > total0 && 100 * (idle1 - idle0) >= want * (total1 - total0) )) && break
done
exec "$@"
