/* The choice of vector paths (simd.h): the CPU's AVX and AVX-512 support, checked once at load. */
#include "kernels/simd.h"

int op_simd_use_avx, op_simd_use_avx512;

#if OP_SIMD_AVX
__attribute__((constructor)) static void detect_avx(void)
{
    __builtin_cpu_init(); /* a constructor may run before libgcc's own */
    op_simd_use_avx = __builtin_cpu_supports("avx");
    op_simd_avx512(1);
}

int op_simd_avx(int wanted)
{
    __builtin_cpu_init();
    if (wanted == 0 || wanted == 1) {
        op_simd_use_avx = wanted && __builtin_cpu_supports("avx");
        op_simd_avx512(wanted);
    }
    return op_simd_use_avx;
}

int op_simd_avx512(int wanted)
{
    __builtin_cpu_init();
    if (wanted == 0 || wanted == 1)
        op_simd_use_avx512 = wanted && op_simd_use_avx && __builtin_cpu_supports("avx512f") &&
                             __builtin_cpu_supports("avx512dq");
    return op_simd_use_avx512;
}
#else
int op_simd_avx(int wanted)
{
    (void)wanted;
    return 0;
}

int op_simd_avx512(int wanted)
{
    (void)wanted;
    return 0;
}
#endif
