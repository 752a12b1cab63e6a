/* Tests of core/sim/script.c: Rodrigues' formula, keyframe interpolation (translation and rotation
 * vector), clamping outside the keys, several turns about one axis, moving points about a
 * pivot, and the script check. */
#include <string.h>

#include "base/math3.h"
#include "base/rng.h"
#include "sim/script.h"
#include "test_util.h"

static double max_abs_diff(const double *a, const double *b, int count)
{
    double e = 0.0;
    for (int k = 0; k < count; ++k)
        e = fmax(e, fabs(a[k] - b[k]));
    return e;
}

/* One key at t = 0 (identity) and one at t = 2 s. */
static op_script two_keys(const double translation[3], const double axis[3], double angle)
{
    op_script s;
    memset(&s, 0, sizeof s);
    strcpy(s.name, "test");
    s.key_count = 2;
    s.time[0] = 0.0;
    s.time[1] = 2.0;
    s.axis[0][2] = 1.0;
    v3_copy(s.translation[1], translation);
    v3_copy(s.axis[1], axis);
    s.angle[1] = angle;
    return s;
}

static void test_axis_angle_is_rotation(void **state)
{
    (void)state;
    op_rng rng = op_rng_seeded(1);
    double worst_so3 = 0.0, worst_axis = 0.0;
    for (int trial = 0; trial < 1000; ++trial) {
        double axis[3], r[9], turned[3];
        for (int d = 0; d < 3; ++d)
            axis[d] = op_rng_uniform(&rng) - 0.5;
        v3_scale(axis, axis, 1.0 / v3_norm(axis));
        double angle = 20.0 * (op_rng_uniform(&rng) - 0.5);
        op_axis_angle_matrix(axis, angle, r);
        worst_so3 = fmax(worst_so3, fmax(m3_orthonormality_error(r), fabs(m3_det(r) - 1.0)));
        m3_mul_v(turned, r, axis);
        worst_axis = fmax(worst_axis, max_abs_diff(turned, axis, 3));
        /* the angle: tr R = 1 + 2 cos θ */
        assert_close(m3_trace(r), 1.0 + 2.0 * cos(angle), 1e-14);
    }
    assert_le(worst_so3, 1e-14);
    assert_le(worst_axis, 1e-14);
    print_message("  1000 random axes and angles: SO(3) error %.2e, axis moved %.2e\n", worst_so3, worst_axis);

    /* a quarter turn about z takes x to y (right-handed, row-major) */
    double r[9];
    op_axis_angle_matrix((const double[3]){ 0, 0, 1 }, M_PI / 2.0, r);
    const double expected[9] = { 0, -1, 0, 1, 0, 0, 0, 0, 1 };
    assert_le(max_abs_diff(r, expected, 9), 1e-15);
    op_axis_angle_matrix((const double[3]){ 0, 1, 0 }, 0.0, r);
    const double identity[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    assert_memory_equal(r, identity, sizeof r);
}

static void test_interpolation_midpoint(void **state)
{
    (void)state;
    const double axis[3] = { 0, 0, 1 }, move[3] = { 2.0, -4.0, 1.0 };
    op_script s = two_keys(move, axis, M_PI / 2.0);
    double r[9], t[3];
    op_script_eval(&s, 1.0, r, t);
    const double half[3] = { 1.0, -2.0, 0.5 };
    assert_le(max_abs_diff(t, half, 3), 1e-15);
    double expected[9];
    op_axis_angle_matrix(axis, M_PI / 4.0, expected);
    assert_le(max_abs_diff(r, expected, 9), 1e-15);
    /* a quarter of the way */
    op_script_eval(&s, 0.5, r, t);
    op_axis_angle_matrix(axis, M_PI / 8.0, expected);
    assert_le(max_abs_diff(r, expected, 9), 1e-15);
    assert_close(t[0], 0.5, 1e-15);
    /* the keys themselves are reproduced exactly */
    op_script_eval(&s, 2.0, r, t);
    assert_memory_equal(t, move, sizeof t);
    op_axis_angle_matrix(axis, M_PI / 2.0, expected);
    assert_le(max_abs_diff(r, expected, 9), 1e-15);
}

/* Different axes: exp of the interpolated rotation vector, not a slerp. */
static void test_interpolation_of_rotation_vectors(void **state)
{
    (void)state;
    op_script s;
    memset(&s, 0, sizeof s);
    s.key_count = 3;
    s.time[0] = 1.0, s.time[1] = 3.0, s.time[2] = 4.0;
    v3_set(s.axis[0], 2.0, 0.0, 0.0); /* not unit: the axis is normalised */
    s.angle[0] = 1.0;
    v3_set(s.axis[1], 0.0, 1.0, 0.0);
    s.angle[1] = 2.0;
    v3_set(s.axis[2], 0.0, 0.0, 1.0);
    s.angle[2] = 0.0;
    double r[9], t[3], expected[9];
    op_script_eval(&s, 2.5, r, t); /* 1/4 of key 0's vector (1,0,0) and 3/4 of (0,2,0) */
    double w[3] = { 0.25, 1.5, 0.0 }, angle = v3_norm(w);
    v3_scale(w, w, 1.0 / angle);
    op_axis_angle_matrix(w, angle, expected);
    assert_le(max_abs_diff(r, expected, 9), 1e-15);
    op_script_eval(&s, 3.5, r, t);
    op_axis_angle_matrix((const double[3]){ 0, 1, 0 }, 1.0, expected);
    assert_le(max_abs_diff(r, expected, 9), 1e-15);
}

static void test_clamping(void **state)
{
    (void)state;
    const double axis[3] = { 1, 0, 0 }, move[3] = { 1.0, 2.0, 3.0 };
    op_script s = two_keys(move, axis, 1.0);
    s.translation[0][0] = -5.0;
    double r[9], t[3], expected[9];
    op_script_eval(&s, -10.0, r, t);
    const double first[3] = { -5.0, 0.0, 0.0 }, identity[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    assert_memory_equal(t, first, sizeof t);
    assert_memory_equal(r, identity, sizeof r);
    op_script_eval(&s, 100.0, r, t);
    assert_memory_equal(t, move, sizeof t);
    op_axis_angle_matrix(axis, 1.0, expected);
    assert_memory_equal(r, expected, sizeof r);

    /* a single key holds for every t */
    s.key_count = 1;
    op_script_eval(&s, 7.0, r, t);
    assert_memory_equal(t, first, sizeof t);
}

/* "axis z, 0° → 720°" turns twice: the rotation at each time is by the interpolated angle,
 * so a point passes every angle twice and the path is twice a full circle. */
static void test_multiple_turns(void **state)
{
    (void)state;
    const double axis[3] = { 0, 0, 1 }, none[3] = { 0, 0, 0 };
    op_script s = two_keys(none, axis, 4.0 * M_PI);
    const double p[3] = { 1.0, 0.0, 0.0 };
    double previous = 0.0, travelled = 0.0, worst = 0.0;
    int steps = 720;
    for (int k = 1; k <= steps; ++k) {
        double t = 2.0 * k / steps, q[3], r[9], tr[3];
        op_script_move_point(&s, t, p, q);
        op_script_eval(&s, t, r, tr);
        double angle = atan2(q[1], q[0]), step = angle - previous;
        if (step < -M_PI)
            step += 2.0 * M_PI;
        travelled += step;
        previous = angle;
        double expected[9];
        op_axis_angle_matrix(axis, 4.0 * M_PI * t / 2.0, expected);
        worst = fmax(worst, max_abs_diff(r, expected, 9));
    }
    assert_close(travelled, 4.0 * M_PI, 1e-12);
    assert_le(worst, 1e-14);
    double r[9], tr[3], expected[9];
    op_script_eval(&s, 1.0, r, tr); /* a full turn: the identity */
    m3_identity(expected);
    assert_le(max_abs_diff(r, expected, 9), 1e-15);
    op_script_eval(&s, 0.75, r, tr); /* 270° */
    op_axis_angle_matrix(axis, -M_PI / 2.0, expected);
    assert_le(max_abs_diff(r, expected, 9), 1e-15);
    print_message("  720 degrees about z: the point travels %.15g turns\n", travelled / (2.0 * M_PI));
}

static void test_move_point_about_pivot(void **state)
{
    (void)state;
    const double axis[3] = { 0, 0, 1 }, move[3] = { 10.0, 0.0, 0.0 };
    op_script s = two_keys(move, axis, M_PI);
    v3_set(s.pivot, 1.0, 1.0, 0.0);
    double q[3];
    op_script_move_point(&s, 2.0, (const double[3]){ 2.0, 1.0, 5.0 }, q);
    /* half a turn about (1, 1): (2, 1) → (0, 1), then moved by 10 along x */
    const double expected[3] = { 10.0, 1.0, 5.0 };
    assert_le(max_abs_diff(q, expected, 3), 1e-15);
    /* the pivot itself only translates */
    op_script_move_point(&s, 1.0, s.pivot, q);
    const double pivot_moved[3] = { 6.0, 1.0, 0.0 };
    assert_le(max_abs_diff(q, pivot_moved, 3), 1e-15);
    /* directions turn but do not translate */
    op_script_move_direction(&s, 2.0, (const double[3]){ 1.0, 0.0, 0.0 }, q);
    const double turned[3] = { -1.0, 0.0, 0.0 };
    assert_le(max_abs_diff(q, turned, 3), 1e-15);
}

static void test_check(void **state)
{
    (void)state;
    const double axis[3] = { 0, 0, 1 }, move[3] = { 1, 2, 3 };
    op_script good = two_keys(move, axis, 1.0);
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_script_check(&ctx, &good), OP_OK);

    op_script s = good;
    s.key_count = 0;
    assert_int_equal(op_script_check(&ctx, &s), OP_ERR_INVALID);
    print_message("  %s\n", ctx.message);

    const struct {
        const char *what;
        int key_count;
        double time1, angle1, axis1z, pivot0, move1;
    } bad[] = {
        { "too many keys", OP_SCRIPT_MAX_KEYS + 1, 2.0, 1.0, 1.0, 0.0, 1.0 },
        { "equal times", 2, 0.0, 1.0, 1.0, 0.0, 1.0 },
        { "decreasing times", 2, -1.0, 1.0, 1.0, 0.0, 1.0 },
        { "NaN time", 2, NAN, 1.0, 1.0, 0.0, 1.0 },
        { "infinite angle", 2, 2.0, INFINITY, 1.0, 0.0, 1.0 },
        { "zero axis", 2, 2.0, 1.0, 0.0, 0.0, 1.0 },
        { "NaN pivot", 2, 2.0, 1.0, 1.0, NAN, 1.0 },
        { "NaN translation", 2, 2.0, 1.0, 1.0, 0.0, NAN },
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        s = good;
        s.key_count = bad[k].key_count;
        for (int key = 2; key < s.key_count && key < OP_SCRIPT_MAX_KEYS; ++key)
            s.time[key] = key;
        s.time[1] = bad[k].time1;
        s.angle[1] = bad[k].angle1;
        s.axis[1][2] = bad[k].axis1z;
        s.pivot[0] = bad[k].pivot0;
        s.translation[1][0] = bad[k].move1;
        op_ctx_init(&ctx);
        if (op_script_check(&ctx, &s) != OP_ERR_INVALID)
            fail_msg("%s accepted", bad[k].what);
        assert_non_null(strstr(ctx.message, "test"));
    }
    /* a zero axis is fine when it does not turn */
    s = good;
    s.axis[1][2] = 0.0;
    s.angle[1] = 0.0;
    op_ctx_init(&ctx);
    assert_int_equal(op_script_check(&ctx, &s), OP_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_axis_angle_is_rotation),
        cmocka_unit_test(test_interpolation_midpoint),
        cmocka_unit_test(test_interpolation_of_rotation_vectors),
        cmocka_unit_test(test_clamping),
        cmocka_unit_test(test_multiple_turns),
        cmocka_unit_test(test_move_point_about_pivot),
        cmocka_unit_test(test_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
