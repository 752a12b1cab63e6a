/* Tests of arap's iterative global step ([solver] global = pcg, solvers/arap.c with
 * core/kernels/sparse_cg.c): from one state, its global step gives the factor's solution to its
 * tolerance on Fig. 5's dinosaur and on a 2,000-particle one; a pcg run gives the same bits twice
 * and on one and two threads; the options it cannot serve are refused by name; the bytes each
 * global step reports holding are what it holds. */
#include "test_solver.h"
#include "test_util.h"

#include <math.h>
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
                                   int *iterations)
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

    char tolerance_setting[64];
    snprintf(tolerance_setting, sizeof tolerance_setting, "global_tolerance=%.17g", tolerance);
    op_solver_settings settings = make_settings((const char *const[]){ "global=pcg", tolerance_setting, NULL });
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
    print_message("%s: %d particles, tolerance %g: |x_pcg - x_chol| = %.3e of a step of %.3e (%.2e), %d CG "
                  "iterations\n", config, body->graph->particle_count, tolerance, apart, moved, apart / moved,
                  *iterations);
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
static void test_pcg_global_step_matches_cholesky_on_fig5(void **state)
{
    (void)state;
    int loose, tight;
    double at_loose = pcg_against_cholesky("experiments/fig5.ini", NULL, 30, 1e-6, &loose);
    double at_tight = pcg_against_cholesky("experiments/fig5.ini", NULL, 30, 1e-8, &tight);
    assert_true(at_loose <= 1e-3);
    assert_true(at_tight <= 1e-5);
    assert_true(at_tight < at_loose);
    assert_true(tight > loose && loose > 0);
}

static void test_pcg_global_step_matches_cholesky_on_a_larger_body(void **state)
{
    (void)state;
    const char *const larger[] = { "model dino100.particles=2000", NULL };
    int iterations;
    double error = pcg_against_cholesky("experiments/fig5.ini", larger, 30, 1e-8, &iterations);
    assert_true(error <= 1e-5);
    assert_true(iterations > 0);
}

/* The same bits twice, and on one thread and two. */
static void test_pcg_run_is_bitwise_repeatable(void **state)
{
    (void)state;
    assert_same_bits_on_threads("experiments/fig5.ini", (const char *const[]){ "solver.global=pcg", NULL }, 20, 0);
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

/* The linear solves' bytes (solver.h's solve_bytes, the scaling study's memory per particle) of
 * Fig. 5's dinosaur, 100 free particles and 264 edges, counted by hand: with the factor, L's
 * entries below the diagonal at 24 bytes (by columns and by rows, index and value), 20 bytes a
 * row (order, two starts, pivot), 8 for the two end starts and the 64-byte-a-row workspace; with
 * pcg, A's 100 + 2 × 264 entries at 12 bytes, 12 a row (start, inverse diagonal), 4 for the end,
 * the CG workspace's 96 and the warm start's 24 bytes a row. */
static void test_solve_bytes_count_what_is_held(void **state)
{
    (void)state;
    op_scene cholesky, pcg;
    test_load_scene(&cholesky, "experiments/fig5.ini", NULL);
    test_load_scene(&pcg, "experiments/fig5.ini", (const char *const[]){ "solver.global=pcg", NULL });
    const op_body *body = &cholesky.world.bodies[0];
    assert_int_equal(body->graph->particle_count, 100);
    assert_int_equal(body->graph->edge_count, 264);
    long below = op_sparse_factor_nonzeros(op_arap_factor(cholesky.world.solver_state[0])) - 100;
    assert_true(below >= 264); /* at least the edges' entries */
    assert_int_equal(op_solver_arap.solve_bytes(cholesky.world.solver_state[0]), below * 24 + 100 * 20 + 8 + 100 * 64);
    assert_int_equal(op_solver_arap.solve_bytes(pcg.world.solver_state[0]),
                     (100 + 2 * 264) * 12 + 100 * 12 + 4 + 100 * 96 + 100 * 24);
    assert_null(op_arap_factor(pcg.world.solver_state[0]));
    op_scene_free(&cholesky);
    op_scene_free(&pcg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cg_kernel_solves_three_columns),
        cmocka_unit_test(test_pcg_global_step_matches_cholesky_on_fig5),
        cmocka_unit_test(test_pcg_global_step_matches_cholesky_on_a_larger_body),
        cmocka_unit_test(test_pcg_run_is_bitwise_repeatable),
        cmocka_unit_test(test_pcg_refusals_name_the_option),
        cmocka_unit_test(test_solve_bytes_count_what_is_held),
    };
    return cmocka_run_group_tests(tests, clock_start, clock_stop);
}
