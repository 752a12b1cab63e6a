/* Tests of the meshless variant (Müller et al. 2005): the paper's spring keeps its amplitude at
 * any time step (Eq. 11) and the predicted-goal reading damps it; a rigidly moving body has its
 * goals at its positions and keeps its momentum and angular momentum; the quadratic mode at
 * β = 0 is bitwise the rigid one, the linear mode at β = 1 reproduces an affine deformation and
 * the quadratic one a quadratic deformation; planar, collinear and collapsed clusters stay
 * finite and a collapsed body finds its rest shape; plasticity accrues only above yield and
 * stays within max; runs are bitwise the same on 1 and 2 threads and with and without AVX;
 * bad options fail naming the option. Scenes come from the model catalogue (data/models.tsv). */
#include "test_solver.h"
#include "test_util.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/math3.h"
#include "meshless.h"
#include "sim/script.h"
#include "kernels/simd.h"
#include "base/timer.h"
#include "opsim/world.h"
#include "geometry/build.h"
#include "sim/schedule.h"

typedef one_body fixture;

static const double no_gravity[3] = { 0, 0, 0 }, gravity[3] = { 0, -9.81, 0 };

/* One body of catalogue model `model_name` (particles > 0 overrides its count) at `height`. */
static void begin_world(fixture *f, const char *model_name, int particles, const double g[3], double frame_time,
                        double height)
{
    op_world_def def = op_default_world_def();
    v3_copy(def.gravity, g);
    def.iterations = 1;
    def.frame_time = frame_time;
    def.log_energy = 0;
    one_body_begin(f, &def, model_name, particles, 1e7, NULL, (const double[3]){ 0, height, 0 });
}

/* ---- the paper's spring (Sec. 3, Eq. 9-11) ------------------------------------------------ */

/* Two particles, the first pinned, the second stretched by 20 % along the rod; no gravity.
 * Returns the largest |stretch| over steps [from, to). */
static double spring_amplitude(const char *goals, double frame_time, int from, int to)
{
    fixture f;
    begin_world(&f, "bar20", 2, no_gravity, frame_time, 0.0);
    assert_int_equal(op_body_add_pin(&f.ctx, f.body, 0, 1, 1), OP_OK);
    char goals_pair[64];
    snprintf(goals_pair, sizeof goals_pair, "goals=%s", goals);
    one_body_start(&f, &op_solver_meshless, (const char *[]){ "alpha=1", goals_pair, NULL });
    const op_graph *g = f.body->graph;
    double rest = sqrt(v3_dist2(&g->rest_position[0], &g->rest_position[3])), d[3];
    v3_sub(d, &f.body->state.position[3], &f.body->state.position[0]);
    v3_axpy(&f.body->state.position[3], 0.2, d);
    double largest = 0.0;
    for (int s = 0; s < to; ++s) {
        one_body_step(&f);
        double stretch = sqrt(v3_dist2(&f.body->state.position[0], &f.body->state.position[3])) - rest;
        if (s >= from)
            largest = fmax(largest, fabs(stretch) / (0.2 * rest));
    }
    one_body_free(&f);
    return largest;
}

static void test_spring_amplitude_never_grows(void **state)
{
    (void)state;
    const double frame_times[] = { 1e-3, 1.0 / 30.0, 1.0, 1e3 };
    for (int k = 0; k < 4; ++k) {
        double early = spring_amplitude("start", frame_times[k], 0, 30);
        double late = spring_amplitude("start", frame_times[k], 970, 1000);
        /* |λ| = 1: the oscillation keeps its size (a little above the initial stretch, as the
         * discrete orbit is an ellipse in (x, v)), neither growing nor decaying */
        assert_true(early > 0.99 && early < 1.2);
        assert_true(fabs(late - early) < 0.01 * early);
        /* the predicted goals damp it: |λ|² = 1 − α per step, here 0 (the pinned particle's weight
         * puts the cluster's centre on it, so the free one gets the whole pull): rounding is left */
        assert_true(spring_amplitude("predicted", frame_times[k], 970, 1000) < 1e-12);
    }
}

/* ---- rigid motion ------------------------------------------------------------------------- */

/* The torus spinning about a tilted axis while it drifts; no gravity, no floor. */
static void spin(fixture *f, const double omega[3], const double drift[3])
{
    const op_graph *g = f->body->graph;
    double centre[3] = { 0, 0, 0 }, mass = 0.0;
    for (int i = 0; i < g->particle_count; ++i) {
        v3_axpy(centre, g->mass[i], &f->body->state.position[3 * i]);
        mass += g->mass[i];
    }
    v3_scale(centre, centre, 1.0 / mass);
    for (int i = 0; i < g->particle_count; ++i) {
        double r[3], *v = &f->body->state.velocity[3 * i];
        v3_sub(r, &f->body->state.position[3 * i], centre);
        v3_cross(v, omega, r);
        v3_add(v, v, drift);
    }
}

static void momenta(const op_body *body, double P[3], double L[3])
{
    const op_graph *g = body->graph;
    v3_set(P, 0, 0, 0);
    v3_set(L, 0, 0, 0);
    for (int i = 0; i < g->particle_count; ++i) {
        double r[3];
        v3_axpy(P, g->mass[i], &body->state.velocity[3 * i]);
        v3_cross(r, &body->state.position[3 * i], &body->state.velocity[3 * i]);
        v3_axpy(L, g->mass[i], r);
    }
}

static void test_rigid_motion_goals_and_momenta(void **state)
{
    (void)state;
    fixture f;
    begin_world(&f, "torus100", 0, no_gravity, 1.0 / 30.0, 0.0);
    one_body_start(&f, &op_solver_meshless, (const char *[]){ "mode=rigid", NULL });
    const double omega[3] = { 0.3, 2.0, -0.7 }, drift[3] = { 0.5, -0.2, 0.1 };
    spin(&f, omega, drift);
    int n = f.body->graph->particle_count;
    double *expected = malloc(3 * (size_t)n * sizeof(double));
    assert_non_null(expected);
    for (int i = 0; i < n; ++i) {
        v3_copy(&expected[3 * i], &f.body->state.position[3 * i]);
        v3_axpy(&expected[3 * i], 1.0 / 30.0, &f.body->state.velocity[3 * i]);
    }
    double P0[3], L0[3], P[3], L[3];
    momenta(f.body, P0, L0);
    one_body_step(&f);
    /* the rest shape undeformed: the goals are the positions, so the step is the free flight */
    double worst = 0.0;
    for (int i = 0; i < n; ++i)
        worst = fmax(worst, sqrt(v3_dist2(&expected[3 * i], &f.body->state.position[3 * i])));
    assert_true(worst < 1e-14);
    free(expected);
    for (int s = 1; s < 100; ++s)
        one_body_step(&f);
    momenta(f.body, P, L);
    double p_scale = v3_norm(P0), l_scale = v3_norm(L0);
    for (int k = 0; k < 3; ++k) {
        assert_true(fabs(P[k] - P0[k]) < 1e-12 * p_scale);
        assert_true(fabs(L[k] - L0[k]) < 1e-12 * l_scale);
    }
    /* and it has deformed (the goals lag by a step: the body breathes), so the conservation was
     * not trivial */
    assert_true(worst_edge_strain(f.body) > 1e-4);
    one_body_free(&f);
}

/* ---- modes -------------------------------------------------------------------------------- */

/* The dinosaur of 30 particles hanging from a pinned particle under gravity, 20 frames. */
static void hang(fixture *f, const char *const *pairs)
{
    begin_world(f, "dino30", 0, gravity, 1.0 / 30.0, 1.0);
    assert_int_equal(op_body_add_pin(&f->ctx, f->body, 0, 1, 1), OP_OK);
    one_body_start(f, &op_solver_meshless, pairs);
    for (int s = 0; s < 20; ++s)
        one_body_step(f);
}

static void test_quadratic_at_beta_zero_is_rigid(void **state)
{
    (void)state;
    const char *clusters[] = { "clusters=1", "clusters=3", "clusters=ring" };
    for (int c = 0; c < 3; ++c) {
        fixture rigid, quadratic;
        hang(&rigid, (const char *[]){ "mode=rigid", clusters[c], "alpha=0.5", NULL });
        hang(&quadratic, (const char *[]){ "mode=quadratic", "beta=0", clusters[c], "alpha=0.5", NULL });
        int n = rigid.body->graph->particle_count;
        assert_memory_equal(rigid.body->state.position, quadratic.body->state.position, 3 * (size_t)n * sizeof(double));
        assert_memory_equal(rigid.body->state.rotation, quadratic.body->state.rotation, 9 * (size_t)n * sizeof(double));
        assert_true(worst_edge_strain(rigid.body) > 1e-6); /* it did deform */
        one_body_free(&rigid);
        one_body_free(&quadratic);
    }
}

/* Every particle moved by x = F x̄ + t (+ the quadratic term K(x̄)): one sub-step at α = 1, β = 1
 * from rest moves every particle to its goal, so the positions stay put when the goals
 * reproduce the deformation; returns the largest move. */
static double deformation_kept(const char *mode, int quadratic_term)
{
    fixture f;
    begin_world(&f, "dino30", 0, no_gravity, 1.0 / 30.0, 0.0);
    char mode_pair[32];
    snprintf(mode_pair, sizeof mode_pair, "mode=%s", mode);
    one_body_start(&f, &op_solver_meshless, (const char *[]){ mode_pair, "beta=1", "alpha=1", NULL });
    const op_graph *g = f.body->graph;
    int n = g->particle_count;
    const double F[9] = { 1.3, 0.2, -0.1, 0.05, 0.8, 0.3, -0.2, 0.1, 1.1 }, t[3] = { 0.4, -1.0, 2.0 };
    double *deformed = malloc(3 * (size_t)n * sizeof(double));
    assert_non_null(deformed);
    for (int i = 0; i < n; ++i) {
        const double *r = &g->rest_position[3 * i];
        double *x = &deformed[3 * i];
        m3_mul_v(x, F, r);
        v3_add(x, x, t);
        if (quadratic_term) {
            x[0] += 0.7 * r[1] * r[1] - 0.4 * r[0] * r[2];
            x[1] += 0.5 * r[0] * r[0] + 0.3 * r[1] * r[2];
            x[2] += -0.6 * r[2] * r[2] + 0.2 * r[0] * r[1];
        }
        v3_copy(&f.body->state.position[3 * i], x);
    }
    one_body_step(&f);
    double worst = 0.0;
    for (int i = 0; i < n; ++i)
        worst = fmax(worst, sqrt(v3_dist2(&deformed[3 * i], &f.body->state.position[3 * i])));
    free(deformed);
    one_body_free(&f);
    return worst;
}

static void test_linear_and_quadratic_fits_reproduce_their_deformations(void **state)
{
    (void)state;
    assert_true(deformation_kept("linear", 0) < 1e-12);
    assert_true(deformation_kept("quadratic", 0) < 1e-12);
    /* q̃ is not centred (Eq. 12), so the mean of a quadratic deformation's monomials is left out
     * of the fit: better than the linear fit, not exact */
    double quadratic = deformation_kept("quadratic", 1), linear = deformation_kept("linear", 1);
    assert_true(quadratic < 0.5 * linear);
    assert_true(quadratic > 1e-3);
    assert_true(deformation_kept("rigid", 0) > 1e-2);
}

/* ---- degenerate clusters ------------------------------------------------------------------- */

static int state_is_sound(const op_body *body)
{
    for (int i = 0; i < body->graph->particle_count; ++i)
        if (!v3_isfinite(&body->state.position[3 * i]) ||
            m3_orthonormality_error(&body->state.rotation[9 * i]) > 1e-9 ||
            m3_det(&body->state.rotation[9 * i]) < 0.0)
            return 0;
    return 1;
}

static void test_planar_and_collinear_clusters_stay_finite(void **state)
{
    (void)state;
    const char *models[] = { "bar20", "sheet256" }; /* centres on a line, in a plane */
    const char *modes[] = { "mode=rigid", "mode=linear", "mode=quadratic" };
    const char *clusters[] = { "clusters=1", "clusters=4", "clusters=ring" };
    for (int m = 0; m < 2; ++m)
        for (int k = 0; k < 3; ++k)
            for (int c = 0; c < 3; ++c) {
                fixture f;
                begin_world(&f, models[m], 0, gravity, 1.0 / 30.0, 1.0);
                assert_int_equal(op_body_add_pin(&f.ctx, f.body, 0, 1, 1), OP_OK);
                one_body_start(&f, &op_solver_meshless, (const char *[]){ modes[k], clusters[c], NULL });
                for (int s = 0; s < 10; ++s)
                    one_body_step(&f);
                assert_true(state_is_sound(f.body));
                /* it hangs and swings, but rigid stays nearly rigid */
                if (k == 0 && c == 0)
                    assert_true(worst_edge_strain(f.body) < 0.2);
                one_body_free(&f);
            }
    /* volume preservation on full clusters: finite, and it holds the hanging dinosaur's shape */
    const char *full_modes[] = { "mode=linear", "mode=quadratic" };
    for (int k = 0; k < 2; ++k) {
        fixture f;
        hang(&f, (const char *[]){ full_modes[k], "clusters=2", "volume_preserve=on", NULL });
        assert_true(state_is_sound(f.body));
        assert_true(worst_edge_strain(f.body) < 0.5);
        one_body_free(&f);
    }
    /* the rod's twist is not left to chance: hanging in its vertical plane, its particles keep
     * their orientations' turn about the vertical (the matrix's y column stays in the xy plane) */
    fixture f;
    begin_world(&f, "bar20", 0, gravity, 1.0 / 30.0, 1.0);
    assert_int_equal(op_body_add_pin(&f.ctx, f.body, 0, 1, 1), OP_OK);
    one_body_start(&f, &op_solver_meshless, (const char *[]){ "mode=rigid", NULL });
    for (int s = 0; s < 30; ++s)
        one_body_step(&f);
    for (int i = 0; i < f.body->graph->particle_count; ++i)
        assert_true(fabs(f.body->state.rotation[9 * i + 5]) < 1e-9 && fabs(f.body->state.rotation[9 * i + 2]) < 1e-9);
    one_body_free(&f);
}

/* Every particle at the pinned centre particle, no gravity (Choi & Lee Fig. 4). */
static void test_collapsed_body_recovers(void **state)
{
    (void)state;
    const char *const settings[2][4] = { { "mode=rigid", "clusters=1", "goals=start", NULL },
                                         { "mode=quadratic", "clusters=3", "goals=predicted", NULL } };
    for (int k = 0; k < 2; ++k) {
        fixture f;
        begin_world(&f, "dino30", 0, no_gravity, 1.0 / 30.0, 0.0);
        int centre = op_body_centre_particle(f.body);
        assert_int_equal(op_body_add_pin(&f.ctx, f.body, centre, 1, 1), OP_OK);
        for (int i = 0; i < f.body->graph->particle_count; ++i)
            v3_copy(&f.body->state.position[3 * i], &f.body->state.position[3 * centre]);
        one_body_start(&f, &op_solver_meshless, settings[k]);
        assert_true(worst_edge_strain(f.body) > 0.99);
        one_body_step(&f);
        assert_true(state_is_sound(f.body));
        if (k == 0) {
            /* Eq. 9 from a point, one rigid cluster: A_pq = 0, so R is the previous (placement)
             * rotation and the goals are the rest shape itself, which α = 1 reaches in one step
             * (the velocity it gives then carries the body on); up to the pinned particle's
             * finite weight, 1e6 times its mass, which puts the rest centre ~1e-6 of the body's
             * size off it */
            assert_true(worst_edge_strain(f.body) < 1e-4);
        } else {
            for (int s = 1; s < 60; ++s)
                one_body_step(&f);
            assert_true(worst_edge_strain(f.body) < 0.01);
        }
        one_body_free(&f);
    }
}

/* ---- plasticity ---------------------------------------------------------------------------- */

/* The largest ‖S_p − I‖₂ over the clusters, estimated from below by ‖(S_p − I) u‖ over a few
 * directions, and the strain left after the hanging dinosaur is released and settles. */
static void plastic_run(const char *yield, const char *creep, const char *max, double *largest, double *left)
{
    fixture f;
    begin_world(&f, "dino30", 0, gravity, 1.0 / 30.0, 1.0);
    assert_int_equal(op_body_add_pin(&f.ctx, f.body, 0, 1, 1), OP_OK);
    char pairs[3][32];
    snprintf(pairs[0], sizeof pairs[0], "yield=%s", yield);
    snprintf(pairs[1], sizeof pairs[1], "creep=%s", creep);
    snprintf(pairs[2], sizeof pairs[2], "max=%s", max);
    one_body_start(&f, &op_solver_meshless, (const char *[]){ "mode=linear", "beta=0.5", "alpha=0.5", "clusters=2", "goals=predicted",
                                      pairs[0], pairs[1], pairs[2], NULL });
    *largest = 0.0;
    for (int s = 0; s < 60; ++s) {
        one_body_step(&f);
        for (int c = 0; c < op_meshless_cluster_count(f.world.solver_state[0]); ++c) {
            double Sp[9];
            op_meshless_plastic_state(f.world.solver_state[0], c, Sp);
            Sp[0] -= 1.0, Sp[4] -= 1.0, Sp[8] -= 1.0;
            for (int d = 0; d < 3; ++d) {
                double u[3] = { d == 0, d == 1, d == 2 }, out[3];
                m3_mul_v(out, Sp, u);
                *largest = fmax(*largest, v3_norm(out));
            }
        }
    }
    f.body->pin_count = 0; /* released: it falls freely and settles to its rest shape */
    f.body->position_pinned[0] = f.body->rotation_pinned[0] = 0;
    v3_set(f.world.def.gravity, 0, 0, 0);
    for (int s = 0; s < 120; ++s)
        one_body_step(&f);
    *left = worst_edge_strain(f.body);
    one_body_free(&f);
}

static void test_plasticity_below_yield_and_within_max(void **state)
{
    (void)state;
    double largest, elastic_left, plastic_left, bounded_left;
    plastic_run("100", "20", "1", &largest, &elastic_left);
    assert_true(largest == 0.0); /* never above yield: S_p stays I exactly */
    plastic_run("0", "20", "1", &largest, &plastic_left);
    assert_true(largest > 0.01);
    assert_true(plastic_left > 10.0 * elastic_left); /* a permanent deformation */
    plastic_run("0", "20", "0.02", &largest, &bounded_left);
    assert_true(largest <= 0.02 * (1.0 + 1e-12));
    assert_true(largest > 0.015);
    assert_true(bounded_left < plastic_left);
}

/* ---- determinism ---------------------------------------------------------------------------- */

/* Two tori falling onto the floor and each other (200 particles: the per-body stages go on
 * threads), 30 frames; the final state. */
static double *two_tori(int threads, int avx)
{
    op_simd_avx(avx);
    omp_set_num_threads(threads);
    fixture f;
    memset(&f, 0, sizeof f);
    op_ctx_init(&f.ctx);
    op_world_def def = op_default_world_def();
    def.floor = 1;
    def.log_energy = 0;
    assert_int_equal(op_world_init(&f.ctx, &f.world, &def), OP_OK);
    op_build_def build = op_default_build_def();
    build.particles = 0;
    const op_model *model;
    if (op_world_model(&f.ctx, &f.world, "data/models.tsv", "torus100", &build, &model) != OP_OK)
        fail_msg("%s", f.ctx.message);
    double R[9], axis[3] = { 1, 0, 0 };
    op_axis_angle_matrix(axis, 0.5, R);
    const double at[2][3] = { { 0, 0.3, 0 }, { 0.1, 0.8, 0.05 } };
    op_body *body;
    assert_int_equal(op_world_add_body(&f.ctx, &f.world, "a", model, 1e7, R, at[0], &body), OP_OK);
    assert_int_equal(op_world_add_body(&f.ctx, &f.world, "b", model, 1e7, R, at[1], &body), OP_OK);
    one_body_start(&f, &op_solver_meshless, (const char *[]){ "mode=quadratic", "clusters=4", "goals=predicted", NULL });
    assert_true(f.world.schedule->parallel);
    for (int s = 0; s < 30; ++s)
        one_body_step(&f);
    double *out = malloc(2 * 12 * 100 * sizeof(double));
    assert_non_null(out);
    for (int b = 0; b < 2; ++b) {
        memcpy(&out[1200 * b], f.world.bodies[b].state.position, 300 * sizeof(double));
        memcpy(&out[1200 * b + 300], f.world.bodies[b].state.rotation, 900 * sizeof(double));
    }
    one_body_free(&f);
    op_simd_avx(1);
    return out;
}

static void test_bitwise_across_threads_and_vector_paths(void **state)
{
    (void)state;
    int threads = omp_get_max_threads();
    double *one = two_tori(1, 1), *two = two_tori(2, 1), *plain = two_tori(2, 0);
    omp_set_num_threads(threads);
    assert_memory_equal(one, two, 2400 * sizeof(double));
    assert_memory_equal(one, plain, 2400 * sizeof(double));
    free(one), free(two), free(plain);
}

/* Start mode: iterations beyond the first change nothing, bitwise. */
static void test_start_goals_ignore_extra_iterations(void **state)
{
    (void)state;
    fixture a, b;
    hang(&a, (const char *[]){ "mode=quadratic", "clusters=2", NULL });
    begin_world(&b, "dino30", 0, gravity, 1.0 / 30.0, 1.0);
    b.world.def.iterations = 7;
    assert_int_equal(op_body_add_pin(&b.ctx, b.body, 0, 1, 1), OP_OK);
    one_body_start(&b, &op_solver_meshless, (const char *[]){ "mode=quadratic", "clusters=2", NULL });
    for (int s = 0; s < 20; ++s)
        one_body_step(&b);
    int n = a.body->graph->particle_count;
    assert_memory_equal(a.body->state.position, b.body->state.position, 3 * (size_t)n * sizeof(double));
    assert_memory_equal(a.body->state.rotation, b.body->state.rotation, 9 * (size_t)n * sizeof(double));
    one_body_free(&a);
    one_body_free(&b);
}

/* ---- options -------------------------------------------------------------------------------- */

static void expect_refused(const char *const *pairs, const char *mentions)
{
    fixture f;
    begin_world(&f, "bar20", 0, gravity, 1.0 / 30.0, 1.0);
    assert_int_equal(one_body_try_start(&f, &op_solver_meshless, pairs), OP_ERR_USAGE);
    if (!strstr(f.ctx.message, mentions))
        fail_msg("'%s' does not mention '%s'", f.ctx.message, mentions);
    one_body_free(&f);
}

static void test_bad_options_name_the_option(void **state)
{
    (void)state;
    expect_refused((const char *[]){ "alpha=1.5", NULL }, "alpha");
    expect_refused((const char *[]){ "beta=-0.1", NULL }, "beta");
    expect_refused((const char *[]){ "mode=cubic", NULL }, "mode");
    expect_refused((const char *[]){ "clusters=0", NULL }, "clusters");
    expect_refused((const char *[]){ "clusters=rings", NULL }, "clusters");
    expect_refused((const char *[]){ "clusters=21", NULL }, "clusters");
    expect_refused((const char *[]){ "creep=100", NULL }, "creep");
    expect_refused((const char *[]){ "max=0", NULL }, "max");
    expect_refused((const char *[]){ "goals=later", NULL }, "goals");
    expect_refused((const char *[]){ "chebyshev=on", "chebyshev_rho=0.5", NULL }, "chebyshev");
    expect_refused((const char *[]){ "stiffness=1", NULL }, "stiffness");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_spring_amplitude_never_grows, clock_start, clock_stop),
        cmocka_unit_test_setup_teardown(test_rigid_motion_goals_and_momenta, clock_start, clock_stop),
        cmocka_unit_test_setup_teardown(test_quadratic_at_beta_zero_is_rigid, clock_start, clock_stop),
        cmocka_unit_test_setup_teardown(test_linear_and_quadratic_fits_reproduce_their_deformations, clock_start,
                                        clock_stop),
        cmocka_unit_test_setup_teardown(test_planar_and_collinear_clusters_stay_finite, clock_start, clock_stop),
        cmocka_unit_test_setup_teardown(test_collapsed_body_recovers, clock_start, clock_stop),
        cmocka_unit_test_setup_teardown(test_plasticity_below_yield_and_within_max, clock_start, clock_stop),
        cmocka_unit_test_setup_teardown(test_bitwise_across_threads_and_vector_paths, clock_start, clock_stop),
        cmocka_unit_test_setup_teardown(test_start_goals_ignore_extra_iterations, clock_start, clock_stop),
        cmocka_unit_test_setup_teardown(test_bad_options_name_the_option, clock_start, clock_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
