/* Tests of core/contact/broad_phase.c and core/contact/collide.c: the broad phase finds exactly the
 * bounding-sphere pairs of a brute force on random clouds (and so every pair the narrow phase calls penetrating) and on bodies
 * placed apart, touching and sunk into each other, in its vector scan and its scalar one; the support
 * distance is the largest reach found by a search over the ellipsoid's surface; one pass
 * resolves an isolated pair exactly, split by inverse mass, with the approach removed and
 * Coulomb friction; two tori dropped onto each other and the floor come to rest apart; the
 * contacts, and a whole world of bodies of four models falling into a heap (the world's per-body
 * stages on threads too, include/opsim/world.h), give bitwise the same state on one thread and on two,
 * and with the search reused between calls as with a fresh one; the run file records what the
 * world reports. Run from the project root (the scenes use data/models.tsv's torus12, dino30,
 * armadillo30 and column10). */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "contact/collide.h"
#include "sim/energy.h"
#include "base/math3.h"
#include "random_cloud.h"
#include "io/record.h"
#include "opsim/scene.h"
#include "kernels/simd.h"
#include "test_scene_load.h"
#include "test_util.h"
#include "base/choice.h"

/* ---- helpers ---- */

/* The cloud's particles in one list, body after body, as the world numbers them. */
typedef struct flat_cloud {
    int count;
    double *position, *bound, *axes, *radii;
    int *group;
} flat_cloud;

static flat_cloud flatten(const random_cloud *cloud)
{
    flat_cloud f = { 0 };
    for (int b = 0; b < cloud->body_count; ++b)
        f.count += cloud->bodies[b].graph->particle_count;
    f.position = calloc(3 * (size_t)f.count, sizeof(double));
    f.bound = calloc((size_t)f.count, sizeof(double));
    f.axes = calloc(9 * (size_t)f.count, sizeof(double));
    f.radii = calloc(3 * (size_t)f.count, sizeof(double));
    f.group = calloc((size_t)f.count, sizeof(int));
    assert_true(f.position && f.bound && f.axes && f.radii && f.group);
    for (int b = 0, g = 0; b < cloud->body_count; ++b) {
        const op_body *body = &cloud->bodies[b];
        for (int i = 0; i < body->graph->particle_count; ++i, ++g) {
            const double *r = &body->graph->radii[3 * i];
            v3_copy(&f.position[3 * g], &body->state.position[3 * i]);
            v3_copy(&f.radii[3 * g], r);
            f.bound[g] = fmax(r[0], fmax(r[1], r[2]));
            m3_mul(&f.axes[9 * g], &body->state.rotation[9 * i], &body->graph->rest_axes[9 * i]);
            f.group[g] = b;
        }
    }
    return f;
}

static void flat_free(flat_cloud *f)
{
    free(f->position);
    free(f->bound);
    free(f->axes);
    free(f->radii);
    free(f->group);
}

static int compare_pair(const void *a, const void *b)
{
    const op_pair *p = a, *q = b;
    return p->i != q->i ? (p->i > q->i) - (p->i < q->i) : (p->j > q->j) - (p->j < q->j);
}

/* h_i(n) + h_j(n) − |x_j − x_i| along the centre line, as collide.h defines it. */
static double penetration(const flat_cloud *f, int i, int j)
{
    double n[3];
    v3_sub(n, &f->position[3 * j], &f->position[3 * i]);
    double length = v3_norm(n);
    v3_scale(n, n, 1.0 / length);
    return op_support_distance(&f->axes[9 * i], &f->radii[3 * i], n) +
           op_support_distance(&f->axes[9 * j], &f->radii[3 * j], n) - length;
}

static void load_text(op_scene *scene, const char *text, int count, const char *const *overrides)
{
    const char *path = test_tmp_path(".ini");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_true(fputs(text, f) >= 0);
    assert_int_equal(fclose(f), 0);
    op_ctx ctx;
    op_ctx_init(&ctx);
    if (op_scene_load(&ctx, path, count, overrides, scene) != OP_OK)
        fail_msg("%s", ctx.message);
}

static void step(op_scene *scene, op_frame_stats *stats)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    if (op_world_step(&ctx, &scene->world, stats) != OP_OK)
        fail_msg("%s", ctx.message);
}

/* ---- the broad phase ---- */

typedef struct cloud_case {
    uint64_t seed;
    int bodies, per_body;
    double side, r_min, r_max, margin;
} cloud_case;

/* Every case but the one-body cloud has 512 particles or more, so two threads do share it. */
static const cloud_case clouds[] = {
    { 1, 8, 80, 1.0, 0.01, 0.08, 0.0 },     /* dense */
    { 2, 20, 30, 3.0, 0.02, 0.06, 0.01 },   /* sparse, with a margin */
    { 3, 3, 200, 0.5, 0.005, 0.05, 0.0 },   /* few bodies, many particles each */
    { 4, 50, 20, 2.0, 0.001, 0.1, 0.0 },    /* a hundredfold range of sizes */
    { 5, 1, 300, 0.5, 0.01, 0.05, 0.0 },    /* one body: never a pair */
    { 6, 8, 80, 1.0, 0.01, 0.08, 0.0 },     /* as the first, one particle flung 10^7 m away */
};

/* The random cloud of case k. */
static void make_cloud(const cloud_case *k, random_cloud *cloud)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    *cloud = (random_cloud){ 0 };
    if (random_cloud_make(&ctx, cloud, k->seed, k->bodies, k->per_body, k->side, k->r_min, k->r_max) != OP_OK)
        fail_msg("%s", ctx.message);
}

/* Every pair (i < j) of different groups with |x_i − x_j| < ρ_i + ρ_j + margin, in (i, j)
 * order, by brute force; *count of them. */
static op_pair *brute_pairs(int n, const double *position, const double *bound, const int *group, double margin,
                            int *count)
{
    int capacity = 1024;
    op_pair *pairs = malloc((size_t)capacity * sizeof *pairs);
    assert_non_null(pairs);
    *count = 0;
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
            double reach = bound[i] + bound[j] + margin;
            if (group[i] == group[j] || !(v3_dist2(&position[3 * i], &position[3 * j]) < reach * reach))
                continue;
            if (*count == capacity)
                assert_non_null(pairs = realloc(pairs, (size_t)(capacity *= 2) * sizeof *pairs));
            pairs[(*count)++] = (op_pair){ i, j };
        }
    return pairs;
}

/* bp's pairs are exactly `expected` (of `count`); what names the case otherwise. */
static void assert_pairs(const op_broad_phase *bp, const op_pair *expected, int count, const char *what)
{
    if (bp->pair_count != count)
        fail_msg("%s: %d pairs, brute force %d", what, bp->pair_count, count);
    for (int p = 0; p < count; ++p)
        if (compare_pair(&bp->pairs[p], &expected[p]) != 0)
            fail_msg("%s: pair %d is (%d, %d), brute force (%d, %d)", what, p, bp->pairs[p].i, bp->pairs[p].j,
                     expected[p].i, expected[p].j);
}

/* The broad phase's scans: 2 with AVX-512 where the CPU has it, 1 with AVX alone, 0 scalar. */
static void use_vectors(int level)
{
    op_simd_avx(level > 0);
    op_simd_avx512(level > 1);
}

static void test_broad_phase_matches_brute_force(void **state)
{
    (void)state;
    for (size_t c = 0; c < sizeof clouds / sizeof clouds[0]; ++c) {
        const cloud_case *k = &clouds[c];
        op_ctx ctx;
        op_ctx_init(&ctx);
        random_cloud cloud;
        make_cloud(k, &cloud);
        flat_cloud f = flatten(&cloud);
        if (k->seed == 6)
            f.position[0] = 1e7;
        int expected, penetrating = 0;
        op_pair *brute = brute_pairs(f.count, f.position, f.bound, f.group, k->margin, &expected);
        for (int run = 0; run < 6; ++run) { /* 1 and 2 threads, the vector scans and the scalar one */
            int threads = 1 + run % 2, vector = 2 - run / 2;
            omp_set_num_threads(threads);
            use_vectors(vector);
            op_broad_phase bp = { 0 };
            assert_int_equal(op_broad_phase_find(&ctx, &bp, f.count, f.position, f.bound, f.group, k->margin), OP_OK);
            char what[64];
            snprintf(what, sizeof what, "cloud %d, %d threads, vector %d", (int)k->seed, threads, vector);
            assert_pairs(&bp, brute, expected, what);
            /* the bounding sphere holds the ellipsoid: no penetrating pair is left out */
            penetrating = 0;
            for (int i = 0; i < f.count; ++i)
                for (int j = i + 1; j < f.count; ++j)
                    if (f.group[i] != f.group[j] && penetration(&f, i, j) > 0) {
                        ++penetrating;
                        assert_non_null(bsearch(&(op_pair){ i, j }, bp.pairs, (size_t)bp.pair_count,
                                                sizeof(op_pair), compare_pair));
                    }
            op_broad_phase_free(&bp);
        }
        print_message("cloud %d: %d particles in %d bodies, %d candidate pairs, %d penetrating\n", (int)k->seed,
                      f.count, k->bodies, expected, penetrating);
        if (k->bodies > 1)
            assert_true(penetrating > 0 && expected > penetrating);
        else
            assert_int_equal(expected, 0);
        free(brute);
        flat_free(&f);
        random_cloud_free(&cloud);
    }
    omp_set_num_threads(2);
    op_simd_avx(1);
}

/* Bodies as balls of particles, placed as a pile's bodies meet: two touching, two sunk into
 * each other, three meeting at a point, two a little apart, one alone 50 m away, and two
 * sharing one ball with their particles alternating in index (so a cell's runs of one group are
 * single particles). A whole search and a refresh after bodies moved (the two apart brought to
 * touch, the far one brought into the pile, so the grid shrinks) give the brute force's pairs,
 * with and without a margin, on one and two threads, in the vector scan and the scalar one. */
static void test_broad_phase_bodies_apart_and_touching(void **state)
{
    (void)state;
    enum { BODIES = 10 };
    static const double centre[BODIES][3] = {
        { 0, 0, 0 },     { 0.35, 0, 0 }, /* touching */
        { 0, 3, 0 },     { 0.3, 3, 0 },  /* sunk into each other */
        { 10, 0, 0 },    { 10.7, 0, 0 }, /* apart */
        { -50, 20, 7 },                  /* alone */
        { 0.175, 0.28, 0 },              /* touching the first two */
        { 5, 5, 5 },     { 5, 5, 5 },    /* one ball, alternating */
    };
    int count = 0, first[BODIES + 1];
    for (int b = 0; b < BODIES; ++b) {
        first[b] = count;
        count += 40 + 7 * b;
    }
    first[BODIES] = count;
    double *position = malloc(3 * (size_t)count * sizeof *position), *bound = malloc((size_t)count * sizeof *bound);
    double *before = malloc(3 * (size_t)count * sizeof *before);
    int *group = malloc((size_t)count * sizeof *group);
    unsigned char *moved = calloc((size_t)count, 1);
    assert_true(position && bound && before && group && moved);
    op_rng rng = op_rng_seeded(7);
    for (int b = 0; b < BODIES; ++b)
        for (int q = first[b]; q < first[b + 1]; ++q) {
            double offset[3];
            do /* a point of the ball of radius 0.25 */
                for (int d = 0; d < 3; ++d)
                    offset[d] = 0.5 * op_rng_uniform(&rng) - 0.25;
            while (v3_dot(offset, offset) > 0.0625);
            v3_add(&position[3 * q], centre[b], offset);
            bound[q] = 0.01 + 0.06 * op_rng_uniform(&rng);
            group[q] = b < 8 ? b : 8 + (q - first[8]) % 2;
        }
    op_ctx ctx;
    op_ctx_init(&ctx);
    memcpy(before, position, 3 * (size_t)count * sizeof *position);
    for (int round = 0; round < 2; ++round) {
        if (round == 1) /* the apart pair brought to touch, the lone body into the pile */
            for (int q = first[5]; q < first[7]; ++q) {
                const double shift5[3] = { -0.3, 0, 0 }, shift6[3] = { 50.5, -19.7, -7 };
                v3_add(&position[3 * q], &position[3 * q], q < first[6] ? shift5 : shift6);
                moved[q] = 1;
            }
        for (int margin_case = 0; margin_case < 2; ++margin_case) {
            double margin = 0.02 * margin_case;
            int expected;
            op_pair *brute = brute_pairs(count, position, bound, group, margin, &expected);
            int between[BODIES][BODIES] = { { 0 } };
            for (int p = 0; p < expected; ++p) { /* by body, the lower first */
                int a = group[brute[p].i], b = group[brute[p].j];
                between[a < b ? a : b][a < b ? b : a]++;
            }
            assert_true(between[0][1] > 0 && between[2][3] > 0 && between[0][7] > 0 && between[1][7] > 0 &&
                        between[8][9] > 0);
            assert_int_equal(between[4][5] > 0, round == 1);
            assert_int_equal(between[0][6] + between[1][6] + between[6][7] > 0, round == 1);
            for (int run = 0; run < 6; ++run) {
                int threads = 1 + run % 2, vector = 2 - run / 2;
                omp_set_num_threads(threads);
                use_vectors(vector);
                char what[80];
                op_broad_phase bp = { 0 };
                if (round == 1) { /* the first round's pairs, then the movers' afresh */
                    assert_int_equal(op_broad_phase_find(&ctx, &bp, count, before, bound, group, margin), OP_OK);
                    assert_int_equal(op_broad_phase_refresh(&ctx, &bp, count, position, bound, group, margin, moved),
                                     OP_OK);
                    snprintf(what, sizeof what, "refresh, margin %g, %d threads, vector %d", margin, threads, vector);
                    assert_pairs(&bp, brute, expected, what);
                    op_broad_phase_free(&bp);
                }
                assert_int_equal(op_broad_phase_find(&ctx, &bp, count, position, bound, group, margin), OP_OK);
                snprintf(what, sizeof what, "round %d, margin %g, %d threads, vector %d", round, margin, threads,
                         vector);
                assert_pairs(&bp, brute, expected, what);
                op_broad_phase_free(&bp);
            }
            if (margin_case == 0)
                print_message("round %d: %d particles in %d bodies, %d candidate pairs\n", round, count, BODIES,
                              expected);
            free(brute);
        }
    }
    omp_set_num_threads(2);
    op_simd_avx(1);
    free(position);
    free(before);
    free(bound);
    free(group);
    free(moved);
}

/* Moves `count` random particles of f by up to `step` along each axis, marking them in moved. */
static void move_some(flat_cloud *f, op_rng *rng, int count, double step, unsigned char *moved)
{
    memset(moved, 0, (size_t)f->count);
    for (int m = 0; m < count; ++m) {
        int q = (int)(op_rng_uniform(rng) * f->count);
        moved[q] = 1;
        for (int d = 0; d < 3; ++d)
            f->position[3 * q + d] += step * (2.0 * op_rng_uniform(rng) - 1.0);
    }
}

/* A refresh after some particles moved (a few, many, some flung far enough to widen the grid,
 * none) gives exactly the pairs a fresh search at the new positions gives, on one thread and on
 * two (the moved particles shared between them), in the vector scan and the scalar one, however
 * many refreshes follow one another. */
static void test_broad_phase_refresh_matches_search(void **state)
{
    (void)state;
    static const struct {
        int movers;
        double step;
    } rounds[] = { { 5, 0.05 }, { 200, 0.02 }, { 40, 0.3 }, { 0, 0.0 }, { 3, 2.0 }, { 600, 0.1 }, { 1, 0.01 } };
    for (size_t c = 0; c < 4; ++c) {
        const cloud_case *k = &clouds[c];
        op_ctx ctx;
        op_ctx_init(&ctx);
        random_cloud cloud;
        make_cloud(k, &cloud);
        for (int run = 0; run < 6; ++run) {
            int threads = 1 + run % 2, vector = 2 - run / 2;
            omp_set_num_threads(threads);
            use_vectors(vector);
            flat_cloud f = flatten(&cloud);
            unsigned char *moved = malloc((size_t)f.count);
            assert_non_null(moved);
            op_rng rng = op_rng_seeded(100 + k->seed);
            op_broad_phase kept = { 0 };
            assert_int_equal(op_broad_phase_find(&ctx, &kept, f.count, f.position, f.bound, f.group, k->margin), OP_OK);
            int changed = 0;
            for (size_t r = 0; r < sizeof rounds / sizeof rounds[0]; ++r) {
                int before = kept.pair_count;
                op_pair *previous = malloc(((size_t)before + 1) * sizeof *previous);
                assert_non_null(previous);
                memcpy(previous, kept.pairs, (size_t)before * sizeof *previous);
                move_some(&f, &rng, rounds[r].movers, rounds[r].step, moved);
                assert_int_equal(op_broad_phase_refresh(&ctx, &kept, f.count, f.position, f.bound, f.group, k->margin,
                                                        moved),
                                 OP_OK);
                op_broad_phase fresh = { 0 };
                assert_int_equal(op_broad_phase_find(&ctx, &fresh, f.count, f.position, f.bound, f.group, k->margin),
                                 OP_OK);
                assert_int_equal(kept.pair_count, fresh.pair_count);
                for (int p = 0; p < fresh.pair_count; ++p)
                    if (compare_pair(&kept.pairs[p], &fresh.pairs[p]) != 0)
                        fail_msg("cloud %d, %d threads, vector %d, round %d: pair %d is (%d, %d), a fresh search's "
                                 "(%d, %d)",
                                 (int)k->seed, threads, vector, (int)r, p, kept.pairs[p].i, kept.pairs[p].j,
                                 fresh.pairs[p].i, fresh.pairs[p].j);
                changed += kept.pair_count != before ||
                           memcmp(previous, kept.pairs, (size_t)before * sizeof *previous) != 0;
                free(previous);
                op_broad_phase_free(&fresh);
            }
            assert_true(changed >= 3); /* the moves did change the pairs */
            op_broad_phase_free(&kept);
            free(moved);
            flat_free(&f);
        }
        random_cloud_free(&cloud);
    }
    omp_set_num_threads(2);
    op_simd_avx(1);
}

/* A refresh from no pairs to many and back to none (the merge's ranges split an empty old list,
 * then keep nothing of a full one): two balls of particles apart, one moved into the other, then
 * away again; on one thread and on two, each refresh gives a fresh search's pairs. */
static void test_broad_phase_refresh_from_and_to_no_pairs(void **state)
{
    (void)state;
    enum { PER_BALL = 150, COUNT = 2 * PER_BALL };
    double position[3 * COUNT], bound[COUNT];
    int group[COUNT];
    unsigned char moved[COUNT];
    op_rng rng = op_rng_seeded(11);
    for (int q = 0; q < COUNT; ++q) {
        double offset[3];
        do /* a point of the ball of radius 0.25 */
            for (int d = 0; d < 3; ++d)
                offset[d] = 0.5 * op_rng_uniform(&rng) - 0.25;
        while (v3_dot(offset, offset) > 0.0625);
        const double centre[3] = { q < PER_BALL ? 0.0 : 3.0, 0, 0 };
        v3_add(&position[3 * q], centre, offset);
        bound[q] = 0.02 + 0.04 * op_rng_uniform(&rng);
        group[q] = q / PER_BALL;
        moved[q] = q >= PER_BALL;
    }
    op_ctx ctx;
    op_ctx_init(&ctx);
    for (int threads = 1; threads <= 2; ++threads) {
        omp_set_num_threads(threads);
        double start[3 * COUNT];
        memcpy(start, position, sizeof start);
        op_broad_phase kept = { 0 };
        assert_int_equal(op_broad_phase_find(&ctx, &kept, COUNT, position, bound, group, 0.01), OP_OK);
        assert_int_equal(kept.pair_count, 0);
        const double shift[2] = { -2.8, 2.8 }; /* into the first ball, then back out */
        for (int round = 0; round < 2; ++round) {
            for (int q = PER_BALL; q < COUNT; ++q)
                position[3 * q] += shift[round];
            assert_int_equal(op_broad_phase_refresh(&ctx, &kept, COUNT, position, bound, group, 0.01, moved), OP_OK);
            op_broad_phase fresh = { 0 };
            assert_int_equal(op_broad_phase_find(&ctx, &fresh, COUNT, position, bound, group, 0.01), OP_OK);
            if (round == 0)
                assert_true(fresh.pair_count > 0);
            else
                assert_int_equal(fresh.pair_count, 0);
            assert_int_equal(kept.pair_count, fresh.pair_count);
            for (int p = 0; p < fresh.pair_count; ++p)
                assert_int_equal(compare_pair(&kept.pairs[p], &fresh.pairs[p]), 0);
            op_broad_phase_free(&fresh);
        }
        op_broad_phase_free(&kept);
        memcpy(position, start, sizeof start);
    }
    omp_set_num_threads(2);
}

/* One workspace used on two threads for a cloud, then on one thread for a few of its particles
 * (as under collision_threads = one): the second call gives the brute force's pairs, none left
 * over from the other thread's share of the first. */
static void test_broad_phase_reused_for_fewer_particles(void **state)
{
    (void)state;
    enum { FEW = 48, BODIES_TAKEN = 6 };
    random_cloud cloud;
    make_cloud(&clouds[0], &cloud);
    flat_cloud f = flatten(&cloud);
    double position[3 * FEW], bound[FEW];
    int group[FEW], per_body = clouds[0].per_body;
    for (int q = 0; q < FEW; ++q) { /* the first particles of each of the first bodies */
        int from = (q % BODIES_TAKEN) * per_body + q / BODIES_TAKEN;
        v3_copy(&position[3 * q], &f.position[3 * from]);
        bound[q] = f.bound[from];
        group[q] = f.group[from];
    }
    omp_set_num_threads(2);
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_broad_phase bp = { 0 };
    assert_int_equal(op_broad_phase_find(&ctx, &bp, f.count, f.position, f.bound, f.group, 0.0), OP_OK);
    assert_true(bp.thread_capacity == 2 && bp.thread_pair_count[0] > 0 && bp.thread_pair_count[1] > 0);
    omp_set_num_threads(1);
    assert_int_equal(op_broad_phase_find(&ctx, &bp, FEW, position, bound, group, 0.0), OP_OK);
    omp_set_num_threads(2);
    int expected;
    op_pair *brute = brute_pairs(FEW, position, bound, group, 0.0, &expected);
    assert_true(expected > 0);
    assert_pairs(&bp, brute, expected, "48 particles after 640");
    free(brute);
    op_broad_phase_free(&bp);
    flat_free(&f);
    random_cloud_free(&cloud);
}

static void test_broad_phase_rejects_bad_input(void **state)
{
    (void)state;
    double position[6] = { 0, 0, 0, NAN, 0, 0 }, bound[2] = { 0.1, 0.1 };
    int group[2] = { 0, 1 };
    op_broad_phase bp = { 0 };
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_broad_phase_find(&ctx, &bp, 2, position, bound, group, 0.0), OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "particle 1"));
    position[3] = 0.05;
    op_ctx_init(&ctx);
    assert_int_equal(op_broad_phase_find(&ctx, &bp, 2, position, bound, group, -1.0), OP_ERR_INVALID);
    op_ctx_init(&ctx);
    assert_int_equal(op_broad_phase_find(&ctx, &bp, 2, position, bound, group, 0.0), OP_OK);
    assert_int_equal(bp.pair_count, 1);
    op_broad_phase_free(&bp);
}

/* ---- the support distance ---- */

/* The largest n·(p − x) over the surface points p = x + E diag(r) s, |s| = 1, found without
 * the closed form: the best of a grid over the sphere, then grids ever finer on the tangent
 * plane at the best point so far. n·E diag(r) s falls with the angle between s and its
 * maximiser, so the best grid point is the nearest one and the maximiser stays in the window. */
static double support_by_search(const double axes[9], const double radii[3], const double n[3])
{
    double c[3]; /* the value at s is c·s */
    m3_mul_tv(c, axes, n);
    for (int a = 0; a < 3; ++a)
        c[a] *= radii[a];
    double best[3] = { 0, 0, 1 }, value = -INFINITY;
    for (int t = 0; t <= 32; ++t)
        for (int p = 0; p < 64; ++p) {
            double theta = M_PI * t / 32, phi = 2 * M_PI * p / 64;
            double s[3] = { sin(theta) * cos(phi), sin(theta) * sin(phi), cos(theta) };
            if (v3_dot(c, s) > value) {
                value = v3_dot(c, s);
                v3_copy(best, s);
            }
        }
    double width = 0.2;
    for (int round = 0; round < 30; ++round, width /= 4) {
        double u[3], w[3], centre[3];
        v3_copy(centre, best);
        v3_cross(u, centre, fabs(centre[0]) < 0.6 ? (const double[3]){ 1, 0, 0 } : (const double[3]){ 0, 1, 0 });
        v3_scale(u, u, 1.0 / v3_norm(u));
        v3_cross(w, centre, u);
        for (int a = -8; a <= 8; ++a)
            for (int b = -8; b <= 8; ++b) {
                double s[3];
                v3_copy(s, centre);
                v3_axpy(s, width * a / 8, u);
                v3_axpy(s, width * b / 8, w);
                v3_scale(s, s, 1.0 / v3_norm(s));
                if (v3_dot(c, s) > value) {
                    value = v3_dot(c, s);
                    v3_copy(best, s);
                }
            }
    }
    return value;
}

static void test_support_distance_matches_search(void **state)
{
    (void)state;
    op_rng rng = op_rng_seeded(17);
    double worst = 0.0, worst_along = 0.0;
    for (int k = 0; k < 300; ++k) {
        double radii[3], axes[9], n[3];
        for (int a = 0; a < 3; ++a)
            radii[a] = 0.01 + op_rng_uniform(&rng);
        random_cloud_rotation(&rng, axes);
        for (int a = 0; a < 3; ++a)
            n[a] = op_rng_uniform(&rng) - 0.5;
        v3_scale(n, n, 1.0 / v3_norm(n));
        double closed = op_support_distance(axes, radii, n), searched = support_by_search(axes, radii, n);
        worst = fmax(worst, fabs(closed - searched) / searched);
        if (!(fabs(closed - searched) <= 1e-9 * searched))
            fail_msg("ellipsoid %d: closed form %.17g, search %.17g", k, closed, searched);
        double support[6];
        op_support_matrix(support, axes, radii);
        double along = op_support_along(support, n);
        worst_along = fmax(worst_along, fabs(along - closed) / closed);
        if (!(fabs(along - closed) <= 1e-14 * closed))
            fail_msg("ellipsoid %d: from the six numbers %.17g, closed form %.17g", k, along, closed);
    }
    print_message("support distance against the surface search: worst relative difference %.3g; six-number form "
                  "against the closed form: %.3g\n",
                  worst, worst_along);
    /* along an axis, the semi-axis itself */
    double axes[9], radii[3] = { 0.3, 0.2, 0.1 };
    random_cloud_rotation(&rng, axes);
    for (int a = 0; a < 3; ++a) {
        double column[3] = { axes[a], axes[3 + a], axes[6 + a] };
        assert_close(op_support_distance(axes, radii, column), radii[a], 1e-15);
    }
}

/* ---- the response ---- */

/* Two one-particle bodies: A, an ellipsoid (0.1, 0.05, 0.05) at the origin; B, a sphere of
 * radius 0.1 at (0.15, 0, 0): p = 0.05 along n = +x. */
typedef struct two_bodies {
    op_model model[2];
    op_body body[2];
} two_bodies;

static void two_bodies_make(two_bodies *t, const double va[3], const double vb[3])
{
    const double radii[2][3] = { { 0.1, 0.05, 0.05 }, { 0.1, 0.1, 0.1 } }, at[2][3] = { { 0, 0, 0 }, { 0.15, 0, 0 } };
    double identity[9];
    m3_identity(identity);
    op_ctx ctx;
    op_ctx_init(&ctx);
    memset(t, 0, sizeof *t);
    for (int b = 0; b < 2; ++b) {
        assert_int_equal(op_graph_alloc(&ctx, &t->model[b].graph, 1, 0), OP_OK);
        v3_copy(t->model[b].graph.radii, radii[b]);
        m3_identity(t->model[b].graph.rest_axes);
        op_graph_derive(&t->model[b].graph, 1000.0);
        assert_int_equal(op_body_init(&ctx, &t->body[b], b ? "b" : "a", &t->model[b], 0.0, identity, at[b]), OP_OK);
        v3_copy(t->body[b].state.velocity, b ? vb : va);
    }
}

static void two_bodies_free(two_bodies *t)
{
    for (int b = 0; b < 2; ++b) {
        op_body_free(&t->body[b]);
        op_graph_free(&t->model[b].graph);
    }
}

static op_contact_stats collide_once(two_bodies *t, double friction)
{
    op_collider collider = { 0 };
    op_contact_def def = { .passes = 1, .rounds = 1, .friction = friction };
    op_contact_stats stats;
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_collide_bodies(&ctx, &collider, t->body, 2, &def, &stats), OP_OK);
    op_collider_free(&collider);
    return stats;
}

static void test_isolated_pair_in_one_pass(void **state)
{
    (void)state;
    const double va[3] = { 1.0, 0.0, 0.5 }, vb[3] = { -1.0, 0.0, 0.0 }, p = 0.05;
    two_bodies t;
    two_bodies_make(&t, va, vb);
    double ma = t.model[0].graph.mass[0], mb = t.model[1].graph.mass[0], wa = 1 / ma, wb = 1 / mb;
    op_contact_stats stats = collide_once(&t, 0.1);
    assert_int_equal(stats.pairs, 1);
    assert_int_equal(stats.contacts, 1);
    assert_le(stats.max_penetration, 1e-15);
    const double *xa = t.body[0].state.position, *xb = t.body[1].state.position;
    const double *ua = t.body[0].state.velocity, *ub = t.body[1].state.velocity;
    /* separated along +x by inverse mass: now touching */
    assert_close(xa[0], -wa / (wa + wb) * p, 1e-15);
    assert_close(xb[0], 0.15 + wb / (wa + wb) * p, 1e-15);
    assert_close(xb[0] - xa[0], 0.2, 1e-15);
    for (int d = 0; d < 3; ++d) /* momentum kept */
        assert_close(ma * ua[d] + mb * ub[d], ma * va[d] + mb * vb[d], 1e-15);
    /* the approach (−2 m/s) removed; friction takes μ·2 = 0.2 m/s off the 0.5 m/s sliding */
    assert_close(ub[0] - ua[0], 0.0, 1e-14);
    assert_close(ub[1] - ua[1], 0.0, 1e-14);
    assert_close(ub[2] - ua[2], -0.3, 1e-14);
    two_bodies_free(&t);

    /* A pinned: B takes the whole separation and the whole velocity change */
    two_bodies_make(&t, va, vb);
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_body_add_pin(&ctx, &t.body[0], 0, 1, 0), OP_OK);
    stats = collide_once(&t, 0.1);
    assert_int_equal(stats.contacts, 1);
    assert_close(t.body[0].state.position[0], 0.0, 0);
    assert_close(t.body[0].state.velocity[0], va[0], 0);
    assert_close(t.body[1].state.position[0], 0.2, 1e-15);
    assert_close(t.body[1].state.velocity[0], va[0], 1e-14);
    two_bodies_free(&t);

    /* both pinned: nothing can move, the pair is skipped */
    two_bodies_make(&t, va, vb);
    assert_int_equal(op_body_add_pin(&ctx, &t.body[0], 0, 1, 0), OP_OK);
    assert_int_equal(op_body_add_pin(&ctx, &t.body[1], 0, 1, 0), OP_OK);
    stats = collide_once(&t, 0.1);
    assert_int_equal(stats.pairs, 1);
    assert_int_equal(stats.contacts, 0);
    assert_close(t.body[1].state.position[0], 0.15, 0);
    two_bodies_free(&t);

    /* already separating: the positions are still pushed apart, the velocities left alone */
    two_bodies_make(&t, (const double[3]){ -1, 0, 0.5 }, (const double[3]){ 1, 0, 0 });
    collide_once(&t, 0.1);
    assert_close(t.body[0].state.velocity[0], -1.0, 0);
    assert_close(t.body[0].state.velocity[2], 0.5, 0);
    assert_close(t.body[1].state.velocity[0], 1.0, 0);
    assert_close(t.body[1].state.position[0] - t.body[0].state.position[0], 0.2, 1e-15);
    two_bodies_free(&t);
}

/* A light particle driven between two heavy particles of another body, as in Fig. 7's 180-model
 * pile during its first impacts (a dino particle of 0.11 kg between two of an armadillo's of
 * 3.1 and 3.4 kg, 136 mm deep, left 53 mm deep by the 8 passes): body A, one sphere of radius 0.02
 * (1/125 of the others' mass) at (0, 0.04, 0) moving at 5 m/s in −y; body B, spheres of radius
 * 0.1 at (±0.1, 0, 0), still. Each pair pushes the light sphere along its centre line, into the
 * other heavy sphere, so the two pairs undo most of each other's correction: the light sphere
 * climbs out of their wedge (in +y) and the heavy ones part by under 1 % of a pair's depth a
 * pass. */
typedef struct pinch {
    op_model model[2];
    op_body body[2];
} pinch;

static void pinch_make(pinch *t)
{
    double identity[9], origin[3] = { 0, 0, 0 };
    m3_identity(identity);
    op_ctx ctx;
    op_ctx_init(&ctx);
    memset(t, 0, sizeof *t);
    for (int b = 0; b < 2; ++b) {
        op_graph *graph = &t->model[b].graph;
        int count = b ? 2 : 1;
        assert_int_equal(op_graph_alloc(&ctx, graph, count, 0), OP_OK);
        for (int i = 0; i < count; ++i) {
            double radius = b ? 0.1 : 0.02;
            v3_set(&graph->radii[3 * i], radius, radius, radius);
            m3_identity(&graph->rest_axes[9 * i]);
            v3_set(&graph->rest_position[3 * i], b ? (i ? 0.1 : -0.1) : 0.0, b ? 0.0 : 0.04, 0.0);
        }
        op_graph_derive(graph, 1000.0);
        assert_int_equal(op_body_init(&ctx, &t->body[b], b ? "heavy" : "light", &t->model[b], 0.0, identity, origin),
                         OP_OK);
    }
    v3_set(t->body[0].state.velocity, 0.0, -5.0, 0.0);
}

static void pinch_free(pinch *t)
{
    for (int b = 0; b < 2; ++b) {
        op_body_free(&t->body[b]);
        op_graph_free(&t->model[b].graph);
    }
}

/* The penetration the passes leave in the pinch with passes_max (passes 8, colour order). */
static op_contact_stats pinch_left(int passes_max, double *light_y)
{
    pinch t;
    pinch_make(&t);
    op_collider collider = { 0 };
    op_contact_def def = { .passes = OP_COLLIDE_DEFAULT_PASSES, .passes_max = passes_max, .rounds = 1, .friction = 0.5 };
    op_contact_stats stats;
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_collide_bodies(&ctx, &collider, t.body, 2, &def, &stats), OP_OK);
    *light_y = t.body[0].state.position[1];
    op_collider_free(&collider);
    pinch_free(&t);
    return stats;
}

static void test_pinched_particle_passes_until_shallow(void **state)
{
    (void)state;
    const double depth = 0.12 - sqrt(0.1 * 0.1 + 0.04 * 0.04), tolerance = OP_COLLIDE_TOLERANCE * 0.02;
    double y_fixed, y_deep, y_none;
    op_contact_stats fixed = pinch_left(0, &y_fixed);
    op_contact_stats deep = pinch_left(OP_COLLIDE_DEFAULT_PASSES_MAX, &y_deep);
    op_contact_stats exact = pinch_left(1000, &y_none);
    print_message("pinch, depth %.2f mm a pair: %d fixed passes leave %.2f mm (light sphere at y = %.2f mm), up to "
                  "%d passes %.3f mm (%.2f mm), up to 1000 %.3f mm; tolerance %.2f mm\n",
                  1e3 * depth, OP_COLLIDE_DEFAULT_PASSES, 1e3 * fixed.max_penetration, 1e3 * y_fixed,
                  OP_COLLIDE_DEFAULT_PASSES_MAX, 1e3 * deep.max_penetration, 1e3 * y_deep, 1e3 * exact.max_penetration,
                  1e3 * tolerance);
    assert_int_equal(fixed.pairs, 2);
    assert_int_equal(deep.contacts, 2);
    /* the 8 passes leave more than the tolerance; the passes past them go on until no pair is
     * deeper than it, and stop there: more allowed passes change nothing */
    assert_true(fixed.max_penetration > 0.5 * depth);
    assert_true(deep.max_penetration <= tolerance);
    assert_memory_equal(&deep.max_penetration, &exact.max_penetration, sizeof(double));
    assert_true(y_deep > y_fixed); /* the light sphere has left the wedge upwards */
}

/* ---- whole scenes ---- */

/* Two 12-particle tori, the upper one offset and tilted, dropped onto each other and the floor;
 * 6 sub-steps x 2 iterations, as the paper's scenes with collisions between models. */
static const char stack_scene[] = "[run]\nframes = 120\n"
                                  "[world]\nsubsteps = 6\niterations = 2\nfloor = 0\nfriction = 0.5\n"
                                  "[body low]\nmodel = torus12\nstiffness = 1e7\nposition = 0 0.2 0\n"
                                  "[body high]\nmodel = torus12\nstiffness = 1e7\nposition = 0.1 0.6 0\n"
                                  "rotation = 1 0 0 15\n";

/* The deepest ellipsoid–ellipsoid penetration over every pair of particles of different
 * bodies, from the bodies' state alone (no broad phase). */
static double deepest_penetration(const op_world *w)
{
    random_cloud as_cloud = { .body_count = w->body_count, .bodies = w->bodies };
    flat_cloud f = flatten(&as_cloud);
    double deepest = 0.0;
    for (int i = 0; i < f.count; ++i)
        for (int j = i + 1; j < f.count; ++j)
            if (f.group[i] != f.group[j])
                deepest = fmax(deepest, penetration(&f, i, j));
    flat_free(&f);
    return deepest;
}

static double mean_height(const op_body *body)
{
    double sum = 0.0;
    for (int i = 0; i < body->graph->particle_count; ++i)
        sum += body->state.position[3 * i + 1];
    return sum / body->graph->particle_count;
}

typedef struct settled {
    double penetration, floor_penetration; /* the largest the world reports over the last second */
    double final_penetration;              /* deepest_penetration at the end */
    double gap, kinetic, smallest_radius;
} settled;

static settled drop_stack(const char *passes, const char *collisions, const char *order)
{
    char set_passes[64], set_collisions[64], set_order[64];
    snprintf(set_passes, sizeof set_passes, "world.collision_passes=%s", passes);
    snprintf(set_collisions, sizeof set_collisions, "world.collisions=%s", collisions);
    snprintf(set_order, sizeof set_order, "world.collision_order=%s", order);
    const char *const overrides[] = { "world.log_energy=false", set_passes, set_collisions, set_order };
    op_scene scene;
    load_text(&scene, stack_scene, 4, overrides);
    settled out = { .smallest_radius = INFINITY };
    for (int b = 0; b < 2; ++b)
        for (int i = 0; i < scene.world.bodies[b].graph->particle_count; ++i)
            out.smallest_radius = fmin(out.smallest_radius, scene.world.bodies[b].graph->radii[3 * i + 2]);
    op_frame_stats stats = { 0 };
    for (int frame = 1; frame <= scene.run.frames; ++frame) {
        step(&scene, &stats);
        if (frame > scene.run.frames - 30) {
            out.penetration = fmax(out.penetration, stats.max_penetration);
            out.floor_penetration = fmax(out.floor_penetration, stats.max_floor_penetration);
        }
    }
    out.final_penetration = deepest_penetration(&scene.world);
    out.gap = mean_height(&scene.world.bodies[1]) - mean_height(&scene.world.bodies[0]);
    out.kinetic = op_energy_motion(&scene.world.bodies[0]) + op_energy_motion(&scene.world.bodies[1]);
    op_scene_free(&scene);
    return out;
}

static void test_stacked_bodies_settle_apart(void **state)
{
    (void)state;
    settled s[4];
    char passes[16];
    for (int k = 0; k < 4; ++k) {
        snprintf(passes, sizeof passes, "%d", 1 << k);
        s[k] = drop_stack(passes, "on", "colours");
        print_message("%d passes: over the last second, penetration %.3g m, below the floor %.3g m (smallest semi-axis "
                      "%.3f m); at rest %.3g m, the upper torus %.3f m above, kinetic energy %.2g J\n",
                      1 << k, s[k].penetration, s[k].floor_penetration, s[k].smallest_radius, s[k].final_penetration,
                      s[k].gap, s[k].kinetic);
    }
    const settled *d = &s[3]; /* OP_COLLIDE_DEFAULT_PASSES */
    assert_int_equal(1 << 3, OP_COLLIDE_DEFAULT_PASSES);
    /* issue 22's bound for a resting pile is 20% of the smallest semi-axis; this stack keeps far
     * less */
    assert_le(d->penetration, 0.05 * d->smallest_radius);
    assert_le(d->floor_penetration, 0.05 * d->smallest_radius);
    assert_le(d->final_penetration, 0.05 * d->smallest_radius);
    assert_true(d->gap > 0.15); /* resting on the lower torus, which rests on the floor */
    /* at rest: kinetic energy below 0.1% of what the fall released (the upper torus, 64 kg, fell
     * 0.2 m onto the lower one: 126 J) */
    assert_le(d->kinetic, 1e-3 * 126.0);
    /* more passes leave less */
    assert_true(s[3].penetration < s[0].penetration);
    /* one pass in colour order leaves less than a Jacobi pass, which splits a particle's
     * corrections among its contacts (measured: 1.2 mm against 5.6 mm) */
    settled jacobi = drop_stack("1", "on", "jacobi");
    print_message("1 Jacobi pass: over the last second, penetration %.3g m\n", jacobi.penetration);
    assert_true(s[0].penetration < 0.5 * jacobi.penetration);
    /* without the contacts the upper torus sinks into the lower one */
    settled off = drop_stack("8", "off", "colours");
    print_message("collisions off: penetration at rest %.3g m, the upper torus %.3f m above\n", off.final_penetration,
                  off.gap);
    assert_true(off.final_penetration > 0.5 * off.smallest_radius);
    assert_true(off.gap < 0.1);
}

/* A random cloud deep in itself (`bodies` bodies of 40 ellipsoids in a unit cube, semi-axes
 * 0.02–0.06, from `seed`) taken through one contact call with *def: the cloud, the collider and
 * the call's stats for the test to read (and free). */
static void collide_dense_cloud(uint64_t seed, int bodies, const op_contact_def *def, random_cloud *cloud,
                                op_collider *c, op_contact_stats *found)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    *cloud = (random_cloud){ 0 };
    *c = (op_collider){ 0 };
    assert_int_equal(random_cloud_make(&ctx, cloud, seed, bodies, 40, 1.0, 0.02, 0.06), OP_OK);
    assert_int_equal(op_collide_bodies(&ctx, c, cloud->bodies, cloud->body_count, def, found), OP_OK);
}

/* The colour order's colouring (collide.h, "Resolution") on a random cloud deep in itself: every
 * candidate pair (the round's, op_collider.passed) of an island that some pair of it penetrated listed once, in one island, its
 * pairs colour by colour (an island none of whose pairs penetrated is left uncoloured); no two pairs of one
 * colour sharing a particle (else the colour's pairs could not be resolved at once) and no two
 * islands sharing one (else two threads could race); no more colours than 2D − 1 for D pairs at
 * the busiest particle. */
static void test_colours_share_no_particle(void **state)
{
    (void)state;
    random_cloud cloud;
    op_collider c;
    op_contact_def def = { .passes = 2, .rounds = 1, .order = OP_CONTACT_ORDER_COLOURS, .friction = 0.5 };
    op_contact_stats found;
    collide_dense_cloud(7, 40, &def, &cloud, &c, &found);
    assert_int_equal(c.passed_count, found.pairs); /* one round: the pairs it found */
    int n = c.body_start[cloud.body_count], most = 0, colours = 0;
    int *degree = calloc((size_t)n, sizeof *degree), *seen_in = calloc((size_t)n, sizeof *seen_in);
    int *island_of = calloc((size_t)n, sizeof *island_of);
    unsigned char *listed = calloc((size_t)found.pairs, 1);
    assert_true(degree && seen_in && island_of && listed);
    for (int k = 0; k < found.pairs; ++k) {
        most = fmax(most, ++degree[c.passed[k].i]);
        most = fmax(most, ++degree[c.passed[k].j]);
    }
    for (int q = 0; q < n; ++q)
        seen_in[q] = island_of[q] = -1;
    assert_int_equal(c.island[0].start, 0);
    assert_int_equal(c.island[c.islands].start, found.pairs);
    int uncoloured = 0;
    for (int s = 0; s < c.islands; ++s) {
        assert_true(c.island[s].start < c.island[s + 1].start); /* none empty */
        if (c.island[s].colours == 0) { /* left uncoloured: none of its pairs ever penetrated */
            for (int e = c.island[s].start; e < c.island[s + 1].start; ++e)
                assert_false(c.touched[c.island_pairs[e]]);
            uncoloured++;
            continue;
        }
        for (int e = c.island[s].start; e < c.island[s + 1].start; ++e) {
            int k = c.colour_order[e], colour = c.colour[k];
            assert_false(listed[k]);
            listed[k] = 1;
            assert_true(colour >= 0 && colour < c.island[s].colours);
            if (e > c.island[s].start)
                assert_true(colour >= c.colour[c.colour_order[e - 1]]);
            /* a particle's pairs are all of one island, and of different colours */
            for (int side = 0; side < 2; ++side) {
                int q = side ? c.passed[k].j : c.passed[k].i;
                assert_true(island_of[q] == -1 || island_of[q] == s);
                island_of[q] = s;
                assert_int_not_equal(seen_in[q], s * found.pairs + colour);
                seen_in[q] = s * found.pairs + colour;
            }
        }
        colours = c.island[s].colours > colours ? c.island[s].colours : colours;
    }
    print_message("%d pairs in %d islands (%d of them uncoloured), up to %d colours, at most %d pairs at a "
                  "particle\n", found.pairs, c.islands, uncoloured, colours, most);
    assert_true(found.pairs > 1000 && colours > 1);
    assert_true(colours <= 2 * most - 1);
    free(degree);
    free(seen_in);
    free(island_of);
    free(listed);
    op_collider_free(&c);
    random_cloud_free(&cloud);
}

/* The contacts' measure of how far their particles reach below the floor (the run file's
 * max_floor_penetration), taken from each particle's h(+y) as gathered for the passes, is
 * op_particle_lowest_point's bit for bit: a random cloud of rotated ellipsoids deep in itself,
 * the floor through it, one contact call. Particles the passes did not move stay below the floor
 * (the world's floor stage, not run here, would lift them), so the measure is not 0. */
static void test_floor_reach_matches_lowest_point(void **state)
{
    (void)state;
    random_cloud cloud;
    op_collider c;
    op_contact_def def = { .passes = 2, .rounds = 1, .order = OP_CONTACT_ORDER_COLOURS, .friction = 0.5, .floor = 1,
                           .floor_height = 0.4 };
    op_contact_stats found;
    collide_dense_cloud(11, 20, &def, &cloud, &c, &found);
    double expected = 0.0;
    int below = 0;
    for (int p = 0; p < c.involved_count; ++p) {
        int q = c.involved[p], b = c.group[q], i = q - c.body_start[b];
        double depth = def.floor_height - op_particle_lowest_point(&cloud.bodies[b], i);
        below += depth > 0;
        expected = op_max(expected, op_max(0.0, depth));
    }
    print_message("%d pairs, %d particles in them, %d below the floor, down to %.3g m\n", found.pairs,
                  c.involved_count, below, expected);
    assert_true(found.pairs > 100 && below > 10);
    assert_true(found.max_floor_penetration == expected);
    op_collider_free(&c);
    random_cloud_free(&cloud);
}

/* Every body's positions, velocities and rotations, in order: n·3, n·3, then n·9 numbers. */
static double *world_state(const op_world *w)
{
    int n = op_world_particle_count(w);
    double *out = calloc(15 * (size_t)n, sizeof(double));
    assert_non_null(out);
    for (int b = 0, g = 0; b < w->body_count; g += w->bodies[b++].graph->particle_count) {
        const op_state *s = &w->bodies[b].state;
        memcpy(&out[3 * g], s->position, 3 * (size_t)s->particle_count * sizeof(double));
        memcpy(&out[3 * n + 3 * g], s->velocity, 3 * (size_t)s->particle_count * sizeof(double));
        memcpy(&out[6 * n + 9 * g], s->rotation, 9 * (size_t)s->particle_count * sizeof(double));
    }
    return out;
}

/* 32 bodies, eight each of torus12, dino30, armadillo30 and column10 (656 particles), in four
 * staggered layers of eight, falling into a heap on the floor over 60 frames. (Not bunny30:
 * building its graph takes seconds.) */
static const char *const heap_models[4] = { "torus12", "dino30", "armadillo30", "column10" };
enum { HEAP_BODIES = 32, HEAP_PARTICLES = 8 * (12 + 30 + 30 + 10) };

static char *heap_scene(void)
{
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    assert_non_null(out);
    fprintf(out, "[run]\nframes = 60\n[world]\nsubsteps = 6\niterations = 2\nfloor = 0\nlog_energy = false\n");
    for (int k = 0; k < HEAP_BODIES; ++k) {
        int layer = k / 8;
        fprintf(out, "[body b%d]\nmodel = %s\nstiffness = 1e7\nposition = %.2f %.2f %.2f\nrotation = 1 0 1 %d\n", k,
                heap_models[(k + layer) % 4], 1.1 * (k % 4) + 0.3 * layer, 0.6 + 1.1 * layer, 1.1 * (k / 4 % 2),
                7 * k);
    }
    fclose(out);
    return text;
}

static void test_same_state_on_one_and_two_threads(void **state)
{
    (void)state;
    /* the module on a random cloud of 4,000 ellipsoids, deep in each other, in either order */
    double *after[2];
    op_contact_stats found[2];
    const int orders[2] = { OP_CONTACT_ORDER_COLOURS, OP_CONTACT_ORDER_JACOBI };
    for (int o = 0; o < 2; ++o) {
        for (int threads = 1; threads <= 2; ++threads) {
            omp_set_num_threads(threads);
            op_ctx ctx;
            op_ctx_init(&ctx);
            random_cloud cloud = { 0 };
            assert_int_equal(random_cloud_make(&ctx, &cloud, 99, 100, 40, 1.6, 0.02, 0.06), OP_OK);
            op_collider collider = { 0 };
            op_contact_def def = { .passes = OP_COLLIDE_DEFAULT_PASSES,
                                   .passes_max = OP_COLLIDE_DEFAULT_PASSES_MAX,
                                   .rounds = OP_COLLIDE_DEFAULT_ROUNDS,
                                   .order = orders[o],
                                   .friction = 0.5 };
            assert_int_equal(
                op_collide_bodies(&ctx, &collider, cloud.bodies, cloud.body_count, &def, &found[threads - 1]), OP_OK);
            op_world as_world = { .body_count = cloud.body_count, .bodies = cloud.bodies };
            after[threads - 1] = world_state(&as_world);
            op_collider_free(&collider);
            random_cloud_free(&cloud);
        }
        print_message("cloud, %s order: %d pairs, %d penetrated, %.3g m left\n", o == 0 ? "colour" : "Jacobi",
                      found[0].pairs, found[0].contacts, found[0].max_penetration);
        assert_true(found[0].pairs > 0 && found[0].contacts > 0);
        assert_int_equal(found[0].pairs, found[1].pairs);
        assert_int_equal(found[0].contacts, found[1].contacts);
        assert_memory_equal(&found[0].max_penetration, &found[1].max_penetration, sizeof(double));
        assert_memory_equal(after[0], after[1], 6 * 4000 * sizeof(double));
        free(after[0]);
        free(after[1]);
    }

    /* a whole world: four models falling into a heap, on one thread (the default collision_threads,
     * auto, with no team: nothing to time), then on two with the contact stage on the team (all),
     * on the calling thread (one) and chosen by timing both (auto) */
    char *text = heap_scene();
    int most_pairs = 0, contacts = 0, floor_contacts = 0, measured = 0;
    enum { RUNS = 4 };
    const char *const contact_threads[RUNS] = { NULL, "world.collision_threads=all", "world.collision_threads=one",
                                                "world.collision_threads=auto" };
    double lowest = INFINITY, *runs[RUNS];
    for (int run = 0; run < RUNS; ++run) {
        int threads = run == 0 ? 1 : 2;
        omp_set_num_threads(threads);
        op_scene scene;
        load_text(&scene, text, contact_threads[run] != NULL, &contact_threads[run]);
        assert_int_equal(op_world_particle_count(&scene.world), HEAP_PARTICLES);
        assert_true(scene.world.schedule->parallel);
        op_frame_stats stats = { 0 };
        for (int frame = 0; frame < scene.run.frames; ++frame) {
            step(&scene, &stats);
            most_pairs = stats.collision_pairs > most_pairs ? stats.collision_pairs : most_pairs;
            contacts += stats.collision_contacts;
            floor_contacts += stats.floor_contacts;
            /* auto records the cores' hand-over where there is a team; its first frame (six
             * sub-steps) calibrates, both options in turn */
            if (run == 3) {
                if (!(stats.handoff_ns > 0))
                    fail_msg("frame %d: auto on two threads measured no hand-over (%g ns)", frame, stats.handoff_ns);
                if (frame == 2) /* after the units' calibration (frames 0 and 1): choice.h, "Turns" */
                    assert_int_equal(stats.collision_threads, OP_CONTACT_THREADS_AUTO);
                measured++;
            } else if (run == 0) {
                assert_true(isnan(stats.handoff_ns));
                assert_int_equal(stats.collision_threads, OP_CONTACT_THREADS_ALL);
            } else {
                assert_true(isnan(stats.handoff_ns));
                assert_int_equal(stats.collision_threads, run == 2 ? OP_CONTACT_THREADS_ONE : OP_CONTACT_THREADS_ALL);
            }
        }
        if (run == 3) { /* 60 frames of 6 cycles: the first calibration and the one after 288 cycles */
            assert_int_equal(scene.world.contact_choice->calibrations, 2);
            assert_true(scene.world.contact_choice->median[0] > 0 && scene.world.contact_choice->median[1] > 0);
        }
        /* the contact stage's one thread leaves the bodies' stages their team */
        assert_int_equal(omp_get_max_threads(), threads);
        for (int b = 0; b < HEAP_BODIES; ++b)
            lowest = fmin(lowest, mean_height(&scene.world.bodies[b]));
        runs[run] = world_state(&scene.world);
        op_scene_free(&scene);
    }
    print_message("heap of %d bodies of 4 models: up to %d candidate pairs a frame, %d body and %d floor contacts "
                  "over the %d runs, lowest body centre %.3f m\n", HEAP_BODIES, most_pairs, contacts, floor_contacts,
                  RUNS, lowest);
    assert_true(most_pairs > 0 && contacts > 0 && floor_contacts > 0);
    assert_true(measured > 0);
    assert_true(lowest < 0.5); /* the bottom layer has landed: it started at 0.6 m */
    for (int k = 0; k < 15 * HEAP_PARTICLES; ++k)
        if (!isfinite(runs[0][k]))
            fail_msg("state entry %d is not finite", k);
    for (int run = 1; run < RUNS; ++run)
        assert_memory_equal(runs[0], runs[run], 15 * HEAP_PARTICLES * sizeof(double));
    for (int run = 0; run < RUNS; ++run)
        free(runs[run]);
    free(text);
    omp_set_num_threads(2);
}

/* auto's choice (collide.h, core/base/choice.h): a calibration alternates the team and one
 * thread, OP_COLLIDE_CHOICE_TRIALS calls each, starting each frame of an even number of
 * sub-steps from the other option than the last frame, then keeps the faster for
 * OP_COLLIDE_CHOICE_SETTLE calls; all and one are kept as set, and on one thread there is
 * nothing to choose */
static void test_contact_threads_timed_in_turn(void **state)
{
    (void)state;
    char *text = heap_scene(); /* six sub-steps a frame */
    op_scene scene;
    load_text(&scene, text, 0, NULL);
    op_world *world = &scene.world;
    assert_int_equal(world->def.collision_threads, OP_CONTACT_THREADS_AUTO);
    omp_set_num_threads(2);
    int calls = 0;
    for (; op_choice_calibrating(world->contact_choice); ++calls) {
        world->frame = calls / world->def.substeps; /* as op_world_step counts them */
        int expected = (calls + (int)world->frame) % 2, took = op_world_contact_threads(world);
        if (op_choice_calibrating(world->contact_choice)) /* else this call ended it and chose */
            assert_int_equal(took, expected);
        assert_true(calls < 4 * OP_COLLIDE_CHOICE_TRIALS);
    }
    /* the thirteenth call ends the twelfth cycle, chooses and takes the choice */
    assert_int_equal(calls, 2 * OP_COLLIDE_CHOICE_TRIALS + 1);
    int chosen = world->contact_choice->chosen;
    assert_true(chosen == OP_CONTACT_THREADS_ALL || chosen == OP_CONTACT_THREADS_ONE);
    for (int k = 0; k < OP_COLLIDE_CHOICE_SETTLE - 1; ++k)
        assert_int_equal(op_world_contact_threads(world), chosen);
    assert_true(op_choice_calibrating(world->contact_choice));
    omp_set_num_threads(1);
    assert_int_equal(op_world_contact_threads(world), OP_CONTACT_THREADS_ALL);
    omp_set_num_threads(2);
    world->def.collision_threads = OP_CONTACT_THREADS_ONE;
    assert_int_equal(op_world_contact_threads(world), OP_CONTACT_THREADS_ONE);
    world->def.collision_threads = OP_CONTACT_THREADS_ALL;
    assert_int_equal(op_world_contact_threads(world), OP_CONTACT_THREADS_ALL);
    op_scene_free(&scene);
    free(text);
}

/* The colour order's islands (collide.h, "Resolution"), on a cloud of 40 bodies whose first 10
 * are packed into a corner (one giant island) and the rest spread out (many small ones), with 1
 * pass and then passes while a pair stays deep: the same state, contacts and penetration bit for
 * bit as with every pair in one island (the colour order without islands, on one thread), with
 * the islands on one thread and on two. */
static void test_islands_match_one_island(void **state)
{
    (void)state;
    enum { BODIES = 40, PER_BODY = 50, PACKED = 10, N = BODIES * PER_BODY };
    double *after[3];
    op_contact_stats found[3];
    int islands = 0, largest = 0;
    for (int run = 0; run < 3; ++run) { /* one island; islands on one thread; on two */
        omp_set_num_threads(run == 2 ? 2 : 1);
        op_ctx ctx;
        op_ctx_init(&ctx);
        random_cloud cloud = { 0 };
        assert_int_equal(random_cloud_make(&ctx, &cloud, 23, BODIES, PER_BODY, 3.0, 0.02, 0.06), OP_OK);
        for (int b = 0; b < PACKED; ++b)
            for (int k = 0; k < 3 * PER_BODY; ++k)
                cloud.bodies[b].state.position[k] *= 0.15;
        op_collider c = { .one_island = run == 0 };
        op_contact_def def = { .passes = 1, .passes_max = OP_COLLIDE_DEFAULT_PASSES_MAX, .rounds = OP_COLLIDE_DEFAULT_ROUNDS,
                               .order = OP_CONTACT_ORDER_COLOURS, .friction = 0.5 };
        assert_int_equal(op_collide_bodies(&ctx, &c, cloud.bodies, cloud.body_count, &def, &found[run]), OP_OK);
        if (run == 1) {
            islands = c.islands;
            for (int s = 0; s < c.islands; ++s)
                largest = fmax(largest, c.island[s + 1].start - c.island[s].start);
        } else if (run == 0) {
            assert_int_equal(c.islands, 1);
        }
        op_world as_world = { .body_count = cloud.body_count, .bodies = cloud.bodies };
        after[run] = world_state(&as_world);
        op_collider_free(&c);
        random_cloud_free(&cloud);
    }
    omp_set_num_threads(2);
    print_message("cloud: %d pairs, %d penetrated, in %d islands, the largest of %d pairs; %.3g m left\n",
                  found[0].pairs, found[0].contacts, islands, largest, found[0].max_penetration);
    assert_true(islands >= 20 && largest > found[0].pairs / 3 && largest < found[0].pairs);
    for (int run = 1; run < 3; ++run) {
        assert_int_equal(found[run].pairs, found[0].pairs);
        assert_int_equal(found[run].contacts, found[0].contacts);
        assert_memory_equal(&found[run].max_penetration, &found[0].max_penetration, sizeof(double));
        assert_memory_equal(after[run], after[0], 6 * N * sizeof(double));
    }
    for (int run = 0; run < 3; ++run)
        free(after[run]);
}

/* The pairs' first evaluation four at a time in AVX lanes (core/contact/collide.c, evaluate_lanes4)
 * against one at a time, on a cloud deep in itself with every kind of pair the lanes select
 * between: particles pinned (no inverse mass) on one side and on both, two centres at one
 * point, pairs closing and opening. The same pairs, contacts, penetration and state bit for
 * bit, after one call and after a second from the first's state. */
static void test_lanes_match_one_pair_at_a_time(void **state)
{
    (void)state;
    enum { BODIES = 40, PER_BODY = 50, N = BODIES * PER_BODY };
    double *after[2];
    op_contact_stats found[2];
    for (int vector = 0; vector < 2; ++vector) {
        op_simd_avx(vector);
        op_ctx ctx;
        op_ctx_init(&ctx);
        random_cloud cloud = { 0 };
        assert_int_equal(random_cloud_make(&ctx, &cloud, 31, BODIES, PER_BODY, 1.0, 0.02, 0.06), OP_OK);
        for (int b = 0; b < BODIES; b += 3)
            for (int i = 0; i < PER_BODY; i += 5)
                cloud.bodies[b].position_pinned[i] = 1;
        v3_copy(cloud.bodies[1].state.position, cloud.bodies[0].state.position);
        v3_copy(&cloud.bodies[4].state.position[3], &cloud.bodies[2].state.position[3]);
        op_collider c = { 0 };
        op_contact_def def = { .passes = OP_COLLIDE_DEFAULT_PASSES, .passes_max = OP_COLLIDE_DEFAULT_PASSES_MAX, .rounds = OP_COLLIDE_DEFAULT_ROUNDS,
                               .order = OP_CONTACT_ORDER_COLOURS, .friction = 0.5 };
        for (int call = 0; call < 2; ++call)
            assert_int_equal(op_collide_bodies(&ctx, &c, cloud.bodies, BODIES, &def, &found[vector]), OP_OK);
        op_world as_world = { .body_count = cloud.body_count, .bodies = cloud.bodies };
        after[vector] = world_state(&as_world);
        op_collider_free(&c);
        random_cloud_free(&cloud);
    }
    op_simd_avx(1);
    print_message("cloud: %d pairs, %d penetrated, %.3g m left\n", found[0].pairs, found[0].contacts,
                  found[0].max_penetration);
    assert_true(found[0].pairs > 1000 && found[0].contacts > 500);
    assert_int_equal(found[1].pairs, found[0].pairs);
    assert_int_equal(found[1].contacts, found[0].contacts);
    assert_memory_equal(&found[1].max_penetration, &found[0].max_penetration, sizeof(double));
    assert_memory_equal(after[1], after[0], 6 * N * sizeof(double));
    free(after[0]);
    free(after[1]);
}

/* Call `call` of the reuse tests: the same small random moves of the particles of two like
 * clouds and, every fourth call, one body's or (every eighth) all of them far (0.05 m a step,
 * the clouds' skin being 0.06). */
static void move_clouds(op_rng *rng, int call, random_cloud *a, random_cloud *b)
{
    int far_body = call % 8 == 7 ? -1 : call % 4 == 3 ? call % a->body_count : a->body_count;
    for (int body = 0; body < a->body_count; ++body)
        for (int i = 0; i < a->bodies[body].graph->particle_count; ++i)
            for (int d = 0; d < 3; ++d) {
                double step = far_body < 0 || far_body == body ? 0.05 : 0.002;
                double move = step * (2.0 * op_rng_uniform(rng) - 1.0);
                a->bodies[body].state.position[3 * i + d] += move;
                b->bodies[body].state.position[3 * i + d] += move;
            }
}

/* Two contact calls' pairs, contacts, penetration and resulting states (of `particles` in all)
 * bit for bit the same. */
static void assert_same_contacts(const op_contact_stats *a, const op_contact_stats *b, random_cloud *ca,
                                 random_cloud *cb, int particles)
{
    assert_int_equal(a->pairs, b->pairs);
    assert_int_equal(a->contacts, b->contacts);
    assert_memory_equal(&a->max_penetration, &b->max_penetration, sizeof(double));
    op_world wa = { .body_count = ca->body_count, .bodies = ca->bodies };
    op_world wb = { .body_count = cb->body_count, .bodies = cb->bodies };
    double *sa = world_state(&wa), *sb = world_state(&wb);
    assert_memory_equal(sa, sb, 6 * (size_t)particles * sizeof(double));
    free(sa);
    free(sb);
}

/* A collider that keeps its search (collide.h, "Reuse between calls") against a fresh one each
 * call, over a cloud whose particles move a little between calls and, every fourth call, one
 * body or (every eighth) all of them far: the same pairs, contacts, penetration and state bit
 * for bit after every call, with the grid searched only when something moved far, and only the
 * pairs of the moved particles refreshed when one body did. */
static void test_reused_search_matches_fresh_search(void **state)
{
    (void)state;
    op_ctx ctx;
    op_ctx_init(&ctx);
    random_cloud kept = { 0 }, fresh = { 0 };
    assert_int_equal(random_cloud_make(&ctx, &kept, 7, 40, 50, 1.6, 0.02, 0.06), OP_OK);
    assert_int_equal(random_cloud_make(&ctx, &fresh, 7, 40, 50, 1.6, 0.02, 0.06), OP_OK);
    op_collider reused = { 0 };
    op_contact_def def = { .passes = 4, .rounds = OP_COLLIDE_DEFAULT_ROUNDS, .friction = 0.5, .margin = 0.002 };
    op_rng rng = op_rng_seeded(11);
    int searches = 0, refreshes = 0, calls = 16;
    for (int call = 0; call < calls; ++call) {
        move_clouds(&rng, call, &kept, &fresh);
        op_collider once = { 0 };
        op_contact_stats a, b;
        assert_int_equal(op_collide_bodies(&ctx, &reused, kept.bodies, kept.body_count, &def, &a), OP_OK);
        assert_int_equal(op_collide_bodies(&ctx, &once, fresh.bodies, fresh.body_count, &def, &b), OP_OK);
        op_collider_free(&once);
        assert_true(b.searched && a.pairs > 0 && a.contacts > 0);
        searches += a.searched;
        refreshes += a.refreshed;
        assert_true(a.searched || !a.refreshed);
        assert_same_contacts(&a, &b, &kept, &fresh, 2000);
    }
    print_message("%d grid searches in %d calls, %d of them refreshes\n", searches, calls, refreshes);
    assert_true(searches >= 3 && searches < calls && refreshes >= 2 && refreshes < searches);
    op_collider_free(&reused);
    random_cloud_free(&kept);
    random_cloud_free(&fresh);
}

/* Centres gathered by the caller, body by body on two threads each with its own tally
 * (op_collider_gather_body, as the world gathers them where each unit's sub-step ends), against
 * the contact call gathering them itself, over a cloud whose particles move a little between
 * calls and, every fourth call, one body or (every eighth) all of them far: the same searches
 * and refreshes, pairs, contacts, penetration and state bit for bit after every call. */
static void test_gathered_bodies_match_the_call_gathering(void **state)
{
    (void)state;
    op_ctx ctx;
    op_ctx_init(&ctx);
    random_cloud own = { 0 }, given = { 0 };
    assert_int_equal(random_cloud_make(&ctx, &own, 9, 40, 50, 1.6, 0.02, 0.06), OP_OK);
    assert_int_equal(random_cloud_make(&ctx, &given, 9, 40, 50, 1.6, 0.02, 0.06), OP_OK);
    op_collider itself = { 0 }, fed = { 0 };
    op_contact_def def = { .passes = 4, .rounds = OP_COLLIDE_DEFAULT_ROUNDS, .friction = 0.5, .margin = 0.002 };
    op_rng rng = op_rng_seeded(13);
    int searches = 0, refreshes = 0, calls = 16;
    omp_set_num_threads(2);
    for (int call = 0; call < calls; ++call) {
        move_clouds(&rng, call, &own, &given);
        assert_int_equal(op_collider_lay_out(&ctx, &fed, given.bodies, given.body_count), OP_OK);
        op_gathered tally[2] = { { 0, 0 }, { 0, 0 } }, all = { 0, 0 };
#pragma omp parallel for schedule(dynamic) num_threads(2)
        for (int b = 0; b < given.body_count; ++b)
            op_collider_gather_body(&fed, given.bodies, b, &tally[omp_get_thread_num()]);
        for (int t = 0; t < 2; ++t)
            op_gathered_add(&all, &tally[t]);
        op_contact_stats a, b;
        assert_int_equal(op_collide_bodies(&ctx, &itself, own.bodies, own.body_count, &def, &a), OP_OK);
        assert_int_equal(op_collide_gathered_bodies(&ctx, &fed, given.bodies, given.body_count, &def, &all, &b), OP_OK);
        searches += a.searched;
        refreshes += a.refreshed;
        assert_int_equal(a.searched, b.searched);
        assert_int_equal(a.refreshed, b.refreshed);
        assert_same_contacts(&a, &b, &own, &given, 2000);
    }
    print_message("%d grid searches in %d calls, %d of them refreshes\n", searches, calls, refreshes);
    assert_true(searches >= 3 && searches < calls && refreshes >= 2 && refreshes < searches);
    op_collider_free(&itself);
    op_collider_free(&fed);
    random_cloud_free(&own);
    random_cloud_free(&given);
}

/* schedule_threads (include/opsim/world.h) on the two tori of the stack (24 particles): the
 * bodies' units on the team, on one thread, or chosen by timing both; the same bits every way.
 * Under auto on two threads the choices take turns (core/base/choice.h, "Turns"): the units
 * calibrate over frames 0 and 1 (twelve sub-steps, both options) while the contacts wait on the
 * team; the units choose at frame 2's first sub-step, and the contacts calibrate from its second
 * while the units keep their choice. On one thread auto steps the units there, nothing to time. */
static void test_units_threads_chosen_in_turn(void **state)
{
    (void)state;
    enum { FRAMES = 6, RUNS = 4 };
    const char *const settings[RUNS][2] = { { "run.frames=6", "world.schedule_threads=all" },
                                            { "run.frames=6", "world.schedule_threads=one" },
                                            { "run.frames=6", "world.schedule_threads=auto" },
                                            { "run.frames=6", "world.schedule_threads=auto" } };
    double *runs[RUNS];
    for (int run = 0; run < RUNS; ++run) {
        omp_set_num_threads(run == 3 ? 1 : 2);
        op_scene scene;
        load_text(&scene, stack_scene, 2, settings[run]);
        op_frame_stats stats = { 0 };
        for (int frame = 0; frame < FRAMES; ++frame) {
            step(&scene, &stats);
            int units = stats.schedule_threads, contacts = stats.collision_threads;
            if (run == 0)
                assert_int_equal(units, OP_SCHEDULE_THREADS_ALL);
            else if (run == 1 || run == 3)
                assert_int_equal(units, OP_SCHEDULE_THREADS_ONE);
            else if (frame < 2) {
                assert_int_equal(units, OP_SCHEDULE_THREADS_AUTO);
                assert_int_equal(contacts, OP_CONTACT_THREADS_ALL);
            } else if (frame == 2) {
                assert_int_equal(units, scene.world.schedule_choice->chosen);
                assert_int_equal(contacts, OP_CONTACT_THREADS_AUTO);
            }
        }
        if (run == 2) {
            const op_choice *units = scene.world.schedule_choice, *contacts = scene.world.contact_choice;
            print_message("units' cycle: %.1f µs on the team, %.1f µs on one thread; contacts' %.1f and %.1f µs\n",
                          1e6 * units->median[0], 1e6 * units->median[1], 1e6 * contacts->median[0],
                          1e6 * contacts->median[1]);
            assert_int_equal(units->calibrations, 1);
            assert_int_equal(contacts->calibrations, 1);
            assert_true(units->median[0] > 0 && units->median[1] > 0);
            assert_true(contacts->median[0] > 0 && contacts->median[1] > 0);
        } else {
            assert_int_equal(scene.world.schedule_choice->calibrations, 0);
        }
        runs[run] = world_state(&scene.world);
        op_scene_free(&scene);
    }
    for (int run = 1; run < RUNS; ++run)
        assert_memory_equal(runs[0], runs[run], 15 * 24 * sizeof(double));
    for (int run = 0; run < RUNS; ++run)
        free(runs[run]);

    /* the run file: the setting in /parameters, where each frame's units ran in /timing */
    for (int run = 1; run <= 2; ++run) {
        omp_set_num_threads(2);
        op_scene scene;
        load_text(&scene, stack_scene, 2, settings[run]);
        const char *path = test_record_scene(&scene);
        op_ctx ctx;
        op_ctx_init(&ctx);
        char setting[16];
        int64_t one_thread[FRAMES];
        if (op_runfile_read_attribute_string(&ctx, path, "/parameters", "schedule_threads", setting, sizeof setting) !=
                OP_OK ||
            op_runfile_read_rows_int64(&ctx, path, "/timing/units_on_one_thread", 0, FRAMES, one_thread, FRAMES) !=
                OP_OK)
            fail_msg("%s", ctx.message);
        assert_string_equal(setting, run == 1 ? "one" : "auto");
        /* auto: both options in frames 0-1, then the units' choice kept in every frame */
        for (int f = 0; f < FRAMES; ++f)
            assert_int_equal(one_thread[f], run == 1 ? 1 : f < 2 ? 0 : one_thread[2]);
        remove(path);
    }
}

/* ---- the run file ---- */

static void test_run_file_records_the_contacts(void **state)
{
    (void)state;
    enum { FRAMES = 30 };
    const char *const overrides[] = { "run.frames=30" };
    op_scene scene;
    load_text(&scene, stack_scene, 1, overrides);
    /* the same scene stepped directly: what the run file must hold */
    int64_t pairs[FRAMES], contacts[FRAMES], floor_contacts[FRAMES];
    double depth[FRAMES], floor_depth[FRAMES];
    op_scene direct;
    load_text(&direct, stack_scene, 1, overrides);
    op_energy *energy = calloc((size_t)direct.world.def.substeps * (size_t)(direct.world.def.iterations + 1),
                               sizeof *energy);
    assert_non_null(energy);
    op_frame_stats stats = { .energy = energy };
    double smallest_radius = INFINITY;
    for (int b = 0; b < direct.world.body_count; ++b)
        for (int a = 0; a < 3 * direct.world.bodies[b].graph->particle_count; ++a)
            smallest_radius = fmin(smallest_radius, direct.world.bodies[b].graph->radii[a]);
    for (int f = 0; f < FRAMES; ++f) {
        step(&direct, &stats);
        pairs[f] = stats.collision_pairs;
        contacts[f] = stats.collision_contacts;
        floor_contacts[f] = stats.floor_contacts;
        depth[f] = stats.max_penetration;
        floor_depth[f] = stats.max_floor_penetration;
    }
    free(energy);
    op_scene_free(&direct);
    assert_true(contacts[FRAMES - 1] > 0 && floor_contacts[FRAMES - 1] > 0);

    const char *path = test_record_scene(&scene);
    op_ctx ctx;
    op_ctx_init(&ctx);
    int64_t read_int[FRAMES];
    double read_double[FRAMES];
    const struct {
        const char *name;
        const int64_t *ints;
        const double *doubles;
    } expected[] = { { "/collision/pairs", pairs, NULL },
                     { "/collision/contacts", contacts, NULL },
                     { "/collision/floor_contacts", floor_contacts, NULL },
                     { "/collision/max_penetration", NULL, depth },
                     { "/collision/max_floor_penetration", NULL, floor_depth } };
    for (size_t k = 0; k < sizeof expected / sizeof expected[0]; ++k) {
        if (expected[k].ints) {
            if (op_runfile_read_rows_int64(&ctx, path, expected[k].name, 0, FRAMES, read_int, FRAMES) != OP_OK)
                fail_msg("%s", ctx.message);
            assert_memory_equal(read_int, expected[k].ints, sizeof read_int);
        } else {
            if (op_runfile_read_rows(&ctx, path, expected[k].name, 0, FRAMES, read_double, FRAMES) != OP_OK)
                fail_msg("%s", ctx.message);
            assert_memory_equal(read_double, expected[k].doubles, sizeof read_double);
        }
    }
    for (int f = 0; f < FRAMES; ++f)
        assert_true(contacts[f] <= pairs[f]);
    double passes;
    assert_int_equal(op_runfile_read_attribute_double(&ctx, path, "/parameters", "collision_passes", &passes), OP_OK);
    assert_close(passes, OP_COLLIDE_DEFAULT_PASSES, 0);
    assert_int_equal(op_runfile_read_attribute_double(&ctx, path, "/parameters", "collision_passes_max", &passes),
                     OP_OK);
    assert_close(passes, OP_COLLIDE_DEFAULT_PASSES_MAX, 0);
    char order[16];
    assert_int_equal(
        op_runfile_read_attribute_string(&ctx, path, "/parameters", "collision_order", order, sizeof order), OP_OK);
    assert_string_equal(order, "colours");
    char threads[16];
    assert_int_equal(
        op_runfile_read_attribute_string(&ctx, path, "/parameters", "collision_threads", threads, sizeof threads),
        OP_OK);
    assert_string_equal(threads, "auto");
    /* where each frame's contacts ran, beside the cores' hand-over recorded */
    int64_t one_thread[FRAMES];
    if (op_runfile_read_rows(&ctx, path, "/timing/handoff", 0, FRAMES, read_double, FRAMES) != OP_OK ||
        op_runfile_read_rows_int64(&ctx, path, "/timing/contacts_on_one_thread", 0, FRAMES, one_thread, FRAMES) !=
            OP_OK)
        fail_msg("%s", ctx.message);
    for (int f = 0; f < FRAMES; ++f) {
        assert_true(one_thread[f] == 0 || one_thread[f] == 1);
        if (omp_get_max_threads() < 2)
            assert_true(isnan(read_double[f]) && one_thread[f] == 0);
        else
            assert_true(read_double[f] > 0);
    }
    double smallest;
    assert_int_equal(op_runfile_read_attribute_double(&ctx, path, "/collision", "smallest_semi_axis", &smallest), OP_OK);
    assert_memory_equal(&smallest, &smallest_radius, sizeof smallest);
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_broad_phase_matches_brute_force),
        cmocka_unit_test(test_broad_phase_refresh_matches_search),
        cmocka_unit_test(test_broad_phase_bodies_apart_and_touching),
        cmocka_unit_test(test_broad_phase_refresh_from_and_to_no_pairs),
        cmocka_unit_test(test_broad_phase_reused_for_fewer_particles),
        cmocka_unit_test(test_broad_phase_rejects_bad_input),
        cmocka_unit_test(test_support_distance_matches_search),
        cmocka_unit_test(test_isolated_pair_in_one_pass),
        cmocka_unit_test(test_pinched_particle_passes_until_shallow),
        cmocka_unit_test(test_stacked_bodies_settle_apart),
        cmocka_unit_test(test_colours_share_no_particle),
        cmocka_unit_test(test_floor_reach_matches_lowest_point),
        cmocka_unit_test(test_same_state_on_one_and_two_threads),
        cmocka_unit_test(test_contact_threads_timed_in_turn),
        cmocka_unit_test(test_islands_match_one_island),
        cmocka_unit_test(test_lanes_match_one_pair_at_a_time),
        cmocka_unit_test(test_reused_search_matches_fresh_search),
        cmocka_unit_test(test_gathered_bodies_match_the_call_gathering),
        cmocka_unit_test(test_units_threads_chosen_in_turn),
        cmocka_unit_test(test_run_file_records_the_contacts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
