/* arap_pcg.h: the shared iterative global step of arap and arap-reference. */
#include "arap_pcg.h"

#include <stdlib.h>
#include <string.h>

#include "arap_terms.h"
#include "base/math3.h"

int op_arap_pcg_settings(op_ctx *ctx, const op_solver_settings *settings, const op_body *body, op_arap_pcg *p)
{
    if (op_solver_setting_choice(ctx, settings, "global", "cholesky|pcg", &p->on) != OP_OK ||
        op_solver_setting_double(ctx, settings, "global_tolerance", 1e-300, 0.1, &p->tolerance) != OP_OK ||
        op_solver_setting_choice(ctx, settings, "global_preconditioner", "jacobi|ic0|dic|amg",
                                 &p->preconditioner) != OP_OK)
        return ctx->status;
    if (p->on && body->floor_held)
        return OP_FAIL(ctx, OP_ERR_USAGE, "solver option global = pcg: not with [world] floor_contact = solve (the "
                       "held floor is solved through the Cholesky factor); use global = cholesky or floor_contact = "
                       "iteration");
    return OP_OK;
}

int op_arap_pcg_prepare(op_ctx *ctx, op_arap_pcg *p, const op_body *body, const int *row_of, int free_count,
                        double h)
{
    if (!p->on)
        return OP_OK;
    op_sparse_matrix_free(&p->matrix);
    if (!p->solution && !(p->solution = op_calloc(ctx, 3 * (size_t)(free_count ? free_count : 1), sizeof(double))))
        return ctx->status;
    if (op_arap_global_matrix(ctx, body, row_of, free_count, h, &p->matrix) != OP_OK)
        return ctx->status;
    if (!p->matrix)
        return OP_OK;
    if (p->preconditioner != OP_ARAP_PCG_JACOBI) {
        static const char *const names[] = { "jacobi", "ic0", "dic", "amg" };
        int (*const make[])(op_ctx *, op_sparse_matrix *) = { NULL, op_sparse_matrix_factor_ic0,
                                                             op_sparse_matrix_factor_dic, op_sparse_matrix_factor_amg };
        op_ctx inner; /* its message, prefixed with the option that chose it */
        op_ctx_init(&inner);
        if (make[p->preconditioner](&inner, p->matrix) != OP_OK)
            return OP_FAIL(ctx, inner.status, "global step (solver option global_preconditioner = %s): %s",
                           names[p->preconditioner], inner.message);
    }
    return op_cg_workspace_reserve(ctx, &p->work, p->matrix);
}

int op_arap_pcg_solve(op_ctx *ctx, op_arap_pcg *p, const op_body *body, const int *row_of, int free_count,
                      const double *reference, double *rhs, int team)
{
    p->iterations = 0;
    p->work.threads = team ? 0 : 1;
    if (free_count == 0)
        return OP_OK;
    for (int i = 0; i < body->graph->particle_count; ++i)
        if (row_of[i] >= 0)
            v3_sub(&p->solution[3 * row_of[i]], &body->state.position[3 * i], &reference[3 * i]);
    /* in exact arithmetic CG ends within free_count iterations; more means the tolerance is
     * below what rounding lets the residual reach */
    op_ctx inner; /* its message, prefixed with the options that chose it */
    op_ctx_init(&inner);
    if (op_sparse_cg3(&inner, p->matrix, &p->work, rhs, p->solution, p->tolerance, 2 * free_count + 100,
                      &p->iterations) != OP_OK)
        return OP_FAIL(ctx, inner.status, "global step (solver option global = pcg, global_tolerance = %g): %s",
                       p->tolerance, inner.message);
    memcpy(rhs, p->solution, 3 * (size_t)free_count * sizeof *rhs);
    return OP_OK;
}

size_t op_arap_pcg_bytes(const op_arap_pcg *p, int free_count)
{
    if (!p->matrix)
        return 0;
    return op_sparse_matrix_bytes(p->matrix) + op_cg_workspace_bytes(&p->work) +
           3 * (size_t)free_count * sizeof(double);
}

void op_arap_pcg_free(op_arap_pcg *p)
{
    op_sparse_matrix_free(&p->matrix);
    op_cg_workspace_free(&p->work);
    free(p->solution);
    memset(p, 0, sizeof *p);
}
