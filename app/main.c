/* The opsim command line: the table of commands, `opsim --help` printed from it, and the
 * dispatch of `opsim COMMAND ...` to the command's handler, one file per command (app/cmd_*.c,
 * each opening with its usage). A new command is a file defining its handler and usage,
 * declared in app/commands.h, and one row of `commands` below.
 *
 * usage: opsim COMMAND [OPTIONS]     opsim --help     opsim COMMAND --help     opsim --version */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opsim/platform.h"
#include "base/nearest.h"
#include "commands.h"
#include "geometry/graph_cache.h"
#include "io/atomic.h"

/* A row of the command table. A command whose operand is a run file runs in a child process
 * (app_read_run_file_guarded, app/files.c): a damaged file cannot crash it. */
typedef struct app_command {
    const char *name;
    const char *summary; /* one line of `opsim --help` */
    app_handler *run;
    const char *usage; /* `opsim NAME --help` */
    int reads_run_file;
} app_command;

/* In the order `opsim --help` lists them. */
static const app_command commands[] = {
    { "run", "run an experiment config and record it into a run file", app_run, app_run_usage, 0 },
    { "solvers", "list the solver variants and their options", app_solvers, app_solvers_usage, 0 },
    { "spring-curves", "the springs variant's force laws at Vogiannou et al. 2010's Fig. 1-2 parameters",
      app_spring_curves, app_spring_curves_usage, 0 },
    { "estimate-rho", "estimate the spectral radius rho for Chebyshev acceleration (chebyshev_rho)",
      app_estimate_rho, app_estimate_rho_usage, 0 },
    { "converge", "energy against iteration and time for one sub-step (convergence study)", app_converge,
      app_converge_usage, 0 },
    { "graph", "build one body's particle graph and skinning into a run file", app_graph, app_graph_usage, 0 },
    { "mesh", "prepare a mesh: rotate, scale to metres, write OBJ", app_mesh, app_mesh_usage, 0 },
    { "sweep", "a grid of runs of one config: a table, and a Makefile (or runs them)", app_sweep, app_sweep_usage,
      0 },
    { "info", "print what a run file holds", app_info, app_info_usage, 1 },
    { "export", "print a run-file dataset as tab-separated text, or write OBJ files", app_export, app_export_usage,
      1 },
    { "xdmf", "write a run file's XDMF sidecar for ParaView (opsim run writes it too)", app_xdmf, app_xdmf_usage,
      1 },
    { "overlap", "the deepest overlap between bodies in every stored state", app_overlap, app_overlap_usage, 1 },
    { "verify", "read a run file end to end, testing every checksum", app_verify, app_verify_usage, 1 },
    { "cache", "check the graph cache against fresh builds, or prune it", app_cache, app_cache_usage, 0 },
};
enum { COMMAND_COUNT = sizeof commands / sizeof commands[0] };

/* A name of up to 8 characters shares the summary's line; a longer one stands above it. */
static void print_help(FILE *out)
{
    fprintf(out, "usage: %s COMMAND [OPTIONS]\n\ncommands:\n", app_program);
    for (int c = 0; c < COMMAND_COUNT; ++c)
        if (strlen(commands[c].name) <= 8)
            fprintf(out, "  %-8s %s\n", commands[c].name, commands[c].summary);
        else
            fprintf(out, "  %s\n           %s\n", commands[c].name, commands[c].summary);
    fprintf(out,
            "\n'%s COMMAND --help' describes each. Exit status: 0 success, 64 usage error,\n"
            "65 bad input data, 74 input/output error, 70 internal error.\n",
            app_program);
}

/* "unknown command 'rnu'", with the nearest command's name when one is near. */
static int unknown_command(const char *name)
{
    const char *names[COMMAND_COUNT];
    for (int c = 0; c < COMMAND_COUNT; ++c)
        names[c] = commands[c].name;
    const char *near = op_nearest_name(name, strlen(name), names, COMMAND_COUNT);
    char message[128];
    snprintf(message, sizeof message, near ? "unknown command '%s'; did you mean '%s'?" : "unknown command '%s'", name,
             near ? near : "");
    return app_usage_error("", "%s", message);
}

static const app_command *find_command(const char *name)
{
    for (int c = 0; c < COMMAND_COUNT; ++c)
        if (strcmp(commands[c].name, name) == 0)
            return &commands[c];
    return NULL;
}

/* The arguments joined by single spaces, as a run's provenance records them. */
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
    fprintf(stderr, "%s: %s\n", app_program, message);
}

/* Runs the command, its argv starting at its name; a command reading a run file in a child. */
static int dispatch(const app_command *command, int argc, char **argv)
{
    char *command_line = joined_command_line(argc, argv);
    if (!command_line) {
        fprintf(stderr, "%s: out of memory\n", app_program);
        return EXIT_SOFTWARE;
    }
    app_call call = { .argc = argc - 1, .argv = argv + 1, .command_line = command_line, .opsim = argv[0] };
    int status = command->reads_run_file ? app_read_run_file_guarded(command->run, &call, argc > 2 ? argv[2] : "")
                                         : command->run(&call);
    free(command_line);
    return status;
}

int main(int argc, char **argv)
{
    op_platform_init();
    op_temp_catch_signals();
    op_graph_cache_set_notice(print_notice);
    /* a graph build takes seconds; said on a terminal only, so that logs and pipes stay as they were */
    if (isatty(STDERR_FILENO))
        op_graph_cache_set_build_notice(print_notice);
    if (argc < 2) {
        print_help(stderr);
        return EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        print_help(stdout);
        return 0;
    }
    if (strcmp(name, "--version") == 0) {
        printf("%s %s (git %s)\n", app_program, OPSIM_VERSION, OPSIM_GIT_REV);
        return 0;
    }
    const app_command *command = find_command(name);
    if (!command)
        return unknown_command(name);
    if (argc == 3 && strcmp(argv[2], "--help") == 0) {
        fputs(command->usage, stdout); /* as the handler would, without a child for run files */
        return 0;
    }
    return dispatch(command, argc, argv);
}
