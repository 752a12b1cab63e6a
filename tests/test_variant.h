/* The checks every solver variant's tests run alike, one body of a catalogue model each: free
 * fall, linear momentum in free flight, rest stays at rest, one and two threads give the same
 * bits, and a bad option fails naming itself. Each takes the variant and its settings (pairs as
 * make_settings reads them) and the tolerance the variant promises. */
#ifndef OPSIM_TEST_VARIANT_H
#define OPSIM_TEST_VARIANT_H

#include <omp.h>

#include "opsim/runfile.h"
#include "test_solver.h"
#include "test_util.h"

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

/* The turn of R about +x in degrees, signed: atan2(R₂₁ − R₁₂, R₁₁ + R₂₂) (exact for a turn about x). */
static inline double variant_turn_about_x(const double R[9])
{
    return atan2(R[7] - R[5], R[4] + R[8]) * 180.0 / M_PI;
}

/* The angle in degrees between R and the turn by phi radians about +x, from tr(Qᵀ R) = 1 + 2 cos θ. */
static inline double variant_angle_from_x_turn(const double R[9], double phi)
{
    double c = cos(phi), s = sin(phi), trace = R[0] + c * R[4] - s * R[5] + s * R[7] + c * R[8];
    return acos(fmax(-1.0, fmin(1.0, 0.5 * (trace - 1.0)))) * 180.0 / M_PI;
}

/* Fig. 1's twist, read back from the run file: experiments/fig1.ini with `solver` for its first
 * 60 frames (2 s: the script turns the grabbed end half a turn about +x, the held end's targets
 * stay), every second frame stored. From the stored orientations: the held end's particle (least
 * rest x) at its largest angle from its rest orientation (*held), the grabbed end's (greatest rest
 * x) at its largest from the script's turn π t/2 (*grabbed), both in degrees over the stored
 * frames, and the middle particle's signed turn about +x at t = 2 s (*middle, degrees). */
static inline void variant_fig1_twist(const char *solver, double *held, double *grabbed, double *middle)
{
    enum { N = 20, ROWS = 31 };
    char path[512];
    snprintf(path, sizeof path, "%s", test_tmp_path(".h5"));
    assert_int_equal(test_shell("bin/opsim run experiments/fig1.ini --set solver.name=%s --set run.frames=60 "
                                "--no-surface --out '%s' > /dev/null",
                                solver, path),
                     0);
    op_ctx ctx;
    op_ctx_init(&ctx);
    static double rest[N * 3], time[ROWS], R[ROWS * N * 9];
    assert_int_equal(op_runfile_read_rows(&ctx, path, "/graph/bar/rest_position", 0, N, rest, 3 * N), OP_OK);
    assert_int_equal(op_runfile_read_rows(&ctx, path, "/particles/bar/orientation/time", 0, ROWS, time, ROWS), OP_OK);
    assert_int_equal(op_runfile_read_rows(&ctx, path, "/particles/bar/orientation/value", 0, ROWS, R, ROWS * N * 9),
                     OP_OK);
    int first = 0, last = 0, order[N];
    for (int i = 1; i < N; ++i) {
        first = rest[3 * i] < rest[3 * first] ? i : first;
        last = rest[3 * i] > rest[3 * last] ? i : last;
    }
    for (int i = 0; i < N; ++i) { /* the particles by rest x, for the middle one */
        order[i] = 0;
        for (int j = 0; j < N; ++j)
            order[i] += rest[3 * j] < rest[3 * i];
    }
    *held = *grabbed = 0.0;
    for (int row = 0; row < ROWS; ++row) {
        const double *at = &R[row * N * 9];
        *held = fmax(*held, variant_angle_from_x_turn(&at[9 * first], 0.0));
        *grabbed = fmax(*grabbed, variant_angle_from_x_turn(&at[9 * last], 0.5 * M_PI * time[row]));
        for (int i = 0; i < N; ++i)
            if (row == ROWS - 1 && order[i] == N / 2)
                *middle = variant_turn_about_x(&at[9 * i]);
    }
    assert_true(fabs(time[ROWS - 1] - 2.0) < 1e-12);
    print_message("fig1 with %s, 2 s: held end %.2f deg from rest at most, grabbed end %.2f deg from the script's "
                  "turn, the middle turned %+.1f deg about x\n",
                  solver, *held, *grabbed, *middle);
    remove(path);
}

/* A twist against a pinned end: bar20 without gravity, particle 0 pinned (position and
 * orientation), the tip vertex's direction ȳ held at ẑ (a quarter turn about +x) by a direction
 * constraint of weight 10³, 30 frames. In the world's arrays the pinned particle's position and
 * orientation are the pin's bit for bit; returns the signed turns about +x (degrees) of the
 * middle particle and of the tip's (the last). */
static inline void variant_pinned_twist(const op_solver_type *solver, double *middle, double *tip)
{
    one_body f;
    const double none[3] = { 0, 0, 0 };
    variant_world(&f, "bar20", 1e8, none, 10, 1);
    assert_int_equal(op_body_add_pin(&f.ctx, f.body, 0, 1, 1), OP_OK);
    int vertex = op_body_nearest_vertex(f.body, (const double[3]){ 0.5, 0, 0 });
    assert_int_equal(
        op_body_add_constraint(&f.ctx, f.body, OP_CONSTRAINT_DIRECTION, vertex, (const double[3]){ 0, 1, 0 }, 1e3, -1),
        OP_OK);
    op_constraint *con = &f.body->constraints[0];
    v3_set(con->anchor, 0, 0, 1);
    v3_copy(con->target, con->anchor);
    one_body_start(&f, solver, NULL);
    for (int frame = 0; frame < 30; ++frame)
        one_body_step(&f);
    const op_pin *pin = &f.body->pins[0];
    int n = f.body->graph->particle_count;
    assert_memory_equal(&f.body->state.position[3 * pin->particle], pin->position, 3 * sizeof(double));
    assert_memory_equal(&f.body->state.rotation[9 * pin->particle], pin->rotation, 9 * sizeof(double));
    *middle = variant_turn_about_x(&f.body->state.rotation[9 * (n / 2)]);
    *tip = variant_turn_about_x(&f.body->state.rotation[9 * (n - 1)]);
    print_message("%s: pinned end held bit for bit; the tip asked a quarter turn about x turned %+.1f deg, the "
                  "middle %+.1f deg\n",
                  solver->name, *tip, *middle);
    one_body_free(&f);
}

#endif
