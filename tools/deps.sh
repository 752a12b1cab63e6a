#!/usr/bin/env bash
# Checks that the Debian packages opsim builds and runs with are installed, and installs the
# missing ones (apt-get as root, else through sudo). `make deps` runs it; so do `make`,
# `make test` and `make reproduce`, so a fresh Debian machine needs nothing else. Packages given
# as arguments are checked too (`make fuzz` adds clang and libFuzzer's runtime).
set -euo pipefail

packages=(build-essential pkg-config libopenblas-dev liblapacke-dev libsuitesparse-dev
          libhdf5-dev hdf5-tools gnuplot-nox libcmocka-dev libinih-dev libcgal-demo nettle-dev "$@")

missing=()
for p in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
    [[ $status == ii* ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "deps: installing ${missing[*]}" >&2
if [[ $(id -u) -eq 0 ]]; then
    sudo=()
elif command -v sudo >/dev/null; then
    sudo=(sudo)
else
    echo "deps: missing Debian packages: ${missing[*]}; run as root: apt-get install -y ${missing[*]}" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
