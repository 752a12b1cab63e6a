#!/usr/bin/env bash
# compare-matrix.sh A B: whether two variants matrices (matrix.tsv of `make variants`, or of its
# Slurm route, docs/experiments.md) agree in every column that is not a timing: every column but
# those named ms_* and own_ms_* (the times, their intervals and noisy flags), which differ from
# run to run. The same rows in the same order, cell for cell as text. Prints the columns compared
# and either "equal" or each row that differs (diff of the compared columns); exit 0 when equal,
# 1 when not, 64 for a bad argument.
set -euo pipefail

[[ $# -eq 2 && -r $1 && -r $2 ]] || { echo "usage: compare-matrix.sh A.tsv B.tsv (readable files)" >&2; exit 64; }

# the 1-based indices of FILE's columns that are not timings, comma separated
untimed_columns() {
    head -n 1 "$1" | tr '\t' '\n' | grep -nvE '^(own_)?ms_' | cut -d: -f1 | paste -sd,
}

a=$(untimed_columns "$1")
b=$(untimed_columns "$2")
[[ $(head -n 1 "$1" | cut -f"$a") == "$(head -n 1 "$2" | cut -f"$b")" ]] ||
    { echo "compare-matrix: the two headers name different columns" >&2; exit 1; }
echo "compare-matrix: $(head -n 1 "$1" | cut -f"$a" | tr '\t' ' ')"
if diff <(cut -f"$a" "$1") <(cut -f"$b" "$2"); then
    echo "compare-matrix: equal: $(($(wc -l <"$1") - 1)) rows, $(tr ',' '\n' <<<"$a" | wc -l) columns"
else
    echo "compare-matrix: differ" >&2
    exit 1
fi
