/* sparse_cg.h's AMG preconditioner: a smoothed-aggregation algebraic multigrid hierarchy of the
 * held matrix, built once, and the V-cycle that preconditions each CG iteration.
 *
 * The hierarchy (Vaněk, Mandel & Brezina 1996), level l's matrix A_l, A_0 = A:
 * - strength: j is a strong neighbour of i when |a_ij| > θ √(a_ii a_jj), θ = 0.08;
 * - aggregates grown greedily in index order (deterministic): (1) a node whose strong
 *   neighbours are all free starts an aggregate of itself and them; (2) a free node joins the
 *   aggregate of its strongest aggregated neighbour (the first such in column order on a tie);
 *   (3) what is still free and has strong neighbours starts an aggregate of itself and its free
 *   strong neighbours. A node without strong neighbours (the mass dominates its row) is left in
 *   no aggregate: its tentative prolongator row is zero and the smoother alone treats it.
 * - the tentative prolongator P̂ is piecewise constant (1 on a node's aggregate; the constants
 *   are the stiffness term's null space); the finest level's is smoothed by one damped Jacobi
 *   step, P = (I − ω D⁻¹ A) P̂, ω = 4 / (3 ρ), ρ ≥ ρ(D⁻¹ A) bounded by Gershgorin
 *   (max_i Σ_j |a_ij| / a_ii); the coarser levels keep P̂ (SMOOTHED_LEVELS). Smoothing every
 *   level made the coarse matrices nearly dense (at 16,000 random-body nodes, level 2's 317
 *   rows held 123 entries each) for no fewer iterations: `bench_sparse -c -k 1e8` read 1,041
 *   entries a node at 16,000 nodes and 1,100 at 100,000 that way, 886 and 898 this way, both
 *   16 iterations (docs/scaling.md);
 * - A_{l+1} = Pᵀ A_l P (Galerkin), by two row-by-row sparse products Pᵀ (A P) in a fixed order
 *   (opsim's own, about fifty lines, on the compressed rows the V-cycle reads: CHOLMOD's
 *   cholmod_ssmult would need each level converted to its column form and back);
 * - coarsening stops at COARSEST_ROWS rows, after MAX_LEVELS levels, or when a level keeps more
 *   than STALL_RATIO of its rows (no strong connections, as when the mass term dominates);
 * - the coarsest level is solved by sparse.h's factor when it has at most FACTOR_ROWS rows, else
 *   (coarsening stalled on a large matrix) by COARSEST_SWEEPS symmetric Gauss–Seidel sweeps.
 *
 * The V-cycle from z = 0: a forward Gauss–Seidel sweep, the residual restricted by Pᵀ, the
 * coarse correction prolonged by P, a backward Gauss–Seidel sweep. The backward sweep is the
 * forward one's adjoint and the coarse solve is symmetric, so the cycle is a symmetric positive-
 * definite operator and CG stays valid with it. The three columns go through every pass
 * together.
 *
 * The finest level, which holds most of the work, is shared by the caller's thread team
 * (sparse_cg_internal.h's op_cg_team): its sweeps are Gauss–Seidel within fixed blocks of
 * SWEEP_ROWS consecutive rows and Jacobi between blocks (each block reads the other blocks' x
 * as the sweep found it), so forward M = D + L_B and backward Mᵀ = D + U_B, L_B and U_B A's
 * strict triangles within the blocks. The cycle stays symmetric, and the smoother converges
 * where M + Mᵀ − A = D − (A's entries between blocks) is positive definite, which holds for a
 * diagonally dominant A such as arap's global matrix (M/h² + k·L_graph). The blocks are fixed by
 * the row count, not the team, so every thread count gives the same bits; a body of at most
 * SWEEP_ROWS rows sweeps as plain Gauss–Seidel. After the forward sweep from zero a row's own
 * equation holds for the entries it read, so the residual needs only the others (its row
 * before its block and after its diagonal). The products of the coarser levels are shared too,
 * their sweeps (not diagonally dominant in general) run on one thread. Every sum runs in a
 * fixed order, no intrinsics. */
#include "kernels/sparse_cg.h"
#include "kernels/sparse_cg_internal.h"
#include "kernels/sparse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { COARSEST_ROWS = 300, FACTOR_ROWS = 2000, MAX_LEVELS = 16, COARSEST_SWEEPS = 2, SMOOTHED_LEVELS = 1 };
/* The finest level's sweep blocks (the header): the blocks a team shares (sparse_cg_internal.h).
 * Smaller blocks would share a small body among more threads but make the smoother more
 * Jacobi-like: at 512 rows a 1,000-particle body has two blocks, and the 16,000-node body of
 * tests/test_arap_pcg.c needs 19 iterations against 18 with one block. */
enum { SWEEP_ROWS = OP_CG_BLOCK_ROWS };
static const double STRENGTH = 0.08, STALL_RATIO = 0.85;

/* A rectangular matrix by compressed rows, columns ascending within a row. */
typedef struct amg_csr {
    int rows, cols;
    int *start, *column;
    double *value;
} amg_csr;

/* Level l: its matrix (level 0's the held matrix's arrays, not owned), its diagonal, and the
 * prolongator to level l + 1 with its transpose (none on the coarsest). */
typedef struct amg_level {
    amg_csr a;
    double *diagonal;
    amg_csr p, pt;
} amg_level;

struct op_sparse_amg {
    int level_count;
    amg_level level[MAX_LEVELS];
    op_sparse_factor *coarse; /* the coarsest level's factor, or NULL: Gauss–Seidel sweeps */
};

static void csr_free(amg_csr *m)
{
    free(m->start);
    free(m->column);
    free(m->value);
    memset(m, 0, sizeof *m);
}

void op_sparse_amg_free(op_sparse_amg *amg)
{
    if (!amg)
        return;
    for (int l = 0; l < amg->level_count; ++l) {
        if (l > 0)
            csr_free(&amg->level[l].a);
        free(amg->level[l].diagonal);
        csr_free(&amg->level[l].p);
        csr_free(&amg->level[l].pt);
    }
    op_sparse_factor_free(&amg->coarse);
    free(amg);
}

static size_t csr_bytes(const amg_csr *m)
{
    if (!m->start)
        return 0;
    return ((size_t)m->rows + 1) * sizeof(int) + (size_t)m->start[m->rows] * (sizeof(int) + sizeof(double));
}

size_t op_sparse_amg_bytes(const op_sparse_amg *amg)
{
    size_t bytes = sizeof *amg;
    for (int l = 0; l < amg->level_count; ++l) {
        const amg_level *v = &amg->level[l];
        bytes += (l > 0 ? csr_bytes(&v->a) : 0) + (size_t)v->a.rows * sizeof(double) + csr_bytes(&v->p) +
                 csr_bytes(&v->pt);
    }
    return bytes + (amg->coarse ? op_sparse_factor_bytes(amg->coarse) : 0);
}

/* Entries one V-cycle reads: on the finest level above the coarsest, A's off-diagonal entries
 * twice (the forward sweep and the residual read each once between them, the backward sweep
 * all), on the others A_l three times (the two sweeps and the residual); P_l twice on each
 * (Pᵀ to restrict, P to prolong); the coarsest's factor L below the diagonal twice and its
 * diagonal once, or A_l twice a sweep. */
long op_sparse_amg_entries(const op_sparse_amg *amg)
{
    long entries = 0;
    for (int l = 0; l + 1 < amg->level_count; ++l)
        entries += (l == 0 ? 2L * (amg->level[0].a.start[amg->level[0].a.rows] - amg->level[0].a.rows)
                           : 3L * amg->level[l].a.start[amg->level[l].a.rows]) +
                   2L * amg->level[l].p.start[amg->level[l].p.rows];
    const amg_csr *last = &amg->level[amg->level_count - 1].a;
    if (amg->coarse)
        entries += 2 * (op_sparse_factor_nonzeros(amg->coarse) - last->rows) + last->rows;
    else
        entries += 2L * COARSEST_SWEEPS * last->start[last->rows];
    return entries;
}

int op_sparse_matrix_amg_levels(const op_sparse_matrix *matrix, int *rows, long *entries, int capacity)
{
    const op_sparse_amg *amg = matrix->amg;
    if (!amg)
        return 0;
    for (int l = 0; l < amg->level_count && l < capacity; ++l) {
        rows[l] = amg->level[l].a.rows;
        entries[l] = amg->level[l].a.start[rows[l]];
    }
    return amg->level_count;
}

/* Doubles of scratch a V-cycle needs: the finest level's residual and its x before the backward
 * sweep, and each coarser level's right-hand side, solution and residual. */
size_t op_sparse_amg_scratch(const op_sparse_amg *amg)
{
    size_t doubles = 6 * (size_t)amg->level[0].a.rows;
    for (int l = 1; l < amg->level_count; ++l)
        doubles += 9 * (size_t)amg->level[l].a.rows;
    return doubles;
}

int op_sparse_amg_reserve(op_ctx *ctx, const op_sparse_amg *amg, op_sparse_workspace *coarse)
{
    return amg->coarse ? op_sparse_workspace_reserve(ctx, coarse, amg->coarse) : OP_OK;
}

int op_sparse_amg_workspace_fits(const op_sparse_amg *amg, const op_cg_workspace *work)
{
    return work->multigrid_capacity >= op_sparse_amg_scratch(amg) &&
           (!amg->coarse || work->coarse.capacity >= op_sparse_factor_size(amg->coarse));
}

/* ---- building the hierarchy ---- */

static int csr_alloc(op_ctx *ctx, amg_csr *m, int rows, int cols, size_t entries)
{
    m->rows = rows;
    m->cols = cols;
    m->start = op_calloc(ctx, (size_t)rows + 1, sizeof(int));
    m->column = op_calloc(ctx, entries + 1, sizeof(int));
    m->value = op_calloc(ctx, entries + 1, sizeof(double));
    return ctx->status;
}

/* C = A B, row by row (Gustavson): row i of C sums a_ik × row k of B over row i's entries in
 * column order, into a dense accumulator; the row's columns are then sorted. Two passes: the
 * first counts each row's columns. */
static int csr_multiply(op_ctx *ctx, const amg_csr *a, const amg_csr *b, amg_csr *c)
{
    int *marker = op_calloc(ctx, (size_t)b->cols + 1, sizeof(int));
    double *accumulator = op_calloc(ctx, (size_t)b->cols + 1, sizeof(double));
    int *row_start = op_calloc(ctx, (size_t)a->rows + 1, sizeof(int));
    if (ctx->status != OP_OK)
        goto done;
    for (int j = 0; j < b->cols; ++j)
        marker[j] = -1;
    for (int i = 0; i < a->rows; ++i) {
        int length = 0;
        for (int p = a->start[i]; p < a->start[i + 1]; ++p)
            for (int q = b->start[a->column[p]]; q < b->start[a->column[p] + 1]; ++q)
                if (marker[b->column[q]] != i) {
                    marker[b->column[q]] = i;
                    ++length;
                }
        row_start[i + 1] = row_start[i] + length;
    }
    if (csr_alloc(ctx, c, a->rows, b->cols, (size_t)row_start[a->rows]) != OP_OK)
        goto done;
    memcpy(c->start, row_start, ((size_t)a->rows + 1) * sizeof(int));
    for (int j = 0; j < b->cols; ++j)
        marker[j] = -1;
    for (int i = 0; i < a->rows; ++i) {
        int *column = &c->column[c->start[i]], length = 0;
        for (int p = a->start[i]; p < a->start[i + 1]; ++p)
            for (int q = b->start[a->column[p]]; q < b->start[a->column[p] + 1]; ++q) {
                int j = b->column[q];
                if (marker[j] != i) {
                    marker[j] = i;
                    accumulator[j] = 0.0;
                    column[length++] = j;
                }
                accumulator[j] += a->value[p] * b->value[q];
            }
        for (int s = 1; s < length; ++s) /* insertion sort: a row holds tens of columns */
            for (int t = s; t > 0 && column[t - 1] > column[t]; --t) {
                int swap = column[t];
                column[t] = column[t - 1];
                column[t - 1] = swap;
            }
        for (int s = 0; s < length; ++s)
            c->value[c->start[i] + s] = accumulator[column[s]];
    }
done:
    free(marker);
    free(accumulator);
    free(row_start);
    return ctx->status;
}

/* T = Mᵀ: rows of T filled by M's rows ascending, so columns come out ascending. */
static int csr_transpose(op_ctx *ctx, const amg_csr *m, amg_csr *t)
{
    if (csr_alloc(ctx, t, m->cols, m->rows, (size_t)m->start[m->rows]) != OP_OK)
        return ctx->status;
    for (int p = 0; p < m->start[m->rows]; ++p)
        t->start[m->column[p] + 1]++;
    for (int j = 0; j < m->cols; ++j)
        t->start[j + 1] += t->start[j];
    int *fill = op_calloc(ctx, (size_t)m->cols + 1, sizeof(int));
    if (!fill)
        return ctx->status;
    for (int i = 0; i < m->rows; ++i)
        for (int p = m->start[i]; p < m->start[i + 1]; ++p) {
            int slot = t->start[m->column[p]] + fill[m->column[p]]++;
            t->column[slot] = i;
            t->value[slot] = m->value[p];
        }
    free(fill);
    return OP_OK;
}

static int strong(const amg_csr *a, const double *diagonal, int i, int p)
{
    int j = a->column[p];
    return j != i && fabs(a->value[p]) > STRENGTH * sqrt(diagonal[i] * diagonal[j]);
}

/* aggregate[i]: node i's aggregate, or −1 for none; returns the aggregate count (the file's
 * header: three greedy passes in index order). */
static int aggregate(const amg_csr *a, const double *diagonal, int *aggregate_of)
{
    int n = a->rows, count = 0;
    for (int i = 0; i < n; ++i)
        aggregate_of[i] = -1;
    for (int i = 0; i < n; ++i) {
        int free_neighbourhood = 1, has_strong = 0;
        for (int p = a->start[i]; p < a->start[i + 1]; ++p)
            if (strong(a, diagonal, i, p)) {
                has_strong = 1;
                free_neighbourhood = free_neighbourhood && aggregate_of[a->column[p]] < 0;
            }
        if (!has_strong || !free_neighbourhood || aggregate_of[i] >= 0)
            continue;
        aggregate_of[i] = count;
        for (int p = a->start[i]; p < a->start[i + 1]; ++p)
            if (strong(a, diagonal, i, p))
                aggregate_of[a->column[p]] = count;
        ++count;
    }
    for (int i = 0; i < n; ++i) {
        if (aggregate_of[i] >= 0)
            continue;
        double best = 0.0;
        int chosen = -1;
        for (int p = a->start[i]; p < a->start[i + 1]; ++p) {
            int j = a->column[p];
            if (strong(a, diagonal, i, p) && aggregate_of[j] >= 0 && fabs(a->value[p]) > best) {
                best = fabs(a->value[p]);
                chosen = aggregate_of[j];
            }
        }
        /* marked −2 − J until the pass ends, so a node joins only pass 1's nodes, not a chain */
        if (chosen >= 0)
            aggregate_of[i] = -2 - chosen;
    }
    for (int i = 0; i < n; ++i)
        if (aggregate_of[i] <= -2)
            aggregate_of[i] = -2 - aggregate_of[i];
    for (int i = 0; i < n; ++i) {
        int has_strong = 0;
        for (int p = a->start[i]; p < a->start[i + 1]; ++p)
            has_strong = has_strong || strong(a, diagonal, i, p);
        if (aggregate_of[i] >= 0 || !has_strong)
            continue;
        aggregate_of[i] = count;
        for (int p = a->start[i]; p < a->start[i + 1]; ++p)
            if (strong(a, diagonal, i, p) && aggregate_of[a->column[p]] < 0)
                aggregate_of[a->column[p]] = count;
        ++count;
    }
    return count;
}

/* P = (I − ω D⁻¹ A) P̂ for P̂ the aggregates' piecewise constants: p_iJ = [i ∈ J] − ω/a_ii Σ_{j∈J} a_ij;
 * P = P̂ when not smooth. */
static int prolongator(op_ctx *ctx, const amg_csr *a, const double *diagonal, const int *aggregate_of,
                       int coarse_count, int smooth, amg_csr *p)
{
    double rho = 0.0;
    for (int i = 0; i < a->rows; ++i) {
        double sum = 0.0;
        for (int q = a->start[i]; q < a->start[i + 1]; ++q)
            sum += fabs(a->value[q]);
        rho = fmax(rho, sum / diagonal[i]);
    }
    double omega = 4.0 / (3.0 * rho);
    amg_csr tentative = { 0 };
    int entries = 0;
    for (int i = 0; i < a->rows; ++i)
        entries += aggregate_of[i] >= 0;
    if (csr_alloc(ctx, &tentative, a->rows, coarse_count, (size_t)entries) != OP_OK) {
        csr_free(&tentative);
        return ctx->status;
    }
    for (int i = 0, slot = 0; i < a->rows; ++i) {
        if (aggregate_of[i] >= 0) {
            tentative.column[slot] = aggregate_of[i];
            tentative.value[slot++] = 1.0;
        }
        tentative.start[i + 1] = slot;
    }
    if (!smooth) {
        *p = tentative; /* handed over */
        return OP_OK;
    }
    amg_csr smoother = { 0 }; /* I − ω D⁻¹ A on A's pattern */
    if (csr_alloc(ctx, &smoother, a->rows, a->cols, (size_t)a->start[a->rows]) == OP_OK) {
        memcpy(smoother.start, a->start, ((size_t)a->rows + 1) * sizeof(int));
        memcpy(smoother.column, a->column, (size_t)a->start[a->rows] * sizeof(int));
        for (int i = 0; i < a->rows; ++i)
            for (int q = a->start[i]; q < a->start[i + 1]; ++q)
                smoother.value[q] = (a->column[q] == i ? 1.0 : 0.0) - omega * a->value[q] / diagonal[i];
        csr_multiply(ctx, &smoother, &tentative, p);
    }
    csr_free(&smoother);
    csr_free(&tentative);
    return ctx->status;
}

static int take_diagonal(op_ctx *ctx, amg_level *v, int l)
{
    v->diagonal = op_calloc(ctx, (size_t)v->a.rows + 1, sizeof(double));
    if (!v->diagonal)
        return ctx->status;
    for (int i = 0; i < v->a.rows; ++i) {
        for (int q = v->a.start[i]; q < v->a.start[i + 1]; ++q)
            if (v->a.column[q] == i)
                v->diagonal[i] = v->a.value[q];
        if (!(v->diagonal[i] > 0.0))
            return OP_FAIL(ctx, OP_ERR_INVALID, "algebraic multigrid: level %d's row %d has diagonal %g, not "
                           "positive", l, i, v->diagonal[i]);
    }
    return OP_OK;
}

/* Level l + 1 from level l: aggregates, P, Pᵀ and Pᵀ A P; *made = 0 when coarsening stalls
 * (nothing is added). */
static int coarsen(op_ctx *ctx, op_sparse_amg *amg, int *made)
{
    amg_level *fine = &amg->level[amg->level_count - 1], *coarse = &amg->level[amg->level_count];
    *made = 0;
    int *aggregate_of = op_calloc(ctx, (size_t)fine->a.rows + 1, sizeof(int));
    if (!aggregate_of)
        return ctx->status;
    int count = aggregate(&fine->a, fine->diagonal, aggregate_of);
    if (count == 0 || count > STALL_RATIO * fine->a.rows) {
        free(aggregate_of);
        return OP_OK;
    }
    amg_csr ap = { 0 };
    int smooth = amg->level_count <= SMOOTHED_LEVELS;
    if (prolongator(ctx, &fine->a, fine->diagonal, aggregate_of, count, smooth, &fine->p) == OP_OK &&
        csr_transpose(ctx, &fine->p, &fine->pt) == OP_OK && csr_multiply(ctx, &fine->a, &fine->p, &ap) == OP_OK &&
        csr_multiply(ctx, &fine->pt, &ap, &coarse->a) == OP_OK) {
        amg->level_count++;
        *made = 1;
        take_diagonal(ctx, coarse, amg->level_count - 1);
    }
    csr_free(&ap);
    free(aggregate_of);
    return ctx->status;
}

/* The coarsest level's factor from its upper triangle. */
static int factor_coarsest(op_ctx *ctx, op_sparse_amg *amg)
{
    const amg_csr *a = &amg->level[amg->level_count - 1].a;
    int count = 0, *rows = op_calloc(ctx, (size_t)a->start[a->rows] + 1, sizeof(int));
    int *cols = op_calloc(ctx, (size_t)a->start[a->rows] + 1, sizeof(int));
    double *values = op_calloc(ctx, (size_t)a->start[a->rows] + 1, sizeof(double));
    if (ctx->status == OP_OK) {
        for (int i = 0; i < a->rows; ++i)
            for (int q = a->start[i]; q < a->start[i + 1]; ++q)
                if (a->column[q] >= i) {
                    rows[count] = i;
                    cols[count] = a->column[q];
                    values[count++] = a->value[q];
                }
        op_sparse_factor_create(ctx, a->rows, count, rows, cols, values, &amg->coarse);
    }
    free(rows);
    free(cols);
    free(values);
    return ctx->status;
}

int op_sparse_matrix_factor_amg(op_ctx *ctx, op_sparse_matrix *matrix)
{
    op_sparse_matrix_drop_preconditioner(matrix);
    op_sparse_amg *amg = op_calloc(ctx, 1, sizeof *amg);
    if (!amg)
        return ctx->status;
    matrix->amg = amg;
    amg->level_count = 1;
    amg->level[0].a = (amg_csr){ .rows = matrix->n, .cols = matrix->n, .start = matrix->row_start,
                                 .column = matrix->column, .value = matrix->value };
    int made = 1;
    if (take_diagonal(ctx, &amg->level[0], 0) != OP_OK)
        goto failed;
    while (made && amg->level[amg->level_count - 1].a.rows > COARSEST_ROWS && amg->level_count < MAX_LEVELS)
        if (coarsen(ctx, amg, &made) != OP_OK)
            goto failed;
    if (amg->level[amg->level_count - 1].a.rows <= FACTOR_ROWS && factor_coarsest(ctx, amg) != OP_OK)
        goto failed;
    return OP_OK;
failed:
    op_sparse_matrix_drop_preconditioner(matrix);
    return ctx->status;
}

/* ---- the V-cycle ---- */

/* One Gauss–Seidel sweep on A x = b, three columns, rows ascending (forward) or descending. */
static void gauss_seidel(const amg_level *v, const double *b, double *x, int forward)
{
    const amg_csr *a = &v->a;
    for (int k = 0; k < a->rows; ++k) {
        int i = forward ? k : a->rows - 1 - k;
        double sum[3] = { b[3 * i], b[3 * i + 1], b[3 * i + 2] };
        for (int q = a->start[i]; q < a->start[i + 1]; ++q)
            if (a->column[q] != i) {
                const double *xj = &x[3 * a->column[q]];
                for (int c = 0; c < 3; ++c)
                    sum[c] -= a->value[q] * xj[c];
            }
        for (int c = 0; c < 3; ++c)
            x[3 * i + c] = sum[c] / v->diagonal[i];
    }
}

/* The finest level's forward sweep from x = 0, block by block: row i of the block [first, end)
 * takes x_i = (b_i − Σ_{first ≤ j < i} a_ij x_j) / a_ii, the rows of other blocks (and the rows
 * after i) counting as the zero they start from. */
static void block_forward_from_zero(const amg_level *v, const double *b, double *x, int first, int end)
{
    const amg_csr *a = &v->a;
    for (int i = first; i < end; ++i) {
        double sum[3] = { b[3 * i], b[3 * i + 1], b[3 * i + 2] };
        for (int q = a->start[i]; q < a->start[i + 1] && a->column[q] < i; ++q)
            if (a->column[q] >= first) {
                const double *xj = &x[3 * a->column[q]];
                for (int c = 0; c < 3; ++c)
                    sum[c] -= a->value[q] * xj[c];
            }
        for (int c = 0; c < 3; ++c)
            x[3 * i + c] = sum[c] / v->diagonal[i];
    }
}

/* The residual after block_forward_from_zero, r = b − A x, over rows [first, end): row i's own
 * equation holds for the columns the sweep read (its block's before i, and i), so r_i is what
 * the rest of its row makes: −Σ a_ij x_j over the columns before its block and after i. */
static void block_residual(const amg_level *v, const double *x, double *r, int first, int end)
{
    const amg_csr *a = &v->a;
    for (int i = first; i < end; ++i) {
        double sum[3] = { 0.0, 0.0, 0.0 };
        int q = a->start[i], row_end = a->start[i + 1];
        for (; q < row_end && a->column[q] < first; ++q)
            for (int c = 0; c < 3; ++c)
                sum[c] -= a->value[q] * x[3 * a->column[q] + c];
        while (q < row_end && a->column[q] <= i)
            ++q;
        for (; q < row_end; ++q)
            for (int c = 0; c < 3; ++c)
                sum[c] -= a->value[q] * x[3 * a->column[q] + c];
        for (int c = 0; c < 3; ++c)
            r[3 * i + c] = sum[c];
    }
}

/* x += P coarse_x over P's rows [first, end), and before = the new x there. */
static void prolong_and_keep(const amg_csr *p, const double *coarse_x, double *x, double *before, int first, int end)
{
    for (int i = first; i < end; ++i) {
        double sum[3] = { 0.0, 0.0, 0.0 };
        for (int q = p->start[i]; q < p->start[i + 1]; ++q)
            for (int c = 0; c < 3; ++c)
                sum[c] += p->value[q] * coarse_x[3 * p->column[q] + c];
        for (int c = 0; c < 3; ++c)
            before[3 * i + c] = x[3 * i + c] = x[3 * i + c] + sum[c];
    }
}

/* The finest level's backward sweep over the block [first, end), rows descending: the block's
 * rows after i read the sweep's new x, every other row the x the sweep started from (before,
 * a copy of x). The forward sweep's adjoint: (D + U_B) x_new = b − (A − D − U_B) x_before, U_B
 * the strict upper triangle within blocks, against (D + L_B) forward. */
static void block_backward(const amg_level *v, const double *b, const double *before, double *x, int first, int end)
{
    const amg_csr *a = &v->a;
    for (int i = end - 1; i >= first; --i) {
        double sum[3] = { b[3 * i], b[3 * i + 1], b[3 * i + 2] };
        int q = a->start[i], row_end = a->start[i + 1];
        for (; q < row_end && a->column[q] < i; ++q) /* columns ascending: j < i, not yet swept */
            for (int c = 0; c < 3; ++c)
                sum[c] -= a->value[q] * before[3 * a->column[q] + c];
        for (++q; q < row_end && a->column[q] < end; ++q) /* past the diagonal: i < j < end, swept */
            for (int c = 0; c < 3; ++c)
                sum[c] -= a->value[q] * x[3 * a->column[q] + c];
        for (; q < row_end; ++q) /* the later blocks' rows */
            for (int c = 0; c < 3; ++c)
                sum[c] -= a->value[q] * before[3 * a->column[q] + c];
        for (int c = 0; c < 3; ++c)
            x[3 * i + c] = sum[c] / v->diagonal[i];
    }
}

/* y = M x (M rows × cols, x [cols][3]), or y += M x when add, on `team` threads. */
static void csr_times3(const amg_csr *m, const double *x, double *y, int add, int team)
{
    op_rows_times3_shared(team, m->rows, m->start, m->column, m->value, x, y, add);
}

/* x = V-cycle(b) on level l, plain Gauss–Seidel sweeps on one thread, the products on `team`
 * threads (v_cycle_finest takes the finest level of a hierarchy of two levels or more); scratch
 * holds this level's residual, then the coarser levels'. */
static void v_cycle(const op_sparse_amg *amg, int l, const double *b, double *x, double *scratch,
                    op_sparse_workspace *coarse_work, int team)
{
    const amg_level *v = &amg->level[l];
    size_t size = 3 * (size_t)v->a.rows;
    if (l == amg->level_count - 1 && amg->coarse) {
        op_ctx ignored; /* a solve fails only on a non-finite result, which CG's breakdown test and final check catch */
        op_ctx_init(&ignored);
        memcpy(x, b, size * sizeof *x);
        op_sparse_solve3(&ignored, amg->coarse, coarse_work, x);
        return;
    }
    memset(x, 0, size * sizeof *x);
    if (l == amg->level_count - 1) {
        for (int s = 0; s < COARSEST_SWEEPS; ++s) {
            gauss_seidel(v, b, x, 1);
            gauss_seidel(v, b, x, 0);
        }
        return;
    }
    double *r = scratch, *coarse_b = r + size, *coarse_x = coarse_b + 3 * (size_t)amg->level[l + 1].a.rows;
    gauss_seidel(v, b, x, 1);
    csr_times3(&v->a, x, r, 0, team);
    for (size_t k = 0; k < size; ++k)
        r[k] = b[k] - r[k];
    csr_times3(&v->pt, r, coarse_b, 0, team);
    v_cycle(amg, l + 1, coarse_b, coarse_x, coarse_x + 3 * (size_t)amg->level[l + 1].a.rows, coarse_work, team);
    csr_times3(&v->p, coarse_x, x, 1, team);
    gauss_seidel(v, b, x, 0);
}

/* The finest level's passes over a thread's rows [first, end), whole SWEEP_ROWS blocks. */
typedef struct finest_pass {
    const amg_level *v;
    const double *b, *coarse_x;
    double *x, *r, *before;
} finest_pass;

static void forward(void *context, int first, int end)
{
    const finest_pass *f = context;
    for (int block = first; block < end; block += SWEEP_ROWS)
        block_forward_from_zero(f->v, f->b, f->x, block, block + SWEEP_ROWS < end ? block + SWEEP_ROWS : end);
}

static void residual(void *context, int first, int end)
{
    const finest_pass *f = context;
    for (int block = first; block < end; block += SWEEP_ROWS)
        block_residual(f->v, f->x, f->r, block, block + SWEEP_ROWS < end ? block + SWEEP_ROWS : end);
}

static void prolong(void *context, int first, int end)
{
    const finest_pass *f = context;
    prolong_and_keep(&f->v->p, f->coarse_x, f->x, f->before, first, end);
}

static void backward(void *context, int first, int end)
{
    const finest_pass *f = context;
    for (int block = first; block < end; block += SWEEP_ROWS)
        block_backward(f->v, f->b, f->before, f->x, block, block + SWEEP_ROWS < end ? block + SWEEP_ROWS : end);
}

/* x = V-cycle(b) on the finest level, its rows shared by `team` threads: the sweeps are
 * Gauss–Seidel within blocks of SWEEP_ROWS rows and Jacobi between them (the header), the
 * residual, the restriction and the prolongation by rows; the coarser levels' products on the
 * team too, their sweeps on one thread. scratch holds the residual, x before the backward
 * sweep, then the coarser levels'. */
static void v_cycle_finest(const op_sparse_amg *amg, const double *b, double *x, double *scratch,
                           op_sparse_workspace *coarse_work, int team)
{
    const amg_level *v = &amg->level[0];
    int n = v->a.rows;
    size_t size = 3 * (size_t)n;
    double *r = scratch, *before = r + size, *coarse_b = before + size;
    double *coarse_x = coarse_b + 3 * (size_t)amg->level[1].a.rows;
    finest_pass f = { v, b, coarse_x, x, r, before };
    op_cg_share_rows(team, n, forward, &f);
    op_cg_share_rows(team, n, residual, &f);
    csr_times3(&v->pt, r, coarse_b, 0, team);
    v_cycle(amg, 1, coarse_b, coarse_x, coarse_x + 3 * (size_t)amg->level[1].a.rows, coarse_work, team);
    op_cg_share_rows(team, n, prolong, &f);
    op_cg_share_rows(team, n, backward, &f);
}

void op_sparse_amg_apply(const op_sparse_amg *amg, op_cg_workspace *work, const double *r, double *z)
{
    if (amg->level_count == 1)
        v_cycle(amg, 0, r, z, work->multigrid, &work->coarse, 1);
    else
        v_cycle_finest(amg, r, z, work->multigrid, &work->coarse, work->team);
}
