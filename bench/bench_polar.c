/* Timing of the polar rotation: the closed-form op_polar_rotation against the LAPACK SVD
 * reference, median ns per call over repeated passes on a fixed mix of generic, near-rotation
 * and inverted matrices (the local step sees mostly the second kind, inverted scenes the third).
 *
 * Also op_polar_rotation_warm, as the solver's local step calls it: started from the answer
 * turned by a small angle (10^-5 to 10^-1.5 rad, log-uniform; in the dinosaur scenes the rotation
 * moves by less than 10^-2 rad between iterations in nine calls out of ten) and from a random
 * rotation (its certificate fails and it falls back to the closed form). Every warm result is
 * checked: a rotation, and where the optimum is unique within 1e-9 entrywise of the SVD's (the
 * closed form's own test bound); the bench fails otherwise. The largest differences from the SVD
 * are printed for both methods: on inverted matrices with σ₂ close to σ₃ the closed form's
 * eigenvector from the adjugate loses digits (1e-10 here) that the certified Newton iteration
 * keeps.
 *
 * And op_polar_rotation_warm4_lanes, four of the near starts at a time as the local step's
 * quads call it, in SSE2 lanes and (where the CPU has it) AVX lanes: ns per matrix, and a check
 * that both give the scalar calls' bits. And op_polar_rotation4, the closed form four at a time
 * as the world's rigid turns call it, one at a time (without AVX) and in AVX lanes: ns per
 * matrix, and the same check. */
#include <lapacke.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_median.h"
#include "base/math3.h"
#include "opsim/platform.h"
#include "kernels/polar.h"
#include "kernels/simd.h"
#include "base/timer.h"

enum { N_MATRICES = 4096, N_RUNS = 15 };
/* Warm results must agree with the SVD this well (entrywise, unique optima), as test_polar asks
 * of the closed form. */
static const double WARM_AGREEMENT = 1e-9;

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

/* Singular values s (descending) of the 3x3 a (overwritten), for telling unique optima apart. */
static void singular_values(double a[9], double s[3], double u[9], double vt[9])
{
    double superb[2];
    if (LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'N', 'N', 3, 3, a, 3, s, u, 3, vt, 3, superb) != 0)
        s[0] = s[1] = s[2] = 0.0;
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
    return 1e9 * op_now();
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
    qsort(per_call, N_RUNS, sizeof per_call[0], bench_compare_double);
    return per_call[N_RUNS / 2];
}

/* R = R_exact turned about a random axis by `angle`, as a unit quaternion. */
static void turned_quaternion(const double exact[9], double angle, double q[4])
{
    double axis[3] = { gaussian(), gaussian(), gaussian() }, turn[9], r[9];
    double norm = sqrt(v3_dot(axis, axis)), c = cos(angle), s = sin(angle), t = 1.0 - c;
    v3_scale(axis, axis, 1.0 / norm);
    double x = axis[0], y = axis[1], z = axis[2];
    double rodrigues[9] = { c + t * x * x,     t * x * y - s * z, t * x * z + s * y,
                            t * x * y + s * z, c + t * y * y,     t * y * z - s * x,
                            t * x * z - s * y, t * y * z + s * x, c + t * z * z };
    m3_copy(turn, rodrigues);
    m3_mul(r, turn, exact);
    op_rotation_quaternion(r, q);
}

/* Median ns per op_polar_rotation_warm call from the starting quaternions q0 (copied afresh for
 * every pass, outside the timing). */
static double median_warm_ns(const double *c, const double *q0, double *q, double *r, double *checksum)
{
    double per_call[N_RUNS];
    for (int run = 0; run < N_RUNS; ++run) {
        memcpy(q, q0, 4 * N_MATRICES * sizeof *q);
        double t0 = now_ns();
        for (int i = 0; i < N_MATRICES; ++i)
            op_polar_rotation_warm(&c[9 * i], &q[4 * i], &r[9 * i]);
        per_call[run] = (now_ns() - t0) / N_MATRICES;
        for (int k = 0; k < 9 * N_MATRICES; ++k)
            *checksum += r[k];
    }
    qsort(per_call, N_RUNS, sizeof per_call[0], bench_compare_double);
    return per_call[N_RUNS / 2];
}

/* Median ns per matrix of op_polar_rotation_warm4_lanes over the matrices four at a time, in the
 * lanes op_simd_avx(avx) gives; the rotations (matrix-major) into r. Returns 0 when that
 * width is not available. */
static double median_lanes_ns(int avx, const double *c, const double *q0, double *q, double *r)
{
    if (op_simd_avx(avx) != avx)
        return 0.0;
    double *lanes = malloc(9 * N_MATRICES * sizeof *lanes), *out = malloc(9 * N_MATRICES * sizeof *out);
    if (!lanes || !out) {
        free(lanes);
        free(out);
        return 0.0;
    }
    for (int i = 0; i < N_MATRICES; ++i) /* four at a time, entry k of matrix m at 18 (m / 2) + 2k + m % 2 */
        for (int k = 0; k < 9; ++k)
            lanes[36 * (i / 4) + 18 * (i % 4 / 2) + 2 * k + i % 2] = c[9 * i + k];
    double per_call[N_RUNS];
    for (int run = 0; run < N_RUNS; ++run) {
        memcpy(q, q0, 4 * N_MATRICES * sizeof *q);
        double t0 = now_ns();
        for (int i = 0; i < N_MATRICES; i += 4) {
            double *qs[4] = { &q[4 * i], &q[4 * i + 4], &q[4 * i + 8], &q[4 * i + 12] };
            op_polar_rotation_warm4_lanes(&lanes[9 * i], qs, &out[9 * i]);
        }
        per_call[run] = (now_ns() - t0) / N_MATRICES;
    }
    for (int i = 0; i < N_MATRICES; ++i)
        for (int k = 0; k < 9; ++k)
            r[9 * i + k] = out[36 * (i / 4) + 18 * (i % 4 / 2) + 2 * k + i % 2];
    free(lanes);
    free(out);
    qsort(per_call, N_RUNS, sizeof per_call[0], bench_compare_double);
    return per_call[N_RUNS / 2];
}

/* Median ns per matrix of op_polar_rotation4 over the matrices four at a time, with the AVX
 * lanes where avx and one call each otherwise; the rotations into r. Returns 0 when that width is
 * not available. */
static double median_four_ns(int avx, const double *c, double *r)
{
    if (op_simd_avx(avx) != avx)
        return 0.0;
    double per_call[N_RUNS];
    for (int run = 0; run < N_RUNS; ++run) {
        double t0 = now_ns();
        for (int i = 0; i < N_MATRICES; i += 4) {
            const double *in[4] = { &c[9 * i], &c[9 * i + 9], &c[9 * i + 18], &c[9 * i + 27] };
            double *out[4] = { &r[9 * i], &r[9 * i + 9], &r[9 * i + 18], &r[9 * i + 27] };
            op_polar_rotation4(in, out);
        }
        per_call[run] = (now_ns() - t0) / N_MATRICES;
    }
    qsort(per_call, N_RUNS, sizeof per_call[0], bench_compare_double);
    return per_call[N_RUNS / 2];
}

/* The largest entrywise difference between the rotations r and the SVD's (reference), over the
 * matrices whose optimum is unique: det C > 0, or det C < 0 with σ₂ clear of σ₃. −1 when some r
 * is not a rotation. */
static double disagreement(const double *c, const double *reference, const double *r)
{
    double worst = 0.0;
    for (int i = 0; i < N_MATRICES; ++i) {
        const double *ri = &r[9 * i];
        if (!m3_isfinite(ri) || m3_orthonormality_error(ri) > 1e-13 || fabs(m3_det(ri) - 1.0) > 1e-13)
            return -1.0;
        double s[3], u[9], vt[9], a[9];
        m3_copy(a, &c[9 * i]);
        singular_values(a, s, u, vt);
        double gap = m3_det(&c[9 * i]) < 0.0 ? s[1] - s[2] : s[1] + s[2];
        if (!(gap > 1e-3 * s[0]))
            continue;
        for (int k = 0; k < 9; ++k)
            worst = fmax(worst, fabs(ri[k] - reference[9 * i + k]));
    }
    return worst;
}

int main(void)
{
    op_platform_init();
    double *c = malloc(9 * N_MATRICES * sizeof *c), *r = malloc(9 * N_MATRICES * sizeof *r);
    if (!c || !r) {
        fprintf(stderr, "bench_polar: out of memory\n");
        return 1;
    }
    for (int i = 0; i < N_MATRICES; ++i)
        make_matrix(i, &c[9 * i]);

    double checksum_fast = 0.0, checksum_svd = 0.0, checksum_near = 0.0, checksum_far = 0.0;
    double fast = median_ns(c, r, 0, &checksum_fast);
    double svd = median_ns(c, r, 1, &checksum_svd);

    double *exact = malloc(9 * N_MATRICES * sizeof *exact), *q_near = malloc(4 * N_MATRICES * sizeof *q_near);
    double *q_far = malloc(4 * N_MATRICES * sizeof *q_far), *q = malloc(4 * N_MATRICES * sizeof *q);
    double *reference = malloc(9 * N_MATRICES * sizeof *reference);
    if (!exact || !q_near || !q_far || !q || !reference) {
        fprintf(stderr, "bench_polar: out of memory\n");
        return 1;
    }
    for (int i = 0; i < N_MATRICES; ++i) {
        double far[9];
        op_polar_rotation(&c[9 * i], &exact[9 * i]);
        op_polar_rotation_svd(&c[9 * i], &reference[9 * i]);
        turned_quaternion(&exact[9 * i], pow(10.0, -5.0 + 3.5 * uniform()), &q_near[4 * i]);
        random_rotation(far);
        op_rotation_quaternion(far, &q_far[4 * i]);
    }
    double closed_error = disagreement(c, reference, exact);
    double near = median_warm_ns(c, q_near, q, r, &checksum_near);
    double near_error = disagreement(c, reference, r);
    double far = median_warm_ns(c, q_far, q, r, &checksum_far);
    double far_error = disagreement(c, reference, r);
    /* the lanes against the scalar calls from the near starts, bit for bit */
    double *r_scalar = malloc(9 * N_MATRICES * sizeof *r_scalar), *r_lanes = malloc(9 * N_MATRICES * sizeof *r_lanes);
    if (!r_scalar || !r_lanes) {
        fprintf(stderr, "bench_polar: out of memory\n");
        return 1;
    }
    memcpy(q, q_near, 4 * N_MATRICES * sizeof *q);
    for (int i = 0; i < N_MATRICES; ++i)
        op_polar_rotation_warm(&c[9 * i], &q[4 * i], &r_scalar[9 * i]);
    double sse2 = median_lanes_ns(0, c, q_near, q, r_lanes);
    int lanes_differ = memcmp(r_scalar, r_lanes, 9 * N_MATRICES * sizeof *r_lanes) != 0;
    double avx = median_lanes_ns(1, c, q_near, q, r_lanes);
    lanes_differ |= avx > 0.0 && memcmp(r_scalar, r_lanes, 9 * N_MATRICES * sizeof *r_lanes) != 0;
    /* the closed form four at a time against one at a time (exact), bit for bit */
    double four_plain = median_four_ns(0, c, r_lanes);
    lanes_differ |= memcmp(exact, r_lanes, 9 * N_MATRICES * sizeof *r_lanes) != 0;
    double four_avx = median_four_ns(1, c, r_lanes);
    lanes_differ |= four_avx > 0.0 && memcmp(exact, r_lanes, 9 * N_MATRICES * sizeof *r_lanes) != 0;
    free(r_scalar);
    free(r_lanes);

    printf("polar rotation, %d matrices (generic / near-rotation / inverted), median of %d runs\n",
           N_MATRICES, N_RUNS);
    printf("  %-22s %12s\n", "method", "ns/call");
    printf("  %-22s %12.1f\n", "closed form (fast)", fast);
    printf("  %-22s %12.1f\n", "LAPACKE_dgesvd", svd);
    printf("  %-22s %12.1f\n", "ratio svd/fast", svd / fast);
    printf("  %-22s %12s   max |R - R_svd| %.1e (unique optima)\n", "closed form, accuracy", "", closed_error);
    printf("  %-22s %12.1f   max |R - R_svd| %.1e\n", "warm, started near", near, near_error);
    printf("  %-22s %12.1f   max |R - R_svd| %.1e (falls back to the closed form)\n", "warm, started far", far,
           far_error);
    printf("  %-22s %12.2f\n", "ratio fast/warm near", fast / near);
    printf("  %-22s %12.1f   (per matrix, four at a time)\n", "warm lanes, SSE2", sse2);
    if (avx > 0.0)
        printf("  %-22s %12.1f   ratio SSE2/AVX %.2f\n", "warm lanes, AVX", avx, sse2 / avx);
    else
        printf("  %-22s %12s\n", "warm lanes, AVX", "not here");
    printf("  %-22s %12.1f   (per matrix, op_polar_rotation4 one at a time)\n", "closed form x4, plain", four_plain);
    if (four_avx > 0.0)
        printf("  %-22s %12.1f   ratio plain/AVX %.2f\n", "closed form x4, AVX", four_avx, four_plain / four_avx);
    else
        printf("  %-22s %12s\n", "closed form x4, AVX", "not here");
    printf("  checksums: fast %.17g, svd %.17g, warm %.17g %.17g\n", checksum_fast, checksum_svd, checksum_near,
           checksum_far);
    printf("csv,polar,matrices=%d,runs=%d,fast_ns=%.2f,svd_ns=%.2f,ratio=%.2f,warm_near_ns=%.2f,warm_far_ns=%.2f,"
           "closed_max_diff_svd=%.3g,warm_near_max_diff_svd=%.3g,warm_far_max_diff_svd=%.3g,lanes_sse2_ns=%.2f,"
           "lanes_avx_ns=%.2f,four_plain_ns=%.2f,four_avx_ns=%.2f\n",
           N_MATRICES, N_RUNS, fast, svd, svd / fast, near, far, closed_error, near_error, far_error, sse2, avx,
           four_plain, four_avx);
    int failed = !(near_error >= 0.0 && near_error <= WARM_AGREEMENT) ||
                 !(far_error >= 0.0 && far_error <= WARM_AGREEMENT) || lanes_differ;
    if (failed)
        fprintf(stderr, "bench_polar: a warm-started rotation is not a rotation, differs from the SVD's by more "
                        "than %g, or the lanes' from the scalar calls'\n", WARM_AGREEMENT);
    free(c);
    free(r);
    free(exact);
    free(q_near);
    free(q_far);
    free(q);
    free(reference);
    return failed;
}
