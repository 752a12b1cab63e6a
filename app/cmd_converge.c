/* opsim converge: energy against iteration and time for one sub-step. */
#include "app.h"

#include <getopt.h>
#include <stdlib.h>

#include "io/atomic.h"
#include "sim/converge.h"
#include "base/math3.h"

static const char converge_help[] =
    "usage: opsim converge CONFIG.ini [--set SECTION.KEY=VALUE ...] [--solver KEY=VALUE ...]\n"
    "                      --frame F --iterations N [--repeats R] --out FILE.tsv\n"
    "\n"
    "The convergence of one sub-step (core/sim/converge.h): runs CONFIG (with --set) to the end of\n"
    "frame F (0: from the initial state), each frame as configured, with energy logging off; then\n"
    "begins the next sub-step and runs N iterations of it, recording before the first and after\n"
    "each iteration k the energy E summed over the bodies (h = frame_time / substeps) and the\n"
    "wall-clock seconds spent in the k iterations (each iteration timed on its own, Chebyshev\n"
    "extrapolation included; energy evaluations and the sub-step's refactoring excluded).\n"
    "\n"
    "--solver KEY=VALUE sets a [solver] key for the studied sub-step only (e.g. --solver\n"
    "rotations=jacobi --solver chebyshev=on --solver chebyshev_rho=0.97): the frames before it run\n"
    "the configured solver, so every variant starts from the same state and has the same minimum.\n"
    "The sub-step runs in a second world loaded from the config (with --set and --solver) that\n"
    "takes the first world's state; its solver states are made afresh on that state. Runs are\n"
    "deterministic: the energies of two runs are bitwise equal.\n"
    "\n"
    "--repeats R solves the studied sub-step R times (1), each from the first world's state taken\n"
    "afresh, and records each iteration's median time over the R (the energies of every repeat\n"
    "must be bitwise the first's): a machine that stalls a run now and then moves no median.\n"
    "\n"
    "FILE.tsv: '#' header lines (config, overrides, frame, h, both worlds' solver settings),\n"
    "then one line per k = 0 … N: k, seconds, energy (J), tab-separated, %.17g. It is written\n"
    "under a temporary name and renamed when complete: on failure no FILE.tsv is left.\n";

/* "name key=value ..." of a world's solver settings (defaults filled in). */
static void describe_solver(const op_world *w, char *text, size_t size)
{
    snprintf(text, size, "%s", w->solver->name);
    for (int i = 0; i < w->solver_settings.count; ++i) {
        size_t used = strlen(text);
        if (used + 1 < size)
            snprintf(text + used, size - used, " %s=%s", w->solver_settings.key[i], w->solver_settings.value[i]);
    }
}

int command_converge(int argc, char **argv, const app_call *call)
{
    const char *command_line = call->command_line;
    static const struct option options[] = { { "set", required_argument, 0, 's' },
                                              { "solver", required_argument, 0, 'v' },
                                              { "frame", required_argument, 0, 'f' },
                                              { "iterations", required_argument, 0, 'n' },
                                              { "repeats", required_argument, 0, 'r' },
                                              { "out", required_argument, 0, 'o' },
                                              { "help", no_argument, 0, 'h' },
                                              { 0, 0, 0, 0 } };
    /* study = the --set overrides, then "solver.KEY=VALUE" of each --solver */
    const char **overrides = calloc((size_t)argc + 1, sizeof *overrides);
    const char **study = calloc((size_t)argc + 1, sizeof *study);
    char **owned = calloc((size_t)argc + 1, sizeof *owned);
    const char *out = NULL;
    int override_count = 0, study_only = 0, frames = -1, iterations = -1, repeats = 1, c, status = 0;
    if (!overrides || !study || !owned) {
        free(overrides), free(study), free(owned);
        return EXIT_SOFTWARE;
    }
    while (status == 0 && (c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (c) {
        case 's': overrides[override_count++] = optarg; break;
        case 'v': {
            const char *eq = strchr(optarg, '=');
            if (!eq || eq == optarg) {
                status = usage_error("converge", "--solver needs KEY=VALUE (a [solver] key), not '%s'", optarg);
                break;
            }
            size_t length = strlen(optarg) + sizeof "solver.";
            char *item = malloc(length);
            if (!item) {
                status = EXIT_SOFTWARE;
                break;
            }
            snprintf(item, length, "solver.%s", optarg);
            owned[study_only++] = item;
            break;
        }
        case 'f':
            if (parse_int(optarg, 0, OP_CONVERGE_MAX_FRAMES, &frames))
                status = usage_error("converge", "--frame needs a whole number from 0 to 1000000, not '%s'", optarg);
            break;
        case 'n':
            if (parse_int(optarg, 1, OP_CONVERGE_MAX_ITERATIONS, &iterations))
                status = usage_error("converge", "--iterations needs a whole number from 1 to 10000000, not '%s'",
                                     optarg);
            break;
        case 'r':
            if (parse_int(optarg, 1, OP_CONVERGE_MAX_REPEATS, &repeats))
                status = usage_error("converge", "--repeats needs a whole number from 1 to 1000, not '%s'", optarg);
            break;
        case 'o': out = optarg; break;
        case 'h': fputs(converge_help, stdout); status = -1; break;
        default: status = usage_error("converge", "%s", "unknown option");
        }
    }
    if (status == 0 && (optind != argc - 1 || !out || frames < 0 || iterations < 0))
        status = usage_error("converge", "%s", "give one CONFIG.ini, --frame F, --iterations N and --out FILE.tsv");
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_scene scene, second;
    int loaded = 0;
    double *seconds = NULL, *energy = NULL;
    if (status == 0) {
        const char *config = argv[optind];
        for (int i = 0; i < override_count; ++i)
            study[i] = overrides[i];
        for (int i = 0; i < study_only; ++i)
            study[override_count + i] = owned[i];
        if (op_scene_load(&ctx, config, override_count, overrides, &scene) == OP_OK) {
            loaded = 1;
            if (op_scene_load(&ctx, config, override_count + study_only, study, &second) == OP_OK)
                loaded = 2;
        }
        seconds = op_calloc(&ctx, (size_t)iterations + 1, sizeof(double));
        energy = op_calloc(&ctx, (size_t)iterations + 1, sizeof(double));
        if (ctx.status == OP_OK)
            op_converge_repeated(&ctx, &scene, &second, frames, iterations, repeats, seconds, energy);
        op_atomic_file file;
        if (ctx.status == OP_OK && op_atomic_open(&ctx, &file, out) == OP_OK) {
            char run_solver[2048], study_solver[2048];
            describe_solver(&scene.world, run_solver, sizeof run_solver);
            describe_solver(&second.world, study_solver, sizeof study_solver);
            const op_world *w = &second.world;
            FILE *f = file.file;
            fprintf(f, "# opsim converge (opsim %s, git %s): energy of one sub-step against iteration\n",
                    OPSIM_VERSION, OPSIM_GIT_REV);
            fprintf(f, "# command = %s\n# config = %s\n", command_line, config);
            for (int i = 0; i < override_count; ++i)
                fprintf(f, "# set = %s\n", overrides[i]);
            for (int i = 0; i < study_only; ++i)
                fprintf(f, "# study set = %s\n", owned[i]);
            fprintf(f, "# frame = %d (frames run before the studied sub-step, sub-step %ld of the run)\n", frames,
                    w->substep + 1);
            fprintf(f, "# h = %.17g s (frame_time %.17g / substeps %d), time at its start = %.17g s\n",
                    w->def.frame_time / w->def.substeps, w->def.frame_time, w->def.substeps, w->time);
            fprintf(f, "# iterations = %d\n# repeats = %d\n# run solver = %s\n# study solver = %s\n", iterations,
                    repeats, run_solver, study_solver);
            fprintf(f, "# k\tseconds\tenergy\n");
            for (int k = 0; k <= iterations; ++k)
                fprintf(f, "%d\t%.17g\t%.17g\n", k, seconds[k], energy[k]);
            op_atomic_commit(&ctx, &file);
        }
        if (ctx.status != OP_OK)
            status = report_failure(&ctx);
    }
    if (loaded >= 1)
        op_scene_free(&scene);
    if (loaded >= 2)
        op_scene_free(&second);
    for (int i = 0; i < study_only; ++i)
        free(owned[i]);
    free(owned), free(overrides), free(study), free(seconds), free(energy);
    return status < 0 ? 0 : status;
}
