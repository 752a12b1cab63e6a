/* Tests of the arap solver: the descent property of Gauss–Seidel block-coordinate steps, the
 * optimality of the local rotations, exact rest, pins, constraints, determinism, and the global
 * step's factor shared by the instances of one model whose matrices are the same (each body then
 * moves bitwise as it does alone in its own world, on two threads; one large body's local step
 * shared by two threads gives one thread's bits). Scenes are assembled in code
 * from the model catalogue (data/models.tsv) so each test states what it needs. */
#include "test_solver.h"
#include "test_util.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arap.h"
#include "sim/energy.h"
#include "base/choice.h"
#include "base/math3.h"
#include "base/rng.h"
#include "sim/script.h"
#include "kernels/simd.h"
#include "test_scene_load.h"
#include "opsim/world.h"
#include "geometry/build.h"
#include "geometry/model.h"

typedef one_body fixture;

/* One body of `model` in a world, not started yet: pins and constraints can still be added. */
static void begin_world(fixture *f, const char *model_name, double stiffness, const double gravity[3], int iterations)
{
    op_world_def def = op_default_world_def();
    v3_copy(def.gravity, gravity);
    def.iterations = iterations;
    one_body_begin(f, &def, model_name, 0, stiffness, NULL, NULL);
}

/* Pins the particle nearest the rest centre of mass in position and orientation. */
static void pin_centre(fixture *f)
{
    assert_int_equal(op_body_add_pin(&f->ctx, f->body, op_body_centre_particle(f->body), 1, 1), OP_OK);
}

static void start_world(fixture *f, const char *rotations)
{
    char setting[64];
    snprintf(setting, sizeof setting, "rotations=%s", rotations);
    one_body_start(f, &op_solver_arap, (const char *const[]){ setting, NULL });
}

static void make_world(fixture *f, const char *model_name, double stiffness, const double gravity[3], int iterations,
                       int pinned, const char *rotations)
{
    begin_world(f, model_name, stiffness, gravity, iterations);
    if (pinned)
        pin_centre(f);
    start_world(f, rotations);
}


/* A solver that runs arap's two half-steps separately and checks the energy after each. */
static double probe_worst_rise;
static long probe_half_steps;

static int probe_iterate(op_ctx *ctx, void *solver, op_body *body, double h, op_stage_times *times)
{
    (void)times;
    op_energy before, after_local, after_global;
    op_energy_eval(body, h, &before);
    op_arap_local_step(solver, body, h);
    op_energy_eval(body, h, &after_local);
    if (op_arap_global_step(ctx, solver, body, h) != OP_OK)
        return ctx->status;
    op_energy_eval(body, h, &after_global);
    double rise_local = (after_local.total - before.total) / fabs(before.total);
    double rise_global = (after_global.total - after_local.total) / fabs(after_local.total);
    probe_worst_rise = fmax(probe_worst_rise, fmax(rise_local, rise_global));
    probe_half_steps += 2;
    return OP_OK;
}

static void test_gauss_seidel_never_raises_energy(void **state)
{
    (void)state;
    fixture f;
    make_world(&f, "dino100", 1e7, (const double[3]){ 0, -9.81, 0 }, 10, 1, "gs");
    op_solver_type probe = op_solver_arap;
    probe.iterate = probe_iterate;
    f.world.solver = &probe;
    probe_worst_rise = -INFINITY;
    probe_half_steps = 0;
    for (int frame = 0; frame < 30; ++frame)
        one_body_step(&f);
    print_message("worst relative energy rise over %ld half-steps: %.3e\n", probe_half_steps, probe_worst_rise);
    assert_int_equal(probe_half_steps, 30 * 10 * 2);
    assert_le(probe_worst_rise, 1e-12);
    /* the scene really moves: some particle has sagged by more than a centimetre */
    double sag = 0.0;
    for (int i = 0; i < f.body->graph->particle_count; ++i)
        sag = fmax(sag, f.body->graph->rest_position[3 * i + 1] - f.body->state.position[3 * i + 1]);
    print_message("largest sag %.4f m\n", sag);
    assert_true(sag > 0.01);
    one_body_free(&f);
}

static void test_frame_energy_logged_and_decreasing(void **state)
{
    (void)state;
    fixture f;
    make_world(&f, "dino100", 1e7, (const double[3]){ 0, -9.81, 0 }, 10, 1, "gs");
    for (int frame = 0; frame < 5; ++frame) {
        one_body_step(&f);
        for (int it = 1; it <= 10; ++it)
            assert_le(f.energy[it].total, f.energy[it - 1].total * (1 + 1e-12));
        assert_true(f.energy[10].total < f.energy[0].total);
        assert_close(f.energy[10].total, f.energy[10].kinetic + f.energy[10].elastic + f.energy[10].constraint, 1e-14);
    }
    one_body_free(&f);
}

/* The last particle of a Gauss–Seidel sweep saw every other rotation in its final state, so
 * its rotation must minimise the energy over all rotations with everything else fixed. The
 * sweep goes colour by colour (op_arap_sweep_order), so that is the last of its order, not the
 * last by index. */
static void test_local_rotation_is_optimal(void **state)
{
    (void)state;
    fixture f;
    make_world(&f, "dino100", 1e7, (const double[3]){ 0, -9.81, 0 }, 3, 1, "gs");
    for (int frame = 0; frame < 8; ++frame)
        one_body_step(&f);
    op_body *body = f.body;
    double h = f.world.def.frame_time;
    op_arap_local_step(f.world.solver_state[0], body, h);
    const int *order;
    int count = op_arap_sweep_order(f.world.solver_state[0], &order);
    assert_true(count > 0);
    int last = order[count - 1];
    assert_false(body->rotation_pinned[last]);
    double *R = &body->state.rotation[9 * last], best[9];
    m3_copy(best, R);
    op_energy optimum, trial;
    op_energy_eval(body, h, &optimum);
    op_rng rng = op_rng_seeded(7);
    int trials = 0;
    for (int t = 0; t < 1000; ++t) {
        double axis[3] = { op_rng_uniform(&rng) - 0.5, op_rng_uniform(&rng) - 0.5, op_rng_uniform(&rng) - 0.5 };
        double norm = v3_norm(axis), angle = t < 500 ? 1e-3 * op_rng_uniform(&rng) : M_PI * op_rng_uniform(&rng), Q[9];
        v3_scale(axis, axis, 1.0 / norm);
        op_axis_angle_matrix(axis, angle, Q);
        m3_mul(R, Q, best);
        op_energy_eval(body, h, &trial);
        assert_true(trial.total >= optimum.total * (1 - 1e-14));
        ++trials;
    }
    m3_copy(R, best);
    assert_int_equal(trials, 1000);
    one_body_free(&f);
}

static void test_rest_stays_exactly_at_rest(void **state)
{
    (void)state;
    const char *models[] = { "dino100", "bar20", "sheet256" };
    for (int m = 0; m < 3; ++m) {
        fixture f;
        make_world(&f, models[m], 1e7, (const double[3]){ 0, 0, 0 }, 10, 0, m == 1 ? "jacobi" : "gs");
        for (int frame = 0; frame < 10; ++frame) {
            one_body_step(&f);
            for (int it = 0; it <= 10; ++it)
                assert_true(f.energy[it].total == 0.0);
        }
        const op_graph *g = f.body->graph;
        double identity[9];
        m3_identity(identity);
        /* equal as values: an entry may come out as −0.0 */
        for (int i = 0; i < g->particle_count; ++i) {
            for (int k = 0; k < 3; ++k)
                assert_true(f.body->state.position[3 * i + k] == g->rest_position[3 * i + k]);
            for (int k = 0; k < 9; ++k)
                assert_true(f.body->state.rotation[9 * i + k] == identity[k]);
            assert_true(v3_norm(&f.body->state.velocity[3 * i]) == 0.0);
        }
        one_body_free(&f);
    }
}

static void test_pin_holds_and_rigid_body_falls_freely(void **state)
{
    (void)state;
    fixture f;
    make_world(&f, "torus100", 1e7, (const double[3]){ 0, -9.81, 0 }, 10, 1, "gs");
    const op_pin pin = f.body->pins[0];
    for (int frame = 0; frame < 20; ++frame)
        one_body_step(&f);
    assert_memory_equal(&f.body->state.position[3 * pin.particle], pin.position, 3 * sizeof(double));
    assert_memory_equal(&f.body->state.rotation[9 * pin.particle], pin.rotation, 9 * sizeof(double));
    one_body_free(&f);

    /* without a pin every particle of a body falls with g: the elastic forces cancel */
    make_world(&f, "torus100", 1e7, (const double[3]){ 0, -9.81, 0 }, 10, 0, "gs");
    for (int frame = 0; frame < 30; ++frame)
        one_body_step(&f);
    double t = f.world.time, expected = 0.0;
    /* implicit Euler: y_k = y_{k−1} + h v_{k−1} + h² g, v_k = v_{k−1} + h g */
    for (long k = 1; k <= f.world.frame; ++k)
        expected += -9.81 * f.world.def.frame_time * f.world.def.frame_time * (double)k;
    for (int i = 0; i < f.body->graph->particle_count; ++i)
        assert_close(f.body->state.position[3 * i + 1] - f.body->graph->rest_position[3 * i + 1], expected, 1e-9);
    assert_close(t, 1.0, 1e-12);
    one_body_free(&f);
}

static void test_jacobi_converges_to_the_same_step(void **state)
{
    (void)state;
    fixture gs, jacobi;
    make_world(&gs, "bar20", 1e8, (const double[3]){ 0, -9.81, 0 }, 400, 1, "gs");
    make_world(&jacobi, "bar20", 1e8, (const double[3]){ 0, -9.81, 0 }, 400, 1, "jacobi");
    one_body_step(&gs);
    one_body_step(&jacobi);
    double worst = 0.0;
    for (int k = 0; k < 3 * gs.body->graph->particle_count; ++k)
        worst = fmax(worst, fabs(gs.body->state.position[k] - jacobi.body->state.position[k]));
    print_message("GS vs Jacobi after 400 iterations: %.3e m\n", worst);
    assert_le(worst, 1e-6);
    /* and Jacobi is a different iteration: after 3 iterations the two differ */
    one_body_free(&gs);
    one_body_free(&jacobi);
    make_world(&gs, "bar20", 1e8, (const double[3]){ 0, -9.81, 0 }, 3, 1, "gs");
    make_world(&jacobi, "bar20", 1e8, (const double[3]){ 0, -9.81, 0 }, 3, 1, "jacobi");
    one_body_step(&gs);
    one_body_step(&jacobi);
    assert_true(memcmp(gs.body->state.position, jacobi.body->state.position,
                       3 * (size_t)gs.body->graph->particle_count * sizeof(double)) != 0);
    one_body_free(&gs);
    one_body_free(&jacobi);
}

static void test_position_constraint_pulls_vertex_to_target(void **state)
{
    (void)state;
    fixture f;
    begin_world(&f, "bar20", 1e8, (const double[3]){ 0, 0, 0 }, 50);
    double tip_point[3] = { 0.5, 0, 0 }, target[3] = { 0.5, 0.2, 0.1 };
    int tip = op_body_nearest_vertex(f.body, tip_point);
    assert_int_equal(op_body_add_constraint(&f.ctx, f.body, OP_CONSTRAINT_POSITION, tip, NULL, 1e6, -1), OP_OK);
    v3_copy(f.body->constraints[0].anchor, target);
    start_world(&f, "gs");
    for (int frame = 0; frame < 60; ++frame)
        one_body_step(&f);
    double v[3];
    op_constraint_skinned_point(f.body, &f.body->constraints[0], v);
    print_message("tip vertex at (%.4f %.4f %.4f), target (0.5 0.2 0.1)\n", v[0], v[1], v[2]);
    assert_le(sqrt(v3_dist2(v, target)), 0.02);
    assert_true(v[1] > 0.1); /* it moved most of the way from its rest height 0 */
    one_body_free(&f);
}

/* ---- the constraint terms regrouped by particle (solvers/arap_terms.c, op_arap_terms_targets) ---- */

/* A rotation about a uniformly random axis by an angle uniform in [0, largest). */
static void random_rotation(op_rng *rng, double largest, double R[9])
{
    double axis[3] = { op_rng_uniform(rng) - 0.5, op_rng_uniform(rng) - 0.5, op_rng_uniform(rng) - 0.5 };
    v3_scale(axis, axis, 1.0 / v3_norm(axis));
    op_axis_angle_matrix(axis, largest * op_rng_uniform(rng), R);
}

/* The slow reference: C^p_i + C^d_i summed by constraint entry, each entry's u from all its
 * influences (arap.c's formulation before the regrouping), from the body's positions. */
static void constraint_terms_by_entries(const op_body *body, const double *rotations, int i, double C[9])
{
    const op_graph *g = body->graph;
    for (int c = 0; c < body->constraint_count; ++c) {
        const op_constraint *con = &body->constraints[c];
        for (int own = 0; own < con->influence_count; ++own) {
            if (con->particle[own] != i)
                continue;
            if (con->kind == OP_CONSTRAINT_POSITION) {
                double u[3], u_rest[3], offset[3];
                v3_copy(u, con->target);
                for (int l = 0; l < con->influence_count; ++l) {
                    int p = con->particle[l];
                    v3_axpy(u, -con->influence[l], &body->state.position[3 * p]);
                    if (l == own)
                        continue;
                    v3_sub(offset, con->rest_point, &g->rest_position[3 * p]);
                    m3_mul_v(offset, &rotations[9 * p], offset);
                    v3_axpy(u, -con->influence[l], offset);
                }
                v3_sub(u_rest, con->rest_point, &g->rest_position[3 * i]);
                v3_scale(u_rest, u_rest, con->influence[own]);
                m3_add_outer(C, con->weight, u, u_rest);
            } else {
                double n[3] = { 0, 0, 0 }, turned[3];
                for (int l = 0; l < con->influence_count; ++l) {
                    m3_mul_v(turned, &rotations[9 * con->particle[l]], con->rest_direction);
                    v3_axpy(n, con->influence[l], turned);
                }
                double m = v3_norm(n), r[3], r_rest[3];
                v3_copy(r, con->target);
                for (int l = 0; l < con->influence_count; ++l) {
                    if (l == own)
                        continue;
                    m3_mul_v(turned, &rotations[9 * con->particle[l]], con->rest_direction);
                    v3_axpy(r, -con->influence[l] / m, turned);
                }
                v3_scale(r_rest, con->rest_direction, con->influence[own] / m);
                m3_add_outer(C, con->weight, r, r_rest);
            }
        }
    }
}

/* A bar placed turned and away from the origin, 40 position constraints on random vertices
 * (Fig. 1's weight, targets moved off their anchors by up to 5 cm), three direction constraints
 * with random targets, and the first influence of the first constraint position-pinned; started,
 * then every position moved by up to 2 cm and every rotation turned by up to 0.6 rad. */
static void make_constrained_bar(fixture *f, op_rng *rng)
{
    op_world_def def = op_default_world_def();
    v3_set(def.gravity, 0, -9.81, 0);
    def.iterations = 10;
    double P[9], t[3] = { 1.5, 2.0, -0.75 };
    op_axis_angle_matrix((const double[3]){ 0.6, 0.0, 0.8 }, 0.7, P);
    one_body_begin(f, &def, "bar20", 0, 4e9, P, t);
    op_body *body = f->body;
    int vertices = body->model->mesh.vertex_count;
    for (int c = 0; c < 40; ++c) {
        assert_int_equal(op_body_add_constraint(&f->ctx, body, OP_CONSTRAINT_POSITION, op_rng_below(rng, vertices),
                                                NULL, 1e6, -1),
                         OP_OK);
        double *anchor = body->constraints[c].anchor;
        for (int d = 0; d < 3; ++d)
            anchor[d] += 0.1 * (op_rng_uniform(rng) - 0.5);
    }
    for (int c = 0; c < 3; ++c) {
        double direction[3] = { op_rng_uniform(rng) - 0.5, op_rng_uniform(rng) - 0.5, op_rng_uniform(rng) - 0.5 };
        assert_int_equal(op_body_add_constraint(&f->ctx, body, OP_CONSTRAINT_DIRECTION, op_rng_below(rng, vertices),
                                                direction, 1e3, -1),
                         OP_OK);
        double *anchor = body->constraints[body->constraint_count - 1].anchor;
        for (int d = 0; d < 3; ++d)
            anchor[d] = op_rng_uniform(rng) - 0.5;
        v3_scale(anchor, anchor, 1.0 / v3_norm(anchor));
    }
    assert_int_equal(op_body_add_pin(&f->ctx, body, body->constraints[0].particle[0], 1, 0), OP_OK);
    start_world(f, "gs");
    for (int i = 0; i < body->graph->particle_count; ++i) {
        double turn[9];
        for (int d = 0; d < 3; ++d)
            body->state.position[3 * i + d] += 0.04 * (op_rng_uniform(rng) - 0.5);
        random_rotation(rng, 0.6, turn);
        m3_mul(&body->state.rotation[9 * i], turn, &body->state.rotation[9 * i]);
    }
}

/* The local step's constraint terms, regrouped by particle, against the sum by entries on
 * random states (positions, rotations, targets): the same to 1e-12 of the largest entry. */
static void test_constraint_terms_match_the_sum_by_entries(void **state)
{
    (void)state;
    fixture f;
    op_rng rng = op_rng_seeded(22);
    make_constrained_bar(&f, &rng);
    op_body *body = f.body;
    void *solver = f.world.solver_state[0];
    int n = body->graph->particle_count, compared = 0;
    double h = f.world.def.frame_time / f.world.def.substeps, worst = 0.0;
    double *rotations = malloc(9 * (size_t)n * sizeof(double));
    assert_non_null(rotations);
    for (int trial = 0; trial < 5; ++trial) {
        for (int c = 0; c < body->constraint_count; ++c) {
            op_constraint *con = &body->constraints[c];
            for (int d = 0; d < 3; ++d)
                con->target[d] = con->anchor[d] + 0.1 * trial * (op_rng_uniform(&rng) - 0.5);
        }
        assert_int_equal(op_solver_arap.begin_substep(&f.ctx, solver, body, h), OP_OK);
        op_arap_local_step(solver, body, h); /* reads the positions */
        for (int i = 0; i < n; ++i)
            random_rotation(&rng, 1.0, &rotations[9 * i]);
        for (int i = 0; i < n; ++i) {
            double regrouped[9] = { 0 }, reference[9] = { 0 }, size = 0.0, error = 0.0;
            op_arap_constraint_terms(solver, body, rotations, i, regrouped);
            constraint_terms_by_entries(body, rotations, i, reference);
            for (int k = 0; k < 9; ++k) {
                size = fmax(size, fabs(reference[k]));
                error = fmax(error, fabs(regrouped[k] - reference[k]));
            }
            if (size == 0.0) {
                assert_true(error == 0.0);
                continue;
            }
            worst = fmax(worst, error / size);
            ++compared;
        }
    }
    print_message("%d particle terms compared, largest relative difference %.2e\n", compared, worst);
    assert_true(compared > 5 * 10);
    assert_true(worst <= 1e-12);
    free(rotations);
    one_body_free(&f);
}

/* The global step with constraints (their terms regrouped by free particle, one partner
 * pinned) leaves E's position gradient zero at every free particle: below 1e-9 of what it was. */
static void test_constrained_global_step_zeroes_the_position_gradient(void **state)
{
    (void)state;
    fixture f;
    op_rng rng = op_rng_seeded(23);
    make_constrained_bar(&f, &rng);
    op_body *body = f.body;
    void *solver = f.world.solver_state[0];
    int n = body->graph->particle_count;
    double h = f.world.def.frame_time / f.world.def.substeps;
    double *gradient = malloc(3 * (size_t)n * sizeof(double));
    assert_non_null(gradient);
    for (int c = 0; c < body->constraint_count; ++c)
        for (int d = 0; d < 3; ++d)
            body->constraints[c].target[d] = body->constraints[c].anchor[d] + 0.1 * (op_rng_uniform(&rng) - 0.5);
    assert_int_equal(op_solver_arap.begin_substep(&f.ctx, solver, body, h), OP_OK);
    double before = 0.0, after = 0.0;
    op_energy_position_gradient(body, h, gradient);
    for (int i = 0; i < n; ++i)
        if (!body->position_pinned[i])
            before = fmax(before, sqrt(v3_dot(&gradient[3 * i], &gradient[3 * i])));
    assert_int_equal(op_arap_global_step(&f.ctx, solver, body, h), OP_OK);
    op_energy_position_gradient(body, h, gradient);
    for (int i = 0; i < n; ++i)
        if (!body->position_pinned[i])
            after = fmax(after, sqrt(v3_dot(&gradient[3 * i], &gradient[3 * i])));
    print_message("largest free position gradient %.3e before the global step, %.3e after\n", before, after);
    assert_true(before > 1e3);
    assert_true(after <= 1e-9 * before);
    free(gradient);
    one_body_free(&f);
}

/* Twin dinosaur worlds stepped 20 frames, a with the vector paths op_simd_avx(avx_a) asks for
 * and b with op_simd_avx(avx_b) (−1: as they are), agree in every logged energy and the final
 * state, bit for bit. */
static void twins_agree(int avx_a, int avx_b)
{
    fixture a, b;
    make_world(&a, "dino100", 1e7, (const double[3]){ 0, -9.81, 0 }, 10, 1, "gs");
    make_world(&b, "dino100", 1e7, (const double[3]){ 0, -9.81, 0 }, 10, 1, "gs");
    for (int frame = 0; frame < 20; ++frame) {
        op_simd_avx(avx_a);
        one_body_step(&a);
        op_simd_avx(avx_b);
        one_body_step(&b);
        assert_memory_equal(a.energy, b.energy, 11 * sizeof(op_energy));
    }
    op_simd_avx(1);
    size_t n = (size_t)a.body->graph->particle_count;
    assert_memory_equal(a.body->state.position, b.body->state.position, 3 * n * sizeof(double));
    assert_memory_equal(a.body->state.rotation, b.body->state.rotation, 9 * n * sizeof(double));
    one_body_free(&a);
    one_body_free(&b);
}

static void test_two_runs_are_bitwise_identical(void **state)
{
    (void)state;
    twins_agree(-1, -1);
}

/* The AVX paths (core/kernels/simd.h: the quads' polar rotations, the global step's right-hand side and
 * its triangular solves) give the SSE2 paths' bits: one twin is stepped with each. */
static void test_avx_paths_give_sse2_bits(void **state)
{
    (void)state;
    if (!op_simd_avx(1)) {
        print_message("no AVX paths here (a CPU without AVX, or built without them): nothing to compare\n");
        skip();
    }
    twins_agree(0, 1);
}

/* Rotations the caller writes between frames reach the next local step. The solver keeps each
 * particle's record (R Ā, R) from one sub-step to the next and refreshes it only where R differs
 * from the state's (solvers/arap.c, arap_begin_substep). Two twin worlds take five frames; then
 * every rotation of both is turned by one Q, the second world's solver is made afresh from that
 * state (every record new), and each takes a sub-step's begin and one local step. The rotations
 * must agree to rounding (the polar decompositions' warm starts differ): a record left stale
 * would give the first colours C_i from unturned neighbours, rotations 0.3 rad off. */
static void test_rotations_written_between_frames_are_seen(void **state)
{
    (void)state;
    fixture a, b;
    make_world(&a, "dino100", 1e7, (const double[3]){ 0, -9.81, 0 }, 4, 0, "gs");
    make_world(&b, "dino100", 1e7, (const double[3]){ 0, -9.81, 0 }, 4, 0, "gs");
    for (int frame = 0; frame < 5; ++frame) {
        one_body_step(&a);
        one_body_step(&b);
    }
    double Q[9];
    op_axis_angle_matrix((const double[3]){ 0.6, 0.0, 0.8 }, 0.3, Q);
    int n = a.body->graph->particle_count;
    for (int i = 0; i < n; ++i) {
        m3_mul(&a.body->state.rotation[9 * i], Q, &a.body->state.rotation[9 * i]);
        m3_mul(&b.body->state.rotation[9 * i], Q, &b.body->state.rotation[9 * i]);
    }
    assert_int_equal(op_world_remake_solver_states(&b.ctx, &b.world), OP_OK);
    double h = a.world.def.frame_time / a.world.def.substeps, worst = 0.0;
    assert_int_equal(op_world_begin_substep(&a.ctx, &a.world, h), OP_OK);
    assert_int_equal(op_world_begin_substep(&b.ctx, &b.world, h), OP_OK);
    op_arap_local_step(a.world.solver_state[0], a.body, h);
    op_arap_local_step(b.world.solver_state[0], b.body, h);
    for (int k = 0; k < 9 * n; ++k)
        worst = fmax(worst, fabs(a.body->state.rotation[k] - b.body->state.rotation[k]));
    print_message("rotations turned between frames: kept and fresh records differ by at most %.2g\n", worst);
    assert_true(worst < 1e-12);
    one_body_free(&a);
    one_body_free(&b);
}

/* The sweep order (op_arap_sweep_order, op_arap_sweep_colours): every particle whose rotation is
 * free exactly once, pinned ones never, colour by colour with ascending indices within a colour,
 * and no two particles of a colour coupled in E: neither graph neighbours nor influences of one
 * constraint. */
static void check_sweep_order(const fixture *f)
{
    const op_body *body = f->body;
    const op_graph *g = body->graph;
    int n = g->particle_count;
    const int *order, *colour_start;
    int count = op_arap_sweep_order(f->world.solver_state[0], &order);
    int colours = op_arap_sweep_colours(f->world.solver_state[0], &colour_start);
    assert_true(colours >= 1);
    assert_int_equal(colour_start[0], 0);
    assert_int_equal(colour_start[colours], count);
    int *colour = malloc((size_t)n * sizeof *colour), free_count = 0;
    assert_non_null(colour);
    for (int i = 0; i < n; ++i) {
        colour[i] = -1;
        free_count += !body->rotation_pinned[i];
    }
    assert_int_equal(count, free_count);
    for (int c = 0; c < colours; ++c) {
        assert_true(colour_start[c + 1] > colour_start[c]);
        for (int p = colour_start[c]; p < colour_start[c + 1]; ++p) {
            int i = order[p];
            assert_true(i >= 0 && i < n);
            assert_false(body->rotation_pinned[i]);
            assert_int_equal(colour[i], -1); /* not visited before */
            colour[i] = c;
            if (p > colour_start[c])
                assert_true(order[p - 1] < i);
        }
    }
    for (int i = 0; i < n; ++i) {
        if (colour[i] < 0)
            continue;
        for (int e = g->adjacency_start[i]; e < g->adjacency_start[i + 1]; ++e)
            assert_true(colour[g->adjacency[e]] != colour[i]);
    }
    for (int c = 0; c < body->constraint_count; ++c) {
        const op_constraint *con = &body->constraints[c];
        for (int a = 0; a < con->influence_count; ++a)
            for (int b = a + 1; b < con->influence_count; ++b) {
                int pa = con->particle[a], pb = con->particle[b];
                if (pa != pb && colour[pa] >= 0)
                    assert_true(colour[pa] != colour[pb]);
            }
    }
    print_message("%d free rotations in %d colours\n", count, colours);
    free(colour);
}

static void test_sweep_colouring_is_proper(void **state)
{
    (void)state;
    const char *models[] = { "dino100", "bar20", "sheet256", "torus100" };
    for (int m = 0; m < 4; ++m) {
        fixture f;
        make_world(&f, models[m], 1e7, (const double[3]){ 0, -9.81, 0 }, 2, m != 2, m == 3 ? "jacobi" : "gs");
        check_sweep_order(&f);
        one_body_free(&f);
    }
    /* constraints couple their influences, which need not be graph neighbours */
    fixture f;
    begin_world(&f, "bar20", 1e8, (const double[3]){ 0, 0, 0 }, 5);
    double points[3][3] = { { 0.5, 0, 0 }, { 0, 0, 0 }, { -0.3, 0, 0 } };
    for (int k = 0; k < 3; ++k) {
        int vertex = op_body_nearest_vertex(f.body, points[k]);
        assert_int_equal(op_body_add_constraint(&f.ctx, f.body, k == 1 ? OP_CONSTRAINT_DIRECTION : OP_CONSTRAINT_POSITION,
                                                vertex, (const double[3]){ 0, 1, 0 }, 1e6, -1),
                         OP_OK);
    }
    assert_int_equal(op_body_add_pin(&f.ctx, f.body, 0, 1, 1), OP_OK);
    start_world(&f, "gs");
    check_sweep_order(&f);
    one_body_step(&f);
    one_body_free(&f);
}

/* Every particle of the last colour, not only the last one, saw all its neighbours' rotations
 * in their final state: each one's rotation minimises E with everything else fixed. */
static void test_last_colour_rotations_are_optimal(void **state)
{
    (void)state;
    fixture f;
    /* the sheet: a large last colour (the dinosaur's has one particle) */
    make_world(&f, "sheet256", 1e7, (const double[3]){ 0, -9.81, 0 }, 3, 1, "gs");
    for (int frame = 0; frame < 8; ++frame)
        one_body_step(&f);
    op_body *body = f.body;
    double h = f.world.def.frame_time;
    op_arap_local_step(f.world.solver_state[0], body, h);
    const int *order, *colour_start;
    op_arap_sweep_order(f.world.solver_state[0], &order);
    int colours = op_arap_sweep_colours(f.world.solver_state[0], &colour_start);
    op_energy optimum, trial;
    op_energy_eval(body, h, &optimum);
    op_rng rng = op_rng_seeded(11);
    int checked = 0;
    for (int p = colour_start[colours - 1]; p < colour_start[colours] && checked < 24; ++p) {
        double *R = &body->state.rotation[9 * order[p]], best[9];
        m3_copy(best, R);
        for (int t = 0; t < 100; ++t) {
            double axis[3] = { op_rng_uniform(&rng) - 0.5, op_rng_uniform(&rng) - 0.5, op_rng_uniform(&rng) - 0.5 };
            double angle = t < 50 ? 1e-3 * op_rng_uniform(&rng) : M_PI * op_rng_uniform(&rng), Q[9];
            v3_scale(axis, axis, 1.0 / v3_norm(axis));
            op_axis_angle_matrix(axis, angle, Q);
            m3_mul(R, Q, best);
            op_energy_eval(body, h, &trial);
            assert_true(trial.total >= optimum.total * (1 - 1e-14));
        }
        m3_copy(R, best);
        ++checked;
    }
    print_message("%d rotations of the last colour checked\n", checked);
    assert_true(checked >= 8);
    one_body_free(&f);
}

/* ---- the factor shared between instances of one model ---- */

/* A body of a world of several. */
typedef struct instance {
    const char *model;
    double stiffness;
    double angle;   /* placement: turned by this (rad) about (1, 0, 1)/√2, then 2.5 m per body along x, 1 m up */
    int pin;        /* 0: none; 1: the centre particle, position and orientation; 2: its orientation only */
    int constraint; /* 1: a position constraint holding the vertex nearest the model's origin */
} instance;

/* Gravity, a floor, no contacts between bodies (each body must move as it does alone). */
static op_world_def instance_world_def(void)
{
    op_world_def def = op_default_world_def();
    def.floor = 1;
    def.collisions = 0;
    def.log_energy = 0;
    return def;
}

/* Adds `in` to w as body number `index` (which sets its place). */
static void add_instance(op_world *w, const instance *in, int index)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_build_def build = op_default_build_def();
    build.particles = 0;
    const op_model *model;
    if (op_world_model(&ctx, w, "data/models.tsv", in->model, &build, &model) != OP_OK)
        fail_msg("%s", ctx.message);
    const double axis[3] = { M_SQRT1_2, 0.0, M_SQRT1_2 }, translation[3] = { 2.5 * index, 1.0, 0.0 };
    double rotation[9];
    op_axis_angle_matrix(axis, in->angle, rotation);
    char name[16];
    snprintf(name, sizeof name, "body%d", index);
    op_body *body;
    if (op_world_add_body(&ctx, w, name, model, in->stiffness, rotation, translation, &body) != OP_OK)
        fail_msg("%s", ctx.message);
    if (in->pin)
        assert_int_equal(op_body_add_pin(&ctx, body, op_body_centre_particle(body), in->pin == 1, 1), OP_OK);
    if (in->constraint) {
        int vertex = op_body_nearest_vertex(body, (const double[3]){ 0, 0, 0 });
        assert_int_equal(op_body_add_constraint(&ctx, body, OP_CONSTRAINT_POSITION, vertex, NULL, 1e6, -1), OP_OK);
    }
}

/* A started world of instances[first .. first + count − 1], placed as they would be among all. */
static void make_instances(op_world *w, const instance *instances, int first, int count)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_world_def def = instance_world_def();
    assert_int_equal(op_world_init(&ctx, w, &def), OP_OK);
    for (int b = 0; b < count; ++b)
        add_instance(w, &instances[first + b], first + b);
    op_solver_settings settings = { 0 };
    if (op_world_start(&ctx, w, &op_solver_arap, &settings) != OP_OK)
        fail_msg("%s", ctx.message);
}

/* One frame; its energy log into energy (substeps × (iterations + 1) entries) when not NULL. */
static void step_world_logged(op_world *w, op_energy *energy)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    w->def.log_energy = energy != NULL;
    op_frame_stats stats = { .energy = energy };
    if (op_world_step(&ctx, w, &stats) != OP_OK)
        fail_msg("%s", ctx.message);
}

static void step_world(op_world *w)
{
    step_world_logged(w, NULL);
}

static int distinct_factors(const op_world *w)
{
    int distinct = 0;
    for (int b = 0; b < w->body_count; ++b) {
        int seen = 0;
        for (int a = 0; a < b; ++a)
            seen |= op_arap_factor(w->solver_state[a]) == op_arap_factor(w->solver_state[b]);
        distinct += !seen;
    }
    return distinct;
}

/* Bodies share a factor exactly when their global matrices are provably the same: one model, k,
 * h and position pins, no position constraint. A pin of the orientation alone eliminates no row.
 * A body whose h changes refactors into a factor of its own. */
static void test_instances_share_one_factor(void **state)
{
    (void)state;
    static const instance instances[] = {
        { "dino100", 1e7, 0.0, 0, 0 },  /* 0 */
        { "dino100", 1e7, 0.7, 0, 0 },  /* 1: 0's */
        { "dino100", 2e7, 0.0, 0, 0 },  /* 2: stiffer, its own */
        { "dino100", 1e7, 1.4, 1, 0 },  /* 3: centre pinned, its own */
        { "dino100", 1e7, 2.1, 1, 0 },  /* 4: pinned alike, 3's */
        { "dino100", 1e7, 2.8, 2, 0 },  /* 5: orientation pinned only, 0's */
        { "dino100", 1e7, 0.0, 0, 1 },  /* 6: a position constraint, its own */
        { "torus100", 1e7, 0.0, 0, 0 }, /* 7: another model, its own */
        { "dino100", 1e7, 3.5, 0, 0 },  /* 8: 0's */
        { "torus100", 1e7, 0.5, 0, 0 }, /* 9: 7's */
    };
    static const int owner[] = { 0, 0, 2, 3, 3, 0, 6, 7, 0, 7 };
    enum { BODIES = sizeof instances / sizeof instances[0] };
    op_world w;
    make_instances(&w, instances, 0, BODIES);
    const op_sparse_factor *factor[BODIES];
    for (int b = 0; b < BODIES; ++b) {
        factor[b] = op_arap_factor(w.solver_state[b]);
        assert_non_null(factor[b]);
        for (int a = 0; a < b; ++a)
            if ((factor[a] == factor[b]) != (owner[a] == owner[b]))
                fail_msg("bodies %d and %d: %s factor, expected %s", a, b, factor[a] == factor[b] ? "one" : "two",
                         owner[a] == owner[b] ? "one" : "two");
    }
    print_message("%d bodies, %d factors\n", BODIES, distinct_factors(&w));
    assert_int_equal(distinct_factors(&w), 5);
    /* the world runs on them */
    for (int frame = 0; frame < 3; ++frame)
        step_world(&w);
    for (int b = 0; b < BODIES; ++b)
        assert_ptr_equal(op_arap_factor(w.solver_state[b]), factor[b]);

    /* a sub-step of another length: every body refactors, alone, and keeps its own afterwards */
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_world_begin_substep(&ctx, &w, 0.5 * w.def.frame_time), OP_OK);
    assert_int_equal(distinct_factors(&w), BODIES);
    step_world(&w);
    assert_int_equal(distinct_factors(&w), BODIES);
    op_world_free(&w);
}

/* A world of instances, most of them sharing factors, the first four iterated as one group
 * where the AVX paths run (solvers/arap.c, arap_group_bodies), stepped on two threads, moves
 * every body bitwise as it moves alone in a world of its own (with a factor of its own, stepped
 * with the AVX paths where there are any), and logs as its energy the bodies' energies alone
 * summed in body order. avx, avx512: the paths the world of all is stepped with (op_simd_avx,
 * op_simd_avx512). */
static void each_body_moves_as_alone(int avx, int avx512)
{
    static const instance instances[] = {
        { "dino100", 1e7, 0.0, 0, 0 },  { "dino100", 1e7, 0.9, 0, 0 },  { "dino100", 1e7, 1.8, 0, 0 },
        { "dino100", 1e7, 2.7, 0, 0 },  { "dino100", 2e7, 0.5, 0, 0 },  { "dino100", 1e7, 1.2, 1, 0 },
        { "torus100", 1e7, 0.3, 0, 0 }, { "torus100", 1e7, 1.1, 0, 0 },
    };
    enum { BODIES = sizeof instances / sizeof instances[0], FRAMES = 40 };
    omp_set_num_threads(2);
    op_world all;
    make_instances(&all, instances, 0, BODIES);
    assert_true(all.schedule->parallel);
    assert_int_equal(distinct_factors(&all), 4);
    /* the four alike dinosaurs are one unit, each other body one of its own */
    assert_int_equal(all.schedule->unit_count, op_simd_avx(-1) ? BODIES - 3 : BODIES);
    op_simd_avx(avx);
    op_simd_avx512(avx512);
    size_t row = (size_t)all.def.substeps * (size_t)(all.def.iterations + 1), logged = FRAMES * row;
    op_energy *energy = calloc(logged, sizeof *energy), *alone_energy = calloc(logged, sizeof *alone_energy);
    op_energy *summed = calloc(logged, sizeof *summed);
    assert_non_null(energy);
    assert_non_null(alone_energy);
    assert_non_null(summed);
    for (int frame = 0; frame < FRAMES; ++frame)
        step_world_logged(&all, &energy[frame * row]);
    op_simd_avx(1);
    for (int b = 0; b < BODIES; ++b) {
        op_world alone;
        make_instances(&alone, instances, b, 1);
        for (int frame = 0; frame < FRAMES; ++frame)
            step_world_logged(&alone, &alone_energy[frame * row]);
        for (size_t k = 0; k < logged; ++k) {
            summed[k].kinetic += alone_energy[k].kinetic;
            summed[k].elastic += alone_energy[k].elastic;
            summed[k].constraint += alone_energy[k].constraint;
            summed[k].total += alone_energy[k].total;
        }
        const op_state *s = &all.bodies[b].state, *t = &alone.bodies[0].state;
        size_t n = (size_t)s->particle_count;
        assert_memory_equal(s->position, t->position, 3 * n * sizeof(double));
        assert_memory_equal(s->rotation, t->rotation, 9 * n * sizeof(double));
        assert_memory_equal(s->velocity, t->velocity, 3 * n * sizeof(double));
        assert_memory_equal(s->rotation_rate, t->rotation_rate, 9 * n * sizeof(double));
        op_world_free(&alone);
    }
    /* the free bodies fell onto the floor and deformed there: not a rigid translation */
    const op_body *body = &all.bodies[1];
    double lowest = INFINITY, turn = 0.0;
    for (int i = 0; i < body->graph->particle_count; ++i) {
        lowest = fmin(lowest, body->state.position[3 * i + 1]);
        for (int k = 0; k < 9; ++k)
            turn = fmax(turn, fabs(body->state.rotation[9 * i + k] - body->placement_rotation[k]));
    }
    print_message("body 1 after %d frames: lowest centre %.3f m, largest rotation entry change %.3f\n", FRAMES, lowest,
                  turn);
    assert_true(lowest < 0.2 && turn > 1e-3);
    assert_memory_equal(energy, summed, logged * sizeof *energy);
    assert_true(energy[logged - 1].elastic > 0.0);
    free(energy);
    free(alone_energy);
    free(summed);
    op_world_free(&all);
}

static void test_shared_factor_moves_each_body_as_alone(void **state)
{
    (void)state;
    each_body_moves_as_alone(1, 1);
}

/* The group's AVX path without AVX-512 (group_colour_avx: its record sums in two halves, its
 * fours' polar decompositions as two eights), where the CPU has AVX-512 and the test above
 * took the AVX-512 path. */
static void test_group_in_avx_without_avx512_moves_each_body_as_alone(void **state)
{
    (void)state;
    if (!op_simd_avx512(1)) {
        print_message("no AVX-512 paths here: the test above took the AVX path\n");
        skip();
    }
    each_body_moves_as_alone(1, 0);
}

/* The group's lanes computed one at a time (group_particle), as when its AVX paths are switched
 * off after it was formed. */
static void test_group_without_avx_moves_each_body_as_alone(void **state)
{
    (void)state;
    if (!op_simd_avx(1)) {
        print_message("no AVX paths here: no groups are formed, nothing to compare\n");
        skip();
    }
    each_body_moves_as_alone(0, 0);
}

/* The energy op_world_step logs, each body's kept by its own sub-step and summed after, is
 * what the staged calls (every body's begin, then every body's iteration k, op_world_energy
 * after each) measure in a twin world, bitwise, on two threads. */
static void test_logged_energy_matches_staged_substep(void **state)
{
    (void)state;
    static const instance instances[] = {
        { "dino100", 1e7, 0.0, 0, 0 }, { "dino100", 1e7, 0.9, 0, 1 }, { "torus100", 1e7, 0.3, 0, 0 },
        { "dino100", 2e7, 1.2, 1, 0 },
    };
    enum { BODIES = sizeof instances / sizeof instances[0], FRAMES = 6 };
    omp_set_num_threads(2);
    op_world stepped, staged;
    make_instances(&stepped, instances, 0, BODIES);
    make_instances(&staged, instances, 0, BODIES);
    assert_true(stepped.schedule->parallel);
    for (int frame = 0; frame < FRAMES; ++frame) {
        step_world(&stepped);
        step_world(&staged);
    }
    int columns = stepped.def.iterations + 1;
    op_energy *logged = calloc((size_t)columns, sizeof *logged), *measured = calloc((size_t)columns, sizeof *measured);
    assert_non_null(logged);
    assert_non_null(measured);
    assert_int_equal(stepped.def.substeps, 1);
    step_world_logged(&stepped, logged);
    op_ctx ctx;
    op_ctx_init(&ctx);
    double h = staged.def.frame_time;
    op_stage_times times = { 0 };
    assert_int_equal(op_world_begin_substep(&ctx, &staged, h), OP_OK);
    op_world_energy(&staged, h, &measured[0]);
    for (int k = 0; k < staged.def.iterations; ++k) {
        assert_int_equal(op_world_iterate(&ctx, &staged, h, k, &times), OP_OK);
        op_world_energy(&staged, h, &measured[k + 1]);
    }
    for (int k = 1; k < columns; ++k)
        assert_true(logged[k].total < logged[k - 1].total);
    assert_memory_equal(logged, measured, (size_t)columns * sizeof *logged);
    free(logged);
    free(measured);
    op_world_free(&stepped);
    op_world_free(&staged);
}

/* One body of 729 particles (experiments/perf-cube.ini), alone in its world, so that its local
 * step shares each colour between the threads (sweep_threads = team: solvers/arap.c,
 * sweep_shared): stepped on two threads it moves bit for bit as on one, in Gauss–Seidel and in
 * Jacobi order. */
static void large_body_moves_alike_on_one_and_two_threads(const char *rotations)
{
    const char *overrides[] = { rotations, "solver.sweep_threads=team", NULL };
    op_scene scene;
    test_load_scene(&scene, "experiments/perf-cube.ini", overrides);
    assert_int_equal(scene.world.body_count, 1);
    const int *order;
    assert_true(op_arap_sweep_order(scene.world.solver_state[0], &order) >= 512); /* colours worth sharing */
    op_scene_free(&scene);
    assert_same_bits_on_threads("experiments/perf-cube.ini", overrides, 4, 0);
}

static void test_large_body_shares_local_step_bitwise(void **state)
{
    (void)state;
    large_body_moves_alike_on_one_and_two_threads("solver.rotations=gs");
    large_body_moves_alike_on_one_and_two_threads("solver.rotations=jacobi");
}

/* The state of body 0 (positions, velocities, rotations) */
static double *body_state(const op_world *world)
{
    const op_state *s = &world->bodies[0].state;
    size_t n = (size_t)s->particle_count;
    double *out = malloc(15 * n * sizeof *out);
    assert_non_null(out);
    memcpy(out, s->position, 3 * n * sizeof *out);
    memcpy(out + 3 * n, s->velocity, 3 * n * sizeof *out);
    memcpy(out + 6 * n, s->rotation, 9 * n * sizeof *out);
    return out;
}

/* sweep_threads = auto (include/opsim/world.h): Fig. 5's dinosaur alone in its world (three
 * sub-steps a frame), on two threads. Nothing else is there to choose, so the sweeps calibrate
 * from the first sub-step, the team and one thread in turn over frames 0-3, and keep the faster
 * from frame 4; the same bits as `one` and `team`, and as auto on one thread, where there is
 * nothing to time; the run file holds the setting and each frame's offer. */
static void test_sweep_threads_chosen_by_timing(void **state)
{
    (void)state;
    enum { FRAMES = 6, RUNS = 4 };
    const char *const settings[RUNS][3] = { { "run.frames=6", "solver.sweep_threads=one", NULL },
                                            { "run.frames=6", "solver.sweep_threads=team", NULL },
                                            { "run.frames=6", "solver.sweep_threads=auto", NULL },
                                            { "run.frames=6", "solver.sweep_threads=auto", NULL } };
    double *runs[RUNS];
    size_t size = 0;
    op_ctx ctx;
    for (int run = 0; run < RUNS; ++run) {
        omp_set_num_threads(run == 3 ? 1 : 2);
        op_scene scene;
        test_load_scene(&scene, "experiments/fig5.ini", settings[run]);
        assert_int_equal(op_world_sweep_auto(&scene.world), run == 2);
        op_frame_stats stats = { 0 };
        for (int frame = 0; frame < FRAMES; ++frame) {
            op_ctx_init(&ctx);
            if (op_world_step(&ctx, &scene.world, &stats) != OP_OK)
                fail_msg("%s", ctx.message);
            int expected = run != 2 ? OP_SCHEDULE_THREADS_ONE
                           : frame < 4 ? OP_SCHEDULE_THREADS_AUTO
                           : scene.world.sweep_choice->chosen == 0 ? OP_SCHEDULE_THREADS_ALL
                                                                   : OP_SCHEDULE_THREADS_ONE;
            assert_int_equal(stats.sweep_threads, expected);
        }
        const op_choice *sweep = scene.world.sweep_choice;
        assert_int_equal(sweep->calibrations, run == 2);
        if (run == 2) {
            print_message("sweep's cycle: %.1f µs on the team, %.1f µs on one thread\n", 1e6 * sweep->median[0],
                          1e6 * sweep->median[1]);
            assert_true(sweep->median[0] > 0 && sweep->median[1] > 0);
        }
        size = 15 * (size_t)scene.world.bodies[0].state.particle_count * sizeof(double);
        runs[run] = body_state(&scene.world);
        op_scene_free(&scene);
    }
    for (int run = 1; run < RUNS; ++run)
        assert_memory_equal(runs[0], runs[run], size);
    for (int run = 0; run < RUNS; ++run)
        free(runs[run]);

    omp_set_num_threads(2);
    op_scene scene;
    test_load_scene(&scene, "experiments/fig5.ini", settings[2]);
    const char *path = test_record_scene(&scene);
    char setting[16];
    int64_t team[FRAMES];
    op_ctx_init(&ctx);
    if (op_runfile_read_attribute_string(&ctx, path, "/parameters", "solver_sweep_threads", setting, sizeof setting) !=
            OP_OK ||
        op_runfile_read_rows_int64(&ctx, path, "/timing/sweeps_on_team", 0, FRAMES, team, FRAMES) != OP_OK)
        fail_msg("%s", ctx.message);
    assert_string_equal(setting, "auto");
    for (int f = 0; f < FRAMES; ++f)
        assert_true(f < 4 ? team[f] == 0 : team[f] == team[FRAMES - 1]);
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gauss_seidel_never_raises_energy),
        cmocka_unit_test(test_sweep_threads_chosen_by_timing),
        cmocka_unit_test(test_frame_energy_logged_and_decreasing),
        cmocka_unit_test(test_local_rotation_is_optimal),
        cmocka_unit_test(test_rest_stays_exactly_at_rest),
        cmocka_unit_test(test_pin_holds_and_rigid_body_falls_freely),
        cmocka_unit_test(test_jacobi_converges_to_the_same_step),
        cmocka_unit_test(test_position_constraint_pulls_vertex_to_target),
        cmocka_unit_test(test_constraint_terms_match_the_sum_by_entries),
        cmocka_unit_test(test_constrained_global_step_zeroes_the_position_gradient),
        cmocka_unit_test(test_two_runs_are_bitwise_identical),
        cmocka_unit_test(test_avx_paths_give_sse2_bits),
        cmocka_unit_test(test_rotations_written_between_frames_are_seen),
        cmocka_unit_test(test_sweep_colouring_is_proper),
        cmocka_unit_test(test_last_colour_rotations_are_optimal),
        cmocka_unit_test(test_instances_share_one_factor),
        cmocka_unit_test(test_shared_factor_moves_each_body_as_alone),
        cmocka_unit_test(test_group_in_avx_without_avx512_moves_each_body_as_alone),
        cmocka_unit_test(test_group_without_avx_moves_each_body_as_alone),
        cmocka_unit_test(test_logged_energy_matches_staged_substep),
        cmocka_unit_test(test_large_body_shares_local_step_bitwise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
