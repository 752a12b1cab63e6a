/* The lane type the algorithm files are written over, and the only place besides the other
 * kernels in core/kernels/ where intrinsics appear. A lane is one double of one independent
 * problem (a particle, a contact pair, a body); an operation acts on every lane alike, with the
 * scalar operation's rounding and no fused multiply-add (none is enabled), so a lane's bits are
 * the one-at-a-time code's whatever the width.
 *
 * Two widths, each a complete set of the same operations under its own prefix:
 *   op1_  one lane, a plain double (its masks an int 0 or 1): the scalar build
 *         (-DOPSIM_NO_SIMD), CPUs without AVX, and the one-at-a-time calls;
 *   op4_  four lanes, an AVX register (op_lanes4; masks op_lanes4 too, all bits set where
 *         true): compiled only where OP_SIMD_AVX (kernels/simd.h) and only callable from code
 *         between OP_SIMD_AVX_BEGIN and OP_SIMD_AVX_END, since the build has no -mavx and the
 *         CPU is checked at load (op_simd_use_avx).
 * Because the AVX width is chosen at load time, not at build time as Box2D's b2FloatW is, code
 * written once over lanes is instantiated per width, as kernels/polar_closed_lanes.h is: a
 * template file (no include guard, its macros undone at its end) is written over LANE,
 * LANE_MASK, LANES, LANES_NAME(name) and L(op) for the operation `op`, and its includer defines
 * them before each inclusion, e.g. for four lanes (between OP_SIMD_AVX_BEGIN and
 * OP_SIMD_AVX_END):
 *     #define LANE op_lanes4
 *     #define LANE_MASK op_lanes4_mask
 *     #define LANES 4
 *     #define LANES_NAME(name) name##_lanes4
 *     #define L(op) op4_##op
 *     #include "contact/pair_lanes.h"
 * (core/contact/collide.c includes it so for one and four lanes).
 *
 * Operations (a, b lanes; m masks; p pointers to doubles):
 *   add sub mul div sqrt      a ∘ b lane by lane;  neg(a) −a (the sign flipped, as C's minus)
 *   max(a, b)                 a > b ? a : b lane by lane (op_max(b, a) of base/math3.h)
 *   all(x) zero()             x in every lane;  +0 in every lane
 *   broadcast(p)              *p in every lane, read from memory into all at once
 *   gt lt ge le neq           comparison masks (neq true where unordered, as C's !=; the
 *                             others false there, as C's >, <, >=, <=)
 *   or_mask(m, m) and_mask(m, m)  either mask, both masks;  not_mask(m) true where m is false
 *   bits(m)                   bit w set where lane w is true
 *   select(m, a, b)           m ? a : b lane by lane
 *   load(p) store(p, a)       LANES consecutive doubles
 *   load_records(record[LANES], count, out)   entry k of record w into lane w of out[k]
 *   store_records(record[LANES], count, in)   the inverse
 *   m3_mul(out, a, b)         3×3 products held an entry a lane (m3_mul's order)
 *   load_padded3(record, part)  the 3-vectors record[0], record[1], … each followed by a 0 and
 *                             laid end to end: its doubles LANES·part … LANES·part + LANES − 1
 *                             (a row of kernels/substitute_lanes.h)
 * op4_ only: set(a, b, c, d), load_consecutive and store_consecutive (four records
 * one after another), load_apart(p, stride) and store_apart(p, stride, a) (one entry of four
 * records stride doubles apart), add_in_order(acc, c0, c1, c2, c3) and sum_in_order(sum, c) (sums
 * that take lanes one after another, core/sim/predict.c), low(a) and high(a) (lanes 0–1 and 2–3
 * as two lanes), join(low, high), load3(p) ((p[0], p[1], p[2], 0)), differ(a, b) (a mask true
 * where the bits differ) and none(m) (1 where no lane is true).
 *
 * Two more widths serve solvers/arap.c's local and global steps and the sparse substitutions
 * (kernels/substitute_lanes.h), whose loops hold one particle's entries or one row's columns (not
 * one problem) across lanes:
 *   op2_  two lanes, an SSE2 register (op_lanes2), where OP_LANES2 (x86-64 without
 *         -DOPSIM_NO_SIMD): add sub mul div all zero broadcast load store load_padded3 as
 *         above; load_all(p) (*p in both lanes, as broadcast), load_low(p) ((p[0], 0)), add_low
 *         sub_low mul_low (lane 0 only, lane 1 kept from a), store_low store_high (one lane to
 *         *p), interleave_low(a, b) (a0, b0), interleave_high(a, b) (a1, b1), low_high(a, b)
 *         (a0, b1), high_low(a, b) (a1, b0);
 *   op8_  eight lanes, an AVX-512 register (op_lanes8), where OP_SIMD_AVX and only callable
 *         between OP_SIMD_AVX512_BEGIN and OP_SIMD_AVX_END (the CPU checked at load,
 *         op_simd_use_avx512): add sub mul div all zero broadcast load store load_padded3,
 *         low(a) and high(a) (lanes 0–3 and 4–7 as four lanes), join(low, high) (their
 *         inverse).
 * kernels/polar.c moves matrices in and out of its two-, four- and eight-lane kernels with these
 * loads, stores and shuffles. */
#ifndef OPSIM_LANES_H
#define OPSIM_LANES_H

#include <math.h>
#include <stddef.h>

#include "kernels/simd.h"

/* ---- one lane: a double ---------------------------------------------------------------- */

typedef double op_lanes1;
typedef int op_lanes1_mask;

static inline double op1_add(double a, double b) { return a + b; }
static inline double op1_sub(double a, double b) { return a - b; }
static inline double op1_mul(double a, double b) { return a * b; }
static inline double op1_div(double a, double b) { return a / b; }
static inline double op1_sqrt(double a) { return sqrt(a); }
static inline double op1_neg(double a) { return -a; }
static inline double op1_max(double a, double b) { return a > b ? a : b; }
static inline double op1_all(double x) { return x; }
static inline double op1_zero(void) { return 0.0; }
static inline int op1_gt(double a, double b) { return a > b; }
static inline int op1_lt(double a, double b) { return a < b; }
static inline int op1_ge(double a, double b) { return a >= b; }
static inline int op1_le(double a, double b) { return a <= b; }
static inline int op1_neq(double a, double b) { return a != b; }
static inline int op1_or_mask(int a, int b) { return a | b; }
static inline int op1_and_mask(int a, int b) { return a & b; }
static inline int op1_not_mask(int m) { return !m; }
static inline int op1_bits(int m) { return m; }
static inline double op1_select(int m, double yes, double no) { return m ? yes : no; }
static inline double op1_load(const double *p) { return *p; }
static inline double op1_broadcast(const double *p) { return *p; }
static inline void op1_store(double *p, double a) { *p = a; }
static inline double op1_load_padded3(const double *const record[], int part)
{
    return part % 4 == 3 ? 0.0 : record[part / 4][part % 4];
}

static inline void op1_load_records(const double *const record[1], int count, double *out)
{
    for (int k = 0; k < count; ++k)
        out[k] = record[0][k];
}

static inline void op1_store_records(double *const record[1], int count, const double *in)
{
    for (int k = 0; k < count; ++k)
        record[0][k] = in[k];
}

static inline void op1_m3_mul(double out[9], const double a[9], const double b[9])
{
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            out[3 * r + c] = a[3 * r] * b[c] + a[3 * r + 1] * b[3 + c] + a[3 * r + 2] * b[6 + c];
}

/* ---- two lanes: an SSE2 register ---------------------------------------------------------- */

#if defined(__SSE2__) && !defined(OPSIM_NO_SIMD)
#define OP_LANES2 1
#include <emmintrin.h>
typedef __m128d op_lanes2;

static inline __m128d op2_add(__m128d a, __m128d b) { return _mm_add_pd(a, b); }
static inline __m128d op2_sub(__m128d a, __m128d b) { return _mm_sub_pd(a, b); }
static inline __m128d op2_mul(__m128d a, __m128d b) { return _mm_mul_pd(a, b); }
static inline __m128d op2_div(__m128d a, __m128d b) { return _mm_div_pd(a, b); }
static inline __m128d op2_all(double x) { return _mm_set1_pd(x); }
static inline __m128d op2_zero(void) { return _mm_setzero_pd(); }
static inline __m128d op2_load(const double *p) { return _mm_loadu_pd(p); }
static inline void op2_store(double *p, __m128d a) { _mm_storeu_pd(p, a); }
static inline __m128d op2_load_all(const double *p) { return _mm_load1_pd(p); }
static inline __m128d op2_broadcast(const double *p) { return _mm_load1_pd(p); }
static inline __m128d op2_load_low(const double *p) { return _mm_load_sd(p); }
static inline __m128d op2_add_low(__m128d a, __m128d b) { return _mm_add_sd(a, b); }
static inline __m128d op2_sub_low(__m128d a, __m128d b) { return _mm_sub_sd(a, b); }
static inline __m128d op2_mul_low(__m128d a, __m128d b) { return _mm_mul_sd(a, b); }
static inline void op2_store_low(double *p, __m128d a) { _mm_storel_pd(p, a); }
static inline void op2_store_high(double *p, __m128d a) { _mm_storeh_pd(p, a); }
static inline __m128d op2_interleave_low(__m128d a, __m128d b) { return _mm_unpacklo_pd(a, b); }
static inline __m128d op2_interleave_high(__m128d a, __m128d b) { return _mm_unpackhi_pd(a, b); }
static inline __m128d op2_low_high(__m128d a, __m128d b) { return _mm_shuffle_pd(a, b, 2); }
static inline __m128d op2_high_low(__m128d a, __m128d b) { return _mm_shuffle_pd(a, b, 1); }
/* (x, y) of record[part / 2] for an even part, (z, 0) for an odd one */
static inline __m128d op2_load_padded3(const double *const record[], int part)
{
    const double *vector = record[part / 2];
    return part % 2 ? op2_load_low(vector + 2) : op2_load(vector);
}
#else
#define OP_LANES2 0
#endif

/* ---- four lanes: an AVX register ---------------------------------------------------------- */

#if OP_SIMD_AVX
OP_SIMD_AVX_BEGIN
typedef __m256d op_lanes4;
typedef __m256d op_lanes4_mask;

static inline __m256d op4_add(__m256d a, __m256d b) { return _mm256_add_pd(a, b); }
static inline __m256d op4_sub(__m256d a, __m256d b) { return _mm256_sub_pd(a, b); }
static inline __m256d op4_mul(__m256d a, __m256d b) { return _mm256_mul_pd(a, b); }
static inline __m256d op4_div(__m256d a, __m256d b) { return _mm256_div_pd(a, b); }
static inline __m256d op4_sqrt(__m256d a) { return _mm256_sqrt_pd(a); }
static inline __m256d op4_neg(__m256d a) { return _mm256_xor_pd(a, _mm256_set1_pd(-0.0)); }
static inline __m256d op4_max(__m256d a, __m256d b) { return _mm256_max_pd(a, b); }
static inline __m256d op4_all(double x) { return _mm256_set1_pd(x); }
static inline __m256d op4_zero(void) { return _mm256_setzero_pd(); }
static inline __m256d op4_gt(__m256d a, __m256d b) { return _mm256_cmp_pd(a, b, _CMP_GT_OQ); }
static inline __m256d op4_lt(__m256d a, __m256d b) { return _mm256_cmp_pd(a, b, _CMP_LT_OQ); }
static inline __m256d op4_ge(__m256d a, __m256d b) { return _mm256_cmp_pd(a, b, _CMP_GE_OQ); }
static inline __m256d op4_le(__m256d a, __m256d b) { return _mm256_cmp_pd(a, b, _CMP_LE_OQ); }
static inline __m256d op4_neq(__m256d a, __m256d b) { return _mm256_cmp_pd(a, b, _CMP_NEQ_UQ); }
static inline __m256d op4_or_mask(__m256d a, __m256d b) { return _mm256_or_pd(a, b); }
static inline __m256d op4_and_mask(__m256d a, __m256d b) { return _mm256_and_pd(a, b); }
static inline __m256d op4_not_mask(__m256d m) { return _mm256_xor_pd(m, _mm256_castsi256_pd(_mm256_set1_epi64x(-1))); }
static inline int op4_bits(__m256d m) { return _mm256_movemask_pd(m); }
static inline __m256d op4_select(__m256d m, __m256d yes, __m256d no) { return _mm256_blendv_pd(no, yes, m); }
static inline __m256d op4_load(const double *p) { return _mm256_loadu_pd(p); }
static inline void op4_store(double *p, __m256d a) { _mm256_storeu_pd(p, a); }
/* (a, b, c, d) in lanes 0 … 3 */
static inline __m256d op4_set(double a, double b, double c, double d) { return _mm256_setr_pd(a, b, c, d); }
/* x in every lane, read from memory (one broadcast instruction) */
static inline __m256d op4_broadcast(const double *p) { return _mm256_broadcast_sd(p); }
static inline __m128d op4_low(__m256d a) { return _mm256_castpd256_pd128(a); }
static inline __m128d op4_high(__m256d a) { return _mm256_extractf128_pd(a, 1); }
static inline __m256d op4_join(__m128d low, __m128d high)
{
    return _mm256_insertf128_pd(_mm256_castpd128_pd256(low), high, 1);
}
/* (p[0], p[1], p[2], 0): a 3-vector in one register, read as two loads */
static inline __m256d op4_load3(const double *p) { return op4_join(_mm_loadu_pd(p), _mm_load_sd(p + 2)); }
static inline __m256d op4_load_padded3(const double *const record[], int part) { return op4_load3(record[part]); }
static inline __m256d op4_differ(__m256d a, __m256d b) { return _mm256_xor_pd(a, b); }
static inline int op4_none(__m256d m) { return _mm256_testz_si256(_mm256_castpd_si256(m), _mm256_castpd_si256(m)); }
static inline __m256d op4_load_apart(const double *p, size_t stride) { return op_avx_load_lanes_apart(p, stride); }
static inline void op4_store_apart(double *p, size_t stride, __m256d a) { op_avx_store_lanes_apart(p, stride, a); }

static inline void op4_load_records(const double *const record[4], int count, __m256d *out)
{
    op_avx_load_records_at(record, count, out);
}

static inline void op4_store_records(double *const record[4], int count, const __m256d *in)
{
    op_avx_store_records_at(record, count, in);
}

/* Four consecutive records of `stride` doubles from `first`, entries 0 … count − 1 (count ≤ stride),
 * record w in lane w (op_avx_load_records4: loads matching op4_store_consecutive's stores) */
static inline void op4_load_consecutive(const double *first, int stride, int count, __m256d *out)
{
    op_avx_load_records4(first, stride, count, out);
}

static inline void op4_store_consecutive(double *first, int stride, int count, const __m256d *in)
{
    op_avx_store_records4(first, stride, count, in);
}

static inline void op4_m3_mul(__m256d out[9], const __m256d a[9], const __m256d b[9]) { op_avx_m3_mul(out, a, b); }

/* acc + t0 + t1 + t2 + t3, lane by lane in that order, where t_p is lane p of c0 … c3 (the
 * four-by-four transpose: lane w of t_p is lane p of c_w), so that each of acc's four sums takes
 * four particles' terms one after another, the order of a one-at-a-time loop. */
static inline __m256d op4_add_in_order(__m256d acc, __m256d c0, __m256d c1, __m256d c2, __m256d c3)
{
    __m256d low01 = _mm256_unpacklo_pd(c0, c1), high01 = _mm256_unpackhi_pd(c0, c1);
    __m256d low23 = _mm256_unpacklo_pd(c2, c3), high23 = _mm256_unpackhi_pd(c2, c3);
    acc = _mm256_add_pd(acc, _mm256_permute2f128_pd(low01, low23, 0x20));
    acc = _mm256_add_pd(acc, _mm256_permute2f128_pd(high01, high23, 0x20));
    acc = _mm256_add_pd(acc, _mm256_permute2f128_pd(low01, low23, 0x31));
    return _mm256_add_pd(acc, _mm256_permute2f128_pd(high01, high23, 0x31));
}

/* sum + lane 0 + lane 1 + lane 2 + lane 3 of c, in that order */
static inline double op4_sum_in_order(double sum, __m256d c)
{
    __m128d s = _mm_set_sd(sum), low = _mm256_castpd256_pd128(c), high = _mm256_extractf128_pd(c, 1);
    s = _mm_add_sd(s, low);
    s = _mm_add_sd(s, _mm_unpackhi_pd(low, low));
    s = _mm_add_sd(s, high);
    return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(high, high)));
}
OP_SIMD_AVX_END

/* ---- eight lanes: an AVX-512 register ------------------------------------------------------ */

OP_SIMD_AVX512_BEGIN
typedef __m512d op_lanes8;

static inline __m512d op8_add(__m512d a, __m512d b) { return _mm512_add_pd(a, b); }
static inline __m512d op8_sub(__m512d a, __m512d b) { return _mm512_sub_pd(a, b); }
static inline __m512d op8_mul(__m512d a, __m512d b) { return _mm512_mul_pd(a, b); }
static inline __m512d op8_div(__m512d a, __m512d b) { return _mm512_div_pd(a, b); }
static inline __m512d op8_all(double x) { return _mm512_set1_pd(x); }
static inline __m512d op8_zero(void) { return _mm512_setzero_pd(); }
static inline __m512d op8_load(const double *p) { return _mm512_loadu_pd(p); }
static inline __m512d op8_broadcast(const double *p) { return _mm512_set1_pd(*p); }
static inline void op8_store(double *p, __m512d a) { _mm512_storeu_pd(p, a); }
static inline __m256d op8_low(__m512d a) { return _mm512_castpd512_pd256(a); }
static inline __m256d op8_high(__m512d a) { return _mm512_extractf64x4_pd(a, 1); }
static inline __m512d op8_join(__m256d low, __m256d high)
{
    return _mm512_insertf64x4(_mm512_castpd256_pd512(low), high, 1);
}
static inline __m512d op8_load_padded3(const double *const record[], int part)
{
    return op8_join(op4_load3(record[2 * part]), op4_load3(record[2 * part + 1]));
}
OP_SIMD_AVX_END
#endif

#endif
