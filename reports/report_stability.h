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
 * runs, ordered by it. Two variants whose intervals (rank_column_lo … _hi; the value alone where
 * the table has none) overlap are not ordered by that run, so the rankings are judged by their
 * significant reversals: a pair ordered oppositely by the two runs while its two intervals are
 * disjoint in each run. The strict comparison of the orders is reported beside it.
 *
 * Written in the tidy format (docs/results.md): `cells`, one row per compared cell, "variant
 * scene column first second change_pct verdict" (first and second the numbers, empty where a
 * run has none; verdict stable, noisy, differs, or missing where the second run has no such
 * row); `ranks`, one row per scene, "scene rank_by first_order second_order order cells_ratio
 * reversals significant_reversals verdict significant_pairs" (the orders as "a < b < c"; order
 * same or differs, strictly; cells_ratio the median over the scene's compared cells holding a
 * number in both runs of second / first, which shows a scene moved as a whole; reversals the
 * pairs ordered oppositely, significant_reversals those with disjoint intervals in both runs,
 * listed as "a/b, …"; verdict same, "same within intervals" (the orders differ, no pair
 * significantly) or reversed). The totals come back in *totals; the run is stable when unstable
 * and significant_reversals are both 0.
 *
 * The machine-speed probe (report_stability_probe): the median of the `probe_ms` column of each
 * run's probe table (runs/probe.tsv of the matrix: a fixed workload timed at the start of each
 * round, core/base/probe.h), so that a scene whose cells all moved can be set beside the
 * machine's own change between the runs. */
#ifndef OPSIM_REPORT_STABILITY_H
#define OPSIM_REPORT_STABILITY_H

#include <stdio.h>

#include "opsim/ctx.h"

enum { REPORT_STABILITY_MAX_SCENES = 16, REPORT_STABILITY_NAME = 64 };

typedef struct report_stability_totals {
    int compared, unstable; /* ms cells compared; of them neither stable nor noisy in both */
    int scenes, rankings_differ; /* scenes ranked; of them ordered otherwise, strictly */
    int reversals, significant_reversals, scenes_reversed; /* pairs; scenes with a significant one */
    /* the first REPORT_STABILITY_MAX_SCENES scenes' names and cells_ratio (NAN: none) */
    char scene[REPORT_STABILITY_MAX_SCENES][REPORT_STABILITY_NAME];
    double cells_ratio[REPORT_STABILITY_MAX_SCENES];
} report_stability_totals;

int report_stability(op_ctx *ctx, const char *first_path, const char *second_path, double tolerance,
                     const char *rank_column, FILE *cells, FILE *ranks, report_stability_totals *totals);

/* The median of the probe_ms column of the table at `path` (a header line naming it, a row per
 * probe) into *median_ms; OP_ERR_PARSE when it has no such column or no number in it. */
int report_stability_probe(op_ctx *ctx, const char *path, double *median_ms);

#endif
