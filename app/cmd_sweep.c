/* opsim sweep: a grid of runs of one config, a table and a Makefile (or the runs). */
#include "app.h"

#include <getopt.h>
#include <stdlib.h>

#include <unistd.h>

#include "io/sweep.h"

static const char sweep_help[] =
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

int command_sweep(int argc, char **argv, const app_call *call)
{
    const char *command_line = call->command_line, *opsim = call->program_path;
    static const struct option options[] = { { "set", required_argument, 0, 's' },
                                              { "grid", required_argument, 0, 'g' },
                                              { "out", required_argument, 0, 'o' },
                                              { "print-make", no_argument, 0, 'p' },
                                              { "run", no_argument, 0, 'r' },
                                              { "help", no_argument, 0, 'h' },
                                              { 0, 0, 0, 0 } };
    const char **sets = calloc((size_t)argc, sizeof *sets), **grids = calloc((size_t)argc, sizeof *grids);
    const char *out = NULL;
    int set_count = 0, grid_count = 0, print_make = 0, run_here = 0, status = 0, c;
    if (!sets || !grids) {
        free(sets), free(grids);
        return EXIT_SOFTWARE;
    }
    while (status == 0 && (c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (c) {
        case 's': sets[set_count++] = optarg; break;
        case 'g': grids[grid_count++] = optarg; break;
        case 'o': out = optarg; break;
        case 'p': print_make = 1; break;
        case 'r': run_here = 1; break;
        case 'h': fputs(sweep_help, stdout); status = -1; break;
        default: status = usage_error("sweep", "%s", "unknown option");
        }
    }
    if (status == 0 && (optind != argc - 1 || !out || grid_count == 0))
        status = usage_error("sweep", "%s", "give one CONFIG.ini, at least one --grid SECTION.KEY=V1,V2,... and --out DIR");
    if (status == 0 && print_make && run_here)
        status = usage_error("sweep", "%s", "--print-make and --run exclude each other");
    if (status != 0) {
        free(sets), free(grids);
        return status < 0 ? 0 : status;
    }
    const char *config = argv[optind];
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_sweep sweep;
    if (op_sweep_init(&ctx, &sweep, config, out, set_count, sets) == OP_OK)
        for (int g = 0; g < grid_count && ctx.status == OP_OK; ++g)
            op_sweep_add_grid(&ctx, &sweep, grids[g]);
    char **overrides = NULL;
    int override_count = 0;
    if (ctx.status == OP_OK && op_sweep_overrides(&ctx, &sweep, 0, &overrides, &override_count) == OP_OK) {
        op_scene scene;
        if (op_scene_load(&ctx, config, override_count, (const char *const *)overrides, &scene) == OP_OK)
            op_scene_free(&scene);
        op_sweep_free_strings(overrides, override_count);
    }
    if (ctx.status == OP_OK && make_directory(&ctx, out) == OP_OK &&
        op_sweep_write_table(&ctx, &sweep, command_line) == OP_OK && !run_here &&
        op_sweep_write_make(&ctx, &sweep, command_line, print_make ? stdout : NULL) == OP_OK && !print_make)
        printf("%s/sweep.tsv: %ld runs; run them with: make -f %s/sweep.mk -j2\n", out, sweep.run_count, out);
    op_record_def def = op_default_record_def();
    def.progress = isatty(STDERR_FILENO) ? stderr : NULL;
    for (long r = 0; run_here && r < sweep.run_count && ctx.status == OP_OK; ++r) {
        char path[4200], *words = op_sweep_command(&ctx, &sweep, opsim, r, OP_SWEEP_WORDS);
        if (words && op_sweep_run_path(&ctx, &sweep, r, path, sizeof path) == OP_OK &&
            op_sweep_overrides(&ctx, &sweep, r, &overrides, &override_count) == OP_OK) {
            if (record_config(&ctx, config, override_count, (const char *const *)overrides, path, words, &def) ==
                OP_OK)
                printf("%s (%ld of %ld)\n", path, r + 1, sweep.run_count);
            op_sweep_free_strings(overrides, override_count);
        }
        free(words);
    }
    op_sweep_free(&sweep);
    free(sets), free(grids);
    return ctx.status == OP_OK ? 0 : report_failure(&ctx);
}
