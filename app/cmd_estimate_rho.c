/* `opsim estimate-rho`: the spectral radius rho of a scene's plain iteration, for Chebyshev
 * acceleration (solvers/accel/chebyshev.h): the config run with chebyshev off to frame F, then
 * N plain iterations of the next sub-step probed (op_world_probe_substep), and the median ratio
 * of successive changes printed as [solver] lines ready to paste (or written with --out).
 *
 * usage: opsim estimate-rho CONFIG.ini [--set SECTION.KEY=VALUE ...] [--frame F] [--iterations N]
 *                           [--out FILE] */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel/chebyshev.h"
#include "commands.h"
#include "io/atomic.h"
#include "opsim/scene.h"
#include "opsim/solver.h"

const char app_estimate_rho_usage[] =
    "usage: opsim estimate-rho CONFIG.ini [--set SECTION.KEY=VALUE ...] [--frame F] [--iterations N]\n"
    "                          [--out FILE]\n"
    "\n"
    "Estimates the spectral radius rho of the scene's plain iteration for Chebyshev acceleration\n"
    "(solvers/accel/chebyshev.h). Runs CONFIG with chebyshev and anderson forced off to the end\n"
    "of frame F (default 10; 0: from the initial state), each frame as the config says, then N\n"
    "plain iterations (default 200) of the next sub-step. With d_k = |x^{k+1} - x^k| (all particle\n"
    "centres of all bodies, one Euclidean norm), the estimate is the median of the ratios\n"
    "d_k / d_{k-1} over the last half of the iterations (k >= N/2), leaving out ratios whose d_{k-1}\n"
    "is at rounding level. The median rather than a mean: a few ratios near a rotation flip or at\n"
    "rounding level do not move it.\n"
    "Prints 'chebyshev_rho = ...' and 'chebyshev_rho_source = ...' lines ready for a [solver]\n"
    "section (or --set solver.KEY=VALUE); --out FILE writes them as an INI snippet.\n";

typedef struct rho_options {
    app_list overrides; /* the --set ones, then chebyshev off */
    int user_overrides; /* how many came from --set */
    int frames, iterations;
    const char *config, *out;
} rho_options;

/* -1 when the options are complete, else the exit status (0 after --help). */
static int parse_rho_options(const app_call *call, rho_options *o)
{
    static const struct option options[] = { { "set", required_argument, 0, 's' },
                                              { "frame", required_argument, 0, 'f' },
                                              { "iterations", required_argument, 0, 'n' },
                                              { "out", required_argument, 0, 'o' },
                                              { "help", no_argument, 0, 'h' },
                                              { 0, 0, 0, 0 } };
    int c;
    while ((c = getopt_long(call->argc, call->argv, "", options, NULL)) != -1) {
        switch (c) {
        case 's': app_list_add(&o->overrides, optarg); break;
        case 'f':
            if (app_parse_int(optarg, 0, 1000000, &o->frames))
                return app_usage_error("estimate-rho", "--frame needs a whole number from 0 to 1000000, not '%s'",
                                       optarg);
            break;
        case 'n':
            if (app_parse_int(optarg, 4, 1000000, &o->iterations))
                return app_usage_error("estimate-rho",
                                       "--iterations needs a whole number from 4 to 1000000, not '%s'", optarg);
            break;
        case 'o': o->out = optarg; break;
        case 'h': fputs(app_estimate_rho_usage, stdout); return 0;
        default: return app_usage_error("estimate-rho", "%s", "unknown option");
        }
    }
    if (optind != call->argc - 1)
        return app_usage_error("estimate-rho", "%s", "give one CONFIG.ini");
    o->config = call->argv[optind];
    o->user_overrides = o->overrides.count;
    /* last: they win over the config and --set; the plain iteration is what is probed */
    app_list_add(&o->overrides, "solver.chebyshev=off");
    app_list_add(&o->overrides, "solver.anderson=off");
    return -1;
}

/* The frames run, then the probed sub-step's changes |x^{k+1} - x^k| and their median ratio. */
static int probe_rho(op_ctx *ctx, op_world *w, const rho_options *o, double *change, op_rho_estimate *e)
{
    op_frame_stats stats = { 0 };
    double scale = 0.0;
    w->def.log_energy = 0;
    for (int f = 0; f < o->frames && ctx->status == OP_OK; ++f)
        op_world_step(ctx, w, &stats);
    if (ctx->status == OP_OK && op_world_probe_substep(ctx, w, o->iterations, change, &scale) == OP_OK)
        op_chebyshev_estimate_rho(ctx, change, o->iterations, 1e-13 * scale, e);
    return ctx->status;
}

/* chebyshev_rho_source: the config, the solver with every option's value, and how rho was
 * estimated; " +N --set" in `sets` when --set was given. */
static void rho_source(const op_world *w, const rho_options *o, const op_rho_estimate *e, const char *sets,
                       char *source, size_t size)
{
    char variant[160] = "";
    snprintf(variant, sizeof variant, "%s", w->solver->name);
    for (const op_solver_option *option = w->solver->options; option->key; ++option) {
        const char *value = op_solver_setting(&w->solver_settings, option->key);
        size_t used = strlen(variant);
        snprintf(variant + used, sizeof variant - used, " %s=%s", option->key, value ? value : "");
    }
    const char *base = strrchr(o->config, '/');
    base = base ? base + 1 : o->config;
    if (snprintf(source, size,
                 "estimate-rho %s%s (%s) frame %d: median of %d ratios |dx_k|/|dx_k-1|, k %d-%d of %d plain", base,
                 sets, variant, o->frames, e->used, e->first, e->last, o->iterations) >= (int)size)
        memcpy(source + size - 4, "...", 4); /* only recorded as text: shortened visibly */
}

static void print_rho(const op_world *w, const rho_options *o, const op_rho_estimate *e, const double *change,
                      const char *sets, const char *source)
{
    double h = w->def.frame_time / w->def.substeps;
    printf("# %s%s, frame %d, then %d plain iterations of the next sub-step (h = %.6g s)\n", o->config, sets,
           o->frames, o->iterations, h);
    printf("# ratios |x^{k+1}-x^k| / |x^k-x^{k-1}| for k = %d..%d: %d used, min %.6f, quartiles %.6f %.6f %.6f, "
           "max %.6f\n",
           e->first, e->last, e->used, e->min, e->lower_quartile, e->median, e->upper_quartile, e->max);
    printf("# |dx| at iteration %d: %.3e m, at iteration %d: %.3e m\n", e->first, change[e->first], e->last,
           change[e->last]);
    printf("chebyshev_rho = %.6f\nchebyshev_rho_source = %s\n", e->rho, source);
    printf("# use: --set solver.chebyshev=on --set solver.chebyshev_rho=%.6f --set 'solver.chebyshev_rho_source=%s'\n",
           e->rho, source);
}

/* --out FILE: the [solver] lines as an INI snippet, written whole or not at all (core/io/atomic.h). */
static int write_snippet(op_ctx *ctx, const rho_options *o, double rho, const char *source)
{
    op_atomic_file file;
    if (op_atomic_open(ctx, &file, o->out) != OP_OK)
        return ctx->status;
    fprintf(file.file, "; opsim estimate-rho %s: paste into the [solver] section\n[solver]\nchebyshev = on\n"
                       "chebyshev_rho = %.6f\nchebyshev_rho_source = %s\n",
            o->config, rho, source);
    if (op_atomic_commit(ctx, &file) != OP_OK)
        return ctx->status;
    return OP_OK;
}

static int estimate(op_ctx *ctx, op_scene *scene, const rho_options *o)
{
    op_world *w = &scene->world;
    double *change = op_calloc(ctx, (size_t)o->iterations, sizeof(double));
    op_rho_estimate e;
    if (probe_rho(ctx, w, o, change, &e) == OP_OK) {
        char sets[32] = "", source[256];
        if (o->user_overrides)
            snprintf(sets, sizeof sets, " +%d --set", o->user_overrides);
        rho_source(w, o, &e, sets, source, sizeof source);
        print_rho(w, o, &e, change, sets, source);
        if (o->out)
            write_snippet(ctx, o, e.rho, source);
    }
    free(change);
    return ctx->status;
}

int app_estimate_rho(const app_call *call)
{
    rho_options o = { .frames = 10, .iterations = 200 };
    if (app_list_init(&o.overrides, call->argc + 1))
        return EXIT_SOFTWARE;
    int status = parse_rho_options(call, &o);
    if (status >= 0) {
        app_list_free(&o.overrides);
        return status;
    }
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_scene scene;
    int loaded = op_scene_load(&ctx, o.config, o.overrides.count, o.overrides.item, &scene) == OP_OK;
    app_list_free(&o.overrides);
    if (!loaded)
        return app_report_failure(&ctx);
    estimate(&ctx, &scene, &o);
    op_scene_free(&scene);
    return app_exit_status(&ctx);
}
