/* meshless: Müller, Heidelberger, Teschner, Gross 2005, "Meshless deformations based on shape
 * matching" (papers/mueller-2005-meshless-shape-matching.txt; the course report
 * papers/voigt-2005-shape-matching-report.txt is the second reading). The points are the graph's
 * particle centres with their masses; the ellipsoids play no part (the harness still skins and
 * measures the ARAP energy with the orientations this variant leaves, below).
 *
 * Matching (Eq. 5-8). A cluster c is a set of particles with weights m_i (the paper's choice;
 * a pinned particle weighs ML_PINNED_WEIGHT m_i, below); its rest offsets
 * q_i = S_p (x̄_i − x̄_cm) (S_p the plastic state, I until plasticity acts), its current centre
 * x_cm = Σ m_i x_i / Σ m_i (summed relative to the first member), p_i = x_i − x_cm,
 * A_pq = Σ m_i p_i q_iᵀ, R = polar(A_pq) sign-rectified (op_polar_rotation_warm). Goals
 *   rigid      g_i = R q_i + x_cm                                       (Eq. 8)
 *   linear     g_i = (β A + (1 − β) R) q_i + x_cm,  A = A_pq Ā_qq,  Ā_qq = (Σ m q qᵀ)⁺  (Sec. 4.2)
 *   quadratic  g_i = (β Ã + (1 − β) R̃) q̃_i + x_cm,  Ã = Ã_pq Ã_qq,  Ã_qq = (Σ m q̃ q̃ᵀ)⁺,
 *              R̃ = [R 0 0], q̃ = [q, q_x², q_y², q_z², q_x q_y, q_y q_z, q_z q_x]  (Eq. 12-13)
 * volume_preserve = on divides the linear block A by det(A)^{1/3} (Sec. 4.2) when det A > 0 and
 * the cluster's rest shape spans 3D; a flat or inverted fit (det A ≤ 0) is used as it is, since
 * dividing by a negative cube root would mirror the goals through the centre, and so is the fit
 * of a planar or collinear cluster, whose det A is zero but for rounding (dividing by the cube
 * root of a rounding error blew a hanging sheet up to 1e11 m within ten sub-steps).
 *
 * Singular moments. Ā_qq and Ã_qq are pseudo-inverses from LAPACKE's symmetric eigensolver:
 * eigenvalues below 1e-10 of the largest are dropped. A planar cluster's fit then has no part
 * along the normal, a collinear one none across the line, and the goals stay finite; Ã_qq is
 * singular for any cluster of fewer than ten points in general position (a one-ring), where
 * the quadratic fit is the least-norm one. The quadratic monomials are divided by the cluster's
 * radius of gyration, so that all nine entries of q̃ are lengths and the cut-off is geometric.
 * A collinear rest cluster (a rod's chain of centres) leaves the twist about its line
 * undetermined by the points: its R is the smallest turn of the previous R that carries the
 * rest line onto the current one (an optimal rotation of Eq. 5 exactly; the goals do not depend
 * on the twist); a cluster of one point keeps its previous R.
 *
 * Clusters (Sec. 4.4). clusters = 1: the whole body. clusters = N > 1: N seeds by farthest-
 * point sampling in graph distance (edge length = rest distance; the first seed is the
 * particle farthest from op_body_centre_particle), every particle in the region of its
 * nearest seed (ties to the earlier seed), and each region grown by the graph neighbours of
 * its particles, so that neighbouring clusters overlap. clusters = ring: one cluster per
 * particle, itself and its one ring. The paper cuts space into overlapping cubes; on our graph
 * the regions follow the graph instead. A particle in n_i clusters moves towards the mean of its
 * goals, (1/n_i) Σ_c (g_i^c − x_i): Eq. 14 as printed adds the clusters' pulls, which with
 * α = 1 and several clusters would overshoot every goal.
 *
 * Integration (Eq. 9) in the world's sub-step (include/opsim/world.h: PREDICT sets x ← y = x + h v + h² g
 * and keeps x(t) in start_position; UPDATE_VELOCITY sets v = (x − x(t))/h afterwards):
 *   v(t+h) = v(t) + α (g(t) − x(t))/h + h f_ext/m,  x(t+h) = x(t) + h v(t+h)
 *   ⇔ x(t+h) = y + h² f/m + α (ḡ(x(t)) − x(t)),  v(t+h) = (x(t+h) − x(t))/h,
 * with gravity in y and f the forces below. Two readings, option `goals`:
 *   start (the default; Eq. 9 as printed): the goals are matched on x(t), the positions at the
 *     sub-step's start. For the paper's spring the update matrix has eigenvalues of modulus 1
 *     for every α and h (Eq. 11): undamped and unconditionally stable. The update depends on
 *     x(t), v(t) and f only, so an iteration has nothing to repeat: the first applies it and
 *     later ones of the same sub-step set the same positions again (a run is bitwise the same
 *     for any [world] iterations >= 1; chebyshev = on is refused, there being no iteration to
 *     accelerate).
 *   predicted (Voigt's report, Sec. 3.1, "we had to modify our integration scheme ... so they
 *     would be stable"; position based dynamics): the goals are matched on the current iterate,
 *     starting from the prediction, and every iteration repeats the projection
 *     x ← x + α (ḡ(x) − x). For the spring one sub-step has eigenvalues of modulus √(1 − α):
 *     stable and damped; more iterations make the body stiffer, as for shape-matching.
 * α is per sub-step, so the stiffness depends on h (the paper's remark after Eq. 11).
 *
 * Forces. A position constraint (Eq. 13) acts as the paper's spring force "applied to a surface
 * point and originating from a location in space" (Fig. 7): f = w (v_c − v), v the skinned
 * vertex at the sub-step's start, w the constraint's weight (the spring of E^c = w/2 ‖v − v_c‖²,
 * which arap treats implicitly), spread over the influences by their skinning weights,
 * f_l = w_l f, and added as h² f_l/m_l; explicit like the paper's f_ext, so a stiff spring
 * on a light particle can be unstable (h² w w_l/m_l well above 1). Direction constraints have no
 * place in a point model: create refuses them, naming the body. Pins hold positions (a pinned
 * particle is never moved) and orientations (never overwritten). A pinned particle weighs 10⁶
 * times its mass in its clusters' matching, the infinite mass of a fixed point as position
 * based dynamics gives it: with the paper's w_i = m_i the free particles' weight turns the fit
 * away from the pins, and Choi & Lee's Fig. 3 bar, pinned at two particles of twenty, swung down
 * as if hinged (docs/method.md). A pin's orientation means nothing to the points: one pinned
 * particle is a pivot.
 *
 * Orientations. Each particle's R_i is its cluster's R, or, in several clusters, the polar
 * rotation of the sum of their linear parts (R, or β A + (1 − β) R); matched on the positions
 * the iteration leaves, so that skinning and the energy yardstick see an orientation of the
 * state they measure. That matching is one more than the paper's method needs; with goals =
 * start it is also the next sub-step's goal matching, which is then skipped, whenever nothing
 * moved a particle in between (the positions are compared bit for bit).
 *
 * Plasticity (Sec. 4.5), on when creep > 0: once per sub-step, after the first matching, each
 * cluster's S = Rᵀ A (A = A_pq Ā_qq, the linear fit, in every mode); when ‖S − I‖₂ > yield,
 * S_p ← [I + h creep (S − I)] S_p, then S_p ← S_p / det(S_p)^{1/3} (volume), then, when
 * ‖S_p − I‖₂ > max, S_p ← I + max (S_p − I)/‖S_p − I‖₂ (last, so that the bound holds; the
 * paper gives no order), and the cluster's q, Ā_qq, Ã_qq are rebuilt.
 *
 * Stage times: the goal matching and the move are `local`, the orientation matching `global`.
 * Nothing here writes files or computes energies. */
#include "meshless.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/math3.h"
#include "kernels/polar.h"
#include "base/timer.h"

enum { ML_RIGID = 0, ML_LINEAR = 1, ML_QUADRATIC = 2 };
enum { ML_GOALS_START = 0, ML_GOALS_PREDICTED = 1 };
enum { ML_CLUSTERS_RING = -1 };
/* eigenvalues of a moment matrix below this fraction of its largest are taken as zero */
#define ML_RANK_TOLERANCE 1e-10
/* a pinned particle's weight in the matching, times its mass: a fixed point's infinite mass */
#define ML_PINNED_WEIGHT 1e6

typedef struct ml_solver {
    int mode, goals_from, volume_preserve, plastic;
    double alpha, beta, yield, creep, cmax;
    int n, cluster_count;
    /* clusters: cluster c's members are member[cluster_start[c] .. cluster_start[c+1]) in
     * ascending particle order */
    int *cluster_start;     /* [clusters + 1] */
    int *member;            /* [members] */
    double *weight;         /* [members] w_i: m_i, or m_i ML_PINNED_WEIGHT where pinned */
    double *cluster_mass;   /* [c] Σ w_i */
    double *original_offset; /* [members][3] x̄_i − x̄_cm */
    double *rest_offset;    /* [members][3] q_i = S_p (x̄_i − x̄_cm) */
    double *rest_quadratic; /* [members][6] q̃'s monomials / radius of gyration (quadratic) */
    double *plastic_state;  /* [c][9] S_p */
    double *aqq;            /* [c][9] Ā_qq */
    double *aqq_quadratic;  /* [c][81] Ã_qq (quadratic) */
    int *rank;              /* [c] rank of Σ m q qᵀ */
    double *rest_axis;      /* [c][3] the line of a collinear cluster (rank 1) */
    double *quaternion;     /* [c][4] warm start of the cluster's polar rotation */
    int *cluster_of;        /* [n] a particle's cluster when it is in exactly one, else −1 */
    double *share;          /* [n] 1 / n_i, 0 where the position is pinned */
    /* one matching */
    double *centre;         /* [c][3] x_cm */
    double *rotation;       /* [c][9] R (also the previous R of a collinear cluster) */
    double *linear;         /* [c][9] the goals' linear part: R, or β A + (1 − β) R */
    double *quadratic;      /* [c][18] 3x6: β times Ã's quadratic and mixed columns */
    double *fit;            /* [c][9] A = A_pq Ā_qq (plasticity) */
    /* per sub-step */
    double *displacement;   /* [n][3] Σ_c (g_i^c − x_i) */
    double *target;         /* [n][3] y + h² f/m */
    double *orientation;    /* [n][9] Σ_c linear parts, particles in several clusters */
    double *matched_position; /* [n][3] the positions of the last matching, when matched_valid */
    int matched_valid;
    int goals_done;         /* start: this sub-step's displacement is in `displacement` */
    int first_iteration;    /* predicted: plasticity still to update this sub-step */
} ml_solver;

static const op_solver_option ml_options[] = {
    { "alpha", "1", "stiffness alpha in [0, 1]: the fraction of the way to the goals one sub-step pulls (Eq. 9)" },
    { "beta", "0.5", "linear and quadratic modes: goals from beta A + (1 - beta) R, beta in [0, 1] (Sec. 4.2, 4.3)" },
    { "mode", "rigid", "goal transformation: rigid, linear or quadratic" },
    { "clusters", "1", "1 (the whole body), N > 1 (N overlapping graph regions) or ring (each particle and its "
                       "one ring)" },
    { "volume_preserve", "off", "divide the linear fit A by det(A)^(1/3) (Sec. 4.2): off or on" },
    { "yield", "0", "plasticity: ||S - I||_2 above which the plastic state creeps (Sec. 4.5), >= 0" },
    { "creep", "0", "plasticity: creep rate in 1/s, 0 = no plasticity; h * creep <= 1" },
    { "max", "1", "plasticity: the bound c_max on ||S_p - I||_2, > 0" },
    { "goals", "start",
      "start: Eq. 9 as printed, goals from x(t), one update per sub-step (further [world] iterations "
      "repeat it and change nothing; chebyshev refused); predicted: goals from the current iterate, "
      "each iteration repeats the projection x += alpha (g - x) (Voigt 2005, PBD)" },
    { NULL, NULL, NULL },
};

static void ml_destroy(void *self)
{
    ml_solver *s = self;
    if (!s)
        return;
    free(s->cluster_start);
    free(s->member);
    free(s->cluster_mass);
    free(s->weight);
    free(s->original_offset);
    free(s->rest_offset);
    free(s->rest_quadratic);
    free(s->plastic_state);
    free(s->aqq);
    free(s->aqq_quadratic);
    free(s->rank);
    free(s->rest_axis);
    free(s->quaternion);
    free(s->cluster_of);
    free(s->share);
    free(s->centre);
    free(s->rotation);
    free(s->linear);
    free(s->quadratic);
    free(s->fit);
    free(s->displacement);
    free(s->target);
    free(s->orientation);
    free(s->matched_position);
    free(s);
}

/* ---- options ---------------------------------------------------------------------------- */

static int read_options(op_ctx *ctx, const op_solver_settings *settings, double h, ml_solver *s, int *clusters)
{
    int on;
    if (op_solver_setting_double(ctx, settings, "alpha", 0.0, 1.0, &s->alpha) != OP_OK ||
        op_solver_setting_double(ctx, settings, "beta", 0.0, 1.0, &s->beta) != OP_OK ||
        op_solver_setting_choice(ctx, settings, "mode", "rigid|linear|quadratic", &s->mode) != OP_OK ||
        op_solver_setting_choice(ctx, settings, "volume_preserve", "off|on", &s->volume_preserve) != OP_OK ||
        op_solver_setting_double(ctx, settings, "yield", 0.0, HUGE_VAL, &s->yield) != OP_OK ||
        op_solver_setting_double(ctx, settings, "creep", 0.0, HUGE_VAL, &s->creep) != OP_OK ||
        op_solver_setting_double(ctx, settings, "max", 0.0, HUGE_VAL, &s->cmax) != OP_OK ||
        op_solver_setting_choice(ctx, settings, "goals", "start|predicted", &s->goals_from) != OP_OK ||
        op_solver_setting_choice(ctx, settings, "chebyshev", "off|on", &on) != OP_OK)
        return ctx->status;
    if (!(s->cmax > 0.0))
        return OP_FAIL(ctx, OP_ERR_USAGE, "solver meshless: option max = '%s' must be a number above 0",
                       op_solver_setting(settings, "max"));
    if (h * s->creep > 1.0)
        return OP_FAIL(ctx, OP_ERR_USAGE,
                       "solver meshless: option creep = '%s' times the sub-step %g s exceeds 1 (the plastic "
                       "state would overshoot the deformation)",
                       op_solver_setting(settings, "creep"), h);
    if (on && s->goals_from == ML_GOALS_START)
        return OP_FAIL(ctx, OP_ERR_USAGE,
                       "solver meshless: option chebyshev = on needs goals = predicted: with goals = start a "
                       "sub-step is one explicit update (Eq. 9), with no iteration to accelerate");
    s->plastic = s->creep > 0.0;
    const char *text = op_solver_setting(settings, "clusters");
    if (text && strcmp(text, "ring") == 0) {
        *clusters = ML_CLUSTERS_RING;
        return OP_OK;
    }
    op_ctx inner;
    op_ctx_init(&inner);
    if (op_solver_setting_int(&inner, settings, "clusters", 1, 1000000, clusters) != OP_OK)
        return OP_FAIL(ctx, OP_ERR_USAGE, "solver meshless: option clusters = '%s' must be ring or a whole number "
                                          "in [1, 1000000]",
                       text ? text : "(missing)");
    return OP_OK;
}

/* ---- clusters ---------------------------------------------------------------------------- */

/* Graph distances (edge length = rest distance) from `source`, folded into *nearest / *owner:
 * a particle strictly nearer to this source than to the earlier ones joins region `region`.
 * O(n²) Dijkstra: the graphs are a few hundred particles and this runs once per seed. */
static void fold_distances(const op_graph *g, int source, int region, double *distance, unsigned char *done,
                           double *nearest, int *owner)
{
    int n = g->particle_count;
    for (int i = 0; i < n; ++i) {
        distance[i] = HUGE_VAL;
        done[i] = 0;
    }
    distance[source] = 0.0;
    for (;;) {
        int next = -1;
        for (int i = 0; i < n; ++i)
            if (!done[i] && distance[i] < HUGE_VAL && (next < 0 || distance[i] < distance[next]))
                next = i;
        if (next < 0)
            break;
        done[next] = 1;
        for (int e = g->adjacency_start[next]; e < g->adjacency_start[next + 1]; ++e) {
            int j = g->adjacency[e];
            double d = distance[next] + sqrt(v3_dist2(&g->rest_position[3 * next], &g->rest_position[3 * j]));
            if (d < distance[j])
                distance[j] = d;
        }
    }
    for (int i = 0; i < n; ++i)
        if (distance[i] < nearest[i]) {
            nearest[i] = distance[i];
            owner[i] = region;
        }
}

/* Cluster membership as lists: for N regions, the region of every particle (owner), then each
 * region and its neighbours; for ring, each particle and its one ring. */
static int build_membership(op_ctx *ctx, ml_solver *s, const op_body *body, int clusters)
{
    const op_graph *g = body->graph;
    int n = s->n;
    if (clusters > n)
        return OP_FAIL(ctx, OP_ERR_USAGE, "solver meshless: option clusters = %d exceeds body %s's %d particles",
                       clusters, body->name, n);
    int count = clusters == ML_CLUSTERS_RING ? n : clusters;
    int *owner = op_calloc(ctx, (size_t)n, sizeof(int));
    int *mark = op_calloc(ctx, (size_t)n, sizeof(int));
    double *nearest = op_calloc(ctx, (size_t)n, sizeof(double)), *distance = op_calloc(ctx, (size_t)n, sizeof(double));
    unsigned char *done = op_calloc(ctx, (size_t)n, 1);
    s->cluster_start = op_calloc(ctx, (size_t)count + 1, sizeof(int));
    if (ctx->status != OP_OK)
        goto out;
    if (clusters != ML_CLUSTERS_RING && clusters > 1) {
        for (int i = 0; i < n; ++i)
            nearest[i] = HUGE_VAL;
        /* the first seed: the particle farthest from the centre particle (an extremity) */
        fold_distances(g, op_body_centre_particle(body), 0, distance, done, nearest, owner);
        int seed = 0;
        for (int i = 1; i < n; ++i)
            if (nearest[i] > nearest[seed])
                seed = i;
        for (int i = 0; i < n; ++i)
            nearest[i] = HUGE_VAL;
        for (int region = 0; region < clusters; ++region) {
            fold_distances(g, seed, region, distance, done, nearest, owner);
            seed = 0;
            for (int i = 1; i < n; ++i)
                if (nearest[i] > nearest[seed])
                    seed = i;
        }
    }
    /* two passes: count, then fill; a particle is in cluster c when it is in the region or
     * next to it (ring: when it is c or next to c); mark[i] == c + 1 dedups */
    for (int pass = 0; pass < 2; ++pass) {
        int at = 0;
        for (int i = 0; i < n; ++i)
            mark[i] = 0;
        for (int c = 0; c < count; ++c) {
            s->cluster_start[c] = at;
            for (int i = 0; i < n; ++i) {
                int in;
                if (clusters == ML_CLUSTERS_RING)
                    in = i == c;
                else
                    in = clusters == 1 || owner[i] == c;
                if (!in)
                    continue;
                mark[i] = c + 1;
                if (clusters == 1)
                    continue;
                for (int e = g->adjacency_start[i]; e < g->adjacency_start[i + 1]; ++e)
                    mark[g->adjacency[e]] = c + 1;
            }
            for (int i = 0; i < n; ++i)
                if (mark[i] == c + 1) {
                    if (pass == 1)
                        s->member[at] = i;
                    ++at;
                }
        }
        s->cluster_start[count] = at;
        if (pass == 0 && !(s->member = op_calloc(ctx, (size_t)at, sizeof(int))))
            goto out;
    }
    s->cluster_count = count;
out:
    free(owner);
    free(mark);
    free(nearest);
    free(distance);
    free(done);
    return ctx->status;
}

/* The pseudo-inverse of the symmetric positive semi-definite dim x dim matrix M (row-major),
 * eigenvalues below ML_RANK_TOLERANCE of the largest dropped; its rank and the eigenvector of
 * the largest eigenvalue. */
static int pseudo_inverse(op_ctx *ctx, int dim, const double *M, double *inverse, int *rank, double *top)
{
    double a[81], w[9];
    memcpy(a, M, (size_t)(dim * dim) * sizeof(double));
    lapack_int info = LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'U', dim, a, dim, w);
    if (info != 0)
        return OP_FAIL(ctx, OP_ERR_LIBRARY, "solver meshless: LAPACKE_dsyev failed (info %d)", (int)info);
    memset(inverse, 0, (size_t)(dim * dim) * sizeof(double));
    *rank = 0;
    double largest = w[dim - 1];
    for (int k = 0; k < dim; ++k)
        top[k] = a[k * dim + dim - 1];
    if (!(largest > 0.0))
        return OP_OK;
    for (int e = 0; e < dim; ++e) {
        if (!(w[e] > ML_RANK_TOLERANCE * largest))
            continue;
        ++*rank;
        for (int r = 0; r < dim; ++r)
            for (int c = 0; c < dim; ++c)
                inverse[r * dim + c] += a[r * dim + e] * a[c * dim + e] / w[e];
    }
    return OP_OK;
}

/* Cluster c's rest shape from its plastic state: q, q̃, Ā_qq, Ã_qq, rank and line. */
static int set_rest_shape(op_ctx *ctx, ml_solver *s, int c)
{
    double moment[9] = { 0 }, top[9], radius2 = 0.0;
    for (int k = s->cluster_start[c]; k < s->cluster_start[c + 1]; ++k) {
        double *q = &s->rest_offset[3 * k], m = s->weight[k];
        m3_mul_v(q, &s->plastic_state[9 * c], &s->original_offset[3 * k]);
        m3_add_outer(moment, m, q, q);
        radius2 += m * v3_dot(q, q);
    }
    if (pseudo_inverse(ctx, 3, moment, &s->aqq[9 * c], &s->rank[c], top) != OP_OK)
        return ctx->status;
    v3_copy(&s->rest_axis[3 * c], top);
    if (s->mode != ML_QUADRATIC)
        return OP_OK;
    double gyration = sqrt(radius2 / s->cluster_mass[c]), scale = gyration > 0.0 ? 1.0 / gyration : 0.0;
    double moment9[81] = { 0 };
    int rank9;
    for (int k = s->cluster_start[c]; k < s->cluster_start[c + 1]; ++k) {
        const double *q = &s->rest_offset[3 * k];
        double *quad = &s->rest_quadratic[6 * k], m = s->weight[k];
        quad[0] = q[0] * q[0] * scale, quad[1] = q[1] * q[1] * scale, quad[2] = q[2] * q[2] * scale;
        quad[3] = q[0] * q[1] * scale, quad[4] = q[1] * q[2] * scale, quad[5] = q[2] * q[0] * scale;
        double full[9] = { q[0], q[1], q[2], quad[0], quad[1], quad[2], quad[3], quad[4], quad[5] };
        for (int r = 0; r < 9; ++r)
            for (int col = 0; col < 9; ++col)
                moment9[9 * r + col] += m * full[r] * full[col];
    }
    return pseudo_inverse(ctx, 9, moment9, &s->aqq_quadratic[81 * c], &rank9, top);
}

static int build_clusters(op_ctx *ctx, ml_solver *s, const op_body *body, int clusters)
{
    const op_graph *g = body->graph;
    if (build_membership(ctx, s, body, clusters) != OP_OK)
        return ctx->status;
    size_t count = (size_t)s->cluster_count, members = (size_t)s->cluster_start[s->cluster_count], n = (size_t)s->n;
    s->cluster_mass = op_calloc(ctx, count, sizeof(double));
    s->weight = op_calloc(ctx, members, sizeof(double));
    s->original_offset = op_calloc(ctx, 3 * members, sizeof(double));
    s->rest_offset = op_calloc(ctx, 3 * members, sizeof(double));
    s->rest_quadratic = op_calloc(ctx, 6 * members, sizeof(double));
    s->plastic_state = op_calloc(ctx, 9 * count, sizeof(double));
    s->aqq = op_calloc(ctx, 9 * count, sizeof(double));
    s->aqq_quadratic = s->mode == ML_QUADRATIC ? op_calloc(ctx, 81 * count, sizeof(double)) : NULL;
    s->rank = op_calloc(ctx, count, sizeof(int));
    s->rest_axis = op_calloc(ctx, 3 * count, sizeof(double));
    s->quaternion = op_calloc(ctx, 4 * count, sizeof(double));
    s->cluster_of = op_calloc(ctx, n, sizeof(int));
    s->share = op_calloc(ctx, n, sizeof(double));
    s->centre = op_calloc(ctx, 3 * count, sizeof(double));
    s->rotation = op_calloc(ctx, 9 * count, sizeof(double));
    s->linear = op_calloc(ctx, 9 * count, sizeof(double));
    s->quadratic = op_calloc(ctx, 18 * count, sizeof(double));
    s->fit = op_calloc(ctx, 9 * count, sizeof(double));
    s->displacement = op_calloc(ctx, 3 * n, sizeof(double));
    s->target = op_calloc(ctx, 3 * n, sizeof(double));
    s->orientation = op_calloc(ctx, 9 * n, sizeof(double));
    s->matched_position = op_calloc(ctx, 3 * n, sizeof(double));
    int *in_clusters = op_calloc(ctx, n, sizeof(int)); /* n_i */
    if (ctx->status != OP_OK) {
        free(in_clusters);
        return ctx->status;
    }
    for (int i = 0; i < s->n; ++i)
        s->cluster_of[i] = -1;
    for (int c = 0; c < s->cluster_count; ++c) {
        int first = s->member[s->cluster_start[c]];
        double mass = 0.0, centre[3] = { 0, 0, 0 }, d[3];
        for (int k = s->cluster_start[c]; k < s->cluster_start[c + 1]; ++k) {
            int j = s->member[k];
            s->weight[k] = g->mass[j] * (body->position_pinned[j] ? ML_PINNED_WEIGHT : 1.0);
            mass += s->weight[k];
            v3_sub(d, &g->rest_position[3 * j], &g->rest_position[3 * first]);
            v3_axpy(centre, s->weight[k], d);
        }
        s->cluster_mass[c] = mass;
        v3_scale(centre, centre, 1.0 / mass);
        v3_add(centre, centre, &g->rest_position[3 * first]);
        for (int k = s->cluster_start[c]; k < s->cluster_start[c + 1]; ++k) {
            int j = s->member[k];
            v3_sub(&s->original_offset[3 * k], &g->rest_position[3 * j], centre);
            s->cluster_of[j] = in_clusters[j] == 0 ? c : -1;
            in_clusters[j]++;
        }
        m3_identity(&s->plastic_state[9 * c]);
        m3_copy(&s->rotation[9 * c], &body->state.rotation[9 * first]);
        op_rotation_quaternion(&s->rotation[9 * c], &s->quaternion[4 * c]);
        if (set_rest_shape(ctx, s, c) != OP_OK)
            break;
    }
    for (int i = 0; i < s->n && ctx->status == OP_OK; ++i)
        s->share[i] = body->position_pinned[i] ? 0.0 : 1.0 / in_clusters[i];
    free(in_clusters);
    return ctx->status;
}

static int ml_create(op_ctx *ctx, const op_solver_settings *settings, op_body *body, double h, void *const *twins,
                     int twin_count, void **out)
{
    (void)twins; /* the clusters are cheap to build and the plastic state is each body's own */
    (void)twin_count;
    *out = NULL;
    for (int c = 0; c < body->constraint_count; ++c)
        if (body->constraints[c].kind == OP_CONSTRAINT_DIRECTION)
            return OP_FAIL(ctx, OP_ERR_USAGE,
                           "solver meshless: body %s has a direction constraint (constraint %d, vertex %d); a point "
                           "model has no orientation to turn: this variant takes position constraints (as spring "
                           "forces) and pins only",
                           body->name, c, body->constraints[c].vertex);
    ml_solver *s = op_calloc(ctx, 1, sizeof *s);
    if (!s)
        return ctx->status;
    s->n = body->graph->particle_count;
    int clusters = 1;
    if (read_options(ctx, settings, h, s, &clusters) != OP_OK || build_clusters(ctx, s, body, clusters) != OP_OK) {
        ml_destroy(s);
        return ctx->status;
    }
    *out = s;
    return OP_OK;
}

/* ---- matching ---------------------------------------------------------------------------- */

/* The smallest turn of the rotation `previous` that carries its image of the rest line a onto
 * the direction d (unit vectors), times `previous`: Rodrigues, or a half turn about an axis
 * normal to a when d is opposite a. */
static void turn_line(const double previous[9], const double a[3], const double d[3], double R[9])
{
    double v[3], K[9], K2[9], turn[9];
    v3_cross(v, a, d);
    double c = v3_dot(a, d);
    if (c > -1.0 + 1e-12) {
        double skew[9] = { 0, -v[2], v[1], v[2], 0, -v[0], -v[1], v[0], 0 };
        m3_copy(K, skew);
        m3_mul(K2, K, K);
        m3_identity(turn);
        m3_add(turn, turn, K);
        m3_axpy(turn, 1.0 / (1.0 + c), K2);
    } else {
        int least = fabs(a[0]) <= fabs(a[1]) && fabs(a[0]) <= fabs(a[2]) ? 0 : fabs(a[1]) <= fabs(a[2]) ? 1 : 2;
        double e[3] = { 0, 0, 0 }, axis[3];
        e[least] = 1.0;
        v3_cross(axis, a, e);
        v3_scale(axis, axis, 1.0 / v3_norm(axis));
        m3_zero(turn);
        m3_add_outer(turn, 2.0, axis, axis);
        turn[0] -= 1.0, turn[4] -= 1.0, turn[8] -= 1.0;
    }
    m3_mul(R, turn, previous);
}

/* Cluster c's rotation R from A_pq (the rest offsets q): see the header for ranks 0 and 1. */
static void cluster_rotation(ml_solver *s, int c, const double apq[9], double R[9])
{
    double *previous = &s->rotation[9 * c];
    if (s->rank[c] == 0) {
        m3_copy(R, previous);
        return;
    }
    if (s->rank[c] == 1) {
        const double *line = &s->rest_axis[3 * c];
        double d[3], a[3];
        m3_mul_v(d, apq, line); /* Σ m p (q·line): along the current line */
        double length = v3_norm(d);
        if (!(length > 0.0)) {
            m3_copy(R, previous);
            return;
        }
        v3_scale(d, d, 1.0 / length);
        m3_mul_v(a, previous, line);
        turn_line(previous, a, d, R);
        return;
    }
    op_polar_rotation_warm(apq, &s->quaternion[4 * c], R);
}

/* Matches every cluster to the positions x: centre, R, the goals' linear part (and, when
 * `want_fit`, the linear fit A for plasticity) and, quadratic, the 3x6 quadratic part. */
static void match_clusters(ml_solver *s, const double *x, int want_fit)
{
    for (int c = 0; c < s->cluster_count; ++c) {
        int begin = s->cluster_start[c], end = s->cluster_start[c + 1];
        const double *anchor = &x[3 * s->member[begin]];
        double offset[3] = { 0, 0, 0 }, d[3], p[3];
        for (int k = begin; k < end; ++k) {
            v3_sub(d, &x[3 * s->member[k]], anchor);
            v3_axpy(offset, s->weight[k], d);
        }
        double *centre = &s->centre[3 * c];
        v3_scale(offset, offset, 1.0 / s->cluster_mass[c]);
        v3_add(centre, anchor, offset);
        double apq[9] = { 0 }, apq9[27] = { 0 };
        for (int k = begin; k < end; ++k) {
            double m = s->weight[k];
            const double *q = &s->rest_offset[3 * k];
            v3_sub(p, &x[3 * s->member[k]], centre);
            m3_add_outer(apq, m, p, q);
            if (s->mode == ML_QUADRATIC) {
                const double *quad = &s->rest_quadratic[6 * k];
                for (int r = 0; r < 3; ++r)
                    for (int col = 0; col < 6; ++col)
                        apq9[9 * r + 3 + col] += m * p[r] * quad[col];
            }
        }
        double R[9], A[9], *T = &s->linear[9 * c];
        cluster_rotation(s, c, apq, R);
        m3_copy(&s->rotation[9 * c], R);
        if (want_fit)
            m3_mul(&s->fit[9 * c], apq, &s->aqq[9 * c]);
        if (s->mode == ML_RIGID) {
            m3_copy(T, R);
            continue;
        }
        if (s->mode == ML_LINEAR) {
            m3_mul(A, apq, &s->aqq[9 * c]);
        } else {
            for (int r = 0; r < 3; ++r)
                for (int col = 0; col < 3; ++col)
                    apq9[9 * r + col] = apq[3 * r + col];
            const double *inverse = &s->aqq_quadratic[81 * c];
            double *quadratic = &s->quadratic[18 * c];
            for (int r = 0; r < 3; ++r)
                for (int col = 0; col < 9; ++col) {
                    double sum = 0.0;
                    for (int k = 0; k < 9; ++k)
                        sum += apq9[9 * r + k] * inverse[9 * k + col];
                    if (col < 3)
                        A[3 * r + col] = sum;
                    else
                        quadratic[6 * r + col - 3] = s->beta * sum;
                }
        }
        if (s->volume_preserve && s->rank[c] == 3) {
            double det = m3_det(A);
            if (det > 0.0 && isfinite(det))
                m3_scale(A, A, 1.0 / cbrt(det));
        }
        for (int k = 0; k < 9; ++k)
            T[k] = (1.0 - s->beta) * R[k] + s->beta * A[k];
    }
}

/* displacement_i = Σ over i's clusters of (g_i^c − x_i), the goals of the last matching. */
static void gather_displacements(ml_solver *s, const double *x)
{
    memset(s->displacement, 0, 3 * (size_t)s->n * sizeof(double));
    for (int c = 0; c < s->cluster_count; ++c) {
        const double *T = &s->linear[9 * c], *centre = &s->centre[3 * c], *quadratic = &s->quadratic[18 * c];
        for (int k = s->cluster_start[c]; k < s->cluster_start[c + 1]; ++k) {
            int j = s->member[k];
            double goal[3];
            m3_mul_v(goal, T, &s->rest_offset[3 * k]);
            if (s->mode == ML_QUADRATIC) {
                const double *quad = &s->rest_quadratic[6 * k];
                for (int r = 0; r < 3; ++r) {
                    double sum = 0.0;
                    for (int col = 0; col < 6; ++col)
                        sum += quadratic[6 * r + col] * quad[col];
                    goal[r] += sum;
                }
            }
            v3_add(goal, goal, centre);
            v3_sub(goal, goal, &x[3 * j]);
            v3_add(&s->displacement[3 * j], &s->displacement[3 * j], goal);
        }
    }
}

/* ‖M‖₂ of a 3x3 matrix: the square root of the largest eigenvalue of MᵀM (closed form of the
 * symmetric 3x3 eigenvalues, trigonometric). */
static double spectral_norm(const double M[9])
{
    double B[9];
    m3_mul_at(B, M, M);
    double p1 = B[1] * B[1] + B[2] * B[2] + B[5] * B[5], q = m3_trace(B) / 3.0;
    if (!(p1 > 0.0))
        return sqrt(op_max(B[0], op_max(B[4], B[8])));
    double p2 = (B[0] - q) * (B[0] - q) + (B[4] - q) * (B[4] - q) + (B[8] - q) * (B[8] - q) + 2.0 * p1;
    double p = sqrt(p2 / 6.0), C[9];
    m3_copy(C, B);
    C[0] -= q, C[4] -= q, C[8] -= q;
    m3_scale(C, C, 1.0 / p);
    double r = m3_det(C) / 2.0, phi = r <= -1.0 ? M_PI / 3.0 : r >= 1.0 ? 0.0 : acos(r) / 3.0;
    return sqrt(op_max(0.0, q + 2.0 * p * cos(phi)));
}

/* Sec. 4.5 for every cluster, from the last matching's R and fit A (header). */
static int update_plasticity(op_ctx *ctx, ml_solver *s, double h)
{
    for (int c = 0; c < s->cluster_count; ++c) {
        double S[9], strain[9];
        m3_mul_at(S, &s->rotation[9 * c], &s->fit[9 * c]);
        m3_copy(strain, S);
        strain[0] -= 1.0, strain[4] -= 1.0, strain[8] -= 1.0;
        if (!(spectral_norm(strain) > s->yield))
            continue;
        double step[9], *Sp = &s->plastic_state[9 * c];
        m3_identity(step);
        m3_axpy(step, h * s->creep, strain);
        m3_mul(Sp, step, Sp);
        double det = m3_det(Sp);
        if (det > 0.0 && isfinite(det))
            m3_scale(Sp, Sp, 1.0 / cbrt(det));
        double excess[9];
        m3_copy(excess, Sp);
        excess[0] -= 1.0, excess[4] -= 1.0, excess[8] -= 1.0;
        double size = spectral_norm(excess);
        if (size > s->cmax) {
            m3_identity(Sp);
            m3_axpy(Sp, s->cmax / size, excess);
        }
        if (set_rest_shape(ctx, s, c) != OP_OK)
            return ctx->status;
    }
    return OP_OK;
}

/* Every free orientation from the last matching: its cluster's R, or the polar rotation of the
 * sum of its clusters' linear parts. */
static void set_orientations(ml_solver *s, op_body *body)
{
    double *rotation = body->state.rotation;
    memset(s->orientation, 0, 9 * (size_t)s->n * sizeof(double));
    for (int c = 0; c < s->cluster_count; ++c)
        for (int k = s->cluster_start[c]; k < s->cluster_start[c + 1]; ++k) {
            int j = s->member[k];
            if (s->cluster_of[j] < 0)
                m3_add(&s->orientation[9 * j], &s->orientation[9 * j], &s->linear[9 * c]);
        }
    for (int i = 0; i < s->n; ++i) {
        if (body->rotation_pinned[i])
            continue;
        if (s->cluster_of[i] >= 0)
            m3_copy(&rotation[9 * i], &s->rotation[9 * s->cluster_of[i]]);
        else
            op_polar_rotation(&s->orientation[9 * i], &rotation[9 * i]);
    }
}

/* ---- the sub-step ------------------------------------------------------------------------- */

/* Every free particle's prediction with the forces: y + h² f/m, f the position constraints'
 * springs at the sub-step's start (header); into s->target and the body's positions. */
static int ml_begin_substep(op_ctx *ctx, void *self, op_body *body, double h)
{
    (void)ctx;
    ml_solver *s = self;
    const op_graph *g = body->graph;
    memcpy(s->target, body->inertial_position, 3 * (size_t)s->n * sizeof(double));
    for (int c = 0; c < body->constraint_count; ++c) {
        const op_constraint *con = &body->constraints[c];
        double v[3], pull[3];
        op_constraint_skinned_point_of(body, con, body->start_position, body->start_rotation, v);
        v3_sub(pull, con->target, v);
        for (int l = 0; l < con->influence_count; ++l) {
            int p = con->particle[l];
            v3_axpy(&s->target[3 * p], h * h * con->weight * con->influence[l] / g->mass[p], pull);
        }
    }
    for (int i = 0; i < s->n; ++i)
        if (!body->position_pinned[i])
            v3_copy(&body->state.position[3 * i], &s->target[3 * i]);
    s->goals_done = 0;
    s->first_iteration = 1;
    return OP_OK;
}

static int ml_iterate(op_ctx *ctx, void *self, op_body *body, double h, op_stage_times *times)
{
    ml_solver *s = self;
    double *x = body->state.position, start = op_now();
    if (s->goals_from == ML_GOALS_START) {
        if (!s->goals_done) {
            /* the last sub-step's orientation matching is this one's goal matching unless the
             * contacts (or the caller) moved a particle since */
            if (!(s->matched_valid && memcmp(s->matched_position, body->start_position,
                                             3 * (size_t)s->n * sizeof(double)) == 0))
                match_clusters(s, body->start_position, s->plastic);
            gather_displacements(s, body->start_position);
            if (s->plastic && update_plasticity(ctx, s, h) != OP_OK)
                return ctx->status;
        }
        for (int i = 0; i < s->n; ++i)
            if (!body->position_pinned[i]) {
                v3_copy(&x[3 * i], &s->target[3 * i]);
                v3_axpy(&x[3 * i], s->alpha * s->share[i], &s->displacement[3 * i]);
            }
    } else {
        match_clusters(s, x, s->plastic && s->first_iteration);
        gather_displacements(s, x);
        if (s->plastic && s->first_iteration && update_plasticity(ctx, s, h) != OP_OK)
            return ctx->status;
        for (int i = 0; i < s->n; ++i)
            v3_axpy(&x[3 * i], s->alpha * s->share[i], &s->displacement[3 * i]);
        s->first_iteration = 0;
    }
    double middle = op_now();
    if (!(s->goals_from == ML_GOALS_START && s->goals_done)) {
        match_clusters(s, x, s->plastic);
        set_orientations(s, body);
        memcpy(s->matched_position, x, 3 * (size_t)s->n * sizeof(double));
        s->matched_valid = 1;
    }
    s->goals_done = 1;
    times->local += middle - start;
    times->global += op_now() - middle;
    return OP_OK;
}

/* Nothing is cached from the body's rotations (the clusters' rotations come from positions). */
static int ml_resync(op_ctx *ctx, void *solver, op_body *body, double h)
{
    (void)ctx, (void)solver, (void)body, (void)h;
    return OP_OK;
}

int op_meshless_cluster_count(const void *solver)
{
    return ((const ml_solver *)solver)->cluster_count;
}

void op_meshless_plastic_state(const void *solver, int cluster, double S[9])
{
    m3_copy(S, &((const ml_solver *)solver)->plastic_state[9 * cluster]);
}

const op_solver_type op_solver_meshless = {
    .name = "meshless",
    .summary = "meshless shape matching: rigid, linear or quadratic goals of overlapping clusters, the paper's "
               "Eq. 9 integration, plasticity; [world] iterations: with goals = start the first applies the "
               "sub-step's update and the rest change nothing, with goals = predicted each repeats the "
               "projection; position constraints act as spring forces, direction constraints are refused",
    .source = "Müller, Heidelberger, Teschner, Gross 2005",
    .options = ml_options,
    .create = ml_create,
    .begin_substep = ml_begin_substep,
    .iterate = ml_iterate,
    .destroy = ml_destroy,
    .resync = ml_resync,
};
