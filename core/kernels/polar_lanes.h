/* The lanes kernel of op_polar_rotation_warm (core/kernels/polar.c), written once over a vector of LANES
 * doubles and included by polar.c for each instruction set it runs on: SSE2's two lanes and,
 * where the CPU has it, AVX's four. Every lane goes through op_polar_rotation_warm's operations
 * in its order (no fused multiply-add: none is enabled), so each lane's result is bitwise the
 * scalar call's whatever the width. The includer defines VEC, LANES, LANES_NAME(name) (the
 * functions' names for this width) and the operations V_ADD, V_SUB, V_MUL, V_DIV, V_SQRT,
 * V_ALL(x), V_TRUE() (every bit set), V_AND, V_ANDNOT (~a & b), V_OR, V_GT, V_LE, V_LT (masks),
 * V_MASK (one bit per lane), V_STORE(double *, VEC), V_LOAD(const double *), V_SELECT(mask, a, b);
 * polar.c has closed_form_quaternion and the WARM_ constants. polar.c maps these to the lane
 * type's operations (kernels/lanes.h) where the width has them and to intrinsics where it has
 * not: lanes.h's two- and eight-lane widths carry only what solvers/arap.c needs (no division,
 * square root, compares or masks); the four-lane one has no andnot or all-ones mask, and its
 * select is a blend, where this hot kernel keeps the and/or select it was timed with. No include
 * guard: one inclusion per width, and the definitions are undone at the end. */

#define EACH for (int w = 0; w < W; ++w)

/* quaternion_to_rotation, lane by lane */
static inline void LANES_NAME(quaternion_to_rotation)(const VEC q[4], VEC r[9])
{
    VEC s = V_DIV(V_ALL(2.0), V_ADD(V_ADD(V_ADD(V_MUL(q[0], q[0]), V_MUL(q[1], q[1])), V_MUL(q[2], q[2])),
                                      V_MUL(q[3], q[3])));
    VEC s0 = V_MUL(s, q[0]), s1 = V_MUL(s, q[1]), s2 = V_MUL(s, q[2]), s3 = V_MUL(s, q[3]);
    VEC wx = V_MUL(s0, q[1]), wy = V_MUL(s0, q[2]), wz = V_MUL(s0, q[3]);
    VEC xx = V_MUL(s1, q[1]), xy = V_MUL(s1, q[2]), xz = V_MUL(s1, q[3]);
    VEC yy = V_MUL(s2, q[2]), yz = V_MUL(s2, q[3]), zz = V_MUL(s3, q[3]);
    VEC one = V_ALL(1.0);
    r[0] = V_SUB(one, V_ADD(yy, zz));
    r[1] = V_SUB(xy, wz);
    r[2] = V_ADD(xz, wy);
    r[3] = V_ADD(xy, wz);
    r[4] = V_SUB(one, V_ADD(xx, zz));
    r[5] = V_SUB(yz, wx);
    r[6] = V_SUB(xz, wy);
    r[7] = V_ADD(yz, wx);
    r[8] = V_SUB(one, V_ADD(xx, yy));
}

/* op_polar_rotation_warm in the lanes of W groups of registers (LANES·W matrices): c the matrices,
 * q the warm starts on entry and the unit quaternions on return, r the rotations. The groups'
 * latency chains are independent; written as loops over the groups so that, inlined with a
 * constant W, they are unrolled and interleaved. */
static inline __attribute__((always_inline)) void LANES_NAME(polar_rotation_warm)(int W, const VEC c[][9], VEC q[][4],
                                                                                VEC r[][9])
{
    enum { MAX_GROUPS = 2 }; /* W ≤ MAX_GROUPS */
    VEC r0[MAX_GROUPS][9], b[9], alpha[MAX_GROUPS], g0[MAX_GROUPS], g1[MAX_GROUPS], g2[MAX_GROUPS], gg[MAX_GROUPS],
        m00[MAX_GROUPS], m11[MAX_GROUPS], m22[MAX_GROUPS], m01[MAX_GROUPS], m02[MAX_GROUPS], m12[MAX_GROUPS];
    EACH {
        LANES_NAME(quaternion_to_rotation)(q[w], r0[w]);
        /* b = r0ᵀ c */
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                b[3 * i + j] = V_ADD(V_ADD(V_MUL(r0[w][i], c[w][j]), V_MUL(r0[w][3 + i], c[w][3 + j])),
                                      V_MUL(r0[w][6 + i], c[w][6 + j]));
        alpha[w] = V_ADD(V_ADD(b[0], b[4]), b[8]);
        g0[w] = V_SUB(b[7], b[5]), g1[w] = V_SUB(b[2], b[6]), g2[w] = V_SUB(b[3], b[1]);
        gg[w] = V_ADD(V_ADD(V_MUL(g0[w], g0[w]), V_MUL(g1[w], g1[w])), V_MUL(g2[w], g2[w]));
        VEC two = V_ALL(2.0);
        m00[w] = V_SUB(V_MUL(two, b[0]), alpha[w]), m11[w] = V_SUB(V_MUL(two, b[4]), alpha[w]),
        m22[w] = V_SUB(V_MUL(two, b[8]), alpha[w]);
        m01[w] = V_ADD(b[1], b[3]), m02[w] = V_ADD(b[2], b[6]), m12[w] = V_ADD(b[5], b[7]);
    }
    VEC zero = V_ALL(0.0), sign = V_ALL(-0.0);
    VEC min_determinant = V_ALL(WARM_MIN_DETERMINANT), scale = V_ALL(WARM_SCALE),
       scale2 = V_ALL(WARM_SCALE * WARM_SCALE), tolerance2 = V_ALL(WARM_TOLERANCE * WARM_TOLERANCE),
       four = V_ALL(4.0);
    /* lanes still iterating, lanes certified, and the certified (d, z) */
    VEC lambda[MAX_GROUPS], active[MAX_GROUPS], certified[MAX_GROUPS], cd[MAX_GROUPS], cz0[MAX_GROUPS],
        cz1[MAX_GROUPS], cz2[MAX_GROUPS];
    EACH {
        lambda[w] = alpha[w];
        active[w] = V_TRUE();
        certified[w] = cd[w] = cz0[w] = cz1[w] = cz2[w] = zero;
    }
    for (int solve = 0; solve < WARM_MAX_SOLVES; ++solve) {
        int any = 0;
        EACH {
            VEC a00 = V_SUB(lambda[w], m00[w]), a11 = V_SUB(lambda[w], m11[w]), a22 = V_SUB(lambda[w], m22[w]);
            VEC c00 = V_SUB(V_MUL(a11, a22), V_MUL(m12[w], m12[w])),
               c11 = V_SUB(V_MUL(a00, a22), V_MUL(m02[w], m02[w])),
               c22 = V_SUB(V_MUL(a00, a11), V_MUL(m01[w], m01[w]));
            VEC c01 = V_ADD(V_MUL(m01[w], a22), V_MUL(m02[w], m12[w])),
               c02 = V_ADD(V_MUL(m01[w], m12[w]), V_MUL(m02[w], a11)),
               c12 = V_ADD(V_MUL(a00, m12[w]), V_MUL(m01[w], m02[w]));
            VEC d = V_SUB(V_SUB(V_MUL(a00, c00), V_MUL(m01[w], c01)), V_MUL(m02[w], c02));
            VEC z0 = V_ADD(V_ADD(V_MUL(c00, g0[w]), V_MUL(c01, g1[w])), V_MUL(c02, g2[w]));
            VEC z1 = V_ADD(V_ADD(V_MUL(c01, g0[w]), V_MUL(c11, g1[w])), V_MUL(c12, g2[w]));
            VEC z2 = V_ADD(V_ADD(V_MUL(c02, g0[w]), V_MUL(c12, g1[w])), V_MUL(c22, g2[w]));
            VEC tr = V_ADD(V_ADD(a00, a11), a22), tr2 = V_MUL(tr, tr);
            VEC ok = V_AND(V_AND(V_GT(a00, zero), V_GT(c22, zero)),
                               V_GT(d, V_MUL(V_MUL(min_determinant, tr), tr2)));
            ok = V_AND(ok, V_AND(V_LT(tr, scale), V_LT(gg[w], scale2)));
            VEC fd = V_SUB(V_MUL(V_SUB(lambda[w], alpha[w]), d),
                           V_ADD(V_ADD(V_MUL(g0[w], z0), V_MUL(g1[w], z1)), V_MUL(g2[w], z2)));
            VEC zz = V_ADD(V_ADD(V_MUL(z0, z0), V_MUL(z1, z1)), V_MUL(z2, z2)), dd = V_ADD(V_MUL(d, d), zz);
            VEC gap = V_SUB(V_MUL(V_MUL(four, d), dd), V_MUL(V_MUL(V_ANDNOT(sign, fd), d), tr2));
            VEC pass = V_AND(V_GT(gap, zero),
                                 V_LE(V_MUL(V_MUL(V_MUL(V_MUL(fd, fd), zz), tr2), tr2),
                                              V_MUL(V_MUL(tolerance2, gap), gap)));
            VEC now = V_AND(active[w], V_AND(ok, pass));
            cd[w] = V_SELECT(now, d, cd[w]);
            cz0[w] = V_SELECT(now, z0, cz0[w]);
            cz1[w] = V_SELECT(now, z1, cz1[w]);
            cz2[w] = V_SELECT(now, z2, cz2[w]);
            certified[w] = V_OR(certified[w], now);
            active[w] = V_ANDNOT(pass, V_AND(active[w], ok));
            any |= V_MASK(active[w]);
            lambda[w] = V_SELECT(active[w], V_SUB(lambda[w], V_DIV(V_MUL(d, fd), dd)), lambda[w]);
        }
        if (!any)
            break;
    }
    EACH {
        /* polar(C) = R0 R(d, z): the Hamilton product q0 ⊗ (d, z) */
        const VEC *q0 = q[w];
        VEC o[4];
        o[0] = V_SUB(V_SUB(V_SUB(V_MUL(q0[0], cd[w]), V_MUL(q0[1], cz0[w])), V_MUL(q0[2], cz1[w])),
                      V_MUL(q0[3], cz2[w]));
        o[1] = V_SUB(V_ADD(V_ADD(V_MUL(q0[0], cz0[w]), V_MUL(q0[1], cd[w])), V_MUL(q0[2], cz2[w])),
                      V_MUL(q0[3], cz1[w]));
        o[2] = V_ADD(V_ADD(V_SUB(V_MUL(q0[0], cz1[w]), V_MUL(q0[1], cz2[w])), V_MUL(q0[2], cd[w])),
                      V_MUL(q0[3], cz0[w]));
        o[3] = V_ADD(V_SUB(V_ADD(V_MUL(q0[0], cz2[w]), V_MUL(q0[1], cz1[w])), V_MUL(q0[2], cz0[w])),
                      V_MUL(q0[3], cd[w]));
        int failed = ~V_MASK(certified[w]) & ((1 << LANES) - 1);
        if (failed) {
            double lane_c[9][LANES], lane_o[4][LANES];
            for (int k = 0; k < 9; ++k)
                V_STORE(lane_c[k], c[w][k]);
            for (int k = 0; k < 4; ++k)
                V_STORE(lane_o[k], o[k]);
            for (int lane = 0; lane < LANES; ++lane)
                if (failed >> lane & 1) {
                    double one_c[9], one_o[4];
                    for (int k = 0; k < 9; ++k)
                        one_c[k] = lane_c[k][lane];
                    closed_form_quaternion(one_c, one_o);
                    for (int k = 0; k < 4; ++k)
                        lane_o[k][lane] = one_o[k];
                }
            for (int k = 0; k < 4; ++k)
                o[k] = V_LOAD(lane_o[k]);
        }
        /* finish(): R(o), and q = o / |o| */
        LANES_NAME(quaternion_to_rotation)(o, r[w]);
        VEC inverse_norm = V_DIV(V_ALL(1.0), V_SQRT(V_ADD(V_ADD(V_ADD(V_MUL(o[0], o[0]), V_MUL(o[1], o[1])),
                                                                          V_MUL(o[2], o[2])),
                                                                   V_MUL(o[3], o[3]))));
        for (int k = 0; k < 4; ++k)
            q[w][k] = V_MUL(o[k], inverse_norm);
    }
}

#undef EACH
#undef VEC
#undef LANES
#undef LANES_NAME
#undef V_ADD
#undef V_SUB
#undef V_MUL
#undef V_DIV
#undef V_SQRT
#undef V_ALL
#undef V_TRUE
#undef V_AND
#undef V_ANDNOT
#undef V_OR
#undef V_GT
#undef V_LE
#undef V_LT
#undef V_MASK
#undef V_STORE
#undef V_LOAD
#undef V_SELECT
