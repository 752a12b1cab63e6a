/* Every markdown table of the written report as a LaTeX booktabs tabular (reports/report_md_tex.c),
 * for `opsim-report report --tex-dir DIR`.
 *
 * A table is a line starting with '|' followed by a separator row (|---|---:|) and the '|'
 * lines after it, outside ``` fences. Each becomes DIR/report-SLUG-N.tex: SLUG the heading it
 * sits under (lowercase ASCII letters and digits, any other run '-', cut to 40 characters at a
 * '-'; "report" before any heading), N its index among the tables of that slug from 1. Every
 * table is written, also those of which a dedicated .tex exists (table1.tex, variants-*.tex:
 * those are set from the TSV with more care); the report-* names keep them apart. The
 * report-*.tex files already in DIR are removed first, so a table gone from the report leaves
 * none behind.
 *
 * Cells are converted from the report's markdown: `code` as \texttt{}, **bold** as \textbf{},
 * <sup>x</sup> as \textsuperscript{}, <sub> likewise, [text](url) as its text, "\|" as '|',
 * and the rest escaped by report_tex_escape (non-ASCII in LaTeX's terms). A number written
 * "M×10<sup>E</sup>" or with a leading '−' (U+2212) is read as the number MeE or -X. Text
 * columns take their alignment from the separator row (---: right, else left); a column whose
 * every present cell is a number (or a bound, "≥1e11") is an S column. */
#ifndef OPSIM_REPORT_MD_TEX_H
#define OPSIM_REPORT_MD_TEX_H

#include "opsim/ctx.h"

/* `markdown` the report as written to `report_path`; the count of files written in *written. */
int report_md_tex(op_ctx *ctx, const char *markdown, const char *report_path, const char *dir, int *written);

#endif
