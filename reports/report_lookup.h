/* One cell of a table found by column names (reports/report_lookup.c), the `lookup` section of
 * opsim-report, for the make recipes that read a value out of a CSV or TSV by its header:
 *   opsim-report lookup --in bench.csv --separator , --where scene=fig5 --where per=scene
 *                       --column total_ms
 * The first line names the columns (a leading "# " is not part of the first name); later lines
 * starting with '#' and empty lines are skipped. Prints the cell of --column in the one row
 * whose cells match every --where NAME=VALUE, and a newline. No such row, more than one, or a
 * name the header does not have is an error naming the file; nothing is printed then. */
#ifndef OPSIM_REPORT_LOOKUP_H
#define OPSIM_REPORT_LOOKUP_H

#include <stdio.h>

#include "opsim/ctx.h"

enum { REPORT_LOOKUP_MAX_WHERE = 8 };

typedef struct report_lookup_def {
    const char *in, *column;
    char separator; /* '\t' unless given */
    const char *where[REPORT_LOOKUP_MAX_WHERE];
    int where_count;
} report_lookup_def;

int report_lookup(op_ctx *ctx, const report_lookup_def *def, FILE *out);

#endif
