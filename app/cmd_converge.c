/* `opsim converge`: the convergence of one sub-step (core/sim/converge.h). The config runs to
 * frame F; then a second world, loaded with the --solver keys too, takes its state and solves
 * the next sub-step N iterations, and the energy and time after each iteration go to FILE.tsv.
 *
 * usage: opsim converge CONFIG.ini [--set SECTION.KEY=VALUE ...] [--solver KEY=VALUE ...]
 *                       --frame F --iterations N [--repeats R] [--fixed-point M] --out FILE.tsv */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/timing_stats.h"
#include "commands.h"
#include "io/atomic.h"
#include "opsim/scene.h"
#include "sim/converge.h"

const char app_converge_usage[] =
    "usage: opsim converge CONFIG.ini [--set SECTION.KEY=VALUE ...] [--solver KEY=VALUE ...]\n"
    "                      --frame F --iterations N [--repeats R] [--fixed-point M] --out FILE.tsv\n"
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
    "afresh, after one untimed solve (the warm-up), and records for each k the median over the R\n"
    "of the time to the end of iteration k, with its 95 % interval and a noisy mark (the timing\n"
    "protocol, docs/timing.md; the energies of every repeat must be bitwise the first's): a\n"
    "machine that stalls a run now and then moves no median.\n"
    "\n"
    "--fixed-point M first solves the studied sub-step M iterations with the study solver from the\n"
    "same state: its own converged positions x*. Each line then carries a last column, error =\n"
    "||x_k - x*|| / ||x_0 - x*|| over every body's positions, a measure for every family (shape\n"
    "matching, springs and meshless minimise no ARAP energy), and FILE.tsv.meta says where it\n"
    "stays below 1e-2, 1e-4 and 1e-6 ('own_fields = ' iterations and ms for each, tab-separated;\n"
    "'–' never; 'x* unsettled' where x*'s last step exceeds 1/100 of the tolerance; 'single\n"
    "update' for a variant whose first iteration already gives x*, bitwise).\n"
    "\n"
    "FILE.tsv: a plain header line, then one line per k = 0 … N: k, seconds, energy (J),\n"
    "seconds_lo, seconds_hi (%.17g) and noisy (1 or 0), tab-separated (docs/results.md).\n"
    "FILE.tsv.meta: a title line, then 'key = value' lines (config, overrides, frame, h, both\n"
    "worlds' solver settings, the CPU, and per timed repeat its wall and thread CPU seconds over\n"
    "the whole sub-step). Both are written under a temporary name and renamed when complete: on\n"
    "failure neither is left.\n";

typedef struct converge_options {
    app_list overrides; /* --set */
    app_list study;     /* "solver.KEY=VALUE" of each --solver, owned */
    int frames, iterations, repeats, fixed_point; /* fixed_point 0: none */
    const char *config, *out;
} converge_options;

/* The two worlds: the run to frame F, and the studied sub-step's. */
typedef struct converge_worlds {
    op_scene scene, second;
    int loaded; /* how many of them */
} converge_worlds;

/* --solver KEY=VALUE as "solver.KEY=VALUE": -1 when taken, else the exit status. */
static int add_study_key(converge_options *o, const char *text)
{
    const char *eq = strchr(text, '=');
    if (!eq || eq == text)
        return app_usage_error("converge", "--solver needs KEY=VALUE (a [solver] key), not '%s'", text);
    size_t length = strlen(text) + sizeof "solver.";
    char *item = malloc(length);
    if (!item)
        return EXIT_SOFTWARE;
    snprintf(item, length, "solver.%s", text);
    app_list_add(&o->study, item);
    return -1;
}

/* A whole-number option in [lo, hi]: -1 when taken, else the exit status. */
static int parse_count(const char *option, const char *text, long lo, long hi, int *out)
{
    char message[96];
    if (app_parse_int(text, lo, hi, out) == 0)
        return -1;
    snprintf(message, sizeof message, "%s needs a whole number from %ld to %ld, not '%%s'", option, lo, hi);
    return app_usage_error("converge", message, text);
}

/* -1 when the options are complete, else the exit status (0 after --help). */
static int parse_converge_options(const app_call *call, converge_options *o)
{
    static const struct option options[] = { { "set", required_argument, 0, 's' },
                                              { "solver", required_argument, 0, 'v' },
                                              { "frame", required_argument, 0, 'f' },
                                              { "iterations", required_argument, 0, 'n' },
                                              { "repeats", required_argument, 0, 'r' },
                                              { "fixed-point", required_argument, 0, 'p' },
                                              { "out", required_argument, 0, 'o' },
                                              { "help", no_argument, 0, 'h' },
                                              { 0, 0, 0, 0 } };
    int c, status = -1;
    while (status < 0 && (c = getopt_long(call->argc, call->argv, "", options, NULL)) != -1) {
        switch (c) {
        case 's': app_list_add(&o->overrides, optarg); break;
        case 'v': status = add_study_key(o, optarg); break;
        case 'f': status = parse_count("--frame", optarg, 0, OP_CONVERGE_MAX_FRAMES, &o->frames); break;
        case 'n': status = parse_count("--iterations", optarg, 1, OP_CONVERGE_MAX_ITERATIONS, &o->iterations); break;
        case 'r': status = parse_count("--repeats", optarg, 1, OP_CONVERGE_MAX_REPEATS, &o->repeats); break;
        case 'p':
            status = parse_count("--fixed-point", optarg, 1, OP_CONVERGE_MAX_ITERATIONS, &o->fixed_point);
            break;
        case 'o': o->out = optarg; break;
        case 'h': fputs(app_converge_usage, stdout); status = 0; break;
        default: status = app_usage_error("converge", "%s", "unknown option");
        }
    }
    if (status < 0 && (optind != call->argc - 1 || !o->out || o->frames < 0 || o->iterations < 0))
        status = app_usage_error("converge", "%s", "give one CONFIG.ini, --frame F, --iterations N and --out FILE.tsv");
    if (status < 0)
        o->config = call->argv[optind];
    return status;
}

/* The first world with --set, the second with --set and then every --solver key. */
static int load_worlds(op_ctx *ctx, const converge_options *o, converge_worlds *worlds)
{
    app_list both;
    if (app_list_init(&both, o->overrides.count + o->study.count + 1))
        return OP_FAIL(ctx, OP_ERR_NOMEM, "%s", "out of memory");
    for (int i = 0; i < o->overrides.count; ++i)
        app_list_add(&both, o->overrides.item[i]);
    for (int i = 0; i < o->study.count; ++i)
        app_list_add(&both, o->study.item[i]);
    if (op_scene_load(ctx, o->config, o->overrides.count, o->overrides.item, &worlds->scene) == OP_OK) {
        worlds->loaded = 1;
        if (op_scene_load(ctx, o->config, both.count, both.item, &worlds->second) == OP_OK)
            worlds->loaded = 2;
    }
    app_list_free(&both);
    return ctx->status;
}

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

/* A tolerance t is measured against x* only where x* has settled well below it: its last step
 * at most t/100 (a variant still creeping after M iterations, e.g. shape matching's one-ring
 * groups, has no x* to measure 1e-6 against). */
static const double UNSETTLED = 1e-2;

/* "K\tMS" for each tolerance where error[] stays below it, "–\t–" where it never does, "x*
 * unsettled" where x* is not settled below it, "single update" in every field for a variant
 * whose first iteration gives x* */
static void write_own_fields(FILE *f, const converge_options *o, const op_converge_fixed_point *fixed,
                             const double *seconds)
{
    static const double tolerances[] = { 1e-2, 1e-4, 1e-6 };
    fprintf(f, "own_fields = ");
    for (int t = 0; t < 3; ++t) {
        int k = op_converge_reached(fixed->error, o->iterations + 1, tolerances[t]);
        if (fixed->single_update)
            fprintf(f, "%ssingle update\tsingle update", t ? "\t" : "");
        else if (fixed->last_step > UNSETTLED * tolerances[t])
            fprintf(f, "%sx* unsettled\tx* unsettled", t ? "\t" : "");
        else if (k < 0)
            fprintf(f, "%s–\t–", t ? "\t" : "");
        else
            fprintf(f, "%s%d\t%.3f", t ? "\t" : "", k, 1e3 * seconds[k]);
    }
    fprintf(f, "\n");
}

static void write_header(FILE *f, const converge_options *o, const converge_worlds *worlds, const char *command_line,
                         const op_converge_fixed_point *fixed, const double *seconds)
{
    char run_solver[2048], study_solver[2048];
    describe_solver(&worlds->scene.world, run_solver, sizeof run_solver);
    describe_solver(&worlds->second.world, study_solver, sizeof study_solver);
    const op_world *w = &worlds->second.world;
    fprintf(f, "opsim converge (opsim %s, git %s): energy of one sub-step against iteration\n", OPSIM_VERSION,
            OPSIM_GIT_REV);
    fprintf(f, "command = %s\nconfig = %s\n", command_line, o->config);
    for (int i = 0; i < o->overrides.count; ++i)
        fprintf(f, "set = %s\n", o->overrides.item[i]);
    for (int i = 0; i < o->study.count; ++i)
        fprintf(f, "study set = %s\n", o->study.item[i]);
    fprintf(f, "frame = %d (frames run before the studied sub-step, sub-step %ld of the run)\n", o->frames,
            w->substep + 1);
    fprintf(f, "h = %.17g s (frame_time %.17g / substeps %d), time at its start = %.17g s\n",
            w->def.frame_time / w->def.substeps, w->def.frame_time, w->def.substeps, w->time);
    fprintf(f, "iterations = %d\nrepeats = %d\nrun solver = %s\nstudy solver = %s\n", o->iterations,
            o->repeats, run_solver, study_solver);
    char cpu[128];
    fprintf(f, "cpu = %s\n", op_cpu_model(cpu, sizeof cpu));
    if (fixed) {
        fprintf(f, "fixed point = %d iterations of the study solver from the same state (x*); error = "
                   "||x_k - x*|| / ||x_0 - x*|| over every body's positions\n",
                fixed->iterations);
        fprintf(f, "fixed point last step = %.3e (||x_M - x_(M-1)|| / ||x_0 - x*||)\n", fixed->last_step);
        write_own_fields(f, o, fixed, seconds);
    }
}

/* PATH (FILE.tsv.meta), the run's provenance as "key = value" lines (docs/results.md), written
 * whole. */
static int write_meta(op_ctx *ctx, const char *path, const converge_options *o, const converge_worlds *worlds,
                      const char *command_line, const double *seconds, const op_converge_spread *spread,
                      const op_converge_fixed_point *fixed)
{
    op_atomic_file file;
    if (op_atomic_open(ctx, &file, path) != OP_OK)
        return ctx->status;
    write_header(file.file, o, worlds, command_line, fixed, seconds);
    for (int r = 0; r < o->repeats; ++r)
        fprintf(file.file, "repeat %d = wall %.6f s, thread cpu %.6f s\n", r + 1, spread->wall[r], spread->cpu[r]);
    return op_atomic_commit(ctx, &file);
}

/* FILE.tsv, one plain header line then one row per iteration, under a temporary name renamed
 * when complete; its provenance goes to FILE.tsv.meta first, removed again if the table fails. */
static int write_table(op_ctx *ctx, const converge_options *o, const converge_worlds *worlds,
                       const char *command_line, const double *seconds, const double *energy,
                       const op_converge_spread *spread, const op_converge_fixed_point *fixed)
{
    char meta[4096];
    if (snprintf(meta, sizeof meta, "%s.meta", o->out) >= (int)sizeof meta)
        return OP_FAIL(ctx, OP_ERR_USAGE, "--out %s: the path is too long", o->out);
    if (write_meta(ctx, meta, o, worlds, command_line, seconds, spread, fixed) != OP_OK)
        return ctx->status;
    op_atomic_file file;
    if (op_atomic_open(ctx, &file, o->out) != OP_OK) {
        remove(meta);
        return ctx->status;
    }
    fprintf(file.file, "k\tseconds\tenergy\tseconds_lo\tseconds_hi\tnoisy%s\n", fixed ? "\terror" : "");
    for (int k = 0; k <= o->iterations; ++k) {
        fprintf(file.file, "%d\t%.17g\t%.17g\t%.17g\t%.17g\t%d", k, seconds[k], energy[k], spread->lo[k], spread->hi[k],
                spread->noisy[k]);
        if (fixed)
            fprintf(file.file, "\t%.17g", fixed->error[k]);
        fprintf(file.file, "\n");
    }
    if (op_atomic_commit(ctx, &file) != OP_OK)
        remove(meta);
    return ctx->status;
}

static int converge(op_ctx *ctx, const converge_options *o, converge_worlds *worlds, const char *command_line)
{
    load_worlds(ctx, o, worlds);
    double *seconds = op_calloc(ctx, (size_t)o->iterations + 1, sizeof(double));
    double *energy = op_calloc(ctx, (size_t)o->iterations + 1, sizeof(double));
    op_converge_fixed_point fixed = { .iterations = o->fixed_point };
    if (o->fixed_point > 0)
        fixed.error = op_calloc(ctx, (size_t)o->iterations + 1, sizeof(double));
    op_converge_fixed_point *own = o->fixed_point > 0 ? &fixed : NULL;
    size_t n = (size_t)o->iterations + 1, r = (size_t)o->repeats;
    op_converge_spread spread = { .lo = op_calloc(ctx, n, sizeof(double)),
                                  .hi = op_calloc(ctx, n, sizeof(double)),
                                  .noisy = op_calloc(ctx, n, sizeof(int)),
                                  .wall = op_calloc(ctx, r, sizeof(double)),
                                  .cpu = op_calloc(ctx, r, sizeof(double)) };
    if (ctx->status == OP_OK &&
        op_converge_study(ctx, &worlds->scene, &worlds->second, o->frames, o->iterations, o->repeats, seconds, energy,
                          &spread, own) == OP_OK)
        write_table(ctx, o, worlds, command_line, seconds, energy, &spread, own);
    free(spread.lo);
    free(spread.hi);
    free(spread.noisy);
    free(spread.wall);
    free(spread.cpu);
    free(seconds);
    free(energy);
    free(fixed.error);
    return ctx->status;
}

int app_converge(const app_call *call)
{
    converge_options o = { .frames = -1, .iterations = -1, .repeats = 1 };
    int status = app_list_init(&o.overrides, call->argc + 1) || app_list_init(&o.study, call->argc + 1)
                     ? EXIT_SOFTWARE
                     : parse_converge_options(call, &o);
    if (status < 0) {
        op_ctx ctx;
        op_ctx_init(&ctx);
        converge_worlds worlds = { .loaded = 0 };
        converge(&ctx, &o, &worlds, call->command_line);
        status = app_exit_status(&ctx);
        if (worlds.loaded >= 1)
            op_scene_free(&worlds.scene);
        if (worlds.loaded >= 2)
            op_scene_free(&worlds.second);
    }
    for (int i = 0; i < o.study.count; ++i)
        free((char *)o.study.item[i]);
    app_list_free(&o.overrides);
    app_list_free(&o.study);
    return status;
}
