/* Which vector instructions the hot loops use. SSE2 always on x86-64 (its baseline), unless
 * built with -DOPSIM_NO_SIMD (the plain C paths); AVX besides, where the CPU has it, chosen at
 * load time: the polar rotations of a quad (core/kernels/polar.c), the global step's right-hand side
 * (solvers/arap.c) and its triangular solves (core/kernels/sparse.c), the local and global steps of
 * a group of four instances iterated together, one body per lane (solvers/arap.c), and the
 * per-particle loops of the prediction (core/sim/predict.c) and of arap's begin_substep, one
 * particle per lane (op_avx_load_records4 below); and AVX-512, where the CPU has it, for the
 * polar decompositions of eight lanes (core/kernels/polar.c), a group's record sums and rotation pulls
 * (solvers/arap.c) and its four triangular solves (core/kernels/sparse.c). Every AVX path does each lane's
 * operations in the SSE2 path's order, with no fused multiply-add (none is enabled), so the
 * results are bitwise the same on every machine (tests/test_polar.c, tests/test_arap.c,
 * tests/test_predict.c). Algorithm files use these paths through the lane type of
 * kernels/lanes.h (the contacts, the prediction, arap's local and global steps) or kernels of
 * their own; intrinsics stay in this folder (`make intrinsics` checks it). */
#ifndef OPSIM_SIMD_H
#define OPSIM_SIMD_H

/* 1 where the AVX paths are compiled in: x86-64, GCC (its target pragma and CPU check), SSE2
 * paths on. Their functions sit between OP_SIMD_AVX_BEGIN and OP_SIMD_AVX_END. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__SSE2__) && !defined(OPSIM_NO_SIMD)
#define OP_SIMD_AVX 1
#include <immintrin.h>
#include <stddef.h>
#define OP_SIMD_AVX_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"avx\")")
#define OP_SIMD_AVX_END _Pragma("GCC pop_options")
#define OP_SIMD_AVX512_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"avx,avx512f,avx512dq\")")
#else
#define OP_SIMD_AVX 0
#endif

#if OP_SIMD_AVX
OP_SIMD_AVX_BEGIN
/* (from[0], from[stride], from[2 stride], from[3 stride]): one entry of four records, 64 bits a
 * record */
static inline __m256d op_avx_load_lanes_apart(const double *from, size_t stride)
{
    __m128d low = _mm_loadh_pd(_mm_load_sd(from), from + stride);
    __m128d high = _mm_loadh_pd(_mm_load_sd(from + 2 * stride), from + 3 * stride);
    return _mm256_insertf128_pd(_mm256_castpd128_pd256(low), high, 1);
}

/* lane p of v to to[p stride], 64 bits a lane */
static inline void op_avx_store_lanes_apart(double *to, size_t stride, __m256d v)
{
    __m128d low = _mm256_castpd256_pd128(v), high = _mm256_extractf128_pd(v, 1);
    _mm_storel_pd(to, low);
    _mm_storeh_pd(to + stride, low);
    _mm_storel_pd(to + 2 * stride, high);
    _mm_storeh_pd(to + 3 * stride, high);
}

/* Entries 0 … count − 1 of four records anywhere (four bodies' vectors or matrices), one
 * register each, record p in lane p: out[k] = (record[0][k], …, record[3][k]). Entries go in
 * pairs, each record's pair one 128-bit load, and an odd count's last entry one 64-bit load a
 * record. */
static inline void op_avx_load_records_at(const double *const record[4], int count, __m256d *out)
{
    int k = 0;
    for (; k + 1 < count; k += 2) {
        __m256d even = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(record[0] + k)),
                                            _mm_loadu_pd(record[2] + k), 1);
        __m256d odd = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(record[1] + k)),
                                           _mm_loadu_pd(record[3] + k), 1);
        out[k] = _mm256_unpacklo_pd(even, odd);
        out[k + 1] = _mm256_unpackhi_pd(even, odd);
    }
    if (k < count) {
        __m128d low = _mm_loadh_pd(_mm_load_sd(record[0] + k), record[1] + k);
        __m128d high = _mm_loadh_pd(_mm_load_sd(record[2] + k), record[3] + k);
        out[k] = _mm256_insertf128_pd(_mm256_castpd128_pd256(low), high, 1);
    }
}

/* Four consecutive records of `stride` doubles from `first` (four particles' vectors or
 * matrices), their entries 0 … count − 1 one register each, particle p in lane p:
 * out[k] = (first[k], first[stride + k], first[2 stride + k], first[3 stride + k]), count ≤
 * stride. Entries go in pairs, each particle's pair one 128-bit load, and an odd count's last
 * entry one 64-bit load a particle: the loads op_avx_store_records4's stores make, so that a load
 * right after them takes its value from the store (a load spanning two stores waits for both
 * to reach the cache). Nothing outside the records is read. */
static inline void op_avx_load_records4(const double *first, int stride, int count, __m256d *out)
{
    const double *const record[4] = { first, first + stride, first + 2 * stride, first + 3 * stride };
    op_avx_load_records_at(record, count, out);
}

/* out = a b for 3×3 matrices held an entry a register (row by row), each lane with m3_mul's
 * arithmetic: out_rc = (a_r0 b_0c + a_r1 b_1c) + a_r2 b_2c. out must be neither a nor b. */
static inline void op_avx_m3_mul(__m256d out[9], const __m256d a[9], const __m256d b[9])
{
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            out[3 * r + c] =
                _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(a[3 * r], b[c]), _mm256_mul_pd(a[3 * r + 1], b[3 + c])),
                              _mm256_mul_pd(a[3 * r + 2], b[6 + c]));
}

/* The inverse of op_avx_load_records_at: lane p of in[k] to record[p][k], k < count. */
static inline void op_avx_store_records_at(double *const record[4], int count, const __m256d *in)
{
    for (int k = 0; k + 1 < count; k += 2) {
        __m256d even = _mm256_unpacklo_pd(in[k], in[k + 1]), odd = _mm256_unpackhi_pd(in[k], in[k + 1]);
        _mm_storeu_pd(record[0] + k, _mm256_castpd256_pd128(even));
        _mm_storeu_pd(record[1] + k, _mm256_castpd256_pd128(odd));
        _mm_storeu_pd(record[2] + k, _mm256_extractf128_pd(even, 1));
        _mm_storeu_pd(record[3] + k, _mm256_extractf128_pd(odd, 1));
    }
    if (count % 2) {
        __m128d low = _mm256_castpd256_pd128(in[count - 1]), high = _mm256_extractf128_pd(in[count - 1], 1);
        _mm_storel_pd(record[0] + count - 1, low);
        _mm_storeh_pd(record[1] + count - 1, low);
        _mm_storel_pd(record[2] + count - 1, high);
        _mm_storeh_pd(record[3] + count - 1, high);
    }
}

/* The inverse of op_avx_load_records4: lane p of in[k] to first[p stride + k], k < count. */
static inline void op_avx_store_records4(double *first, int stride, int count, const __m256d *in)
{
    double *const record[4] = { first, first + stride, first + 2 * stride, first + 3 * stride };
    op_avx_store_records_at(record, count, in);
}
OP_SIMD_AVX_END
#endif

/* Nonzero while the AVX paths run: read in the hot loops, set at load and by op_simd_avx. */
extern int op_simd_use_avx;
/* Nonzero while, besides, the AVX-512 paths run (AVX-512F and DQ, eight lanes a register: the
 * polar decompositions of eight lanes, core/kernels/polar.c), where the CPU has them; their functions
 * sit between OP_SIMD_AVX512_BEGIN and OP_SIMD_AVX_END. Set at load, by op_simd_avx (with the AVX
 * paths) and by op_simd_avx512. */
extern int op_simd_use_avx512;

/* Asks for the AVX paths (wanted = 1, taken only where the CPU has AVX) or the SSE2 ones (0),
 * for tests and benchmarks to compare them, or only tells (any other value); returns 1 when
 * the AVX paths now run. Not while another thread is in the solver. */
int op_simd_avx(int wanted);
/* The same for the AVX-512 paths alone (taken only where the CPU has them and the AVX paths run). */
int op_simd_avx512(int wanted);

#endif
