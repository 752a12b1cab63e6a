/* What arap (solvers/arap.c) and arap-reference (solvers/arap_reference.c) share beyond the
 * paper's two steps: the terms of E that are not the graph's edges, set up once and evaluated
 * in one order for both, so that the two variants give the same bits.
 *
 * - Sec. 3.4's position and direction constraints, regrouped by particle (op_arap_terms_targets'
 *   comment derives the regrouping): their part of C_i (op_arap_terms_local) and of the global
 *   step's right-hand side (op_arap_terms_rhs), with the couplings of free particles to pinned
 *   ones;
 * - the Gauss–Seidel sweep's colour order (op_arap_colour_sweep);
 * - the global matrix of Eq. 7 + 12 + 14 and its CHOLMOD factor (op_arap_factor_matrix), or the
 *   matrix itself for conjugate gradients (op_arap_global_matrix).
 *
 * Both steps are written relative to the body's placed rest state (docs/method.md,
 * "Displacement form"): positions as u = x − x_ref, rotations as R − P. */
#include "arap_terms.h"

#include <stdlib.h>
#include <string.h>

#include "base/math3.h"

/* Which constraint influences involve each particle: constraint_start/constraint_entry, in
 * constraint order, influences in slot order. */
static int index_constraints(op_ctx *ctx, op_arap_terms *t, const op_body *body)
{
    int n = t->n;
    t->constraint_start = op_calloc(ctx, (size_t)n + 1, sizeof(int));
    t->constraint_entry = op_calloc(ctx, (size_t)body->constraint_count * OP_SKIN_MAX_K + 1, sizeof(int));
    if (ctx->status != OP_OK)
        return ctx->status;
    for (int c = 0; c < body->constraint_count; ++c)
        for (int slot = 0; slot < body->constraints[c].influence_count; ++slot)
            t->constraint_start[body->constraints[c].particle[slot] + 1]++;
    for (int i = 0; i < n; ++i)
        t->constraint_start[i + 1] += t->constraint_start[i];
    int *fill = op_calloc(ctx, (size_t)n, sizeof(int));
    if (!fill)
        return ctx->status;
    for (int c = 0; c < body->constraint_count; ++c)
        for (int slot = 0; slot < body->constraints[c].influence_count; ++slot) {
            int i = body->constraints[c].particle[slot];
            t->constraint_entry[t->constraint_start[i] + fill[i]++] = c * OP_SKIN_MAX_K + slot;
        }
    free(fill);
    return OP_OK;
}

/* Sec. 3.4's position constraints, C^p_i = Σ_e w_e u_e ū_eᵀ over the entries e of particle i
 * (constraint c, own slot o: i = p_o), with
 *   u_e = v_c − Σ_l w_l x_l − Σ_{l≠o} w_l R_l (v̄ − x̄_l),   ū_e = w_o (v̄ − x̄_i),
 * evaluated as the solver's other terms are, relative to the placed rest state: x_l = x_ref_l + d_l,
 * R_l = P + D_l. With the placed rest vertex v_0 = P v̄ + t and δ = 1 − Σ_l w_l (zero up to
 * rounding: skinning weights sum to one),
 *   u_e = (v_c − v_0) + g_e − Σ_l w_l d_l − Σ_{l≠o} w_l D_l (v̄ − x̄_l),   g_e = P (ū_e + δ v̄) + δ t,
 * and u_e is linear in the d_l and D_l, so the sum over entries regroups exactly by the
 * particles p that the entries' constraints involve:
 *   C^p_i = T_i + S_i − Σ_p (d_p m_ipᵀ + D_p M_ip),
 *   T_i = Σ_e w_e (v_c − v_0) ū_eᵀ               (per sub-step: the targets move)
 *   S_i = Σ_e w_e g_e ū_eᵀ                        (fixed)
 *   m_ip = Σ_e Σ_{l: p_l = p} w_e w_l ū_e,   M_ip = Σ_e Σ_{l≠o: p_l = p} w_e w_l (v̄ − x̄_p) ū_eᵀ   (fixed),
 * each D_p from the rotations the sweep reads at the time (Gauss–Seidel: the newest). Per
 * particle and iteration that is one 3x3 product per distinct partner p, where the sum by
 * entries took one per entry and influence: the bar of Fig. 1 holds its end face by 25 vertices,
 * each skinned from K = 4 particles. A body at rest with its targets at rest (d = 0,
 * D = 0, v_c = v_0) gets exactly S_i. tests/test_arap.c compares it with the sum by entries.
 *
 * The global step's constraint term (the file comment's Σ_c w w_i (v_c − Σ_l w_l R_l (v̄ − x̄_l)),
 * less its part at the placed rest state, less the pinned particles' displacements) regroups the
 * same way for each free particle a:
 *   b_a += G_a − Σ_p (D_p n_ap + [p pinned] c_ap d_p),   G_a = Σ_e w_e w_o (v_c − v_0) (per sub-step),
 *   n_ap = Σ_e Σ_{l: p_l = p} w_e w_o w_l (v̄ − x̄_p),   c_ap = Σ_e Σ_{l: p_l = p} w_e w_o w_l   (fixed).
 * T_i and G_a are formed once a sub-step, from the targets of that sub-step: constraint_targets. */
void op_arap_terms_targets(op_arap_terms *t, const op_body *body)
{
    /* no position constraint, no coupling: the scan of coupling_start below would find none,
     * and on the piles it was a cache miss a particle and sub-step (0.4 % of a frame) */
    if (t->position_constraints == 0)
        return;
    const op_graph *g = body->graph;
    int pull = 0;
    for (int i = 0; i < t->n; ++i) {
        if (t->coupling_start[i + 1] == t->coupling_start[i])
            continue;
        double local[9], target_sum[3] = { 0, 0, 0 };
        m3_copy(local, &t->constraint_rest[9 * i]);
        for (int k = t->constraint_start[i]; k < t->constraint_start[i + 1]; ++k) {
            int c = t->constraint_entry[k] / OP_SKIN_MAX_K;
            const op_constraint *con = &body->constraints[c];
            if (con->kind != OP_CONSTRAINT_POSITION)
                continue;
            double moved[3], weighted[3];
            double own = con->influence[t->constraint_entry[k] % OP_SKIN_MAX_K];
            v3_sub(moved, con->target, &t->constraint_placed[3 * c]);
            v3_sub(weighted, con->rest_point, &g->rest_position[3 * i]);
            v3_scale(weighted, weighted, own);
            v3_scale(weighted, weighted, con->weight);
            m3_add_outer(local, 1.0, moved, weighted);
            v3_axpy(target_sum, con->weight * own, moved);
        }
        m3_copy(&t->constraint_local[9 * i], local);
        if (pull < t->pull_count && t->pull_particle[pull] == i)
            v3_copy(&t->pull_target[3 * pull++], target_sum);
    }
}

/* Slot of partner p in the list being built for the particle stamped `stamp`: a new one at
 * *next, its particle recorded, the first time p is met. */
static inline int partner_slot(int *mark, int *slot, int *partner, int stamp, int p, int *next)
{
    if (mark[p] != stamp) {
        mark[p] = stamp;
        slot[p] = (*next)++;
        partner[slot[p]] = p;
    }
    return slot[p];
}

/* The position constraints regrouped by particle (constraint_targets' comment):
 * S_i and each particle's couplings M_ip, m_ip for the local step; for each free particle a
 * its couplings n_ap, c_ap for the global step; the placed rest vertices; and each particle's
 * direction-constraint entries apart. Partners are listed in the order they are first met
 * (entries in constraint_start order, influences in slot order), and every sum runs in that
 * order. */
static int regroup_constraints(op_ctx *ctx, op_arap_terms *t, const op_body *body, const int *row_of)
{
    const op_graph *g = body->graph;
    int n = t->n, constraints = body->constraint_count;
    const double *P = body->placement_rotation, *translation = body->placement_translation;
    size_t most = (size_t)constraints * OP_SKIN_MAX_K * OP_SKIN_MAX_K + 1;
    t->constraint_placed = op_calloc(ctx, 3 * (size_t)constraints + 1, sizeof(double));
    t->constraint_rest = op_calloc(ctx, 9 * (size_t)n, sizeof(double));
    t->constraint_local = op_calloc(ctx, 9 * (size_t)n, sizeof(double));
    t->coupling_start = op_calloc(ctx, (size_t)n + 1, sizeof(int));
    t->coupling_particle = op_calloc(ctx, most, sizeof(int));
    t->coupling_weight = op_calloc(ctx, 12 * most, sizeof(double));
    t->pull_particle = op_calloc(ctx, (size_t)n + 1, sizeof(int));
    t->pull_target = op_calloc(ctx, 3 * (size_t)n + 1, sizeof(double));
    t->pull_start = op_calloc(ctx, (size_t)n + 1, sizeof(int));
    t->pull_partner = op_calloc(ctx, most, sizeof(int));
    t->pull_weight = op_calloc(ctx, 4 * most, sizeof(double));
    t->direction_start = op_calloc(ctx, (size_t)n + 1, sizeof(int));
    t->direction_entry = op_calloc(ctx, (size_t)constraints * OP_SKIN_MAX_K + 1, sizeof(int));
    int *mark = op_calloc(ctx, 2 * (size_t)n + 1, sizeof(int)), *slot = op_calloc(ctx, 2 * (size_t)n + 1, sizeof(int));
    if (ctx->status != OP_OK) {
        free(mark);
        free(slot);
        return ctx->status;
    }
    int *pull_mark = mark + n, *pull_slot = slot + n;
    for (int c = 0; c < constraints; ++c) {
        const op_constraint *con = &body->constraints[c];
        m3_mul_v(&t->constraint_placed[3 * c], P, con->rest_point);
        v3_add(&t->constraint_placed[3 * c], &t->constraint_placed[3 * c], translation);
    }
    int couplings = 0, pulls = 0, directions = 0;
    for (int i = 0; i < n; ++i) {
        int row = row_of[i], pulled = 0;
        for (int k = t->constraint_start[i]; k < t->constraint_start[i + 1]; ++k) {
            const op_constraint *con = &body->constraints[t->constraint_entry[k] / OP_SKIN_MAX_K];
            int own = t->constraint_entry[k] % OP_SKIN_MAX_K;
            if (con->kind != OP_CONSTRAINT_POSITION) {
                t->direction_entry[directions++] = t->constraint_entry[k];
                continue;
            }
            /* W ū_e = W w_o (v̄ − x̄_i), and g_e = P (ū_e + δ v̄) + δ t with δ = 1 − Σ_l w_l */
            double rest_arm[3], weighted[3], g_e[3], delta = 1.0;
            v3_sub(rest_arm, con->rest_point, &g->rest_position[3 * i]);
            v3_scale(rest_arm, rest_arm, con->influence[own]);
            v3_scale(weighted, rest_arm, con->weight);
            for (int l = 0; l < con->influence_count; ++l)
                delta -= con->influence[l];
            v3_axpy(rest_arm, delta, con->rest_point);
            m3_mul_v(g_e, P, rest_arm);
            v3_axpy(g_e, delta, translation);
            m3_add_outer(&t->constraint_rest[9 * i], 1.0, g_e, weighted);
            if (row >= 0 && !pulled) {
                pulled = 1;
                t->pull_particle[pulls] = i;
                t->pull_start[pulls + 1] = t->pull_start[pulls];
                ++pulls;
            }
            for (int l = 0; l < con->influence_count; ++l) {
                int p = con->particle[l];
                double arm[3];
                v3_sub(arm, con->rest_point, &g->rest_position[3 * p]);
                double *w = &t->coupling_weight[12 * (size_t)partner_slot(mark, slot, t->coupling_particle, i + 1, p,
                                                                            &couplings)];
                v3_axpy(w + 9, con->influence[l], weighted);
                if (l != own)
                    m3_add_outer(w, con->influence[l], arm, weighted);
                if (row >= 0) {
                    double *pull = &t->pull_weight[4 * (size_t)partner_slot(pull_mark, pull_slot, t->pull_partner, i + 1,
                                                                             p, &t->pull_start[pulls])];
                    double scale = con->weight * con->influence[own] * con->influence[l];
                    v3_axpy(pull, scale, arm);
                    pull[3] += scale;
                }
            }
        }
        t->coupling_start[i + 1] = couplings;
        t->direction_start[i + 1] = directions;
    }
    t->pull_count = pulls;
    free(mark);
    free(slot);
    return OP_OK;
}

/* The edges from a free particle to a pinned one: the pinned end's known displacement moves to
 * the global step's right-hand side. Listed once, so that the global step does not scan every
 * edge for them. */
static int collect_pinned_couplings(op_ctx *ctx, op_arap_terms *t, const op_body *body, const int *row_of)
{
    const op_graph *g = body->graph;
    size_t capacity = (size_t)g->adjacency_start[t->n];
    t->pinned_row = op_calloc(ctx, capacity, sizeof(int));
    t->pinned_particle = op_calloc(ctx, capacity, sizeof(int));
    t->pinned_weight = op_calloc(ctx, capacity, sizeof(double));
    if (ctx->status != OP_OK)
        return ctx->status;
    for (int i = 0; i < t->n; ++i)
        for (int e = g->adjacency_start[i]; e < g->adjacency_start[i + 1]; ++e) {
            int j = g->adjacency[e];
            if (row_of[i] < 0 || row_of[j] >= 0)
                continue;
            t->pinned_row[t->pinned_count] = row_of[i];
            t->pinned_particle[t->pinned_count] = j;
            t->pinned_weight[t->pinned_count++] = body->stiffness * (g->volume[i] + g->volume[j]);
        }
    return OP_OK;
}

int op_arap_terms_create(op_ctx *ctx, op_arap_terms *t, const op_body *body, const int *row_of)
{
    memset(t, 0, sizeof *t);
    t->n = body->graph->particle_count;
    for (int c = 0; c < body->constraint_count; ++c)
        t->position_constraints += body->constraints[c].kind == OP_CONSTRAINT_POSITION;
    if (index_constraints(ctx, t, body) != OP_OK || regroup_constraints(ctx, t, body, row_of) != OP_OK ||
        collect_pinned_couplings(ctx, t, body, row_of) != OP_OK)
        return ctx->status;
    op_arap_terms_targets(t, body);
    return OP_OK;
}

void op_arap_terms_free(op_arap_terms *t)
{
    free(t->constraint_start);
    free(t->constraint_entry);
    free(t->constraint_placed);
    free(t->constraint_rest);
    free(t->constraint_local);
    free(t->coupling_start);
    free(t->coupling_particle);
    free(t->coupling_weight);
    free(t->pull_particle);
    free(t->pull_target);
    free(t->pull_start);
    free(t->pull_partner);
    free(t->pull_weight);
    free(t->direction_start);
    free(t->direction_entry);
    free(t->pinned_row);
    free(t->pinned_particle);
    free(t->pinned_weight);
    memset(t, 0, sizeof *t);
}

/* C^p_i (constraint_targets' comment) into C, with the rotations the sweep reads and the displacements of the local
 * step's start */
static void add_position_terms(const op_arap_terms *t, const double *P, const double *displacement,
                               const double *rotations, int i, double C[9])
{
    int first = t->coupling_start[i], last = t->coupling_start[i + 1];
    if (first == last)
        return;
    double sum[9];
    m3_copy(sum, &t->constraint_local[9 * i]);
    for (int c = first; c < last; ++c) {
        int p = t->coupling_particle[c];
        const double *R = &rotations[9 * p], *d = &displacement[3 * p], *w = &t->coupling_weight[12 * (size_t)c];
        double D[9];
        for (int k = 0; k < 9; ++k)
            D[k] = R[k] - P[k];
        for (int r = 0; r < 3; ++r)
            for (int col = 0; col < 3; ++col)
                sum[3 * r + col] -= (D[3 * r] * w[col] + D[3 * r + 1] * w[3 + col] + D[3 * r + 2] * w[6 + col]) +
                                    d[r] * w[9 + col];
    }
    for (int k = 0; k < 9; ++k)
        C[k] += sum[k];
}

/* C^d_i of every direction constraint influencing particle i (Sec. 3.4), with the rotations the
 * sweep reads. The direction constraint freezes m = ‖Σ w_l R_l n̄‖ as the paper does. Each
 * R_l n̄ is formed once, for n and for r. */
static void add_direction_terms(const op_arap_terms *t, const op_body *body, const double *rotations, int i,
                                double C[9])
{
    for (int k = t->direction_start[i]; k < t->direction_start[i + 1]; ++k) {
        const op_constraint *con = &body->constraints[t->direction_entry[k] / OP_SKIN_MAX_K];
        int own = t->direction_entry[k] % OP_SKIN_MAX_K;
        double n[3] = { 0, 0, 0 }, turned[OP_SKIN_MAX_K][3];
        for (int l = 0; l < con->influence_count; ++l) {
            m3_mul_v(turned[l], &rotations[9 * con->particle[l]], con->rest_direction);
            v3_axpy(n, con->influence[l], turned[l]);
        }
        double m = v3_norm(n);
        if (!(m > 0))
            continue;
        double r[3], r_rest[3];
        v3_copy(r, con->target);
        for (int l = 0; l < con->influence_count; ++l)
            if (l != own)
                v3_axpy(r, -con->influence[l] / m, turned[l]);
        v3_scale(r_rest, con->rest_direction, con->influence[own] / m);
        m3_add_outer(C, con->weight, r, r_rest);
    }
}

void op_arap_terms_local(const op_arap_terms *t, const op_body *body, const double *displacement,
                         const double *rotations, int i, double C[9])
{
    add_position_terms(t, body->placement_rotation, displacement, rotations, i, C);
    add_direction_terms(t, body, rotations, i, C);
}

void op_arap_terms_rhs(const op_arap_terms *t, const op_body *body, const int *row_of, const double *reference,
                       const double *turn, double *rhs)
{
    const double *position = body->state.position;
    for (int c = 0; c < t->pinned_count; ++c) {
        int j = t->pinned_particle[c];
        double pinned[3];
        v3_sub(pinned, &position[3 * j], &reference[3 * j]);
        v3_axpy(&rhs[3 * t->pinned_row[c]], t->pinned_weight[c], pinned);
    }
    /* the position constraints by free particle (constraint_targets' comment) */
    for (int a = 0; a < t->pull_count; ++a) {
        double pull[3];
        v3_copy(pull, &t->pull_target[3 * a]);
        for (int c = t->pull_start[a]; c < t->pull_start[a + 1]; ++c) {
            int p = t->pull_partner[c];
            const double *w = &t->pull_weight[4 * (size_t)c];
            double term[3];
            op_arap_turn_mul_v(term, &turn[12 * p], w);
            v3_sub(pull, pull, term);
            if (row_of[p] < 0) {
                double pinned[3];
                v3_sub(pinned, &position[3 * p], &reference[3 * p]);
                v3_axpy(pull, -w[3], pinned);
            }
        }
        double *b = &rhs[3 * row_of[t->pull_particle[a]]];
        v3_add(b, b, pull);
    }
}

/* The local step's sweep order. Two rotations that appear together in a term of E (graph
 * neighbours, or influences of one constraint) get different colours, by a greedy colouring in
 * index order; the sweep takes the colours one after another, each in index order. Within a
 * colour no C_i reads another's R_j, so the rotations of one colour can be computed two at a
 * time and written back before the next colour, and the sweep is still an exact Gauss–Seidel
 * sweep: each R_i maximises tr(Rᵀ C_i) with every rotation it depends on at its newest value.
 * Rotation-pinned particles are left out. */
int op_arap_colour_sweep(op_ctx *ctx, const op_arap_terms *t, const op_body *body, op_arap_sweep *s)
{
    const op_graph *g = body->graph;
    int n = t->n;
    int *colour = op_calloc(ctx, (size_t)n, sizeof(int)), *seen = op_calloc(ctx, (size_t)n + 1, sizeof(int));
    s->order = op_calloc(ctx, (size_t)(n ? n : 1), sizeof(int));
    s->colour_start = op_calloc(ctx, (size_t)n + 2, sizeof(int));
    if (ctx->status != OP_OK) {
        free(colour);
        free(seen);
        return ctx->status;
    }
    /* seen[c] == i + 1: colour c is taken by a conflicting particle of i */
    for (int i = 0; i < n; ++i) {
        colour[i] = -1;
        if (body->rotation_pinned[i])
            continue;
        for (int e = g->adjacency_start[i]; e < g->adjacency_start[i + 1]; ++e)
            if (colour[g->adjacency[e]] >= 0)
                seen[colour[g->adjacency[e]]] = i + 1;
        for (int k = t->constraint_start[i]; k < t->constraint_start[i + 1]; ++k) {
            const op_constraint *con = &body->constraints[t->constraint_entry[k] / OP_SKIN_MAX_K];
            for (int l = 0; l < con->influence_count; ++l)
                if (colour[con->particle[l]] >= 0)
                    seen[colour[con->particle[l]]] = i + 1;
        }
        int c = 0;
        while (seen[c] == i + 1)
            ++c;
        colour[i] = c;
        if (c + 1 > s->colours)
            s->colours = c + 1;
        s->colour_start[c + 1]++;
    }
    for (int c = 0; c < s->colours; ++c)
        s->colour_start[c + 1] += s->colour_start[c];
    s->count = s->colour_start[s->colours];
    memset(seen, 0, (size_t)(n + 1) * sizeof(int));
    for (int i = 0; i < n; ++i)
        if (colour[i] >= 0)
            s->order[s->colour_start[colour[i]] + seen[colour[i]]++] = i;
    free(colour);
    free(seen);
    return OP_OK;
}

void op_arap_sweep_free(op_arap_sweep *s)
{
    free(s->order);
    free(s->colour_start);
    memset(s, 0, sizeof *s);
}

/* The global matrix over the free particles (see the file comment), as upper-triangle
 * triplets, factored into *factor (NULL on entry; left NULL when no position is free). Constraint couplings join particles that
 * need not be graph neighbours. */
/* The global matrix's triplets: one per free diagonal, per edge between free particles (upper
 * triangle) and per pair of a position constraint's free influences. The arrays are the
 * caller's to free (also on failure). */
typedef struct global_triplets {
    int count;
    int *rows, *cols;
    double *values;
} global_triplets;

static int global_matrix_triplets(op_ctx *ctx, const op_body *body, const int *row_of, double h, global_triplets *t)
{
    const op_graph *g = body->graph;
    double k = body->stiffness;
    size_t capacity = (size_t)body->graph->particle_count + (size_t)g->adjacency_start[body->graph->particle_count] / 2 +
                      (size_t)body->constraint_count * OP_SKIN_MAX_K * OP_SKIN_MAX_K;
    int *rows = t->rows = op_calloc(ctx, capacity, sizeof(int)), *cols = t->cols = op_calloc(ctx, capacity, sizeof(int));
    double *values = t->values = op_calloc(ctx, capacity, sizeof(double));
    int count = 0;
    if (ctx->status != OP_OK)
        return ctx->status;
    for (int i = 0; i < body->graph->particle_count; ++i) {
        if (row_of[i] < 0)
            continue;
        double diagonal = g->mass[i] / (h * h);
        for (int e = g->adjacency_start[i]; e < g->adjacency_start[i + 1]; ++e) {
            int j = g->adjacency[e];
            double coupling = k * (g->volume[i] + g->volume[j]);
            diagonal += coupling;
            if (j > i && row_of[j] >= 0) {
                rows[count] = row_of[i], cols[count] = row_of[j], values[count++] = -coupling;
            }
        }
        rows[count] = cols[count] = row_of[i], values[count++] = diagonal;
    }
    for (int c = 0; c < body->constraint_count; ++c) {
        const op_constraint *con = &body->constraints[c];
        if (con->kind != OP_CONSTRAINT_POSITION)
            continue;
        for (int a = 0; a < con->influence_count; ++a)
            for (int b = a; b < con->influence_count; ++b) {
                int ra = row_of[con->particle[a]], rb = row_of[con->particle[b]];
                if (ra < 0 || rb < 0)
                    continue;
                rows[count] = ra, cols[count] = rb;
                values[count++] = con->weight * con->influence[a] * con->influence[b];
            }
    }
    t->count = count;
    return OP_OK;
}

static void global_triplets_free(global_triplets *t)
{
    free(t->rows);
    free(t->cols);
    free(t->values);
}

int op_arap_factor_matrix(op_ctx *ctx, const op_body *body, const int *row_of, int free_count, double h,
                          op_sparse_factor **factor)
{
    global_triplets t = { 0 };
    if (global_matrix_triplets(ctx, body, row_of, h, &t) == OP_OK && free_count > 0)
        op_sparse_factor_create(ctx, free_count, t.count, t.rows, t.cols, t.values, factor);
    global_triplets_free(&t);
    return ctx->status;
}

int op_arap_global_matrix(op_ctx *ctx, const op_body *body, const int *row_of, int free_count, double h,
                          op_sparse_matrix **matrix)
{
    global_triplets t = { 0 };
    if (global_matrix_triplets(ctx, body, row_of, h, &t) == OP_OK && free_count > 0)
        op_sparse_matrix_create(ctx, free_count, t.count, t.rows, t.cols, t.values, matrix);
    global_triplets_free(&t);
    return ctx->status;
}

void op_arap_local_matrix(const op_arap_terms *t, const op_body *body, const double *base, const double *displacement,
                          const double *rotations, int i, double C[9])
{
    const op_graph *g = body->graph;
    const double *u = displacement;
    double moments[9] = { 0 }, turns[9] = { 0 }, spread[9] = { 0 };
    for (int e = g->adjacency_start[i]; e < g->adjacency_start[i + 1]; ++e) {
        int j = g->adjacency[e];
        double moment[9], rest_edge[3], w[3], du[3];
        m3_mul(moment, &rotations[9 * j], &g->rest_moment[9 * j]);
        for (int m = 0; m < 9; ++m) {
            moments[m] += moment[m];
            turns[m] += rotations[9 * j + m];
        }
        v3_sub(rest_edge, &g->rest_position[3 * j], &g->rest_position[3 * i]);
        v3_scale(w, rest_edge, g->volume[j]);
        v3_sub(du, &u[3 * j], &u[3 * i]);
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c)
                spread[3 * r + c] += du[r] * w[c];
    }
    double turns_moment[9];
    m3_mul(turns_moment, turns, &g->rest_moment[9 * i]);
    double k = body->stiffness;
    for (int m = 0; m < 9; ++m)
        C[m] = base[9 * i + m] + k * ((moments[m] + turns_moment[m]) + spread[m]);
    op_arap_terms_local(t, body, u, rotations, i, C);
}

void op_arap_rest_sums(const op_body *body, double *reference, double *spread, double *rest_pull)
{
    const op_graph *g = body->graph;
    for (int i = 0; i < g->particle_count; ++i) {
        m3_mul_v(&reference[3 * i], body->placement_rotation, &g->rest_position[3 * i]);
        v3_add(&reference[3 * i], &reference[3 * i], body->placement_translation);
        double *s = &spread[9 * i];
        for (int e = g->adjacency_start[i]; e < g->adjacency_start[i + 1]; ++e) {
            int j = g->adjacency[e];
            double d[3];
            v3_sub(d, &g->rest_position[3 * j], &g->rest_position[3 * i]);
            if (rest_pull)
                v3_axpy(&rest_pull[3 * i], -g->volume[j], d);
            for (int r = 0; r < 3; ++r)
                for (int c = r; c < 3; ++c)
                    s[3 * r + c] += g->volume[j] * d[r] * d[c];
        }
        s[3] = s[1];
        s[6] = s[2];
        s[7] = s[5];
    }
}
