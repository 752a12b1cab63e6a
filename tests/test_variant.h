/* The checks every solver variant's tests run alike, one body of a catalogue model each: free
 * fall, linear momentum in free flight, rest stays at rest, one and two threads give the same
 * bits, and a bad option fails naming itself. Each takes the variant and its settings (pairs as
 * make_settings reads them) and the tolerance the variant promises. */
#ifndef OPSIM_TEST_VARIANT_H
#define OPSIM_TEST_VARIANT_H

#include <omp.h>

#include "test_solver.h"

/* One body of `model` with stiffness k, gravity g, `iterations` per sub-step and `substeps`. */
static inline void variant_world(one_body *f, const char *model, double k, const double g[3], int iterations,
                                 int substeps)
{
    op_world_def def = op_default_world_def();
    v3_copy(def.gravity, g);
    def.iterations = iterations;
    def.substeps = substeps;
    one_body_begin(f, &def, model, 0, k, NULL, NULL);
}

/* An unpinned body falls as a point does under the world's implicit Euler: after n sub-steps of
 * h from rest, x = x_0 + h² g n(n + 1)/2 for every particle, and no edge strains. */
static inline void variant_free_fall(const op_solver_type *solver, const char *const *pairs, double tol)
{
    one_body f;
    const double g[3] = { 0, -9.81, 0 };
    variant_world(&f, "dino100", 1e7, g, 10, 1);
    one_body_start(&f, solver, pairs);
    int frames = 30, n = f.body->graph->particle_count;
    for (int frame = 0; frame < frames; ++frame)
        one_body_step(&f);
    double h = f.world.def.frame_time, drop = h * h * g[1] * frames * (frames + 1) / 2.0, worst = 0.0;
    for (int i = 0; i < n; ++i) {
        double expect[3];
        v3_copy(expect, &f.body->graph->rest_position[3 * i]);
        expect[1] += drop;
        worst = fmax(worst, sqrt(v3_dist2(expect, &f.body->state.position[3 * i])));
    }
    double strain = worst_edge_strain(f.body);
    print_message("%s: fell %.4f m in %d frames; worst particle off the point's fall %.3e m, edge strain %.3e\n",
                  solver->name, -drop, frames, worst, strain);
    assert_le(worst, tol * fabs(drop));
    assert_le(strain, tol);
    one_body_free(&f);
}

/* No gravity, a spinning, moving body, `iterations` a sub-step: the relative change of its linear
 * momentum over 30 frames, asserted ≤ tol. The angular momentum's about the mass centre is printed,
 * not asserted. */
static inline double variant_free_flight(const op_solver_type *solver, const char *const *pairs, int iterations,
                                         double tol)
{
    one_body f;
    const double none[3] = { 0, 0, 0 };
    variant_world(&f, "dino100", 1e7, none, iterations, 1);
    op_body_set_rigid_velocity(f.body, (const double[3]){ 0.5, 0.2, -0.3 }, (const double[3]){ 1.0, 2.0, 0.5 });
    one_body_start(&f, solver, pairs);
    double c[3], p0[3], L0[3], p[3], L[3];
    op_body_mass_centre(f.body, c);
    op_energy_momentum(f.body, c, p0, L0);
    for (int frame = 0; frame < 30; ++frame)
        one_body_step(&f);
    op_body_mass_centre(f.body, c);
    op_energy_momentum(f.body, c, p, L);
    double dp[3], dL[3];
    v3_sub(dp, p, p0);
    v3_sub(dL, L, L0);
    double linear = v3_norm(dp) / v3_norm(p0), angular = v3_norm(dL) / v3_norm(L0);
    print_message("%s, %d iterations: over 30 frames |Δp|/|p| = %.3e, |ΔL|/|L| = %.3e\n", solver->name, iterations,
                  linear, angular);
    assert_le(linear, tol);
    one_body_free(&f);
    return linear;
}

/* No gravity, nothing moving: after 30 frames every position and rotation is its rest value to tol. */
static inline void variant_rest(const op_solver_type *solver, const char *const *pairs, double tol)
{
    one_body f;
    const double none[3] = { 0, 0, 0 };
    variant_world(&f, "bar20", 1e8, none, 10, 1);
    one_body_start(&f, solver, pairs);
    for (int frame = 0; frame < 30; ++frame)
        one_body_step(&f);
    const op_graph *g = f.body->graph;
    double worst_x = 0, worst_R = 0;
    for (int i = 0; i < g->particle_count; ++i) {
        worst_x = fmax(worst_x, sqrt(v3_dist2(&f.body->state.position[3 * i], &g->rest_position[3 * i])));
        for (int k = 0; k < 9; ++k)
            worst_R = fmax(worst_R, fabs(f.body->state.rotation[9 * i + k] - (k % 4 == 0 ? 1.0 : 0.0)));
    }
    print_message("%s: after 30 frames |x - rest| <= %.2e m, |R - I| <= %.2e\n", solver->name, worst_x, worst_R);
    assert_le(worst_x, tol);
    assert_le(worst_R, tol);
    one_body_free(&f);
}

/* Two bodies, one pinned at an end and one falling onto it, stepped on `threads` threads. */
static inline void variant_two_bodies(one_body *f, const op_solver_type *solver, const char *const *pairs,
                                      int threads)
{
    omp_set_num_threads(threads);
    const double g[3] = { 0, -9.81, 0 };
    variant_world(f, "bar20", 1e8, g, 10, 1);
    assert_int_equal(op_body_add_pin(&f->ctx, f->body, 0, 1, 1), OP_OK);
    const op_model *model = f->body->model;
    double identity[9], above[3] = { 0.1, 0.15, 0.0 };
    m3_identity(identity);
    op_body *second;
    assert_int_equal(op_world_add_body(&f->ctx, &f->world, "second", model, 2e8, identity, above, &second), OP_OK);
    one_body_start(f, solver, pairs);
    for (int frame = 0; frame < 20; ++frame)
        one_body_step(f);
}

static inline void variant_threads_agree(const op_solver_type *solver, const char *const *pairs)
{
    one_body a, b;
    variant_two_bodies(&a, solver, pairs, 1);
    variant_two_bodies(&b, solver, pairs, 2);
    for (int k = 0; k < a.world.body_count; ++k) {
        const op_body *x = &a.world.bodies[k], *y = &b.world.bodies[k];
        size_t n = (size_t)x->graph->particle_count;
        assert_memory_equal(x->state.position, y->state.position, 3 * n * sizeof(double));
        assert_memory_equal(x->state.rotation, y->state.rotation, 9 * n * sizeof(double));
        assert_memory_equal(x->state.velocity, y->state.velocity, 3 * n * sizeof(double));
    }
    print_message("%s: %d bodies, 20 frames: one and two threads give the same bits\n", solver->name,
                  a.world.body_count);
    one_body_free(&a);
    one_body_free(&b);
    omp_set_num_threads(1);
}

/* op_world_start with the option `pair` fails with OP_ERR_USAGE and a message holding `expect`. */
static inline void variant_bad_option(const op_solver_type *solver, const char *pair, const char *expect)
{
    one_body f;
    const double none[3] = { 0, 0, 0 };
    variant_world(&f, "bar20", 1e8, none, 10, 1);
    assert_int_equal(one_body_try_start(&f, solver, (const char *[]){ pair, NULL }), OP_ERR_USAGE);
    print_message("%-24s -> %s\n", pair, f.ctx.message);
    if (!strstr(f.ctx.message, expect))
        fail_msg("'%s' does not name '%s'", f.ctx.message, expect);
    one_body_free(&f);
}

#endif
