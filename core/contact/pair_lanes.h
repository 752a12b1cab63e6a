/* The contact physics of core/contact/collide.c, written once over lanes (kernels/lanes.h): a
 * particle's support matrix (gather_shapes), a pair's penetration along its centre line and its
 * Coulomb friction (evaluate), one particle or pair a lane. collide.c includes this file once for
 * one lane (the one-at-a-time calls, the scalar build, CPUs without AVX) and once for four AVX
 * lanes; every branch of the one-at-a-time code is a select here, so each lane's bits are the
 * same at either width (tests/test_collide.c compares them).
 *
 * The includer defines LANE, LANE_MASK, LANES, LANES_NAME(name) and L(op) (kernels/lanes.h) and
 * has op_collider, op_pair, gather_motion and `up` in scope. No include guard: one inclusion per
 * width, and the definitions are undone at the end. */

/* op_support_matrix lane by lane: S = E diag(r²) Eᵀ, the six entries of its upper triangle (row by
 * row), each a chain of products in op_support_matrix's order */
static inline void LANES_NAME(support_matrix)(LANE out[6], const LANE axes[9], const LANE radii[3])
{
    LANE r2[3];
    for (int k = 0; k < 3; ++k)
        r2[k] = L(mul)(radii[k], radii[k]);
    const int row[6] = { 0, 0, 0, 1, 1, 2 }, column[6] = { 0, 1, 2, 1, 2, 2 };
    for (int e = 0; e < 6; ++e) {
        const LANE *a = &axes[3 * row[e]], *b = &axes[3 * column[e]];
        out[e] = L(add)(L(add)(L(mul)(L(mul)(a[0], r2[0]), b[0]), L(mul)(L(mul)(a[1], r2[1]), b[1])),
                        L(mul)(L(mul)(a[2], r2[2]), b[2]));
    }
}

/* What the passes read of involved particles q[0 … LANES), one a lane: the motion (gather_motion)
 * and the shape, its support matrix from the rotated axes R E and h(+y) = √S_yy. */
static inline void LANES_NAME(gather_shapes)(op_collider *c, const op_body *bodies, const int *q)
{
    const double *rotation[LANES], *rest_axes[LANES], *radii[LANES];
    double *support[LANES], *up_at[LANES];
    for (int lane = 0; lane < LANES; ++lane) {
        const op_body *body;
        int i = gather_motion(c, bodies, q[lane], &body);
        const op_graph *graph = body->graph;
        rotation[lane] = &body->state.rotation[9 * i];
        rest_axes[lane] = &graph->rest_axes[9 * i];
        radii[lane] = &graph->radii[3 * i];
        support[lane] = c->shape[q[lane]].support;
        up_at[lane] = &c->shape[q[lane]].up;
    }
    LANE R[9], E[9], axes[9], r[3], S[6], h_up;
    L(load_records)(rotation, 9, R);
    L(load_records)(rest_axes, 9, E);
    L(load_records)(radii, 3, r);
    L(m3_mul)(axes, R, E);
    LANES_NAME(support_matrix)(S, axes, r);
    h_up = L(sqrt)(S[3]);
    L(store_records)(support, 6, S);
    L(store_records)(up_at, 1, &h_up);
}

/* √(dᵀ S d) for any d: h(d/|d|) |d|, negative rounding of a sliver clamped to 0 */
static inline LANE LANES_NAME(support_times_length)(const LANE S[6], const LANE d[3])
{
    LANE diagonal = L(add)(L(add)(L(mul)(L(mul)(S[0], d[0]), d[0]), L(mul)(L(mul)(S[3], d[1]), d[1])),
                           L(mul)(L(mul)(S[5], d[2]), d[2]));
    LANE off = L(add)(L(add)(L(mul)(L(mul)(S[1], d[0]), d[1]), L(mul)(L(mul)(S[2], d[0]), d[2])),
                      L(mul)(L(mul)(S[4], d[1]), d[2]));
    LANE value = L(add)(diagonal, L(mul)(L(all)(2.0), off));
    return L(sqrt)(L(max)(value, L(zero)()));
}

static inline LANE LANES_NAME(dot)(const LANE a[3], const LANE b[3])
{
    return L(add)(L(add)(L(mul)(a[0], b[0]), L(mul)(a[1], b[1])), L(mul)(a[2], b[2]));
}

/* Coulomb friction after a normal change `normal_change` (not negative) on a tangential motion
 * of length `tangential`: the factor max(0, 1 − μ normal_change / tangential) that keeps
 * min(tangential, μ normal_change) off it, as a fraction of it (also the floor's, collide.c) */
static inline LANE LANES_NAME(friction_keep)(LANE friction, LANE normal_change, LANE tangential)
{
    return L(max)(L(sub)(L(all)(1.0), L(div)(L(mul)(friction, normal_change), tangential)), L(zero)());
}

/* Coulomb friction along a contact normal n: takes the tangential part t of `relative` off
 * `change`, or μ·normal_change of it when that is less:
 * change += (friction_keep − 1) t where |t| > 0. */
static inline void LANES_NAME(take_tangential)(LANE change[3], const LANE relative[3], const LANE n[3], LANE friction,
                                               LANE normal_change)
{
    LANE along = L(neg)(LANES_NAME(dot)(relative, n)), tangent[3];
    for (int e = 0; e < 3; ++e)
        tangent[e] = L(add)(relative[e], L(mul)(along, n[e]));
    LANE tangential = L(sqrt)(LANES_NAME(dot)(tangent, tangent));
    LANE scale = L(sub)(LANES_NAME(friction_keep)(friction, normal_change, tangential), L(all)(1.0));
    LANE_MASK slides = L(gt)(tangential, L(zero)());
    for (int e = 0; e < 3; ++e)
        change[e] = L(select)(slides, L(add)(change[e], L(mul)(scale, tangent[e])), change[e]);
}

/* The penetration p = h_i(n) + h_j(n) − L of a pair of particles at xi and xj, with support
 * matrices si and sj (h(+y) in entry 7, struct op_contact_shape), along its unit centre line
 * n = d/L, d = x_j − x_i, L = |d|, into n; h(n) = √(nᵀ S n) is the ellipsoid's support distance,
 * taken as √(dᵀ S d) / L so that the three square roots and the division do not wait on one
 * another. Coincident centres take n = +y and p = h_i(+y) + h_j(+y). */
static inline __attribute__((always_inline)) LANE LANES_NAME(penetration)(const LANE xi[3], const LANE xj[3],
                                                                          const LANE *si, const LANE *sj, LANE n[3])
{
    LANE d[3];
    for (int e = 0; e < 3; ++e)
        d[e] = L(sub)(xj[e], xi[e]);
    LANE length2 = LANES_NAME(dot)(d, d), length = L(sqrt)(length2);
    LANE inverse = L(div)(L(all)(1.0), length);
    LANE_MASK apart = L(gt)(length2, L(zero)());
    LANE reach = L(add)(LANES_NAME(support_times_length)(si, d), LANES_NAME(support_times_length)(sj, d));
    for (int e = 0; e < 3; ++e)
        n[e] = L(select)(apart, L(mul)(d[e], inverse), L(all)(up[e]));
    return L(select)(apart, L(sub)(L(mul)(reach, inverse), length), L(add)(si[7], sj[7]));
}

/* The pairs k[0 … count) (count ≤ LANES), one a lane, into c->active (whether the pair penetrates
 * with a particle free to move) and c->contact (its penetration always; its correction when it
 * penetrates). An unused lane repeats the last pair; its results are not stored.
 *
 * The penetration (penetration above) is 0 when neither particle is free to move. A penetrating pair's correction: the shift p n separating it, less its relative tangential
 * displacement over the sub-step up to μ p of it (static friction on the positions), and, when
 * it approaches, the velocity change −v_n n less its tangential velocity up to μ |v_n|. */
static void LANES_NAME(evaluate)(op_collider *c, const op_pair *pairs, const int *k, int count, double friction)
{
    const double *xi_at[LANES], *xj_at[LANES], *si_at[LANES], *sj_at[LANES];
    for (int lane = 0; lane < LANES; ++lane) {
        const op_pair *pair = &pairs[k[lane < count ? lane : count - 1]];
        xi_at[lane] = &c->position[3 * pair->i];
        xj_at[lane] = &c->position[3 * pair->j];
        si_at[lane] = c->shape[pair->i].support; /* with inverse_mass and up after it */
        sj_at[lane] = c->shape[pair->j].support;
    }
    const LANE zero = L(zero)();
    LANE xi[3], xj[3], si[8], sj[8], n[3];
    L(load_records)(si_at, 8, si);
    L(load_records)(sj_at, 8, sj);
    LANE wi = si[6], wj = sj[6], total = L(add)(wi, wj);
    LANE_MASK movable = L(gt)(total, zero);
    if (!(L(bits)(movable) & ((1 << count) - 1))) {
        for (int lane = 0; lane < count; ++lane) {
            c->contact[k[lane]].penetration = 0.0;
            c->active[k[lane]] = 0;
        }
        return;
    }
    L(load_records)(xi_at, 3, xi);
    L(load_records)(xj_at, 3, xj);
    LANE p = L(select)(movable, LANES_NAME(penetration)(xi, xj, si, sj, n), zero);
    double penetration[LANES];
    L(store)(penetration, p);
    int penetrates = L(bits)(L(gt)(p, zero)) & ((1 << count) - 1);
    for (int lane = 0; lane < count; ++lane) {
        c->contact[k[lane]].penetration = penetration[lane];
        c->active[k[lane]] = (unsigned char)(penetrates >> lane & 1);
    }
    if (!penetrates)
        return;
    const double *vi_at[LANES], *vj_at[LANES], *ti_at[LANES], *tj_at[LANES];
    for (int lane = 0; lane < LANES; ++lane) {
        const op_pair *pair = &pairs[k[lane < count ? lane : count - 1]];
        vi_at[lane] = &c->velocity[3 * pair->i];
        vj_at[lane] = &c->velocity[3 * pair->j];
        ti_at[lane] = &c->start[3 * pair->i];
        tj_at[lane] = &c->start[3 * pair->j];
    }
    LANE ti[3], tj[3], vi[3], vj[3], relative[3], shift[3], dv[3];
    L(load_records)(ti_at, 3, ti);
    L(load_records)(tj_at, 3, tj);
    LANE mu = L(all)(friction);
    for (int e = 0; e < 3; ++e) {
        relative[e] = L(sub)(L(sub)(xj[e], tj[e]), L(sub)(xi[e], ti[e]));
        shift[e] = L(mul)(n[e], p);
    }
    LANES_NAME(take_tangential)(shift, relative, n, mu, p);
    L(load_records)(vi_at, 3, vi);
    L(load_records)(vj_at, 3, vj);
    for (int e = 0; e < 3; ++e)
        relative[e] = L(sub)(vj[e], vi[e]);
    LANE normal = LANES_NAME(dot)(relative, n), against = L(neg)(normal);
    LANE_MASK approaching = L(lt)(normal, zero);
    for (int e = 0; e < 3; ++e)
        dv[e] = zero;
    if (L(bits)(approaching) & penetrates) {
        for (int e = 0; e < 3; ++e)
            dv[e] = L(add)(zero, L(mul)(against, n[e]));
        LANES_NAME(take_tangential)(dv, relative, n, mu, against);
        for (int e = 0; e < 3; ++e)
            dv[e] = L(select)(approaching, dv[e], zero);
    }
    double out[8][LANES];
    for (int e = 0; e < 3; ++e) {
        L(store)(out[e], shift[e]);
        L(store)(out[3 + e], dv[e]);
    }
    L(store)(out[6], L(div)(wi, total));
    L(store)(out[7], L(div)(wj, total));
    for (int lane = 0; lane < count; ++lane) {
        if (!(penetrates >> lane & 1))
            continue;
        struct op_contact *con = &c->contact[k[lane]];
        v3_set(con->shift, out[0][lane], out[1][lane], out[2][lane]);
        v3_set(con->dv, out[3][lane], out[4][lane], out[5][lane]);
        con->share_i = out[6][lane];
        con->share_j = out[7][lane];
    }
}

#undef LANE
#undef LANE_MASK
#undef LANES
#undef LANES_NAME
#undef L
