/* bin/opsim: the command table and its dispatch. Each command is a file of its own
 * (app/cmd_*.c) that parses its options with getopt_long; what they share is app/common.c.
 * `opsim --help` is printed from the table. */
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "base/platform.h"
#include "geometry/graph_cache.h"
#include "io/atomic.h"

static const app_command commands[] = {
    { "run", "run an experiment config and record it into a run file", command_run, NULL },
    { "solvers", "list the solver variants and their options", command_solvers, NULL },
    { "spring-curves", "the springs variant's force laws at Vogiannou et al. 2010's Fig. 1-2 parameters",
      command_spring_curves, NULL },
    { "estimate-rho", "estimate the spectral radius rho for Chebyshev acceleration (chebyshev_rho)",
      command_estimate_rho, NULL },
    { "converge", "energy against iteration and time for one sub-step (convergence study)", command_converge, NULL },
    { "graph", "build one body's particle graph and skinning into a run file", command_graph, NULL },
    { "mesh", "prepare a mesh: rotate, scale to metres, write OBJ", command_mesh, NULL },
    { "sweep", "a grid of runs of one config: a table, and a Makefile (or runs them)", command_sweep, NULL },
    { "info", "print what a run file holds", NULL, command_info },
    { "export", "print a run-file dataset as tab-separated text, or write OBJ files", NULL, command_export },
    { "xdmf", "write a run file's XDMF sidecar for ParaView (opsim run writes it too)", NULL, command_xdmf },
};
enum { COMMAND_COUNT = sizeof commands / sizeof commands[0] };

/* a name of up to eight characters shares its line with the summary */
static void print_help(FILE *out)
{
    fputs("usage: opsim COMMAND [OPTIONS]\n\ncommands:\n", out);
    for (int c = 0; c < COMMAND_COUNT; ++c) {
        if (strlen(commands[c].name) <= 8)
            fprintf(out, "  %-8s %s\n", commands[c].name, commands[c].summary);
        else
            fprintf(out, "  %s\n           %s\n", commands[c].name, commands[c].summary);
    }
    fputs("\n'opsim COMMAND --help' describes each. Exit status: 0 success, 64 usage error,\n"
          "65 bad input data, 74 input/output error, 70 internal error.\n",
          out);
}

static char *joined_command_line(int argc, char **argv)
{
    size_t length = 1;
    for (int i = 0; i < argc; ++i)
        length += strlen(argv[i]) + 1;
    char *line = calloc(length, 1);
    if (!line)
        return NULL;
    for (int i = 0; i < argc; ++i) {
        if (i)
            strcat(line, " ");
        strcat(line, argv[i]);
    }
    return line;
}

static void print_notice(const char *message)
{
    fprintf(stderr, "%s: %s\n", program, message);
}

int main(int argc, char **argv)
{
    op_platform_init();
    op_temp_catch_signals();
    op_graph_cache_set_notice(print_notice);
    if (argc < 2)
        return usage_error("", "%s", "a command is required");
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        print_help(stdout);
        return 0;
    }
    if (strcmp(name, "--version") == 0) {
        printf("opsim %s (git %s)\n", OPSIM_VERSION, OPSIM_GIT_REV);
        return 0;
    }
    const app_command *command = NULL;
    for (int c = 0; c < COMMAND_COUNT && !command; ++c)
        if (strcmp(name, commands[c].name) == 0)
            command = &commands[c];
    if (!command)
        return usage_error("", "unknown command '%s'", name);
    if (command->reads_run_file)
        return read_run_file_guarded(command->reads_run_file, argc - 1, argv + 1, argc > 2 ? argv[2] : "");
    char *command_line = joined_command_line(argc, argv);
    if (!command_line) {
        fprintf(stderr, "%s: out of memory\n", program);
        return EXIT_SOFTWARE;
    }
    app_call call = { .command_line = command_line, .program_path = argv[0] };
    int status = command->run(argc - 1, argv + 1, &call);
    free(command_line);
    return status;
}
