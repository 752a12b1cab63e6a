/* `opsim spring-curves`: the springs variant's three force laws (solvers/springs.h) sampled
 * against the spring length at Vogiannou et al. 2010's Fig. 1-2 parameters, as tab-separated
 * text for gnuplot.
 *
 * usage: opsim spring-curves [--from X] [--to X] [--samples N] */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "springs.h"

const char app_spring_curves_usage[] =
    "usage: opsim spring-curves [--from X] [--to X] [--samples N]\n"
    "\n"
    "Prints, as tab-separated text with a '#' header, the force magnitude g and the stiffness g'\n"
    "against the spring length for the springs variant's three laws at the parameters of\n"
    "Vogiannou et al. 2010 Fig. 1 and 2: L = 1, K = 1, a1 = 1.1, a2 = 0.9, K2 = 2K and, for the\n"
    "full cubic, K1 = 2K, 4K and 6K. The numbers come from the functions the solver evaluates\n"
    "(solvers/springs.h). Lengths from --from (0) to --to (2) in --samples (401) steps.\n";

enum { CURVES = 5 };
static const char *const curve_names[CURVES] = { "linear", "cubic2", "cubic_k1_2", "cubic_k1_4", "cubic_k1_6" };

/* The linear law, the two-term cubic, and the full cubic at K1 = 2K, 4K, 6K. */
static int make_springs(op_ctx *ctx, op_spring spring[CURVES])
{
    for (int k = 0; k < CURVES; ++k) {
        op_spring_shape shape = { 1.1, 0.9, k < 2 ? 1.0 : 2.0 * (k - 1), 2.0 };
        op_spring_law law = k == 0 ? OP_SPRING_LINEAR : k == 1 ? OP_SPRING_CUBIC2 : OP_SPRING_CUBIC;
        if (op_spring_make(ctx, law, 1.0, 1.0, &shape, &spring[k]) != OP_OK)
            return ctx->status;
    }
    return OP_OK;
}

static void print_curves(const op_spring spring[CURVES], double from, double to, int samples)
{
    printf("length");
    for (int k = 0; k < CURVES; ++k)
        printf("\t%s_force\t%s_stiffness", curve_names[k], curve_names[k]);
    printf("\n");
    for (int i = 0; i < samples; ++i) {
        double x = from + (to - from) * i / (samples - 1);
        printf("%.10g", x); /* the sample lengths as written, e.g. 0.8, so a report can name a row */
        for (int k = 0; k < CURVES; ++k)
            printf("\t%.17g\t%.17g", op_spring_magnitude(&spring[k], x), op_spring_slope(&spring[k], x));
        printf("\n");
    }
}

int app_spring_curves(const app_call *call)
{
    static const struct option options[] = { { "from", required_argument, 0, 'f' },
                                              { "to", required_argument, 0, 't' },
                                              { "samples", required_argument, 0, 'n' },
                                              { "help", no_argument, 0, 'h' },
                                              { 0, 0, 0, 0 } };
    double from = 0.0, to = 2.0;
    int samples = 401, c;
    optind = 1;
    while ((c = getopt_long(call->argc, call->argv, "", options, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'f':
        case 't': {
            double value = strtod(optarg, &end);
            if (end == optarg || *end || !isfinite(value) || value < 0)
                return app_usage_error("spring-curves", "--from and --to take a length >= 0, not '%s'", optarg);
            *(c == 'f' ? &from : &to) = value;
            break;
        }
        case 'n':
            if (app_parse_int(optarg, 2, 1000000, &samples) != 0)
                return app_usage_error("spring-curves", "--samples takes a whole number from 2, not '%s'", optarg);
            break;
        case 'h': fputs(app_spring_curves_usage, stdout); return 0;
        default: return app_usage_error("spring-curves", "%s", "unknown option");
        }
    }
    if (optind != call->argc || !(to > from))
        return app_usage_error("spring-curves", "%s", "takes no operands, and --to must exceed --from");
    op_spring spring[CURVES];
    op_ctx ctx;
    op_ctx_init(&ctx);
    if (make_springs(&ctx, spring) != OP_OK)
        return app_report_failure(&ctx);
    print_curves(spring, from, to, samples);
    return ferror(stdout) ? EXIT_IO : 0;
}
