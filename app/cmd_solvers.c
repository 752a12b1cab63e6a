/* opsim solvers: list the solver variants and their options. */
#include "app.h"

#include "base/math3.h"

static const char solvers_help[] = "usage: opsim solvers [--names]\n"
                                   "  the solver variants, each with its summary, source and options, then the\n"
                                   "  options every variant takes; --names: the variants' names alone, one a line\n";

int command_solvers(int argc, char **argv, const app_call *call)
{
    (void)call;
    if (argc == 2 && strcmp(argv[1], "--help") == 0) {
        fputs(solvers_help, stdout);
        return 0;
    }
    int names = argc == 2 && strcmp(argv[1], "--names") == 0;
    if (argc != 1 && !names)
        return usage_error("solvers", "%s", "takes no arguments but --names");
    for (int v = 0; names && op_solver_registry[v]; ++v)
        printf("%s\n", op_solver_registry[v]->name);
    if (names)
        return 0;
    for (int v = 0; op_solver_registry[v]; ++v) {
        const op_solver_type *t = op_solver_registry[v];
        printf("%s\n    %s (%s)\n", t->name, t->summary, t->source);
        for (const op_solver_option *o = t->options; o->key; ++o)
            printf("    %s = %s\n        %s\n", o->key, o->default_value, o->help);
    }
    printf("options of every variant (Chebyshev acceleration, Wang 2015, solvers/accel/chebyshev.h; Anderson acceleration, "
           "Peng et al. 2018, solvers/accel/anderson.h)\n");
    for (const op_solver_option *o = op_solver_common_options; o->key; ++o)
        printf("    %s = %s\n        %s\n", o->key, o->default_value, o->help);
    return 0;
}
