/* The choice of vector paths (simd.h): the CPU's AVX support, checked once at load. */
#include "simd.h"

int op_simd_use_avx;

#if OP_SIMD_AVX
__attribute__((constructor)) static void detect_avx(void)
{
    __builtin_cpu_init(); /* a constructor may run before libgcc's own */
    op_simd_use_avx = __builtin_cpu_supports("avx");
}

int op_simd_avx(int wanted)
{
    __builtin_cpu_init();
    if (wanted == 0 || wanted == 1)
        op_simd_use_avx = wanted && __builtin_cpu_supports("avx");
    return op_simd_use_avx;
}
#else
int op_simd_avx(int wanted)
{
    (void)wanted;
    return 0;
}
#endif
