/* Contact: the floor, the cell-sorted grid broad phase, the ellipsoid narrow phase and the
 * Jacobi response with friction (collide.h). */
#include "contact/collide.h"

#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "base/math3.h"
#include "kernels/lanes.h"

static const double up[3] = { 0.0, 1.0, 0.0 };

static int gather_motion(op_collider *c, const op_body *bodies, int q, const op_body **body);

double op_support_distance(const double axes[9], const double radii[3], const double n[3])
{
    double u[3];
    m3_mul_tv(u, axes, n); /* n in the ellipsoid's own axes */
    double reach2 = 0.0;
    for (int a = 0; a < 3; ++a)
        reach2 += radii[a] * radii[a] * u[a] * u[a];
    return sqrt(reach2);
}

/* Row y of E = R Ē only, formed as m3_mul forms it: the same bits as op_support_distance(E, r,
 * up), whose other terms are exact zeros, at a quarter of the cost (this runs for every particle
 * of every sub-step with a floor). */
double op_particle_reach_down(const op_body *body, int i)
{
    const double *R = &body->state.rotation[9 * i], *rest = &body->graph->rest_axes[9 * i];
    const double *radii = &body->graph->radii[3 * i];
    double reach2 = 0.0;
    for (int a = 0; a < 3; ++a) {
        double u = R[3] * rest[a] + R[4] * rest[3 + a] + R[5] * rest[6 + a];
        reach2 += radii[a] * radii[a] * u * u;
    }
    return sqrt(reach2);
}

double op_particle_lowest_point(const op_body *body, int i)
{
    return body->state.position[3 * i + 1] - op_particle_reach_down(body, i);
}

static double friction_keep(double friction, double normal_change, double tangential);

/* How far particle i reaches below the floor (≤ 0 when it does not), its h(+y) into *reach, or −1
 * when its centre is too high for it to touch: h(+y) is at most the largest semi-axis (times
 * 1 + a few ε of rounding), so such a particle is skipped without the square root.
 * Position-pinned particles never touch. */
static double floor_depth(const op_body *body, int i, double height, double *reach)
{
    const double *r = &body->graph->radii[3 * i];
    if (body->position_pinned[i] ||
        body->state.position[3 * i + 1] - height > 1.0001 * op_max(r[0], op_max(r[1], r[2])))
        return -1.0;
    *reach = op_particle_reach_down(body, i);
    return height - (body->state.position[3 * i + 1] - *reach);
}

/* The velocity's floor response after a normal velocity change (not negative) that the contact
 * made: Coulomb friction takes up to μ times it off the tangential velocity. */
static void floor_friction(double v[3], double friction, double normal_change)
{
    double tangential = sqrt(v[0] * v[0] + v[2] * v[2]);
    if (tangential > 0) {
        double keep = friction_keep(friction, normal_change, tangential);
        v[0] *= keep;
        v[2] *= keep;
    }
}

int op_collide_floor(op_body *body, double height, double friction, double *deepest_before, double *deepest_after)
{
    int contacts = 0;
    double before = 0.0, after = 0.0;
    for (int i = 0; i < body->graph->particle_count; ++i) {
        double reach, depth = floor_depth(body, i, height, &reach);
        if (!(depth > 0))
            continue;
        ++contacts;
        before = op_max(before, depth);
        double *x = &body->state.position[3 * i], *v = &body->state.velocity[3 * i];
        x[1] += depth;
        after = op_max(after, height - (x[1] - reach)); /* its lowest point now: h(+y) is as it was */
        double normal_change = v[1] < 0 ? -v[1] : 0.0;
        v[1] += normal_change;
        floor_friction(v, friction, normal_change);
    }
    *deepest_before = before;
    *deepest_after = after;
    return contacts;
}

int op_floor_project(op_body *body, double height, double *push, double *deepest_before)
{
    int contacts = 0;
    double before = 0.0;
    for (int i = 0; i < body->graph->particle_count; ++i) {
        double reach, depth = floor_depth(body, i, height, &reach);
        push[i] = depth > 0 ? depth : 0.0;
        if (!(depth > 0))
            continue;
        ++contacts;
        before = op_max(before, depth);
        body->state.position[3 * i + 1] += depth;
    }
    *deepest_before = before;
    return contacts;
}

int op_floor_respond(op_body *body, const double *push, double h, double friction)
{
    int contacts = 0;
    for (int i = 0; i < body->graph->particle_count; ++i) {
        if (!(push[i] > 0))
            continue;
        ++contacts;
        double *v = &body->state.velocity[3 * i];
        double normal_change = push[i] / h + (v[1] < 0 ? -v[1] : 0.0);
        if (v[1] < 0)
            v[1] = 0.0;
        floor_friction(v, friction, normal_change);
    }
    return contacts;
}

double op_floor_penetration(const op_body *body, double height)
{
    double deepest = 0.0;
    for (int i = 0; i < body->graph->particle_count; ++i)
        if (!body->position_pinned[i])
            deepest = op_max(deepest, height - op_particle_lowest_point(body, i));
    return deepest;
}

/* ---- narrow phase and response ---- */

/* One pass's correction of a pair: j moves by share_j·shift and its velocity by share_j·dv, i by
 * −share_i times the same. */
struct op_contact {
    double penetration; /* p: h_i(n) + h_j(n) − L */
    double shift[3];    /* p n, less the static friction */
    double dv[3];       /* the change of v_j − v_i: the approach removed, then friction */
    double share_i, share_j;
};

/* Particle q's ellipsoid as the passes read it, one cache line: its support matrix
 * E diag(r²) Eᵀ (E = R Ē, upper triangle by rows), inverse mass (0 where the position is pinned)
 * and h(+y) = √S_yy. */
struct op_contact_shape {
    double support[6];
    double inverse_mass;
    double up;
};

/* The contact physics over lanes (contact/pair_lanes.h): one lane, and four AVX lanes where the
 * build has them */
#define LANE op_lanes1
#define LANE_MASK op_lanes1_mask
#define LANES 1
#define LANES_NAME(name) name##_lanes1
#define L(op) op1_##op
#include "contact/pair_lanes.h"

#if OP_SIMD_AVX
OP_SIMD_AVX_BEGIN
#define LANE op_lanes4
#define LANE_MASK op_lanes4_mask
#define LANES 4
#define LANES_NAME(name) name##_lanes4
#define L(op) op4_##op
#include "contact/pair_lanes.h"
OP_SIMD_AVX_END
#endif

/* Coulomb friction (contact/pair_lanes.h), one at a time */
static double friction_keep(double friction, double normal_change, double tangential)
{
    return friction_keep_lanes1(friction, normal_change, tangential);
}

/* One thread's count of penetrating pairs in a pass, of those deeper than the tolerance
 * (OP_COLLIDE_TOLERANCE), and the deepest of them. */
struct pass_tally {
    int active, deep;
    double deepest;
};

static int collider_reserve(op_ctx *ctx, op_collider *c, int count)
{
    if (count <= c->capacity)
        return OP_OK;
    size_t n = (size_t)count + (size_t)count / 2;
    c->capacity = 0;
    if (!OP_RENEW(ctx, c->position, 3 * n) || !OP_RENEW(ctx, c->velocity, 3 * n) || !OP_RENEW(ctx, c->start, 3 * n) ||
        !OP_RENEW(ctx, c->bound, n) || !OP_RENEW(ctx, c->least, n) ||
        !OP_RENEW(ctx, c->group, n) || !OP_RENEW(ctx, c->touching, n) ||
        !OP_RENEW(ctx, c->incidence_start, n) || !OP_RENEW(ctx, c->incidence_end, n) ||
        !OP_RENEW(ctx, c->degree, n) || !OP_RENEW(ctx, c->searched_position, 3 * n) ||
        !OP_RENEW(ctx, c->involved, n) || !OP_RENEW(ctx, c->moving, n) || !OP_RENEW(ctx, c->moved_at, n) ||
        !OP_RENEW(ctx, c->island_root, n) || !OP_RENEW(ctx, c->island_of, n) ||
        !OP_RENEW(ctx, c->involved_bits, n / 64 + 1))
        return ctx->status;
    free(c->shape);
    /* on lines of their own: a pair's two reads of a particle's shape touch one line each */
    if (!(c->shape = op_calloc_lines(ctx, n, sizeof *c->shape)))
        return ctx->status;
    c->capacity = (int)n;
    c->searched_count = 0; /* the searched positions are gone with the old arrays */
    return OP_OK;
}

/* A particle that has moved more than this fraction of the skin from its reference takes a new
 * one when the pairs are refreshed (collide.h, "Reuse between calls"); it must be below the
 * 0.49 at which a refresh becomes necessary. Lower re-queries more particles at each refresh,
 * higher refreshes, and sorts the grid, more often. Over frames 20–150 of the 52- and 180-model
 * scenes, 0.3 makes 235 and 171 refreshes of about 1,010 and 570 particles each, where whole
 * searches were 165 and 111 of all 4,120 and 4,404; of 0.2, 0.3 and 0.4 it gave the fastest
 * contact stage. */
static const double REFERENCE_RESET = 0.3;

/* When at most half of the particles are marked in c->moving (by gather_positions: beyond
 * REFERENCE_RESET of the skin from their references), moves those references to where the
 * particles are and returns `movers`; otherwise count + 1, nothing moved. */
static int take_movers(op_collider *c, int count, int movers)
{
    if (movers > count / 2)
        return count + 1;
#pragma omp parallel for schedule(static) if (op_collide_on_team())
    for (int q = 0; q < count; ++q)
        if (c->moving[q])
            v3_copy(&c->searched_position[3 * q], &c->position[3 * q]);
    return movers;
}

/* The candidate pairs of this call into c->near (collide.h, "Reuse between calls"): when the
 * last pairs may miss some, a refresh of the particles that moved or a whole grid search, both
 * widened by the skin; then the pairs within reach now, tested exactly as op_broad_phase_find
 * tests them. */
static int find_near_pairs(op_ctx *ctx, op_collider *c, int count, double margin, int moved, int movers,
                           int *searched, int *refreshed)
{
    op_broad_phase *bp = &c->broad;
    int reusable = c->searched_count == count && c->searched_margin == margin;
    *searched = moved || !reusable;
    *refreshed = 0;
    if (*searched) {
        int refresh = reusable && take_movers(c, count, movers) <= count;
        *refreshed = refresh;
        c->searched_count = 0; /* until the search has succeeded */
        if (refresh) {
            if (op_broad_phase_refresh(ctx, bp, count, c->searched_position, c->bound, c->group, margin + c->skin,
                                       c->moving) != OP_OK)
                return ctx->status;
        } else {
            if (op_broad_phase_find(ctx, bp, count, c->position, c->bound, c->group, margin + c->skin) != OP_OK)
                return ctx->status;
            memcpy(c->searched_position, c->position, 3 * (size_t)count * sizeof(double));
        }
        c->searched_count = count;
        c->searched_margin = margin;
    }
    size_t n = (size_t)bp->pair_count + (size_t)bp->pair_count / 2;
    if (bp->pair_count > c->near_capacity) {
        c->near_capacity = 0;
        if (!OP_RENEW(ctx, c->near, n))
            return ctx->status;
        c->near_capacity = (int)n;
    }
    if (bp->pair_count > c->within_capacity) {
        c->within_capacity = 0;
        if (!OP_RENEW(ctx, c->within, n))
            return ctx->status;
        c->within_capacity = (int)n;
    }
    int threads = omp_get_max_threads();
    if (threads > c->thread_capacity) {
        c->thread_capacity = 0;
        OP_FREE(c->island_run);
        if (!OP_RENEW(ctx, c->thread_near, (size_t)threads) || !OP_RENEW(ctx, c->tally, 2 * (size_t)threads) ||
            !(c->island_run = op_calloc_lines(ctx, (size_t)threads, sizeof *c->island_run)))
            return ctx->status;
        c->thread_capacity = threads;
    }
    /* each thread tests a block of the kept pairs and, once every block's count is known,
     * copies its pairs within reach to where they go: the list in pair order for any team */
    int kept = bp->pair_count;
#pragma omp parallel num_threads(threads) if (op_collide_on_team())
    {
        int thread = omp_get_thread_num(), team = omp_get_num_threads();
        int first = (int)((int64_t)kept * thread / team), last = (int)((int64_t)kept * (thread + 1) / team);
        /* the arrays read through local copies: a store to c->within, a byte, might alias c's
         * and bp's fields as far as the compiler knows, which it then read again each pair */
        const op_pair *candidate = bp->pairs;
        const double *position = c->position, *bound = c->bound;
        unsigned char *within = c->within;
        int found = 0;
        for (int k = first; k < last; ++k) {
            int i = candidate[k].i, j = candidate[k].j;
            double reach = bound[i] + bound[j] + margin;
            int near = v3_dist2(&position[3 * i], &position[3 * j]) < reach * reach;
            within[k] = (unsigned char)near;
            found += near;
        }
        c->thread_near[thread] = found;
#pragma omp barrier
        int at = 0;
        for (int t = 0; t < thread; ++t)
            at += c->thread_near[t];
        /* without a branch (one kept pair in 13 is within reach), each pair written where the next
         * one within reach goes, up to the last: past it is the next thread's */
        for (int k = first, end = at + found; k < last && at < end; ++k) {
            c->near[at] = bp->pairs[k];
            at += c->within[k];
        }
        if (thread == team - 1)
            c->near_count = at;
    }
    return OP_OK;
}

void op_support_matrix(double out[6], const double axes[9], const double radii[3])
{
    support_matrix_lanes1(out, axes, radii);
}

double op_support_along(const double support[6], const double n[3])
{
    return support_times_length_lanes1(support, n);
}

/* The global list's layout: where each body's particles start (c->body_start[body_count + 1]),
 * each particle's body and bounding radius, and the skin (the largest of those). These change
 * only with the bodies' graphs, so they are made again only when a graph differs from the last
 * call's (graphs are never changed in place). */
static int lay_out(op_ctx *ctx, op_collider *c, const op_body *bodies, int body_count, int *changed)
{
    int same = c->body_start && c->laid_out_bodies == body_count;
    for (int b = 0; same && b < body_count; ++b)
        same = c->laid_out_graph[b] == bodies[b].graph;
    *changed = !same;
    if (same)
        return OP_OK;
    c->laid_out_bodies = -1; /* until laid out */
    if (body_count + 1 > c->body_capacity) {
        c->body_capacity = 0;
        if (!OP_RENEW(ctx, c->body_start, (size_t)body_count + 1) || !OP_RENEW(ctx, c->laid_out_graph, (size_t)body_count + 1))
            return ctx->status;
        c->body_capacity = body_count + 1;
    }
    c->body_start[0] = 0;
    for (int b = 0; b < body_count; ++b)
        c->body_start[b + 1] = c->body_start[b] + bodies[b].graph->particle_count;
    if (collider_reserve(ctx, c, c->body_start[body_count]) != OP_OK)
        return ctx->status;
    c->skin = 0.0;
    c->smallest = INFINITY;
    for (int b = 0; b < body_count; ++b) {
        const op_graph *graph = bodies[b].graph;
        for (int i = 0, g = c->body_start[b]; i < graph->particle_count; ++i, ++g) {
            const double *r = &graph->radii[3 * i];
            c->bound[g] = op_max(r[0], op_max(r[1], r[2]));
            c->least[g] = op_min(r[0], op_min(r[1], r[2]));
            c->group[g] = b;
            c->skin = op_max(c->skin, c->bound[g]);
            c->smallest = op_min(c->smallest, c->least[g]);
        }
        c->laid_out_graph[b] = graph;
    }
    c->searched_count = 0; /* the last search's pairs are of other particles */
    c->laid_out_bodies = body_count;
    return OP_OK;
}

/* What gather_particle compares each particle's move with. */
typedef struct gather_limits {
    int compare;            /* there is a search to compare with */
    double allowed2, reset2; /* squared distances: too far for the search's pairs, and a mover */
} gather_limits;

static gather_limits gather_limits_of(const op_collider *c)
{
    double allowed = 0.49 * c->skin, reset = REFERENCE_RESET * c->skin;
    return (gather_limits){ c->searched_count == c->body_start[c->laid_out_bodies], allowed * allowed, reset * reset };
}

/* Particle q's centre x into the global list (what the broad phase needs of all of them), and
 * whether it has moved more than a little under half the skin (so that rounding in the test
 * cannot matter) from its reference position, or there is no search to compare with: bit 0 of
 * the result. The same distance marks it in c->moving, and sets bit 1, when it is beyond
 * REFERENCE_RESET of the skin, for a refresh (take_movers): one pass over the positions where a
 * pass of its own cost a parallel loop per search. Without a search to compare with these are
 * not used. The arrays are the caller's copies of c's: a store to c->moving, a byte, might
 * alias c's fields as far as the compiler knows, and reloading them after each store, with the
 * tallies kept in memory, cost 2.5 ns a particle on the 180-model pile (one thread). */
static inline int gather_particle(const gather_limits *limits, const double x[3], double *position,
                                  const double *searched, unsigned char *moving)
{
    v3_copy(position, x);
    double distance2 = limits->compare ? v3_dist2(position, searched) : INFINITY;
    int mover = !(distance2 <= limits->reset2);
    *moving = (unsigned char)mover;
    return (distance2 <= limits->allowed2 ? 0 : 1) | mover << 1;
}

/* gather_particle for every particle, in parallel over particles, not bodies, whose sizes
 * differ */
static op_gathered gather_positions(op_collider *c, const op_body *bodies, int count)
{
    gather_limits limits = gather_limits_of(c);
    double *position = c->position;
    const double *searched = c->searched_position;
    unsigned char *moving = c->moving;
    int moved = 0, movers = 0;
#pragma omp parallel for schedule(static) reduction(| : moved) reduction(+ : movers) \
    if (op_collide_on_team())
    for (int q = 0; q < count; ++q) {
        int b = c->group[q];
        int found = gather_particle(&limits, &bodies[b].state.position[3 * (q - c->body_start[b])], &position[3 * q],
                                    &searched[3 * q], &moving[q]);
        moved |= found & 1;
        movers += found >> 1;
    }
    return (op_gathered){ moved, movers };
}

int op_collider_lay_out(op_ctx *ctx, op_collider *c, const op_body *bodies, int body_count)
{
    int changed;
    return lay_out(ctx, c, bodies, body_count, &changed);
}

void op_collider_gather_body(op_collider *c, const op_body *bodies, int b, op_gathered *tally)
{
    gather_limits limits = gather_limits_of(c);
    int first = c->body_start[b], count = c->body_start[b + 1] - first, moved = 0, movers = 0;
    const double *x = bodies[b].state.position, *searched = &c->searched_position[3 * first];
    double *position = &c->position[3 * first];
    unsigned char *moving = &c->moving[first];
    for (int k = 0; k < count; ++k) {
        int found = gather_particle(&limits, &x[3 * k], &position[3 * k], &searched[3 * k], &moving[k]);
        moved |= found & 1;
        movers += found >> 1;
    }
    tally->moved |= moved;
    tally->movers += movers;
}

void op_gathered_add(op_gathered *sum, const op_gathered *tally)
{
    sum->moved |= tally->moved;
    sum->movers += tally->movers;
}

/* gather_involved's part besides the support matrix: particle q's velocity, start position and
 * inverse mass, its step reset. Returns its index in its body, *body set to the body. */
static int gather_motion(op_collider *c, const op_body *bodies, int q, const op_body **body)
{
    int b = c->group[q], i = q - c->body_start[b];
    *body = &bodies[b];
    v3_copy(&c->velocity[3 * q], &(*body)->state.velocity[3 * i]);
    v3_copy(&c->start[3 * q], &(*body)->start_position[3 * i]);
    c->shape[q].inverse_mass = (*body)->position_pinned[i] ? 0.0 : 1.0 / (*body)->graph->mass[i];
    c->moved_at[q] = 0;
    return i;
}

/* What the passes read of the involved particles c->involved[first … first + count), count ≤ 4:
 * their velocities, positions at the sub-step's start and shapes (gather_shapes: the support
 * matrix and h(+y) = √S_yy, the same bits as op_particle_lowest_point's, its other terms being
 * exact zeros and S_yy summing (r_a² E_ya) E_ya as that sums r_a² u_a²); four in AVX lanes where
 * the CPU has them, the same bits. */
static void gather_involved_block(op_collider *c, const op_body *bodies, int first, int count)
{
    const int *q = &c->involved[first];
#if OP_SIMD_AVX
    if (op_simd_use_avx && count == 4) {
        gather_shapes_lanes4(c, bodies, q);
        return;
    }
#endif
    for (int p = 0; p < count; ++p)
        gather_shapes_lanes1(c, bodies, &q[p]);
}

/* How far involved particle q reaches below the floor (≤ 0 when it does not): its lowest point
 * from its gathered h(+y), the same bits as op_particle_lowest_point's (gather_shapes), without
 * reading its rotation and rest axes again. */
static double depth_below_floor(const op_collider *c, const op_contact_def *def, int q)
{
    return def->floor_height - (c->position[3 * q + 1] - c->shape[q].up);
}

/* Particle q's position and velocity back into its body (the passes change no others); returns
 * how far it reaches below the floor when there is one and it is position-free, else 0. */
static double scatter_involved(const op_collider *c, op_body *bodies, const op_contact_def *def, int q)
{
    int b = c->group[q], i = q - c->body_start[b];
    op_body *body = &bodies[b];
    v3_copy(&body->state.position[3 * i], &c->position[3 * q]);
    v3_copy(&body->state.velocity[3 * i], &c->velocity[3 * q]);
    if (!def->floor || body->position_pinned[i])
        return 0.0;
    return op_max(0.0, depth_below_floor(c, def, q));
}

/* The particles in some pair (c->involved, ascending) and the pairs incident to each, in pair
 * order (the pairs are visited in order): c->incidence from incidence_start[q] to
 * incidence_end[q]. Work in the pairs, not the particles (a pile's thousands of particles have
 * some hundreds in pairs), but for a bit a particle: ascending, the involved particles' reads of
 * their bodies' arrays (gather_involved, scatter_involved) go up each body's arrays, sharing
 * cache lines, where in the order the pairs first name them they jumped between bodies.
 * c->degree and c->involved_bits are 0 again for every particle on return. */
static void build_incidence(op_collider *c, const op_pair *pairs, int pair_count)
{
    int *degree = c->degree, *start = c->incidence_start, *end = c->incidence_end;
    uint64_t *bits = c->involved_bits;
    int lowest = INT_MAX, highest = -1;
    for (int k = 0; k < pair_count; ++k) {
        int i = pairs[k].i, j = pairs[k].j;
        degree[i]++;
        degree[j]++;
        bits[i >> 6] |= (uint64_t)1 << (i & 63);
        bits[j >> 6] |= (uint64_t)1 << (j & 63);
        lowest = i < lowest ? i : lowest; /* pairs have i < j */
        highest = j > highest ? j : highest;
    }
    c->involved_count = 0;
    for (int w = pair_count > 0 ? lowest >> 6 : 0; w <= highest >> 6; ++w) {
        for (uint64_t word = bits[w]; word; word &= word - 1)
            c->involved[c->involved_count++] = 64 * w + __builtin_ctzll(word);
        bits[w] = 0;
    }
    for (int p = 0, at = 0; p < c->involved_count; ++p) {
        int q = c->involved[p];
        start[q] = end[q] = at;
        at += degree[q];
        degree[q] = 0;
    }
    for (int k = 0; k < pair_count; ++k) {
        c->incidence[end[pairs[k].i]++] = k;
        c->incidence[end[pairs[k].j]++] = k;
    }
}

/* The pair's penetration along its unit centre line n (contact/pair_lanes.h), into n, or 0 when
 * neither particle is free to move; one at a time */
static inline __attribute__((always_inline)) double penetration(const op_collider *c, const op_pair *pair,
                                                                 double n[3])
{
    const struct op_contact_shape *si = &c->shape[pair->i], *sj = &c->shape[pair->j];
    if (!(si->inverse_mass + sj->inverse_mass > 0))
        return 0.0;
    return penetration_lanes1(&c->position[3 * pair->i], &c->position[3 * pair->j], si->support, sj->support, n);
}

/* Pair k's evaluation (contact/pair_lanes.h) into c->active[k] and c->contact[k], one at a time */
static void evaluate(op_collider *c, const op_pair *pairs, int k, double friction)
{
    evaluate_lanes1(c, pairs, &k, 1, friction);
}

/* evaluate for the pairs listed in k[0 … count), into c->active and c->contact: four at a time
 * in AVX lanes where the CPU has them (evaluate_lanes4), else one at a time; the same bits. */
static void evaluate_listed(op_collider *c, const op_pair *pairs, const int *k, int count, double friction)
{
#if OP_SIMD_AVX
    if (op_simd_use_avx) {
        for (int at = 0; at < count; at += 4)
            evaluate_lanes4(c, pairs, k + at, count - at < 4 ? count - at : 4, friction);
        return;
    }
#endif
    for (int at = 0; at < count; ++at)
        evaluate(c, pairs, k[at], friction);
}

/* How many penetrating pairs particle q is in. */
static int count_touching(const op_collider *c, int q)
{
    int touching = 0;
    for (int e = c->incidence_start[q]; e < c->incidence_end[q]; ++e)
        touching += c->active[c->incidence[e]];
    return touching;
}

/* The floor, when there is one, puts particle q back on top and takes its downward velocity. */
static void bound_by_floor(op_collider *c, const op_contact_def *def, int q)
{
    if (!def->floor)
        return;
    double depth = depth_below_floor(c, def, q);
    if (depth > 0) {
        c->position[3 * q + 1] += depth;
        c->velocity[3 * q + 1] = op_max(0.0, c->velocity[3 * q + 1]);
    }
}

/* Particle q's share of its penetrating pairs' corrections, each pair's divided by the larger
 * contact count of its two particles; then the floor, when there is one, puts q back on top and
 * takes its downward velocity. */
static void apply(op_collider *c, const op_pair *pairs, const op_contact_def *def, int q)
{
    if (c->shape[q].inverse_mass == 0 || c->touching[q] == 0)
        return;
    double *x = &c->position[3 * q], *v = &c->velocity[3 * q];
    for (int e = c->incidence_start[q]; e < c->incidence_end[q]; ++e) {
        int k = c->incidence[e];
        if (!c->active[k])
            continue;
        const struct op_contact *con = &c->contact[k];
        int ti = c->touching[pairs[k].i], tj = c->touching[pairs[k].j], most = ti > tj ? ti : tj;
        double share = (pairs[k].i == q ? -con->share_i : con->share_j) / most;
        v3_axpy(x, share, con->shift);
        v3_axpy(v, share, con->dv);
    }
    bound_by_floor(c, def, q);
}

/* OP_CONTACT_ORDER_JACOBI's passes, called by every thread of the region (collide.h,
 * "Resolution"): each pass evaluates every pair from the state the pass started with, then each
 * particle takes its shares. Returns the deepest penetration left, the same in every thread. */
static double jacobi_passes(op_collider *c, const op_pair *pairs, int pair_count, const op_contact_def *def)
{
    int thread = omp_get_thread_num(), team = omp_get_num_threads();
    const int *involved = c->involved, involved_count = c->involved_count;
    for (int pass = 0;; ++pass) {
        struct pass_tally mine = { 0, 0, 0.0 };
#pragma omp for schedule(static) nowait
        for (int k = 0; k < pair_count; ++k) {
            struct op_contact *con = &c->contact[k];
            /* only touching particles moved in the last pass: a pair of two others would
             * evaluate to what it did */
            if (pass == 0 || c->touching[pairs[k].i] || c->touching[pairs[k].j])
                evaluate(c, pairs, k, def->friction);
            if (c->active[k]) {
                ++mine.active;
                mine.deepest = op_max(mine.deepest, con->penetration);
                if (pass < def->passes)
                    c->touched[k] = 1;
            }
        }
        c->tally[thread] = mine;
#pragma omp barrier
        /* the tallies are next written after the count's and the apply's barriers, which every
         * thread reaches only after reading them here */
        struct pass_tally all = { 0, 0, 0.0 };
        for (int t = 0; t < team; ++t) {
            all.active += c->tally[t].active;
            all.deepest = op_max(all.deepest, c->tally[t].deepest);
        }
        if (pass == def->passes || all.active == 0)
            return all.deepest;
#pragma omp for schedule(static)
        for (int p = 0; p < involved_count; ++p)
            c->touching[involved[p]] = count_touching(c, involved[p]);
#pragma omp for schedule(static)
        for (int p = 0; p < involved_count; ++p)
            apply(c, pairs, def, involved[p]);
    }
}

/* Walks the pairs incident to particle p that come before pair k, setting the mark of each one's
 * colour in `taken` to `value`. */
static void mark_colours(const op_collider *c, unsigned char *taken, int p, int k, unsigned char value)
{
    for (int e = c->incidence_start[p]; e < c->incidence_end[p] && c->incidence[e] < k; ++e)
        taken[c->colour[c->incidence[e]]] = value;
}

/* Room for the colouring: at most 2D − 1 colours for D pairs at the busiest particle, and each
 * thread's workspace (colour_taken, colour_count) for that many. */
static int reserve_colours(op_ctx *ctx, op_collider *c)
{
    int most = 0;
    for (int p = 0; p < c->involved_count; ++p) {
        int q = c->involved[p];
        int degree = c->incidence_end[q] - c->incidence_start[q];
        most = degree > most ? degree : most;
    }
    if (2 * most + 1 > c->colour_capacity || c->colour_threads < c->thread_capacity) {
        size_t n = 2 * (size_t)most + 1, threads = (size_t)c->thread_capacity;
        c->colour_capacity = c->colour_threads = 0;
        if (!OP_RENEW(ctx, c->colour_taken, threads * n) || !OP_RENEW(ctx, c->colour_count, threads * (n + 1)))
            return ctx->status;
        c->colour_capacity = (int)n;
        c->colour_threads = (int)threads;
    }
    return OP_OK;
}

/* The root of particle q's tree in the islands' union-find, halving the path on the way. */
static int island_root(int *root, int q)
{
    while (root[q] != q)
        q = root[q] = root[root[q]];
    return q;
}

/* The islands of the colour order (collide.h, "Resolution"): the connected components of the
 * pairs, linked through shared particles (a union-find over the involved particles whose roots
 * are each tree's lowest particle), numbered in the order of c->involved; each island's pairs listed
 * in pair order in c->island_pairs from c->island[s].start (c->islands of them, then one more
 * start: the end). With c->one_island every pair is in one island. One thread. */
static void find_islands(op_collider *c, const op_pair *pairs, int pair_count)
{
    int *root = c->island_root, *island_of = c->island_of;
    for (int p = 0; p < c->involved_count; ++p)
        root[c->involved[p]] = c->involved[p];
    for (int k = 0; k < pair_count; ++k) {
        int a = island_root(root, pairs[k].i), b = island_root(root, pairs[k].j);
        if (a != b)
            root[a > b ? a : b] = a < b ? a : b;
    }
    /* ascending, a tree's root (its lowest particle) comes before the rest of it: numbered as it
     * comes, and the others take its number */
    int islands = 0;
    for (int p = 0; p < c->involved_count; ++p) {
        int q = c->involved[p], r = island_root(root, q);
        island_of[q] = r == q ? (c->one_island ? 0 : islands++) : island_of[r];
    }
    if (c->one_island)
        islands = 1;
    op_contact_island *island = c->island;
    for (int s = 0; s <= islands; ++s)
        island[s] = (op_contact_island){ 0, 0, 0 };
    for (int k = 0; k < pair_count; ++k)
        island[island_of[pairs[k].i] + 1].start++;
    for (int s = 0; s < islands; ++s)
        island[s + 1].start += island[s].start;
    for (int k = 0; k < pair_count; ++k) /* shifts each start up by one island, restored below */
        c->island_pairs[island[island_of[pairs[k].i]].start++] = k;
    for (int s = islands; s > 0; --s)
        island[s].start = island[s - 1].start;
    island[0].start = 0;
    c->islands = islands;
}

/* Island s's pairs coloured greedily in pair order, each the lowest colour no earlier pair of
 * either of its particles has: every pair of its particles is in the island, so these are the
 * colours of the same colouring of all the pairs. Then its pairs listed colour by colour, in
 * pair order within one, in c->colour_order. `taken` [colour_capacity] (all 0 between pairs)
 * and `count` [colour_capacity + 1] are the calling thread's workspace. */
static void colour_island(op_collider *c, const op_pair *pairs, int s, unsigned char *taken, int *count)
{
    op_contact_island *island = &c->island[s];
    const int *listed = c->island_pairs;
    int first = island->start, end = island[1].start, colours = 0;
    for (int e = first; e < end; ++e) {
        int k = listed[e];
        mark_colours(c, taken, pairs[k].i, k, 1);
        mark_colours(c, taken, pairs[k].j, k, 1);
        int colour = 0;
        while (taken[colour])
            ++colour;
        mark_colours(c, taken, pairs[k].i, k, 0);
        mark_colours(c, taken, pairs[k].j, k, 0);
        c->colour[k] = colour;
        colours = colour + 1 > colours ? colour + 1 : colours;
    }
    for (int colour = 0; colour <= colours; ++colour)
        count[colour] = 0;
    for (int e = first; e < end; ++e)
        count[c->colour[listed[e]] + 1]++;
    for (int colour = 0; colour < colours; ++colour)
        count[colour + 1] += count[colour];
    for (int e = first; e < end; ++e)
        c->colour_order[first + count[c->colour[listed[e]]]++] = listed[e];
    island->colours = colours;
}

/* A pair's correction on particle q at step `step` of the passes, its share `share` of the shift
 * and velocity change (minus for i), then the floor; pinned particles stay. */
static void move_by_share(op_collider *c, const op_contact_def *def, int q, double share, const struct op_contact *con,
                          int step)
{
    if (c->shape[q].inverse_mass == 0)
        return;
    c->moved_at[q] = step;
    v3_axpy(&c->position[3 * q], share, con->shift);
    v3_axpy(&c->velocity[3 * q], share, con->dv);
    bound_by_floor(c, def, q);
}

/* Whether pair k, evaluated at a step of the passes, must be evaluated again: it penetrated
 * then, or one of its particles has moved since. A pair of two particles that have not would
 * evaluate to what it did. */
static int stale(const op_collider *c, const op_pair *pair, int k)
{
    return c->active[k] || c->moved_at[pair->i] > c->evaluated_at[k] || c->moved_at[pair->j] > c->evaluated_at[k];
}

/* Pair k at step `step` of the colour-order passes, when stale: evaluated from what the earlier
 * colours left and, when it penetrates, resolved in full; counted into *tally. A pair that
 * penetrated at the first evaluation (step 0), neither of whose particles has moved since, keeps
 * that evaluation: it is what evaluating again would give, bit for bit (in Fig. 7's piles, 46 %
 * and 67 % of the pairs penetrating at step 0, 4 % and 5 % of all the passes' evaluations). */
static void resolve_stale(op_collider *c, const op_pair *pairs, const op_contact_def *def, int k, int step,
                          struct pass_tally *tally)
{
    if (!stale(c, &pairs[k], k))
        return;
    struct op_contact *con = &c->contact[k];
    int unmoved = c->evaluated_at[k] == 0 && c->moved_at[pairs[k].i] == 0 && c->moved_at[pairs[k].j] == 0;
    c->evaluated_at[k] = step;
    if (!unmoved)
        evaluate(c, pairs, k, def->friction);
    if (!c->active[k])
        return;
    ++tally->active;
    tally->deep += con->penetration > OP_COLLIDE_TOLERANCE * op_min(c->least[pairs[k].i], c->least[pairs[k].j]);
    c->touched[k] = 1;
    move_by_share(c, def, pairs[k].i, -con->share_i, con, step);
    move_by_share(c, def, pairs[k].j, con->share_j, con, step);
}

/* Pass `pass` (from 0) over island s's pairs colour by colour, each stale pair evaluated from
 * what the earlier colours left and resolved (resolve_stale) at step pass · colours + colour + 1:
 * the steps rise colour by colour and pass by pass within the island, which is all the staleness
 * test compares (it reads the island's particles and pairs only). Returns the pass's tally; after
 * a pass that resolved nothing no pair of the island is stale, so any later pass leaves it as it
 * is. */
static struct pass_tally island_pass(op_collider *c, const op_pair *pairs, const op_contact_def *def, int s, int pass)
{
    const op_contact_island *island = &c->island[s];
    int base = pass * island->colours + 1;
    struct pass_tally tally = { 0, 0, 0.0 };
    for (int e = island->start; e < island[1].start; ++e) {
        int k = c->colour_order[e];
        resolve_stale(c, pairs, def, k, base + c->colour[k], &tally);
    }
    return tally;
}

/* Whether some pair of island s penetrated at the first evaluation. */
static int island_penetrates(const op_collider *c, int s)
{
    for (int e = c->island[s].start; e < c->island[s + 1].start; ++e)
        if (c->active[c->island_pairs[e]])
            return 1;
    return 0;
}

/* Island s coloured, then its first def->passes passes, stopping after one that resolves nothing
 * (the later ones would leave it as it is); returns the tally of pass def->passes − 1 (all 0 when
 * the island stopped before it) and leaves the island live when that pass resolved some pair.
 * An island none of whose pairs penetrated at the first evaluation has no stale pair, so its
 * first pass would resolve nothing: it is neither coloured nor passed (on the 180-model pile, two
 * fifths of a call's 200 islands). */
static struct pass_tally island_passes(op_collider *c, const op_pair *pairs, const op_contact_def *def, int s,
                                       unsigned char *taken, int *count)
{
    struct pass_tally last = { 0, 0, 0.0 };
    c->island[s].live = 0;
    if (!island_penetrates(c, s))
        return last;
    colour_island(c, pairs, s, taken, count);
    for (int pass = 0; pass < def->passes; ++pass) {
        last = island_pass(c, pairs, def, s, pass);
        if (last.active == 0)
            break;
    }
    c->island[s].live = last.active > 0;
    return last;
}

/* The islands' runs for a team of `team` (c->island_run): thread t's are the islands whose first
 * pair lies in the t-th of `team` equal shares of the pairs, so that each thread starts on a
 * like amount of work in islands next to one another. */
static void share_islands(op_collider *c, int pair_count, int team)
{
    for (int t = 0, s = 0; t < team; ++t) {
        int first = s, bound = (int)((int64_t)pair_count * (t + 1) / team);
        while (s < c->islands && c->island[s].start < bound)
            ++s;
        op_run_set(&c->island_run[t], first, s);
    }
}

/* The deep pairs in the team's tallies. */
static int deep_in(const struct pass_tally *tallies, int team)
{
    int deep = 0;
    for (int t = 0; t < team; ++t)
        deep += tallies[t].deep;
    return deep;
}

/* The passes past def->passes (collide.h, "Passes"), called by every thread of the region:
 * passes go on, over every live island, while some pair of any island is deeper than the
 * tolerance, up to `further` of them. Each pass's islands are shared between the threads in
 * two fixed halves (islands share no particle, so which thread takes one does not change the
 * bits), with one barrier a pass for the count of deep pairs, kept in one of the two sets of
 * tallies by the pass's parity, so that a thread can write the next pass's while another still
 * reads this one's. On the 180-model pile about 43 islands are live in a pass, the largest
 * about a tenth of the pass's work, so they share well: over a run's 900 calls these passes
 * took 10.4 ms on the calling thread alone (the other waiting), 8.9 on two in guided chunks and
 * 6.9–7.1 in fixed halves (near cores; docs/performance.md). */
static void deep_passes(op_collider *c, const op_pair *pairs, const op_contact_def *def, int further)
{
    int thread = omp_get_thread_num(), team = omp_get_num_threads();
    for (int pass = def->passes; pass < def->passes + further; ++pass) {
        struct pass_tally *tallies = c->tally + (size_t)team * (size_t)(pass % 2), mine = { 0, 0, 0.0 };
#pragma omp for schedule(static) nowait
        for (int s = 0; s < c->islands; ++s) {
            if (!c->island[s].live)
                continue;
            struct pass_tally tally = island_pass(c, pairs, def, s, pass);
            c->island[s].live = tally.active > 0;
            mine.deep += tally.deep;
        }
        tallies[thread] = mine;
#pragma omp barrier
        if (deep_in(tallies, team) == 0)
            break;
    }
#pragma omp barrier /* the last pass's tallies read before the caller writes the set again */
}

/* OP_CONTACT_ORDER_COLOURS's passes, called by every thread of the region (collide.h,
 * "Resolution"). Every pair is first evaluated once (step 0), in parallel, while one thread
 * splits the pairs into islands; when none penetrates nothing moves and the pairs are not even
 * coloured (a resting scene whose bodies only come near). Otherwise each island, on one thread,
 * is coloured and taken through def->passes passes, colour by colour, each pair of a colour
 * evaluated from what the earlier colours left and resolved at once; islands share no particle,
 * so which thread takes one, and when, does not change the bits. Only stale pairs are evaluated,
 * so the passes give what they would give evaluating every pair. Past def->passes, passes go on
 * while a pair of any island is deeper than the tolerance (deep_passes). What is left is measured
 * after, over the pairs within reach of the state the passes leave (collide_bodies, "Rounds"). */
static void colour_passes(op_collider *c, const op_pair *pairs, int pair_count, const op_contact_def *def)
{
    int thread = omp_get_thread_num(), team = omp_get_num_threads();
    /* Two sets of tallies, each thread writing its own entry without waiting for the others once
     * every thread has read the set after the last barrier: the evaluations' (the first and the
     * last) and the islands'. */
    struct pass_tally *evaluated = c->tally, *resolved = c->tally + team;
    /* the islands (they need the pairs only) while the other threads start on the evaluation; the
     * work of a resting scene, where no pair penetrates, is wasted */
#pragma omp single nowait
    {
        find_islands(c, pairs, pair_count);
        share_islands(c, pair_count, team);
    }
    struct pass_tally first = { 0, 0, 0.0 };
#pragma omp for schedule(dynamic, 16) nowait
    for (int block = 0; block < (pair_count + 3) / 4; ++block) {
        int k[4], count = 0;
        for (int at = 4 * block; at < pair_count && count < 4; ++at)
            k[count++] = at;
        evaluate_listed(c, pairs, k, count, def->friction);
        for (int m = 0; m < count; ++m) {
            c->evaluated_at[k[m]] = 0;
            first.active += c->active[k[m]];
        }
    }
    evaluated[thread] = first;
#pragma omp barrier
    int penetrating = 0;
    for (int t = 0; t < team; ++t)
        penetrating += evaluated[t].active;
    if (penetrating == 0)
        return;
    unsigned char *taken = &c->colour_taken[(size_t)thread * (size_t)c->colour_capacity];
    int *count = &c->colour_count[(size_t)thread * ((size_t)c->colour_capacity + 1)];
    /* Each thread takes the islands of its own run (share_islands) from the low end, then those
     * left in the others' from the high end. Islands differ in size by a hundredfold, so threads
     * that are done must take more; and neighbouring islands' pairs share cache lines of the
     * per-pair records (the flags and steps, a byte or an int a pair, islands being numbered by
     * their lowest particle), which threads taking islands one by one hand between their cores
     * all through the passes. On the 180-model pile, two threads: each thread's islands took
     * 58-60 ms of a run's 900 calls one by one, 34-36 in OpenMP's guided chunks, against 60-62
     * for all of them on one thread; but guided's first chunk is half the islands, and the
     * threads reached the barrier after them 22 ms apart, summed over the calls (far cores),
     * where runs leave at most an island between them (docs/performance.md). Which thread takes
     * which island does not change the bits. */
    struct pass_tally last = { 0, 0, 0.0 };
    for (int other = 0; other < team; ++other) {
        op_run *run = &c->island_run[(thread + other) % team];
        for (int s; (s = op_run_take(run, other == 0)) >= 0;) {
            struct pass_tally island = island_passes(c, pairs, def, s, taken, count);
            last.active += island.active;
            last.deep += island.deep;
        }
    }
    resolved[thread] = last;
#pragma omp barrier
    if (deep_in(resolved, team) > 0 && def->passes_max > def->passes)
        deep_passes(c, pairs, def, def->passes_max - def->passes);
}

/* The per-pair arrays sized for pair_count pairs of c->near, their incidence built, the colours'
 * workspace reserved and the touched flags cleared. */
static int prepare_pairs(op_ctx *ctx, op_collider *c, const op_contact_def *def, int pair_count)
{
    if (pair_count > c->pair_capacity) {
        size_t n = (size_t)pair_count + (size_t)pair_count / 2;
        c->pair_capacity = 0;
        if (!OP_RENEW(ctx, c->incidence, 2 * n) || !OP_RENEW(ctx, c->contact, n) || !OP_RENEW(ctx, c->touched, n) ||
            !OP_RENEW(ctx, c->active, n) || !OP_RENEW(ctx, c->colour, n) || !OP_RENEW(ctx, c->colour_order, n) ||
            !OP_RENEW(ctx, c->evaluated_at, n) || !OP_RENEW(ctx, c->island_pairs, n) ||
            !OP_RENEW(ctx, c->island, n + 1))
            return ctx->status;
        c->pair_capacity = (int)n;
    }
    build_incidence(c, c->near, pair_count);
    if (def->order == OP_CONTACT_ORDER_COLOURS && reserve_colours(ctx, c) != OP_OK)
        return ctx->status;
    for (int k = 0; k < pair_count; ++k)
        c->touched[k] = 0;
    return OP_OK;
}

/* What the involved particles' passes read, gathered from their bodies, in parallel */
static void gather_involved(op_collider *c, const op_body *bodies)
{
    int involved_count = c->involved_count;
#pragma omp for schedule(static)
    for (int block = 0; block < (involved_count + 3) / 4; ++block) {
        int left = involved_count - 4 * block;
        gather_involved_block(c, bodies, 4 * block, left < 4 ? left : 4);
    }
}

/* One round of passes over the pair_count pairs of c->near (prepared): the involved particles
 * gathered, the passes, the particles scattered back. Returns the pairs that penetrated in some
 * pass; *below is how far the deepest moved position-free particle reaches below the floor. */
static int resolve_round(op_collider *c, op_body *bodies, const op_contact_def *def, int pair_count, double *below)
{
    const op_pair *pairs = c->near;
    const int *involved = c->involved, involved_count = c->involved_count;
    /* One parallel region for the gathering, every pass and the scattering: its barriers cost
     * less than a fork per loop. Only the particles of some pair take part; the others'
     * corrections are zero. */
    double reach = 0.0;
#pragma omp parallel num_threads(omp_get_max_threads()) if (op_collide_on_team())
    {
        gather_involved(c, bodies);
        if (pair_count > 0) {
            if (def->order == OP_CONTACT_ORDER_JACOBI)
                jacobi_passes(c, pairs, pair_count, def);
            else
                colour_passes(c, pairs, pair_count, def);
        }
#pragma omp for schedule(static) reduction(max : reach)
        for (int p = 0; p < involved_count; ++p)
            reach = op_max(reach, scatter_involved(c, bodies, def, involved[p]));
    }
    *below = reach;
    int contacts = 0;
    for (int k = 0; k < pair_count; ++k)
        contacts += c->touched[k];
    return contacts;
}

/* The pair_count pairs of c->near (prepared) as they are, nothing moved: the deepest
 * penetration into *deepest, and the count of pairs deeper than the tolerance of the smallest
 * semi-axis of any particle (collide.h, "Rounds"). */
static int measure_pairs(op_collider *c, const op_body *bodies, int pair_count, double *deepest)
{
    const op_pair *pairs = c->near;
    double most = 0.0;
    int deep = 0;
#pragma omp parallel num_threads(omp_get_max_threads()) if (op_collide_on_team())
    {
        gather_involved(c, bodies);
#pragma omp for schedule(static) reduction(max : most) reduction(+ : deep)
        for (int k = 0; k < pair_count; ++k) {
            double n[3], p = penetration(c, &pairs[k], n);
            most = op_max(most, p);
            deep += p > OP_COLLIDE_TOLERANCE * c->smallest;
        }
    }
    *deepest = most;
    return deep;
}

/* The pairs within reach of the positions gathered (found: how far they moved) into c->near,
 * prepared for the passes; returns OP_OK. */
static int find_and_prepare(op_ctx *ctx, op_collider *c, const op_contact_def *def, int count, op_gathered found,
                            int *searched, int *refreshed)
{
    if (find_near_pairs(ctx, c, count, def->margin, found.moved, found.movers, searched, refreshed) != OP_OK)
        return ctx->status;
    return prepare_pairs(ctx, c, def, c->near_count);
}

static int collide_bodies(op_ctx *ctx, op_collider *c, op_body *bodies, int body_count, const op_contact_def *def,
                          const op_gathered *gathered, op_contact_stats *stats)
{
    *stats = (op_contact_stats){ 0 };
    if (def->passes < 1 || def->passes_max < 0 || def->rounds < 1 ||
        !(isfinite(def->friction) && def->friction >= 0) ||
        (def->order != OP_CONTACT_ORDER_COLOURS && def->order != OP_CONTACT_ORDER_JACOBI) ||
        (def->threads != OP_CONTACT_THREADS_ALL && def->threads != OP_CONTACT_THREADS_ONE))
        return OP_FAIL(ctx, OP_ERR_INVALID,
                       "collisions: passes and rounds must be at least 1, passes_max not negative, friction not "
                       "negative, the order colours or jacobi and the threads all or one");
    int relaid;
    if (lay_out(ctx, c, bodies, body_count, &relaid) != OP_OK)
        return ctx->status;
    int count = c->body_start[body_count];
    /* gathered for another layout, the tally is not this one's */
    op_gathered found = gathered && !relaid ? *gathered : gather_positions(c, bodies, count);
    if (find_and_prepare(ctx, c, def, count, found, &stats->searched, &stats->refreshed) != OP_OK)
        return ctx->status;
    stats->pairs = c->near_count;
    /* Rounds (collide.h): the passes, then the pairs within reach of the state they left, found
     * again and measured; passes again while one is deep. */
    double below = 0.0;
    for (int round = 0; c->near_count > 0;) {
        double reach;
        stats->contacts = (int)op_max(stats->contacts, resolve_round(c, bodies, def, c->near_count, &reach));
        below = op_max(below, reach);
        ++round;
        /* the resolved pairs kept apart (what the islands index), the state's found anew */
        op_pair *resolved = c->near;
        int resolved_capacity = c->near_capacity;
        c->passed_count = c->near_count;
        c->near = c->passed;
        c->near_capacity = c->passed_capacity;
        c->passed = resolved;
        c->passed_capacity = resolved_capacity;
        int searched, refreshed;
        if (find_and_prepare(ctx, c, def, count, gather_positions(c, bodies, count), &searched, &refreshed) != OP_OK)
            return ctx->status;
        int deep = measure_pairs(c, bodies, c->near_count, &stats->max_penetration);
        stats->rounds = round;
        if (deep == 0 || round >= def->rounds)
            break;
    }
    stats->max_floor_penetration = below;
    return OP_OK;
}

int op_collide_gathered_bodies(op_ctx *ctx, op_collider *c, op_body *bodies, int body_count, const op_contact_def *def,
                               const op_gathered *gathered, op_contact_stats *stats)
{
    /* every parallel region of the call, the broad phase's too, takes omp_get_max_threads() */
    int team = omp_get_max_threads();
    if (def->threads == OP_CONTACT_THREADS_ONE)
        omp_set_num_threads(1);
    int status = collide_bodies(ctx, c, bodies, body_count, def, gathered, stats);
    omp_set_num_threads(team);
    return status;
}

int op_collide_bodies(op_ctx *ctx, op_collider *c, op_body *bodies, int body_count, const op_contact_def *def,
                      op_contact_stats *stats)
{
    return op_collide_gathered_bodies(ctx, c, bodies, body_count, def, NULL, stats);
}

void op_collider_free(op_collider *c)
{
    op_broad_phase_free(&c->broad);
    OP_FREE(c->position);
    OP_FREE(c->velocity);
    OP_FREE(c->start);
    OP_FREE(c->bound);
    OP_FREE(c->least);
    OP_FREE(c->group);
    OP_FREE(c->touching);
    OP_FREE(c->incidence_start);
    OP_FREE(c->incidence_end);
    OP_FREE(c->degree);
    OP_FREE(c->incidence);
    OP_FREE(c->contact);
    OP_FREE(c->touched);
    OP_FREE(c->active);
    OP_FREE(c->colour);
    OP_FREE(c->colour_order);
    OP_FREE(c->colour_count);
    OP_FREE(c->island_root);
    OP_FREE(c->island_of);
    OP_FREE(c->island_pairs);
    OP_FREE(c->island);
    OP_FREE(c->colour_taken);
    OP_FREE(c->moved_at);
    OP_FREE(c->evaluated_at);
    OP_FREE(c->searched_position);
    OP_FREE(c->moving);
    OP_FREE(c->thread_near);
    OP_FREE(c->tally);
    OP_FREE(c->island_run);
    OP_FREE(c->near);
    OP_FREE(c->passed);
    OP_FREE(c->within);
    OP_FREE(c->involved);
    OP_FREE(c->involved_bits);
    OP_FREE(c->shape);
    OP_FREE(c->body_start);
    OP_FREE(c->laid_out_graph);
    c->body_capacity = c->laid_out_bodies = c->thread_capacity = c->colour_capacity = c->colour_threads = 0;
    c->islands = 0;
    c->capacity = c->pair_capacity = c->near_capacity = c->near_count = c->searched_count = 0;
    c->passed_capacity = c->passed_count = c->within_capacity = 0;
}
