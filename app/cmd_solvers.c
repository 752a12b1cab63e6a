/* `opsim solvers`: the registered solver variants (solvers/registry.c), each with its summary,
 * source and options, then the options every variant takes; --names: the names alone.
 *
 * usage: opsim solvers [--names] */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "opsim/solver.h"

const char app_solvers_usage[] = "usage: opsim solvers [--names]\n"
                            "  the solver variants, each with its summary, source and options, then the\n"
                            "  options every variant takes; --names: the variants' names alone, one a line\n";

static void print_options(const op_solver_option *options)
{
    for (const op_solver_option *o = options; o->key; ++o)
        printf("    %s = %s\n        %s\n", o->key, o->default_value, o->help);
}

static void print_variants(void)
{
    for (int v = 0; op_solver_registry[v]; ++v) {
        const op_solver_type *t = op_solver_registry[v];
        printf("%s\n    %s (%s)\n", t->name, t->summary, t->source);
        print_options(t->options);
    }
    printf("options of every variant (Chebyshev acceleration, Wang 2015, solvers/accel/chebyshev.h; Anderson acceleration, "
           "Peng et al. 2018, solvers/accel/anderson.h)\n");
    for (int t = 0; op_solver_common_options(t); ++t)
        print_options(op_solver_common_options(t));
}

int app_solvers(const app_call *call)
{
    if (call->argc == 2 && strcmp(call->argv[1], "--help") == 0) {
        fputs(app_solvers_usage, stdout);
        return 0;
    }
    int names = call->argc == 2 && strcmp(call->argv[1], "--names") == 0;
    if (call->argc != 1 && !names)
        return app_usage_error("solvers", "%s", "takes no arguments but --names");
    if (!names) {
        print_variants();
        return 0;
    }
    for (int v = 0; op_solver_registry[v]; ++v)
        printf("%s\n", op_solver_registry[v]->name);
    return 0;
}
