/* Which vector instructions the hot loops use. SSE2 always on x86-64 (its baseline), unless
 * built with -DOPSIM_NO_SIMD (the plain C paths); AVX besides, where the CPU has it, chosen at
 * load time (and AVX-512 for the polar decompositions of eight lanes, where the CPU has that): the polar rotations of a quad (core/polar.c), the global step's right-hand side
 * (solvers/arap.c) and its triangular solves (core/sparse.c), and the local and global steps of
 * a group of four instances iterated together, one body per lane (solvers/arap.c). Every AVX path does each lane's
 * operations in the SSE2 path's order, with no fused multiply-add (none is enabled), so the
 * results are bitwise the same on every machine (tests/test_polar.c, tests/test_arap.c). */
#ifndef OPSIM_SIMD_H
#define OPSIM_SIMD_H

/* 1 where the AVX paths are compiled in: x86-64, GCC (its target pragma and CPU check), SSE2
 * paths on. Their functions sit between OP_SIMD_AVX_BEGIN and OP_SIMD_AVX_END. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__SSE2__) && !defined(OPSIM_NO_SIMD)
#define OP_SIMD_AVX 1
#include <immintrin.h>
#define OP_SIMD_AVX_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"avx\")")
#define OP_SIMD_AVX_END _Pragma("GCC pop_options")
#define OP_SIMD_AVX512_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"avx,avx512f,avx512dq\")")
#else
#define OP_SIMD_AVX 0
#endif

/* Nonzero while the AVX paths run: read in the hot loops, set at load and by op_simd_avx. */
extern int op_simd_use_avx;
/* Nonzero while, besides, the AVX-512 paths run (AVX-512F and DQ, eight lanes a register: the
 * polar decompositions of eight lanes, core/polar.c), where the CPU has them; their functions
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
