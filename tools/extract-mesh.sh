#!/usr/bin/env bash
# extract-mesh.sh TARBALL TABLE NAME OUT: extracts mesh NAME (as listed in TABLE) from
# libcgal-demo's data tarball into OUT and verifies its SHA-256. Nothing is left at OUT when
# the mesh is missing or its checksum differs.
set -euo pipefail
tarball=$1 table=$2 name=$3 out=$4
read -r member sha < <(awk -F'\t' -v n="$name" '$1 == n { print $2, $3 }' "$table")
if [[ -z ${member:-} ]]; then
    echo "extract-mesh: $table has no mesh named '$name'" >&2; exit 1
fi
if [[ ! -r $tarball ]]; then
    echo "extract-mesh: $tarball is missing (Debian package libcgal-demo; run 'make deps')" >&2; exit 1
fi
tmp=$(mktemp "$out.XXXXXX")
trap 'rm -f "$tmp"' EXIT
tar -xzOf "$tarball" "$member" > "$tmp"
actual=$(sha256sum "$tmp" | cut -d' ' -f1)
if [[ $actual != "$sha" ]]; then
    echo "extract-mesh: $member has SHA-256 $actual, expected $sha" >&2; exit 1
fi
chmod 644 "$tmp"
mv "$tmp" "$out"
trap - EXIT
