/* Tests of arap's iterative global step ([solver] global = pcg, solvers/arap.c with
 * core/kernels/sparse_cg.c): from one state, its global step gives the factor's solution to its
 * tolerance on Fig. 5's dinosaur and on a 2,000-particle one, with each preconditioner (Jacobi,
 * IC(0), DIC by Eisenstat's trick, AMG), IC(0), DIC and AMG in fewer iterations; AMG on a
 * 16,000-node body against the factor and Jacobi, with the same bits on one thread and two; a pcg run gives the same bits twice and on one and two
 * threads; the options it cannot serve are refused by name; the bytes each global step reports
 * holding are what it holds. */
#include "test_solver.h"
#include "test_util.h"

#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arap.h"
#include "kernels/sparse.h"
#include "kernels/sparse_cg.h"
#include "test_scene_load.h"

static double distance(const double *a, const double *b, size_t count)
{
    double sum = 0.0;
    for (size_t k = 0; k < count; ++k)
        sum += (a[k] - b[k]) * (a[k] - b[k]);
    return sqrt(sum);
}

/* `frames` frames of `config` (its one body falling onto the floor), then one sub-step's start
 * and local step; from that state the scene's global step (cholesky) and that of a pcg solver
 * state made on the same body at `tolerance`. Returns |x_pcg − x_cholesky| / |x_cholesky − x|,
 * x the state both started from, and the CG iterations in *iterations. */
static double pcg_against_cholesky(const char *config, const char *const *overrides, int frames, double tolerance,
                                   const char *preconditioner, int *iterations)
{
    op_scene scene;
    test_load_scene(&scene, config, overrides);
    op_world *w = &scene.world;
    w->def.log_energy = 0;
    op_ctx ctx;
    op_ctx_init(&ctx);
    for (int frame = 0; frame < frames; ++frame) {
        op_frame_stats stats = { 0 };
        if (op_world_step(&ctx, w, &stats) != OP_OK)
            fail_msg("%s", ctx.message);
    }
    op_body *body = &w->bodies[0];
    size_t count = 3 * (size_t)body->graph->particle_count;
    double h = w->def.frame_time / w->def.substeps;
    assert_int_equal(op_world_begin_substep(&ctx, w, h), OP_OK);
    op_arap_local_step(w->solver_state[0], body, h);

    char tolerance_setting[64], preconditioner_setting[64];
    snprintf(tolerance_setting, sizeof tolerance_setting, "global_tolerance=%.17g", tolerance);
    snprintf(preconditioner_setting, sizeof preconditioner_setting, "global_preconditioner=%s", preconditioner);
    op_solver_settings settings =
        make_settings((const char *const[]){ "global=pcg", tolerance_setting, preconditioner_setting, NULL });
    assert_int_equal(op_solver_settings_validate(&ctx, &op_solver_arap, &settings), OP_OK);
    void *pcg = NULL;
    if (op_solver_arap.create(&ctx, &settings, body, h, NULL, 0, &pcg) != OP_OK ||
        op_solver_arap.begin_substep(&ctx, pcg, body, h) != OP_OK)
        fail_msg("%s", ctx.message);

    double *start = malloc(count * sizeof *start), *cholesky = malloc(count * sizeof *cholesky);
    assert_non_null(start);
    assert_non_null(cholesky);
    memcpy(start, body->state.position, count * sizeof *start);
    assert_int_equal(op_arap_global_step(&ctx, w->solver_state[0], body, h), OP_OK);
    memcpy(cholesky, body->state.position, count * sizeof *cholesky);
    memcpy(body->state.position, start, count * sizeof *start);
    assert_int_equal(op_arap_global_step(&ctx, pcg, body, h), OP_OK);
    double moved = distance(cholesky, start, count), apart = distance(body->state.position, cholesky, count);
    *iterations = op_arap_linear_iterations(pcg);
    print_message("%s: %d particles, %s, tolerance %g: |x_pcg - x_chol| = %.3e of a step of %.3e (%.2e), %d CG "
                  "iterations\n", config, body->graph->particle_count, preconditioner, tolerance, apart, moved,
                  apart / moved, *iterations);
    assert_true(moved > 0.0);
    op_solver_arap.destroy(pcg);
    free(start);
    free(cholesky);
    op_scene_free(&scene);
    return apart / moved;
}

/* The relative error of the solution is at most the matrix's condition number times the
 * relative residual; these bounds leave room for a condition number of 10³ at the tolerance,
 * and a 100-fold tighter tolerance must give a smaller error (it is no accident of rounding). */
static void check_against_cholesky_on_fig5(const char *preconditioner, int *tight)
{
    int loose;
    double at_loose = pcg_against_cholesky("experiments/fig5.ini", NULL, 30, 1e-6, preconditioner, &loose);
    double at_tight = pcg_against_cholesky("experiments/fig5.ini", NULL, 30, 1e-8, preconditioner, tight);
    assert_true(at_loose <= 1e-3);
    assert_true(at_tight <= 1e-5);
    assert_true(at_tight < at_loose);
    assert_true(*tight > loose && loose > 0);
}

static void test_pcg_global_step_matches_cholesky_on_fig5(void **state)
{
    (void)state;
    int jacobi, ic0, dic;
    check_against_cholesky_on_fig5("jacobi", &jacobi);
    check_against_cholesky_on_fig5("ic0", &ic0);
    check_against_cholesky_on_fig5("dic", &dic);
    assert_true(ic0 < jacobi);
    assert_true(dic < jacobi);
}

/* IC(0) at least halves the iterations here: each of its iterations reads about twice Jacobi's
 * entries, so less would read more (docs/scaling.md, *The global step at scale*); DIC's
 * iterations read about Jacobi's, and it needs at most two thirds of Jacobi's iterations. */
static void test_pcg_global_step_matches_cholesky_on_a_larger_body(void **state)
{
    (void)state;
    const char *const larger[] = { "model dino100.particles=2000", NULL };
    int jacobi, ic0, dic, amg, amg_loose;
    double jacobi_error = pcg_against_cholesky("experiments/fig5.ini", larger, 30, 1e-8, "jacobi", &jacobi);
    double ic0_error = pcg_against_cholesky("experiments/fig5.ini", larger, 30, 1e-8, "ic0", &ic0);
    double dic_error = pcg_against_cholesky("experiments/fig5.ini", larger, 30, 1e-8, "dic", &dic);
    double amg_error = pcg_against_cholesky("experiments/fig5.ini", larger, 30, 1e-8, "amg", &amg);
    double amg_loose_error = pcg_against_cholesky("experiments/fig5.ini", larger, 30, 1e-6, "amg", &amg_loose);
    assert_true(jacobi_error <= 1e-5);
    assert_true(ic0_error <= 1e-5);
    assert_true(dic_error <= 1e-5);
    assert_true(amg_error <= 1e-5 && amg_loose_error <= 1e-3 && amg_error < amg_loose_error);
    assert_true(amg_loose > 0 && amg > amg_loose);
    assert_true(ic0 > 0 && 2 * ic0 <= jacobi);
    assert_true(dic > 0 && 3 * dic <= 2 * jacobi);
    assert_true(2 * amg <= dic); /* a V-cycle reads several times DIC's entries: fewer would not pay */
}

/* The same bits twice, and on one thread and two. */
static void test_pcg_run_is_bitwise_repeatable(void **state)
{
    (void)state;
    assert_same_bits_on_threads("experiments/fig5.ini", (const char *const[]){ "solver.global=pcg", NULL }, 20, 0);
    assert_same_bits_on_threads("experiments/fig5.ini",
                                (const char *const[]){ "solver.global=pcg", "solver.global_preconditioner=ic0", NULL },
                                20, 0);
    assert_same_bits_on_threads("experiments/fig5.ini",
                                (const char *const[]){ "solver.global=pcg", "solver.global_preconditioner=dic", NULL },
                                20, 0);
    /* 2,000 particles: a level of 2,000 rows above the coarsest factor's 143 */
    assert_same_bits_on_threads("experiments/fig5.ini",
                                (const char *const[]){ "model dino100.particles=2000", "solver.global=pcg",
                                                       "solver.global_preconditioner=amg", NULL },
                                3, 0);
    /* the CG's rows shared with the team at every sub-step (four blocks of 512 rows), against
     * one thread */
    assert_same_bits_on_threads("experiments/fig5.ini",
                                (const char *const[]){ "model dino100.particles=2000", "solver.global=pcg",
                                                       "solver.global_preconditioner=amg", "solver.sweep_threads=team",
                                                       NULL },
                                3, 0);
    assert_same_bits_on_threads("experiments/fig5.ini",
                                (const char *const[]){ "model dino100.particles=2000", "solver.global=pcg",
                                                       "solver.sweep_threads=team", NULL },
                                3, 0);
}

/* A variant without the option refuses it naming it; arap refuses pcg with the floor held in
 * the global step, naming both. */
static void test_pcg_refusals_name_the_option(void **state)
{
    (void)state;
    const char *message =
        load_fails("experiments/fig5.ini", (const char *const[]){ "solver.name=shape-matching", "solver.global=pcg", NULL });
    assert_non_null(strstr(message, "global"));
    message = load_fails("experiments/fig5.ini",
                         (const char *const[]){ "world.floor_contact=solve", "solver.global=pcg", NULL });
    assert_non_null(strstr(message, "global = pcg"));
    assert_non_null(strstr(message, "floor_contact = solve"));
    message = load_fails("experiments/fig5.ini", (const char *const[]){ "solver.global_tolerance=0.5", NULL });
    assert_non_null(strstr(message, "global_tolerance"));
    message = load_fails("experiments/fig5.ini",
                         (const char *const[]){ "solver.global=pcg", "solver.global_preconditioner=ilu", NULL });
    assert_non_null(strstr(message, "global_preconditioner = 'ilu'"));
    assert_non_null(strstr(message, "jacobi|ic0|dic|amg"));
    message = load_fails("experiments/fig5.ini",
                         (const char *const[]){ "solver.global=pcg", "solver.global_preconditioner=AMG", NULL });
    assert_non_null(strstr(message, "global_preconditioner = 'AMG'"));
}

/* The kernel alone: a 1-D Laplacian plus a mass term, three columns (one zero), solved to 1e-12
 * from zero: the residual it reports is the true one's order, and the zero column stays zero. */
static void test_cg_kernel_solves_three_columns(void **state)
{
    (void)state;
    enum { N = 50 };
    int rows[2 * N], cols[2 * N], count = 0;
    double values[2 * N], rhs[3 * N], x[3 * N] = { 0 }, product[3 * N];
    for (int i = 0; i < N; ++i) {
        rows[count] = cols[count] = i, values[count++] = 2.01;
        if (i + 1 < N)
            rows[count] = i, cols[count] = i + 1, values[count++] = -1.0;
        rhs[3 * i] = sin(0.3 * i), rhs[3 * i + 1] = 0.0, rhs[3 * i + 2] = i % 7 - 3.0;
    }
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_sparse_matrix *a = NULL;
    op_cg_workspace work = { 0 };
    assert_int_equal(op_sparse_matrix_create(&ctx, N, count, rows, cols, values, &a), OP_OK);
    assert_int_equal(op_sparse_matrix_nonzeros(a), 3 * N - 2);
    assert_int_equal(op_cg_workspace_reserve(&ctx, &work, a), OP_OK);
    int iterations = 0;
    assert_int_equal(op_sparse_cg3(&ctx, a, &work, rhs, x, 1e-12, 1000, &iterations), OP_OK);
    op_sparse_matrix_times3(a, x, product);
    for (int c = 0; c < 3; c += 2) {
        double r = 0.0, b = 0.0;
        for (int i = 0; i < N; ++i) {
            r += (product[3 * i + c] - rhs[3 * i + c]) * (product[3 * i + c] - rhs[3 * i + c]);
            b += rhs[3 * i + c] * rhs[3 * i + c];
        }
        assert_true(sqrt(r / b) <= 1e-11);
    }
    for (int i = 0; i < N; ++i)
        assert_true(x[3 * i + 1] == 0.0);
    assert_true(iterations > 1 && iterations <= N + 10);
    /* too few iterations allowed: refused, saying so */
    memset(x, 0, sizeof x);
    assert_int_equal(op_sparse_cg3(&ctx, a, &work, rhs, x, 1e-12, 3, &iterations), OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "not converged"));
    op_cg_workspace_free(&work);
    op_sparse_matrix_free(&a);
}

/* IC(0) and DIC on a tridiagonal matrix are its exact Cholesky factor (no fill is dropped), so
 * CG ends in one iteration; on a 2-D grid's Laplacian plus a mass term they drop fill, and still
 * solve to the tolerance (the true residual, recomputed here) in under half Jacobi's iterations,
 * a zero column of B staying exactly zero.
 * L's bytes are counted: n + 1 starts, and the lower triangle's entries at 12 bytes; DIC's, two
 * n-vectors. */
static void test_ic0_and_dic_kernels(void **state)
{
    (void)state;
    enum { N = 50, SIDE = 30, GRID = SIDE * SIDE };
    static int rows[3 * GRID], cols[3 * GRID];
    static double values[3 * GRID], rhs[3 * GRID], x[3 * GRID], product[3 * GRID];
    int count = 0;
    for (int i = 0; i < N; ++i) {
        rows[count] = cols[count] = i, values[count++] = 2.01;
        if (i + 1 < N)
            rows[count] = i, cols[count] = i + 1, values[count++] = -1.0;
        rhs[3 * i] = sin(0.3 * i), rhs[3 * i + 1] = cos(0.1 * i), rhs[3 * i + 2] = i % 7 - 3.0;
    }
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_sparse_matrix *a = NULL;
    op_cg_workspace work = { 0 };
    int iterations = 0;
    assert_int_equal(op_sparse_matrix_create(&ctx, N, count, rows, cols, values, &a), OP_OK);
    size_t jacobi_bytes = op_sparse_matrix_bytes(a);
    assert_int_equal(op_sparse_cg_entries_per_iteration(a), 3 * N - 2 + N);
    assert_int_equal(op_sparse_matrix_factor_ic0(&ctx, a), OP_OK);
    assert_int_equal(op_sparse_matrix_bytes(a), jacobi_bytes + (N + 1) * 4 + (2 * N - 1) * 12);
    assert_int_equal(op_sparse_cg_entries_per_iteration(a), 3 * N - 2 + 2 * (2 * N - 1));
    assert_int_equal(op_cg_workspace_reserve(&ctx, &work, a), OP_OK);
    assert_int_equal(op_sparse_cg3(&ctx, a, &work, rhs, x, 1e-12, 1000, &iterations), OP_OK);
    assert_int_equal(iterations, 1);
    assert_int_equal(op_sparse_matrix_factor_dic(&ctx, a), OP_OK);
    assert_int_equal(op_sparse_matrix_bytes(a), jacobi_bytes + 2 * N * 8);
    assert_int_equal(op_sparse_cg_entries_per_iteration(a), 2 * N - 2 + 4 * N);
    memset(x, 0, sizeof x);
    assert_int_equal(op_sparse_cg3(&ctx, a, &work, rhs, x, 1e-12, 1000, &iterations), OP_OK);
    assert_int_equal(iterations, 1);
    op_cg_workspace_free(&work);
    op_sparse_matrix_free(&a);

    count = 0;
    for (int i = 0; i < GRID; ++i) {
        int right = i % SIDE + 1 < SIDE, up = i + SIDE < GRID;
        rows[count] = cols[count] = i, values[count++] = 4.01;
        if (right)
            rows[count] = i, cols[count] = i + 1, values[count++] = -1.0;
        if (up)
            rows[count] = i, cols[count] = i + SIDE, values[count++] = -1.0;
        rhs[3 * i] = sin(0.3 * i), rhs[3 * i + 1] = 0.0, rhs[3 * i + 2] = (i * 7919) % 13 - 6.0;
    }
    int by_preconditioner[3];
    for (int preconditioner = 0; preconditioner < 3; ++preconditioner) {
        assert_int_equal(op_sparse_matrix_create(&ctx, GRID, count, rows, cols, values, &a), OP_OK);
        if (preconditioner == 1)
            assert_int_equal(op_sparse_matrix_factor_ic0(&ctx, a), OP_OK);
        if (preconditioner == 2)
            assert_int_equal(op_sparse_matrix_factor_dic(&ctx, a), OP_OK);
        assert_int_equal(op_cg_workspace_reserve(&ctx, &work, a), OP_OK);
        memset(x, 0, sizeof x);
        assert_int_equal(op_sparse_cg3(&ctx, a, &work, rhs, x, 1e-10, 10000, &by_preconditioner[preconditioner]),
                         OP_OK);
        op_sparse_matrix_times3(a, x, product);
        for (int i = 0; i < GRID; ++i) /* the zero column stays exactly zero */
            assert_true(x[3 * i + 1] == 0.0);
        for (int c = 0; c < 3; c += 2) {
            double r = 0.0, b = 0.0;
            for (int i = 0; i < GRID; ++i) {
                r += (product[3 * i + c] - rhs[3 * i + c]) * (product[3 * i + c] - rhs[3 * i + c]);
                b += rhs[3 * i + c] * rhs[3 * i + c];
            }
            assert_true(sqrt(r / b) <= 1.01e-10);
        }
        op_cg_workspace_free(&work);
        op_sparse_matrix_free(&a);
    }
    print_message("30 x 30 grid: %d CG iterations with Jacobi, %d with IC(0), %d with DIC\n", by_preconditioner[0],
                  by_preconditioner[1], by_preconditioner[2]);
    assert_true(2 * by_preconditioner[1] <= by_preconditioner[0]);
    assert_true(2 * by_preconditioner[2] <= by_preconditioner[0]);
}

/* A matrix that is not positive definite though its diagonal is: IC(0) and DIC refuse it, naming
 * the row, and the matrix stays Jacobi-preconditioned. */
static void test_incomplete_factors_refuse_an_indefinite_matrix(void **state)
{
    (void)state;
    int rows[] = { 0, 1, 0 }, cols[] = { 0, 1, 1 };
    double values[] = { 1.0, 1.0, -2.0 };
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_sparse_matrix *a = NULL;
    assert_int_equal(op_sparse_matrix_create(&ctx, 2, 3, rows, cols, values, &a), OP_OK);
    size_t bytes = op_sparse_matrix_bytes(a);
    assert_int_equal(op_sparse_matrix_factor_ic0(&ctx, a), OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "pivot of row 1"));
    assert_int_equal(op_sparse_matrix_bytes(a), bytes);
    assert_int_equal(op_sparse_cg_entries_per_iteration(a), 4 + 2);
    assert_int_equal(op_sparse_matrix_factor_dic(&ctx, a), OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "pivot of row 1"));
    assert_int_equal(op_sparse_matrix_bytes(a), bytes);
    op_sparse_matrix_free(&a);
}

/* A body of 16,000 nodes (a 25 × 25 × 25.6 lattice, each node joined to its six lattice
 * neighbours and, every third node, to a diagonal one, edge weights and masses varying as the
 * benchmark's random bodies' do, k = 10⁸): AMG solves to 1e-8 with the factor's solution within
 * 1e-6 relative (the error is at most the condition number times the residual), in under a fifth
 * of Jacobi's iterations, with levels between 16,000 rows and the coarsest factor; two solves
 * give the same bits. */
static void test_amg_on_a_16000_node_body(void **state)
{
    (void)state;
    enum { SIDE = 25, N = 16000, MAX_TRIPLETS = N + 3 * 4 * N };
    int *rows = malloc(MAX_TRIPLETS * sizeof *rows), *cols = malloc(MAX_TRIPLETS * sizeof *cols), count = 0;
    double *values = malloc(MAX_TRIPLETS * sizeof *values), *volume = malloc(N * sizeof *volume);
    double *rhs = malloc(3 * N * sizeof *rhs), *x = calloc(3 * N, sizeof *x), *again = calloc(3 * N, sizeof *again);
    double *exact = malloc(3 * N * sizeof *exact);
    assert_true(rows && cols && values && volume && rhs && x && again && exact);
    uint32_t seed = 12345u;
    for (int i = 0; i < N; ++i) {
        seed = seed * 1664525u + 1013904223u;
        volume[i] = 1e-4 * (0.5 + seed / 4294967296.0);
        rows[count] = cols[count] = i, values[count++] = 1000.0 * volume[i] * 3600.0;
        for (int c = 0; c < 3; ++c) {
            seed = seed * 1664525u + 1013904223u;
            rhs[3 * i + c] = 2.0 * (seed / 4294967296.0) - 1.0;
        }
    }
    for (int i = 0; i < N; ++i) {
        int x0 = i % SIDE, y0 = i / SIDE % SIDE;
        int neighbours[4] = { x0 + 1 < SIDE ? i + 1 : -1, y0 + 1 < SIDE ? i + SIDE : -1, i + SIDE * SIDE,
                              i % 3 == 0 && x0 + 1 < SIDE && y0 + 1 < SIDE ? i + SIDE * SIDE + SIDE + 1 : -1 };
        for (int e = 0; e < 4; ++e) {
            int j = neighbours[e];
            if (j < 0 || j >= N)
                continue;
            double w = 1e8 * (volume[i] + volume[j]);
            rows[count] = cols[count] = i, values[count++] = w;
            rows[count] = cols[count] = j, values[count++] = w;
            rows[count] = i, cols[count] = j, values[count++] = -w;
        }
    }
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_sparse_factor *factor = NULL;
    op_sparse_workspace factor_work = { 0 };
    assert_int_equal(op_sparse_factor_create(&ctx, N, count, rows, cols, values, &factor), OP_OK);
    assert_int_equal(op_sparse_workspace_reserve(&ctx, &factor_work, factor), OP_OK);
    memcpy(exact, rhs, 3 * N * sizeof *exact);
    assert_int_equal(op_sparse_solve3(&ctx, factor, &factor_work, exact), OP_OK);

    op_sparse_matrix *a = NULL;
    op_cg_workspace work = { 0 };
    int jacobi = 0, amg = 0, amg_again = 0, level_rows[16];
    long level_entries[16];
    assert_int_equal(op_sparse_matrix_create(&ctx, N, count, rows, cols, values, &a), OP_OK);
    assert_int_equal(op_cg_workspace_reserve(&ctx, &work, a), OP_OK);
    assert_int_equal(op_sparse_cg3(&ctx, a, &work, rhs, x, 1e-8, 10000, &jacobi), OP_OK);
    assert_int_equal(op_sparse_matrix_factor_amg(&ctx, a), OP_OK);
    int levels = op_sparse_matrix_amg_levels(a, level_rows, level_entries, 16);
    /* without the workspace's multigrid scratch the solve is refused, not run */
    memset(x, 0, 3 * N * sizeof *x);
    assert_int_equal(op_sparse_cg3(&ctx, a, &work, rhs, x, 1e-8, 10000, &amg), OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "AMG"));
    assert_int_equal(op_cg_workspace_reserve(&ctx, &work, a), OP_OK);
    memset(x, 0, 3 * N * sizeof *x);
    assert_int_equal(op_sparse_cg3(&ctx, a, &work, rhs, x, 1e-8, 10000, &amg), OP_OK);
    assert_int_equal(op_sparse_cg3(&ctx, a, &work, rhs, again, 1e-8, 10000, &amg_again), OP_OK);
    assert_memory_equal(x, again, 3 * N * sizeof *x);
    assert_int_equal(amg, amg_again);
    /* the rows shared by one thread and by two (32 blocks of sweeps, every product, every
     * sum over rows): the same bits */
    int team = omp_get_max_threads();
    for (int threads = 1; threads <= 2; ++threads) {
        omp_set_num_threads(threads);
        memset(again, 0, 3 * N * sizeof *again);
        assert_int_equal(op_sparse_cg3(&ctx, a, &work, rhs, again, 1e-8, 10000, &amg_again), OP_OK);
        assert_memory_equal(x, again, 3 * N * sizeof *x);
        assert_int_equal(amg, amg_again);
    }
    omp_set_num_threads(team);
    double exact_norm = 0.0;
    for (int k = 0; k < 3 * N; ++k)
        exact_norm += exact[k] * exact[k];
    double error = distance(x, exact, 3 * (size_t)N) / sqrt(exact_norm);
    print_message("16,000-node body: %d levels (%d, %d, ... %d rows), Jacobi %d iterations, AMG %d, relative error "
                  "%.2e, AMG reads %ld entries an iteration, A holds %ld\n", levels, level_rows[0], level_rows[1],
                  level_rows[levels - 1], jacobi, amg, error, op_sparse_cg_entries_per_iteration(a),
                  op_sparse_matrix_nonzeros(a));
    assert_true(levels >= 3 && level_rows[0] == N && level_rows[levels - 1] <= 300);
    assert_true(error <= 1e-6);
    assert_true(amg > 1 && 5 * amg <= jacobi);
    op_cg_workspace_free(&work);
    op_sparse_matrix_free(&a);
    op_sparse_workspace_free(&factor_work);
    op_sparse_factor_free(&factor);
    free(rows), free(cols), free(values), free(volume), free(rhs), free(x), free(again), free(exact);
}

/* The linear solves' bytes (solver.h's solve_bytes, the scaling study's memory per particle) of
 * Fig. 5's dinosaur, 100 free particles and 264 edges, counted by hand: with the factor, L's
 * entries below the diagonal at 24 bytes (by columns and by rows, index and value), 20 bytes a
 * row (order, two starts, pivot), 8 for the two end starts and the 64-byte-a-row workspace; with
 * pcg, A's 100 + 2 × 264 entries at 12 bytes, 12 a row (start, inverse diagonal), 4 for the end,
 * the CG workspace's 96 and the warm start's 24 bytes a row; with IC(0), L's 100 + 264 entries at
 * 12 bytes and 101 starts at 4 more; with DIC, its two diagonals' 16 bytes a row. */
static void test_solve_bytes_count_what_is_held(void **state)
{
    (void)state;
    op_scene cholesky, pcg, ic0, dic;
    test_load_scene(&cholesky, "experiments/fig5.ini", NULL);
    test_load_scene(&pcg, "experiments/fig5.ini", (const char *const[]){ "solver.global=pcg", NULL });
    test_load_scene(&ic0, "experiments/fig5.ini",
                    (const char *const[]){ "solver.global=pcg", "solver.global_preconditioner=ic0", NULL });
    test_load_scene(&dic, "experiments/fig5.ini",
                    (const char *const[]){ "solver.global=pcg", "solver.global_preconditioner=dic", NULL });
    const op_body *body = &cholesky.world.bodies[0];
    assert_int_equal(body->graph->particle_count, 100);
    assert_int_equal(body->graph->edge_count, 264);
    long below = op_sparse_factor_nonzeros(op_arap_factor(cholesky.world.solver_state[0])) - 100;
    assert_true(below >= 264); /* at least the edges' entries */
    assert_int_equal(op_solver_arap.solve_bytes(cholesky.world.solver_state[0]), below * 24 + 100 * 20 + 8 + 100 * 64);
    /* the workspace: r, z, p and q, and one block's sums (100 rows, blocks of 512) */
    assert_int_equal(op_solver_arap.solve_bytes(pcg.world.solver_state[0]),
                     (100 + 2 * 264) * 12 + 100 * 12 + 4 + 100 * 96 + 24 + 100 * 24);
    assert_int_equal(op_solver_arap.solve_bytes(ic0.world.solver_state[0]),
                     (100 + 2 * 264) * 12 + 100 * 12 + 4 + 100 * 96 + 24 + 100 * 24 + (100 + 264) * 12 + 101 * 4);
    assert_int_equal(op_solver_arap.solve_bytes(dic.world.solver_state[0]),
                     (100 + 2 * 264) * 12 + 100 * 12 + 4 + 100 * 96 + 24 + 100 * 24 + 100 * 16);
    assert_null(op_arap_factor(pcg.world.solver_state[0]));
    op_scene_free(&cholesky);
    op_scene_free(&pcg);
    op_scene_free(&ic0);
    op_scene_free(&dic);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cg_kernel_solves_three_columns),
        cmocka_unit_test(test_ic0_and_dic_kernels),
        cmocka_unit_test(test_incomplete_factors_refuse_an_indefinite_matrix),
        cmocka_unit_test(test_amg_on_a_16000_node_body),
        cmocka_unit_test(test_pcg_global_step_matches_cholesky_on_fig5),
        cmocka_unit_test(test_pcg_global_step_matches_cholesky_on_a_larger_body),
        cmocka_unit_test(test_pcg_run_is_bitwise_repeatable),
        cmocka_unit_test(test_pcg_refusals_name_the_option),
        cmocka_unit_test(test_solve_bytes_count_what_is_held),
    };
    return cmocka_run_group_tests(tests, clock_start, clock_stop);
}
