/* Tests of the xpbd variant (Macklin, Müller & Chentanez 2016, the one-ring shape-matching goals
 * as compliant constraints): its stiffness does not depend on the iteration count once the
 * iterations converge, where shape matching's does (Choi & Lee 2017 Fig. 3); free fall, linear
 * momentum in free flight, rest stays at rest, one and two threads give the same bits, a
 * position constraint is compliant, a direction constraint turns its rings compliantly, Fig. 1's
 * config runs with its half turn, and bad options are named. */
#include "test_solver.h"
#include "test_util.h"
#include "test_variant.h"

#include "opsim/runfile.h"
#include "shape_matching.h"
#include "sim/script.h"
#include "xpbd.h"

/* The Fig. 3 bar (bar20, particle 0 pinned) at stiffness k hanging for 4 s at 30 frames a second
 * with `iterations`: the tip's mean sag (rest y − y of the particle farthest along x) over the
 * last second. */
static double hanging_sag(const op_solver_type *solver, double k, int iterations)
{
    one_body f;
    const double g[3] = { 0, -9.81, 0 };
    variant_world(&f, "bar20", k, g, iterations, 1);
    assert_int_equal(op_body_add_pin(&f.ctx, f.body, 0, 1, 1), OP_OK);
    one_body_start(&f, solver, NULL);
    const op_graph *gr = f.body->graph;
    int tip = 0;
    for (int i = 1; i < gr->particle_count; ++i)
        if (gr->rest_position[3 * i] > gr->rest_position[3 * tip])
            tip = i;
    double sum = 0.0;
    for (int frame = 0; frame < 120; ++frame) {
        one_body_step(&f);
        if (frame >= 90)
            sum += gr->rest_position[3 * tip + 1] - f.body->state.position[3 * tip + 1];
    }
    one_body_free(&f);
    return sum / 30.0;
}

/* XPBD's claim: the compliance, not the iteration count, sets the stiffness. At k = 1e7 (goal
 * compliances 1/(k v_j) that the iterations resolve) the sag at 20 and 200 iterations agrees to
 * 1 %; shape matching's (α = 1) differs by more than 10 % over the same counts. */
static void test_stiffness_independent_of_iterations(void **state)
{
    (void)state;
    double x20 = hanging_sag(&op_solver_xpbd, 1e7, 20), x200 = hanging_sag(&op_solver_xpbd, 1e7, 200);
    double s20 = hanging_sag(&op_solver_shape_matching, 1e7, 20), s200 = hanging_sag(&op_solver_shape_matching, 1e7, 200);
    double xpbd_spread = fabs(x20 - x200) / x200, sm_spread = fabs(s20 - s200) / s200;
    print_message("sag at 20 / 200 iterations: xpbd %.4f / %.4f m (%.2f %%), shape-matching %.4f / %.4f m (%.2f %%)\n",
                  x20, x200, 100 * xpbd_spread, s20, s200, 100 * sm_spread);
    assert_le(xpbd_spread, 0.01);
    assert_true(sm_spread > 0.10);
}

static void test_free_fall(void **state)
{
    (void)state;
    variant_free_fall(&op_solver_xpbd, NULL, 1e-9);
}

/* Each goal's correction is −C/(1/m_j + 1/(k v_j h²)), so Σ_j m_j Δx_j ∝ Σ_j m_j C_j = 0 for a
 * group whose density m_j/v_j is uniform (the catalogue's): momentum holds to rounding at any
 * iteration count. */
static void test_momentum_in_free_flight(void **state)
{
    (void)state;
    variant_free_flight(&op_solver_xpbd, NULL, 10, 1e-12);
    variant_free_flight(&op_solver_xpbd, NULL, 200, 1e-12);
}

static void test_rest_stays_at_rest(void **state)
{
    (void)state;
    variant_rest(&op_solver_xpbd, NULL, 1e-12);
}

static void test_one_and_two_threads_agree_bitwise(void **state)
{
    (void)state;
    variant_threads_agree(&op_solver_xpbd, NULL);
}

static void test_bad_options_named(void **state)
{
    (void)state;
    variant_bad_option(&op_solver_xpbd, "stiffness=1", "solver xpbd has no option 'stiffness'");
    /* a body without stiffness has no compliance 1/(k v): refused, naming the body */
    one_body f;
    const double none[3] = { 0, 0, 0 };
    variant_world(&f, "bar20", 0.0, none, 10, 1);
    assert_int_equal(one_body_try_start(&f, &op_solver_xpbd, NULL), OP_ERR_USAGE);
    print_message("%-24s -> %s\n", "stiffness 0", f.ctx.message);
    assert_non_null(strstr(f.ctx.message, "has stiffness 0"));
    assert_non_null(strstr(f.ctx.message, f.body->name));
    one_body_free(&f);
}

/* The bar (bar20, gravity) held only by a position constraint of weight w at the vertex nearest
 * its centre, 500 iterations: the mean sag of the skinned vertex below its target over the last 2 s
 * of 6 s. */
static double held_sag(double weight, double *expect)
{
    one_body f;
    const double g[3] = { 0, -9.81, 0 };
    variant_world(&f, "bar20", 1e8, g, 500, 1);
    int vertex = op_body_nearest_vertex(f.body, (const double[3]){ 0, 0, 0 });
    assert_int_equal(op_body_add_constraint(&f.ctx, f.body, OP_CONSTRAINT_POSITION, vertex, NULL, weight, -1), OP_OK);
    one_body_start(&f, &op_solver_xpbd, NULL);
    const op_constraint *con = &f.body->constraints[0];
    double mass = 0.0, sum = 0.0, v[3];
    for (int i = 0; i < f.body->graph->particle_count; ++i)
        mass += f.body->graph->mass[i];
    for (int frame = 0; frame < 180; ++frame) {
        one_body_step(&f);
        op_constraint_skinned_point(f.body, con, v);
        if (frame >= 120)
            sum += con->target[1] - v[1];
    }
    *expect = mass * 9.81 / weight;
    one_body_free(&f);
    return sum / 60.0;
}

/* A position constraint is a spring of stiffness w (compliance 1/w): holding the bar's weight it
 * stretches by M g / w once the iterations converge, and four times w stretches it a quarter as
 * far (measured 2.995 mm against 2.998 mm, 0.7486 mm against 0.7495 mm; asserted to 1 %). The
 * constraint also turns its influences' rings, which converges more slowly than moving their
 * centres alone: at 20 iterations the sags are 2.685 and 0.414 mm, hence 500. */
static void test_position_constraint_is_compliant(void **state)
{
    (void)state;
    double expect_soft, expect_stiff;
    double soft = held_sag(1e4, &expect_soft), stiff = held_sag(4e4, &expect_stiff);
    print_message("held by one vertex: sag %.4g m at w = 1e4 (M g / w = %.4g), %.4g m at w = 4e4 (%.4g)\n", soft,
                  expect_soft, stiff, expect_stiff);
    assert_true(fabs(soft / expect_soft - 1) < 0.01);
    assert_true(fabs(stiff / expect_stiff - 1) < 0.01);
}

/* A free bar (bar20, no gravity) whose tip vertex's direction ȳ is held at ẑ (its anchor turned
 * a quarter turn about the bar's axis) by a direction constraint of weight w: after 2 s the
 * skinned direction's angle to the target in degrees (*angle) and how far the mass centre moved
 * (*shift, m). */
static void turned_tip(double weight, double *angle, double *shift)
{
    one_body f;
    const double none[3] = { 0, 0, 0 };
    variant_world(&f, "bar20", 1e8, none, 10, 1);
    int tip = op_body_nearest_vertex(f.body, (const double[3]){ 0.5, 0, 0 });
    assert_int_equal(
        op_body_add_constraint(&f.ctx, f.body, OP_CONSTRAINT_DIRECTION, tip, (const double[3]){ 0, 1, 0 }, weight, -1),
        OP_OK);
    op_constraint *con = &f.body->constraints[0];
    v3_set(con->anchor, 0, 0, 1);
    v3_copy(con->target, con->anchor);
    one_body_start(&f, &op_solver_xpbd, NULL);
    double c0[3], c1[3], n[3];
    op_body_mass_centre(f.body, c0);
    for (int frame = 0; frame < 60; ++frame)
        one_body_step(&f);
    op_body_mass_centre(f.body, c1);
    op_constraint_skinned_direction(f.body, con, n);
    *angle = acos(fmin(1.0, v3_dot(n, con->target) / v3_norm(n))) * 180.0 / M_PI;
    *shift = sqrt(v3_dist2(c0, c1));
    one_body_free(&f);
}

/* Direction constraints turn the rings of their influences (solvers/xpbd.c): a stiff one turns
 * the tip to its target, a compliant one (w 10⁶ times smaller) leaves it far behind after the same
 * 2 s (measured 0.007° and 18.6° of the 90° asked), and turning rings about their mass centres
 * moves no centre of mass. */
static void test_direction_constraint_turns_compliantly(void **state)
{
    (void)state;
    double stiff, soft, stiff_shift, soft_shift;
    turned_tip(1e3, &stiff, &stiff_shift);
    turned_tip(1e-3, &soft, &soft_shift);
    print_message("a quarter turn asked of the tip: %.3g deg left at w = 1e3, %.3g deg at w = 1e-3; "
                  "mass centre moved %.1e m, %.1e m\n",
                  stiff, soft, stiff_shift, soft_shift);
    assert_le(stiff, 1.0);
    assert_true(soft > 10.0);
    assert_le(stiff_shift, 1e-12);
    assert_le(soft_shift, 1e-12);
}

/* experiments/fig1.ini (direction constraints on the grabbed end) runs with xpbd, and at t = 2 s,
 * the script's half turn about x done, the stored orientation of the grabbed end's particle (the
 * one farthest along x at rest) is that half turn: diag(1, −1, −1) to 0.1 (measured 0.999,
 * −0.938, −0.937: 20° behind, against the held end, which resists the twist). */
static void test_fig1_runs_with_direction_constraints(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s", test_tmp_path(".h5"));
    assert_int_equal(test_shell("bin/opsim run experiments/fig1.ini --set solver.name=xpbd --set run.frames=60 "
                                "--set run.output_every=60 --no-surface --out '%s' > /dev/null",
                                path),
                     0);
    op_ctx ctx;
    op_ctx_init(&ctx);
    double rest[20 * 3], R[2 * 20 * 9];
    assert_int_equal(op_runfile_read_rows(&ctx, path, "/graph/bar/rest_position", 0, 20, rest, 60), OP_OK);
    assert_int_equal(op_runfile_read_rows(&ctx, path, "/particles/orientation/value", 0, 2, R, 2 * 20 * 9), OP_OK);
    int end = 0;
    for (int i = 1; i < 20; ++i)
        if (rest[3 * i] > rest[3 * end])
            end = i;
    const double *turned = &R[20 * 9 + 9 * end];
    print_message("fig1 with xpbd, t = 2 s: the grabbed end's orientation diagonal %.3f %.3f %.3f\n", turned[0],
                  turned[4], turned[8]);
    assert_true(fabs(turned[0] - 1) < 0.1 && fabs(turned[4] + 1) < 0.1 && fabs(turned[8] + 1) < 0.1);
    remove(path);
}

/* Fig. 1's twist (experiments/fig1.ini, 2 s: the grabbed end turned half a turn about +x) read back
 * from the run file: the held end's particle keeps its rest orientation, the grabbed end's follows
 * the script, and the middle of the bar turns in the script's sense, about halfway (measured 8.8°, 31.4° and +84.0°; asserted within 12°, 40° and 45–135°). */
static void test_fig1_held_end_keeps_its_orientation(void **state)
{
    (void)state;
    double held, grabbed, middle;
    variant_fig1_twist("xpbd", &held, &grabbed, &middle);
    assert_true(held <= 12.0);
    assert_true(grabbed <= 40.0);
    assert_true(middle > 45.0 && middle < 135.0);
}

/* The same twist against a pinned end (test_variant.h): the pin holds position and orientation bit
 * for bit, and the bar turns in the constraint's sense, the tip most (measured tip +91.8°, middle
 * +50.9°). */
static void test_pinned_end_holds_against_a_twist(void **state)
{
    (void)state;
    double middle, tip;
    variant_pinned_twist(&op_solver_xpbd, &middle, &tip);
    assert_true(tip > 80.0 && tip < 100.0);
    assert_true(middle > 20.0 && middle < tip);
}

/* A pinned orientation is its ring's goal (solvers/xpbd.c, pins): bar20 without gravity, particle
 * 0 pinned turned 30° about z while the bar lies along x, 50 iterations, 10 s. The bar swings
 * about the pinned direction (its tip between about 7° and 59°, 31.7° on average), while the first
 * edge, held by the pinned ring's goals, stays within 3° of 30° after the first second (measured
 * 2.19°; 6.03° when that ring's rotation is fitted like the others). */
static void test_pinned_orientation_clamps_its_ring(void **state)
{
    (void)state;
    one_body f;
    const double none[3] = { 0, 0, 0 };
    variant_world(&f, "bar20", 1e8, none, 50, 1);
    double Q[9], worst = 0.0, tip_sum = 0.0;
    op_axis_angle_matrix((const double[3]){ 0, 0, 1 }, M_PI / 6.0, Q);
    m3_copy(&f.body->state.rotation[0], Q);
    assert_int_equal(op_body_add_pin(&f.ctx, f.body, 0, 1, 1), OP_OK);
    one_body_start(&f, &op_solver_xpbd, NULL);
    const double *x = f.body->state.position;
    int last = f.body->graph->particle_count - 1;
    for (int frame = 0; frame < 300; ++frame) {
        one_body_step(&f);
        double edge = atan2(x[4] - x[1], x[3] - x[0]) * 180.0 / M_PI;
        if (frame >= 30)
            worst = fmax(worst, fabs(edge - 30.0));
        tip_sum += atan2(x[3 * last + 1] - x[1], x[3 * last] - x[0]) * 180.0 / M_PI;
    }
    print_message("particle 0 pinned turned 30 deg: the first edge within %.2f deg of it, the tip's mean direction "
                  "%.1f deg\n",
                  worst, tip_sum / 300.0);
    assert_true(worst <= 3.0);
    assert_true(fabs(tip_sum / 300.0 - 30.0) < 10.0);
    one_body_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_stiffness_independent_of_iterations, clock_start, clock_stop),
        cmocka_unit_test_setup_teardown(test_free_fall, clock_start, clock_stop),
        cmocka_unit_test_setup_teardown(test_momentum_in_free_flight, clock_start, clock_stop),
        cmocka_unit_test_setup_teardown(test_rest_stays_at_rest, clock_start, clock_stop),
        cmocka_unit_test_setup_teardown(test_one_and_two_threads_agree_bitwise, clock_start, clock_stop),
        cmocka_unit_test_setup_teardown(test_bad_options_named, clock_start, clock_stop),
        cmocka_unit_test_setup_teardown(test_position_constraint_is_compliant, clock_start, clock_stop),
        cmocka_unit_test_setup_teardown(test_direction_constraint_turns_compliantly, clock_start, clock_stop),
        cmocka_unit_test_setup_teardown(test_fig1_runs_with_direction_constraints, clock_start, clock_stop),
        cmocka_unit_test_setup_teardown(test_fig1_held_end_keeps_its_orientation, clock_start, clock_stop),
        cmocka_unit_test_setup_teardown(test_pinned_end_holds_against_a_twist, clock_start, clock_stop),
        cmocka_unit_test_setup_teardown(test_pinned_orientation_clamps_its_ring, clock_start, clock_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
