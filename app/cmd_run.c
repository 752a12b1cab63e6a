/* `opsim run`: one experiment config (include/opsim/scene.h, examples in experiments/) with its
 * --set overrides, recorded into a run file (core/io/record.h), then its XDMF sidecar beside it
 * (core/io/xdmf.h). app_record_config is the step `opsim sweep --run` repeats.
 *
 * usage: opsim run CONFIG.ini [--set SECTION.KEY=VALUE ...] [--no-surface] [--no-cache] [--allow-concurrent]
 *                  --out RUN.h5 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include <unistd.h>

#include "commands.h"
#include "io/xdmf.h"
#include "opsim/scene.h"

const char app_run_usage[] =
    "usage: opsim run CONFIG.ini [--set SECTION.KEY=VALUE ...] [--no-surface] [--no-cache] [--allow-concurrent] --out RUN.h5\n"
    "\n"
    "Runs the experiment CONFIG (format: include/opsim/scene.h, examples in experiments/) and records it\n"
    "into RUN.h5 (layout: core/io/record.h). --set replaces or adds a key before the config is\n"
    "read, e.g. --set world.iterations=100 --set 'body bar.stiffness=2e9' --set solver.rotations=jacobi.\n"
    "The skinned surface of every body is stored at each output frame (/surface/position, 24 bytes\n"
    "per vertex and frame) unless --no-surface. Then writes the XDMF sidecar RUN.xmf beside it\n"
    "(core/io/xdmf.h; its frames mapped by RUN.views.h5): open that in ParaView. When stderr is a\n"
    "terminal, a line goes there before each graph that is built rather than loaded from the cache\n"
    "(seconds each), a progress line (frame, ms per frame, time elapsed and left), and a last line\n"
    "naming every file written. The run file and sidecar are published together (the previous\n"
    "RUN.xmf removed first); another process writing the same RUN.h5 is refused (RUN.h5.lock;\n"
    "--allow-concurrent lets the last to finish win).\n"
    "On failure no RUN.h5 is written; if only the sidecar fails, RUN.h5 stays and the exit status\n"
    "says why (`opsim xdmf RUN.h5` writes it again). The models' graphs come from the graph cache\n"
    "(cache/graphs beside the catalogue, or $OPSIM_GRAPH_CACHE; \"off\" turns it off) when it holds them, else are\n"
    "built and stored there; --no-cache builds them all.\n";

/* The last line on a terminal: every file the run published, the run file and its sidecars. */
static void print_written(op_ctx *ctx, FILE *out, const char *run, int frames, int bodies)
{
    char xmf[4200], views[4200];
    if (op_xdmf_path(ctx, run, xmf, sizeof xmf) != OP_OK || op_xdmf_views_path(ctx, run, views, sizeof views) != OP_OK)
        return;
    fprintf(out, "wrote %s (%d frame%s, %d bod%s), %s (open it in ParaView) and %s\n", run, frames,
            frames == 1 ? "" : "s", bodies, bodies == 1 ? "y" : "ies", xmf, views);
}

int app_record_config(op_ctx *ctx, const char *config, const app_list *overrides, const char *out,
                      const char *command_line, const op_record_def *def)
{
    op_scene scene;
    if (op_scene_load(ctx, config, overrides->count, overrides->item, &scene) != OP_OK)
        return ctx->status;
    op_provenance prov = { .command_line = command_line, .config_text = scene.config_text, .seed = 0 };
    op_runfile_companion sidecar;
    op_record_def with_sidecar = *def;
    with_sidecar.companion = &sidecar;
    if (op_xdmf_companion(ctx, out, &sidecar) == OP_OK &&
        op_record_run_def(ctx, &scene, out, &prov, &with_sidecar) == OP_OK && def->progress)
        print_written(ctx, def->progress, out, scene.run.frames, scene.world.body_count);
    op_scene_free(&scene);
    return ctx->status;
}

/* -1 when the options are complete, else the exit status (0 after --help). */
static int parse_run_options(const app_call *call, app_list *overrides, const char **out, op_record_def *def)
{
    static const struct option options[] = { { "set", required_argument, 0, 's' },
                                              { "out", required_argument, 0, 'o' },
                                              { "no-surface", no_argument, 0, 'n' },
                                              { "no-cache", no_argument, 0, 'C' },
                                              { "allow-concurrent", no_argument, 0, 'A' },
                                              { "help", no_argument, 0, 'h' },
                                              { 0, 0, 0, 0 } };
    int c;
    while ((c = getopt_long(call->argc, call->argv, "", options, NULL)) != -1) {
        switch (c) {
        case 's': app_list_add(overrides, optarg); break;
        case 'o': *out = optarg; break;
        case 'n': def->store_surface = 0; break;
        case 'C': setenv("OPSIM_GRAPH_CACHE", "off", 1); break;
        case 'A': setenv("OPSIM_ALLOW_CONCURRENT_WRITERS", "1", 1); break;
        case 'h': fputs(app_run_usage, stdout); return 0;
        default: return app_usage_error("run", "%s", "unknown option");
        }
    }
    if (optind != call->argc - 1 || !*out)
        return app_usage_error("run", "%s", "give one CONFIG.ini and --out RUN.h5");
    return -1;
}

int app_run(const app_call *call)
{
    app_list overrides;
    const char *out = NULL;
    op_record_def def = op_default_record_def();
    if (app_list_init(&overrides, call->argc))
        return EXIT_SOFTWARE;
    int status = parse_run_options(call, &overrides, &out, &def);
    if (status < 0) {
        op_ctx ctx;
        op_ctx_init(&ctx);
        def.progress = isatty(STDERR_FILENO) ? stderr : NULL;
        app_record_config(&ctx, call->argv[optind], &overrides, out, call->command_line, &def);
        status = app_exit_status(&ctx);
    }
    app_list_free(&overrides);
    return status;
}
