/* The accelerators' registry and the calls every one of them shares (accel.h). */
#include "accel/accel.h"

#include "accel/anderson.h"
#include "accel/chebyshev.h"

const op_accel_type *const op_accel_registry[] = { &op_chebyshev_accel, &op_anderson_accel, NULL };

int op_accel_create(op_ctx *ctx, const op_solver_settings *settings, const op_solver_type *solver,
                    void *const *solver_states, const op_body *bodies, int body_count, op_accel **accel)
{
    *accel = NULL;
    /* every type reads its options, on or off, so that a bad value is refused either way */
    for (int t = 0; op_accel_registry[t]; ++t) {
        op_accel *made = NULL;
        if (op_accel_registry[t]->create(ctx, settings, solver, bodies, body_count, &made) != OP_OK) {
            op_accel_free(accel, body_count);
            return ctx->status;
        }
        if (made && *accel) {
            const char *first = (*accel)->type->name, *second = made->type->name;
            op_accel_free(&made, body_count);
            op_accel_free(accel, body_count);
            return OP_FAIL(ctx, OP_ERR_USAGE, "solver options %s = on and %s = on together: choose one", first,
                           second);
        }
        if (made) {
            made->solver = solver;
            made->solver_states = solver_states;
            *accel = made;
        }
    }
    return OP_OK;
}

void op_accel_free(op_accel **accel, int body_count)
{
    if (*accel)
        (*accel)->type->free(*accel, body_count);
    *accel = NULL;
}
