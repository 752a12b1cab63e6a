/* Small fixed-size linear algebra on plain double arrays: vec3 = double[3], mat3 = double[9]
 * row-major (m[3*r + c]). Plain arrays keep the graph's structure-of-arrays storage directly
 * usable (particle i's rotation is &rotation[9*i]) without copies. */
#ifndef OPSIM_MATH3_H
#define OPSIM_MATH3_H

#include <math.h>
#include <string.h>

/* The larger (smaller) of a and b, b only when it is larger (smaller): fmax's (fmin's) value
 * whenever a is a number, b a number or NaN, but inlined: without -ffinite-math-only, which
 * opsim does not use, fmax and fmin are libm calls, and the contact loops make millions. */
static inline double op_max(double a, double b) { return b > a ? b : a; }
static inline double op_min(double a, double b) { return b < a ? b : a; }

static inline void v3_set(double out[3], double x, double y, double z) { out[0] = x; out[1] = y; out[2] = z; }
static inline void v3_copy(double out[3], const double a[3]) { memcpy(out, a, 3 * sizeof(double)); }
static inline void v3_add(double out[3], const double a[3], const double b[3])
{ out[0] = a[0] + b[0]; out[1] = a[1] + b[1]; out[2] = a[2] + b[2]; }
static inline void v3_sub(double out[3], const double a[3], const double b[3])
{ out[0] = a[0] - b[0]; out[1] = a[1] - b[1]; out[2] = a[2] - b[2]; }
static inline void v3_scale(double out[3], const double a[3], double s)
{ out[0] = a[0] * s; out[1] = a[1] * s; out[2] = a[2] * s; }
/* out += s * a */
static inline void v3_axpy(double out[3], double s, const double a[3])
{ out[0] += s * a[0]; out[1] += s * a[1]; out[2] += s * a[2]; }
static inline double v3_dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static inline double v3_norm(const double a[3]) { return sqrt(v3_dot(a, a)); }
static inline double v3_dist2(const double a[3], const double b[3])
{
    double d[3];
    v3_sub(d, a, b);
    return v3_dot(d, d);
}
static inline void v3_cross(double out[3], const double a[3], const double b[3])
{
    double r[3] = { a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0] };
    v3_copy(out, r);
}
/* Index of the point of points[count][3] nearest to p; ties to the lower index, -1 if none. */
static inline int v3_nearest(const double *points, int count, const double p[3])
{
    int best = -1;
    double best_d2 = INFINITY;
    for (int i = 0; i < count; ++i) {
        double d2 = v3_dist2(&points[3 * i], p);
        if (d2 < best_d2) {
            best_d2 = d2;
            best = i;
        }
    }
    return best;
}
static inline int v3_isfinite(const double a[3]) { return isfinite(a[0]) && isfinite(a[1]) && isfinite(a[2]); }

static inline void m3_copy(double out[9], const double a[9]) { memcpy(out, a, 9 * sizeof(double)); }
static inline void m3_identity(double out[9])
{
    static const double id[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    m3_copy(out, id);
}
/* [a]×, the matrix with [a]× b = a × b */
static inline void m3_cross_matrix(double out[9], const double a[3])
{
    double m[9] = { 0, -a[2], a[1], a[2], 0, -a[0], -a[1], a[0], 0 };
    m3_copy(out, m);
}
static inline void m3_zero(double out[9]) { memset(out, 0, 9 * sizeof(double)); }
static inline void m3_add(double out[9], const double a[9], const double b[9])
{ for (int k = 0; k < 9; ++k) out[k] = a[k] + b[k]; }
static inline void m3_sub(double out[9], const double a[9], const double b[9])
{ for (int k = 0; k < 9; ++k) out[k] = a[k] - b[k]; }
static inline void m3_scale(double out[9], const double a[9], double s)
{ for (int k = 0; k < 9; ++k) out[k] = a[k] * s; }
/* out += s * a */
static inline void m3_axpy(double out[9], double s, const double a[9])
{ for (int k = 0; k < 9; ++k) out[k] += s * a[k]; }
static inline void m3_transpose(double out[9], const double a[9])
{
    double t[9] = { a[0], a[3], a[6], a[1], a[4], a[7], a[2], a[5], a[8] };
    m3_copy(out, t);
}
/* out = a b (out may alias a or b) */
static inline void m3_mul(double out[9], const double a[9], const double b[9])
{
    double t[9];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            t[3 * r + c] = a[3 * r] * b[c] + a[3 * r + 1] * b[3 + c] + a[3 * r + 2] * b[6 + c];
    m3_copy(out, t);
}
/* out = a bᵀ */
static inline void m3_mul_bt(double out[9], const double a[9], const double b[9])
{
    double t[9];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            t[3 * r + c] = a[3 * r] * b[3 * c] + a[3 * r + 1] * b[3 * c + 1] + a[3 * r + 2] * b[3 * c + 2];
    m3_copy(out, t);
}
/* out = aᵀ b */
static inline void m3_mul_at(double out[9], const double a[9], const double b[9])
{
    double t[9];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            t[3 * r + c] = a[r] * b[c] + a[3 + r] * b[3 + c] + a[6 + r] * b[6 + c];
    m3_copy(out, t);
}
/* out = a v (out may alias v) */
static inline void m3_mul_v(double out[3], const double a[9], const double v[3])
{
    double t[3] = { a[0] * v[0] + a[1] * v[1] + a[2] * v[2], a[3] * v[0] + a[4] * v[1] + a[5] * v[2],
                    a[6] * v[0] + a[7] * v[1] + a[8] * v[2] };
    v3_copy(out, t);
}
/* out = aᵀ v */
static inline void m3_mul_tv(double out[3], const double a[9], const double v[3])
{
    double t[3] = { a[0] * v[0] + a[3] * v[1] + a[6] * v[2], a[1] * v[0] + a[4] * v[1] + a[7] * v[2],
                    a[2] * v[0] + a[5] * v[1] + a[8] * v[2] };
    v3_copy(out, t);
}
/* out += s * a bᵀ (outer product) */
static inline void m3_add_outer(double out[9], double s, const double a[3], const double b[3])
{
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            out[3 * r + c] += s * a[r] * b[c];
}
static inline double m3_trace(const double a[9]) { return a[0] + a[4] + a[8]; }
static inline double m3_det(const double a[9])
{
    return a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6]) + a[2] * (a[3] * a[7] - a[4] * a[6]);
}
static inline double m3_frobenius2(const double a[9])
{
    double s = 0.0;
    for (int k = 0; k < 9; ++k)
        s += a[k] * a[k];
    return s;
}
/* tr(aᵀ b) = sum of elementwise products */
static inline double m3_inner(const double a[9], const double b[9])
{
    double s = 0.0;
    for (int k = 0; k < 9; ++k)
        s += a[k] * b[k];
    return s;
}
static inline int m3_isfinite(const double a[9])
{
    for (int k = 0; k < 9; ++k)
        if (!isfinite(a[k]))
            return 0;
    return 1;
}
/* max |aᵀa − I| entry: how far a is from orthonormal */
static inline double m3_orthonormality_error(const double a[9])
{
    double ata[9], err = 0.0;
    m3_mul_at(ata, a, a);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
            double e = fabs(ata[3 * r + c] - (r == c ? 1.0 : 0.0));
            if (e > err)
                err = e;
        }
    return err;
}

#endif
