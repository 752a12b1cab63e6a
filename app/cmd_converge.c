/* `opsim converge`: the convergence of one sub-step (core/sim/converge.h). The config runs to
 * frame F; then a second world, loaded with the --solver keys too, takes its state and solves
 * the next sub-step N iterations, and the energy and time after each iteration go to FILE.tsv.
 * With --study, one world per studied solver, their repeats interleaved, a table each in DIR.
 *
 * usage: opsim converge CONFIG.ini [--set SECTION.KEY=VALUE ...] [--solver KEY=VALUE ...]
 *                       [--study LABEL:solver.KEY=VALUE[;solver.KEY=VALUE...] ...]
 *                       --frame F --iterations N [--repeats R] [--fixed-point M] [--probe PROBE.tsv]
 *                       --out FILE.tsv|DIR
 *        opsim converge --batch FILE [--probe PROBE.tsv] */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/timing_stats.h"
#include "commands.h"
#include "io/atomic.h"
#include "io/labelled.h"
#include "opsim/scene.h"
#include "sim/converge.h"

const char app_converge_usage[] =
    "usage: opsim converge CONFIG.ini [--set SECTION.KEY=VALUE ...] [--solver KEY=VALUE ...]\n"
    "                      [--study LABEL:solver.KEY=VALUE[;solver.KEY=VALUE...] ...]\n"
    "                      --frame F --iterations N [--repeats R] [--fixed-point M] [--probe PROBE.tsv]\n"
    "                      --out FILE.tsv|DIR\n"
    "       opsim converge --batch FILE [--probe PROBE.tsv]\n"
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
    "update' for a variant whose first iteration already gives x*, bitwise) and, on the line\n"
    "'own_interval = ', each of those ms's 95 % interval and noisy mark (lo, hi, noisy, the\n"
    "seconds_lo, seconds_hi and noisy of the row reached, in ms; the word three times where\n"
    "own_fields has a word).\n"
    "\n"
    "FILE.tsv: a plain header line, then one line per k = 0 … N: k, seconds, energy (J),\n"
    "seconds_lo, seconds_hi (%.17g) and noisy (1 or 0), tab-separated (docs/results.md).\n"
    "FILE.tsv.meta: a title line, then 'key = value' lines (config, overrides, frame, h, both\n"
    "worlds' solver settings, the CPU, and per timed repeat its wall and thread CPU seconds over\n"
    "the whole sub-step, and when it started, seconds after the first timed solve). Both are\n"
    "written under a temporary name and renamed when complete: on failure neither is left.\n"
    "\n"
    "--study LABEL:solver.KEY=VALUE[;solver.KEY=VALUE...] (repeatable, up to 64; the form of\n"
    "bench_scenes -V, [solver] keys only, no value holding ';') studies several solvers on the one\n"
    "sub-step in one run: a world per study, loaded with the --set keys, every --solver key, then\n"
    "its own. The frames run once; each study's fixed point is solved (--fixed-point); then the\n"
    "repeats go round the studies: round 1 solves each once in the order given, round 2 from the\n"
    "second on (A B C, B C A, C A B, ...: docs/timing.md), the untimed warm-up round first (with\n"
    "--repeats above 1), so that no study always goes first. Every solve starts from the\n"
    "same state taken afresh, so a study's energies, errors and iterations are bitwise those of\n"
    "a run with --solver and its keys alone; only the times differ, taken interleaved. --out then\n"
    "names a directory (made if missing) that receives LABEL.tsv and LABEL.tsv.meta per study, as\n"
    "above, the meta also naming 'study' and 'studies' (the order). A label is letters, digits\n"
    "and . _ + - (not first '.'), each used once. A failure in a study's load or solves names it\n"
    "('--study LABEL: ...') and leaves no table of any study.\n"
    "\n"
    "--probe PROBE.tsv times the machine probe (core/base/probe.h: a fixed tiny workload) at the\n"
    "start of each timed round, outside the solves, and writes 'phase round started_s probe_ms'\n"
    "(phase converge:CONFIG; started_s after the first timed round's start): the machine's speed\n"
    "beside the timings (docs/timing.md).\n"
    "\n"
    "--batch FILE runs several converge commands in one process, one a line of FILE: CONFIG and\n"
    "its options as above, each word a field, the fields tab-separated ('#' lines and empty ones\n"
    "skipped; no --batch or --probe in a line). Every line's frames and fixed points come first;\n"
    "then the rounds go round the lines: every line's untimed round, then timed round 1 of every\n"
    "line, round 2 of every line, ... (core/sim/converge.h, op_converge_jobs), so that each\n"
    "line's repeats are spread over the whole timed phase; each line's tables are bitwise those\n"
    "of its command alone but for the times. A failure names the line ('--batch FILE:N: ...',\n"
    "then the study as above) and leaves no table of any line; --probe is the batch's, a row\n"
    "per round (phase converge).\n";

typedef struct converge_options {
    app_list overrides;   /* --set */
    app_list study;       /* "solver.KEY=VALUE" of each --solver, owned */
    op_labelled *studies; /* --study, study_count of them (NULL: the single form) */
    int study_count;
    int frames, iterations, repeats, fixed_point; /* fixed_point 0: none */
    const char *config, *out, *probe; /* probe NULL: none */
    const char *batch;                /* --batch FILE: the lines are the commands */
} converge_options;

/* One studied solver: its world, its [solver] keys and what is recorded of it. */
typedef struct studied {
    const char *label; /* its --study label; NULL: the single form */
    char out[4096];    /* its table */
    char meta[4096];   /* its provenance, out + ".meta" */
    app_list keys;     /* "solver.KEY=VALUE": every --solver, then its --study overrides */
    op_scene world;
    int loaded;
    double *seconds, *energy;
    op_converge_spread spread;
    op_converge_fixed_point fixed;
} studied;

/* The run to frame F and the studied solvers. */
typedef struct converge_worlds {
    op_scene scene;
    int scene_loaded;
    studied *study;
    int count;
    op_converge_probe probe; /* repeats each, with --probe */
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

/* A label names its files: letters, digits and . _ + -, not first '.'. */
static int is_file_label(const char *label)
{
    static const char allowed[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+-";
    return label[0] != '.' && label[strspn(label, allowed)] == '\0';
}

/* The --study spec's problem into ctx (OP_ERR_USAGE), if any: its form, its label, its keys. */
static int check_study(op_ctx *ctx, const converge_options *o, const char *text, op_labelled *s)
{
    if (o->study_count == OP_CONVERGE_MAX_STUDIES)
        return OP_FAIL(ctx, OP_ERR_USAGE, "--study %s: more than %d studies", text, OP_CONVERGE_MAX_STUDIES);
    if (op_labelled_parse(ctx, s, "--study", text) != OP_OK)
        return ctx->status;
    if (!is_file_label(s->label))
        return OP_FAIL(ctx, OP_ERR_USAGE,
                       "--study %s: a label names files: letters, digits and . _ + - (not first '.')", s->label);
    for (int i = 0; i < o->study_count; ++i)
        if (strcmp(o->studies[i].label, s->label) == 0)
            return OP_FAIL(ctx, OP_ERR_USAGE, "--study %s: the label is given twice", s->label);
    for (int i = 0; i < s->override_count; ++i)
        if (strncmp(s->override[i], "solver.", 7) != 0)
            return OP_FAIL(ctx, OP_ERR_USAGE, "--study %s: '%s' is not a [solver] key (solver.KEY=VALUE)", s->label,
                           s->override[i]);
    return OP_OK;
}

/* --study LABEL:solver.KEY=VALUE[;...]: -1 when taken, else the exit status. */
static int add_study(converge_options *o, const char *text)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    if (!o->studies && !(o->studies = calloc(OP_CONVERGE_MAX_STUDIES, sizeof *o->studies)))
        return EXIT_SOFTWARE;
    if (check_study(&ctx, o, text, &o->studies[o->study_count]) != OP_OK)
        return app_usage_error("converge", "%s", ctx.message);
    o->study_count++;
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
                                              { "study", required_argument, 0, 'S' },
                                              { "frame", required_argument, 0, 'f' },
                                              { "iterations", required_argument, 0, 'n' },
                                              { "repeats", required_argument, 0, 'r' },
                                              { "fixed-point", required_argument, 0, 'p' },
                                              { "out", required_argument, 0, 'o' },
                                              { "probe", required_argument, 0, 'P' },
                                              { "batch", required_argument, 0, 'B' },
                                              { "help", no_argument, 0, 'h' },
                                              { 0, 0, 0, 0 } };
    int c, status = -1;
    while (status < 0 && (c = getopt_long(call->argc, call->argv, "", options, NULL)) != -1) {
        switch (c) {
        case 's': app_list_add(&o->overrides, optarg); break;
        case 'v': status = add_study_key(o, optarg); break;
        case 'S': status = add_study(o, optarg); break;
        case 'f': status = parse_count("--frame", optarg, 0, OP_CONVERGE_MAX_FRAMES, &o->frames); break;
        case 'n': status = parse_count("--iterations", optarg, 1, OP_CONVERGE_MAX_ITERATIONS, &o->iterations); break;
        case 'r': status = parse_count("--repeats", optarg, 1, OP_CONVERGE_MAX_REPEATS, &o->repeats); break;
        case 'p':
            status = parse_count("--fixed-point", optarg, 1, OP_CONVERGE_MAX_ITERATIONS, &o->fixed_point);
            break;
        case 'o': o->out = optarg; break;
        case 'P': o->probe = optarg; break;
        case 'B': o->batch = optarg; break;
        case 'h': fputs(app_converge_usage, stdout); status = 0; break;
        default: status = app_usage_error("converge", "%s", "unknown option");
        }
    }
    if (status < 0 && o->batch) {
        if (optind != call->argc || o->out || o->frames >= 0 || o->iterations >= 0 || o->overrides.count ||
            o->study.count || o->studies || o->fixed_point)
            status = app_usage_error("converge", "%s", "--batch FILE takes only --probe: the rest is in its lines");
        return status;
    }
    if (status < 0 && (optind != call->argc - 1 || !o->out || o->frames < 0 || o->iterations < 0))
        status = app_usage_error("converge", "%s", "give one CONFIG.ini, --frame F, --iterations N and --out FILE.tsv");
    if (status < 0)
        o->config = call->argv[optind];
    return status;
}

/* ctx's message after "--study LABEL: " when the failure is that study's. */
static void name_study(op_ctx *ctx, const studied *s)
{
    if (!s->label || ctx->status == OP_OK)
        return;
    char message[sizeof ctx->message + OP_LABELLED_LABEL_SIZE + 16];
    snprintf(message, sizeof message, "--study %s: %s", s->label, ctx->message);
    memcpy(ctx->message, message, sizeof ctx->message - 1);
    ctx->message[sizeof ctx->message - 1] = '\0';
}

/* Study i's keys, table path and arrays; the single form's when o has no --study. */
static int prepare_study(op_ctx *ctx, const converge_options *o, int i, studied *s)
{
    const op_labelled *spec = o->studies ? &o->studies[i] : NULL;
    if (app_list_init(&s->keys, o->study.count + OP_LABELLED_MAX_OVERRIDES + 1))
        return OP_FAIL(ctx, OP_ERR_NOMEM, "%s", "out of memory");
    for (int k = 0; k < o->study.count; ++k)
        app_list_add(&s->keys, o->study.item[k]);
    for (int k = 0; spec && k < spec->override_count; ++k)
        app_list_add(&s->keys, spec->override[k]);
    s->label = spec ? spec->label : NULL;
    int length = spec ? snprintf(s->out, sizeof s->out, "%s/%s.tsv", o->out, spec->label)
                      : snprintf(s->out, sizeof s->out, "%s", o->out);
    if (length >= (int)sizeof s->out || snprintf(s->meta, sizeof s->meta, "%s.meta", s->out) >= (int)sizeof s->meta)
        return OP_FAIL(ctx, OP_ERR_USAGE, "--out %s: the path is too long", o->out);
    size_t n = (size_t)o->iterations + 1, r = (size_t)o->repeats;
    s->seconds = op_calloc(ctx, n, sizeof(double));
    s->energy = op_calloc(ctx, n, sizeof(double));
    s->fixed.iterations = o->fixed_point;
    if (o->fixed_point > 0)
        s->fixed.error = op_calloc(ctx, n, sizeof(double));
    s->spread = (op_converge_spread){ .lo = op_calloc(ctx, n, sizeof(double)),
                                      .hi = op_calloc(ctx, n, sizeof(double)),
                                      .noisy = op_calloc(ctx, n, sizeof(int)),
                                      .wall = op_calloc(ctx, r, sizeof(double)),
                                      .cpu = op_calloc(ctx, r, sizeof(double)),
                                      .start = op_calloc(ctx, r, sizeof(double)) };
    return ctx->status;
}

static void free_study(studied *s)
{
    if (s->loaded)
        op_scene_free(&s->world);
    app_list_free(&s->keys);
    free(s->seconds);
    free(s->energy);
    free(s->fixed.error);
    free(s->spread.lo);
    free(s->spread.hi);
    free(s->spread.noisy);
    free(s->spread.wall);
    free(s->spread.cpu);
    free(s->spread.start);
}

/* The first world with --set; each study's with --set and then its keys. */
static int load_worlds(op_ctx *ctx, const converge_options *o, converge_worlds *worlds)
{
    if (op_scene_load(ctx, o->config, o->overrides.count, o->overrides.item, &worlds->scene) != OP_OK)
        return ctx->status;
    worlds->scene_loaded = 1;
    app_list both;
    if (app_list_init(&both, o->overrides.count + o->study.count + OP_LABELLED_MAX_OVERRIDES + 1))
        return OP_FAIL(ctx, OP_ERR_NOMEM, "%s", "out of memory");
    for (int i = 0; i < worlds->count && ctx->status == OP_OK; ++i) {
        studied *s = &worlds->study[i];
        both.count = 0;
        for (int k = 0; k < o->overrides.count; ++k)
            app_list_add(&both, o->overrides.item[k]);
        for (int k = 0; k < s->keys.count; ++k)
            app_list_add(&both, s->keys.item[k]);
        if (op_scene_load(ctx, o->config, both.count, both.item, &s->world) == OP_OK)
            s->loaded = 1;
        name_study(ctx, s);
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
static const double OWN_TOLERANCE[] = { 1e-2, 1e-4, 1e-6 };

/* The word of tolerance t's own cells, or NULL where they are numbers: row *k reached. */
static const char *own_word(const converge_options *o, const studied *s, int t, int *k)
{
    *k = op_converge_reached(s->fixed.error, o->iterations + 1, OWN_TOLERANCE[t]);
    if (s->fixed.single_update)
        return "single update";
    if (s->fixed.last_step > UNSETTLED * OWN_TOLERANCE[t])
        return "x* unsettled";
    return *k < 0 ? "–" : NULL;
}

/* "K\tMS" for each tolerance where error[] stays below it, "–\t–" where it never does, "x*
 * unsettled" where x* is not settled below it, "single update" in every field for a variant
 * whose first iteration gives x*; then on its own line each MS's interval and noisy mark
 * ("LO\tHI\tNOISY", the word three times where the cells are words) */
static void write_own_fields(FILE *f, const converge_options *o, const studied *s)
{
    int k;
    fprintf(f, "own_fields = ");
    for (int t = 0; t < 3; ++t) {
        const char *word = own_word(o, s, t, &k);
        if (word)
            fprintf(f, "%s%s\t%s", t ? "\t" : "", word, word);
        else
            fprintf(f, "%s%d\t%.3f", t ? "\t" : "", k, 1e3 * s->seconds[k]);
    }
    fprintf(f, "\nown_interval = ");
    for (int t = 0; t < 3; ++t) {
        const char *word = own_word(o, s, t, &k);
        if (word)
            fprintf(f, "%s%s\t%s\t%s", t ? "\t" : "", word, word, word);
        else
            fprintf(f, "%s%.3f\t%.3f\t%d", t ? "\t" : "", 1e3 * s->spread.lo[k], 1e3 * s->spread.hi[k],
                    s->spread.noisy[k]);
    }
    fprintf(f, "\n");
}

/* "studies = A B C (...)": the studies in the order given, which round 1 takes. */
static void write_studies(FILE *f, const converge_worlds *worlds)
{
    fprintf(f, "studies =");
    for (int i = 0; i < worlds->count; ++i)
        fprintf(f, " %s", worlds->study[i].label);
    fprintf(f, " (one run, interleaved: timed round 1 solves each once in this order, round 2 from the second "
               "on, and so on round the list)\n");
}

static void write_header(FILE *f, const converge_options *o, const converge_worlds *worlds, const studied *s,
                         const char *command_line)
{
    char run_solver[2048], study_solver[2048];
    describe_solver(&worlds->scene.world, run_solver, sizeof run_solver);
    describe_solver(&s->world.world, study_solver, sizeof study_solver);
    const op_world *w = &s->world.world;
    fprintf(f, "opsim converge (opsim %s, git %s): energy of one sub-step against iteration\n", OPSIM_VERSION,
            OPSIM_GIT_REV);
    fprintf(f, "command = %s\nconfig = %s\n", command_line, o->config);
    for (int i = 0; i < o->overrides.count; ++i)
        fprintf(f, "set = %s\n", o->overrides.item[i]);
    if (s->label) {
        fprintf(f, "study = %s\n", s->label);
        write_studies(f, worlds);
    }
    for (int i = 0; i < s->keys.count; ++i)
        fprintf(f, "study set = %s\n", s->keys.item[i]);
    fprintf(f, "frame = %d (frames run before the studied sub-step, sub-step %ld of the run)\n", o->frames,
            w->substep + 1);
    fprintf(f, "h = %.17g s (frame_time %.17g / substeps %d), time at its start = %.17g s\n",
            w->def.frame_time / w->def.substeps, w->def.frame_time, w->def.substeps, w->time);
    fprintf(f, "iterations = %d\nrepeats = %d\nrun solver = %s\nstudy solver = %s\n", o->iterations,
            o->repeats, run_solver, study_solver);
    char cpu[128];
    fprintf(f, "cpu = %s\n", op_cpu_model(cpu, sizeof cpu));
    if (o->fixed_point > 0) {
        fprintf(f, "fixed point = %d iterations of the study solver from the same state (x*); error = "
                   "||x_k - x*|| / ||x_0 - x*|| over every body's positions\n",
                s->fixed.iterations);
        fprintf(f, "fixed point last step = %.3e (||x_M - x_(M-1)|| / ||x_0 - x*||)\n", s->fixed.last_step);
        write_own_fields(f, o, s);
    }
}

/* PATH (FILE.tsv.meta), the run's provenance as "key = value" lines (docs/results.md), written
 * whole. */
static int write_meta(op_ctx *ctx, const char *path, const converge_options *o, const converge_worlds *worlds,
                      const studied *s, const char *command_line)
{
    op_atomic_file file;
    if (op_atomic_open(ctx, &file, path) != OP_OK)
        return ctx->status;
    write_header(file.file, o, worlds, s, command_line);
    for (int r = 0; r < o->repeats; ++r)
        fprintf(file.file, "repeat %d = wall %.6f s, thread cpu %.6f s, started %.6f s\n", r + 1, s->spread.wall[r],
                s->spread.cpu[r], s->spread.start[r]);
    return op_atomic_commit(ctx, &file);
}

/* A study's table, one plain header line then one row per iteration, under a temporary name
 * renamed when complete; its provenance goes to TABLE.meta first, removed again if the table
 * fails. */
static int write_table(op_ctx *ctx, const converge_options *o, const converge_worlds *worlds, const studied *s,
                       const char *command_line)
{
    if (write_meta(ctx, s->meta, o, worlds, s, command_line) != OP_OK)
        return ctx->status;
    op_atomic_file file;
    if (op_atomic_open(ctx, &file, s->out) != OP_OK) {
        remove(s->meta);
        return ctx->status;
    }
    int fixed = o->fixed_point > 0;
    fprintf(file.file, "k\tseconds\tenergy\tseconds_lo\tseconds_hi\tnoisy%s\n", fixed ? "\terror" : "");
    for (int k = 0; k <= o->iterations; ++k) {
        fprintf(file.file, "%d\t%.17g\t%.17g\t%.17g\t%.17g\t%d", k, s->seconds[k], s->energy[k], s->spread.lo[k],
                s->spread.hi[k], s->spread.noisy[k]);
        if (fixed)
            fprintf(file.file, "\t%.17g", s->fixed.error[k]);
        fprintf(file.file, "\n");
    }
    if (op_atomic_commit(ctx, &file) != OP_OK)
        remove(s->meta);
    return ctx->status;
}

/* Every study's table (in --study's directory, made if missing); on a failure none is left. */
static int write_tables(op_ctx *ctx, const converge_options *o, const converge_worlds *worlds,
                        const char *command_line)
{
    if (o->studies && app_make_directory(ctx, o->out) != OP_OK)
        return ctx->status;
    int written = 0;
    while (written < worlds->count && write_table(ctx, o, worlds, &worlds->study[written], command_line) == OP_OK)
        ++written;
    for (int i = 0; ctx->status != OP_OK && i < written; ++i) {
        remove(worlds->study[i].out);
        remove(worlds->study[i].meta);
    }
    return ctx->status;
}

/* The studies as op_converge's subjects (NULL when out of memory, in ctx). */
static op_converge_subject *subjects_of(op_ctx *ctx, const converge_options *o, converge_worlds *worlds)
{
    op_converge_subject *subject = op_calloc(ctx, (size_t)worlds->count, sizeof *subject);
    for (int i = 0; subject && i < worlds->count; ++i) {
        studied *s = &worlds->study[i];
        subject[i] = (op_converge_subject){ .study = &s->world, .seconds = s->seconds, .energy = s->energy,
                                            .spread = &s->spread, .fixed = o->fixed_point > 0 ? &s->fixed : NULL };
    }
    return subject;
}

/* The studies, solved together (op_converge_studies); a failure in one names it. */
static int study_all(op_ctx *ctx, const converge_options *o, converge_worlds *worlds)
{
    op_converge_subject *subject = subjects_of(ctx, o, worlds);
    if (subject && op_converge_studies_probed(ctx, &worlds->scene, subject, worlds->count, o->frames, o->iterations,
                                              o->repeats, o->probe ? &worlds->probe : NULL) != OP_OK)
        for (int i = 0; i < worlds->count; ++i)
            if (subject[i].failed)
                name_study(ctx, &worlds->study[i]);
    free(subject);
    return ctx->status;
}

/* --probe's table, written whole (after the studies' tables: removed with them on a failure). */
static int write_probe(op_ctx *ctx, const converge_options *o, const converge_worlds *worlds)
{
    op_atomic_file file;
    if (op_atomic_open(ctx, &file, o->probe) != OP_OK)
        return ctx->status;
    fprintf(file.file, "phase\tround\tstarted_s\tprobe_ms\n");
    for (int r = 0; r < o->repeats; ++r)
        fprintf(file.file, "converge%s%s\t%d\t%.3f\t%.4f\n", o->batch ? "" : ":", o->batch ? "" : o->config,
                r + 1, worlds->probe.started[r], worlds->probe.ms[r]);
    return op_atomic_commit(ctx, &file);
}

/* The probe's arrays, a time and a start for each of `repeats` rounds (out of memory: in ctx). */
static void probe_arrays(op_ctx *ctx, op_converge_probe *probe, int repeats)
{
    probe->ms = op_calloc(ctx, (size_t)repeats, sizeof(double));
    probe->started = op_calloc(ctx, (size_t)repeats, sizeof(double));
}

/* The studies' arrays and worlds, loaded (and the probe's arrays, repeats long, with probe). */
static int ready_worlds(op_ctx *ctx, const converge_options *o, converge_worlds *worlds, int probe)
{
    worlds->count = o->studies ? o->study_count : 1;
    if (probe)
        probe_arrays(ctx, &worlds->probe, o->repeats);
    worlds->study = op_calloc(ctx, (size_t)worlds->count, sizeof *worlds->study);
    for (int i = 0; worlds->study && i < worlds->count && ctx->status == OP_OK; ++i)
        prepare_study(ctx, o, i, &worlds->study[i]);
    if (ctx->status == OP_OK)
        load_worlds(ctx, o, worlds);
    return ctx->status;
}

static void free_worlds(converge_worlds *worlds)
{
    if (worlds->scene_loaded)
        op_scene_free(&worlds->scene);
    for (int i = 0; worlds->study && i < worlds->count; ++i)
        free_study(&worlds->study[i]);
    free(worlds->study);
    free(worlds->probe.ms);
    free(worlds->probe.started);
}

static void free_options(converge_options *o)
{
    for (int i = 0; i < o->study.count; ++i)
        free((char *)o->study.item[i]);
    free(o->studies);
    app_list_free(&o->overrides);
    app_list_free(&o->study);
}

/* The studies' tables and metas removed, after a later write failed. */
static void remove_tables(const converge_worlds *worlds)
{
    for (int i = 0; i < worlds->count; ++i) {
        remove(worlds->study[i].out);
        remove(worlds->study[i].meta);
    }
}

static int converge(op_ctx *ctx, const converge_options *o, converge_worlds *worlds, const char *command_line)
{
    if (ready_worlds(ctx, o, worlds, o->probe != NULL) == OP_OK && study_all(ctx, o, worlds) == OP_OK &&
        write_tables(ctx, o, worlds, command_line) == OP_OK && o->probe && write_probe(ctx, o, worlds) != OP_OK)
        remove_tables(worlds);
    return ctx->status;
}

/* --batch: a line's command, its options and worlds (the file comment). */
typedef struct batch_job {
    int line;
    char **argv; /* "converge" and the line's fields, split in place */
    converge_options o;
    converge_worlds worlds;
    op_converge_subject *subject;
} batch_job;

typedef struct batch {
    char *text; /* the file, split in place */
    batch_job *job;
    int count;
} batch;

/* ctx's message after "--batch PATH:LINE: ". */
static void name_line(op_ctx *ctx, const char *path, int line)
{
    char message[sizeof ctx->message + 4200];
    snprintf(message, sizeof message, "--batch %s:%d: %s", path, line, ctx->message);
    memcpy(ctx->message, message, sizeof ctx->message - 1);
    ctx->message[sizeof ctx->message - 1] = '\0';
}

/* Line `line` of the batch, `text` split at its tabs, parsed as a converge command's options into
 * *job; OP_ERR_USAGE naming the line when it is not one (the options' own message printed). */
static int parse_line(op_ctx *ctx, const char *path, int line, char *text, const app_call *call, batch_job *job)
{
    int words = 2;
    for (const char *c = text; *c; ++c)
        words += *c == '\t';
    job->line = line;
    job->o = (converge_options){ .frames = -1, .iterations = -1, .repeats = 1 };
    if (!(job->argv = op_calloc(ctx, (size_t)words + 1, sizeof *job->argv)) ||
        app_list_init(&job->o.overrides, words + 1) || app_list_init(&job->o.study, words + 1))
        return OP_FAIL(ctx, OP_ERR_NOMEM, "%s", "out of memory");
    int argc = 0;
    job->argv[argc++] = "converge";
    for (char *field = text; field; ++argc) {
        job->argv[argc] = field;
        if ((field = strchr(field, '\t')) != NULL)
            *field++ = '\0';
    }
    app_call one = { .argc = argc, .argv = job->argv, .command_line = call->command_line, .opsim = call->opsim };
    optind = 0; /* getopt afresh for this line's words */
    if (parse_converge_options(&one, &job->o) >= 0 || job->o.batch || job->o.probe)
        return OP_FAIL(ctx, OP_ERR_USAGE, "--batch %s:%d: not a converge command's options (no --batch, --probe; "
                       "above)", path, line);
    return OP_OK;
}

/* The batch file's lines as jobs (file comment). */
static int read_batch(op_ctx *ctx, const char *path, const app_call *call, batch *b)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return OP_FAIL(ctx, OP_ERR_IO, "--batch %s: cannot open", path);
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    rewind(f);
    if (size < 0) /* not a file that can be measured, e.g. a pipe */
        OP_FAIL(ctx, OP_ERR_IO, "--batch %s: cannot read (not a regular file?)", path);
    else if ((b->text = op_calloc(ctx, (size_t)size + 1, 1)) && fread(b->text, 1, (size_t)size, f) != (size_t)size)
        OP_FAIL(ctx, OP_ERR_IO, "--batch %s: cannot read", path);
    fclose(f);
    int lines = 1;
    for (const char *c = b->text; ctx->status == OP_OK && *c; ++c)
        lines += *c == '\n';
    if (ctx->status == OP_OK)
        b->job = op_calloc(ctx, (size_t)lines + 1, sizeof *b->job); /* and a line that failed to parse */
    int number = 0;
    for (char *line = b->text, *next; ctx->status == OP_OK && line && *line; line = next) {
        ++number;
        if ((next = strchr(line, '\n')) != NULL)
            *next++ = '\0';
        if (*line && *line != '#' && parse_line(ctx, path, number, line, call, &b->job[b->count]) == OP_OK)
            ++b->count;
    }
    if (ctx->status == OP_OK && b->count == 0)
        OP_FAIL(ctx, OP_ERR_USAGE, "--batch %s: no commands in it", path);
    return ctx->status;
}

/* Every line's worlds loaded, then their rounds together (op_converge_jobs), then every line's
 * tables and the probe's; a failure names its line (and study) and leaves no table. */
static int run_batch(op_ctx *ctx, const converge_options *top, const app_call *call, batch *b)
{
    op_converge_job *jobs = op_calloc(ctx, (size_t)b->count, sizeof *jobs);
    int repeats = 0;
    for (int j = 0; jobs && j < b->count && ctx->status == OP_OK; ++j) {
        batch_job *job = &b->job[j];
        if (ready_worlds(ctx, &job->o, &job->worlds, 0) != OP_OK || !(job->subject = subjects_of(ctx, &job->o, &job->worlds)))
            name_line(ctx, top->batch, job->line);
        jobs[j] = (op_converge_job){ .scene = &job->worlds.scene, .subject = job->subject, .count = job->worlds.count,
                                     .frames = job->o.frames, .iterations = job->o.iterations, .repeats = job->o.repeats };
        repeats = job->o.repeats > repeats ? job->o.repeats : repeats;
    }
    converge_worlds probe = { .count = 0 };
    converge_options probe_options = { .batch = top->batch, .repeats = repeats, .probe = top->probe };
    if (ctx->status == OP_OK && top->probe)
        probe_arrays(ctx, &probe.probe, repeats);
    if (ctx->status == OP_OK && op_converge_jobs(ctx, jobs, b->count, top->probe ? &probe.probe : NULL) != OP_OK)
        for (int j = 0; j < b->count; ++j)
            for (int i = 0; jobs[j].failed && i < b->job[j].worlds.count; ++i)
                if (b->job[j].subject[i].failed || i == b->job[j].worlds.count - 1) {
                    if (b->job[j].subject[i].failed)
                        name_study(ctx, &b->job[j].worlds.study[i]);
                    name_line(ctx, top->batch, b->job[j].line);
                    break;
                }
    int written = 0;
    while (ctx->status == OP_OK && written < b->count &&
           write_tables(ctx, &b->job[written].o, &b->job[written].worlds, call->command_line) == OP_OK)
        ++written;
    if (ctx->status == OP_OK && top->probe)
        write_probe(ctx, &probe_options, &probe);
    for (int j = 0; ctx->status != OP_OK && j < written; ++j)
        remove_tables(&b->job[j].worlds);
    free(probe.probe.ms);
    free(probe.probe.started);
    free(jobs);
    return ctx->status;
}

static int converge_batch(op_ctx *ctx, const app_call *call, const converge_options *top)
{
    batch b = { .text = NULL };
    if (read_batch(ctx, top->batch, call, &b) == OP_OK)
        run_batch(ctx, top, call, &b);
    for (int j = 0; b.job && j < b.count + (ctx->status != OP_OK && b.job[b.count].argv); ++j) {
        free_worlds(&b.job[j].worlds);
        free_options(&b.job[j].o);
        free(b.job[j].subject);
        free(b.job[j].argv);
    }
    free(b.job);
    free(b.text);
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
        converge_worlds worlds = { .scene_loaded = 0 };
        if (o.batch)
            converge_batch(&ctx, call, &o);
        else
            converge(&ctx, &o, &worlds, call->command_line);
        status = app_exit_status(&ctx);
        free_worlds(&worlds);
    }
    free_options(&o);
    return status;
}
