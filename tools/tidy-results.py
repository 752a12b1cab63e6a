#!/usr/bin/env python3
"""Rewrites the tables of a results folder made before the tidy format (docs/results.md) in it,
so that old results load like new ones without running the experiments again.

usage: tools/tidy-results.py DIR...   (e.g. data/results; the files are rewritten in place)

What a writer now does differently, done to its old output:
- a header line "# name<TAB>..." loses its "# ";
- `opsim converge` tables (their "# k<TAB>seconds..." line below '#' provenance lines) get that
  line as their plain header and the provenance, "# " removed, in TABLE.tsv.meta ("# repeat N:
  ..." as "repeat N = ...");
- convergence/table.tsv: '-' (never reached, no rho) becomes an empty cell;
- floor/table.tsv: '–' (no rest-shape error observed) becomes an empty cell, and so do the
  '–' cells of freeflight/table.tsv's refused runs;
- meshless/perf.tsv: paper_ms_per_object ("0.2", "0.008-0.096") becomes paper_ms_per_object_min
  and paper_ms_per_object_max.
A table already in the tidy format is left as it is. Python's standard library only.
"""
import os
import re
import sys


def converge_table(lines):
    """(table lines, meta lines) of an old `opsim converge` output, or None if it is not one."""
    header = [i for i, line in enumerate(lines) if line.startswith("# k\t")]
    if not header:
        return None
    meta, table = [], [lines[header[0]][2:]]
    for i, line in enumerate(lines):
        if i == header[0]:
            continue
        if line.startswith("#"):
            text = line[1:].lstrip(" ")
            meta.append(re.sub(r"^repeat (\d+): ", r"repeat \1 = ", text))
        else:
            table.append(line)
    return table, meta


def blank(lines, columns, missing):
    """Cells of the named columns that equal one of `missing` made empty (the first line names)."""
    names = lines[0].split("\t")
    index = [names.index(c) for c in columns if c in names]
    out = [lines[0]]
    for line in lines[1:]:
        cells = line.split("\t")
        for c in index:
            if c < len(cells) and cells[c] in missing:
                cells[c] = ""
        out.append("\t".join(cells))
    return out


def paper_range(lines):
    names = lines[0].split("\t")
    if "paper_ms_per_object" not in names:
        return lines
    c = names.index("paper_ms_per_object")
    names[c:c + 1] = ["paper_ms_per_object_min", "paper_ms_per_object_max"]
    out = ["\t".join(names)]
    for line in lines[1:]:
        cells = line.split("\t")
        low, _, high = cells[c].partition("-")
        cells[c:c + 1] = [low, high or low]
        out.append("\t".join(cells))
    return out


def tidy(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines or not lines[0].startswith("#"):
        return False
    converged = converge_table(lines)
    if converged:
        lines, meta = converged
        with open(path + ".meta", "w", encoding="utf-8") as f:
            f.write("\n".join(meta) + "\n")
    elif any(line.startswith("#") for line in lines[1:]):
        print(f"{path}: '#' lines below the first; left as it is", file=sys.stderr)
        return False
    else:
        lines[0] = lines[0][1:].lstrip(" ")
    name = os.path.join(os.path.basename(os.path.dirname(path)), os.path.basename(path))
    if name == os.path.join("convergence", "table.tsv"):
        lines = blank(lines, lines[0].split("\t"), {"-"})
    elif name == os.path.join("freeflight", "table.tsv"):
        lines = blank(lines, lines[0].split("\t"), {"–"})
    elif name == os.path.join("floor", "table.tsv"):
        lines = blank(lines, ["rest_shape_error_pct"], {"–", "-"})
    elif name == os.path.join("meshless", "perf.tsv"):
        lines = paper_range(lines)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return True


def main(folders):
    if not folders:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    changed = 0
    for folder in folders:
        for root, _, files in os.walk(folder):
            for name in sorted(files):
                if name.endswith(".tsv"):
                    changed += tidy(os.path.join(root, name))
    print(f"tidy-results: {changed} tables rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
