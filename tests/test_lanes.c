/* Tests of the lane type (core/kernels/lanes.h): each operation of four AVX lanes gives, lane by
 * lane, the bits of the one-lane operation, on values where a careless vector form differs (signed
 * zeros, infinities, NaN, denormals); the one-lane operations keep C's semantics where the
 * contact code relies on them (max against NaN, −0, != on NaN); the in-order sums add in the order
 * a one-at-a-time loop does; records go in and out of lanes unchanged. Without AVX (the scalar
 * build or the CPU) only the one-lane tests run. */
#include <stdint.h>
#include <string.h>

#include "kernels/lanes.h"
#include "test_util.h"

/* The test values: 16, so that every lane of four meets each kind */
static const double values[] = { 0.0, -0.0,   1.0,    -1.5,   INFINITY, -INFINITY, NAN, 4.9e-324,
                                 3.0, 1e308, -2e-310, 0.25, 7.0,      -0.0,      2.0, NAN };
enum { COUNT = sizeof values / sizeof values[0] };

static uint64_t bits_of(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

#define assert_same_bits(a, b) assert_int_equal(bits_of(a), bits_of(b))

static void test_one_lane_keeps_c_semantics(void **state)
{
    (void)state;
    assert_same_bits(op1_max(NAN, 0.0), 0.0); /* op_max(0, NaN): the clamp of a NaN gives 0 */
    assert_true(isnan(op1_max(0.0, NAN)));
    assert_same_bits(op1_max(-0.0, 0.0), 0.0);
    assert_same_bits(op1_max(0.0, -0.0), -0.0);
    assert_same_bits(op1_neg(0.0), -0.0); /* 0 − x would give +0 */
    assert_int_equal(op1_neq(NAN, NAN), 1);
    assert_int_equal(op1_gt(NAN, 0.0), 0);
    assert_int_equal(op1_lt(NAN, 0.0), 0);
    assert_same_bits(op1_select(op1_gt(2.0, 1.0), 5.0, 6.0), 5.0);
    assert_int_equal(op1_bits(op1_or_mask(op1_lt(1.0, 0.0), op1_gt(1.0, 0.0))), 1);
    double m[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 10 }, product[9];
    op1_m3_mul(product, m, m);
    assert_same_bits(product[0], 1 * 1 + 2 * 4 + 3 * 7.0);
    assert_same_bits(product[8], 7 * 3 + 8 * 6 + 10 * 10.0);
}

#if OP_SIMD_AVX
OP_SIMD_AVX_BEGIN
/* out[p] = op(a[p], b[p]) in four lanes at a time, for every binary operation, in order */
enum { OPS = 12 };
static void four_lanes(double out[OPS][COUNT], const double *a, const double *b)
{
    for (int at = 0; at < COUNT; at += 4) {
        op_lanes4 x = op4_load(a + at), y = op4_load(b + at);
        op_lanes4 r[OPS] = { op4_add(x, y),
                             op4_sub(x, y),
                             op4_mul(x, y),
                             op4_div(x, y),
                             op4_sqrt(x),
                             op4_neg(x),
                             op4_max(x, y),
                             op4_select(op4_gt(x, y), x, y),
                             op4_select(op4_lt(x, y), x, y),
                             op4_select(op4_neq(x, y), x, y),
                             op4_select(op4_or_mask(op4_gt(x, y), op4_lt(x, y)), op4_all(1.0), op4_zero()),
                             op4_broadcast(&a[at]) };
        for (int k = 0; k < OPS; ++k)
            op4_store(&out[k][at], r[k]);
    }
}

static int four_lane_bits(const double *a, const double *b, int at)
{
    return op4_bits(op4_gt(op4_load(a + at), op4_load(b + at)));
}

static void sums_in_order(double total[4], const double c[4][4], const double acc[4], double *sum)
{
    op4_store(total, op4_add_in_order(op4_load(acc), op4_load(c[0]), op4_load(c[1]), op4_load(c[2]), op4_load(c[3])));
    *sum = op4_sum_in_order(*sum, op4_load(c[0]));
}

static void records_through_lanes(double *const to[4], const double *const from[4], int count)
{
    op_lanes4 lanes[9];
    op4_load_records(from, count, lanes);
    op4_store_records(to, count, lanes);
}
OP_SIMD_AVX_END
#endif

/* The same operations one lane at a time */
static void one_lane(double out[][COUNT], const double *a, const double *b)
{
    for (int p = 0; p < COUNT; ++p) {
        double x = a[p], y = b[p];
        double r[] = { op1_add(x, y),
                       op1_sub(x, y),
                       op1_mul(x, y),
                       op1_div(x, y),
                       op1_sqrt(x),
                       op1_neg(x),
                       op1_max(x, y),
                       op1_select(op1_gt(x, y), x, y),
                       op1_select(op1_lt(x, y), x, y),
                       op1_select(op1_neq(x, y), x, y),
                       op1_select(op1_or_mask(op1_gt(x, y), op1_lt(x, y)), op1_all(1.0), op1_zero()),
                       a[p - p % 4] };
        for (size_t k = 0; k < sizeof r / sizeof r[0]; ++k)
            out[k][p] = r[k];
    }
}

static int avx_or_skip(void)
{
#if OP_SIMD_AVX
    if (op_simd_avx(1))
        return 1;
#endif
    skip();
    return 0;
}

static void test_four_lanes_give_one_lanes_bits(void **state)
{
    (void)state;
    if (!avx_or_skip())
        return;
#if OP_SIMD_AVX
    /* read through volatile, so that the compiler folds none of the one-lane operations (its NaNs
     * need not have the hardware's sign) */
    const volatile double *source = values;
    double a[COUNT], b[COUNT];
    for (int p = 0; p < COUNT; ++p)
        a[p] = source[p];
    /* every value against every value: b is the values turned by `shift` */
    for (int shift = 0; shift < COUNT; ++shift) {
        for (int p = 0; p < COUNT; ++p)
            b[p] = source[(p + shift) % COUNT];
        double wide[OPS][COUNT], single[OPS][COUNT];
        four_lanes(wide, a, b);
        one_lane(single, a, b);
        for (int k = 0; k < OPS; ++k)
            for (int p = 0; p < COUNT; ++p)
                if (bits_of(wide[k][p]) != bits_of(single[k][p]))
                    fail_msg("operation %d, %.17g against %.17g: four lanes %.17g, one lane %.17g", k, a[p], b[p],
                             wide[k][p], single[k][p]);
        for (int at = 0; at < COUNT; at += 4) {
            int expected = 0;
            for (int w = 0; w < 4; ++w)
                expected |= op1_bits(op1_gt(a[at + w], b[at + w])) << w;
            assert_int_equal(four_lane_bits(a, b, at), expected);
        }
    }
#endif
}

static void test_sums_take_lanes_in_order(void **state)
{
    (void)state;
    if (!avx_or_skip())
        return;
#if OP_SIMD_AVX
    /* big + 1 − big + 1 is 1 in this order and 0 or 2 in others */
    const double c[4][4] = { { 1e16, 1, 2, 3 }, { 1, 1e16, 5, 6 }, { -1e16, 7, 1e16, 8 }, { 1, -1e16, 9, -1e16 } };
    double acc[4] = { 0.5, 0, 1, 2 }, sum = 0.0, total[4];
    sums_in_order(total, c, acc, &sum);
    for (int w = 0; w < 4; ++w) {
        double expected = acc[w];
        for (int p = 0; p < 4; ++p)
            expected += c[w][p]; /* lane w of the total takes term p of sum w, p = 0 … 3 */
        assert_same_bits(total[w], expected);
    }
    assert_same_bits(total[0], ((((0.5 + 1e16) + 1) + 2) + 3));
    assert_same_bits(sum, (((0.0 + 1e16) + 1) + 2) + 3);
#endif
}

static void test_records_go_through_lanes_unchanged(void **state)
{
    (void)state;
    if (!avx_or_skip())
        return;
#if OP_SIMD_AVX
    double from[4][9], to[4][9];
    for (int count = 1; count <= 9; ++count) {
        memset(to, 0, sizeof to);
        for (int w = 0; w < 4; ++w)
            for (int k = 0; k < 9; ++k)
                from[w][k] = values[(5 * w + k) % COUNT] + w;
        const double *const in[4] = { from[0], from[1], from[2], from[3] };
        double *const out[4] = { to[3], to[2], to[1], to[0] }; /* lane w to record 3 − w */
        records_through_lanes(out, in, count);
        for (int w = 0; w < 4; ++w)
            for (int k = 0; k < 9; ++k)
                assert_same_bits(to[3 - w][k], k < count ? from[w][k] : 0.0);
    }
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_lane_keeps_c_semantics),
        cmocka_unit_test(test_four_lanes_give_one_lanes_bits),
        cmocka_unit_test(test_sums_take_lanes_in_order),
        cmocka_unit_test(test_records_go_through_lanes_unchanged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
