/* `opsim overlap`: the deepest overlap between bodies in every state a run file stores,
 * measured from the states alone (core/contact/overlap.h), against the smallest semi-axis.
 * Runs in the guarded child of app/files.c: a damaged file exits 65.
 *
 * usage: opsim overlap RUN.h5 [--substeps] */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "contact/overlap.h"

const char app_overlap_usage[] =
    "usage: opsim overlap RUN.h5 [--substeps]\n"
    "\n"
    "The deepest overlap between particles of different bodies in every stored state, measured\n"
    "from /particles (--substeps: from /substeps, the states of every sub-step that\n"
    "`[run] output = substeps` stores) and /graph alone, as the contacts measure a pair: along\n"
    "the line between the centres. Prints one tab-separated line per state: row, time (s),\n"
    "deepest (m), deepest in % of the smallest semi-axis of any particle; then a '#' line with\n"
    "the largest over the states.\n";

int app_overlap(const app_call *call)
{
    static const struct option options[] = { { "substeps", no_argument, NULL, 's' },
                                              { "help", no_argument, NULL, 'h' },
                                              { NULL, 0, NULL, 0 } };
    const char *group = "/particles";
    optind = 1;
    for (int c; (c = getopt_long(call->argc, call->argv, "", options, NULL)) != -1;) {
        if (c == 'h') {
            fputs(app_overlap_usage, stdout);
            return 0;
        }
        if (c != 's')
            return app_usage_error("overlap", "unknown option%s", "");
        group = "/substeps";
    }
    if (optind != call->argc - 1)
        return app_usage_error("overlap", "expects one run file%s", "");
    op_ctx ctx;
    op_ctx_init(&ctx);
    long rows;
    double *deepest, *time, smallest;
    if (op_overlap_run_file(&ctx, call->argv[optind], group, &rows, &deepest, &time, &smallest) == OP_OK) {
        double most = 0.0;
        long at = 0;
        printf("# row\ttime_s\tdeepest_m\tdeepest_pct_of_smallest_semi_axis (%.6g m)\n", smallest);
        for (long row = 0; row < rows; ++row) {
            printf("%ld\t%.9g\t%.9g\t%.4g\n", row, time[row], deepest[row], 100.0 * deepest[row] / smallest);
            if (deepest[row] > most)
                most = deepest[row], at = row;
        }
        printf("# largest: %.9g m = %.4g %% at row %ld of %ld\n", most, 100.0 * most / smallest, at, rows);
    }
    free(deepest);
    free(time);
    return app_exit_status(&ctx);
}
