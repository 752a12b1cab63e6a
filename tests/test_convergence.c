/* The convergence study's core, op_converge (core/sim/converge.h), and `opsim converge`: the k = 0
 * energy is the energy at the start of the sub-step, Gauss–Seidel never raises it, runs are
 * bitwise repeatable, a study world solves the same problem, bad frame and iteration counts fail
 * (and the command line leaves no output file), repeated solves of the sub-step give the same
 * energies; the error against the variant's own fixed point (op_converge_to_fixed_point) is 1 at
 * the start and exactly 0 after as many iterations as the fixed point took, for arap, shape
 * matching and springs alike, and meshless's explicit update is named a single update. Several
 * solvers studied in one run (op_converge_studies, --study) give each one's results bitwise as
 * a run of it alone, their timed solves taken round by round (A B C, B C A, C A B); own_ms's
 * interval is the interval of the row own_fields names; a bad --study is named. Several scenes'
 * converge commands in one process (--batch, op_converge_jobs) give each line's tables bitwise
 * as its command alone, a probe row per round; a failing line is named with its study and
 * leaves no table of any line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_scene_load.h"
#include "test_util.h"

#include "sim/converge.h"
#include "sim/energy.h"
#include "opsim/scene.h"

enum { FRAMES = 15, ITERATIONS = 60 };
static const char *const config = "experiments/fig5.ini"; /* no direction constraints: GS descends */

static void load(op_scene *scene, const char *const *overrides)
{
    test_load_scene(scene, config, overrides);
}

/* energy and seconds of one op_converge run; study overrides NULL: in the scene's own world */
static void converge(const char *const *study_overrides, int frames, int iterations, double *energy, double *seconds)
{
    op_scene scene, study;
    load(&scene, NULL);
    if (study_overrides)
        load(&study, study_overrides);
    op_ctx ctx;
    op_ctx_init(&ctx);
    if (op_converge(&ctx, &scene, study_overrides ? &study : NULL, frames, iterations, seconds, energy) != OP_OK)
        fail_msg("%s", ctx.message);
    op_scene_free(&scene);
    if (study_overrides)
        op_scene_free(&study);
}

static const char *const jacobi_chebyshev[] = { "solver.rotations=jacobi", "solver.chebyshev=on",
                                                "solver.chebyshev_rho=0.97", NULL };

static void test_first_energy_is_the_substep_start(void **state)
{
    (void)state;
    /* by hand: the frames, then PREDICT and BEGIN of the next sub-step */
    op_scene scene;
    load(&scene, NULL);
    op_world *w = &scene.world;
    w->def.log_energy = 0;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_frame_stats stats = { 0 };
    for (int f = 0; f < FRAMES; ++f)
        assert_int_equal(op_world_step(&ctx, w, &stats), OP_OK);
    double h = w->def.frame_time / w->def.substeps, expected = 0.0;
    assert_int_equal(op_world_begin_substep(&ctx, w, h), OP_OK);
    for (int b = 0; b < w->body_count; ++b) {
        op_energy e;
        op_energy_eval(&w->bodies[b], h, &e);
        expected += e.total;
    }
    op_scene_free(&scene);
    double energy[ITERATIONS + 1], seconds[ITERATIONS + 1];
    converge(NULL, FRAMES, ITERATIONS, energy, seconds);
    assert_memory_equal(&energy[0], &expected, sizeof expected);
    assert_true(seconds[0] == 0.0);
    for (int k = 1; k <= ITERATIONS; ++k)
        assert_le(seconds[k - 1], seconds[k]);
    /* a study world takes the same state: the same E_0, bit for bit */
    converge(jacobi_chebyshev, FRAMES, ITERATIONS, energy, seconds);
    assert_memory_equal(&energy[0], &expected, sizeof expected);
}

static void test_gauss_seidel_never_raises_the_energy(void **state)
{
    (void)state;
    enum { N = 300 };
    double energy[N + 1], seconds[N + 1];
    const char *const gs[] = { "solver.rotations=gs", NULL };
    for (int pass = 0; pass < 2; ++pass) {
        converge(pass ? gs : NULL, FRAMES, N, energy, seconds);
        for (int k = 1; k <= N; ++k)
            assert_le(energy[k], energy[k - 1] + 1e-12 * fabs(energy[k - 1]));
        assert_true(energy[N] < energy[0]);
    }
}

static void test_runs_are_bitwise_repeatable(void **state)
{
    (void)state;
    double a[ITERATIONS + 1], b[ITERATIONS + 1], seconds[ITERATIONS + 1];
    converge(NULL, FRAMES, ITERATIONS, a, seconds);
    converge(NULL, FRAMES, ITERATIONS, b, seconds);
    assert_memory_equal(a, b, sizeof a);
    converge(jacobi_chebyshev, FRAMES, ITERATIONS, a, seconds);
    converge(jacobi_chebyshev, FRAMES, ITERATIONS, b, seconds);
    assert_memory_equal(a, b, sizeof a);
}

/* Gauss–Seidel in a study world (fresh solver state on the copied state) against the scene's own
 * world: the same problem, the same iterates to rounding (the polar warm starts differ). */
static void test_study_world_solves_the_same_problem(void **state)
{
    (void)state;
    double own[ITERATIONS + 1], study[ITERATIONS + 1], seconds[ITERATIONS + 1];
    const char *const gs[] = { "solver.rotations=gs", NULL };
    converge(NULL, FRAMES, ITERATIONS, own, seconds);
    converge(gs, FRAMES, ITERATIONS, study, seconds);
    for (int k = 0; k <= ITERATIONS; ++k)
        assert_close(study[k], own[k], 1e-9);
}

static void test_bad_frames_and_iterations_fail(void **state)
{
    (void)state;
    const struct {
        int frames, iterations;
    } cases[] = { { -1, 10 }, { 0, 0 }, { 3, -5 }, { OP_CONVERGE_MAX_FRAMES + 1, 10 } };
    double energy[11], seconds[11];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        op_scene scene;
        load(&scene, NULL);
        op_ctx ctx;
        op_ctx_init(&ctx);
        assert_int_equal(op_converge(&ctx, &scene, NULL, cases[c].frames, cases[c].iterations, seconds, energy),
                         OP_ERR_USAGE);
        assert_true(strlen(ctx.message) > 0);
        assert_int_equal(scene.world.frame, 0); /* nothing ran */
        op_scene_free(&scene);
    }
    /* a study world of another scene */
    op_scene scene, other;
    load(&scene, NULL);
    op_ctx ctx;
    op_ctx_init(&ctx);
    const char *const bar_overrides[] = { NULL };
    assert_int_equal(op_scene_load(&ctx, "experiments/fig1.ini", 0, bar_overrides, &other), OP_OK);
    assert_int_equal(op_converge(&ctx, &scene, &other, 1, 10, seconds, energy), OP_ERR_INVALID);
    op_scene_free(&scene);
    op_scene_free(&other);
}

/* exit status of bin/opsim converge with `arguments`, writing `out` */
static int opsim_converge(const char *arguments, const char *out)
{
    char command[1024];
    snprintf(command, sizeof command, "bin/opsim converge %s --out '%s' 2>/dev/null", arguments, out);
    int status = system(command);
    assert_true(status != -1 && WIFEXITED(status));
    return WEXITSTATUS(status);
}

/* OUT.meta, the provenance sidecar of a converge table */
static const char *meta_of(const char *out)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s.meta", out);
    return path;
}

/* Lines of `path` that start with `prefix`; -1 when the file cannot be read. */
static int count_lines(const char *path, const char *prefix)
{
    FILE *file = fopen(path, "r");
    if (!file)
        return -1;
    char line[2048];
    int count = 0;
    while (fgets(line, sizeof line, file))
        count += strncmp(line, prefix, strlen(prefix)) == 0;
    fclose(file);
    return count;
}

static void test_command_line(void **state)
{
    (void)state;
    const char *out = test_tmp_path(".tsv");
    struct {
        const char *arguments;
        int status;
    } bad[] = {
        { "experiments/fig5.ini --frame -1 --iterations 10", 64 },
        { "experiments/fig5.ini --frame 2 --iterations 0", 64 },
        { "experiments/fig5.ini --frame x --iterations 10", 64 },
        { "experiments/fig5.ini --iterations 10", 64 },
        { "experiments/fig5.ini --frame 2 --iterations 10 --solver rotations", 64 },
        { "experiments/fig5.ini --frame 2 --iterations 10 --solver rotations=sideways", 65 },
        { "experiments/no-such.ini --frame 2 --iterations 10", 74 },
    };
    for (size_t c = 0; c < sizeof bad / sizeof bad[0]; ++c) {
        int status = opsim_converge(bad[c].arguments, out);
        if (status != bad[c].status)
            fail_msg("opsim converge %s: exit %d, expected %d", bad[c].arguments, status, bad[c].status);
        assert_int_not_equal(access(out, F_OK), 0);
        assert_int_not_equal(access(meta_of(out), F_OK), 0);
    }
    /* the table: one plain header line, then numbers only; the provenance in OUT.meta */
    assert_int_equal(opsim_converge("experiments/fig5.ini --frame 2 --iterations 5 --solver rotations=jacobi", out), 0);
    FILE *file = fopen(out, "r");
    assert_non_null(file);
    char line[2048];
    int rows = 0;
    assert_non_null(fgets(line, sizeof line, file));
    assert_string_equal(line, "k\tseconds\tenergy\tseconds_lo\tseconds_hi\tnoisy\n");
    while (fgets(line, sizeof line, file)) {
        assert_int_not_equal(line[0], '#');
        int k;
        double seconds, energy;
        assert_int_equal(sscanf(line, "%d\t%lf\t%lf", &k, &seconds, &energy), 3);
        assert_int_equal(k, rows++);
    }
    fclose(file);
    assert_int_equal(rows, 6);
    assert_int_equal(count_lines(meta_of(out), "study solver = arap rotations=jacobi"), 1);
    assert_int_equal(count_lines(meta_of(out), "config = experiments/fig5.ini"), 1);
    assert_int_equal(count_lines(meta_of(out), "h = "), 1);
    assert_int_equal(count_lines(meta_of(out), "#"), 0);
    remove(out);
    remove(meta_of(out));
    /* --fixed-point: a last column, after the timing protocol's interval and noisy mark, from 1
       down to 0 at the fixed point's own count, and the cells */
    assert_int_equal(opsim_converge("experiments/fig5.ini --frame 2 --iterations 8 --fixed-point 8", out), 0);
    file = fopen(out, "r");
    assert_non_null(file);
    rows = 0;
    double error = -1.0;
    assert_non_null(fgets(line, sizeof line, file));
    assert_string_equal(line, "k\tseconds\tenergy\tseconds_lo\tseconds_hi\tnoisy\terror\n");
    while (fgets(line, sizeof line, file)) {
        int k, noisy;
        double seconds, energy, lo, hi;
        assert_int_equal(sscanf(line, "%d\t%lf\t%lf\t%lf\t%lf\t%d\t%lf", &k, &seconds, &energy, &lo, &hi, &noisy, &error),
                         7);
        assert_true(k > 0 || error == 1.0);
        rows++;
    }
    fclose(file);
    assert_int_equal(rows, 9);
    assert_true(error == 0.0);
    assert_int_equal(count_lines(meta_of(out), "own_fields = "), 1);
    assert_int_equal(count_lines(meta_of(out), "fixed point last step = "), 1);
    remove(out);
    remove(meta_of(out));
    assert_int_equal(opsim_converge("experiments/fig5.ini --frame 2 --iterations 8 --fixed-point 0", out), 64);
    assert_int_not_equal(access(out, F_OK), 0);
}

/* --repeats: the same energies as one solve, bitwise, the time to each iteration a median of
 * positive times inside its interval; a repeat needs a study world */
static void test_repeats(void **state)
{
    (void)state;
    const char *gs[] = { "solver.rotations=gs", NULL };
    double one[ITERATIONS + 1], seconds[ITERATIONS + 1], repeated[ITERATIONS + 1], repeated_seconds[ITERATIONS + 1];
    converge(gs, FRAMES, ITERATIONS, one, seconds);
    op_scene scene, study;
    load(&scene, NULL);
    load(&study, gs);
    op_ctx ctx;
    op_ctx_init(&ctx);
    if (op_converge_repeated(&ctx, &scene, &study, FRAMES, ITERATIONS, 3, repeated_seconds, repeated) != OP_OK)
        fail_msg("%s", ctx.message);
    assert_memory_equal(one, repeated, sizeof one);
    for (int k = 1; k <= ITERATIONS; ++k)
        assert_true(repeated_seconds[k] > repeated_seconds[k - 1]);
    op_scene_free(&scene);
    op_scene_free(&study);
    /* the protocol's spread: seconds[k] inside its interval; three repeats are too few for 95 %
     * (noisy, the interval the range); each repeat's wall and CPU time over the whole sub-step
     * at least its iterations' */
    double lo[ITERATIONS + 1], hi[ITERATIONS + 1], wall[3], cpu[3];
    int noisy[ITERATIONS + 1];
    op_converge_spread spread = { .lo = lo, .hi = hi, .noisy = noisy, .wall = wall, .cpu = cpu };
    load(&scene, NULL);
    load(&study, gs);
    op_ctx_init(&ctx);
    if (op_converge_timed(&ctx, &scene, &study, FRAMES, ITERATIONS, 3, repeated_seconds, repeated, &spread) != OP_OK)
        fail_msg("%s", ctx.message);
    assert_memory_equal(one, repeated, sizeof one);
    for (int k = 1; k <= ITERATIONS; ++k) {
        assert_true(lo[k] <= repeated_seconds[k] && repeated_seconds[k] <= hi[k]);
        assert_int_equal(noisy[k], 1);
    }
    for (int r = 0; r < 3; ++r)
        assert_true(wall[r] >= lo[ITERATIONS] && cpu[r] > 0.0);
    op_scene_free(&scene);
    op_scene_free(&study);
    load(&scene, NULL);
    op_ctx_init(&ctx);
    assert_int_equal(op_converge_repeated(&ctx, &scene, NULL, FRAMES, ITERATIONS, 2, repeated_seconds, repeated),
                     OP_ERR_USAGE);
    op_ctx_init(&ctx);
    assert_int_equal(op_converge_repeated(&ctx, &scene, NULL, FRAMES, ITERATIONS, 0, repeated_seconds, repeated),
                     OP_ERR_USAGE);
    op_scene_free(&scene);
}

/* ---- the error against the variant's own fixed point ---------------------------------------- */

/* config to `frames`, then the studied sub-step with study_overrides: error[0 … iterations]
 * against a fixed point of `fixed_iterations` */
static op_converge_fixed_point own_error(const char *scene_config, const char *const *study_overrides, int frames,
                                         int iterations, int fixed_iterations, double *error)
{
    op_scene scene, study;
    test_load_scene(&scene, scene_config, NULL);
    test_load_scene(&study, scene_config, study_overrides);
    double *seconds = calloc((size_t)iterations + 1, sizeof(double));
    double *energy = calloc((size_t)iterations + 1, sizeof(double));
    assert_non_null(seconds && energy);
    op_converge_fixed_point fixed = { .iterations = fixed_iterations, .error = error };
    op_ctx ctx;
    op_ctx_init(&ctx);
    if (op_converge_to_fixed_point(&ctx, &scene, &study, frames, iterations, 1, seconds, energy, &fixed) != OP_OK)
        fail_msg("%s", ctx.message);
    free(seconds);
    free(energy);
    op_scene_free(&scene);
    op_scene_free(&study);
    return fixed;
}

static void test_error_against_the_own_fixed_point(void **state)
{
    (void)state;
    enum { N = 40 };
    double error[N + 1];
    const char *const *variants[] = {
        (const char *const[]){ "solver.rotations=gs", NULL },
        (const char *const[]){ "solver.name=shape-matching", NULL },
        (const char *const[]){ "solver.name=shape-matching", "solver.order=gs", NULL },
        (const char *const[]){ "solver.name=springs", NULL },
    };
    for (size_t v = 0; v < sizeof variants / sizeof *variants; ++v) {
        /* x* after N iterations, the studied sub-step N iterations: the last iterate is x*, bitwise */
        op_converge_fixed_point fixed = own_error(config, variants[v], FRAMES, N, N, error);
        print_message("%s: error after 1, 10, %d: %.3g %.3g %.3g; last step %.3g\n", variants[v][0], N - 1,
                      error[1], error[10], error[N - 1], fixed.last_step);
        assert_true(error[0] == 1.0 && error[N] == 0.0);
        assert_true(error[N - 1] > 0.0 && error[N - 1] < error[1]);
        assert_false(fixed.single_update);
        assert_true(fixed.last_step > 0.0);
    }
    /* Gauss–Seidel arap converges: 300 iterations to 1e-2 of its own x* (measured 79 on this sub-step) */
    static double more[301];
    own_error(config, variants[0], FRAMES, 300, 3000, more);
    int reached = op_converge_reached(more, 301, 1e-2);
    print_message("arap gs: 1e-2 of its own x* after %d iterations\n", reached);
    assert_true(reached > 10 && reached < 300);
}

static void test_single_update_is_named(void **state)
{
    (void)state;
    double error[11];
    const char *const goals_start[] = { "solver.goals=start", NULL };
    op_converge_fixed_point fixed = own_error("experiments/meshless-spring.ini", goals_start, 2, 10, 50, error);
    assert_true(fixed.single_update);
    assert_true(error[0] == 1.0 && fixed.last_step == 0.0);
    for (int k = 1; k <= 10; ++k)
        assert_true(error[k] == 0.0);
    const char *const goals_predicted[] = { "solver.goals=predicted", NULL };
    fixed = own_error("experiments/meshless-spring.ini", goals_predicted, 2, 10, 50, error);
    assert_false(fixed.single_update);
}

/* ---- several solvers on one sub-step, interleaved (op_converge_studies, --study) ------------ */

static void test_turns_go_round_the_studies(void **state)
{
    (void)state;
    /* round r begins with subject r mod count and takes each once */
    static const int expected[3][3] = { { 0, 1, 2 }, { 1, 2, 0 }, { 2, 0, 1 } };
    for (int r = 0; r < 6; ++r)
        for (int p = 0; p < 3; ++p)
            assert_int_equal(op_converge_turn(r, p, 3), expected[r % 3][p]);
    assert_int_equal(op_converge_turn(5, 0, 1), 0);
}

enum { STUDIES = 3, STUDY_ITERATIONS = 20, STUDY_REPEATS = 3, STUDY_FIXED = 40 };
static const char *const study_gs[] = { "solver.rotations=gs", NULL };
static const char *const study_shape[] = { "solver.name=shape-matching", NULL };
static const char *const *const study_overrides[STUDIES] = { study_gs, jacobi_chebyshev, study_shape };

/* What one subject of op_converge_studies records. */
typedef struct study_result {
    double seconds[STUDY_ITERATIONS + 1], energy[STUDY_ITERATIONS + 1], error[STUDY_ITERATIONS + 1];
    double lo[STUDY_ITERATIONS + 1], hi[STUDY_ITERATIONS + 1], wall[STUDY_REPEATS], cpu[STUDY_REPEATS],
        start[STUDY_REPEATS];
    int noisy[STUDY_ITERATIONS + 1];
    op_converge_fixed_point fixed;
    op_converge_spread spread;
} study_result;

static void wire(study_result *r)
{
    r->fixed = (op_converge_fixed_point){ .iterations = STUDY_FIXED, .error = r->error };
    r->spread = (op_converge_spread){ .lo = r->lo, .hi = r->hi, .noisy = r->noisy, .wall = r->wall, .cpu = r->cpu,
                                      .start = r->start };
}

/* The three studied together give each one's energies and errors bitwise as it gives alone;
 * their timed solves ran round by round in op_converge_turn's order, each time inside its
 * interval. */
static void test_studies_are_single_runs_interleaved(void **state)
{
    (void)state;
    static study_result together[STUDIES], alone;
    op_scene scene, study[STUDIES];
    load(&scene, NULL);
    op_converge_subject subject[STUDIES];
    for (int s = 0; s < STUDIES; ++s) {
        load(&study[s], study_overrides[s]);
        wire(&together[s]);
        subject[s] = (op_converge_subject){ .study = &study[s], .seconds = together[s].seconds,
                                            .energy = together[s].energy, .spread = &together[s].spread,
                                            .fixed = &together[s].fixed };
    }
    op_ctx ctx;
    op_ctx_init(&ctx);
    if (op_converge_studies(&ctx, &scene, subject, STUDIES, FRAMES, STUDY_ITERATIONS, STUDY_REPEATS) != OP_OK)
        fail_msg("%s", ctx.message);
    op_scene_free(&scene);
    for (int s = 0; s < STUDIES; ++s) {
        op_scene_free(&study[s]);
        assert_int_equal(subject[s].failed, 0);
        op_scene one, own;
        load(&one, NULL);
        load(&own, study_overrides[s]);
        wire(&alone);
        op_ctx_init(&ctx);
        if (op_converge_study(&ctx, &one, &own, FRAMES, STUDY_ITERATIONS, 1, alone.seconds, alone.energy, NULL,
                              &alone.fixed) != OP_OK)
            fail_msg("%s", ctx.message);
        assert_memory_equal(together[s].energy, alone.energy, sizeof alone.energy);
        assert_memory_equal(together[s].error, alone.error, sizeof alone.error);
        assert_memory_equal(&together[s].fixed.last_step, &alone.fixed.last_step, sizeof(double));
        assert_int_equal(together[s].fixed.single_update, alone.fixed.single_update);
        op_scene_free(&one);
        op_scene_free(&own);
        for (int k = 1; k <= STUDY_ITERATIONS; ++k)
            assert_true(together[s].lo[k] <= together[s].seconds[k] && together[s].seconds[k] <= together[s].hi[k]);
    }
    /* the studies differ (else the equalities above say little) */
    assert_memory_not_equal(together[0].energy, together[1].energy, sizeof alone.energy);
    assert_memory_not_equal(together[0].error, together[2].error, sizeof alone.error);
    /* the timed solves' starts, taken in turn order, only grow: A B C, B C A, C A B */
    double last = -1.0;
    for (int r = 0; r < STUDY_REPEATS; ++r)
        for (int p = 0; p < STUDIES; ++p) {
            double start = together[op_converge_turn(r, p, STUDIES)].start[r];
            assert_true(start > last);
            last = start;
        }
    assert_true(together[0].start[0] >= 0.0);
}

/* A file's first line starting with `key`, after it, without the newline ("" when none). */
static const char *meta_value(const char *path, const char *key)
{
    static char value[4096];
    value[0] = '\0';
    FILE *file = fopen(path, "r");
    if (!file)
        return value;
    char line[4096];
    while (fgets(line, sizeof line, file))
        if (strncmp(line, key, strlen(key)) == 0) {
            snprintf(value, sizeof value, "%.*s", (int)strcspn(line + strlen(key), "\n"), line + strlen(key));
            break;
        }
    fclose(file);
    return value;
}

/* Tab-separated cell `index` of `line` into cell (up to a tab or newline). */
static void cell_of(const char *line, int index, char *cell, size_t size)
{
    for (int c = 0; c < index && line; ++c)
        line = (line = strchr(line, '\t')) ? line + 1 : NULL;
    if (!line) {
        fail_msg("no cell %d", index);
        return;
    }
    snprintf(cell, size, "%.*s", (int)strcspn(line, "\t\n"), line);
}

/* Row k of a converge table (after its header line). */
static const char *row_of(const char *table, int k)
{
    const char *line = table;
    for (int r = 0; r <= k && line; ++r)
        line = (line = strchr(line, '\n')) ? line + 1 : NULL;
    assert_non_null(line);
    return line;
}

static char study_dir[512];

static const char *in_study(const char *name)
{
    return test_join(study_dir, name);
}

/* own_interval of a study: for a tolerance reached, the ms interval and noisy flag of the row
 * own_fields names, from the table (its %.17g seconds), the ms inside it and the flag by the 5 %
 * rule; the words three times where own_fields has a word; and convergence-cells' last nine
 * cells the same */
static void check_own_interval(const char *label, int reached_expected)
{
    char table_name[64], meta_name[64], own[4096], interval[4096], cell[256];
    snprintf(table_name, sizeof table_name, "%s.tsv", label);
    snprintf(meta_name, sizeof meta_name, "%s.tsv.meta", label);
    snprintf(own, sizeof own, "%s", meta_value(in_study(meta_name), "own_fields = "));
    snprintf(interval, sizeof interval, "%s", meta_value(in_study(meta_name), "own_interval = "));
    char *table = test_read_file(in_study(table_name));
    assert_non_null(table);
    int reached = 0;
    for (int t = 0; t < 3; ++t) {
        char k_text[64], ms[64], lo[64], hi[64], noisy[64];
        cell_of(own, 2 * t, k_text, sizeof k_text);
        cell_of(own, 2 * t + 1, ms, sizeof ms);
        cell_of(interval, 3 * t, lo, sizeof lo);
        cell_of(interval, 3 * t + 1, hi, sizeof hi);
        cell_of(interval, 3 * t + 2, noisy, sizeof noisy);
        char *end;
        long k = strtol(k_text, &end, 10);
        if (end == k_text) { /* a word: the same word in the interval's three cells */
            assert_string_equal(lo, k_text);
            assert_string_equal(hi, k_text);
            assert_string_equal(noisy, k_text);
            continue;
        }
        reached++;
        const char *row = row_of(table, (int)k);
        cell_of(row, 3, cell, sizeof cell);
        double row_lo = strtod(cell, NULL);
        cell_of(row, 4, cell, sizeof cell);
        double row_hi = strtod(cell, NULL);
        cell_of(row, 1, cell, sizeof cell);
        double row_median = strtod(cell, NULL);
        char expected[64];
        snprintf(expected, sizeof expected, "%.3f", 1e3 * row_lo);
        assert_string_equal(lo, expected);
        snprintf(expected, sizeof expected, "%.3f", 1e3 * row_hi);
        assert_string_equal(hi, expected);
        assert_true(strtod(lo, NULL) <= strtod(ms, NULL) && strtod(ms, NULL) <= strtod(hi, NULL));
        assert_true(row_lo > 0.0 && row_lo <= row_median && row_median <= row_hi);
        assert_int_equal(atoi(noisy), (row_hi - row_lo) / 2 > 0.05 * row_median);
        cell_of(row, 5, cell, sizeof cell);
        assert_string_equal(noisy, cell);
    }
    assert_int_equal(reached, reached_expected);
    free(table);
    /* convergence-cells: the same nine cells after its seventeen */
    assert_int_equal(test_shell("bin/opsim-report convergence-cells --reference '%s' --run '%s' --at 3 > '%s'",
                                in_study("gs.tsv"), in_study(table_name), in_study("cells.txt")),
                     0);
    char *cells = test_read_file(in_study("cells.txt"));
    assert_non_null(cells);
    const char *own_cells = cells;
    for (int c = 0; c < 17; ++c)
        own_cells = strchr(own_cells, '\t') + 1;
    assert_int_equal(strncmp(own_cells, interval, strlen(interval)), 0);
    assert_string_equal(own_cells + strlen(interval), "\n");
    free(cells);
}

/* Whether two converge tables hold the same k, energy and error columns, byte for byte. */
static int same_results(const char *a, const char *b)
{
    return test_shell("cut -f1,3,7 '%s' > '%s.cut' && cut -f1,3,7 '%s' > '%s.cut' && cmp -s '%s.cut' '%s.cut'", a, a, b,
                      b, a, b) == 0;
}

static void test_study_command_line(void **state)
{
    (void)state;
    snprintf(study_dir, sizeof study_dir, "%s", test_tmp_path("-studies"));
    /* two ARAP orders and shape matching, interleaved, six repeats (the fewest with a 95 % interval) */
    const char *common = "experiments/fig5.ini --frame 15 --iterations 120 --fixed-point 3000";
    assert_int_equal(test_shell("bin/opsim converge %s --repeats 6 --study gs:solver.rotations=gs "
                                "--study 'jc:solver.rotations=jacobi;solver.chebyshev=on;solver.chebyshev_rho=0.97' "
                                "--study sm:solver.name=shape-matching --out '%s'",
                                common, study_dir),
                     0);
    /* each table bitwise a single-solver run's (one repeat) in its iterations, energies and errors */
    struct {
        const char *label, *solver;
    } alone[] = { { "gs", "--solver rotations=gs" },
                  { "jc", "--solver rotations=jacobi --solver chebyshev=on --solver chebyshev_rho=0.97" },
                  { "sm", "--solver name=shape-matching" } };
    for (size_t a = 0; a < sizeof alone / sizeof *alone; ++a) {
        char name[64];
        snprintf(name, sizeof name, "%s-alone.tsv", alone[a].label);
        assert_int_equal(test_shell("bin/opsim converge %s %s --out '%s'", common, alone[a].solver, in_study(name)), 0);
        snprintf(name, sizeof name, "%s.tsv", alone[a].label);
        char other[64];
        snprintf(other, sizeof other, "%s-alone.tsv", alone[a].label);
        assert_true(same_results(in_study(name), in_study(other)));
    }
    assert_string_equal(meta_value(in_study("jc.tsv.meta"), "study = "), "jc");
    assert_int_equal(strncmp(meta_value(in_study("jc.tsv.meta"), "studies = "), "gs jc sm (", 10), 0);
    assert_int_equal(count_lines(in_study("jc.tsv.meta"), "study set = solver."), 3);
    assert_int_equal(count_lines(in_study("sm.tsv.meta"), "repeat 6 = wall "), 1);
    /* own_ms's interval: gs and jc reach 1e-2 of their own x* (gs measured at 79), shape
       matching's one-ring groups never settle (words) */
    check_own_interval("gs", 1);
    check_own_interval("jc", 1);
    check_own_interval("sm", 0);
}

/* A bad --study is refused before anything runs, the spec named; a study that fails in its
 * solves is named and no study's table is left. */
static void test_bad_studies_are_named(void **state)
{
    (void)state;
    const char *out = test_tmp_path("-bad-studies"), *err = test_tmp_path(".err");
    const struct {
        const char *spec, *message;
        int status;
    } bad[] = {
        { "gs", "opsim converge: --study 'gs': expected LABEL:", 64 },
        { ":solver.rotations=gs", "opsim converge: --study ':solver.rotations=gs': the label", 64 },
        { "a/b:solver.rotations=gs", "opsim converge: --study a/b: a label names files", 64 },
        { "ok:solver.rotations=jacobi", "opsim converge: --study ok: the label is given twice", 64 },
        { "w:world.iterations=3", "opsim converge: --study w: 'world.iterations=3' is not a [solver] key", 64 },
        { "r:solver.rotations", "opsim converge: --study r: 'solver.rotations' is not SECTION.KEY=VALUE", 64 },
        { "s:solver.rotations=sideways", "opsim: --study s: experiments/fig5.ini:", 65 },
        { "p:solver.global=pcg;solver.global_tolerance=1e-300", "opsim: --study p: global step", 65 },
    };
    for (size_t c = 0; c < sizeof bad / sizeof *bad; ++c) {
        int status = test_shell("bin/opsim converge experiments/fig5.ini --frame 2 --iterations 5 --repeats 2 "
                                "--study ok:solver.rotations=gs --study '%s' --out '%s' 2> '%s'",
                                bad[c].spec, out, err);
        char *message = test_read_file(err);
        assert_non_null(message);
        if (status != bad[c].status || strncmp(message, bad[c].message, strlen(bad[c].message)) != 0)
            fail_msg("--study %s: exit %d, '%s'; expected %d, '%s…'", bad[c].spec, status, message, bad[c].status,
                     bad[c].message);
        free(message);
        assert_int_not_equal(access(test_join(out, "ok.tsv"), F_OK), 0);
        assert_int_not_equal(access(test_join(out, "ok.tsv.meta"), F_OK), 0);
    }
}

/* --batch: the fall's two studies and the bar's one, their rounds interleaved, each table
 * bitwise its command's alone; a probe row per timed round; a study refused on line 2 named
 * with its line, and no table of line 1 left; a line with --probe refused. */
static void test_batch_runs_each_line_as_alone(void **state)
{
    (void)state;
    char dir[400];
    const char *tmp = test_tmp_path("-batch");
    assert_true(strlen(tmp) < sizeof dir);
    memcpy(dir, tmp, strlen(tmp) + 1);
    const char *fall = "experiments/fig5.ini\t--frame\t2\t--iterations\t30\t--repeats\t3\t--fixed-point\t200\t"
                       "--study\tgs:solver.rotations=gs\t--study\tjc:solver.rotations=jacobi\t--out\t";
    const char *bar = "experiments/fig3.ini\t--frame\t2\t--iterations\t20\t--repeats\t3\t--study\t"
                      "gs:solver.rotations=gs\t--out\t";
    assert_int_equal(test_shell("mkdir -p '%s' && printf '%s%s/fall\\n# the bar\\n\\n%s%s/bar\\n' > '%s/batch.txt'",
                                dir, fall, dir, bar, dir, dir),
                     0);
    assert_int_equal(test_shell("bin/opsim converge --batch '%s/batch.txt' --probe '%s/probe.tsv'", dir, dir), 0);
    assert_int_equal(test_shell("bin/opsim converge experiments/fig5.ini --frame 2 --iterations 30 --repeats 3 "
                                "--fixed-point 200 --study gs:solver.rotations=gs --study jc:solver.rotations=jacobi "
                                "--out '%s/fall-alone' && bin/opsim converge experiments/fig3.ini --frame 2 "
                                "--iterations 20 --repeats 3 --study gs:solver.rotations=gs --out '%s/bar-alone'",
                                dir, dir),
                     0);
    const char *tables[] = { "fall/gs.tsv", "fall/jc.tsv", "bar/gs.tsv" };
    for (int t = 0; t < 3; ++t) {
        char batched[1024], alone[1024];
        snprintf(batched, sizeof batched, "%s/%s", dir, tables[t]);
        snprintf(alone, sizeof alone, "%s/%.*s-alone%s", dir, (int)(strchr(tables[t], '/') - tables[t]), tables[t],
                 strchr(tables[t], '/'));
        if (!same_results(batched, alone))
            fail_msg("%s differs from its command alone", tables[t]);
    }
    snprintf(study_dir, sizeof study_dir, "%s/fall", dir);
    assert_int_equal(count_lines(in_study("jc.tsv.meta"), "repeat 3 = wall "), 1);
    snprintf(study_dir, sizeof study_dir, "%s", dir);
    assert_int_equal(count_lines(in_study("probe.tsv"), "converge\t"), 3);
    assert_int_equal(count_lines(in_study("probe.tsv"), "converge\t3\t"), 1);
    /* line 2 refuses a study: named with its line, nothing of line 1 left */
    assert_int_equal(test_shell("printf '%s%s/fall2\\n%sr:solver.name=rigid\\t--out\\t%s/bar2\\n' > '%s/bad.txt'",
                                fall, dir, "experiments/fig4.ini\t--frame\t1\t--iterations\t5\t--study\t", dir, dir),
                     0);
    assert_int_equal(test_shell("bin/opsim converge --batch '%s/bad.txt' 2> '%s/bad.err'", dir, dir), 65);
    char *message = test_read_file(in_study("bad.err"));
    assert_non_null(message);
    char expected[1024];
    snprintf(expected, sizeof expected, "opsim: --batch %s/bad.txt:2: --study r: experiments/fig4.ini:", dir);
    if (strncmp(message, expected, strlen(expected)) != 0)
        fail_msg("'%s', expected '%s…'", message, expected);
    free(message);
    assert_int_not_equal(access(in_study("fall2/gs.tsv"), F_OK), 0);
    /* a line's own --probe: refused */
    assert_int_equal(test_shell("printf '%s%s/fall3\\t--probe\\t%s/p.tsv\\n' > '%s/probe-line.txt' && "
                                "bin/opsim converge --batch '%s/probe-line.txt' 2> /dev/null",
                                fall, dir, dir, dir, dir),
                     64);
}

static void test_reached(void **state)
{
    (void)state;
    const double r[] = { 1.0, 1e-3, 2e-2, 1e-3, 1e-5, 0.0 / 0.0, 1e-7 };
    assert_int_equal(op_converge_reached(r, 7, 1e-2), 6); /* NaN at 5 is above */
    assert_int_equal(op_converge_reached(r, 5, 1e-2), 3);
    assert_int_equal(op_converge_reached(r, 5, 1e-4), 4);
    assert_int_equal(op_converge_reached(r, 5, 1e-6), -1);
    assert_int_equal(op_converge_reached(r, 1, 1.0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_energy_is_the_substep_start),
        cmocka_unit_test(test_gauss_seidel_never_raises_the_energy),
        cmocka_unit_test(test_runs_are_bitwise_repeatable),
        cmocka_unit_test(test_study_world_solves_the_same_problem),
        cmocka_unit_test(test_bad_frames_and_iterations_fail),
        cmocka_unit_test(test_command_line),
        cmocka_unit_test(test_repeats),
        cmocka_unit_test(test_error_against_the_own_fixed_point),
        cmocka_unit_test(test_single_update_is_named),
        cmocka_unit_test(test_turns_go_round_the_studies),
        cmocka_unit_test(test_studies_are_single_runs_interleaved),
        cmocka_unit_test(test_study_command_line),
        cmocka_unit_test(test_bad_studies_are_named),
        cmocka_unit_test(test_batch_runs_each_line_as_alone),
        cmocka_unit_test(test_reached),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
