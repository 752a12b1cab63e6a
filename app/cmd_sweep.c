/* `opsim sweep`: a parameter sweep of one config (core/io/sweep.h). One run per combination of
 * the grids' values, listed in DIR/sweep.tsv, with DIR/sweep.mk to run them under make, or run
 * here one after the other (--run) through app_record_config.
 *
 * usage: opsim sweep CONFIG.ini [--set SECTION.KEY=VALUE ...] --grid SECTION.KEY=V1,V2,...
 *                    [--grid ...] --out DIR [--print-make | --run] */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include <unistd.h>

#include "commands.h"
#include "io/sweep.h"
#include "opsim/scene.h"

const char app_sweep_usage[] =
    "usage: opsim sweep CONFIG.ini [--set SECTION.KEY=VALUE ...] --grid SECTION.KEY=V1,V2,...\n"
    "                   [--grid ...] --out DIR [--print-make | --run]\n"
    "\n"
    "A parameter sweep (core/io/sweep.h): one run of CONFIG per combination of the grids' values\n"
    "(the Cartesian product; the first grid varies slowest), each with the --set overrides and\n"
    "one --set per grid, recorded into DIR/run-NNN.h5 (and its sidecar DIR/run-NNN.xmf). The\n"
    "first combination's config is loaded at once, so a misspelt key fails here. DIR is made if\n"
    "missing. Writes DIR/sweep.tsv: one line per run, its run file and each grid's value, after\n"
    "'#' lines naming the config, the --set overrides and the grid keys. Then:\n"
    "  (default)     writes DIR/sweep.mk, one make rule per run: make -f DIR/sweep.mk -j2 runs\n"
    "                them two at a time (from the project root; OPSIM=... for another binary)\n"
    "  --print-make  the same, and prints the fragment\n"
    "  --run         runs them here, one after the other, instead of writing DIR/sweep.mk\n"
    "On a Slurm cluster tools/sweep-slurm.sh runs line $SLURM_ARRAY_TASK_ID of DIR/sweep.tsv;\n"
    "plots/overlay.gp draws one observable of every run (sweep='DIR/sweep.tsv').\n"
    "Example: opsim sweep experiments/fig2.ini --set run.frames=90 --grid world.iterations=10,100 \\\n"
    "             --grid 'body bar_k.stiffness=5e8,1e9' --out sweep\n";

typedef struct sweep_options {
    app_list sets, grids;
    const char *config, *out;
    int print_make, run_here;
} sweep_options;

/* -1 when the options are complete, else the exit status (0 after --help). */
static int parse_sweep_options(const app_call *call, sweep_options *o)
{
    static const struct option options[] = { { "set", required_argument, 0, 's' },
                                              { "grid", required_argument, 0, 'g' },
                                              { "out", required_argument, 0, 'o' },
                                              { "print-make", no_argument, 0, 'p' },
                                              { "run", no_argument, 0, 'r' },
                                              { "help", no_argument, 0, 'h' },
                                              { 0, 0, 0, 0 } };
    int c;
    while ((c = getopt_long(call->argc, call->argv, "", options, NULL)) != -1) {
        switch (c) {
        case 's': app_list_add(&o->sets, optarg); break;
        case 'g': app_list_add(&o->grids, optarg); break;
        case 'o': o->out = optarg; break;
        case 'p': o->print_make = 1; break;
        case 'r': o->run_here = 1; break;
        case 'h': fputs(app_sweep_usage, stdout); return 0;
        default: return app_usage_error("sweep", "%s", "unknown option");
        }
    }
    if (optind != call->argc - 1 || !o->out || o->grids.count == 0)
        return app_usage_error("sweep", "%s",
                               "give one CONFIG.ini, at least one --grid SECTION.KEY=V1,V2,... and --out DIR");
    if (o->print_make && o->run_here)
        return app_usage_error("sweep", "%s", "--print-make and --run exclude each other");
    o->config = call->argv[optind];
    return -1;
}

/* The sweep's grids, and its first combination's config loaded so that a misspelt key fails
 * before anything is written. */
static int prepare_sweep(op_ctx *ctx, const sweep_options *o, op_sweep *sweep)
{
    if (op_sweep_init(ctx, sweep, o->config, o->out, o->sets.count, o->sets.item) == OP_OK)
        for (int g = 0; g < o->grids.count && ctx->status == OP_OK; ++g)
            op_sweep_add_grid(ctx, sweep, o->grids.item[g]);
    char **overrides = NULL;
    int override_count = 0;
    if (ctx->status == OP_OK && op_sweep_overrides(ctx, sweep, 0, &overrides, &override_count) == OP_OK) {
        op_scene scene;
        if (op_scene_load(ctx, o->config, override_count, (const char *const *)overrides, &scene) == OP_OK)
            op_scene_free(&scene);
        op_sweep_free_strings(overrides, override_count);
    }
    return ctx->status;
}

/* DIR/sweep.tsv, and unless --run DIR/sweep.mk (printed too with --print-make). */
static int write_sweep(op_ctx *ctx, const sweep_options *o, const op_sweep *sweep, const char *command_line)
{
    if (app_make_directory(ctx, o->out) == OP_OK && op_sweep_write_table(ctx, sweep, command_line) == OP_OK &&
        !o->run_here && op_sweep_write_make(ctx, sweep, command_line, o->print_make ? stdout : NULL) == OP_OK &&
        !o->print_make)
        printf("%s/sweep.tsv: %ld runs; run them with: make -f %s/sweep.mk -j2\n", o->out, sweep->run_count,
               o->out);
    return ctx->status;
}

/* --run: each run recorded here, its provenance the command that would have run it alone. */
static int run_sweep_here(op_ctx *ctx, const sweep_options *o, const op_sweep *sweep, const char *opsim)
{
    op_record_def def = op_default_record_def();
    def.progress = isatty(STDERR_FILENO) ? stderr : NULL;
    for (long r = 0; r < sweep->run_count && ctx->status == OP_OK; ++r) {
        char path[4200], **overrides = NULL, *words = op_sweep_command(ctx, sweep, opsim, r, OP_SWEEP_WORDS);
        int override_count = 0;
        if (words && op_sweep_run_path(ctx, sweep, r, path, sizeof path) == OP_OK &&
            op_sweep_overrides(ctx, sweep, r, &overrides, &override_count) == OP_OK) {
            app_list list = { .item = (const char **)overrides, .count = override_count };
            if (app_record_config(ctx, o->config, &list, path, words, &def) == OP_OK)
                printf("%s (%ld of %ld)\n", path, r + 1, sweep->run_count);
            op_sweep_free_strings(overrides, override_count);
        }
        free(words);
    }
    return ctx->status;
}

int app_sweep(const app_call *call)
{
    sweep_options o = { 0 };
    int status = app_list_init(&o.sets, call->argc) || app_list_init(&o.grids, call->argc)
                     ? EXIT_SOFTWARE
                     : parse_sweep_options(call, &o);
    if (status < 0) {
        op_ctx ctx;
        op_ctx_init(&ctx);
        op_sweep sweep;
        if (prepare_sweep(&ctx, &o, &sweep) == OP_OK && write_sweep(&ctx, &o, &sweep, call->command_line) == OP_OK &&
            o.run_here)
            run_sweep_here(&ctx, &o, &sweep, call->opsim);
        op_sweep_free(&sweep);
        status = app_exit_status(&ctx);
    }
    app_list_free(&o.sets);
    app_list_free(&o.grids);
    return status;
}
