/* The polar rotation of a 3x3 matrix: the closed-form quaternion method (Horn 1987; Higham &
 * Noferini 2016) for the solver's local step, a Jacobi fallback for the nearly repeated
 * eigenvalues it cannot resolve, and the LAPACK SVD reference it is tested against.
 *
 * For the quaternion q = (w, x, y, z) of R, tr(Rᵀ C) = qᵀ K q / |q|² with K the symmetric
 * traceless 4x4 matrix of form_k(), so the maximiser over SO(3) is K's dominant eigenvector.
 * Unlike Higham & Noferini, K is never negated when det C < 0: their algorithm returns the
 * orthogonal polar factor (det −1 for inverted C), whereas the sign-rectified rotation
 * U diag(1, 1, det UVᵀ) Vᵀ is K's own dominant eigenvector. The eigenvalues of K are s₁+s₂+s₃
 * (the largest), s₁−s₂−s₃, −s₁+s₂−s₃ and −s₁−s₂+s₃ for the signed singular values s₁ ≥ s₂ ≥ |s₃|
 * (s₃ < 0 iff det C < 0): the largest is repeated only for C of rank ≤ 1, or det C < 0 with
 * σ₂ = σ₃. There any maximiser will do, but close to it the closed form's eigenvector is
 * ill-determined, so Jacobi chooses.
 *
 * The solver's local step calls op_polar_rotation_warm: the same rotation from the previous
 * iterate's quaternion by a certified Newton iteration (see its comment), the closed form where
 * the certificate fails; op_polar_rotation_warm2_lanes, op_polar_rotation_warm4_lanes and
 * op_polar_rotation_warm8_lanes run two, four or eight of them side by side in SSE2, AVX or
 * AVX-512 lanes, bitwise the scalar results. */
#include "kernels/polar.h"

#include <float.h>
#include <lapacke.h>

#include "base/math3.h"
#include "kernels/simd.h"

/* Near a double root Halley's method gains only a factor of about three per step, so this is
 * a guard against a stall, never reached on the way to rounding level. */
enum { ROOT_MAX_STEPS = 100, JACOBI_MAX_SWEEPS = 32 };
/* 1 − 3 ‖adj A‖² ≥ 0 vanishes exactly when σ₁ = σ₂ = σ₃; below this with det A ≤ 0, A is close
 * to a scaled reflection, λ is nearly triple, and Jacobi is both faster and accurate. */
static const double NEAR_REFLECTION = 1e-4;
/* Stop the root iteration once its predicted error is below rounding (‖A‖_F = 1). */
static const double ROOT_TOLERANCE = 1e-17;
/* Largest diagonal of −adj(K − λI), the product of the other three eigenvalue gaps times the
 * largest squared component of v, below this: λ is nearly repeated, v is ill-determined within
 * its cluster, and the Jacobi fallback decides. Above it, the error left in λ moves
 * tr(Rᵀ A) by less than rounding (checked on near-degenerate families in tests). */
static const double CLUSTER_ADJUGATE = 1e-4;

/* K − shift·I (row-major 4x4), where tr(Rᵀ A) = qᵀ K q for a unit quaternion q and R(q) as
 * built in quaternion_to_rotation. */
static void form_k(const double a[9], double shift, double k[16])
{
    k[0] = a[0] + a[4] + a[8] - shift;
    k[5] = a[0] - a[4] - a[8] - shift;
    k[10] = a[4] - a[0] - a[8] - shift;
    k[15] = a[8] - a[0] - a[4] - shift;
    k[1] = k[4] = a[7] - a[5];
    k[2] = k[8] = a[2] - a[6];
    k[3] = k[12] = a[3] - a[1];
    k[6] = k[9] = a[1] + a[3];
    k[7] = k[13] = a[2] + a[6];
    k[11] = k[14] = a[5] + a[7];
}

/* R(q) for a nonzero, not necessarily unit, quaternion: the 2/|q|² factor normalises it. */
static void quaternion_to_rotation(const double q[4], double r[9])
{
    double s = 2.0 / (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double wx = s * q[0] * q[1], wy = s * q[0] * q[2], wz = s * q[0] * q[3];
    double xx = s * q[1] * q[1], xy = s * q[1] * q[2], xz = s * q[1] * q[3];
    double yy = s * q[2] * q[2], yz = s * q[2] * q[3], zz = s * q[3] * q[3];
    r[0] = 1.0 - (yy + zz);
    r[1] = xy - wz;
    r[2] = xz + wy;
    r[3] = xy + wz;
    r[4] = 1.0 - (xx + zz);
    r[5] = yz - wx;
    r[6] = xz - wy;
    r[7] = yz + wx;
    r[8] = 1.0 - (xx + yy);
}

/* A = C / ‖C‖_F; returns 0 when C is zero or not finite. The squared norm is formed directly
 * when it cannot overflow or underflow, otherwise after an exact power-of-two rescaling. */
static int normalise(const double c[9], double a[9])
{
    double n2 = m3_frobenius2(c);
    if (!(n2 > 1e-290 && n2 < 1e290)) {
        if (!m3_isfinite(c))
            return 0;
        double big = 0.0;
        for (int i = 0; i < 9; ++i)
            big = fmax(big, fabs(c[i]));
        if (big == 0.0)
            return 0;
        int e;
        frexp(big, &e);
        for (int i = 0; i < 9; ++i)
            a[i] = ldexp(c[i], -e);
        n2 = m3_frobenius2(a);
        c = a;
    }
    m3_scale(a, c, 1.0 / sqrt(n2));
    return 1;
}

/* Largest root λ of p(x) = x⁴ − 2x² − 8 det(A) x + det K, the characteristic polynomial of K
 * for ‖A‖_F = 1, by Halley's method from an upper bound. All roots of p are at most λ, so p > 0
 * beyond λ, and Halley's iterates from above decrease monotonically to λ without overshooting
 * (p has only real roots). Measured on this machine, three Halley steps from this bound cost less
 * than Higham & Noferini's trigonometric formula (acos and cos) for the root, which also loses
 * half the digits near a triple root.
 *
 * The bound: p(λ) = 0 reads (λ² − 1)² = 4 (‖adj A‖² + 2 det(A) λ). For det A ≥ 0, λ = s₁+s₂+s₃
 * ≥ 1 and the right-hand side grows with λ, so putting √3 ≥ λ there bounds it. For det A < 0 it
 * shrinks with λ; the second root σ₁ − σ₂ + σ₃ is at most 1, so the sign of p(1) tells whether
 * λ ≥ 1, where putting 1 there bounds it, or λ < 1, where 1 is the bound. */
static double largest_eigenvalue(double det_a, double adj2, double det_k)
{
    double x;
    if (det_a >= 0.0)
        x = sqrt(1.0 + 2.0 * sqrt(adj2 + 2.0 * 1.7320508075688772 * det_a));
    else if (adj2 + 2.0 * det_a >= 0.0)
        x = sqrt(1.0 + 2.0 * sqrt(adj2 + 2.0 * det_a));
    else
        x = 1.0;
    double c = 8.0 * det_a;
    for (int it = 0; it < ROOT_MAX_STEPS; ++it) {
        double x2 = x * x;
        double p = (x2 - 2.0) * x2 - c * x + det_k;
        double dp = 4.0 * x * (x2 - 1.0) - c;
        double ddp = 12.0 * x2 - 4.0;
        double step = p * dp / (dp * dp - 0.5 * p * ddp);
        /* Exactly, every step is positive and none overshoots λ (p has only real roots, so
         * p'² > p p''); a step that is not positive is rounding noise near a multiple root. */
        if (!(step > 0.0))
            break;
        x -= step;
        /* Halley's error after this step is at most about (p''/p')² step³ / 4. */
        if (!(step * step * step * ddp * ddp > ROOT_TOLERANCE * dp * dp))
            break;
    }
    return x;
}

/* A null vector of M = K − λI from its adjugate: for λ an eigenvalue of multiplicity one,
 * adj M = −(∏ of the other eigenvalues of λI − K) v vᵀ, so the column with the most negative
 * diagonal is v scaled by that product and by its largest component, and rounding perturbs it
 * the way one step of inverse iteration would. Branch free, unlike a pivoted LDLᵀ, which
 * dominated the cost. Returns minus that diagonal: small when λ is nearly repeated and v
 * ill-determined. */
static double null_vector(const double m[16], double v[4])
{
    /* 2x2 minors of rows 0-1 and of rows 2-3 (Laplace expansion along row pairs) */
    double s0 = m[0] * m[5] - m[4] * m[1], s1 = m[0] * m[6] - m[4] * m[2];
    double s2 = m[0] * m[7] - m[4] * m[3], s3 = m[1] * m[6] - m[5] * m[2];
    double s4 = m[1] * m[7] - m[5] * m[3], s5 = m[2] * m[7] - m[6] * m[3];
    double c5 = m[10] * m[15] - m[14] * m[11], c4 = m[9] * m[15] - m[13] * m[11];
    double c3 = m[9] * m[14] - m[13] * m[10], c2 = m[8] * m[15] - m[12] * m[11];
    double c1 = m[8] * m[14] - m[12] * m[10], c0 = m[8] * m[13] - m[12] * m[9];
    double adj[16] = {
        m[5] * c5 - m[6] * c4 + m[7] * c3,     -m[1] * c5 + m[2] * c4 - m[3] * c3,
        m[13] * s5 - m[14] * s4 + m[15] * s3,  -m[9] * s5 + m[10] * s4 - m[11] * s3,
        -m[4] * c5 + m[6] * c2 - m[7] * c1,    m[0] * c5 - m[2] * c2 + m[3] * c1,
        -m[12] * s5 + m[14] * s2 - m[15] * s1, m[8] * s5 - m[10] * s2 + m[11] * s1,
        m[4] * c4 - m[5] * c2 + m[7] * c0,     -m[0] * c4 + m[1] * c2 - m[3] * c0,
        m[12] * s4 - m[13] * s2 + m[15] * s0,  -m[8] * s4 + m[9] * s2 - m[11] * s0,
        -m[4] * c3 + m[5] * c1 - m[6] * c0,    m[0] * c3 - m[1] * c1 + m[2] * c0,
        -m[12] * s3 + m[13] * s1 - m[14] * s0, m[8] * s3 - m[9] * s1 + m[10] * s0,
    };
    /* Chosen without branches: which column wins is unpredictable from one call to the next. */
    int b01 = adj[5] < adj[0], b23 = adj[15] < adj[10];
    double d01 = b01 ? adj[5] : adj[0], d23 = b23 ? adj[15] : adj[10];
    int best = d23 < d01 ? 2 + b23 : b01;
    for (int i = 0; i < 4; ++i)
        v[i] = adj[4 * i + best];
    return -(d23 < d01 ? d23 : d01);
}

/* Dominant eigenvector of the symmetric K by cyclic Jacobi: every eigenvector it returns is
 * exact for a perturbation of K of order ε‖K‖, so tr(Rᵀ A) is within O(ε) of the optimum
 * however the eigenvalues cluster. Used only where the closed form is ill-conditioned. */
static void jacobi_dominant(double k[16], double q[4])
{
    double v[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 };
    /* An off-diagonal entry τ left in place costs at most τ in tr(Rᵀ A), so stop at the rounding
     * level of K itself (‖K‖_F = 2 for ‖A‖_F = 1); rotations cannot reduce it further anyway. */
    const double tiny = 2.0 * DBL_EPSILON;
    for (int sweep = 0; sweep < JACOBI_MAX_SWEEPS; ++sweep) {
        int rotated = 0;
        for (int p = 0; p < 3; ++p)
            for (int r = p + 1; r < 4; ++r) {
                double apr = k[4 * p + r];
                if (fabs(apr) <= tiny)
                    continue;
                rotated = 1;
                double theta = (k[5 * r] - k[5 * p]) / (2.0 * apr);
                double t = (theta >= 0.0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(1.0 + theta * theta));
                double c = 1.0 / sqrt(1.0 + t * t), s = t * c;
                for (int i = 0; i < 4; ++i) {
                    double kip = k[4 * i + p], kir = k[4 * i + r];
                    k[4 * i + p] = c * kip - s * kir;
                    k[4 * i + r] = s * kip + c * kir;
                }
                for (int i = 0; i < 4; ++i) {
                    double kpi = k[4 * p + i], kri = k[4 * r + i];
                    k[4 * p + i] = c * kpi - s * kri;
                    k[4 * r + i] = s * kpi + c * kri;
                }
                for (int i = 0; i < 4; ++i) {
                    double vip = v[4 * i + p], vir = v[4 * i + r];
                    v[4 * i + p] = c * vip - s * vir;
                    v[4 * i + r] = s * vip + c * vir;
                }
            }
        if (!rotated)
            break;
    }
    int best = 0;
    for (int j = 1; j < 4; ++j)
        if (k[5 * j] > k[5 * best])
            best = j;
    for (int i = 0; i < 4; ++i)
        q[i] = v[4 * i + best];
}

/* The closed form: the unnormalised quaternion of polar(C); (1, 0, 0, 0) for C zero or not
 * finite. */
static void closed_form_quaternion(const double C[9], double q[4])
{
    double a[9];
    if (!normalise(C, a)) {
        q[0] = 1.0;
        q[1] = q[2] = q[3] = 0.0;
        return;
    }
    /* Cofactors of A: det A from the first row and det K = 1 − 4 ‖adj A‖²_F, summed pairwise
     * to shorten the dependency chain of this latency-bound routine. */
    double m0 = a[4] * a[8] - a[5] * a[7], m1 = a[3] * a[8] - a[5] * a[6], m2 = a[3] * a[7] - a[4] * a[6];
    double m3 = a[1] * a[8] - a[2] * a[7], m4 = a[0] * a[8] - a[2] * a[6], m5 = a[0] * a[7] - a[1] * a[6];
    double m6 = a[1] * a[5] - a[2] * a[4], m7 = a[0] * a[5] - a[2] * a[3], m8 = a[0] * a[4] - a[1] * a[3];
    double det_a = a[0] * m0 - a[1] * m1 + a[2] * m2;
    double adj2 = ((m0 * m0 + m1 * m1) + (m2 * m2 + m3 * m3)) + ((m4 * m4 + m5 * m5) + (m6 * m6 + m7 * m7)) + m8 * m8;
    double det_k = 1.0 - 4.0 * adj2;

    double k[16];
    if (1.0 - 3.0 * adj2 < NEAR_REFLECTION && det_a <= 0.0) {
        form_k(a, 0.0, k);
        jacobi_dominant(k, q);
    } else {
        double m[16];
        form_k(a, largest_eigenvalue(det_a, adj2, det_k), m);
        if (!(null_vector(m, q) >= CLUSTER_ADJUGATE)) {
            form_k(a, 0.0, k);
            jacobi_dominant(k, q);
        }
    }
}

void op_polar_rotation(const double C[9], double R[9])
{
    double q[4];
    closed_form_quaternion(C, q);
    quaternion_to_rotation(q, R);
}

#if OP_SIMD_AVX
OP_SIMD_AVX_BEGIN
/* closed_form_quaternion and quaternion_to_rotation for four matrices, one a lane, each lane
 * with the scalar arithmetic in its order (largest_eigenvalue's steps until the lane's own stop,
 * null_vector's column chosen by selects), so the same bits. Returns the lanes that left that
 * path (a norm out of normalise's direct range, a near reflection, a nearly repeated eigenvalue),
 * whose R the caller takes from op_polar_rotation. */
static int closed_form_rotation_avx(const double *const C[4], double *const R[4])
{
    __m256d c[9], a[9];
    op_avx_load_records_at(C, 9, c);
    __m256d n2 = _mm256_setzero_pd();
    for (int k = 0; k < 9; ++k)
        n2 = _mm256_add_pd(n2, _mm256_mul_pd(c[k], c[k]));
    int away = _mm256_movemask_pd(_mm256_andnot_pd(
        _mm256_and_pd(_mm256_cmp_pd(n2, _mm256_set1_pd(1e-290), _CMP_GT_OQ),
                      _mm256_cmp_pd(n2, _mm256_set1_pd(1e290), _CMP_LT_OQ)),
        _mm256_castsi256_pd(_mm256_set1_epi64x(-1))));
    __m256d inverse = _mm256_div_pd(_mm256_set1_pd(1.0), _mm256_sqrt_pd(n2));
    for (int k = 0; k < 9; ++k)
        a[k] = _mm256_mul_pd(c[k], inverse);
#define MINOR(p, q, r, s) _mm256_sub_pd(_mm256_mul_pd(a[p], a[q]), _mm256_mul_pd(a[r], a[s]))
    __m256d m0 = MINOR(4, 8, 5, 7), m1 = MINOR(3, 8, 5, 6), m2 = MINOR(3, 7, 4, 6);
    __m256d m3 = MINOR(1, 8, 2, 7), m4 = MINOR(0, 8, 2, 6), m5 = MINOR(0, 7, 1, 6);
    __m256d m6 = MINOR(1, 5, 2, 4), m7 = MINOR(0, 5, 2, 3), m8 = MINOR(0, 4, 1, 3);
#undef MINOR
    __m256d det_a = _mm256_add_pd(_mm256_sub_pd(_mm256_mul_pd(a[0], m0), _mm256_mul_pd(a[1], m1)),
                                  _mm256_mul_pd(a[2], m2));
#define SQUARES(x, y) _mm256_add_pd(_mm256_mul_pd(x, x), _mm256_mul_pd(y, y))
    __m256d adj2 = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(SQUARES(m0, m1), SQUARES(m2, m3)),
                                               _mm256_add_pd(SQUARES(m4, m5), SQUARES(m6, m7))),
                                 _mm256_mul_pd(m8, m8));
#undef SQUARES
    const __m256d one = _mm256_set1_pd(1.0), two = _mm256_set1_pd(2.0), zero = _mm256_setzero_pd();
    const __m256d sign = _mm256_set1_pd(-0.0); /* C's unary minus: the sign bit flipped */
    __m256d det_k = _mm256_sub_pd(one, _mm256_mul_pd(_mm256_set1_pd(4.0), adj2));
    away |= _mm256_movemask_pd(_mm256_and_pd(
        _mm256_cmp_pd(_mm256_sub_pd(one, _mm256_mul_pd(_mm256_set1_pd(3.0), adj2)), _mm256_set1_pd(NEAR_REFLECTION),
                      _CMP_LT_OQ),
        _mm256_cmp_pd(det_a, zero, _CMP_LE_OQ)));
    /* largest_eigenvalue: its starting bound by selects, then Halley's steps, each lane until its
     * own stop */
    __m256d positive = _mm256_cmp_pd(det_a, zero, _CMP_GE_OQ);
    __m256d shrunk = _mm256_add_pd(adj2, _mm256_mul_pd(two, det_a));
    __m256d grown = _mm256_add_pd(adj2, _mm256_mul_pd(_mm256_set1_pd(2.0 * 1.7320508075688772), det_a));
    __m256d under = _mm256_blendv_pd(shrunk, grown, positive);
    __m256d x = _mm256_sqrt_pd(_mm256_add_pd(one, _mm256_mul_pd(two, _mm256_sqrt_pd(under))));
    x = _mm256_blendv_pd(one, x, _mm256_or_pd(positive, _mm256_cmp_pd(shrunk, zero, _CMP_GE_OQ)));
    __m256d cubic = _mm256_mul_pd(_mm256_set1_pd(8.0), det_a);
    __m256d active = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    for (int it = 0; it < ROOT_MAX_STEPS && _mm256_movemask_pd(active); ++it) {
        __m256d x2 = _mm256_mul_pd(x, x);
        __m256d p = _mm256_add_pd(_mm256_sub_pd(_mm256_mul_pd(_mm256_sub_pd(x2, two), x2), _mm256_mul_pd(cubic, x)),
                                  det_k);
        __m256d dp = _mm256_sub_pd(_mm256_mul_pd(_mm256_mul_pd(_mm256_set1_pd(4.0), x), _mm256_sub_pd(x2, one)), cubic);
        __m256d ddp = _mm256_sub_pd(_mm256_mul_pd(_mm256_set1_pd(12.0), x2), _mm256_set1_pd(4.0));
        __m256d step = _mm256_div_pd(
            _mm256_mul_pd(p, dp),
            _mm256_sub_pd(_mm256_mul_pd(dp, dp), _mm256_mul_pd(_mm256_mul_pd(_mm256_set1_pd(0.5), p), ddp)));
        __m256d taken = _mm256_and_pd(active, _mm256_cmp_pd(step, zero, _CMP_GT_OQ));
        x = _mm256_blendv_pd(x, _mm256_sub_pd(x, step), taken);
        __m256d error = _mm256_mul_pd(_mm256_mul_pd(_mm256_mul_pd(_mm256_mul_pd(step, step), step), ddp), ddp);
        __m256d bound = _mm256_mul_pd(_mm256_mul_pd(_mm256_set1_pd(ROOT_TOLERANCE), dp), dp);
        active = _mm256_and_pd(taken, _mm256_cmp_pd(error, bound, _CMP_GT_OQ));
    }
    /* form_k(a, λ) and null_vector's adjugate columns, the column by selects */
    __m256d m[16];
    m[0] = _mm256_sub_pd(_mm256_add_pd(_mm256_add_pd(a[0], a[4]), a[8]), x);
    m[5] = _mm256_sub_pd(_mm256_sub_pd(_mm256_sub_pd(a[0], a[4]), a[8]), x);
    m[10] = _mm256_sub_pd(_mm256_sub_pd(_mm256_sub_pd(a[4], a[0]), a[8]), x);
    m[15] = _mm256_sub_pd(_mm256_sub_pd(_mm256_sub_pd(a[8], a[0]), a[4]), x);
    m[1] = m[4] = _mm256_sub_pd(a[7], a[5]);
    m[2] = m[8] = _mm256_sub_pd(a[2], a[6]);
    m[3] = m[12] = _mm256_sub_pd(a[3], a[1]);
    m[6] = m[9] = _mm256_add_pd(a[1], a[3]);
    m[7] = m[13] = _mm256_add_pd(a[2], a[6]);
    m[11] = m[14] = _mm256_add_pd(a[5], a[7]);
#define D2(p, q, r, s) _mm256_sub_pd(_mm256_mul_pd(m[p], m[q]), _mm256_mul_pd(m[r], m[s]))
    __m256d s0 = D2(0, 5, 4, 1), s1 = D2(0, 6, 4, 2), s2 = D2(0, 7, 4, 3), s3 = D2(1, 6, 5, 2);
    __m256d s4 = D2(1, 7, 5, 3), s5 = D2(2, 7, 6, 3), c5 = D2(10, 15, 14, 11), c4 = D2(9, 15, 13, 11);
    __m256d c3 = D2(9, 14, 13, 10), c2 = D2(8, 15, 12, 11), c1 = D2(8, 14, 12, 10), c0 = D2(8, 13, 12, 9);
#undef D2
#define T3(p, x, q, y, r, z) _mm256_add_pd(_mm256_sub_pd(_mm256_mul_pd(m[p], x), _mm256_mul_pd(m[q], y)), \
                                           _mm256_mul_pd(m[r], z))
#define N3(p, x, q, y, r, z) _mm256_sub_pd(_mm256_add_pd(_mm256_mul_pd(_mm256_xor_pd(m[p], sign), x), \
                                                         _mm256_mul_pd(m[q], y)), _mm256_mul_pd(m[r], z))
    __m256d adj[16] = {
        T3(5, c5, 6, c4, 7, c3),   N3(1, c5, 2, c4, 3, c3),   T3(13, s5, 14, s4, 15, s3), N3(9, s5, 10, s4, 11, s3),
        N3(4, c5, 6, c2, 7, c1),   T3(0, c5, 2, c2, 3, c1),   N3(12, s5, 14, s2, 15, s1), T3(8, s5, 10, s2, 11, s1),
        T3(4, c4, 5, c2, 7, c0),   N3(0, c4, 1, c2, 3, c0),   T3(12, s4, 13, s2, 15, s0), N3(8, s4, 9, s2, 11, s0),
        N3(4, c3, 5, c1, 6, c0),   T3(0, c3, 1, c1, 2, c0),   N3(12, s3, 13, s1, 14, s0), T3(8, s3, 9, s1, 10, s0),
    };
#undef T3
#undef N3
    __m256d b01 = _mm256_cmp_pd(adj[5], adj[0], _CMP_LT_OQ), b23 = _mm256_cmp_pd(adj[15], adj[10], _CMP_LT_OQ);
    __m256d d01 = _mm256_blendv_pd(adj[0], adj[5], b01), d23 = _mm256_blendv_pd(adj[10], adj[15], b23);
    __m256d high = _mm256_cmp_pd(d23, d01, _CMP_LT_OQ), q[4];
    for (int i = 0; i < 4; ++i)
        q[i] = _mm256_blendv_pd(_mm256_blendv_pd(adj[4 * i], adj[4 * i + 1], b01),
                                _mm256_blendv_pd(adj[4 * i + 2], adj[4 * i + 3], b23), high);
    __m256d gap = _mm256_sub_pd(zero, _mm256_blendv_pd(d01, d23, high));
    away |= _mm256_movemask_pd(
        _mm256_andnot_pd(_mm256_cmp_pd(gap, _mm256_set1_pd(CLUSTER_ADJUGATE), _CMP_GE_OQ),
                         _mm256_castsi256_pd(_mm256_set1_epi64x(-1))));
    /* quaternion_to_rotation */
    __m256d s = _mm256_div_pd(two, _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(q[0], q[0]),
                                                                             _mm256_mul_pd(q[1], q[1])),
                                                               _mm256_mul_pd(q[2], q[2])),
                                                 _mm256_mul_pd(q[3], q[3])));
#define TERM(p, r) _mm256_mul_pd(_mm256_mul_pd(s, q[p]), q[r])
    __m256d wx = TERM(0, 1), wy = TERM(0, 2), wz = TERM(0, 3), xx = TERM(1, 1), xy = TERM(1, 2);
    __m256d xz = TERM(1, 3), yy = TERM(2, 2), yz = TERM(2, 3), zz = TERM(3, 3);
#undef TERM
    __m256d r[9] = {
        _mm256_sub_pd(one, _mm256_add_pd(yy, zz)), _mm256_sub_pd(xy, wz), _mm256_add_pd(xz, wy),
        _mm256_add_pd(xy, wz), _mm256_sub_pd(one, _mm256_add_pd(xx, zz)), _mm256_sub_pd(yz, wx),
        _mm256_sub_pd(xz, wy), _mm256_add_pd(yz, wx), _mm256_sub_pd(one, _mm256_add_pd(xx, yy)),
    };
    double lanes[9][4];
    for (int k = 0; k < 9; ++k)
        _mm256_storeu_pd(lanes[k], r[k]);
    for (int lane = 0; lane < 4; ++lane)
        for (int k = 0; k < 9; ++k)
            R[lane][k] = lanes[k][lane];
    return away;
}
OP_SIMD_AVX_END
#endif

void op_polar_rotation4(const double *const C[4], double *const R[4])
{
    int alone = 0xf;
#if OP_SIMD_AVX
    if (op_simd_use_avx)
        alone = closed_form_rotation_avx(C, R);
#endif
    for (int lane = 0; lane < 4; ++lane)
        if (alone >> lane & 1)
            op_polar_rotation(C[lane], R[lane]);
}

/* R (and the unit quaternion) from a nonzero unnormalised quaternion o: the rotation's 2/|o|²
 * and the quaternion's 1/|o| are independent, so neither waits for the other. */
static void finish(const double o[4], double q[4], double R[9])
{
    quaternion_to_rotation(o, R);
    double inverse_norm = 1.0 / sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2] + o[3] * o[3]);
    for (int k = 0; k < 4; ++k)
        q[k] = o[k] * inverse_norm;
}

void op_rotation_quaternion(const double R[9], double q[4])
{
    double o[4], ignored[9];
    closed_form_quaternion(R, o);
    finish(o, q, ignored);
}

/* op_polar_rotation_predicted. With M = Rᵀ Y = α I + β [a]× + γ a aᵀ (|a| = 1): on the plane
 * across a, M is α I + β J = r Rot(φ), r = √(α² + β²), and along a it is α + γ. With
 * v = vee(skew M) = β a, s = |v| = |β|, and c from the trace, tr M = 3α + γ: for the two-rotation
 * prediction M = 2I − D, D = Rot(a, −θ), α = 2 − cos θ, β = sin θ, α + γ = 1, so
 * cos θ = (5 − tr M)/2; for a spin M = I + h[Rᵀω]×, α = 1 = α + γ and the same expression gives 1.
 * Writing c = (5 − tr M)/2, α = 2 − c in both, and
 *   polar(M) = Rot(a, φ) = I + (sin φ / s) [v]× + ((1 − cos φ) / s²) [v]×²,
 *   sin φ = s / r, cos φ = α / r, r = √(s² + α²),
 *   (1 − cos φ)/s² = 1 / (r (r + α))     (r − α = s²/(r + α): no cancellation as s → 0).
 * Whatever M is, these coefficients make an exact rotation about v, so the result stays in SO(3). */
void op_polar_rotation_predicted(const double R[9], const double Y[9], double out[9])
{
    double M[9];
    m3_mul_at(M, R, Y);
    double v[3] = { 0.5 * (M[7] - M[5]), 0.5 * (M[2] - M[6]), 0.5 * (M[3] - M[1]) };
    double alpha = 0.5 * (M[0] + M[4] + M[8] - 1.0); /* 2 − c */
    /* α ≥ 1/2: a turn of at most 120° a sub-step in the two-rotation form, and α positive
     * with room for rounding; beyond it the closed form decides */
    if (!(alpha >= 0.5)) {
        op_polar_rotation(Y, out);
        return;
    }
    double s2 = v3_dot(v, v), r = sqrt(s2 + alpha * alpha);
    double first = 1.0 / r, second = 1.0 / (r * (r + alpha));
    double V[9], V2[9], turn[9];
    m3_cross_matrix(V, v);
    m3_mul(V2, V, V);
    m3_identity(turn);
    m3_axpy(turn, first, V);
    m3_axpy(turn, second, V2);
    m3_mul(out, R, turn);
}

/* The warm start (op_polar_rotation_warm). With R0 = R(q0) and B = R0ᵀ C, polar(C) = R0 polar(B),
 * and in R0's frame the 4x4 matrix of form_k is
 *     K_B = [ α  gᵀ ]    α = tr B, g = (B₃₂ − B₂₃, B₁₃ − B₃₁, B₂₁ − B₁₂) (B's skew part),
 *           [ g  M  ]    M = B + Bᵀ − α I.
 * For B near a symmetric positive definite matrix (R0 near the answer) its dominant eigenvector
 * is near (1, 0, 0, 0): write it (1, w). Then (λI − M) w = g and λ = α + gᵀw, so λ is the root
 * above M's largest eigenvalue μ₁ of the secular equation f(λ) = λ − α − gᵀ(λI − M)⁻¹ g = 0.
 * There f is increasing and concave, so Newton's method from λ = α (a Rayleigh quotient, hence
 * at most the root) climbs monotonically to it; its step is the Rayleigh quotient of (1, w)
 * less λ. Each step solves with the adjugate, (d, z) = (det(λI − M), adj(λI − M) g) ∝ (1, w),
 * which is already the unnormalised quaternion: no division but the Newton step's.
 *
 * The certificate, rigorous up to rounding in its own evaluation:
 *  - λI − M positive definite (Sylvester: a₀₀ > 0, the leading 2x2 minor > 0, d > 0), so
 *    λ > μ₁ ≥ λ₂(K_B) by Cauchy interlacing: no other eigenvalue of K_B can come near the one
 *    found. With tr = tr(λI − M), its least eigenvalue is at least 4d / tr² (the other two
 *    multiply to at most (tr/2)²).
 *  - the residual at the Rayleigh quotient μ = λ − f/(1 + |w|²) of v = (1, w) is
 *    ‖K_B v − μ v‖/‖v‖ = |f| |w| / (1 + |w|²), and every other eigenvalue is at least
 *    4d/tr² − |μ − λ| below μ, so sin∠(v, dominant eigenvector) ≤ residual / that gap
 *    (Davis–Kahan). Multiplied out in (d, z) this needs no division or square root.
 * A result passes when the angle bound is at rounding level (WARM_TOLERANCE); typically after two
 * solves from the previous local step's rotation. Anything else (not positive definite, not
 * converged in WARM_MAX_SOLVES, a scale beyond WARM_SCALE) goes to the closed form. */
enum { WARM_MAX_SOLVES = 4 };
/* Bound on sin of the angle between the certified and the exact dominant eigenvector. */
static const double WARM_TOLERANCE = 1e-16;
/* d ≥ this · tr³: Sylvester's test is trusted only well above the rounding noise of d
 * (condition number of λI − M below about 1e12; beyond, the closed form decides). */
static const double WARM_MIN_DETERMINANT = 1e-12;
/* tr < WARM_SCALE and |g| < WARM_SCALE keep the certificate's products (of degree up to 18 in
 * the entries) below overflow, so that an infinity can never pass it; tiny scales can only fail
 * it. Checked where the certificate is, not up front: a test on C ahead of the iteration cost
 * a sixth of the time in the solver's dependent chain of calls. */
static const double WARM_SCALE = 1e15;

void op_polar_rotation_warm(const double C[9], double q[4], double R[9])
{
    /* R0 = R(q0), normalised by 2/|q0|² like any quaternion, and B = R0ᵀ C. A q0 that is zero
     * or not finite makes everything below NaN, which fails the certificate. */
    double r0[9], b[9];
    quaternion_to_rotation(q, r0);
    m3_mul_at(b, r0, C);
    double alpha = b[0] + b[4] + b[8];
    double g[3] = { b[7] - b[5], b[2] - b[6], b[3] - b[1] }, g2 = g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
    double m00 = 2.0 * b[0] - alpha, m11 = 2.0 * b[4] - alpha, m22 = 2.0 * b[8] - alpha;
    double m01 = b[1] + b[3], m02 = b[2] + b[6], m12 = b[5] + b[7];
    double lambda = alpha;
    for (int solve = 0; solve < WARM_MAX_SOLVES; ++solve) {
        /* λI − M has diagonal a and off-diagonal −m; c is its adjugate (symmetric) */
        double a00 = lambda - m00, a11 = lambda - m11, a22 = lambda - m22;
        double c00 = a11 * a22 - m12 * m12, c11 = a00 * a22 - m02 * m02, c22 = a00 * a11 - m01 * m01;
        double c01 = m01 * a22 + m02 * m12, c02 = m01 * m12 + m02 * a11, c12 = a00 * m12 + m01 * m02;
        double d = a00 * c00 - m01 * c01 - m02 * c02;
        double z[3] = { c00 * g[0] + c01 * g[1] + c02 * g[2], c01 * g[0] + c11 * g[1] + c12 * g[2],
                        c02 * g[0] + c12 * g[1] + c22 * g[2] };
        double tr = a00 + a11 + a22, tr2 = tr * tr;
        if (!(a00 > 0.0 && c22 > 0.0 && d > WARM_MIN_DETERMINANT * tr * tr2 && tr < WARM_SCALE &&
              g2 < WARM_SCALE * WARM_SCALE))
            break;
        /* f·d, and (1 + |w|²)·d² */
        double fd = (lambda - alpha) * d - (g[0] * z[0] + g[1] * z[1] + g[2] * z[2]);
        double z2 = z[0] * z[0] + z[1] * z[1] + z[2] * z[2], dd = d * d + z2;
        /* the gap's lower bound times d·dd·tr², and the residual times dd·tr², squared */
        double gap = 4.0 * d * dd - fabs(fd) * d * tr2;
        if (gap > 0.0 && fd * fd * z2 * tr2 * tr2 <= WARM_TOLERANCE * WARM_TOLERANCE * gap * gap) {
            /* polar(C) = R0 R(d, z): the Hamilton product q0 ⊗ (d, z) */
            double o[4] = { q[0] * d - q[1] * z[0] - q[2] * z[1] - q[3] * z[2],
                            q[0] * z[0] + q[1] * d + q[2] * z[2] - q[3] * z[1],
                            q[0] * z[1] - q[1] * z[2] + q[2] * d + q[3] * z[0],
                            q[0] * z[2] + q[1] * z[1] - q[2] * z[0] + q[3] * d };
            finish(o, q, R);
            return;
        }
        lambda -= d * fd / dd;
    }
    double o[4];
    closed_form_quaternion(C, o);
    finish(o, q, R);
}

/* Two or four warm-started polar rotations at once (op_polar_rotation_warm2_lanes,
 * op_polar_rotation_warm4_lanes): the same operations, in the same order, as
 * op_polar_rotation_warm, in the lanes of vector registers (core/kernels/polar_lanes.h), so each lane's
 * result is bitwise the scalar one. The scalar routine is one long dependent chain (≈ 50 ns,
 * mostly waiting on multiplies and the divisions); two chains side by side take little longer
 * than one, and with two groups of two SSE2 lanes the four are bound by the arithmetic's
 * throughput, which AVX's four lanes double: where the CPU has AVX (core/kernels/simd.h), the four run
 * in one group of AVX registers, 1.7 times as fast (bench_polar) and 8 % off the 52-model
 * scene's local step on one thread. Eight in one group of AVX-512 registers, where the CPU has
 * them, rather than two groups of AVX ones took the dinosaur's frame (100 particles) from 83 to
 * 80 µs and the sheet's (256) from 206 to 199 µs (one thread, median of 390 frames; AMD EPYC).
 * The lanes run the Newton iteration in lockstep until all have passed the certificate or left
 * it; a lane that fails takes the scalar closed form alone. */
#if defined(__SSE2__) && !defined(OPSIM_NO_SIMD)
#include <emmintrin.h>

typedef __m128d v2;

#define VEC v2
#define LANES 2
#define LANES_NAME(name) name##_sse2
#define V_ADD _mm_add_pd
#define V_SUB _mm_sub_pd
#define V_MUL _mm_mul_pd
#define V_DIV _mm_div_pd
#define V_SQRT _mm_sqrt_pd
#define V_ALL _mm_set1_pd
#define V_TRUE() _mm_castsi128_pd(_mm_set1_epi32(-1))
#define V_AND _mm_and_pd
#define V_ANDNOT _mm_andnot_pd
#define V_OR _mm_or_pd
#define V_GT _mm_cmpgt_pd
#define V_LE _mm_cmple_pd
#define V_LT _mm_cmplt_pd
#define V_MASK _mm_movemask_pd
#define V_STORE _mm_storeu_pd
#define V_LOAD _mm_loadu_pd
#define V_SELECT(mask, a, b) _mm_or_pd(_mm_and_pd(mask, a), _mm_andnot_pd(mask, b))
#include "kernels/polar_lanes.h"

/* out[k] = (a[k], b[k]) for k < count */
static inline void v2_gather(int count, const double *a, const double *b, v2 *out)
{
    int k = 0;
    for (; k + 1 < count; k += 2) {
        v2 x = _mm_loadu_pd(a + k), y = _mm_loadu_pd(b + k);
        out[k] = _mm_unpacklo_pd(x, y);
        out[k + 1] = _mm_unpackhi_pd(x, y);
    }
    if (k < count)
        out[k] = _mm_unpacklo_pd(_mm_load_sd(a + k), _mm_load_sd(b + k));
}

/* a[k] = lane 0 of in[k], b[k] = lane 1 */
static inline void v2_scatter(int count, const v2 *in, double *a, double *b)
{
    int k = 0;
    for (; k + 1 < count; k += 2) {
        _mm_storeu_pd(a + k, _mm_unpacklo_pd(in[k], in[k + 1]));
        _mm_storeu_pd(b + k, _mm_unpackhi_pd(in[k], in[k + 1]));
    }
    if (k < count) {
        _mm_storel_pd(a + k, in[k]);
        _mm_storeh_pd(b + k, in[k]);
    }
}

#if OP_SIMD_AVX
OP_SIMD_AVX_BEGIN

#define VEC __m256d
#define LANES 4
#define LANES_NAME(name) name##_avx
#define V_ADD _mm256_add_pd
#define V_SUB _mm256_sub_pd
#define V_MUL _mm256_mul_pd
#define V_DIV _mm256_div_pd
#define V_SQRT _mm256_sqrt_pd
#define V_ALL _mm256_set1_pd
#define V_TRUE() _mm256_castsi256_pd(_mm256_set1_epi32(-1))
#define V_AND _mm256_and_pd
#define V_ANDNOT _mm256_andnot_pd
#define V_OR _mm256_or_pd
/* the ordered, signalling predicates of SSE2's cmpgt, cmple and cmplt */
#define V_GT(a, b) _mm256_cmp_pd(a, b, _CMP_GT_OS)
#define V_LE(a, b) _mm256_cmp_pd(a, b, _CMP_LE_OS)
#define V_LT(a, b) _mm256_cmp_pd(a, b, _CMP_LT_OS)
#define V_MASK _mm256_movemask_pd
#define V_STORE _mm256_storeu_pd
#define V_LOAD _mm256_loadu_pd
#define V_SELECT(mask, a, b) _mm256_or_pd(_mm256_and_pd(mask, a), _mm256_andnot_pd(mask, b))
#include "kernels/polar_lanes.h"

/* op_polar_rotation_warm4_lanes in one group of four AVX lanes: the pairs' halves (p0, p1) and
 * (p2, p3) joined into one register per entry on the way in, split on the way out. */
static void warm4_avx(const double C[36], double *const q[4], double R[36])
{
    __m256d c[1][9], lanes[1][4], r[1][9];
    for (int k = 0; k < 9; ++k)
        c[0][k] = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(C + 2 * k)), _mm_loadu_pd(C + 18 + 2 * k), 1);
    for (int k = 0; k < 4; ++k)
        lanes[0][k] = _mm256_setr_pd(q[0][k], q[1][k], q[2][k], q[3][k]);
    polar_rotation_warm_avx(1, c, lanes, r);
    for (int k = 0; k < 9; ++k) {
        _mm_storeu_pd(R + 2 * k, _mm256_castpd256_pd128(r[0][k]));
        _mm_storeu_pd(R + 18 + 2 * k, _mm256_extractf128_pd(r[0][k], 1));
    }
    double out[4][4];
    for (int k = 0; k < 4; ++k)
        _mm256_storeu_pd(out[k], lanes[0][k]);
    for (int m = 0; m < 4; ++m)
        for (int k = 0; k < 4; ++k)
            q[m][k] = out[k][m];
}

/* op_polar_rotation_warm8_lanes: two groups of warm4_avx's layout, their latency chains side
 * by side */
static void warm8_avx(const double C[72], double *const q[8], double R[72])
{
    __m256d c[2][9], lanes[2][4], r[2][9];
    for (int w = 0; w < 2; ++w) {
        const double *in = C + 36 * w;
        for (int k = 0; k < 9; ++k)
            c[w][k] = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(in + 2 * k)), _mm_loadu_pd(in + 18 + 2 * k),
                                           1);
        for (int k = 0; k < 4; ++k)
            lanes[w][k] = _mm256_setr_pd(q[4 * w][k], q[4 * w + 1][k], q[4 * w + 2][k], q[4 * w + 3][k]);
    }
    polar_rotation_warm_avx(2, c, lanes, r);
    for (int w = 0; w < 2; ++w) {
        double *out = R + 36 * w;
        for (int k = 0; k < 9; ++k) {
            _mm_storeu_pd(out + 2 * k, _mm256_castpd256_pd128(r[w][k]));
            _mm_storeu_pd(out + 18 + 2 * k, _mm256_extractf128_pd(r[w][k], 1));
        }
        double lane[4][4];
        for (int k = 0; k < 4; ++k)
            _mm256_storeu_pd(lane[k], lanes[w][k]);
        for (int m = 0; m < 4; ++m)
            for (int k = 0; k < 4; ++k)
                q[4 * w + m][k] = lane[k][m];
    }
}

static void warm4_interleaved_avx(const double C[36], double q[16], double R[36])
{
    __m256d c[1][9], lanes[1][4], r[1][9];
    for (int k = 0; k < 9; ++k)
        c[0][k] = _mm256_loadu_pd(C + 4 * k);
    for (int k = 0; k < 4; ++k)
        lanes[0][k] = _mm256_loadu_pd(q + 4 * k);
    polar_rotation_warm_avx(1, c, lanes, r);
    for (int k = 0; k < 9; ++k)
        _mm256_storeu_pd(R + 4 * k, r[0][k]);
    for (int k = 0; k < 4; ++k)
        _mm256_storeu_pd(q + 4 * k, lanes[0][k]);
}

static void warm8_interleaved_avx(const double C[72], double *const q[2], double R[72])
{
    __m256d c[2][9], lanes[2][4], r[2][9];
    for (int w = 0; w < 2; ++w) {
        for (int k = 0; k < 9; ++k)
            c[w][k] = _mm256_loadu_pd(C + 36 * w + 4 * k);
        for (int k = 0; k < 4; ++k)
            lanes[w][k] = _mm256_loadu_pd(q[w] + 4 * k);
    }
    polar_rotation_warm_avx(2, c, lanes, r);
    for (int w = 0; w < 2; ++w) {
        for (int k = 0; k < 9; ++k)
            _mm256_storeu_pd(R + 36 * w + 4 * k, r[w][k]);
        for (int k = 0; k < 4; ++k)
            _mm256_storeu_pd(q[w] + 4 * k, lanes[w][k]);
    }
}
OP_SIMD_AVX_END
#endif

#if OP_SIMD_AVX
OP_SIMD_AVX512_BEGIN
/* The same kernel in eight AVX-512 lanes (F and DQ: the masks kept as vectors, as the SSE2 and
 * AVX kernels keep them), for eight matrices in one group of registers: half the instructions
 * of two AVX groups. */
#define VEC __m512d
#define LANES 8
#define LANES_NAME(name) name##_avx512
#define V_ADD _mm512_add_pd
#define V_SUB _mm512_sub_pd
#define V_MUL _mm512_mul_pd
#define V_DIV _mm512_div_pd
#define V_SQRT _mm512_sqrt_pd
#define V_ALL _mm512_set1_pd
#define V_TRUE() _mm512_castsi512_pd(_mm512_set1_epi32(-1))
#define V_AND _mm512_and_pd
#define V_ANDNOT _mm512_andnot_pd
#define V_OR _mm512_or_pd
/* the ordered, signalling predicates of SSE2's cmpgt, cmple and cmplt, as all-ones lanes */
#define V_COMPARE(a, b, predicate) _mm512_castsi512_pd(_mm512_movm_epi64(_mm512_cmp_pd_mask(a, b, predicate)))
#define V_GT(a, b) V_COMPARE(a, b, _CMP_GT_OS)
#define V_LE(a, b) V_COMPARE(a, b, _CMP_LE_OS)
#define V_LT(a, b) V_COMPARE(a, b, _CMP_LT_OS)
#define V_MASK(a) ((int)_mm512_movepi64_mask(_mm512_castpd_si512(a)))
#define V_STORE _mm512_storeu_pd
#define V_LOAD _mm512_loadu_pd
#define V_SELECT(mask, a, b) _mm512_or_pd(_mm512_and_pd(mask, a), _mm512_andnot_pd(mask, b))
#include "kernels/polar_lanes.h"
#undef V_COMPARE

/* warm8_avx in one group of eight lanes: the four pairs joined into one register per entry */
static void warm8_avx512(const double C[72], double *const q[8], double R[72])
{
    __m512d c[1][9], lanes[1][4], r[1][9];
    for (int k = 0; k < 9; ++k) {
        __m256d low = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(C + 2 * k)), _mm_loadu_pd(C + 18 + 2 * k), 1);
        __m256d high =
            _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(C + 36 + 2 * k)), _mm_loadu_pd(C + 54 + 2 * k), 1);
        c[0][k] = _mm512_insertf64x4(_mm512_castpd256_pd512(low), high, 1);
    }
    for (int k = 0; k < 4; ++k)
        lanes[0][k] = _mm512_setr_pd(q[0][k], q[1][k], q[2][k], q[3][k], q[4][k], q[5][k], q[6][k], q[7][k]);
    polar_rotation_warm_avx512(1, c, lanes, r);
    for (int k = 0; k < 9; ++k) {
        __m256d low = _mm512_castpd512_pd256(r[0][k]), high = _mm512_extractf64x4_pd(r[0][k], 1);
        _mm_storeu_pd(R + 2 * k, _mm256_castpd256_pd128(low));
        _mm_storeu_pd(R + 18 + 2 * k, _mm256_extractf128_pd(low, 1));
        _mm_storeu_pd(R + 36 + 2 * k, _mm256_castpd256_pd128(high));
        _mm_storeu_pd(R + 54 + 2 * k, _mm256_extractf128_pd(high, 1));
    }
    double out[4][8];
    for (int k = 0; k < 4; ++k)
        _mm512_storeu_pd(out[k], lanes[0][k]);
    for (int m = 0; m < 8; ++m)
        for (int k = 0; k < 4; ++k)
            q[m][k] = out[k][m];
}

/* op_polar_rotation_warm16_lanes: two groups of warm8_avx512's layout, their latency chains side
 * by side */
static void warm16_avx512(const double C[144], double *const q[16], double R[144])
{
    __m512d c[2][9], lanes[2][4], r[2][9];
    for (int w = 0; w < 2; ++w) {
        const double *in = C + 72 * w;
        double *const *qs = q + 8 * w;
        for (int k = 0; k < 9; ++k) {
            __m256d low =
                _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(in + 2 * k)), _mm_loadu_pd(in + 18 + 2 * k), 1);
            __m256d high = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(in + 36 + 2 * k)),
                                                _mm_loadu_pd(in + 54 + 2 * k), 1);
            c[w][k] = _mm512_insertf64x4(_mm512_castpd256_pd512(low), high, 1);
        }
        for (int k = 0; k < 4; ++k)
            lanes[w][k] = _mm512_setr_pd(qs[0][k], qs[1][k], qs[2][k], qs[3][k], qs[4][k], qs[5][k], qs[6][k], qs[7][k]);
    }
    polar_rotation_warm_avx512(2, c, lanes, r);
    for (int w = 0; w < 2; ++w) {
        double *out = R + 72 * w;
        for (int k = 0; k < 9; ++k) {
            __m256d low = _mm512_castpd512_pd256(r[w][k]), high = _mm512_extractf64x4_pd(r[w][k], 1);
            _mm_storeu_pd(out + 2 * k, _mm256_castpd256_pd128(low));
            _mm_storeu_pd(out + 18 + 2 * k, _mm256_extractf128_pd(low, 1));
            _mm_storeu_pd(out + 36 + 2 * k, _mm256_castpd256_pd128(high));
            _mm_storeu_pd(out + 54 + 2 * k, _mm256_extractf128_pd(high, 1));
        }
        double lane[4][8];
        for (int k = 0; k < 4; ++k)
            _mm512_storeu_pd(lane[k], lanes[w][k]);
        for (int m = 0; m < 8; ++m)
            for (int k = 0; k < 4; ++k)
                q[8 * w + m][k] = lane[k][m];
    }
}

/* warm8_interleaved_avx in one group of eight lanes: the two fours' registers joined */
static void warm8_interleaved_avx512(const double C[72], double *const q[2], double R[72])
{
    __m512d c[1][9], lanes[1][4], r[1][9];
    for (int k = 0; k < 9; ++k)
        c[0][k] = _mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_loadu_pd(C + 4 * k)), _mm256_loadu_pd(C + 36 + 4 * k), 1);
    for (int k = 0; k < 4; ++k)
        lanes[0][k] =
            _mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_loadu_pd(q[0] + 4 * k)), _mm256_loadu_pd(q[1] + 4 * k), 1);
    polar_rotation_warm_avx512(1, c, lanes, r);
    for (int k = 0; k < 9; ++k) {
        _mm256_storeu_pd(R + 4 * k, _mm512_castpd512_pd256(r[0][k]));
        _mm256_storeu_pd(R + 36 + 4 * k, _mm512_extractf64x4_pd(r[0][k], 1));
    }
    for (int k = 0; k < 4; ++k) {
        _mm256_storeu_pd(q[0] + 4 * k, _mm512_castpd512_pd256(lanes[0][k]));
        _mm256_storeu_pd(q[1] + 4 * k, _mm512_extractf64x4_pd(lanes[0][k], 1));
    }
}

/* op_polar_rotation_warm16_interleaved: four fours in two groups of eight lanes (fours 0, 1 and
 * 2, 3 each joined as warm8_interleaved_avx512 joins them), their latency chains side by side */
static void warm16_interleaved_avx512(const double C[144], double *const q[4], double R[144])
{
    __m512d c[2][9], lanes[2][4], r[2][9];
    for (int w = 0; w < 2; ++w) {
        const double *in = C + 72 * w;
        for (int k = 0; k < 9; ++k)
            c[w][k] = _mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_loadu_pd(in + 4 * k)),
                                         _mm256_loadu_pd(in + 36 + 4 * k), 1);
        for (int k = 0; k < 4; ++k)
            lanes[w][k] = _mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_loadu_pd(q[2 * w] + 4 * k)),
                                             _mm256_loadu_pd(q[2 * w + 1] + 4 * k), 1);
    }
    polar_rotation_warm_avx512(2, c, lanes, r);
    for (int w = 0; w < 2; ++w) {
        double *out = R + 72 * w;
        for (int k = 0; k < 9; ++k) {
            _mm256_storeu_pd(out + 4 * k, _mm512_castpd512_pd256(r[w][k]));
            _mm256_storeu_pd(out + 36 + 4 * k, _mm512_extractf64x4_pd(r[w][k], 1));
        }
        for (int k = 0; k < 4; ++k) {
            _mm256_storeu_pd(q[2 * w] + 4 * k, _mm512_castpd512_pd256(lanes[w][k]));
            _mm256_storeu_pd(q[2 * w + 1] + 4 * k, _mm512_extractf64x4_pd(lanes[w][k], 1));
        }
    }
}
OP_SIMD_AVX_END
#endif

void op_polar_rotation_warm2_lanes(const double C[18], double *const q[2], double R[18])
{
    v2 c[1][9], lanes[1][4], r[1][9];
    for (int k = 0; k < 9; ++k)
        c[0][k] = _mm_loadu_pd(C + 2 * k);
    v2_gather(4, q[0], q[1], lanes[0]);
    polar_rotation_warm_sse2(1, c, lanes, r);
    for (int k = 0; k < 9; ++k)
        _mm_storeu_pd(R + 2 * k, r[0][k]);
    v2_scatter(4, lanes[0], q[0], q[1]);
}

void op_polar_rotation_warm4_lanes(const double C[36], double *const q[4], double R[36])
{
#if OP_SIMD_AVX
    if (op_simd_use_avx) {
        warm4_avx(C, q, R);
        return;
    }
#endif
    v2 c[2][9], lanes[2][4], r[2][9];
    for (int w = 0; w < 2; ++w) {
        for (int k = 0; k < 9; ++k)
            c[w][k] = _mm_loadu_pd(C + 18 * w + 2 * k);
        v2_gather(4, q[2 * w], q[2 * w + 1], lanes[w]);
    }
    polar_rotation_warm_sse2(2, c, lanes, r);
    for (int w = 0; w < 2; ++w) {
        for (int k = 0; k < 9; ++k)
            _mm_storeu_pd(R + 18 * w + 2 * k, r[w][k]);
        v2_scatter(4, lanes[w], q[2 * w], q[2 * w + 1]);
    }
}

void op_polar_rotation_warm8_lanes(const double C[72], double *const q[8], double R[72])
{
#if OP_SIMD_AVX
    if (op_simd_use_avx512) {
        warm8_avx512(C, q, R);
        return;
    }
    if (op_simd_use_avx) {
        warm8_avx(C, q, R);
        return;
    }
#endif
    op_polar_rotation_warm4_lanes(C, q, R);
    op_polar_rotation_warm4_lanes(C + 36, q + 4, R + 36);
}

void op_polar_rotation_warm16_lanes(const double C[144], double *const q[16], double R[144])
{
#if OP_SIMD_AVX
    if (op_simd_use_avx512) {
        warm16_avx512(C, q, R);
        return;
    }
#endif
    op_polar_rotation_warm8_lanes(C, q, R);
    op_polar_rotation_warm8_lanes(C + 72, q + 8, R + 72);
}

void op_polar_rotation_warm4_interleaved(const double C[36], double q[16], double R[36])
{
#if OP_SIMD_AVX
    if (op_simd_use_avx) {
        warm4_interleaved_avx(C, q, R);
        return;
    }
#endif
    /* lanes 0, 1 and lanes 2, 3 as two SSE2 pairs */
    v2 c[2][9], lanes[2][4], r[2][9];
    for (int w = 0; w < 2; ++w) {
        for (int k = 0; k < 9; ++k)
            c[w][k] = _mm_loadu_pd(C + 4 * k + 2 * w);
        for (int k = 0; k < 4; ++k)
            lanes[w][k] = _mm_loadu_pd(q + 4 * k + 2 * w);
    }
    polar_rotation_warm_sse2(2, c, lanes, r);
    for (int w = 0; w < 2; ++w) {
        for (int k = 0; k < 9; ++k)
            _mm_storeu_pd(R + 4 * k + 2 * w, r[w][k]);
        for (int k = 0; k < 4; ++k)
            _mm_storeu_pd(q + 4 * k + 2 * w, lanes[w][k]);
    }
}
#else
/* m matrices interleaved in pairs (op_polar_rotation_warm4_lanes' layout), one plain call each */
static void warm_interleaved(int m, const double *C, double *const q[], double *R)
{
    double c[9], r[9];
    for (int p = 0; p < m; ++p) {
        const double *in = C + 18 * (p / 2) + p % 2;
        for (int k = 0; k < 9; ++k)
            c[k] = in[2 * k];
        op_polar_rotation_warm(c, q[p], r);
        double *out = R + 18 * (p / 2) + p % 2;
        for (int k = 0; k < 9; ++k)
            out[2 * k] = r[k];
    }
}

void op_polar_rotation_warm2_lanes(const double C[18], double *const q[2], double R[18])
{
    warm_interleaved(2, C, q, R);
}

void op_polar_rotation_warm4_lanes(const double C[36], double *const q[4], double R[36])
{
    warm_interleaved(4, C, q, R);
}

void op_polar_rotation_warm8_lanes(const double C[72], double *const q[8], double R[72])
{
    warm_interleaved(8, C, q, R);
}

void op_polar_rotation_warm16_lanes(const double C[144], double *const q[16], double R[144])
{
    warm_interleaved(16, C, q, R);
}

void op_polar_rotation_warm4_interleaved(const double C[36], double q[16], double R[36])
{
    double c[9], lane_q[4], r[9];
    for (int m = 0; m < 4; ++m) {
        for (int k = 0; k < 9; ++k)
            c[k] = C[4 * k + m];
        for (int k = 0; k < 4; ++k)
            lane_q[k] = q[4 * k + m];
        op_polar_rotation_warm(c, lane_q, r);
        for (int k = 0; k < 9; ++k)
            R[4 * k + m] = r[k];
        for (int k = 0; k < 4; ++k)
            q[4 * k + m] = lane_q[k];
    }
}
#endif

void op_polar_rotation_warm8_interleaved(const double C[72], double *const q[2], double R[72])
{
#if OP_SIMD_AVX
    if (op_simd_use_avx512) {
        warm8_interleaved_avx512(C, q, R);
        return;
    }
    if (op_simd_use_avx) {
        warm8_interleaved_avx(C, q, R);
        return;
    }
#endif
    op_polar_rotation_warm4_interleaved(C, q[0], R);
    op_polar_rotation_warm4_interleaved(C + 36, q[1], R + 36);
}

void op_polar_rotation_warm16_interleaved(const double C[144], double *const q[4], double R[144])
{
#if OP_SIMD_AVX
    if (op_simd_use_avx512) {
        warm16_interleaved_avx512(C, q, R);
        return;
    }
#endif
    op_polar_rotation_warm8_interleaved(C, q, R);
    op_polar_rotation_warm8_interleaved(C + 72, q + 2, R + 72);
}

int op_polar_rotation_svd(const double C[9], double R[9])
{
    double a[9], s[3], u[9], vt[9], superb[2];
    m3_copy(a, C);
    lapack_int info = LAPACKE_dgesvd(LAPACK_ROW_MAJOR, 'A', 'A', 3, 3, a, 3, s, u, 3, vt, 3, superb);
    if (info != 0) {
        m3_identity(R);
        return (int)info;
    }
    if (m3_det(u) * m3_det(vt) < 0.0)
        for (int r = 0; r < 3; ++r)
            u[3 * r + 2] = -u[3 * r + 2];
    m3_mul(R, u, vt);
    return 0;
}
