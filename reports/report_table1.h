/* The paper's Table 1 set beside ours (reports/report_table1.c), written by the `table1`
 * section and inside the `report` section's {{table1}}. */
#ifndef OPSIM_REPORT_TABLE1_H
#define OPSIM_REPORT_TABLE1_H

#include <stdio.h>

#include "opsim/ctx.h"

/* The paper's Table 1 (reports/paper_table1.tsv) row by row with our measured row from
 * bench_scenes' CSV under each, and the notes that make it readable; no title. */
int report_write_table1(op_ctx *ctx, const char *paper_path, const char *bench_path, const char *flags_path,
                        FILE *out);

/* Table 1 as a LaTeX booktabs tabular for a paper (\usepackage{booktabs,siunitx}), wider than a
 * column (a table*): per example the paper's row, ours and, where its edges differ, the face
 * rule's; nodes, edges, n_s x n_i, the four stages' milliseconds per frame in siunitx S columns
 * and the paper's total over ours. Beneath each of our rows, small, the medians' 95 % intervals
 * as table1.md has them, with its noise marks (a dagger). */
int report_write_table1_tex(op_ctx *ctx, const char *paper_path, const char *bench_path, FILE *out);

#endif
