#!/usr/bin/env bash
# `make test-paraview` (opt-in, not in CI): ParaView 5.11 (Debian's paraview, python3-paraview and
# xvfb, installed when missing) opens a Fig. 2 run's sidecar with its default reader; every value
# it reads is checked against the run file (tools/paraview-check.py), then the run is rendered
# to build/test-paraview/fig2.png (tools/render-run.py); then the sub-step sidecar of a Fig. 5
# run with meshless that stored every sub-step (RUN.substeps.xmf, --substeps) likewise.
# Prints "paraview: N passed, N failed" for each sidecar.
set -euo pipefail
missing=()
for p in paraview python3-paraview xvfb; do
    dpkg -s "$p" > /dev/null 2>&1 || missing+=("$p")
done
if (( ${#missing[@]} )); then
    echo "test-paraview: installing ${missing[*]}"
    apt-get install -y -q --no-install-recommends "${missing[@]}" xauth > /dev/null
fi
out=build/test-paraview
rm -rf "$out" && mkdir -p "$out"
bin/opsim run experiments/fig2.ini --set run.frames=40 --set run.output_every=5 --out "$out/fig2.h5" > /dev/null
bin/opsim xdmf "$out/fig2.h5" --ellipsoids > /dev/null
xvfb-run -a pvpython tools/paraview-check.py "$(pwd)/bin/opsim" "$(pwd)/$out/fig2.h5" 2> "$out/check.log" \
    || { cat "$out/check.log"; exit 1; }
xvfb-run -a pvbatch tools/render-run.py "$(pwd)/$out/fig2.xmf" "$(pwd)/$out/fig2.png" > /dev/null 2>> "$out/check.log"
size=$(stat -c %s "$out/fig2.png" 2> /dev/null || echo 0)
if (( size < 5000 )); then
    echo "test-paraview: $out/fig2.png not rendered ($size bytes)"; echo "paraview: 0 passed, 1 failed"; exit 1
fi
echo "test-paraview: rendered $out/fig2.png ($size bytes)"
bin/opsim run experiments/fig5.ini --set solver.name=meshless --set run.frames=10 --set run.output=substeps \
    --out "$out/fig5-substeps.h5" > /dev/null
bin/opsim xdmf "$out/fig5-substeps.h5" --ellipsoids > /dev/null
for which in "" --substeps; do
    xvfb-run -a pvpython tools/paraview-check.py "$(pwd)/bin/opsim" "$(pwd)/$out/fig5-substeps.h5" $which \
        2>> "$out/check.log" || { cat "$out/check.log"; exit 1; }
done
