/* opsim estimate-rho: estimate the spectral radius rho for Chebyshev acceleration. */
#include "app.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>

#include "base/math3.h"

static const char estimate_rho_help[] =
    "usage: opsim estimate-rho CONFIG.ini [--set SECTION.KEY=VALUE ...] [--frame F] [--iterations N]\n"
    "                          [--out FILE]\n"
    "\n"
    "Estimates the spectral radius rho of the scene's plain iteration for Chebyshev acceleration\n"
    "(solvers/accel/chebyshev.h). Runs CONFIG with chebyshev forced off to the end of frame F (default 10;\n"
    "0: from the initial state), each frame as the config says, then N plain iterations (default\n"
    "200) of the next sub-step. With d_k = |x^{k+1} - x^k| (all particle centres of all bodies, one\n"
    "Euclidean norm), the estimate is the median of the ratios d_k / d_{k-1} over the last half of\n"
    "the iterations (k >= N/2), leaving out ratios whose d_{k-1} is at rounding level. The median\n"
    "rather than a mean: a few ratios near a rotation flip or at rounding level do not move it.\n"
    "Prints 'chebyshev_rho = ...' and 'chebyshev_rho_source = ...' lines ready for a [solver]\n"
    "section (or --set solver.KEY=VALUE); --out FILE writes them as an INI snippet.\n";

int command_estimate_rho(int argc, char **argv, const app_call *call)
{
    (void)call;
    static const struct option options[] = { { "set", required_argument, 0, 's' },
                                              { "frame", required_argument, 0, 'f' },
                                              { "iterations", required_argument, 0, 'n' },
                                              { "out", required_argument, 0, 'o' },
                                              { "help", no_argument, 0, 'h' },
                                              { 0, 0, 0, 0 } };
    const char **overrides = calloc((size_t)argc + 1, sizeof *overrides), *out = NULL;
    int override_count = 0, frames = 10, iterations = 200, c;
    if (!overrides)
        return EXIT_SOFTWARE;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (c) {
        case 's': overrides[override_count++] = optarg; break;
        case 'f':
            if (parse_int(optarg, 0, 1000000, &frames)) {
                free(overrides);
                return usage_error("estimate-rho", "--frame needs a whole number from 0 to 1000000, not '%s'", optarg);
            }
            break;
        case 'n':
            if (parse_int(optarg, 4, 1000000, &iterations)) {
                free(overrides);
                return usage_error("estimate-rho", "--iterations needs a whole number from 4 to 1000000, not '%s'",
                                   optarg);
            }
            break;
        case 'o': out = optarg; break;
        case 'h': fputs(estimate_rho_help, stdout); free(overrides); return 0;
        default: free(overrides); return usage_error("estimate-rho", "%s", "unknown option");
        }
    }
    if (optind != argc - 1) {
        free(overrides);
        return usage_error("estimate-rho", "%s", "give one CONFIG.ini");
    }
    const char *config = argv[optind];
    int user_overrides = override_count;
    overrides[override_count++] = "solver.chebyshev=off"; /* last: it wins over the config and --set */
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_scene scene;
    double *change = NULL;
    if (op_scene_load(&ctx, config, override_count, overrides, &scene) != OP_OK) {
        free(overrides);
        return report_failure(&ctx);
    }
    free(overrides);
    op_world *w = &scene.world;
    w->def.log_energy = 0;
    change = op_calloc(&ctx, (size_t)iterations, sizeof(double));
    op_frame_stats stats = { 0 };
    for (int f = 0; f < frames && ctx.status == OP_OK; ++f)
        op_world_step(&ctx, w, &stats);
    double h = w->def.frame_time / w->def.substeps, scale = 0.0;
    op_rho_estimate e;
    if (ctx.status == OP_OK && op_world_probe_substep(&ctx, w, iterations, change, &scale) == OP_OK &&
        op_chebyshev_estimate_rho(&ctx, change, iterations, 1e-13 * scale, &e) == OP_OK) {
        double rho = e.rho;
        char variant[160] = "", source[256];
        snprintf(variant, sizeof variant, "%s", w->solver->name);
        for (const op_solver_option *o = w->solver->options; o->key; ++o) {
            const char *value = op_solver_setting(&w->solver_settings, o->key);
            size_t used = strlen(variant);
            snprintf(variant + used, sizeof variant - used, " %s=%s", o->key, value ? value : "");
        }
        const char *base = strrchr(config, '/');
        base = base ? base + 1 : config;
        char sets[32] = "";
        if (user_overrides)
            snprintf(sets, sizeof sets, " +%d --set", user_overrides);
        if (snprintf(source, sizeof source,
                     "estimate-rho %s%s (%s) frame %d: median of %d ratios |dx_k|/|dx_k-1|, k %d-%d of %d plain", base,
                     sets, variant, frames, e.used, e.first, e.last, iterations) >= (int)sizeof source)
            memcpy(source + sizeof source - 4, "...", 4); /* only recorded as text: shortened visibly */
        printf("# %s%s, frame %d, then %d plain iterations of the next sub-step (h = %.6g s)\n", config, sets, frames,
               iterations, h);
        printf("# ratios |x^{k+1}-x^k| / |x^k-x^{k-1}| for k = %d..%d: %d used, min %.6f, quartiles %.6f %.6f %.6f, "
               "max %.6f\n",
               e.first, e.last, e.used, e.min, e.lower_quartile, e.median, e.upper_quartile, e.max);
        printf("# |dx| at iteration %d: %.3e m, at iteration %d: %.3e m\n", e.first, change[e.first], e.last,
               change[e.last]);
        printf("chebyshev_rho = %.6f\nchebyshev_rho_source = %s\n", rho, source);
        printf("# use: --set solver.chebyshev=on --set solver.chebyshev_rho=%.6f --set 'solver.chebyshev_rho_source=%s'\n",
               rho, source);
        if (out) {
            FILE *file = fopen(out, "w");
            if (!file)
                OP_FAIL(&ctx, OP_ERR_IO, "%s: cannot write: %s", out, strerror(errno));
            else {
                fprintf(file, "; opsim estimate-rho %s: paste into the [solver] section\n[solver]\nchebyshev = on\n"
                              "chebyshev_rho = %.6f\nchebyshev_rho_source = %s\n",
                        config, rho, source);
                if (fclose(file) != 0)
                    OP_FAIL(&ctx, OP_ERR_IO, "%s: cannot write: %s", out, strerror(errno));
            }
        }
    }
    free(change);
    op_scene_free(&scene);
    return ctx.status == OP_OK ? 0 : report_failure(&ctx);
}
