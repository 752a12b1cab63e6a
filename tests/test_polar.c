/* Tests of core/kernels/polar.c: the fast polar rotation against the LAPACK SVD reference on generic,
 * near-rotation, inverted, rank-deficient, degenerate and extreme-scale matrices, plus known
 * answers that pin the conventions (row-major, maximising tr(Rᵀ C) over SO(3)) independently of
 * the reference. Each test prints the worst error it saw. */
#include <float.h>
#include <stdio.h>
#include <string.h>

#include "base/math3.h"
#include "kernels/polar.h"
#include "kernels/simd.h"
#include "test_util.h"

/* Every output must be a rotation to this accuracy. */
#define SO3_TOL 1e-13
/* Where the optimum is unique and well separated: entrywise agreement with the reference. */
#define UNIQUE_TOL 1e-9
/* Where it may not be unique: tr(Rᵀ C) may fall short of the reference's by this times ‖C‖_F. */
#define OBJECTIVE_TOL 1e-12

/* splitmix64, seeded per test so that tests do not depend on one another's draws */
typedef struct rng {
    uint64_t state;
} rng;

static double rng_uniform(rng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53;
}

static double rng_gaussian(rng *r)
{
    double u = 1.0 - rng_uniform(r);
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * rng_uniform(r));
}

static void quaternion_rotation(const double q[4], double r[9])
{
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

/* Uniform on SO(3): a Gaussian quaternion's direction is uniform on the 3-sphere. */
static void random_rotation(rng *g, double r[9])
{
    double q[4] = { rng_gaussian(g), rng_gaussian(g), rng_gaussian(g), rng_gaussian(g) };
    quaternion_rotation(q, r);
}

static void random_gaussian(rng *g, double c[9])
{
    for (int k = 0; k < 9; ++k)
        c[k] = rng_gaussian(g);
}

/* U diag(s1, s2, s3) Vᵀ with random rotations U, V: prescribed signed singular values. */
static void random_usv(rng *g, double s1, double s2, double s3, double c[9])
{
    double u[9], v[9], d[9] = { s1, 0, 0, 0, s2, 0, 0, 0, s3 };
    random_rotation(g, u);
    random_rotation(g, v);
    m3_mul(c, u, d);
    m3_mul_bt(c, c, v);
}

static double max_abs_diff(const double a[9], const double b[9])
{
    double e = 0.0;
    for (int k = 0; k < 9; ++k)
        e = fmax(e, fabs(a[k] - b[k]));
    return e;
}

/* The worst error over a test's matrices, for its closing message. */
typedef struct worst {
    double entry, shortfall, so3;
} worst;

static void check_rotation(const double r[9], const char *what, int i, worst *w)
{
    if (!m3_isfinite(r))
        fail_msg("%s #%d: output not finite", what, i);
    double e = fmax(m3_orthonormality_error(r), fabs(m3_det(r) - 1.0));
    if (!(e <= SO3_TOL))
        fail_msg("%s #%d: |R^T R - I| or |det R - 1| = %.3g > %g", what, i, e, SO3_TOL);
    w->so3 = fmax(w->so3, e);
}

static void reference(const double c[9], double r[9])
{
    assert_int_equal(op_polar_rotation_svd(c, r), 0);
}

/* Entrywise agreement with the reference, for matrices whose optimum is unique. */
static void check_matches_svd(const double c[9], double tol, const char *what, int i, worst *w)
{
    double r[9], ref[9];
    op_polar_rotation(c, r);
    reference(c, ref);
    check_rotation(r, what, i, w);
    double e = max_abs_diff(r, ref);
    if (!(e <= tol))
        fail_msg("%s #%d: max |R - R_svd| = %.3g > %g", what, i, e, tol);
    w->entry = fmax(w->entry, e);
}

/* tr(Rᵀ C) at least the reference's, up to rounding, for matrices whose optimum may not be
 * unique; returns the fast R. */
static void check_optimal(const double c[9], const char *what, int i, worst *w, double r[9])
{
    double ref[9];
    op_polar_rotation(c, r);
    reference(c, ref);
    check_rotation(r, what, i, w);
    double norm = sqrt(m3_frobenius2(c));
    double shortfall = m3_inner(ref, c) - m3_inner(r, c);
    if (!(shortfall <= OBJECTIVE_TOL * norm))
        fail_msg("%s #%d: tr(R^T C) falls %.3g short of the SVD optimum (|C| = %.3g)", what, i,
                 shortfall, norm);
    w->shortfall = fmax(w->shortfall, shortfall / norm);
}

/* entries: whether the test compared R entrywise (else through tr(Rᵀ C)) */
static void report(const char *what, const worst *w, int entries)
{
    if (entries)
        print_message("  %-34s max |R - R_ref| %.2e, max SO(3) error %.2e\n", what, w->entry, w->so3);
    else
        print_message("  %-34s max shortfall/|C| %.2e, max SO(3) error %.2e\n", what, w->shortfall, w->so3);
}

/* Answers known by hand, so a convention shared by both implementations cannot hide. */
static void test_known_answers(void **state)
{
    (void)state;
    static const double ident[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    /* det < 0: the optimum over SO(3) gives up the smallest singular value's axis. */
    static const double c1[9] = { 3, 0, 0, 0, 2, 0, 0, 0, -1 };
    static const double c2[9] = { -3, 0, 0, 0, 2, 0, 0, 0, 1 };
    static const double r2[9] = { -1, 0, 0, 0, 1, 0, 0, 0, -1 };
    double r[9];
    worst w = { 0 };
    for (int impl = 0; impl < 2; ++impl) {
        if (impl)
            reference(c1, r);
        else
            op_polar_rotation(c1, r);
        check_rotation(r, "diag(3,2,-1)", impl, &w);
        assert_true(max_abs_diff(r, ident) <= 1e-15);
        if (impl)
            reference(c2, r);
        else
            op_polar_rotation(c2, r);
        check_rotation(r, "diag(-3,2,1)", impl, &w);
        assert_true(max_abs_diff(r, r2) <= 1e-15);
    }
    /* C = Q S with S symmetric positive definite: the rotation is Q, not Qᵀ. */
    rng g = { 1 };
    for (int i = 0; i < 100; ++i) {
        double q[9], m[9], s[9], c[9];
        random_rotation(&g, q);
        random_gaussian(&g, m);
        m3_mul_at(s, m, m);
        s[0] += 0.5;
        s[4] += 0.5;
        s[8] += 0.5;
        m3_mul(c, q, s);
        op_polar_rotation(c, r);
        check_rotation(r, "Q S", i, &w);
        double e = max_abs_diff(r, q);
        if (!(e <= 1e-12))
            fail_msg("Q S #%d: max |R - Q| = %.3g", i, e);
        w.entry = fmax(w.entry, e);
    }
    report("known answers (vs exact)", &w, 1);
}

static void test_random_gaussian_matches_svd(void **state)
{
    (void)state;
    rng g = { 2 };
    worst w = { 0 };
    for (int i = 0; i < 10000; ++i) {
        double c[9];
        random_gaussian(&g, c);
        check_matches_svd(c, UNIQUE_TOL, "Gaussian", i, &w);
    }
    report("10000 Gaussian", &w, 1);
}

static void test_near_rotations_match_svd(void **state)
{
    (void)state;
    rng g = { 3 };
    worst w = { 0 };
    for (int i = 0; i < 2000; ++i) {
        double c[9];
        random_rotation(&g, c);
        for (int k = 0; k < 9; ++k)
            c[k] += 1e-3 * rng_gaussian(&g);
        check_matches_svd(c, UNIQUE_TOL, "near rotation", i, &w);
    }
    report("2000 near rotations (1e-3 noise)", &w, 1);
}

/* Rotation · diag(1, 1, −1) · S with S symmetric positive definite and well separated
 * eigenvalues, so det C < 0 and the sign-rectified optimum is unique. */
static void test_inverted_match_svd(void **state)
{
    (void)state;
    rng g = { 4 };
    worst w = { 0 };
    for (int i = 0; i < 2000; ++i) {
        double q[9], s[9], c[9];
        random_rotation(&g, q);
        for (int k = 0; k < 3; ++k)
            q[3 * k + 2] = -q[3 * k + 2];
        double v[9];
        random_rotation(&g, v);
        double d[9] = { 2.0 + rng_uniform(&g), 0, 0, 0, 1.0 + 0.5 * rng_uniform(&g), 0, 0, 0,
                        0.1 + 0.5 * rng_uniform(&g) };
        m3_mul(s, v, d);
        m3_mul_bt(s, s, v);
        m3_mul(c, q, s);
        assert_true(m3_det(c) < 0.0);
        check_matches_svd(c, UNIQUE_TOL, "inverted", i, &w);
    }
    report("2000 inverted", &w, 1);
}

static void test_exact_rotations_reproduced(void **state)
{
    (void)state;
    /* identity, half turns about the axes and a diagonal, quarter turns: special quaternions */
    static const double quats[][4] = {
        { 1, 0, 0, 0 }, { 0, 1, 0, 0 }, { 0, 0, 1, 0 }, { 0, 0, 0, 1 }, { 0, 1, 1, 1 },
        { 1, 1, 0, 0 }, { 1, 0, 1, 0 }, { 1, 0, 0, -1 }, { 0, 1, -2, 0.5 },
    };
    rng g = { 5 };
    worst w = { 0 };
    int n_special = (int)(sizeof quats / sizeof quats[0]);
    for (int i = 0; i < n_special + 2000; ++i) {
        double c[9], r[9];
        if (i < n_special)
            quaternion_rotation(quats[i], c);
        else
            random_rotation(&g, c);
        op_polar_rotation(c, r);
        check_rotation(r, "rotation", i, &w);
        double e = max_abs_diff(r, c);
        if (!(e <= 1e-14))
            fail_msg("rotation #%d: max |R - C| = %.3g > 1e-14", i, e);
        w.entry = fmax(w.entry, e);
    }
    report("exact rotations (vs C itself)", &w, 1);
}

/* Rank 2: particles lying in a plane. */
static void test_flat_optimal(void **state)
{
    (void)state;
    rng g = { 6 };
    worst w = { 0 };
    double r[9];
    for (int i = 0; i < 3000; ++i) {
        double c[9], a[3], b[3];
        switch (i % 3) {
        case 0:
            random_usv(&g, 0.5 + rng_uniform(&g), 0.5 * rng_uniform(&g), 0.0, c);
            break;
        case 1: /* a sum of two outer products, as a moment matrix of coplanar points */
            m3_zero(c);
            for (int t = 0; t < 2; ++t) {
                for (int k = 0; k < 3; ++k) {
                    a[k] = rng_gaussian(&g);
                    b[k] = rng_gaussian(&g);
                }
                m3_add_outer(c, 1.0, a, b);
            }
            break;
        default: /* exactly zero third row and column; equal singular values every 4th time */
            random_gaussian(&g, c);
            c[2] = c[5] = c[6] = c[7] = c[8] = 0.0;
            if (i % 4 == 2) {
                c[0] = c[4] = 1.0;
                c[1] = c[3] = 0.0;
            }
            break;
        }
        check_optimal(c, "flat", i, &w, r);
    }
    report("3000 flat (rank 2)", &w, 0);
}

static void test_rank1_optimal(void **state)
{
    (void)state;
    rng g = { 7 };
    worst w = { 0 };
    double r[9], a[3], b[3];
    for (int i = 0; i < 2000; ++i) {
        double c[9] = { 0 };
        for (int k = 0; k < 3; ++k) {
            a[k] = rng_gaussian(&g);
            b[k] = i % 2 ? rng_gaussian(&g) : (k == i % 3);
        }
        m3_add_outer(c, 1.0, a, b);
        check_optimal(c, "rank 1", i, &w, r);
    }
    report("2000 rank 1", &w, 0);
}

static void test_zero_gives_identity(void **state)
{
    (void)state;
    static const double ident[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    double c[9] = { 0 }, r[9];
    c[4] = -0.0;
    op_polar_rotation(c, r);
    assert_memory_equal(r, ident, sizeof ident);
}

static void test_nonfinite_gives_identity(void **state)
{
    (void)state;
    static const double ident[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    const double bad[3] = { NAN, INFINITY, -INFINITY };
    rng g = { 8 };
    for (int i = 0; i < 27; ++i) {
        double c[9], r[9];
        random_gaussian(&g, c);
        c[i % 9] = bad[i / 9];
        op_polar_rotation(c, r);
        assert_memory_equal(r, ident, sizeof ident);
    }
}

/* Nearly repeated top eigenvalues of K, where the closed form hands over to Jacobi: scaled
 * reflections (triple), det C < 0 with σ₂ ≈ σ₃ (double) and nearly rank 1 (double). */
static void test_degenerate_optimal(void **state)
{
    (void)state;
    rng g = { 9 };
    worst w = { 0 };
    double r[9];
    for (int i = 0; i < 4000; ++i) {
        double c[9], e = pow(10.0, -16.0 * rng_uniform(&g));
        switch (i % 4) {
        case 0: /* an exact reflection */
            random_rotation(&g, c);
            for (int k = 0; k < 3; ++k)
                c[3 * k + 2] = -c[3 * k + 2];
            break;
        case 1:
            random_usv(&g, 1.0 + e * rng_gaussian(&g), 1.0 + e * rng_gaussian(&g), -1.0 - e * rng_gaussian(&g), c);
            break;
        case 2: {
            double s = rng_uniform(&g);
            random_usv(&g, 1.0, s, -s - e * rng_gaussian(&g), c);
            break;
        }
        default:
            random_usv(&g, 1.0, e * rng_uniform(&g), e * rng_gaussian(&g), c);
            break;
        }
        check_optimal(c, "degenerate", i, &w, r);
    }
    report("4000 degenerate (Jacobi fallback)", &w, 0);
}

/* Exact power-of-two scalings must give the bitwise same R, whichever normalisation path they
 * take; decimal ones the same to rounding. Extreme entries still give a rotation. */
static void test_scale_invariance(void **state)
{
    (void)state;
    static const int pow2[] = { 332, -332, 498, -498, 960, -960 };
    static const double dec[] = { 1e100, 1e-100, 1e150, 1e-150 };
    rng g = { 10 };
    worst w = { 0 };
    for (int i = 0; i < 1000; ++i) {
        double c[9], s[9], r[9], rs[9];
        if (i % 2)
            random_gaussian(&g, c);
        else
            random_usv(&g, 1.0, 0.5, -0.3, c);
        op_polar_rotation(c, r);
        for (int j = 0; j < 6; ++j) {
            for (int k = 0; k < 9; ++k)
                s[k] = ldexp(c[k], pow2[j]);
            op_polar_rotation(s, rs);
            if (memcmp(r, rs, sizeof r) != 0)
                fail_msg("#%d: C * 2^%d gives a different R (max diff %.3g)", i, pow2[j], max_abs_diff(r, rs));
        }
        for (int j = 0; j < 4; ++j) {
            m3_scale(s, c, dec[j]);
            op_polar_rotation(s, rs);
            check_rotation(rs, "scaled", i, &w);
            double e = max_abs_diff(r, rs);
            if (!(e <= UNIQUE_TOL))
                fail_msg("#%d: C * %g changes R by %.3g", i, dec[j], e);
            w.entry = fmax(w.entry, e);
        }
    }
    /* entries at the ends of the double range, alone and mixed */
    static const double extreme[][9] = {
        { DBL_MAX, -DBL_MAX, 0, DBL_MAX, DBL_MAX, 0, 0, 0, -DBL_MAX },
        { 4.9e-324, 0, 0, 0, 4.9e-324, 0, 0, 0, 4.9e-324 },
        { 1e300, 1e-300, 0, -1e-300, 1e300, 0, 0, 0, 1e-300 },
        { 2.2e-308, -1e-310, 3e-309, 1e-320, 2e-308, 0, -5e-309, 0, 1.5e-308 },
    };
    for (int i = 0; i < 4; ++i) {
        double r[9];
        op_polar_rotation(extreme[i], r);
        check_rotation(r, "extreme", i, &w);
    }
    report("scaled (vs unscaled)", &w, 1);
}

/* No rotation does better than R: 1000 random ones, and small turns of R itself (first order
 * optimality, which a slightly wrong R fails at any scale). */
static void test_beats_random_rotations(void **state)
{
    (void)state;
    rng g = { 11 };
    worst w = { 0 };
    double max_gain = -INFINITY;
    for (int i = 0; i < 40; ++i) {
        double c[9], r[9];
        if (i % 2)
            random_gaussian(&g, c);
        else
            random_usv(&g, 1.0 + rng_uniform(&g), rng_uniform(&g), -rng_uniform(&g), c);
        op_polar_rotation(c, r);
        check_rotation(r, "beats", i, &w);
        double best = m3_inner(r, c), norm = sqrt(m3_frobenius2(c));
        for (int t = 0; t < 1000; ++t) {
            double q[9];
            random_rotation(&g, q);
            double gain = m3_inner(q, c) - best;
            if (!(gain <= OBJECTIVE_TOL * norm))
                fail_msg("#%d: a random rotation beats R by %.3g", i, gain);
            max_gain = fmax(max_gain, gain / norm);
        }
        for (int axis = 0; axis < 3; ++axis)
            for (int sign = -1; sign <= 1; sign += 2) {
                double dq[4] = { 1, 0, 0, 0 }, d[9], q[9];
                dq[1 + axis] = sign * 1e-4;
                quaternion_rotation(dq, d);
                m3_mul(q, r, d);
                double gain = m3_inner(q, c) - best;
                if (!(gain <= OBJECTIVE_TOL * norm))
                    fail_msg("#%d: turning R by 2e-4 rad about axis %d gains %.3g", i, axis, gain);
                max_gain = fmax(max_gain, gain / norm);
            }
    }
    print_message("  %-34s max gain of another rotation/|C| %.2e, max SO(3) error %.2e\n",
                  "40 x (1000 random + 6 nearby)", max_gain, w.so3);
}

/* A unit quaternion of the rotation r, and one turned away from it by about `angle` radians
 * about a random axis: the warm starts the solver gives op_polar_rotation_warm. */
static void nearby_quaternion(rng *g, const double r[9], double angle, double q[4])
{
    op_rotation_quaternion(r, q);
    double axis[3] = { rng_gaussian(g), rng_gaussian(g), rng_gaussian(g) };
    double norm = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    double h = 0.5 * angle * rng_uniform(g), sh = sin(h) / norm;
    double d[4] = { cos(h), sh * axis[0], sh * axis[1], sh * axis[2] }, o[4];
    o[0] = q[0] * d[0] - q[1] * d[1] - q[2] * d[2] - q[3] * d[3];
    o[1] = q[0] * d[1] + q[1] * d[0] + q[2] * d[3] - q[3] * d[2];
    o[2] = q[0] * d[2] - q[1] * d[3] + q[2] * d[0] + q[3] * d[1];
    o[3] = q[0] * d[3] + q[1] * d[2] - q[2] * d[1] + q[3] * d[0];
    for (int k = 0; k < 4; ++k)
        q[k] = o[k];
}

/* op_polar_rotation_warm from q against the reference; q must come back the unit quaternion
 * of R. */
static void check_warm_matches_svd(const double c[9], double q[4], const char *what, int i, worst *w)
{
    double r[9], ref[9], rq[9];
    op_polar_rotation_warm(c, q, r);
    reference(c, ref);
    check_rotation(r, what, i, w);
    double e = max_abs_diff(r, ref);
    if (!(e <= UNIQUE_TOL))
        fail_msg("%s #%d: max |R - R_svd| = %.3g > %g", what, i, e, UNIQUE_TOL);
    w->entry = fmax(w->entry, e);
    double norm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(fabs(norm - 1.0) <= 1e-15))
        fail_msg("%s #%d: returned quaternion has length %.17g", what, i, norm);
    /* R comes from the unnormalised quaternion and rq from the normalised one: a few roundings
     * apart (1.11e-15, 5 ulp of 1, on an AMD EPYC whose libm's FMA paths draw other random
     * matrices than the Intel machines' did) */
    quaternion_rotation(q, rq);
    if (!(max_abs_diff(rq, r) <= 2e-15))
        fail_msg("%s #%d: returned quaternion is not R's (%.3g)", what, i, max_abs_diff(rq, r));
}

/* The three families the closed form is tested on (Gaussian, near rotation, inverted), each from
 * a random warm start and from good ones (the answer turned by up to 1e-4, 1e-2 and 0.3 rad). */
static void warm_family(rng *g, int family, double c[9])
{
    if (family == 0) {
        random_gaussian(g, c);
    } else if (family == 1) {
        random_rotation(g, c);
        for (int k = 0; k < 9; ++k)
            c[k] += 1e-3 * rng_gaussian(g);
    } else {
        double q[9], v[9], s[9];
        random_rotation(g, q);
        for (int k = 0; k < 3; ++k)
            q[3 * k + 2] = -q[3 * k + 2];
        random_rotation(g, v);
        double d[9] = { 2.0 + rng_uniform(g), 0, 0, 0, 1.0 + 0.5 * rng_uniform(g), 0, 0, 0, 0.1 + 0.5 * rng_uniform(g) };
        m3_mul(s, v, d);
        m3_mul_bt(s, s, v);
        m3_mul(c, q, s);
    }
}

static void test_warm_matches_svd(void **state)
{
    (void)state;
    static const char *const families[3] = { "Gaussian", "near rotation", "inverted" };
    static const double angles[3] = { 1e-4, 1e-2, 0.3 };
    rng g = { 21 };
    for (int family = 0; family < 3; ++family) {
        worst w = { 0 };
        for (int i = 0; i < 2000; ++i) {
            double c[9], ref[9], q[4];
            warm_family(&g, family, c);
            /* from a random start */
            double random_start[4] = { rng_gaussian(&g), rng_gaussian(&g), rng_gaussian(&g), rng_gaussian(&g) };
            check_warm_matches_svd(c, random_start, families[family], i, &w);
            /* from good starts */
            reference(c, ref);
            for (int a = 0; a < 3; ++a) {
                nearby_quaternion(&g, ref, angles[a], q);
                check_warm_matches_svd(c, q, families[family], i, &w);
            }
            /* from its own answer, as the solver's next iteration would */
            check_warm_matches_svd(c, q, families[family], i, &w);
        }
        char what[64];
        snprintf(what, sizeof what, "warm, 2000 %s x 5 starts", families[family]);
        report(what, &w, 1);
    }
}

/* A body at rest: C symmetric positive definite and the previous rotation the identity. The
 * warm start must give exactly the identity (the solver's exact-rest property), iteration after
 * iteration: q comes back (w, 0, 0, 0) with w > 0 (its length may round away from 1, which
 * R(q) does not see). */
static void test_warm_identity_exact_at_rest(void **state)
{
    (void)state;
    rng g = { 22 };
    for (int i = 0; i < 2000; ++i) {
        double m[9], c[9], r[9];
        random_gaussian(&g, m);
        m3_mul_at(c, m, m);
        double lift = i % 2 ? 1e-3 : 0.5;
        c[0] += lift;
        c[4] += lift;
        c[8] += lift;
        double scale = ldexp(1.0, (int)(40 * rng_uniform(&g)) - 20);
        m3_scale(c, c, scale);
        double q[4] = { 1, 0, 0, 0 };
        for (int iteration = 0; iteration < 3; ++iteration) {
            op_polar_rotation_warm(c, q, r);
            for (int k = 0; k < 9; ++k)
                if (!(r[k] == (k % 4 == 0 ? 1.0 : 0.0)))
                    fail_msg("SPD #%d, call %d: R[%d] = %.17g, not the identity's", i, iteration, k, r[k]);
            if (!(q[0] > 0.0 && q[1] == 0.0 && q[2] == 0.0 && q[3] == 0.0))
                fail_msg("SPD #%d, call %d: q = (%.17g %.17g %.17g %.17g), not (w 0 0 0)", i, iteration, q[0], q[1],
                         q[2], q[3]);
        }
    }
}

/* The world's prediction Y = R + h Ṙ projected by op_polar_rotation_predicted: polar(Y) to
 * rounding when Ṙ is the difference of two rotations (turns up to 120° a sub-step) or a spin
 * [ω]× R; a rotation for any other Ṙ, within O(|h Ṙ|²) of polar(Y); the closed form beyond
 * 120°. */
static void test_predicted_rotation_is_polar_of_prediction(void **state)
{
    (void)state;
    rng g = { 23 };
    worst w = { 0 };
    double worst_two = 0.0, worst_spin = 0.0;
    for (int i = 0; i < 3000; ++i) {
        double r[9], y[9], out[9], ref[9], turn[9];
        random_rotation(&g, r);
        double axis[3] = { rng_gaussian(&g), rng_gaussian(&g), rng_gaussian(&g) };
        v3_scale(axis, axis, 1.0 / v3_norm(axis));
        int family = i % 3;
        double angle = (i % 2 ? 1e-4 : 1.0) * 3.0 * rng_uniform(&g); /* radians, up to 172° */
        if (family == 0) { /* Y = 2R − R_start, R_start = R Rot(axis, −angle) */
            double q[4] = { cos(-0.5 * angle), sin(-0.5 * angle) * axis[0], sin(-0.5 * angle) * axis[1],
                            sin(-0.5 * angle) * axis[2] };
            quaternion_rotation(q, turn);
            m3_mul(turn, r, turn);
            for (int k = 0; k < 9; ++k)
                y[k] = 2.0 * r[k] - turn[k];
        } else if (family == 1) { /* Y = R + h [ω]× R */
            double spin[9], omega[3];
            v3_scale(omega, axis, angle);
            m3_cross_matrix(spin, omega);
            m3_mul(turn, spin, r);
            m3_add(y, r, turn);
        } else { /* any small rate */
            double rate[9];
            random_gaussian(&g, rate);
            for (int k = 0; k < 9; ++k)
                y[k] = r[k] + 1e-3 * rate[k];
        }
        op_polar_rotation_predicted(r, y, out);
        check_rotation(out, "predicted", i, &w);
        op_polar_rotation(y, ref);
        double e = max_abs_diff(out, ref);
        if (family == 2) {
            if (!(e <= 1e-5))
                fail_msg("any rate #%d: |R - polar(Y)| = %.3g, not O(1e-6)", i, e);
            continue;
        }
        if (!(e <= 1e-14))
            fail_msg("%s #%d (turn %.3g rad): |R - polar(Y)| = %.3g", family ? "spin" : "two rotations", i, angle, e);
        if (family == 0)
            worst_two = fmax(worst_two, e);
        else
            worst_spin = fmax(worst_spin, e);
    }
    print_message("  3000 predictions                   max |R - polar(Y)| %.2e (two rotations), %.2e (spin), "
                  "max SO(3) error %.2e\n",
                  worst_two, worst_spin, w.so3);
}

/* Starts from which the Newton iteration cannot be certified: the zero and non-finite
 * quaternions, the answer turned by a half turn, and a start for the opposite of an inverted
 * C. The closed form must take over and give the same rotation. */
static void test_warm_falls_back_from_bad_starts(void **state)
{
    (void)state;
    rng g = { 23 };
    worst w = { 0 };
    for (int i = 0; i < 2000; ++i) {
        double c[9], ref[9], q[4];
        warm_family(&g, i % 3, c);
        reference(c, ref);
        double zero[4] = { 0, 0, 0, 0 }, nan[4] = { NAN, 0, 0, 0 }, inf[4] = { 1, INFINITY, 0, 0 };
        check_warm_matches_svd(c, zero, "zero start", i, &w);
        check_warm_matches_svd(c, nan, "NaN start", i, &w);
        check_warm_matches_svd(c, inf, "infinite start", i, &w);
        /* half a turn away: w = 0 in the answer's frame */
        op_rotation_quaternion(ref, q);
        double axis[3] = { rng_gaussian(&g), rng_gaussian(&g), rng_gaussian(&g) };
        double flip[4] = { -q[1] * axis[0] - q[2] * axis[1] - q[3] * axis[2], q[0] * axis[0] + q[2] * axis[2] - q[3] * axis[1],
                           q[0] * axis[1] - q[1] * axis[2] + q[3] * axis[0], q[0] * axis[2] + q[1] * axis[1] - q[2] * axis[0] };
        check_warm_matches_svd(c, flip, "half turn away", i, &w);
        /* the start of −C: the answer for the negated matrix */
        double negated[9], other[9];
        m3_scale(negated, c, -1.0);
        reference(negated, other);
        op_rotation_quaternion(other, q);
        check_warm_matches_svd(c, q, "start of -C", i, &w);
    }
    report("warm, 2000 x 5 bad starts", &w, 1);
}

/* op_polar_rotation_warm2_lanes, _warm4_lanes, _warm8_lanes, _warm16_lanes, _warm4_interleaved,
 * _warm8_interleaved and _warm16_interleaved, the four-lane ones in SSE2 lanes and, where the CPU has them, in AVX lanes and (the eight- and sixteen-lane
 * ones) in AVX-512 lanes: each lane bitwise the scalar call, whether its neighbour lanes certify,
 * iterate longer or fall back. */
/* op_polar_rotation4 against four op_polar_rotation calls, bit for bit, with every kind of
 * matrix in every lane: Gaussian, near rotations, inverted, a turn and a stretch as the rigid
 * fit's sums are, and those the closed form sends down its other paths (zero, not finite, norms
 * beyond its direct range, a scaled reflection, a rank-one and a flat matrix); with AVX and
 * without. */
static void test_rotation4_bitwise_scalar(void **state)
{
    (void)state;
    rng g = { 41 };
    enum { COUNT = 4000, KINDS = 10 };
    static double c[COUNT][9];
    for (int i = 0; i < COUNT; ++i) {
        int kind = (int)(KINDS * rng_uniform(&g));
        if (kind < 3) {
            warm_family(&g, kind, c[i]);
        } else if (kind == 3) { /* a turn of a few degrees times a symmetric stretch */
            double turn[9], q[4] = { 1.0, 0.02 * rng_gaussian(&g), 0.02 * rng_gaussian(&g), 0.02 * rng_gaussian(&g) };
            quaternion_rotation(q, turn);
            double stretch[9];
            random_gaussian(&g, stretch);
            m3_mul_bt(stretch, stretch, stretch);
            m3_mul(c[i], turn, stretch);
        } else if (kind == 4) {
            memset(c[i], 0, sizeof c[i]);
        } else if (kind == 5) {
            random_gaussian(&g, c[i]);
            c[i][(int)(9 * rng_uniform(&g))] = rng_uniform(&g) < 0.5 ? NAN : INFINITY;
        } else if (kind == 6) {
            random_gaussian(&g, c[i]);
            m3_scale(c[i], c[i], rng_uniform(&g) < 0.5 ? 1e160 : 1e-160);
        } else if (kind == 7) { /* −rotation: a scaled reflection, a triple eigenvalue */
            random_rotation(&g, c[i]);
            m3_scale(c[i], c[i], -(0.5 + rng_uniform(&g)));
        } else if (kind == 8) { /* rank one */
            double u[3] = { rng_gaussian(&g), rng_gaussian(&g), rng_gaussian(&g) };
            double v[3] = { rng_gaussian(&g), rng_gaussian(&g), rng_gaussian(&g) };
            for (int r = 0; r < 3; ++r)
                for (int k = 0; k < 3; ++k)
                    c[i][3 * r + k] = u[r] * v[k];
        } else { /* flat: rank two */
            random_gaussian(&g, c[i]);
            for (int r = 0; r < 3; ++r)
                c[i][3 * r + 2] = c[i][3 * r] + c[i][3 * r + 1];
        }
    }
    int avx_available = op_simd_avx(1);
    for (int vector = 0; vector <= avx_available; ++vector) {
        op_simd_avx(vector);
        for (int i = 0; i + 3 < COUNT; i += 4) {
            double r1[4][9], r4[4][9];
            const double *in[4] = { c[i], c[i + 1], c[i + 2], c[i + 3] };
            double *out[4] = { r4[0], r4[1], r4[2], r4[3] };
            op_polar_rotation4(in, out);
            for (int m = 0; m < 4; ++m) {
                op_polar_rotation(c[i + m], r1[m]);
                if (memcmp(r1[m], r4[m], sizeof r1[m]) != 0)
                    fail_msg("matrix %d, AVX %d: op_polar_rotation4 differs from op_polar_rotation", i + m, vector);
            }
        }
    }
    op_simd_avx(1);
}

static void test_warm_lanes_bitwise_scalar(void **state)
{
    (void)state;
    rng g = { 24 };
    enum { COUNT = 4000 };
    static double c[COUNT][9], start[COUNT][4];
    for (int i = 0; i < COUNT; ++i) {
        double ref[9];
        warm_family(&g, i % 3, c[i]);
        reference(c[i], ref);
        int kind = (int)(5 * rng_uniform(&g));
        if (kind == 0)
            for (int k = 0; k < 4; ++k)
                start[i][k] = rng_gaussian(&g);
        else if (kind == 1)
            start[i][0] = start[i][1] = start[i][2] = start[i][3] = 0.0;
        else
            nearby_quaternion(&g, ref, kind == 2 ? 1e-6 : kind == 3 ? 1e-2 : 0.5, start[i]);
    }
    int avx_available = op_simd_avx(1), avx512_available = op_simd_avx512(1);
    print_message("lanes checked %s\n", avx512_available ? "in SSE2, in AVX and with AVX-512"
                                         : avx_available  ? "in SSE2 and in AVX (no AVX-512 paths here)"
                                                          : "without AVX (no AVX paths here)");
    /* width 0: SSE2; 1: AVX; 2: AVX and AVX-512 */
    for (int width = 0; width <= avx_available + avx512_available; ++width) {
        op_simd_avx(width > 0);
        op_simd_avx512(width > 1);
        for (int i = 0; i + 3 < COUNT; i += 4) {
            double q1[4][4], r1[4][9], q2[4][4], r2lanes[36], q4[4][4], lanes[36], r4[36];
            double interleaved[36], q_interleaved[16], r_interleaved[36];
            for (int m = 0; m < 4; ++m) {
                memcpy(q1[m], start[i + m], sizeof q1[m]);
                memcpy(q2[m], start[i + m], sizeof q2[m]);
                memcpy(q4[m], start[i + m], sizeof q4[m]);
                op_polar_rotation_warm(c[i + m], q1[m], r1[m]);
                for (int k = 0; k < 9; ++k) {
                    lanes[18 * (m / 2) + 2 * k + m % 2] = c[i + m][k];
                    interleaved[4 * k + m] = c[i + m][k];
                }
                for (int k = 0; k < 4; ++k)
                    q_interleaved[4 * k + m] = start[i + m][k];
            }
            for (int h = 0; h < 2; ++h) {
                double *qs[2] = { q2[2 * h], q2[2 * h + 1] };
                op_polar_rotation_warm2_lanes(&lanes[18 * h], qs, &r2lanes[18 * h]);
            }
            double *qs[4] = { q4[0], q4[1], q4[2], q4[3] };
            op_polar_rotation_warm4_lanes(lanes, qs, r4);
            op_polar_rotation_warm4_interleaved(interleaved, q_interleaved, r_interleaved);
            for (int m = 0; m < 4; ++m) {
                assert_memory_equal(q1[m], q2[m], sizeof q1[m]);
                assert_memory_equal(q1[m], q4[m], sizeof q1[m]);
                for (int k = 0; k < 4; ++k)
                    assert_memory_equal(&q1[m][k], &q_interleaved[4 * k + m], sizeof(double));
                for (int k = 0; k < 9; ++k) {
                    assert_memory_equal(&r1[m][k], &r_interleaved[4 * k + m], sizeof(double));
                    assert_memory_equal(&r1[m][k], &r2lanes[18 * (m / 2) + 2 * k + m % 2], sizeof(double));
                    assert_memory_equal(&r1[m][k], &r4[18 * (m / 2) + 2 * k + m % 2], sizeof(double));
                }
            }
        }
        /* op_polar_rotation_warm8_interleaved and op_polar_rotation_warm8_lanes: matrices
         * i … i + 7, two fours */
        for (int i = 0; i + 7 < COUNT; i += 8) {
            double C8[72], q8[2][16], R8[72], q1[4], r1[9], lanes8[72], q8_lanes[8][4], R8_lanes[72];
            double *q_lanes[8];
            for (int m = 0; m < 8; ++m) {
                for (int k = 0; k < 9; ++k) {
                    C8[36 * (m / 4) + 4 * k + m % 4] = c[i + m][k];
                    lanes8[18 * (m / 2) + 2 * k + m % 2] = c[i + m][k];
                }
                for (int k = 0; k < 4; ++k)
                    q8[m / 4][4 * k + m % 4] = start[i + m][k];
                memcpy(q8_lanes[m], start[i + m], sizeof q8_lanes[m]);
                q_lanes[m] = q8_lanes[m];
            }
            double *halves[2] = { q8[0], q8[1] };
            op_polar_rotation_warm8_interleaved(C8, halves, R8);
            op_polar_rotation_warm8_lanes(lanes8, q_lanes, R8_lanes);
            for (int m = 0; m < 8; ++m) {
                memcpy(q1, start[i + m], sizeof q1);
                op_polar_rotation_warm(c[i + m], q1, r1);
                assert_memory_equal(q1, q8_lanes[m], sizeof q1);
                for (int k = 0; k < 4; ++k)
                    assert_memory_equal(&q1[k], &q8[m / 4][4 * k + m % 4], sizeof(double));
                for (int k = 0; k < 9; ++k) {
                    assert_memory_equal(&r1[k], &R8[36 * (m / 4) + 4 * k + m % 4], sizeof(double));
                    assert_memory_equal(&r1[k], &R8_lanes[18 * (m / 2) + 2 * k + m % 2], sizeof(double));
                }
            }
        }
        /* op_polar_rotation_warm16_interleaved: matrices i … i + 15, four fours */
        for (int i = 0; i + 15 < COUNT; i += 16) {
            double C16[144], q16[4][16], R16[144], q1[4], r1[9];
            for (int m = 0; m < 16; ++m) {
                for (int k = 0; k < 9; ++k)
                    C16[36 * (m / 4) + 4 * k + m % 4] = c[i + m][k];
                for (int k = 0; k < 4; ++k)
                    q16[m / 4][4 * k + m % 4] = start[i + m][k];
            }
            double *fours[4] = { q16[0], q16[1], q16[2], q16[3] };
            op_polar_rotation_warm16_interleaved(C16, fours, R16);
            for (int m = 0; m < 16; ++m) {
                memcpy(q1, start[i + m], sizeof q1);
                op_polar_rotation_warm(c[i + m], q1, r1);
                for (int k = 0; k < 4; ++k)
                    assert_memory_equal(&q1[k], &q16[m / 4][4 * k + m % 4], sizeof(double));
                for (int k = 0; k < 9; ++k)
                    assert_memory_equal(&r1[k], &R16[36 * (m / 4) + 4 * k + m % 4], sizeof(double));
            }
        }
        /* op_polar_rotation_warm16_lanes: matrices i … i + 15, two eights of pairs */
        for (int i = 0; i + 15 < COUNT; i += 16) {
            double C16[144], q16[16][4], R16[144], q1[4], r1[9];
            double *q_lanes[16];
            for (int m = 0; m < 16; ++m) {
                for (int k = 0; k < 9; ++k)
                    C16[18 * (m / 2) + 2 * k + m % 2] = c[i + m][k];
                memcpy(q16[m], start[i + m], sizeof q16[m]);
                q_lanes[m] = q16[m];
            }
            op_polar_rotation_warm16_lanes(C16, q_lanes, R16);
            for (int m = 0; m < 16; ++m) {
                memcpy(q1, start[i + m], sizeof q1);
                op_polar_rotation_warm(c[i + m], q1, r1);
                assert_memory_equal(q1, q16[m], sizeof q1);
                for (int k = 0; k < 9; ++k)
                    assert_memory_equal(&r1[k], &R16[18 * (m / 2) + 2 * k + m % 2], sizeof(double));
            }
        }
    }
    op_simd_avx(1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_answers),
        cmocka_unit_test(test_random_gaussian_matches_svd),
        cmocka_unit_test(test_near_rotations_match_svd),
        cmocka_unit_test(test_inverted_match_svd),
        cmocka_unit_test(test_exact_rotations_reproduced),
        cmocka_unit_test(test_flat_optimal),
        cmocka_unit_test(test_rank1_optimal),
        cmocka_unit_test(test_zero_gives_identity),
        cmocka_unit_test(test_nonfinite_gives_identity),
        cmocka_unit_test(test_degenerate_optimal),
        cmocka_unit_test(test_scale_invariance),
        cmocka_unit_test(test_beats_random_rotations),
        cmocka_unit_test(test_warm_matches_svd),
        cmocka_unit_test(test_warm_identity_exact_at_rest),
        cmocka_unit_test(test_warm_falls_back_from_bad_starts),
        cmocka_unit_test(test_predicted_rotation_is_polar_of_prediction),
        cmocka_unit_test(test_warm_lanes_bitwise_scalar),
        cmocka_unit_test(test_rotation4_bitwise_scalar),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
