/* The per-particle loops of a body's sub-step outside the solver (predict.h): the prediction and
 * the velocities' update. The equations and the rigid fit are world.c's (predict); this file
 * owns how their loops run.
 *
 * Where the AVX paths run (core/kernels/simd.h), four consecutive particles go through each loop side
 * by side in four lanes (core/kernels/lanes.h), one particle a lane: their records are turned into
 * one register an entry on the way in and back on the way out (op4_load_consecutive,
 * op4_store_consecutive), and every lane does its particle's operations in the scalar code's
 * order, without fused multiply-adds, so the bits are the same. The fit's sums are over all
 * particles in index order; the four lanes' terms of four sums are transposed so that each sum
 * takes its four particles' terms one after another (op4_add_in_order), the order of the scalar
 * loop. A quad with a pinned particle, and the last n mod 4 particles, go one at a time through the scalar code, in their place in the order. Four twin
 * bodies without pins (a group's, world.c's predict_unit) go side by side instead, one body a
 * lane and particle by particle (predict_bodies_avx, turn_bodies_avx): each lane's sums are its
 * body's, in index order as they stand, and no particle is left over.
 *
 * Cost (bench/bench_stages.c, docs/performance.md): one particle at a time the prediction was
 * ≈ 475 instructions a particle (callgrind), its 3×3 products one multiply or add an
 * instruction, issue-bound at about 7 instructions a cycle; in lanes it is ≈ 200, a third of them
 * moving records into and out of the lanes, and with arap's begin_substep the stage went from
 * 43 to 26 ns a particle on the dinosaur and from 51 to 37 on the 52 models (one thread). */
#include "sim/predict.h"

#include <string.h>

#include "base/math3.h"
#include "kernels/lanes.h"

/* Particle i's prediction (op_predict_particles), its fit terms into *fit when fit is not NULL;
 * h2g = h² g. Returns whether it turns or deforms (predict.h). Written over one lane
 * (kernels/lanes.h) with predict_quad_avx's operations in its order, so that the two read alike
 * and give the same bits. */
static inline int predict_particle(op_body *body, int i, double h, const double h2g[3], const double anchor[3],
                                   op_rigid_fit_sums *fit)
{
    double *x = &body->state.position[3 * i];
    const double *v = &body->state.velocity[3 * i], *first = body->state.velocity;
    /* y formed in registers and stored once: read back from memory right after its
     * element-wise stores, it stalled on store forwarding */
    double e[3], hv[3], y[3];
    int turning = 0;
    for (int k = 0; k < 3; ++k) {
        e[k] = op1_sub(x[k], anchor[k]);
        hv[k] = op1_mul(h, v[k]);
        y[k] = op1_add(op1_add(x[k], hv[k]), h2g[k]);
        turning = op1_or_mask(turning, op1_neq(v[k], first[k]));
    }
    v3_copy(&body->inertial_position[3 * i], y);
    if (!body->position_pinned[i])
        v3_copy(x, y);
    double *Y = &body->inertial_rotation[9 * i];
    const double *R = &body->state.rotation[9 * i], *rate = &body->state.rotation_rate[9 * i];
    for (int k = 0; k < 9; ++k) {
        Y[k] = op1_add(R[k], op1_mul(h, rate[k]));
        turning = op1_or_mask(turning, op1_neq(rate[k], 0.0));
    }
    if (!fit)
        return turning;
    double m = body->graph->mass[i], md[3], me[3], YA[9], moment[9];
    for (int k = 0; k < 3; ++k) {
        md[k] = op1_mul(m, op1_add(e[k], hv[k]));
        me[k] = op1_mul(m, e[k]);
    }
    fit->mass = op1_add(fit->mass, m);
    for (int k = 0; k < 3; ++k) {
        fit->d[k] = op1_add(fit->d[k], md[k]);
        fit->e[k] = op1_add(fit->e[k], me[k]);
    }
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            fit->spread[3 * r + c] = op1_add(fit->spread[3 * r + c], op1_mul(md[r], e[c]));
    op1_m3_mul(YA, Y, &body->graph->rest_moment[9 * i]);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            moment[3 * r + c] = op1_add(op1_add(op1_mul(YA[3 * r], R[3 * c]), op1_mul(YA[3 * r + 1], R[3 * c + 1])),
                                        op1_mul(YA[3 * r + 2], R[3 * c + 2]));
    for (int k = 0; k < 9; ++k)
        fit->spin[k] = op1_add(fit->spin[k], moment[k]);
    return turning;
}

/* The plain loops: one particle at a time. The sums are a local copy, so that they stay in
 * registers while the stores to the body's arrays (which might alias them, as far as the
 * compiler knows) go on. */
static int predict_particles_scalar(op_body *body, double h, const double h2g[3], const double anchor[3],
                                    op_rigid_fit_sums *fit)
{
    op_rigid_fit_sums sums = fit ? *fit : (op_rigid_fit_sums){ 0 };
    int turning = 0, n = body->graph->particle_count;
    for (int i = 0; i < n; ++i)
        turning |= predict_particle(body, i, h, h2g, anchor, fit ? &sums : NULL);
    if (fit)
        *fit = sums;
    return turning;
}

static void turn_scalar(op_body *body, const double Q[9], int first, int last)
{
    for (int i = first; i < last; ++i)
        if (!body->rotation_pinned[i])
            m3_mul(&body->state.rotation[9 * i], Q, &body->state.rotation[9 * i]);
}

/* out[k] = (a[k] − b[k]) · scale for k < count: v3_sub then v3_scale, entry by entry */
static void difference_scaled_scalar(double *out, const double *a, const double *b, double scale, size_t first,
                                     size_t count)
{
    for (size_t k = first; k < count; ++k)
        out[k] = op1_mul(op1_sub(a[k], b[k]), scale);
}

#if OP_SIMD_AVX
OP_SIMD_AVX_BEGIN
/* The fit's sums in registers, four a register: spin 0–3 and 4–7, spread 0–3 and 4–7,
 * (d, mass), (e, spin 8); spread 8 alone. */
typedef struct fit_lanes {
    op_lanes4 spin_low, spin_high, spread_low, spread_high, d_mass, e_spin8;
    double spread8;
} fit_lanes;

static inline fit_lanes fit_lanes_load(const op_rigid_fit_sums *s)
{
    return (fit_lanes){ op4_load(s->spin),
                        op4_load(s->spin + 4),
                        op4_load(s->spread),
                        op4_load(s->spread + 4),
                        op4_set(s->d[0], s->d[1], s->d[2], s->mass),
                        op4_set(s->e[0], s->e[1], s->e[2], s->spin[8]),
                        s->spread[8] };
}

static inline void fit_lanes_store(const fit_lanes *f, op_rigid_fit_sums *s)
{
    double d_mass[4], e_spin8[4];
    op4_store(s->spin, f->spin_low);
    op4_store(s->spin + 4, f->spin_high);
    op4_store(s->spread, f->spread_low);
    op4_store(s->spread + 4, f->spread_high);
    op4_store(d_mass, f->d_mass);
    op4_store(e_spin8, f->e_spin8);
    s->spread[8] = f->spread8;
    v3_copy(s->d, d_mass);
    s->mass = d_mass[3];
    v3_copy(s->e, e_spin8);
    s->spin[8] = e_spin8[3];
}

/* predict_particle for particles i … i + 3, none of them position-pinned, one a lane; the fit's
 * terms into *fit when fit is not NULL. Returns the lanes that turn or deform as a mask. */
static inline op_lanes4 predict_quad_avx(op_body *body, int i, double h, const double h2g[3], const double anchor[3],
                                       fit_lanes *fit)
{
    const op_lanes4 step = op4_all(h), zero = op4_zero();
    const double *first = body->state.velocity;
    op_lanes4 x[3], v[3], hv[3], y[3], R[9], rate[9], Y[9], turning = zero;
    op4_load_consecutive(&body->state.position[3 * i], 3, 3, x);
    op4_load_consecutive(&body->state.velocity[3 * i], 3, 3, v);
    for (int k = 0; k < 3; ++k) {
        hv[k] = op4_mul(step, v[k]);
        y[k] = op4_add(op4_add(x[k], hv[k]), op4_all(h2g[k]));
        turning = op4_or_mask(turning, op4_neq(v[k], op4_all(first[k])));
    }
    op4_store_consecutive(&body->inertial_position[3 * i], 3, 3, y);
    op4_store_consecutive(&body->state.position[3 * i], 3, 3, y);
    op4_load_consecutive(&body->state.rotation[9 * i], 9, 9, R);
    op4_load_consecutive(&body->state.rotation_rate[9 * i], 9, 9, rate);
    for (int k = 0; k < 9; ++k) {
        Y[k] = op4_add(R[k], op4_mul(step, rate[k]));
        turning = op4_or_mask(turning, op4_neq(rate[k], zero));
    }
    op4_store_consecutive(&body->inertial_rotation[9 * i], 9, 9, Y);
    if (!fit)
        return turning;
    const op_graph *g = body->graph;
    op_lanes4 m = op4_load(&g->mass[i]), e[3], md[3], me[3], outer[9], A[9], YA[9], moment[9];
    for (int k = 0; k < 3; ++k) {
        e[k] = op4_sub(x[k], op4_all(anchor[k]));
        md[k] = op4_mul(m, op4_add(e[k], hv[k]));
        me[k] = op4_mul(m, e[k]);
    }
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            outer[3 * r + c] = op4_mul(md[r], e[c]);
    op4_load_consecutive(&g->rest_moment[9 * i], 9, 9, A);
    op4_m3_mul(YA, Y, A);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            moment[3 * r + c] =
                op4_add(op4_add(op4_mul(YA[3 * r], R[3 * c]), op4_mul(YA[3 * r + 1], R[3 * c + 1])),
                              op4_mul(YA[3 * r + 2], R[3 * c + 2]));
    fit->spin_low = op4_add_in_order(fit->spin_low, moment[0], moment[1], moment[2], moment[3]);
    fit->spin_high = op4_add_in_order(fit->spin_high, moment[4], moment[5], moment[6], moment[7]);
    fit->spread_low = op4_add_in_order(fit->spread_low, outer[0], outer[1], outer[2], outer[3]);
    fit->spread_high = op4_add_in_order(fit->spread_high, outer[4], outer[5], outer[6], outer[7]);
    fit->d_mass = op4_add_in_order(fit->d_mass, md[0], md[1], md[2], m);
    fit->e_spin8 = op4_add_in_order(fit->e_spin8, me[0], me[1], me[2], moment[8]);
    fit->spread8 = op4_sum_in_order(fit->spread8, outer[8]);
    return turning;
}

/* Whether none of particles i … i + 3 is pinned in flags */
static inline int quad_free(const unsigned char *pinned, int i)
{
    return !(pinned[i] | pinned[i + 1] | pinned[i + 2] | pinned[i + 3]);
}

static int predict_particles_avx(op_body *body, double h, const double h2g[3], const double anchor[3],
                                 op_rigid_fit_sums *fit)
{
    int n = body->graph->particle_count, turning = 0, i = 0;
    op_lanes4 turning_lanes = op4_zero();
    fit_lanes lanes = fit ? fit_lanes_load(fit) : (fit_lanes){ 0 };
    for (; i + 4 <= n; i += 4) {
        if (quad_free(body->position_pinned, i)) {
            turning_lanes = op4_or_mask(turning_lanes, predict_quad_avx(body, i, h, h2g, anchor, fit ? &lanes : NULL));
            continue;
        }
        if (fit)
            fit_lanes_store(&lanes, fit);
        for (int p = i; p < i + 4; ++p)
            turning |= predict_particle(body, p, h, h2g, anchor, fit);
        if (fit)
            lanes = fit_lanes_load(fit);
    }
    if (fit)
        fit_lanes_store(&lanes, fit);
    for (; i < n; ++i)
        turning |= predict_particle(body, i, h, h2g, anchor, fit);
    return turning || op4_bits(turning_lanes) != 0;
}

/* turn_scalar's R ← Q R for particles first … last − 1, four at a time where none is pinned */
static void turn_avx(op_body *body, const double Q[9], int n)
{
    op_lanes4 q[9];
    for (int k = 0; k < 9; ++k)
        q[k] = op4_all(Q[k]);
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        if (!quad_free(body->rotation_pinned, i)) {
            turn_scalar(body, Q, i, i + 4);
            continue;
        }
        double *rotation = &body->state.rotation[9 * i];
        op_lanes4 R[9], turned[9];
        op4_load_consecutive(rotation, 9, 9, R);
        op4_m3_mul(turned, q, R);
        op4_store_consecutive(rotation, 9, 9, turned);
    }
    turn_scalar(body, Q, i, n);
}

/* Entries [offset, offset + count) of four bodies' arrays, one register an entry, body p in lane
 * p (op4_load_records) */
static inline void load_bodies(const double *const array[4], size_t offset, int count, op_lanes4 *out)
{
    const double *const at[4] = { array[0] + offset, array[1] + offset, array[2] + offset, array[3] + offset };
    op4_load_records(at, count, out);
}

static inline void store_bodies(double *const array[4], size_t offset, int count, const op_lanes4 *in)
{
    double *const at[4] = { array[0] + offset, array[1] + offset, array[2] + offset, array[3] + offset };
    op4_store_records(at, count, in);
}

/* The fit's sums of four bodies, one body a lane. */
typedef struct fit_bodies {
    op_lanes4 mass, d[3], e[3], spread[9], spin[9];
} fit_bodies;

/* predict_particle for every particle of four bodies of one graph, none of them pinned, one body a
 * lane: each lane's sums take its body's terms in index order, as one body's loop adds them, so
 * they need none of op4_add_in_order's transposes, and no particle is left over for the scalar code
 * (a pile's 30-particle bodies left two each). The graph's masses and rest moments are the same in
 * every lane. Its arithmetic is predict_quad_avx's, written out again: with the two sharing
 * inlined helpers (the steps, the fit's terms as a struct) PREDICT measured 63.7–64.9 ms against
 * 60.5–64.0 (the 180 models, one thread, alternated), so each keeps its own. */
static void predict_bodies_avx(op_body *const bodies[4], double h, const double h2g[3], const double *const anchor[4],
                               op_rigid_fit_sums *const fits[4], int turning[4])
{
    const op_graph *g = bodies[0]->graph;
    const op_lanes4 step = op4_all(h), zero = op4_zero();
    double *position[4], *inertial_position[4], *inertial_rotation[4];
    const double *velocity[4], *rotation[4], *rate[4];
    for (int p = 0; p < 4; ++p) {
        position[p] = bodies[p]->state.position;
        velocity[p] = bodies[p]->state.velocity;
        rotation[p] = bodies[p]->state.rotation;
        rate[p] = bodies[p]->state.rotation_rate;
        inertial_position[p] = bodies[p]->inertial_position;
        inertial_rotation[p] = bodies[p]->inertial_rotation;
    }
    op_lanes4 first[3], origin[3], gravity[3], turning_lanes = zero;
    load_bodies(velocity, 0, 3, first);
    op4_load_records(anchor, 3, origin);
    for (int k = 0; k < 3; ++k)
        gravity[k] = op4_all(h2g[k]);
    double *mass_at[4], *d_at[4], *e_at[4], *spread_at[4], *spin_at[4];
    fit_bodies sum;
    for (int p = 0; fits && p < 4; ++p) {
        mass_at[p] = &fits[p]->mass;
        d_at[p] = fits[p]->d;
        e_at[p] = fits[p]->e;
        spread_at[p] = fits[p]->spread;
        spin_at[p] = fits[p]->spin;
    }
    if (fits) {
        load_bodies((const double *const *)mass_at, 0, 1, &sum.mass);
        load_bodies((const double *const *)d_at, 0, 3, sum.d);
        load_bodies((const double *const *)e_at, 0, 3, sum.e);
        load_bodies((const double *const *)spread_at, 0, 9, sum.spread);
        load_bodies((const double *const *)spin_at, 0, 9, sum.spin);
    }
    for (int i = 0; i < g->particle_count; ++i) {
        size_t at3 = 3 * (size_t)i, at9 = 9 * (size_t)i;
        op_lanes4 x[3], v[3], hv[3], y[3], R[9], Rate[9], Y[9];
        load_bodies((const double *const *)position, at3, 3, x);
        load_bodies(velocity, at3, 3, v);
        for (int k = 0; k < 3; ++k) {
            hv[k] = op4_mul(step, v[k]);
            y[k] = op4_add(op4_add(x[k], hv[k]), gravity[k]);
            turning_lanes = op4_or_mask(turning_lanes, op4_neq(v[k], first[k]));
        }
        store_bodies(inertial_position, at3, 3, y);
        store_bodies(position, at3, 3, y);
        load_bodies(rotation, at9, 9, R);
        load_bodies(rate, at9, 9, Rate);
        for (int k = 0; k < 9; ++k) {
            Y[k] = op4_add(R[k], op4_mul(step, Rate[k]));
            turning_lanes = op4_or_mask(turning_lanes, op4_neq(Rate[k], zero));
        }
        store_bodies(inertial_rotation, at9, 9, Y);
        if (!fits)
            continue;
        op_lanes4 m = op4_broadcast(&g->mass[i]), e[3], md[3], A[9], YA[9];
        for (int k = 0; k < 3; ++k) {
            e[k] = op4_sub(x[k], origin[k]);
            md[k] = op4_mul(m, op4_add(e[k], hv[k]));
        }
        sum.mass = op4_add(sum.mass, m);
        for (int k = 0; k < 3; ++k) {
            sum.d[k] = op4_add(sum.d[k], md[k]);
            sum.e[k] = op4_add(sum.e[k], op4_mul(m, e[k]));
        }
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c)
                sum.spread[3 * r + c] = op4_add(sum.spread[3 * r + c], op4_mul(md[r], e[c]));
        for (int k = 0; k < 9; ++k)
            A[k] = op4_broadcast(&g->rest_moment[at9 + k]);
        op4_m3_mul(YA, Y, A);
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) {
                op_lanes4 moment = op4_add(
                    op4_add(op4_mul(YA[3 * r], R[3 * c]), op4_mul(YA[3 * r + 1], R[3 * c + 1])),
                    op4_mul(YA[3 * r + 2], R[3 * c + 2]));
                sum.spin[3 * r + c] = op4_add(sum.spin[3 * r + c], moment);
            }
    }
    int mask = op4_bits(turning_lanes);
    for (int p = 0; p < 4; ++p)
        turning[p] = (mask >> p) & 1;
    if (!fits)
        return;
    op4_store_records(mass_at, 1, &sum.mass);
    op4_store_records(d_at, 3, sum.d);
    op4_store_records(e_at, 3, sum.e);
    op4_store_records(spread_at, 9, sum.spread);
    op4_store_records(spin_at, 9, sum.spin);
}

/* turn_scalar for four bodies of one graph, none of them pinned, one body a lane; a body whose
 * Q is NULL keeps its rotations (its lane stores them back as they were) */
static void turn_bodies_avx(op_body *const bodies[4], const double *const Q[4])
{
    static const double identity[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
    const double *turn[4];
    double *rotation[4], kept[4];
    for (int p = 0; p < 4; ++p) {
        turn[p] = Q[p] ? Q[p] : identity;
        kept[p] = Q[p] ? 0.0 : -1.0; /* the sign bit chooses */
        rotation[p] = bodies[p]->state.rotation;
    }
    op_lanes4 q[9], keep = op4_load(kept);
    op4_load_records(turn, 9, q);
    for (int i = 0; i < bodies[0]->graph->particle_count; ++i) {
        op_lanes4 R[9], turned[9];
        load_bodies((const double *const *)rotation, 9 * (size_t)i, 9, R);
        op4_m3_mul(turned, q, R);
        for (int k = 0; k < 9; ++k)
            turned[k] = op4_select(keep, R[k], turned[k]);
        store_bodies(rotation, 9 * (size_t)i, 9, turned);
    }
}

static void difference_scaled_avx(double *out, const double *a, const double *b, double scale, size_t count)
{
    op_lanes4 s = op4_all(scale);
    size_t k = 0;
    for (; k + 4 <= count; k += 4)
        op4_store(out + k, op4_mul(op4_sub(op4_load(a + k), op4_load(b + k)), s));
    difference_scaled_scalar(out, a, b, scale, k, count);
}
OP_SIMD_AVX_END
#endif

int op_predict_particles(op_body *body, double h, const double gravity[3], const double anchor[3],
                         op_rigid_fit_sums *fit)
{
    double h2 = h * h, h2g[3] = { h2 * gravity[0], h2 * gravity[1], h2 * gravity[2] };
#if OP_SIMD_AVX
    if (op_simd_use_avx)
        return predict_particles_avx(body, h, h2g, anchor, fit);
#endif
    return predict_particles_scalar(body, h, h2g, anchor, fit);
}

void op_predict_turn(op_body *body, const double Q[9])
{
#if OP_SIMD_AVX
    if (op_simd_use_avx) {
        turn_avx(body, Q, body->graph->particle_count);
        return;
    }
#endif
    turn_scalar(body, Q, 0, body->graph->particle_count);
}

int op_predict_bodies_unpinned(op_body *const bodies[4])
{
    for (int p = 0; p < 4; ++p)
        if (bodies[p]->pin_count > 0 || bodies[p]->graph != bodies[0]->graph)
            return 0;
    return 1;
}

void op_predict_particles4(op_body *const bodies[4], double h, const double gravity[3], const double *const anchor[4],
                           op_rigid_fit_sums *const fits[4], int turning[4])
{
#if OP_SIMD_AVX
    if (op_simd_use_avx) {
        double h2 = h * h, h2g[3] = { h2 * gravity[0], h2 * gravity[1], h2 * gravity[2] };
        predict_bodies_avx(bodies, h, h2g, anchor, fits, turning);
        return;
    }
#endif
    for (int p = 0; p < 4; ++p)
        turning[p] = op_predict_particles(bodies[p], h, gravity, anchor[p], fits ? fits[p] : NULL);
}

void op_predict_turn4(op_body *const bodies[4], const double *const Q[4])
{
#if OP_SIMD_AVX
    if (op_simd_use_avx) {
        turn_bodies_avx(bodies, Q);
        return;
    }
#endif
    for (int p = 0; p < 4; ++p)
        if (Q[p])
            op_predict_turn(bodies[p], Q[p]);
}

void op_predict_update_velocity(op_body *body, double h)
{
    size_t n = (size_t)body->graph->particle_count;
    double scale = 1.0 / h;
#if OP_SIMD_AVX
    if (op_simd_use_avx) {
        difference_scaled_avx(body->state.velocity, body->state.position, body->start_position, scale, 3 * n);
        difference_scaled_avx(body->state.rotation_rate, body->state.rotation, body->start_rotation, scale, 9 * n);
        return;
    }
#endif
    difference_scaled_scalar(body->state.velocity, body->state.position, body->start_position, scale, 0, 3 * n);
    difference_scaled_scalar(body->state.rotation_rate, body->state.rotation, body->start_rotation, scale, 0, 9 * n);
}
