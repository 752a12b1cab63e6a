/* The broad phase's reach test over a block of sorted positions (core/contact/broad_phase.c owns
 * the grid and its scan): for one particle, which of the next four (AVX) or eight (AVX-512)
 * positions are within reach, |x_s − x_t|² < (b_s + b_t + margin)², and of another group, as a
 * bit mask, and the list of those positions appended without a branch. Each lane has the
 * one-at-a-time test's arithmetic (within_reach: the bounds' sum commutes, the difference only
 * changes sign), so the same pairs. Only where OP_SIMD_AVX (kernels/simd.h); the functions are
 * callable from code between OP_SIMD_AVX_BEGIN (or OP_SIMD_AVX512_BEGIN for op_near8_) and
 * OP_SIMD_AVX_END. The columns are read up to 8 entries past a row's end (the caller pads them). */
#ifndef OPSIM_NEAR_SCAN_H
#define OPSIM_NEAR_SCAN_H

#include "kernels/simd.h"

/* The sorted particles' columns a scan reads, one entry a sorted position. */
typedef struct op_near_columns {
    const double *x, *y, *z, *bound;
    const int *group;
} op_near_columns;

#if OP_SIMD_AVX
/* For each mask of four lanes, its set lanes in order (the rest 0) and how many: the lanes that
 * hit, appended with one store. */
static const _Alignas(16) int op_near4_lanes[16][4] = {
    { 0 }, { 0 }, { 1 }, { 0, 1 }, { 2 }, { 0, 2 }, { 1, 2 }, { 0, 1, 2 },
    { 3 }, { 0, 3 }, { 1, 3 }, { 0, 1, 3 }, { 2, 3 }, { 0, 2, 3 }, { 1, 2, 3 }, { 0, 1, 2, 3 },
};
static const int op_near4_count[16] = { 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4 };

OP_SIMD_AVX_BEGIN
/* One particle's position, bound, the margin and its group in every lane of four */
typedef struct op_near4 {
    __m256d x, y, z, bound, margin;
    __m128i group;
} op_near4;

static inline op_near4 op_near4_of(const op_near_columns *c, int s, double margin)
{
    return (op_near4){ _mm256_set1_pd(c->x[s]), _mm256_set1_pd(c->y[s]), _mm256_set1_pd(c->z[s]),
                       _mm256_set1_pd(c->bound[s]), _mm256_set1_pd(margin), _mm_set1_epi32(c->group[s]) };
}

/* Bit w set where position t + w is within p's reach and of another group, w < 4 */
static inline int op_near4_test(const op_near4 *p, const op_near_columns *c, int t)
{
    __m256d dx = _mm256_sub_pd(p->x, _mm256_loadu_pd(&c->x[t]));
    __m256d dy = _mm256_sub_pd(p->y, _mm256_loadu_pd(&c->y[t]));
    __m256d dz = _mm256_sub_pd(p->z, _mm256_loadu_pd(&c->z[t]));
    __m256d d2 = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy)), _mm256_mul_pd(dz, dz));
    __m256d within = _mm256_add_pd(_mm256_add_pd(p->bound, _mm256_loadu_pd(&c->bound[t])), p->margin);
    __m128i same = _mm_cmpeq_epi32(_mm_loadu_si128((const __m128i *)&c->group[t]), p->group);
    return _mm256_movemask_pd(_mm256_cmp_pd(d2, _mm256_mul_pd(within, within), _CMP_LT_OQ)) &
           ~_mm_movemask_ps(_mm_castsi128_ps(same));
}

/* Appends t + w for each bit w of near (< 16) to hit, in order, with one store (hit has room
 * for four more); returns how many */
static inline int op_near4_append(int *hit, int t, int near)
{
    _mm_storeu_si128((__m128i *)hit,
                     _mm_add_epi32(_mm_set1_epi32(t), _mm_load_si128((const __m128i *)op_near4_lanes[near])));
    return op_near4_count[near];
}
OP_SIMD_AVX_END

OP_SIMD_AVX512_BEGIN
/* op_near4 in eight AVX-512 lanes */
typedef struct op_near8 {
    __m512d x, y, z, bound, margin;
    __m256i group;
} op_near8;

static inline op_near8 op_near8_of(const op_near_columns *c, int s, double margin)
{
    return (op_near8){ _mm512_set1_pd(c->x[s]), _mm512_set1_pd(c->y[s]), _mm512_set1_pd(c->z[s]),
                       _mm512_set1_pd(c->bound[s]), _mm512_set1_pd(margin), _mm256_set1_epi32(c->group[s]) };
}

/* Bit w set where position t + w is within p's reach and of another group, w < 8 */
static inline unsigned op_near8_test(const op_near8 *p, const op_near_columns *c, int t)
{
    __m512d dx = _mm512_sub_pd(p->x, _mm512_loadu_pd(&c->x[t]));
    __m512d dy = _mm512_sub_pd(p->y, _mm512_loadu_pd(&c->y[t]));
    __m512d dz = _mm512_sub_pd(p->z, _mm512_loadu_pd(&c->z[t]));
    __m512d d2 = _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(dx, dx), _mm512_mul_pd(dy, dy)), _mm512_mul_pd(dz, dz));
    __m512d within = _mm512_add_pd(_mm512_add_pd(p->bound, _mm512_loadu_pd(&c->bound[t])), p->margin);
    __m256i same = _mm256_cmpeq_epi32(_mm256_loadu_si256((const __m256i *)&c->group[t]), p->group);
    return _mm512_cmp_pd_mask(d2, _mm512_mul_pd(within, within), _CMP_LT_OQ) &
           ~(unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(same)) & 0xffu;
}

/* Appends t + w for each bit w of near (< 256) to hit, in order, compressed in a register (a
 * compressing store to memory is microcoded on AMD's cores); hit has room for sixteen more.
 * Returns how many. */
static inline int op_near8_append(int *hit, int t, unsigned near)
{
    const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0, 0, 0);
    _mm512_storeu_si512(hit, _mm512_maskz_compress_epi32((__mmask16)near, _mm512_add_epi32(_mm512_set1_epi32(t), lanes)));
    return __builtin_popcount(near);
}
OP_SIMD_AVX_END
#endif

#endif
