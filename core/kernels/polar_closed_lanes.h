/* The common path of op_polar_rotation's closed form (core/kernels/polar.c), written once over
 * lanes (kernels/lanes.h), one matrix a lane: A = C / ‖C‖_F where the norm is formed directly,
 * A's cofactors, K's largest eigenvalue λ by Halley's method, K − λI and its null vector from
 * the adjugate, and the rotation of a quaternion. polar.c includes it for one lane, which is the
 * scalar closed form's main path in every build, and where the build has AVX for four
 * (op_polar_rotation4).
 *
 * Each branch of the scalar closed form is a mask here: a lane whose squared norm is outside
 * (1e-290, 1e290) (zero, not finite, or to be rescaled first), whose A is close to a scaled
 * reflection, or whose λ is nearly repeated is "away", and its result is not to be used: polar.c
 * takes such a matrix through its scalar rare paths (the rescaled normalisation, Jacobi), which
 * then come back here for the rest of the common path. Away lanes take no Halley steps, so they
 * cost the others nothing. Every lane does the one-lane operations in their order (no fused
 * multiply-add: none is enabled), so a lane's bits are the one-lane result whatever the width
 * (tests/test_polar.c, test_rotation4_bitwise_scalar).
 *
 * The includer defines LANE, LANE_MASK, LANES, LANES_NAME(name) and L(op) (kernels/lanes.h) and
 * has ROOT_MAX_STEPS, NEAR_REFLECTION, ROOT_TOLERANCE and CLUSTER_ADJUGATE in scope (polar.c
 * gives their reasons). No include guard: one inclusion per width, and the definitions are
 * undone at the end. */

/* A = C / ‖C‖_F, ‖C‖²_F summed entry by entry; returns the lanes whose ‖C‖²_F is not in
 * (1e-290, 1e290), where it is not formed directly and their A is not to be used. a may be c. */
static inline LANE_MASK LANES_NAME(normalise)(const LANE c[9], LANE a[9])
{
    LANE n2 = L(zero)();
    for (int k = 0; k < 9; ++k)
        n2 = L(add)(n2, L(mul)(c[k], c[k]));
    LANE_MASK direct = L(and_mask)(L(gt)(n2, L(all)(1e-290)), L(lt)(n2, L(all)(1e290)));
    LANE inverse = L(div)(L(all)(1.0), L(sqrt)(n2));
    for (int k = 0; k < 9; ++k)
        a[k] = L(mul)(c[k], inverse);
    return L(not_mask)(direct);
}

/* K − shift·I (row-major 4x4), where tr(Rᵀ A) = qᵀ K q for a unit quaternion q and R(q) as
 * built in quaternion_to_rotation. */
static inline void LANES_NAME(form_k)(const LANE a[9], LANE shift, LANE k[16])
{
    k[0] = L(sub)(L(add)(L(add)(a[0], a[4]), a[8]), shift);
    k[5] = L(sub)(L(sub)(L(sub)(a[0], a[4]), a[8]), shift);
    k[10] = L(sub)(L(sub)(L(sub)(a[4], a[0]), a[8]), shift);
    k[15] = L(sub)(L(sub)(L(sub)(a[8], a[0]), a[4]), shift);
    k[1] = k[4] = L(sub)(a[7], a[5]);
    k[2] = k[8] = L(sub)(a[2], a[6]);
    k[3] = k[12] = L(sub)(a[3], a[1]);
    k[6] = k[9] = L(add)(a[1], a[3]);
    k[7] = k[13] = L(add)(a[2], a[6]);
    k[11] = k[14] = L(add)(a[5], a[7]);
}

/* R(q) for a nonzero, not necessarily unit, quaternion: the 2/|q|² factor normalises it. */
static inline void LANES_NAME(quaternion_to_rotation)(const LANE q[4], LANE r[9])
{
    LANE s = L(div)(L(all)(2.0), L(add)(L(add)(L(add)(L(mul)(q[0], q[0]), L(mul)(q[1], q[1])), L(mul)(q[2], q[2])),
                                        L(mul)(q[3], q[3])));
#define TERM(i, j) L(mul)(L(mul)(s, q[i]), q[j])
    LANE wx = TERM(0, 1), wy = TERM(0, 2), wz = TERM(0, 3);
    LANE xx = TERM(1, 1), xy = TERM(1, 2), xz = TERM(1, 3);
    LANE yy = TERM(2, 2), yz = TERM(2, 3), zz = TERM(3, 3);
#undef TERM
    LANE one = L(all)(1.0);
    r[0] = L(sub)(one, L(add)(yy, zz));
    r[1] = L(sub)(xy, wz);
    r[2] = L(add)(xz, wy);
    r[3] = L(add)(xy, wz);
    r[4] = L(sub)(one, L(add)(xx, zz));
    r[5] = L(sub)(yz, wx);
    r[6] = L(sub)(xz, wy);
    r[7] = L(add)(yz, wx);
    r[8] = L(sub)(one, L(add)(xx, yy));
}

/* Largest root λ of p(x) = x⁴ − 2x² − 8 det(A) x + det K, the characteristic polynomial of K
 * for ‖A‖_F = 1, by Halley's method from an upper bound, in the lanes of `active` (the others
 * keep the bound). All roots of p are at most λ, so p > 0 beyond λ, and Halley's iterates from
 * above decrease monotonically to λ without overshooting (p has only real roots). Measured on
 * this machine, three Halley steps from this bound cost less than Higham & Noferini's
 * trigonometric formula (acos and cos) for the root, which also loses half the digits near a
 * triple root.
 *
 * The bound: p(λ) = 0 reads (λ² − 1)² = 4 (‖adj A‖² + 2 det(A) λ). For det A ≥ 0, λ = s₁+s₂+s₃
 * ≥ 1 and the right-hand side grows with λ, so putting √3 ≥ λ there bounds it. For det A < 0 it
 * shrinks with λ; the second root σ₁ − σ₂ + σ₃ is at most 1, so the sign of p(1) tells whether
 * λ ≥ 1, where putting 1 there bounds it, or λ < 1, where 1 is the bound. */
static inline LANE LANES_NAME(largest_eigenvalue)(LANE det_a, LANE adj2, LANE det_k, LANE_MASK active)
{
    LANE one = L(all)(1.0), two = L(all)(2.0);
    LANE_MASK positive = L(ge)(det_a, L(zero)());
    LANE grown = L(add)(adj2, L(mul)(L(all)(2.0 * 1.7320508075688772), det_a));
    LANE shrunk = L(add)(adj2, L(mul)(two, det_a));
    LANE x = L(sqrt)(L(add)(one, L(mul)(two, L(sqrt)(L(select)(positive, grown, shrunk)))));
    x = L(select)(L(or_mask)(positive, L(ge)(shrunk, L(zero)())), x, one);
    LANE cubic = L(mul)(L(all)(8.0), det_a);
    for (int it = 0; it < ROOT_MAX_STEPS && L(bits)(active); ++it) {
        LANE x2 = L(mul)(x, x);
        LANE p = L(add)(L(sub)(L(mul)(L(sub)(x2, two), x2), L(mul)(cubic, x)), det_k);
        LANE dp = L(sub)(L(mul)(L(mul)(L(all)(4.0), x), L(sub)(x2, one)), cubic);
        LANE ddp = L(sub)(L(mul)(L(all)(12.0), x2), L(all)(4.0));
        LANE step = L(div)(L(mul)(p, dp), L(sub)(L(mul)(dp, dp), L(mul)(L(mul)(L(all)(0.5), p), ddp)));
        /* Exactly, every step is positive and none overshoots λ (p has only real roots, so
         * p'² > p p''); a step that is not positive is rounding noise near a multiple root. */
        LANE_MASK taken = L(and_mask)(active, L(gt)(step, L(zero)()));
        x = L(select)(taken, L(sub)(x, step), x);
        /* Halley's error after this step is at most about (p''/p')² step³ / 4. */
        LANE error = L(mul)(L(mul)(L(mul)(L(mul)(step, step), step), ddp), ddp);
        LANE bound = L(mul)(L(mul)(L(all)(ROOT_TOLERANCE), dp), dp);
        active = L(and_mask)(taken, L(gt)(error, bound));
    }
    return x;
}

/* A null vector of M = K − λI from its adjugate: for λ an eigenvalue of multiplicity one,
 * adj M = −(∏ of the other eigenvalues of λI − K) v vᵀ, so the column with the most negative
 * diagonal is v scaled by that product and by its largest component, and rounding perturbs it
 * the way one step of inverse iteration would. Branch free, unlike a pivoted LDLᵀ, which
 * dominated the cost; the column is chosen by selects, since which one wins is unpredictable
 * from one call to the next. Returns minus that diagonal: small when λ is nearly repeated and v
 * ill-determined. */
static inline LANE LANES_NAME(null_vector)(const LANE m[16], LANE v[4])
{
    /* 2x2 minors of rows 0-1 and of rows 2-3 (Laplace expansion along row pairs) */
#define MINOR(p, q, r, s) L(sub)(L(mul)(m[p], m[q]), L(mul)(m[r], m[s]))
    LANE s0 = MINOR(0, 5, 4, 1), s1 = MINOR(0, 6, 4, 2), s2 = MINOR(0, 7, 4, 3);
    LANE s3 = MINOR(1, 6, 5, 2), s4 = MINOR(1, 7, 5, 3), s5 = MINOR(2, 7, 6, 3);
    LANE c5 = MINOR(10, 15, 14, 11), c4 = MINOR(9, 15, 13, 11), c3 = MINOR(9, 14, 13, 10);
    LANE c2 = MINOR(8, 15, 12, 11), c1 = MINOR(8, 14, 12, 10), c0 = MINOR(8, 13, 12, 9);
#undef MINOR
    /* m_p x − m_q y + m_r z, and −m_p x + m_q y − m_r z, in C's order */
#define PLUS(p, x, q, y, r, z) L(add)(L(sub)(L(mul)(m[p], x), L(mul)(m[q], y)), L(mul)(m[r], z))
#define MINUS(p, x, q, y, r, z) L(sub)(L(add)(L(mul)(L(neg)(m[p]), x), L(mul)(m[q], y)), L(mul)(m[r], z))
    LANE adj[16] = {
        PLUS(5, c5, 6, c4, 7, c3),    MINUS(1, c5, 2, c4, 3, c3),    PLUS(13, s5, 14, s4, 15, s3),
        MINUS(9, s5, 10, s4, 11, s3), MINUS(4, c5, 6, c2, 7, c1),    PLUS(0, c5, 2, c2, 3, c1),
        MINUS(12, s5, 14, s2, 15, s1), PLUS(8, s5, 10, s2, 11, s1),  PLUS(4, c4, 5, c2, 7, c0),
        MINUS(0, c4, 1, c2, 3, c0),   PLUS(12, s4, 13, s2, 15, s0),  MINUS(8, s4, 9, s2, 11, s0),
        MINUS(4, c3, 5, c1, 6, c0),   PLUS(0, c3, 1, c1, 2, c0),     MINUS(12, s3, 13, s1, 14, s0),
        PLUS(8, s3, 9, s1, 10, s0),
    };
#undef PLUS
#undef MINUS
    LANE_MASK b01 = L(lt)(adj[5], adj[0]), b23 = L(lt)(adj[15], adj[10]);
    LANE d01 = L(select)(b01, adj[5], adj[0]), d23 = L(select)(b23, adj[15], adj[10]);
    LANE_MASK high = L(lt)(d23, d01);
    for (int i = 0; i < 4; ++i)
        v[i] = L(select)(high, L(select)(b23, adj[4 * i + 3], adj[4 * i + 2]),
                         L(select)(b01, adj[4 * i + 1], adj[4 * i]));
    return L(neg)(L(select)(high, d23, d01));
}

/* The closed form's unnormalised quaternion of A (‖A‖_F = 1) into q. Returns `away` and the
 * lanes the closed form leaves to Jacobi: A close to a scaled reflection (1 − 3 ‖adj A‖² below
 * NEAR_REFLECTION with det A ≤ 0: λ nearly triple), or λ nearly repeated (the adjugate's
 * diagonal below CLUSTER_ADJUGATE). Lanes in `away` take no Halley steps. */
static inline LANE_MASK LANES_NAME(closed_form_quaternion)(const LANE a[9], LANE_MASK away, LANE q[4])
{
    /* Cofactors of A: det A from the first row and det K = 1 − 4 ‖adj A‖²_F, summed pairwise
     * to shorten the dependency chain of this latency-bound routine. */
#define MINOR(p, q, r, s) L(sub)(L(mul)(a[p], a[q]), L(mul)(a[r], a[s]))
    LANE m0 = MINOR(4, 8, 5, 7), m1 = MINOR(3, 8, 5, 6), m2 = MINOR(3, 7, 4, 6);
    LANE m3 = MINOR(1, 8, 2, 7), m4 = MINOR(0, 8, 2, 6), m5 = MINOR(0, 7, 1, 6);
    LANE m6 = MINOR(1, 5, 2, 4), m7 = MINOR(0, 5, 2, 3), m8 = MINOR(0, 4, 1, 3);
#undef MINOR
    LANE det_a = L(add)(L(sub)(L(mul)(a[0], m0), L(mul)(a[1], m1)), L(mul)(a[2], m2));
#define SQUARES(x, y) L(add)(L(mul)(x, x), L(mul)(y, y))
    LANE adj2 = L(add)(L(add)(L(add)(SQUARES(m0, m1), SQUARES(m2, m3)), L(add)(SQUARES(m4, m5), SQUARES(m6, m7))),
                       L(mul)(m8, m8));
#undef SQUARES
    LANE det_k = L(sub)(L(all)(1.0), L(mul)(L(all)(4.0), adj2));
    LANE triple = L(sub)(L(all)(1.0), L(mul)(L(all)(3.0), adj2));
    LANE_MASK near_reflection = L(and_mask)(L(lt)(triple, L(all)(NEAR_REFLECTION)), L(le)(det_a, L(zero)()));
    away = L(or_mask)(away, near_reflection);
    LANE m[16];
    LANES_NAME(form_k)(a, LANES_NAME(largest_eigenvalue)(det_a, adj2, det_k, L(not_mask)(away)), m);
    LANE_MASK resolved = L(ge)(LANES_NAME(null_vector)(m, q), L(all)(CLUSTER_ADJUGATE));
    return L(or_mask)(away, L(not_mask)(resolved));
}

/* The closed-form rotations of LANES matrices, C[w] to R[w]. Returns the bits (lane w at bit w)
 * of the lanes away, whose R is not to be used: polar.c computes those one at a time. */
static inline int LANES_NAME(closed_form_rotation)(const double *const C[LANES], double *const R[LANES])
{
    LANE c[9], a[9], q[4], r[9];
    L(load_records)(C, 9, c);
    LANE_MASK away = LANES_NAME(normalise)(c, a);
    away = LANES_NAME(closed_form_quaternion)(a, away, q);
    LANES_NAME(quaternion_to_rotation)(q, r);
    L(store_records)(R, 9, r);
    return L(bits)(away);
}

#undef LANE
#undef LANE_MASK
#undef LANES
#undef LANES_NAME
#undef L
