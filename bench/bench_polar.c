/* Timing of the polar rotation: the closed-form op_polar_rotation against the LAPACK SVD
 * reference, median ns per call over repeated passes on a fixed mix of generic, near-rotation
 * and inverted matrices (the local step sees mostly the second kind, inverted scenes the third). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "math3.h"
#include "polar.h"

enum { N_MATRICES = 4096, N_RUNS = 15 };

/* splitmix64: the same matrices on every machine and run. */
static uint64_t rng_state = 0x0b5e55ed5eedULL;

static double uniform(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53;
}

static double gaussian(void)
{
    double u = 1.0 - uniform();
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * uniform());
}

static void random_rotation(double r[9])
{
    double q[4] = { gaussian(), gaussian(), gaussian(), gaussian() };
    double s = 2.0 / (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    r[0] = 1.0 - s * (q[2] * q[2] + q[3] * q[3]);
    r[1] = s * (q[1] * q[2] - q[0] * q[3]);
    r[2] = s * (q[1] * q[3] + q[0] * q[2]);
    r[3] = s * (q[1] * q[2] + q[0] * q[3]);
    r[4] = 1.0 - s * (q[1] * q[1] + q[3] * q[3]);
    r[5] = s * (q[2] * q[3] - q[0] * q[1]);
    r[6] = s * (q[1] * q[3] - q[0] * q[2]);
    r[7] = s * (q[2] * q[3] + q[0] * q[1]);
    r[8] = 1.0 - s * (q[1] * q[1] + q[2] * q[2]);
}

/* A third each: Gaussian entries; a rotation times a mild stretch plus noise, as the solver
 * sees once the mesh moves; a rotation with one axis mirrored times an SPD stretch. */
static void make_matrix(int i, double c[9])
{
    double r[9], s[9], g[9];
    for (int k = 0; k < 9; ++k)
        g[k] = gaussian();
    switch (i % 3) {
    case 0:
        m3_copy(c, g);
        break;
    case 1:
        random_rotation(r);
        m3_identity(s);
        m3_axpy(s, 0.05, g);
        m3_mul(c, r, s);
        break;
    default:
        random_rotation(r);
        for (int k = 0; k < 3; ++k)
            r[3 * k + 2] = -r[3 * k + 2];
        m3_mul_at(s, g, g);
        m3_scale(s, s, 0.1);
        s[0] += 1.0;
        s[4] += 1.0;
        s[8] += 1.0;
        m3_mul(c, r, s);
        break;
    }
}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e9 * (double)t.tv_sec + (double)t.tv_nsec;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median over N_RUNS passes of the ns per call; *checksum accumulates every output so the
 * calls cannot be optimised away. */
static double median_ns(const double *c, double *r, int use_svd, double *checksum)
{
    double per_call[N_RUNS];
    for (int run = 0; run < N_RUNS; ++run) {
        double t0 = now_ns();
        for (int i = 0; i < N_MATRICES; ++i) {
            if (use_svd)
                op_polar_rotation_svd(&c[9 * i], &r[9 * i]);
            else
                op_polar_rotation(&c[9 * i], &r[9 * i]);
        }
        per_call[run] = (now_ns() - t0) / N_MATRICES;
        for (int k = 0; k < 9 * N_MATRICES; ++k)
            *checksum += r[k];
    }
    qsort(per_call, N_RUNS, sizeof per_call[0], compare_double);
    return per_call[N_RUNS / 2];
}

int main(void)
{
    double *c = malloc(9 * N_MATRICES * sizeof *c), *r = malloc(9 * N_MATRICES * sizeof *r);
    if (!c || !r) {
        fprintf(stderr, "bench_polar: out of memory\n");
        return 1;
    }
    for (int i = 0; i < N_MATRICES; ++i)
        make_matrix(i, &c[9 * i]);

    double checksum_fast = 0.0, checksum_svd = 0.0;
    double fast = median_ns(c, r, 0, &checksum_fast);
    double svd = median_ns(c, r, 1, &checksum_svd);

    printf("polar rotation, %d matrices (generic / near-rotation / inverted), median of %d runs\n",
           N_MATRICES, N_RUNS);
    printf("  %-22s %12s\n", "method", "ns/call");
    printf("  %-22s %12.1f\n", "closed form (fast)", fast);
    printf("  %-22s %12.1f\n", "LAPACKE_dgesvd", svd);
    printf("  %-22s %12.1f\n", "ratio svd/fast", svd / fast);
    printf("  checksums: fast %.17g, svd %.17g\n", checksum_fast, checksum_svd);
    printf("csv,polar,matrices=%d,runs=%d,fast_ns=%.2f,svd_ns=%.2f,ratio=%.2f\n", N_MATRICES, N_RUNS,
           fast, svd, svd / fast);
    free(c);
    free(r);
    return 0;
}
