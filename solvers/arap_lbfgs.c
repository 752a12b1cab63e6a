/* arap-lbfgs: the quasi-Newton solver of Liu, Bouaziz & Kavan 2017 ("Quasi-Newton methods for
 * real-time simulation of hyperelastic materials") on the energy of Choi & Lee 2017, L-BFGS over
 * the free positions with the rotations given by a local step.
 *
 * The function minimised. For positions x, let R(x) be what one Gauss–Seidel local step of arap
 * (op_arap_local_step, started from the rotations held) makes of them, and
 *   Ẽ(x) = E(x, R(x)),
 * E the energy yardstick (core/sim/energy.h). Were the local step an exact minimisation over all
 * rotations together, Ẽ would be E*(x) = min_R E(x, R) and, by the envelope theorem, its
 * gradient the partial one ∂E/∂x at R(x). One Gauss–Seidel sweep is not exact: the rotations are
 * coupled through the (R_i − R_j) term of Eq. 4, and a sweep leaves each R_i optimal for its
 * neighbours' values of the moment it was visited, not jointly.
 *
 * The gradient used is therefore exactly
 *   g(x) = ∂E/∂x (x, R(x))     (op_energy_position_gradient, the free particles' rows),
 * the partial gradient at the rotations the local step gave, no term for dR/dx. It is the exact
 * gradient of E*(x) where the local step has converged (tests/test_arap_lbfgs.c checks it against
 * central differences of E* with the local step iterated to convergence at each point), and
 * otherwise the gradient of x ↦ E(x, R) with R held, which is all the line search below needs.
 *
 * One iteration (the world's one call to iterate):
 *   at x_k, with R_k = R(x_k), E_k = E(x_k, R_k), g_k = g(x_k) (kept from the last iteration;
 *   made afresh by a local step when the sub-step starts or the world changed x or R in between);
 *   d = −H g_k by the L-BFGS two-loop recursion over the last m pairs (s, y), with the initial
 *   inverse Hessian H_0 = A⁻¹, A the global step's n×n matrix (the exact Hessian of E in x at
 *   fixed R: E is quadratic in x), applied through arap's CHOLMOD factor (op_arap_factor) to x,
 *   y and z alike; with no pairs, x_k + d is arap's global step from R_k;
 *   Armijo backtracking: α = 1, ½, ¼, … until E(x_k + α d, R(x_k + α d)) ≤ E_k + c₁ α g_kᵀd,
 *   c₁ = 1e-4, each trial one local step and one pass giving E and g together (arap_energy.h,
 *   equal to the yardstick to 1e-12 relative), so the accepted trial's gradient is already made;
 *   the pair s = α d, y = g_{k+1} − g_k is kept when sᵀy > 1e-12 |s| |y| (curvature), else
 *   dropped.
 * Why Armijo is always met for small α: the local step never raises E (Gauss–Seidel, a descent),
 * so E(x_k + αd, R(x_k + αd)) ≤ E(x_k + αd, R_k) = E_k + α g_kᵀd + ½α² dᵀAd, below the Armijo line
 * for α < 2(1 − c₁)|g_kᵀd| / dᵀAd. So E never rises between accepted iterates. Should d not be a
 * descent direction (g_kᵀd ≥ 0, rounding only: H is positive definite) or 30 halvings not satisfy
 * Armijo (E_k at rounding level), the history is dropped and the state left at (x_k, R_k).
 *
 * Options: lbfgs_m (the pairs kept, default 5). The local step is always Gauss–Seidel (Jacobi
 * is not a descent step, and the argument above needs one). Chebyshev and Anderson are refused:
 * L-BFGS keeps its own history, which an extrapolation between iterations would invalidate.
 *
 * Stage times: the local steps (one a trial) are `local`; the gradients, the two-loop recursion,
 * the solves with A and the energy-and-gradient passes of the line search are `global`.
 *
 * Energy hook (solver.h): E_k, kept from the line search, while the body holds (x_k, R_k). */
#include "arap_lbfgs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arap.h"
#include "arap_energy.h"
#include "kernels/sparse.h"
#include "base/timer.h"

enum { LBFGS_MAX_M = 50, LBFGS_MAX_HALVINGS = 30 };
static const double ARMIJO_C1 = 1e-4;

typedef struct lbfgs_solver {
    void *arap;               /* arap's state (Gauss–Seidel): local step, factor */
    int n, free_count, dim;   /* dim = 3 free_count */
    int m;                    /* lbfgs_m */
    op_sparse_workspace work; /* solves with arap's factor */
    double *x, *R;            /* [n][3], [n][9] x_k and R_k as the last iteration left them */
    double energy;            /* E_k */
    int fresh;                /* (x_k, R_k, E_k, g_k) must be made from the body */
    op_arap_energy edges;     /* E and ∂E/∂x in one pass (arap_energy.h) */
    double *gradient_all;     /* [n][3] */
    double *g, *g_next;       /* [dim] g_k, g at the trial */
    double *direction;        /* [dim] d */
    double *s, *y;            /* [m][dim] pairs, circular */
    double *rho;              /* [m] 1 / sᵀy */
    double *alpha;            /* [m] the two-loop's coefficients */
    int pairs, next;
} lbfgs_solver;

static const op_solver_option lbfgs_options[] = {
    { "lbfgs_m", "5", "L-BFGS history: the last m pairs (s, y), 0 to 50 (0: each step is arap's global step "
                      "with a line search)" },
    { NULL, NULL, NULL },
};

static void lbfgs_destroy(void *self)
{
    lbfgs_solver *s = self;
    if (!s)
        return;
    op_solver_arap.destroy(s->arap);
    op_sparse_workspace_free(&s->work);
    free(s->x);
    free(s->R);
    free(s->gradient_all);
    free(s->g);
    free(s->g_next);
    free(s->direction);
    free(s->s);
    free(s->y);
    free(s->rho);
    free(s->alpha);
    op_arap_energy_free(&s->edges);
    free(s);
}

static int lbfgs_create(op_ctx *ctx, const op_solver_settings *settings, op_body *body, double h, void *const *twins,
                        int twin_count, void **out)
{
    *out = NULL;
    int m, chebyshev, anderson;
    if (op_solver_setting_int(ctx, settings, "lbfgs_m", 0, LBFGS_MAX_M, &m) != OP_OK ||
        op_solver_setting_choice(ctx, settings, "chebyshev", "off|on", &chebyshev) != OP_OK ||
        op_solver_setting_choice(ctx, settings, "anderson", "off|on", &anderson) != OP_OK)
        return ctx->status;
    if (chebyshev || anderson)
        return OP_FAIL(ctx, OP_ERR_USAGE,
                       "solver arap-lbfgs: option %s = on is refused: L-BFGS keeps its own history of steps, which "
                       "an extrapolation between iterations would invalidate",
                       chebyshev ? "chebyshev" : "anderson");
    lbfgs_solver *s = op_calloc(ctx, 1, sizeof *s);
    if (!s)
        return ctx->status;
    int n = body->graph->particle_count;
    s->n = n;
    s->m = m;
    for (int i = 0; i < n; ++i)
        s->free_count += !body->position_pinned[i];
    s->dim = 3 * s->free_count;
    /* arap's state for the local step and the factor, Gauss–Seidel; twins share factors as arap's do */
    op_solver_settings inner = { .count = 1 };
    snprintf(inner.key[0], sizeof inner.key[0], "rotations");
    snprintf(inner.value[0], sizeof inner.value[0], "gs");
    void *arap_twins[64];
    int arap_twin_count = 0;
    for (int t = twin_count > 64 ? twin_count - 64 : 0; t < twin_count; ++t)
        arap_twins[arap_twin_count++] = ((const lbfgs_solver *)twins[t])->arap;
    size_t d = (size_t)(s->dim > 0 ? s->dim : 1), pairs = (size_t)(m > 0 ? m : 1);
    if (op_solver_settings_validate(ctx, &op_solver_arap, &inner) != OP_OK ||
        op_solver_arap.create(ctx, &inner, body, h, arap_twins, arap_twin_count, &s->arap) != OP_OK) {
        lbfgs_destroy(s);
        return ctx->status;
    }
    s->x = op_calloc(ctx, 3 * (size_t)n, sizeof(double));
    s->R = op_calloc(ctx, 9 * (size_t)n, sizeof(double));
    s->gradient_all = op_calloc(ctx, 3 * (size_t)n, sizeof(double));
    s->g = op_calloc(ctx, d, sizeof(double));
    s->g_next = op_calloc(ctx, d, sizeof(double));
    s->direction = op_calloc(ctx, d, sizeof(double));
    s->s = op_calloc(ctx, pairs * d, sizeof(double));
    s->y = op_calloc(ctx, pairs * d, sizeof(double));
    s->rho = op_calloc(ctx, pairs, sizeof(double));
    s->alpha = op_calloc(ctx, pairs, sizeof(double));
    const op_sparse_factor *factor = op_arap_factor(s->arap);
    if (ctx->status == OP_OK)
        op_arap_energy_init(ctx, &s->edges, body->graph);
    if (ctx->status != OP_OK || (factor && op_sparse_workspace_reserve(ctx, &s->work, factor) != OP_OK)) {
        lbfgs_destroy(s);
        return ctx->status;
    }
    s->fresh = 1;
    *out = s;
    return OP_OK;
}

static int lbfgs_begin_substep(op_ctx *ctx, void *self, op_body *body, double h)
{
    lbfgs_solver *s = self;
    s->fresh = 1;
    s->pairs = s->next = 0;
    if (op_solver_arap.begin_substep(ctx, s->arap, body, h) != OP_OK)
        return ctx->status;
    const op_sparse_factor *factor = op_arap_factor(s->arap); /* a new h may have made a new one */
    return factor ? op_sparse_workspace_reserve(ctx, &s->work, factor) : OP_OK;
}

/* E at the body's state, and g(x) of the file comment there: the free particles' rows of ∂E/∂x,
 * in the order of the factor's rows (the position-free particles by index, arap.h); one pass over
 * the edges gives both (arap_energy.h) */
static double energy_and_gradient(lbfgs_solver *s, const op_body *body, double h, double *g)
{
    double energy = op_arap_energy_eval(&s->edges, body, h, s->gradient_all);
    for (int i = 0, c = 0; i < s->n; ++i)
        if (!body->position_pinned[i]) {
            g[c++] = s->gradient_all[3 * i];
            g[c++] = s->gradient_all[3 * i + 1];
            g[c++] = s->gradient_all[3 * i + 2];
        }
    return energy;
}

static double dot(const double *a, const double *b, int count)
{
    double sum = 0.0;
    for (int c = 0; c < count; ++c)
        sum += a[c] * b[c];
    return sum;
}

static void remember(lbfgs_solver *s, const op_body *body)
{
    memcpy(s->x, body->state.position, 3 * (size_t)s->n * sizeof(double));
    memcpy(s->R, body->state.rotation, 9 * (size_t)s->n * sizeof(double));
}

static int holds(const lbfgs_solver *s, const op_body *body)
{
    return memcmp(s->x, body->state.position, 3 * (size_t)s->n * sizeof(double)) == 0 &&
           memcmp(s->R, body->state.rotation, 9 * (size_t)s->n * sizeof(double)) == 0;
}

/* d = −H g by the two-loop recursion, H_0 = A⁻¹ */
static int direction(op_ctx *ctx, lbfgs_solver *s)
{
    int dim = s->dim;
    double *q = s->direction;
    memcpy(q, s->g, (size_t)dim * sizeof(double));
    for (int p = 0; p < s->pairs; ++p) { /* newest first */
        int slot = (s->next - 1 - p + 2 * s->m) % s->m;
        s->alpha[slot] = s->rho[slot] * dot(&s->s[(size_t)slot * dim], q, dim);
        const double *y = &s->y[(size_t)slot * dim];
        for (int c = 0; c < dim; ++c)
            q[c] -= s->alpha[slot] * y[c];
    }
    if (op_sparse_solve3(ctx, op_arap_factor(s->arap), &s->work, q) != OP_OK)
        return ctx->status;
    for (int p = s->pairs - 1; p >= 0; --p) { /* oldest first */
        int slot = (s->next - 1 - p + 2 * s->m) % s->m;
        double beta = s->rho[slot] * dot(&s->y[(size_t)slot * dim], q, dim);
        const double *step = &s->s[(size_t)slot * dim];
        for (int c = 0; c < dim; ++c)
            q[c] += step[c] * (s->alpha[slot] - beta);
    }
    for (int c = 0; c < dim; ++c)
        q[c] = -q[c];
    return OP_OK;
}

/* x_k + α d into the body's free positions */
static void place(const lbfgs_solver *s, op_body *body, double alpha)
{
    for (int i = 0, c = 0; i < s->n; ++i)
        if (!body->position_pinned[i]) {
            for (int r = 0; r < 3; ++r)
                body->state.position[3 * i + r] = s->x[3 * i + r] + alpha * s->direction[c + r];
            c += 3;
        }
}

/* the body back at (x_k, R_k), arap's rotation records with it */
static int restore(op_ctx *ctx, lbfgs_solver *s, op_body *body, double h)
{
    memcpy(body->state.position, s->x, 3 * (size_t)s->n * sizeof(double));
    memcpy(body->state.rotation, s->R, 9 * (size_t)s->n * sizeof(double));
    return op_solver_arap.resync(ctx, s->arap, body, h);
}

static int lbfgs_iterate(op_ctx *ctx, void *self, op_body *body, double h, op_stage_times *times)
{
    lbfgs_solver *s = self;
    if (s->dim == 0) {
        double start = op_now();
        op_arap_local_step(s->arap, body, h);
        times->local += op_now() - start;
        return OP_OK;
    }
    double local = 0.0, start = op_now();
    if (s->fresh || !holds(s, body)) {
        /* R_k = R(x_k), E_k, g_k at the body's x, and no history from another state */
        double t = op_now();
        op_arap_local_step(s->arap, body, h);
        local += op_now() - t;
        s->energy = energy_and_gradient(s, body, h, s->g);
        remember(s, body);
        s->pairs = s->next = 0;
        s->fresh = 0;
    }
    if (direction(ctx, s) != OP_OK)
        return ctx->status;
    int dim = s->dim;
    double slope = dot(s->g, s->direction, dim);
    if (!(slope < 0.0) && s->pairs > 0) { /* not a descent direction: start the history anew */
        s->pairs = s->next = 0;
        if (direction(ctx, s) != OP_OK)
            return ctx->status;
        slope = dot(s->g, s->direction, dim);
    }
    int accepted = 0;
    double alpha = 1.0, trial = s->energy;
    for (int halving = 0; slope < 0.0 && halving <= LBFGS_MAX_HALVINGS; ++halving, alpha *= 0.5) {
        place(s, body, alpha);
        double t = op_now();
        op_arap_local_step(s->arap, body, h);
        local += op_now() - t;
        trial = energy_and_gradient(s, body, h, s->g_next);
        if (trial <= s->energy + ARMIJO_C1 * alpha * slope) {
            accepted = 1;
            break;
        }
        if (restore(ctx, s, body, h) != OP_OK)
            return ctx->status;
    }
    if (!accepted) {
        /* E_k at rounding level: stay at (x_k, R_k), drop the history */
        s->pairs = s->next = 0;
        times->local += local;
        times->global += op_now() - start - local;
        return OP_OK;
    }
    if (s->m > 0) {
        double *step = &s->s[(size_t)s->next * dim], *change = &s->y[(size_t)s->next * dim];
        for (int c = 0; c < dim; ++c) {
            step[c] = alpha * s->direction[c];
            change[c] = s->g_next[c] - s->g[c];
        }
        double sy = dot(step, change, dim), ss = dot(step, step, dim), yy = dot(change, change, dim);
        if (sy > 1e-12 * sqrt(ss * yy)) {
            s->rho[s->next] = 1.0 / sy;
            s->next = (s->next + 1) % s->m;
            if (s->pairs < s->m)
                s->pairs++;
        }
    }
    double *swap = s->g;
    s->g = s->g_next;
    s->g_next = swap;
    s->energy = trial;
    remember(s, body);
    times->local += local;
    times->global += op_now() - start - local;
    return OP_OK;
}

/* E_k is what the line search accepted: the energy of the iterate the last iteration left, for
 * nothing, while the body still holds it */
static int lbfgs_energy(op_ctx *ctx, void *self, const op_body *body, double h, double *energy)
{
    lbfgs_solver *s = self;
    (void)ctx;
    *energy = !s->fresh && s->dim > 0 && holds(s, body) ? s->energy : op_arap_energy_eval(&s->edges, body, h, NULL);
    return OP_OK;
}

const op_solver_type op_solver_arap_lbfgs = {
    .name = "arap-lbfgs",
    .summary = "quasi-Newton ARAP: L-BFGS on the positions, the global matrix as initial Hessian, rotations by a "
               "Gauss-Seidel local step, Armijo line search",
    .source = "Liu, Bouaziz & Kavan 2017",
    .options = lbfgs_options,
    .create = lbfgs_create,
    .begin_substep = lbfgs_begin_substep,
    .iterate = lbfgs_iterate,
    .destroy = lbfgs_destroy,
    .energy = lbfgs_energy,
};
