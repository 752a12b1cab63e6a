/* Statistics of one column of numbers (reports/report_series.c), the `series` section of
 * opsim-report, for the make recipes that reduce a run file's time series (`opsim export RUN
 * DATASET` prints one row per frame or sub-step) to a table cell:
 *   opsim export RUN /observables/tip/value | opsim-report series --rows -60: --of mean --of spread
 * The input (--in FILE, or standard input) is rows of numbers separated by spaces or tabs;
 * empty lines and lines starting with '#' are skipped. --column C picks a column: 1, 2, ...,
 * "last", or a sum "1+2" (the row's value is the sum of those columns). --rows A:B keeps rows A
 * to B of the series (1-based, inclusive; A or B may be left out; a negative A counts from the
 * end, -60: is the last 60, or all of them when there are fewer, as tail -n 60). --from-first subtracts the series' first value (before --rows)
 * from every value. Each --of STAT prints one number, in --format (%.17g unless given),
 * separated by tabs and ended by a newline:
 *   first, last, min, max, absmax (largest |v|), absmin (smallest |v|), sum, mean (summed in
 *   row order), spread (max − min), median (the lower one of an even count: the value at
 *   position (n + 1) / 2, rounded down, of the sorted rows), at:N (row N of the series before
 *   --rows; -1 the last), settles-below:X (the first row, 1-based among the rows kept, from
 *   which every row is below X; 0 when the last is not: a run's settling time in rows).
 * A cell that is not a number, a missing column or an empty selection is an error naming the
 * input and line; nothing is printed then. */
#ifndef OPSIM_REPORT_SERIES_H
#define OPSIM_REPORT_SERIES_H

#include <stdio.h>

#include "opsim/ctx.h"

enum { REPORT_SERIES_MAX_STATS = 16 };

typedef struct report_series_def {
    const char *in;      /* NULL: standard input */
    const char *column;  /* NULL: "1" */
    const char *rows;    /* NULL: every row */
    const char *format;  /* NULL: "%.17g" */
    const char *stat[REPORT_SERIES_MAX_STATS];
    int stat_count, from_first;
} report_series_def;

int report_series(op_ctx *ctx, const report_series_def *def, FILE *out);

#endif
