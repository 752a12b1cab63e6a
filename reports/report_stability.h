/* Whether two runs of a timed table agree (opsim-report stability): the variants matrix of
 * `make variants` made twice on one machine, compared cell by cell and by the ranking it gives.
 *
 * Both files are TSVs whose first line names the columns (a "# " line in a table of before the
 * tidy format) and whose rows are keyed by their first two cells (variant, scene), as
 * experiments/variants.sh writes matrix.tsv. Every column whose name starts with "ms" or
 * "own_ms" is compared, row by row, but for an interval's ends (NAME_lo, NAME_hi) and noisy
 * flags: a cell
 * is stable when both runs hold a number
 * and the second is within ±tolerance of the first (relative), or when the table marks it noisy
 * in both (a column NAME_noisy holding 1 in both runs), or when both hold the same text ("–",
 * "failed"). The ranking: for each scene, the variants with a number in `rank_column` in both
 * runs, ordered by it; stable when the two orders are the same.
 *
 * Written in the tidy format (docs/results.md): `cells`, one row per compared cell, "variant
 * scene column first second change_pct verdict" (first and second the numbers, empty where a
 * run has none; verdict stable, noisy, differs, or missing where the second run has no such
 * row); `ranks`, one row per scene, "scene rank_by first_order second_order verdict" (the
 * orders as "a < b < c", verdict same or differs). The totals come back in *totals; the run is
 * stable when unstable and rankings_differ are both 0. */
#ifndef OPSIM_REPORT_STABILITY_H
#define OPSIM_REPORT_STABILITY_H

#include <stdio.h>

#include "opsim/ctx.h"

typedef struct report_stability_totals {
    int compared, unstable; /* ms cells compared; of them neither stable nor noisy in both */
    int scenes, rankings_differ;
} report_stability_totals;

int report_stability(op_ctx *ctx, const char *first_path, const char *second_path, double tolerance,
                     const char *rank_column, FILE *cells, FILE *ranks, report_stability_totals *totals);

#endif
