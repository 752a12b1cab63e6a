/* Tests of the lane type (core/kernels/lanes.h): each operation of four AVX lanes gives, lane by
 * lane, the bits of the one-lane operation, on values where a careless vector form differs (signed
 * zeros, infinities, NaN, denormals); the one-lane operations keep C's semantics where the
 * contact code relies on them (max against NaN, −0, != on NaN); the in-order sums add in the order
 * a one-at-a-time loop does; records go in and out of lanes unchanged; the two- and eight-lane
 * widths of solvers/arap.c give the one-lane bits too, and their shuffles move lanes as named;
 * the padded 3-vector rows of the sparse substitutions load the same doubles at every width.
 * Without AVX (the scalar build or the CPU) only the one-lane tests (and, with SSE2, the two-lane
 * one) run. */
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
    assert_int_equal(op1_ge(NAN, NAN), 0);
    assert_int_equal(op1_le(0.0, NAN), 0);
    assert_int_equal(op1_ge(-0.0, 0.0), 1);
    assert_int_equal(op1_not_mask(op1_ge(NAN, 0.0)), 1); /* !(x >= c): true for a NaN, as C's */
    assert_int_equal(op1_and_mask(op1_ge(1.0, 1.0), op1_le(1.0, 1.0)), 1);
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
enum { OPS = 16 };
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
                             op4_broadcast(&a[at]),
                             op4_select(op4_ge(x, y), x, y),
                             op4_select(op4_le(x, y), x, y),
                             op4_select(op4_and_mask(op4_ge(x, y), op4_le(x, y)), op4_all(1.0), op4_zero()),
                             op4_select(op4_not_mask(op4_gt(x, y)), x, y) };
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

#if OP_SIMD_AVX
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
                       a[p - p % 4],
                       op1_select(op1_ge(x, y), x, y),
                       op1_select(op1_le(x, y), x, y),
                       op1_select(op1_and_mask(op1_ge(x, y), op1_le(x, y)), op1_all(1.0), op1_zero()),
                       op1_select(op1_not_mask(op1_gt(x, y)), x, y) };
        for (size_t k = 0; k < sizeof r / sizeof r[0]; ++k)
            out[k][p] = r[k];
    }
}
#endif

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

#if OP_LANES2
/* lane w of an op_lanes2 */
static double lane2(op_lanes2 a, int w)
{
    double out[2];
    op2_store(out, a);
    return out[w];
}
#endif

/* The two-lane width's arithmetic is the one-lane's lane by lane, the _low forms leave lane 1 as
 * it was, and the shuffles put each lane where their names say. */
static void test_two_lanes_give_one_lanes_bits(void **state)
{
    (void)state;
#if OP_LANES2
    const volatile double *source = values;
    for (int p = 0; p + 1 < COUNT; ++p) {
        double a[2] = { source[p], source[p + 1] }, b[2] = { source[(p + 5) % COUNT], source[(p + 9) % COUNT] };
        op_lanes2 x = op2_load(a), y = op2_load(b);
        for (int w = 0; w < 2; ++w) {
            assert_same_bits(lane2(op2_add(x, y), w), op1_add(a[w], b[w]));
            assert_same_bits(lane2(op2_sub(x, y), w), op1_sub(a[w], b[w]));
            assert_same_bits(lane2(op2_mul(x, y), w), op1_mul(a[w], b[w]));
            assert_same_bits(lane2(op2_div(x, y), w), op1_div(a[w], b[w]));
            assert_same_bits(lane2(op2_load_all(&b[1]), w), b[1]);
            assert_same_bits(lane2(op2_broadcast(&b[1]), w), op1_broadcast(&b[1]));
        }
        assert_same_bits(lane2(op2_add_low(x, y), 0), op1_add(a[0], b[0]));
        assert_same_bits(lane2(op2_sub_low(x, y), 0), op1_sub(a[0], b[0]));
        assert_same_bits(lane2(op2_mul_low(x, y), 0), op1_mul(a[0], b[0]));
        assert_same_bits(lane2(op2_add_low(x, y), 1), a[1]);
        assert_same_bits(lane2(op2_load_low(b), 0), b[0]);
        assert_same_bits(lane2(op2_load_low(b), 1), 0.0);
        assert_same_bits(lane2(op2_interleave_low(x, y), 0), a[0]);
        assert_same_bits(lane2(op2_interleave_low(x, y), 1), b[0]);
        assert_same_bits(lane2(op2_interleave_high(x, y), 0), a[1]);
        assert_same_bits(lane2(op2_interleave_high(x, y), 1), b[1]);
        assert_same_bits(lane2(op2_low_high(x, y), 0), a[0]);
        assert_same_bits(lane2(op2_low_high(x, y), 1), b[1]);
        assert_same_bits(lane2(op2_high_low(x, y), 0), a[1]);
        assert_same_bits(lane2(op2_high_low(x, y), 1), b[0]);
        double low = 7.0, high = 7.0;
        op2_store_low(&low, x);
        op2_store_high(&high, x);
        assert_same_bits(low, a[0]);
        assert_same_bits(high, a[1]);
    }
#else
    skip();
#endif
}

#if OP_SIMD_AVX
OP_SIMD_AVX_BEGIN
/* op4_low, op4_high, op4_join, op4_load3, op4_differ, op4_none, op4_load_apart and
 * op4_store_apart on a[0 … 15]: out[0 … 3] the halves joined back, out[4 … 7] load3, out[8 … 11]
 * through load_apart and store_apart with stride 4, none's answers in *none_same, *none_other */
static void four_lanes_halves(double out[16], const double a[16], int *none_same, int *none_other)
{
    op_lanes4 x = op4_load(a);
    op4_store(out, op4_join(op4_high(x), op4_low(x))); /* the halves swapped */
    op4_store(out + 4, op4_load3(a + 4));
    op4_store_apart(out + 8, 1, op4_load_apart(a + 8, 2)); /* a[8], a[10], a[12], a[14] */
    *none_same = op4_none(op4_differ(x, op4_load(a)));
    *none_other = op4_none(op4_differ(x, op4_load(a + 1)));
}
OP_SIMD_AVX_END

OP_SIMD_AVX512_BEGIN
/* op8_ arithmetic on a, b into out[0 … 23] (add, sub, mul), op8_low, op8_high of a into
 * out[24 … 31], a / b into out[32 … 39], b[3] broadcast into out[40 … 47] and the halves of a
 * swapped by op8_join into out[48 … 55] */
enum { EIGHT_OUT = 56 };
static void eight_lanes(double out[EIGHT_OUT], const double a[8], const double b[8])
{
    op_lanes8 x = op8_load(a), y = op8_load(b);
    op8_store(out, op8_add(x, y));
    op8_store(out + 8, op8_sub(x, y));
    op8_store(out + 16, op8_mul(op8_add(x, op8_zero()), op8_add(y, op8_all(0.0))));
    op4_store(out + 24, op8_low(x));
    op4_store(out + 28, op8_high(x));
    op8_store(out + 32, op8_div(x, y));
    op8_store(out + 40, op8_broadcast(&b[3]));
    op8_store(out + 48, op8_join(op8_high(x), op8_low(x)));
}
OP_SIMD_AVX_END
#endif

static void test_four_lanes_halves_and_eight_lanes(void **state)
{
    (void)state;
    if (!avx_or_skip())
        return;
#if OP_SIMD_AVX
    const volatile double *source = values;
    double a[COUNT], out[16], expected[16];
    for (int p = 0; p < COUNT; ++p)
        a[p] = source[p];
    int none_same, none_other;
    four_lanes_halves(out, a, &none_same, &none_other);
    const double e[16] = { a[2], a[3], a[0], a[1], a[4], a[5], a[6], 0.0, a[8], a[10], a[12], a[14] };
    memcpy(expected, e, sizeof e);
    for (int p = 0; p < 12; ++p)
        assert_same_bits(out[p], expected[p]);
    assert_int_equal(none_same, 1);
    assert_int_equal(none_other, 0);
    if (!op_simd_avx512(1))
        return;
    for (int shift = 0; shift < COUNT; ++shift) {
        double b[8], wide[EIGHT_OUT];
        for (int w = 0; w < 8; ++w)
            b[w] = source[(w + shift) % COUNT];
        for (int half = 0; half < 2; ++half) {
            eight_lanes(wide, a + 8 * half, b);
            for (int w = 0; w < 8; ++w) {
                double x = a[8 * half + w];
                assert_same_bits(wide[w], op1_add(x, b[w]));
                assert_same_bits(wide[8 + w], op1_sub(x, b[w]));
                assert_same_bits(wide[16 + w], op1_mul(op1_add(x, 0.0), op1_add(b[w], 0.0)));
                assert_same_bits(wide[24 + w], x);
                assert_same_bits(wide[32 + w], op1_div(x, b[w]));
                assert_same_bits(wide[40 + w], op1_broadcast(&b[3]));
                assert_same_bits(wide[48 + w], a[8 * half + (w + 4) % 8]);
            }
        }
    }
#endif
}

/* Four 3-vectors laid end to end with a zero after each: the rows of the sparse substitutions
 * (core/kernels/substitute_lanes.h) */
enum { RECORDS = 4, RUN = 4 * RECORDS };

#if OP_SIMD_AVX
OP_SIMD_AVX_BEGIN
static void padded_rows_four_lanes(double out[RUN], const double *const record[RECORDS])
{
    for (int part = 0; part < RUN / 4; ++part)
        op4_store(out + 4 * part, op4_load_padded3(record, part));
}
OP_SIMD_AVX_END

OP_SIMD_AVX512_BEGIN
static void padded_rows_eight_lanes(double out[RUN], const double *const record[RECORDS])
{
    for (int part = 0; part < RUN / 8; ++part)
        op8_store(out + 8 * part, op8_load_padded3(record, part));
}
OP_SIMD_AVX_END
#endif

/* load_padded3 reads the run's doubles in order at one lane, each vector's three then +0, and
 * every wider width reads, lane by lane, what one lane reads at the same place of the run. */
static void test_padded_rows_at_every_width(void **state)
{
    (void)state;
    const volatile double *source = values;
    double vectors[RECORDS][3], one[RUN];
    for (int k = 0; k < RECORDS; ++k)
        for (int c = 0; c < 3; ++c)
            vectors[k][c] = source[(3 * k + c + 1) % COUNT];
    const double *const record[RECORDS] = { vectors[0], vectors[1], vectors[2], vectors[3] };
    for (int q = 0; q < RUN; ++q) {
        one[q] = op1_load_padded3(record, q);
        assert_same_bits(one[q], q % 4 == 3 ? 0.0 : vectors[q / 4][q % 4]);
    }
#if OP_LANES2
    for (int part = 0; part < RUN / 2; ++part)
        for (int w = 0; w < 2; ++w)
            assert_same_bits(lane2(op2_load_padded3(record, part), w), one[2 * part + w]);
#endif
#if OP_SIMD_AVX
    double wide[RUN];
    if (!op_simd_avx(1))
        return;
    padded_rows_four_lanes(wide, record);
    for (int q = 0; q < RUN; ++q)
        assert_same_bits(wide[q], one[q]);
    if (!op_simd_avx512(1))
        return;
    padded_rows_eight_lanes(wide, record);
    for (int q = 0; q < RUN; ++q)
        assert_same_bits(wide[q], one[q]);
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_lane_keeps_c_semantics),
        cmocka_unit_test(test_four_lanes_give_one_lanes_bits),
        cmocka_unit_test(test_sums_take_lanes_in_order),
        cmocka_unit_test(test_records_go_through_lanes_unchanged),
        cmocka_unit_test(test_two_lanes_give_one_lanes_bits),
        cmocka_unit_test(test_four_lanes_halves_and_eight_lanes),
        cmocka_unit_test(test_padded_rows_at_every_width),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
