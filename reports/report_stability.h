/* Whether two runs of a timed table agree (opsim-report stability): the variants matrix of
 * `make variants` made twice on one machine, compared cell by cell and by the ranking it gives.
 *
 * Both files are TSVs whose first line names the columns (a "# " line in a table of before the
 * tidy format) and whose rows are keyed by their first two cells (variant, scene), as
 * experiments/variants.sh writes matrix.tsv. Every column whose name starts with "ms" is
 * compared, row by row, but for an interval's ends (NAME_lo, NAME_hi) and noisy flags: a cell
 * is stable when both runs hold a number
 * and the second is within ±tolerance of the first (relative), or when the table marks it noisy
 * in both (a column NAME_noisy holding 1 in both runs), or when both hold the same text ("–",
 * "failed"). The ranking: for each scene, the variants with a number in `rank_column` in both
 * runs, ordered by it; stable when the two orders are the same.
 *
 * Written: one row per compared cell, "# variant\tscene\tcolumn\tfirst\tsecond\tchange_pct\t
 * verdict" (verdict stable, noisy or differs), then one row per scene's ranking ("rank" in the
 * column cell, the orders in first and second, verdict same or differs), then a '#' line with
 * the totals. *stable is 1 when every cell and every ranking is. */
#ifndef OPSIM_REPORT_STABILITY_H
#define OPSIM_REPORT_STABILITY_H

#include <stdio.h>

#include "opsim/ctx.h"

int report_stability(op_ctx *ctx, const char *first_path, const char *second_path, double tolerance,
                     const char *rank_column, FILE *out, int *stable);

#endif
