/* The polar rotation of a 3x3 matrix: the closed-form quaternion method (Horn 1987; Higham &
 * Noferini 2016) for the solver's local step, a Jacobi fallback for the nearly repeated
 * eigenvalues it cannot resolve, and the LAPACK SVD reference it is tested against.
 *
 * For the quaternion q = (w, x, y, z) of R, tr(Rᵀ C) = qᵀ K q / |q|² with K the symmetric
 * traceless 4x4 matrix of form_k (kernels/polar_closed_lanes.h), so the maximiser over SO(3)
 * is K's dominant eigenvector.
 * Unlike Higham & Noferini, K is never negated when det C < 0: their algorithm returns the
 * orthogonal polar factor (det −1 for inverted C), whereas the sign-rectified rotation
 * U diag(1, 1, det UVᵀ) Vᵀ is K's own dominant eigenvector. The eigenvalues of K are s₁+s₂+s₃
 * (the largest), s₁−s₂−s₃, −s₁+s₂−s₃ and −s₁−s₂+s₃ for the signed singular values s₁ ≥ s₂ ≥ |s₃|
 * (s₃ < 0 iff det C < 0): the largest is repeated only for C of rank ≤ 1, or det C < 0 with
 * σ₂ = σ₃. There any maximiser will do, but close to it the closed form's eigenvector is
 * ill-determined, so Jacobi chooses.
 *
 * The closed form's common path (normalise, largest eigenvalue, null vector, rotation) is
 * written once over lanes in kernels/polar_closed_lanes.h: its one-lane instance is the scalar
 * closed form here, its four-lane instance op_polar_rotation4's AVX path; the scalar code below
 * keeps only the rare paths the lanes mark "away" (the rescaled norm, Jacobi).
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
#include "kernels/lanes.h"

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

/* The closed form's common path over lanes (kernels/polar_closed_lanes.h): one lane, the
 * scalar closed form below in every build, and four AVX lanes (op_polar_rotation4) where the
 * build has them */
#define LANE op_lanes1
#define LANE_MASK op_lanes1_mask
#define LANES 1
#define LANES_NAME(name) name##_lanes1
#define L(op) op1_##op
#include "kernels/polar_closed_lanes.h"

#if OP_SIMD_AVX
OP_SIMD_AVX_BEGIN
#define LANE op_lanes4
#define LANE_MASK op_lanes4_mask
#define LANES 4
#define LANES_NAME(name) name##_lanes4
#define L(op) op4_##op
#include "kernels/polar_closed_lanes.h"
OP_SIMD_AVX_END
#endif

/* A = C / ‖C‖_F; returns 0 when C is zero or not finite. The squared norm is formed directly
 * when it cannot overflow or underflow (normalise_lanes1), otherwise after an exact power-of-two
 * rescaling, which brings it into that range (the largest entry in [1/2, 1)). */
static int normalise(const double c[9], double a[9])
{
    if (!normalise_lanes1(c, a))
        return 1;
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
    normalise_lanes1(a, a);
    return 1;
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
 * finite. The common path is closed_form_quaternion_lanes1; the matrices it leaves (close to a
 * scaled reflection, or a nearly repeated eigenvalue) go to Jacobi. */
static void closed_form_quaternion(const double C[9], double q[4])
{
    double a[9];
    if (!normalise(C, a)) {
        q[0] = 1.0;
        q[1] = q[2] = q[3] = 0.0;
        return;
    }
    if (closed_form_quaternion_lanes1(a, 0, q)) {
        double k[16];
        form_k_lanes1(a, 0.0, k);
        jacobi_dominant(k, q);
    }
}

void op_polar_rotation(const double C[9], double R[9])
{
    double q[4];
    closed_form_quaternion(C, q);
    quaternion_to_rotation_lanes1(q, R);
}

/* The four lanes of closed_form_rotation_lanes4 where the CPU has AVX; the lanes it marks away
 * (and all four without AVX) through op_polar_rotation, which gives each its bits. */
void op_polar_rotation4(const double *const C[4], double *const R[4])
{
    int alone = 0xf;
#if OP_SIMD_AVX
    if (op_simd_use_avx)
        alone = closed_form_rotation_lanes4(C, R);
#endif
    for (int lane = 0; lane < 4; ++lane)
        if (alone >> lane & 1)
            op_polar_rotation(C[lane], R[lane]);
}

/* R (and the unit quaternion) from a nonzero unnormalised quaternion o: the rotation's 2/|o|²
 * and the quaternion's 1/|o| are independent, so neither waits for the other. */
static void finish(const double o[4], double q[4], double R[9])
{
    quaternion_to_rotation_lanes1(o, R);
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
    quaternion_to_rotation_lanes1(q, r0);
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
#if OP_LANES2

typedef op_lanes2 v2;

#define VEC v2
#define LANES 2
#define LANES_NAME(name) name##_sse2
#define V_ADD op2_add
#define V_SUB op2_sub
#define V_MUL op2_mul
#define V_DIV _mm_div_pd
#define V_SQRT _mm_sqrt_pd
#define V_ALL op2_all
#define V_TRUE() _mm_castsi128_pd(_mm_set1_epi32(-1))
#define V_AND _mm_and_pd
#define V_ANDNOT _mm_andnot_pd
#define V_OR _mm_or_pd
#define V_GT _mm_cmpgt_pd
#define V_LE _mm_cmple_pd
#define V_LT _mm_cmplt_pd
#define V_MASK _mm_movemask_pd
#define V_STORE op2_store
#define V_LOAD op2_load
#define V_SELECT(mask, a, b) _mm_or_pd(_mm_and_pd(mask, a), _mm_andnot_pd(mask, b))
#include "kernels/polar_lanes.h"

/* out[k] = (a[k], b[k]) for k < count */
static inline void v2_gather(int count, const double *a, const double *b, v2 *out)
{
    int k = 0;
    for (; k + 1 < count; k += 2) {
        v2 x = op2_load(a + k), y = op2_load(b + k);
        out[k] = op2_interleave_low(x, y);
        out[k + 1] = op2_interleave_high(x, y);
    }
    if (k < count)
        out[k] = op2_interleave_low(op2_load_low(a + k), op2_load_low(b + k));
}

/* a[k] = lane 0 of in[k], b[k] = lane 1 */
static inline void v2_scatter(int count, const v2 *in, double *a, double *b)
{
    int k = 0;
    for (; k + 1 < count; k += 2) {
        op2_store(a + k, op2_interleave_low(in[k], in[k + 1]));
        op2_store(b + k, op2_interleave_high(in[k], in[k + 1]));
    }
    if (k < count) {
        op2_store_low(a + k, in[k]);
        op2_store_high(b + k, in[k]);
    }
}

#if OP_SIMD_AVX
OP_SIMD_AVX_BEGIN

#define VEC op_lanes4
#define LANES 4
#define LANES_NAME(name) name##_avx
#define V_ADD op4_add
#define V_SUB op4_sub
#define V_MUL op4_mul
#define V_DIV op4_div
#define V_SQRT op4_sqrt
#define V_ALL op4_all
#define V_TRUE() _mm256_castsi256_pd(_mm256_set1_epi32(-1))
#define V_AND op4_and_mask
#define V_ANDNOT _mm256_andnot_pd
#define V_OR op4_or_mask
#define V_GT op4_gt
#define V_LE op4_le
#define V_LT op4_lt
#define V_MASK op4_bits
#define V_STORE op4_store
#define V_LOAD op4_load
#define V_SELECT(mask, a, b) _mm256_or_pd(_mm256_and_pd(mask, a), _mm256_andnot_pd(mask, b))
#include "kernels/polar_lanes.h"

/* op_polar_rotation_warm4_lanes in one group of four AVX lanes: the pairs' halves (p0, p1) and
 * (p2, p3) joined into one register per entry on the way in, split on the way out. */
static void warm4_avx(const double C[36], double *const q[4], double R[36])
{
    op_lanes4 c[1][9], lanes[1][4], r[1][9];
    for (int k = 0; k < 9; ++k)
        c[0][k] = op4_join(op2_load(C + 2 * k), op2_load(C + 18 + 2 * k));
    for (int k = 0; k < 4; ++k)
        lanes[0][k] = op4_set(q[0][k], q[1][k], q[2][k], q[3][k]);
    polar_rotation_warm_avx(1, c, lanes, r);
    for (int k = 0; k < 9; ++k) {
        op2_store(R + 2 * k, op4_low(r[0][k]));
        op2_store(R + 18 + 2 * k, op4_high(r[0][k]));
    }
    double out[4][4];
    for (int k = 0; k < 4; ++k)
        op4_store(out[k], lanes[0][k]);
    for (int m = 0; m < 4; ++m)
        for (int k = 0; k < 4; ++k)
            q[m][k] = out[k][m];
}

/* op_polar_rotation_warm8_lanes: two groups of warm4_avx's layout, their latency chains side
 * by side */
static void warm8_avx(const double C[72], double *const q[8], double R[72])
{
    op_lanes4 c[2][9], lanes[2][4], r[2][9];
    for (int w = 0; w < 2; ++w) {
        const double *in = C + 36 * w;
        for (int k = 0; k < 9; ++k)
            c[w][k] = op4_join(op2_load(in + 2 * k), op2_load(in + 18 + 2 * k));
        for (int k = 0; k < 4; ++k)
            lanes[w][k] = op4_set(q[4 * w][k], q[4 * w + 1][k], q[4 * w + 2][k], q[4 * w + 3][k]);
    }
    polar_rotation_warm_avx(2, c, lanes, r);
    for (int w = 0; w < 2; ++w) {
        double *out = R + 36 * w;
        for (int k = 0; k < 9; ++k) {
            op2_store(out + 2 * k, op4_low(r[w][k]));
            op2_store(out + 18 + 2 * k, op4_high(r[w][k]));
        }
        double lane[4][4];
        for (int k = 0; k < 4; ++k)
            op4_store(lane[k], lanes[w][k]);
        for (int m = 0; m < 4; ++m)
            for (int k = 0; k < 4; ++k)
                q[4 * w + m][k] = lane[k][m];
    }
}

static void warm4_interleaved_avx(const double C[36], double q[16], double R[36])
{
    op_lanes4 c[1][9], lanes[1][4], r[1][9];
    for (int k = 0; k < 9; ++k)
        c[0][k] = op4_load(C + 4 * k);
    for (int k = 0; k < 4; ++k)
        lanes[0][k] = op4_load(q + 4 * k);
    polar_rotation_warm_avx(1, c, lanes, r);
    for (int k = 0; k < 9; ++k)
        op4_store(R + 4 * k, r[0][k]);
    for (int k = 0; k < 4; ++k)
        op4_store(q + 4 * k, lanes[0][k]);
}

static void warm8_interleaved_avx(const double C[72], double *const q[2], double R[72])
{
    op_lanes4 c[2][9], lanes[2][4], r[2][9];
    for (int w = 0; w < 2; ++w) {
        for (int k = 0; k < 9; ++k)
            c[w][k] = op4_load(C + 36 * w + 4 * k);
        for (int k = 0; k < 4; ++k)
            lanes[w][k] = op4_load(q[w] + 4 * k);
    }
    polar_rotation_warm_avx(2, c, lanes, r);
    for (int w = 0; w < 2; ++w) {
        for (int k = 0; k < 9; ++k)
            op4_store(R + 36 * w + 4 * k, r[w][k]);
        for (int k = 0; k < 4; ++k)
            op4_store(q[w] + 4 * k, lanes[w][k]);
    }
}
OP_SIMD_AVX_END
#endif

#if OP_SIMD_AVX
OP_SIMD_AVX512_BEGIN
/* The same kernel in eight AVX-512 lanes (F and DQ: the masks kept as vectors, as the SSE2 and
 * AVX kernels keep them), for eight matrices in one group of registers: half the instructions
 * of two AVX groups. */
#define VEC op_lanes8
#define LANES 8
#define LANES_NAME(name) name##_avx512
#define V_ADD op8_add
#define V_SUB op8_sub
#define V_MUL op8_mul
#define V_DIV _mm512_div_pd
#define V_SQRT _mm512_sqrt_pd
#define V_ALL op8_all
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
#define V_STORE op8_store
#define V_LOAD op8_load
#define V_SELECT(mask, a, b) _mm512_or_pd(_mm512_and_pd(mask, a), _mm512_andnot_pd(mask, b))
#include "kernels/polar_lanes.h"
#undef V_COMPARE

/* warm8_avx in one group of eight lanes: the four pairs joined into one register per entry */
static void warm8_avx512(const double C[72], double *const q[8], double R[72])
{
    op_lanes8 c[1][9], lanes[1][4], r[1][9];
    for (int k = 0; k < 9; ++k) {
        op_lanes4 low = op4_join(op2_load(C + 2 * k), op2_load(C + 18 + 2 * k));
        op_lanes4 high = op4_join(op2_load(C + 36 + 2 * k), op2_load(C + 54 + 2 * k));
        c[0][k] = op8_join(low, high);
    }
    for (int k = 0; k < 4; ++k)
        lanes[0][k] =
            op8_join(op4_set(q[0][k], q[1][k], q[2][k], q[3][k]), op4_set(q[4][k], q[5][k], q[6][k], q[7][k]));
    polar_rotation_warm_avx512(1, c, lanes, r);
    for (int k = 0; k < 9; ++k) {
        op_lanes4 low = op8_low(r[0][k]), high = op8_high(r[0][k]);
        op2_store(R + 2 * k, op4_low(low));
        op2_store(R + 18 + 2 * k, op4_high(low));
        op2_store(R + 36 + 2 * k, op4_low(high));
        op2_store(R + 54 + 2 * k, op4_high(high));
    }
    double out[4][8];
    for (int k = 0; k < 4; ++k)
        op8_store(out[k], lanes[0][k]);
    for (int m = 0; m < 8; ++m)
        for (int k = 0; k < 4; ++k)
            q[m][k] = out[k][m];
}

/* op_polar_rotation_warm16_lanes: two groups of warm8_avx512's layout, their latency chains side
 * by side */
static void warm16_avx512(const double C[144], double *const q[16], double R[144])
{
    op_lanes8 c[2][9], lanes[2][4], r[2][9];
    for (int w = 0; w < 2; ++w) {
        const double *in = C + 72 * w;
        double *const *qs = q + 8 * w;
        for (int k = 0; k < 9; ++k) {
            op_lanes4 low = op4_join(op2_load(in + 2 * k), op2_load(in + 18 + 2 * k));
            op_lanes4 high = op4_join(op2_load(in + 36 + 2 * k), op2_load(in + 54 + 2 * k));
            c[w][k] = op8_join(low, high);
        }
        for (int k = 0; k < 4; ++k)
            lanes[w][k] = op8_join(op4_set(qs[0][k], qs[1][k], qs[2][k], qs[3][k]),
                                   op4_set(qs[4][k], qs[5][k], qs[6][k], qs[7][k]));
    }
    polar_rotation_warm_avx512(2, c, lanes, r);
    for (int w = 0; w < 2; ++w) {
        double *out = R + 72 * w;
        for (int k = 0; k < 9; ++k) {
            op_lanes4 low = op8_low(r[w][k]), high = op8_high(r[w][k]);
            op2_store(out + 2 * k, op4_low(low));
            op2_store(out + 18 + 2 * k, op4_high(low));
            op2_store(out + 36 + 2 * k, op4_low(high));
            op2_store(out + 54 + 2 * k, op4_high(high));
        }
        double lane[4][8];
        for (int k = 0; k < 4; ++k)
            op8_store(lane[k], lanes[w][k]);
        for (int m = 0; m < 8; ++m)
            for (int k = 0; k < 4; ++k)
                q[8 * w + m][k] = lane[k][m];
    }
}

/* warm8_interleaved_avx in one group of eight lanes: the two fours' registers joined */
static void warm8_interleaved_avx512(const double C[72], double *const q[2], double R[72])
{
    op_lanes8 c[1][9], lanes[1][4], r[1][9];
    for (int k = 0; k < 9; ++k)
        c[0][k] = op8_join(op4_load(C + 4 * k), op4_load(C + 36 + 4 * k));
    for (int k = 0; k < 4; ++k)
        lanes[0][k] = op8_join(op4_load(q[0] + 4 * k), op4_load(q[1] + 4 * k));
    polar_rotation_warm_avx512(1, c, lanes, r);
    for (int k = 0; k < 9; ++k) {
        op4_store(R + 4 * k, op8_low(r[0][k]));
        op4_store(R + 36 + 4 * k, op8_high(r[0][k]));
    }
    for (int k = 0; k < 4; ++k) {
        op4_store(q[0] + 4 * k, op8_low(lanes[0][k]));
        op4_store(q[1] + 4 * k, op8_high(lanes[0][k]));
    }
}

/* op_polar_rotation_warm16_interleaved: four fours in two groups of eight lanes (fours 0, 1 and
 * 2, 3 each joined as warm8_interleaved_avx512 joins them), their latency chains side by side */
static void warm16_interleaved_avx512(const double C[144], double *const q[4], double R[144])
{
    op_lanes8 c[2][9], lanes[2][4], r[2][9];
    for (int w = 0; w < 2; ++w) {
        const double *in = C + 72 * w;
        for (int k = 0; k < 9; ++k)
            c[w][k] = op8_join(op4_load(in + 4 * k), op4_load(in + 36 + 4 * k));
        for (int k = 0; k < 4; ++k)
            lanes[w][k] = op8_join(op4_load(q[2 * w] + 4 * k), op4_load(q[2 * w + 1] + 4 * k));
    }
    polar_rotation_warm_avx512(2, c, lanes, r);
    for (int w = 0; w < 2; ++w) {
        double *out = R + 72 * w;
        for (int k = 0; k < 9; ++k) {
            op4_store(out + 4 * k, op8_low(r[w][k]));
            op4_store(out + 36 + 4 * k, op8_high(r[w][k]));
        }
        for (int k = 0; k < 4; ++k) {
            op4_store(q[2 * w] + 4 * k, op8_low(lanes[w][k]));
            op4_store(q[2 * w + 1] + 4 * k, op8_high(lanes[w][k]));
        }
    }
}
OP_SIMD_AVX_END
#endif

void op_polar_rotation_warm2_lanes(const double C[18], double *const q[2], double R[18])
{
    v2 c[1][9], lanes[1][4], r[1][9];
    for (int k = 0; k < 9; ++k)
        c[0][k] = op2_load(C + 2 * k);
    v2_gather(4, q[0], q[1], lanes[0]);
    polar_rotation_warm_sse2(1, c, lanes, r);
    for (int k = 0; k < 9; ++k)
        op2_store(R + 2 * k, r[0][k]);
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
            c[w][k] = op2_load(C + 18 * w + 2 * k);
        v2_gather(4, q[2 * w], q[2 * w + 1], lanes[w]);
    }
    polar_rotation_warm_sse2(2, c, lanes, r);
    for (int w = 0; w < 2; ++w) {
        for (int k = 0; k < 9; ++k)
            op2_store(R + 18 * w + 2 * k, r[w][k]);
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
            c[w][k] = op2_load(C + 4 * k + 2 * w);
        for (int k = 0; k < 4; ++k)
            lanes[w][k] = op2_load(q + 4 * k + 2 * w);
    }
    polar_rotation_warm_sse2(2, c, lanes, r);
    for (int w = 0; w < 2; ++w) {
        for (int k = 0; k < 9; ++k)
            op2_store(R + 4 * k + 2 * w, r[w][k]);
        for (int k = 0; k < 4; ++k)
            op2_store(q + 4 * k + 2 * w, lanes[w][k]);
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
