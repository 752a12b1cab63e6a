/* The floor inside the global step (arap_floor.h): a bound-constrained solve through the
 * solver's own factor, an active set kept from one global step to the next.
 *
 * With the rotations fixed, the global step minimises ½ uᵀA u − bᵀu for each coordinate, A the
 * factored matrix of Eq. 7 + 12 + 14 (the Hessian: its diagonal is m_i/h² + Σ_j k (v_i + v_j)).
 * The floor bounds the y coordinate alone: u_i ≥ t_i for every free particle i, with
 * t_i = floor + h_i(+y) − x_ref_i (h_i(+y) the ellipsoid's reach below its centre with R_i as the
 * local step left it, fixed through the global step). x and z are untouched. The conditions of
 * the minimum are
 *   A u = b + Eᵀμ,   μ ≥ 0,   u_C = t_C,   u_i ≥ t_i elsewhere,
 * with C the held set, E its rows of the identity and μ the floor's forces (N: A is the
 * Hessian). For a given C, u = u₀ + W μ with u₀ = A⁻¹ b the solver's unconstrained solution and
 * W = A⁻¹ Eᵀ, and μ solves the Schur complement system
 *   S μ = t_C − u₀_C,   S = E A⁻¹ Eᵀ (|C| × |C|, a principal block of A⁻¹, positive definite).
 * So the factor is not changed: each particle that ever touches costs one column A⁻¹ e_i (one
 * solve, three particles a solve, kept while the factor is), and each global step |C|·free
 * multiply-adds, with a dense Cholesky factor of S made again only when C changes. This is the
 * Schur-complement form of holding rows fixed; CHOLMOD's rank update (cholmod_updown) would
 * instead add a penalty row per held particle, whose removal is a downdate that cancels the
 * penalty against itself and loses the row's digits, and would make the bits depend on the
 * order of the updates.
 *
 * The held set is found by the primal-dual active-set iteration (Hintermüller, Ito & Kunisch
 * 2002): held next are the held particles with μ_i > 0 and the others with u_i < t_i; repeat
 * until the set does not change. Without position constraints A is an M-matrix, for which the
 * iteration ends in finitely many rounds; it starts from the previous global step's set, so at
 * rest it ends in one. At most HOLD_ROUNDS rounds are taken; the world measures what is left
 * below the floor either way (include/opsim/world.h, FLOOR).
 *
 * Every sum runs in a fixed order (particles ascending, held particles ascending), so arap and
 * arap-reference, which call this with the same solution, give the same bits. */
#include "arap_floor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "contact/collide.h"

enum { HOLD_ROUNDS = 32 };

void op_arap_floor_free(op_arap_floor *floor)
{
    free(floor->column_of);
    free(floor->columns);
    free(floor->held);
    free(floor->list);
    free(floor->factored);
    free(floor->schur);
    free(floor->schur_full);
    free(floor->friction);
    free(floor->multiplier);
    free(floor->bound);
    free(floor->free_y);
    free(floor->scratch);
    memset(floor, 0, sizeof *floor);
}

/* The arrays for a body of n particles, free_count of them free; the columns dropped when the
 * factor is not the one they were solved with (a solver makes a new factor only for a new h, and
 * a new factor may reuse a freed one's address: both are compared). */
static int prepare(op_ctx *ctx, op_arap_floor *floor, int n, int free_count, const op_sparse_factor *factor,
                   double h)
{
    if (!floor->column_of) {
        floor->n = n;
        floor->free_count = free_count;
        floor->column_of = op_calloc(ctx, (size_t)n, sizeof(int));
        floor->held = op_calloc(ctx, (size_t)n, 1);
        floor->list = op_calloc(ctx, (size_t)n, sizeof(int));
        floor->factored = op_calloc(ctx, (size_t)n, sizeof(int));
        floor->multiplier = op_calloc(ctx, (size_t)n, sizeof(double));
        floor->bound = op_calloc(ctx, (size_t)n, sizeof(double));
        floor->free_y = op_calloc(ctx, (size_t)n, sizeof(double));
        floor->scratch = op_calloc(ctx, 3 * (size_t)(free_count > n ? free_count : n), sizeof(double));
        floor->friction = op_calloc(ctx, 2 * (size_t)n, sizeof(double));
        if (ctx->status != OP_OK)
            return ctx->status;
        floor->factor = NULL;
    }
    if (floor->factor != factor || floor->factor_h != h) {
        for (int i = 0; i < n; ++i)
            floor->column_of[i] = -1;
        floor->column_count = 0;
        floor->factored_count = -1;
        floor->factor = factor;
        floor->factor_h = h;
    }
    return OP_OK;
}

/* Room for `more` columns beyond those made */
static int reserve_columns(op_ctx *ctx, op_arap_floor *floor, int more)
{
    int need = floor->column_count + more;
    if (need <= floor->column_capacity)
        return OP_OK;
    int capacity = floor->column_capacity ? 2 * floor->column_capacity : 16;
    while (capacity < need)
        capacity *= 2;
    double *grown = realloc(floor->columns, (size_t)capacity * (size_t)floor->free_count * sizeof(double));
    if (!grown)
        return OP_FAIL(ctx, OP_ERR_NOMEM, "floor hold: out of memory for %d columns", capacity);
    floor->columns = grown;
    floor->column_capacity = capacity;
    return OP_OK;
}

/* A⁻¹ e_row(i) for every held particle that has none yet, three a solve (x, y and z of the
 * right-hand side are independent columns of one solve). */
static int make_columns(op_ctx *ctx, op_arap_floor *floor, const op_sparse_factor *factor, op_sparse_workspace *work,
                        const int *row_of)
{
    int missing[3], count = 0;
    for (int k = 0; k <= floor->list_count; ++k) {
        int last = k == floor->list_count;
        if (!last && floor->column_of[floor->list[k]] < 0)
            missing[count++] = floor->list[k];
        if (count == 0 || (count < 3 && !last))
            continue;
        if (reserve_columns(ctx, floor, count) != OP_OK)
            return ctx->status;
        memset(floor->scratch, 0, 3 * (size_t)floor->free_count * sizeof(double));
        for (int c = 0; c < count; ++c)
            floor->scratch[3 * row_of[missing[c]] + c] = 1.0;
        if (op_sparse_solve3(ctx, factor, work, floor->scratch) != OP_OK)
            return ctx->status;
        for (int c = 0; c < count; ++c) {
            double *column = &floor->columns[(size_t)floor->column_count * (size_t)floor->free_count];
            for (int r = 0; r < floor->free_count; ++r)
                column[r] = floor->scratch[3 * r + c];
            floor->column_of[missing[c]] = floor->column_count++;
        }
        count = 0;
    }
    return OP_OK;
}

static const double *column(const op_arap_floor *floor, int i)
{
    return &floor->columns[(size_t)floor->column_of[i] * (size_t)floor->free_count];
}

/* S = E A⁻¹ Eᵀ of the held list and its Cholesky factor L (lower triangle, row-major, in
 * schur), unless it was made for this list already. */
static int factor_schur(op_ctx *ctx, op_arap_floor *floor, const int *row_of)
{
    int m = floor->list_count;
    if (m == floor->factored_count && memcmp(floor->list, floor->factored, (size_t)m * sizeof(int)) == 0)
        return OP_OK;
    if (!floor->schur) {
        floor->schur = op_calloc(ctx, (size_t)floor->n * (size_t)floor->n, sizeof(double));
        floor->schur_full = op_calloc(ctx, (size_t)floor->n * (size_t)floor->n, sizeof(double));
        if (ctx->status != OP_OK)
            return ctx->status;
    }
    double *L = floor->schur, *S = floor->schur_full;
    for (int a = 0; a < m; ++a) {
        const double *col = column(floor, floor->list[a]);
        for (int b = 0; b <= a; ++b)
            S[a * m + b] = S[b * m + a] = L[a * m + b] = col[row_of[floor->list[b]]];
    }
    for (int j = 0; j < m; ++j) {
        double d = L[j * m + j];
        for (int k = 0; k < j; ++k)
            d -= L[j * m + k] * L[j * m + k];
        if (!(d > 0)) {
            floor->factored_count = -1;
            return OP_FAIL(ctx, OP_ERR_INVALID, "floor hold: the held particles' Schur complement is not positive "
                                                "definite at particle %d", floor->list[j]);
        }
        L[j * m + j] = sqrt(d);
        for (int i = j + 1; i < m; ++i) {
            double s = L[i * m + j];
            for (int k = 0; k < j; ++k)
                s -= L[i * m + k] * L[j * m + k];
            L[i * m + j] = s / L[j * m + j];
        }
    }
    memcpy(floor->factored, floor->list, (size_t)m * sizeof(int));
    floor->factored_count = m;
    return OP_OK;
}

/* μ from S μ = t_C − u₀_C with the factor of factor_schur, into multiplier[particle] */
static void solve_multipliers(op_arap_floor *floor)
{
    int m = floor->list_count;
    const double *L = floor->schur;
    double *y = floor->scratch; /* m ≤ free_count: the first m entries of the scratch */
    for (int i = 0; i < m; ++i) {
        int p = floor->list[i];
        double s = floor->bound[p] - floor->free_y[p];
        for (int k = 0; k < i; ++k)
            s -= L[i * m + k] * y[k];
        y[i] = s / L[i * m + i];
    }
    for (int i = m - 1; i >= 0; --i) {
        double s = y[i];
        for (int k = i + 1; k < m; ++k)
            s -= L[k * m + i] * y[k];
        y[i] = s / L[i * m + i];
    }
    for (int i = 0; i < m; ++i)
        floor->multiplier[floor->list[i]] = y[i];
}

/* One round: u_y = u₀ + W μ for the held list (the held bounds met exactly) into rhs's y column,
 * then the next held set. Returns whether it changed. */
static int hold_round(op_arap_floor *floor, const int *row_of, double *rhs)
{
    int n = floor->n, changed = 0;
    for (int i = 0; i < n; ++i) {
        int row = row_of[i];
        if (row < 0)
            continue;
        double y = floor->free_y[i];
        for (int a = 0; a < floor->list_count; ++a)
            y += floor->multiplier[floor->list[a]] * column(floor, floor->list[a])[row];
        rhs[3 * row + 1] = floor->held[i] ? floor->bound[i] : y;
    }
    for (int i = 0; i < n; ++i) {
        if (row_of[i] < 0)
            continue;
        int hold = floor->held[i] ? floor->multiplier[i] > 0 : rhs[3 * row_of[i] + 1] < floor->bound[i];
        changed |= hold != floor->held[i];
        floor->held[i] = (unsigned char)hold;
    }
    return changed;
}

/* Coulomb friction on the held particles, the x and z columns. With the floor's forces μ fixed,
 * friction bounds each held particle's tangential force f_a = (f_x, f_z) by c_a = friction μ_a,
 * and the implicit step with maximal dissipation is the minimum over u of the global step's
 * energy plus Σ_a c_a |u_a − s_a|, s_a the particle's displacement where the sub-step started
 * (its tangential motion over the sub-step is h v_t). Its dual is small and dense:
 *   min ½ fᵀ S f − fᵀ (s − u₀)  over |f_a| ≤ c_a,   then u = u₀ + W f,
 * S the held set's Schur complement (the same for x and z, A being one matrix for both). It is
 * solved by projected Gauss–Seidel over the held particles in ascending order, each f_a onto its
 * disc, until no force moves by more than FRICTION_TOLERANCE of its bound (at most
 * FRICTION_SWEEPS sweeps), starting from each particle's force of the previous global step
 * (zero for one newly held): a particle whose f_a stays inside its disc sticks (u_a = s_a), one
 * on the rim slides against its motion. A held particle without a pressing force (μ_a ≤ 0, only
 * when the active set ran out of rounds) gets no friction. */
enum { FRICTION_SWEEPS = 200 };
static const double FRICTION_TOLERANCE = 1e-12;

static void hold_friction(op_arap_floor *floor, const op_body *body, const int *row_of, const double *reference,
                          double *rhs)
{
    int m = floor->list_count;
    double friction = body->floor_friction;
    /* the forces of the particles not held now start from zero when they are held again */
    for (int i = 0, a = 0; i < floor->n; ++i) {
        if (a < m && floor->list[a] == i) {
            ++a;
            continue;
        }
        floor->friction[2 * i] = floor->friction[2 * i + 1] = 0.0;
    }
    if (m == 0 || !(friction > 0))
        return;
    const double *S = floor->schur_full;
    double *gap = floor->scratch; /* [m][2] s_a − u₀_a, x and z */
    for (int a = 0; a < m; ++a) {
        int p = floor->list[a], row = row_of[p];
        const double *start = &body->start_position[3 * p], *x_ref = &reference[3 * p];
        gap[2 * a] = (start[0] - x_ref[0]) - rhs[3 * row];
        gap[2 * a + 1] = (start[2] - x_ref[2]) - rhs[3 * row + 2];
    }
    for (int sweep = 0; sweep < FRICTION_SWEEPS; ++sweep) {
        double moved = 0.0;
        for (int a = 0; a < m; ++a) {
            int p = floor->list[a];
            double bound = friction * floor->multiplier[p], f[2];
            if (!(bound > 0)) {
                floor->friction[2 * p] = floor->friction[2 * p + 1] = 0.0;
                continue;
            }
            for (int c = 0; c < 2; ++c) {
                double residual = gap[2 * a + c];
                for (int b = 0; b < m; ++b)
                    residual -= S[a * m + b] * floor->friction[2 * floor->list[b] + c];
                f[c] = floor->friction[2 * p + c] + residual / S[a * m + a];
            }
            double size = sqrt(f[0] * f[0] + f[1] * f[1]);
            if (size > bound) {
                f[0] *= bound / size;
                f[1] *= bound / size;
            }
            for (int c = 0; c < 2; ++c) {
                moved = fmax(moved, fabs(f[c] - floor->friction[2 * p + c]) / bound);
                floor->friction[2 * p + c] = f[c];
            }
        }
        if (!(moved > FRICTION_TOLERANCE))
            break;
    }
    for (int i = 0; i < floor->n; ++i) {
        int row = row_of[i];
        if (row < 0)
            continue;
        for (int a = 0; a < m; ++a) {
            int p = floor->list[a];
            double w = column(floor, p)[row];
            rhs[3 * row] += floor->friction[2 * p] * w;
            rhs[3 * row + 2] += floor->friction[2 * p + 1] * w;
        }
    }
}

int op_arap_floor_hold(op_ctx *ctx, op_arap_floor *floor, op_body *body, const op_sparse_factor *factor,
                       op_sparse_workspace *work, const int *row_of, int free_count, const double *reference,
                       double h, double *rhs)
{
    if (!body->floor_held || free_count == 0)
        return OP_OK;
    int n = body->graph->particle_count;
    if (prepare(ctx, floor, n, free_count, factor, h) != OP_OK)
        return ctx->status;
    for (int i = 0; i < n; ++i) {
        floor->multiplier[i] = 0.0;
        if (row_of[i] < 0)
            continue;
        floor->free_y[i] = rhs[3 * row_of[i] + 1];
        floor->bound[i] = (body->floor_height + op_particle_reach_down(body, i)) - reference[3 * i + 1];
    }
    int changed = 1;
    for (floor->rounds = 0; changed && floor->rounds < HOLD_ROUNDS; ++floor->rounds) {
        floor->list_count = 0;
        for (int i = 0; i < n; ++i)
            if (floor->held[i])
                floor->list[floor->list_count++] = i;
        if (make_columns(ctx, floor, factor, work, row_of) != OP_OK || factor_schur(ctx, floor, row_of) != OP_OK)
            return ctx->status;
        for (int i = 0; i < n; ++i)
            floor->multiplier[i] = 0.0;
        solve_multipliers(floor);
        changed = hold_round(floor, row_of, rhs);
    }
    /* the friction of the held set the last round solved for (its list, S and μ) */
    hold_friction(floor, body, row_of, reference, rhs);
    const double *mass = body->graph->mass;
    for (int i = 0; i < n; ++i)
        body->floor_push[i] = floor->multiplier[i] > 0 ? floor->multiplier[i] * (h * h) / mass[i] : 0.0;
    return OP_OK;
}
