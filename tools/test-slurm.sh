#!/usr/bin/env bash
# test-slurm.sh: `make test-slurm` (opt-in, not in CI). Starts a one-node Slurm on this machine
# (Debian's slurm-wlm and munge: munged, slurmctld and slurmd on localhost, every file in a new
# temporary directory, ports 16817/16818), submits the sweep of `make sweep-example` through
# tools/sweep-slurm.sh as one array job, waits for it, and checks each run file against the one
# `make -f sweep.mk` writes for the same line. Both write the same path with the same command
# line (the make reference is moved aside first), so everything but the clock must be equal:
# every dataset and attribute bit for bit (h5diff, no tolerance), except /timing (wall-clock
# milliseconds) and the root attribute `created`. Then a small variants matrix (2 scenes, 3
# variants) goes through tools/variants-slurm.sh and is compared with the one experiments/
# variants.sh makes in one go, every column but the timings (tools/compare-matrix.sh).
# Stops the daemons it started, on any exit.
# Needs root to install the packages (apt-get) and to run the daemons as root.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() { echo "test-slurm: $*" >&2; exit 1; }

missing=()
for p in slurm-wlm munge hdf5-tools; do
    [[ $(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true) == ii* ]] || missing+=("$p")
done
if ((${#missing[@]})); then
    [[ $(id -u) -eq 0 ]] || fail "install ${missing[*]} first (apt-get install ${missing[*]})"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi
[[ $(id -u) -eq 0 ]] || fail "the test daemons run as root: run it as root"

work=$(mktemp -d /tmp/opsim-slurm.XXXXXX)
chmod 755 "$work"
pids=() passed=0
stop() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    if ((passed)); then rm -rf "$work"; else echo "test-slurm: logs kept in $work" >&2; fi
}
trap stop EXIT

# munge: its own key, socket and logs
mkdir -p "$work/munge"
chmod 700 "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
munged --foreground --force --key-file="$work/munge/munge.key" --socket="$work/munge/socket" \
    --pid-file="$work/munge/pid" --log-file="$work/munge/log" --seed-file="$work/munge/seed" \
    >"$work/munged.console" 2>&1 &
pids+=($!)

host=$(hostname -s)
mkdir -p "$work/state" "$work/spool" "$work/out"
cat >"$work/slurm.conf" <<EOF
ClusterName=opsimtest
SlurmctldHost=$host
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=opsim Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$work/slurm.conf
for _ in $(seq 50); do [[ -S $work/munge/socket ]] && break; sleep 0.1; done
slurmctld -D -i -f "$SLURM_CONF" >"$work/slurmctld.console" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >"$work/slurmd.console" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
    [[ $(sinfo -h -o %T 2>/dev/null) == idle ]] && break
    sleep 0.3
done
[[ $(sinfo -h -o %T) == idle ]] || fail "the node did not come up (logs in $work)"
echo "test-slurm: $(sinfo -V), node $host idle; working in $work"

# the sweep of `make sweep-example` (experiments/sweep-example.mk)
sweep=$work/sweep
bin/opsim sweep experiments/fig2.ini --set run.frames=90 --grid world.iterations=10,100 \
    --grid 'body bar_k.stiffness=5e8,1e9' --out "$sweep"
runs=$(grep -vc '^#' "$sweep/sweep.tsv")
make -s -f "$sweep/sweep.mk" -j2 sweep
mkdir "$sweep/make"
mv "$sweep"/run-*.h5 "$sweep"/run-*.xmf "$sweep/make/"

sbatch --wait --array=0-$((runs - 1)) --output="$work/out/%x-%A_%a.out" tools/sweep-slurm.sh "$sweep"
echo "test-slurm: the array job's $runs tasks are done; their output files (empty when all went well):"
for out in "$work"/out/*.out; do echo "  ${out##*/}: $(wc -c <"$out") bytes"; cat "$out"; done

status=0
for made in "$sweep"/make/run-[0-9][0-9][0-9].h5; do # the run files; RUN.views.h5 below
    name=${made##*/}
    slurm=$sweep/$name
    [[ -f $slurm ]] || { echo "test-slurm: $name: the Slurm task wrote no run file" >&2; status=1; continue; }
    for object in $(h5ls "$made" | awk '{print $1}'); do
        [[ $object == timing ]] && continue
        h5diff "$made" "$slurm" "/$object" "/$object" >/dev/null ||
            { echo "test-slurm: $name: /$object differs" >&2; status=1; }
    done
    attributes=$(h5dump -H "$made" | awk '/^   ATTRIBUTE/ { gsub(/"/, "", $2); print $2 }') # the root's
    [[ -n $attributes ]] || { echo "test-slurm: $name: no root attributes found" >&2; status=1; }
    for attribute in $attributes; do
        [[ $attribute == created ]] && continue
        cmp -s <(h5dump -a "/$attribute" "$made" | tail -n +2) <(h5dump -a "/$attribute" "$slurm" | tail -n +2) ||
            { echo "test-slurm: $name: attribute $attribute differs" >&2; status=1; }
    done
    # the ParaView companion: virtual datasets onto the run file's series, no attributes of its own
    views=${made%.h5}.views.h5
    if [[ -f $views ]]; then
        h5diff "$views" "$sweep/${views##*/}" >/dev/null ||
            { echo "test-slurm: ${views##*/}: differs from make's" >&2; status=1; }
    fi
    ((status == 0)) && echo "test-slurm: $name: equal to make's, bit for bit (but /timing and created; and its views):" \
        "$(h5ls "$made" | awk '$1 != "timing" {print "/" $1}' | tr '\n' ' ')and" $attributes
done

# a small variants matrix through Slurm (tools/variants-slurm.sh: prepare, runs, timed, gather as
# four jobs) against the same matrix made in one go by experiments/variants.sh: every column but
# the timings equal (tools/compare-matrix.sh). rigid is refused on both scenes, so the rows of
# refused runs are gathered too. IDLE_WAIT=0: a shared machine is never idle; no time is compared.
export VARIANTS_SCENES='bar collapse' VARIANTS_ONLY='arap-gs arap-jacobi-chebyshev rigid' \
    VARIANTS_TIMING_REPEATS=3 IDLE_WAIT=0
cells=$(experiments/variants.sh --cells | wc -l)
tools/variants-slurm.sh submit --wait "$work/variants-slurm" ||
    { echo "test-slurm: the variants jobs failed (messages in $work/variants-slurm/runs/slurm-*.out)" >&2; status=1; }
experiments/variants.sh "$work/variants-plain" 2 || { echo "test-slurm: variants.sh failed" >&2; status=1; }
if tools/compare-matrix.sh "$work/variants-plain/matrix.tsv" "$work/variants-slurm/matrix.tsv"; then
    echo "test-slurm: the variants matrix through Slurm ($cells cells, $(ls "$work"/variants-slurm/runs/slurm-*.out |
        wc -l) tasks) equals variants.sh's but for the timings"
else
    status=1
fi

((status == 0)) && echo "test-slurm: passed: $runs runs, the variants matrix of $cells cells" && passed=1
exit "$status"
