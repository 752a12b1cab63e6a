#!/usr/bin/env bash
# Compiles every LaTeX table of the report (reports/tables/*.tex, or the files given) with
# xelatex, each \input into a two-column article with booktabs and siunitx whose columns are
# 229 pt wide (text 478 pt, 20 pt between the columns; a journal's two-column page): in a
# `table` when its comment says it fits one column, else in a `table*`; one its comment puts on a
# landscape page in a `table*` 650 pt wide, the text height turned (reports/report_tex.h).
# Fails when any does not compile; reports an overfull box (a table wider than its place) per
# table.
# Installs its Debian packages first (tools/deps.sh). `make test-tex` runs it; opt-in.
set -euo pipefail
tables=("$@")
[[ ${#tables[@]} -gt 0 ]] || tables=(reports/tables/*.tex)
[[ -e ${tables[0]} ]] || { echo "test-tex: no tables (make table1, variants and report write reports/tables/)" >&2; exit 1; }
tools/deps.sh texlive-xetex texlive-latex-recommended texlive-science lmodern
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0 overfull=0
for table in "${tables[@]}"; do
    float=table page='textwidth=478pt,columnsep=20pt,textheight=650pt'
    grep -q 'fits one column' "$table" || float='table*'
    grep -q 'on a landscape page' "$table" && page='textwidth=650pt,columnsep=20pt,textheight=478pt,landscape'
    cp "$table" "$work/table.tex"
    cat > "$work/doc.tex" <<DOC
\\documentclass[twocolumn]{article}
\\usepackage[$page]{geometry}
\\usepackage{booktabs,siunitx,graphicx}
\\begin{document}
\\begin{$float}\\centering\\small\\input{table.tex}\\caption{\\detokenize{$(basename "$table" .tex)}}\\end{$float}
Text.
\\end{document}
DOC
    if ! (cd "$work" && xelatex -interaction=nonstopmode -halt-on-error doc.tex > log.txt 2>&1); then
        echo "test-tex: $table does not compile:" >&2
        grep -A3 '^!' "$work/log.txt" | head -n 12 >&2
        failed=$((failed + 1))
        continue
    fi
    if grep -q '^Overfull \\hbox' "$work/doc.log"; then
        echo "test-tex: $table: $(grep -m1 '^Overfull \\hbox' "$work/doc.log") in a $float"
        overfull=$((overfull + 1))
    fi
done
echo "tex: ${#tables[@]} tables, $failed failed, $overfull overfull"
[[ $failed -eq 0 ]]
