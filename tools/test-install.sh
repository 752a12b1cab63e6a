#!/usr/bin/env bash
# The install as a user meets it (make test runs this last): `make install` into a fresh prefix
# under build/, examples/step_scene.c built there through pkg-config against the shared library,
# run from another directory on an installed config (which finds the installed catalogue), and
# the installed bin/opsim run from there too. Prints "install: 1 passed, 0 failed" or says
# what failed; exits non-zero on failure.
set -euo pipefail
root=$(pwd)
prefix=$root/build/install-test
away=$(mktemp -d)
trap 'rm -rf "$away"' EXIT
fail() { echo "install: $*" >&2; echo "install: 0 passed, 1 failed"; exit 1; }

rm -rf "$prefix"
make --no-print-directory install PREFIX="$prefix" > "$away/install.log" 2>&1 || { tail -20 "$away/install.log"; fail "make install failed"; }
for f in bin/opsim bin/opsim-report include/opsim/opsim.h lib/libopsim.a lib/libopsim.so lib/pkgconfig/opsim.pc \
         share/man/man1/opsim.1 share/opsim/data/models.tsv share/opsim/experiments/fig5.ini; do
    [[ -e $prefix/$f ]] || fail "$f not installed"
done
# Every public header compiles on its own with only the installed include folder.
for h in "$prefix"/include/opsim/*.h; do
    echo "#include <opsim/$(basename "$h")>" | cc -std=c11 -Wall -Wextra -Werror -fsyntax-only \
        $(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags opsim) -x c - \
        || fail "$(basename "$h") does not compile alone"
done
cp -r examples "$away/examples"
make --no-print-directory -C "$away/examples" PKG_CONFIG_PATH="$prefix/lib/pkgconfig" > "$away/build.log" 2>&1 \
    || { cat "$away/build.log"; fail "examples/step_scene.c did not build against the install"; }
linked=$(ldd "$away/examples/step_scene")   # whole, not piped into grep -q: pipefail and SIGPIPE
[[ $linked == *"$prefix/lib/libopsim.so"* ]] || fail "step_scene is not linked to the installed libopsim.so"
cd "$away"
env -u OPSIM_DATA OPSIM_GRAPH_CACHE="$away/cache" examples/step_scene "$prefix/share/opsim/experiments/fig2.ini" 3 > steps.tsv \
    || fail "step_scene failed"
frames=$(tail -n +2 steps.tsv | wc -l)
[[ $frames -eq 3 ]] || fail "step_scene printed $frames frames, not 3"
# Energies are numbers and the bar, released, has moved: kinetic energy above zero by frame 3.
tail -1 steps.tsv | while IFS=$'\t' read -r frame time kinetic elastic total; do
    python3 -c "import math,sys; k=float('$kinetic'); t=float('$total'); sys.exit(0 if math.isfinite(t) and k > 0 else 1)" \
        || fail "frame $frame: kinetic $kinetic, total $total"
done
env -u OPSIM_DATA OPSIM_GRAPH_CACHE="$away/cache" "$prefix/bin/opsim" run "$prefix/share/opsim/experiments/fig2.ini" \
    --set run.frames=2 --out run.h5 > /dev/null 2>&1 || fail "the installed opsim could not run an installed config"
[[ -s run.h5 && -s run.xmf ]] || fail "the installed opsim wrote no run file"
echo "install: 1 passed, 0 failed"
