#!/usr/bin/env python3
"""Checks that every result table loads as pandas' read_csv(sep=...) would read it with its
defaults and the right dtypes, using only the csv module (pandas is not a
dependency). A table is a .tsv (tab) or .csv (comma) file under the given directories
(default: data/results and reports). The rules, one message per broken rule and file:

  header   the first line names the columns: no leading '#', no other '#' line below it,
           and every row has as many cells as the header;
  missing  a missing value is an empty cell or NA, never '-', '–' or '—';
  numeric  a column with a number in it holds only numbers or missing values: status words
           and reasons belong in text columns of their own.

Prints one line per problem (FILE:LINE: rule: message) and a summary line
"tables: N checked, N clean, N with problems"; exits 1 when any table has a problem.
usage: tools/check-tables.py [DIR|FILE ...]"""
import csv
import os
import sys

DASHES = {"-", "–", "—"}


def is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def tables(paths):
    for path in paths:
        if os.path.isfile(path):
            yield path
            continue
        for root, _, files in os.walk(path):
            for name in sorted(files):
                if name.endswith((".tsv", ".csv")):
                    yield os.path.join(root, name)


def check(path):
    problems = []
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter="," if path.endswith(".csv") else "\t"))
    rows = [(number, row) for number, row in enumerate(rows, 1) if row]
    if not rows:
        return [(path, 1, "header", "empty table")]
    (_, header), body = rows[0], rows[1:]
    if header[0].startswith("#"):
        problems.append((path, 1, "header", "the header starts with '#' ('%s')" % header[0]))
    for number, row in body:
        if row[0].startswith("#"):
            problems.append((path, number, "header", "a '#' line below the header"))
        elif len(row) != len(header):
            problems.append((path, number, "header", "%d cells, the header has %d" % (len(row), len(header))))
    data = [(n, r) for n, r in body if not r[0].startswith("#") and len(r) == len(header)]
    for c, name in enumerate(header):
        cells = [(n, r[c]) for n, r in data]
        dashes = [(n, v) for n, v in cells if v.strip() in DASHES]
        if dashes:
            problems.append((path, dashes[0][0], "missing", "column '%s': '%s' for a missing value (%d cells)"
                             % (name, dashes[0][1], len(dashes))))
        present = [(n, v) for n, v in cells if v.strip() not in DASHES and v.strip() not in ("", "NA")]
        numbers = [v for _, v in present if is_number(v)]
        words = [(n, v) for n, v in present if not is_number(v)]
        if numbers and words:
            problems.append((path, words[0][0], "numeric", "column '%s': %d numbers and %d words, e.g. '%s'"
                             % (name, len(numbers), len(words), words[0][1])))
    return problems


def main(argv):
    paths = argv[1:] or ["data/results", "reports"]
    checked = clean = 0
    for path in tables(paths):
        checked += 1
        problems = check(path)
        clean += not problems
        for file, line, rule, message in problems:
            print("%s:%d: %s: %s" % (file, line, rule, message))
    print("tables: %d checked, %d clean, %d with problems" % (checked, clean, checked - clean))
    return 0 if checked == clean else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
