#!/usr/bin/env bash
# Makes DIR (build/san for `make test SANITIZE=1`) a tree of symbolic links to the project's
# tracked files, with its own build/, bin/ and data/ (the meshes are extracted afresh there by
# the sanitized bin/opsim), so that a second build with other flags runs the tests from DIR
# without touching the normal build. Run from the project root.
set -euo pipefail
dir=$1
mkdir -p "$dir/data"
root=$(pwd)
for entry in $(git ls-files | cut -d/ -f1 | sort -u); do
    [[ $entry == data ]] && continue
    [[ -e $dir/$entry || -L $dir/$entry ]] || ln -s "$root/$entry" "$dir/$entry"
done
for file in $(git ls-files data); do
    [[ -e $dir/$file || -L $dir/$file ]] || ln -s "$root/$file" "$dir/$file"
done
