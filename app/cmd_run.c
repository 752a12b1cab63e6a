/* opsim run: run an experiment config and record it into a run file. */
#include "app.h"

#include <getopt.h>
#include <stdlib.h>

#include <unistd.h>

static const char run_help[] =
    "usage: opsim run CONFIG.ini [--set SECTION.KEY=VALUE ...] [--no-surface] [--no-cache] --out RUN.h5\n"
    "\n"
    "Runs the experiment CONFIG (format: include/opsim/scene.h, examples in experiments/) and records it\n"
    "into RUN.h5 (layout: core/io/record.h). --set replaces or adds a key before the config is\n"
    "read, e.g. --set world.iterations=100 --set 'body bar.stiffness=2e9' --set solver.rotations=jacobi.\n"
    "The skinned surface of every body is stored at each output frame (/surface/position, 24 bytes\n"
    "per vertex and frame) unless --no-surface. Then writes the XDMF sidecar RUN.xmf beside it\n"
    "(core/io/xdmf.h): open that in ParaView. A progress line goes to stderr when it is a terminal.\n"
    "On failure no RUN.h5 is written; if only the sidecar fails, RUN.h5 stays and the exit status\n"
    "says why (`opsim xdmf RUN.h5` writes it again). The models' graphs come from the graph cache\n"
    "(data/cache/graphs, or $OPSIM_GRAPH_CACHE; \"off\" turns it off) when it holds them, else are\n"
    "built and stored there; --no-cache builds them all.\n";

int command_run(int argc, char **argv, const app_call *call)
{
    const char *command_line = call->command_line;
    static const struct option options[] = { { "set", required_argument, 0, 's' },
                                              { "out", required_argument, 0, 'o' },
                                              { "no-surface", no_argument, 0, 'n' },
                                              { "no-cache", no_argument, 0, 'C' },
                                              { "help", no_argument, 0, 'h' },
                                              { 0, 0, 0, 0 } };
    const char **overrides = calloc((size_t)argc, sizeof *overrides), *out = NULL;
    int override_count = 0, c;
    op_record_def def = op_default_record_def();
    if (!overrides)
        return EXIT_SOFTWARE;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (c) {
        case 's': overrides[override_count++] = optarg; break;
        case 'o': out = optarg; break;
        case 'n': def.store_surface = 0; break;
        case 'C': setenv("OPSIM_GRAPH_CACHE", "off", 1); break;
        case 'h': fputs(run_help, stdout); free(overrides); return 0;
        default: free(overrides); return usage_error("run", "%s", "unknown option");
        }
    }
    if (optind != argc - 1 || !out) {
        free(overrides);
        return usage_error("run", "%s", "give one CONFIG.ini and --out RUN.h5");
    }
    op_ctx ctx;
    op_ctx_init(&ctx);
    def.progress = isatty(STDERR_FILENO) ? stderr : NULL;
    record_config(&ctx, argv[optind], override_count, overrides, out, command_line, &def);
    free(overrides);
    return ctx.status == OP_OK ? 0 : report_failure(&ctx);
}
