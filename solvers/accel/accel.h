/* The accelerators' one interface: a method that acts on a body's iterate between the variant's
 * iterations (Chebyshev, chebyshev.h; Anderson, anderson.h), behind a small table of functions,
 * so that the world (core/sim/world.c) holds one accelerator and knows none by name.
 *
 * Lifecycle, driven by the world for every body b of a sub-step of length h:
 *   create             at op_world_start, from the validated [solver] settings; NULL when the
 *                      settings leave the accelerator off; a refusal names the option
 *   before(k)          before the variant's iteration k (k = 0: the sub-step's first, which
 *                      resets what the accelerator keeps between iterations)
 *   after(k)           after it: the body holds the variant's iterate, which the accelerator may
 *                      replace; *changed_rotations tells the world the variant's resync is due
 *   take_count         once a sub-step, after every body's iterations: the accelerator's count
 *                      (counter_name) summed over bodies since the last take, then reset
 *   free
 * and, for the run file, parameters: its options as typed values, whether it is on or not.
 * Each accelerator declares its [solver] options (options, check_option); every variant takes
 * them (op_solver_common_options, opsim/solver.h, lists them in the registry's order).
 * before and after of different bodies run on different threads at once; each touches only its
 * body's state. At most one accelerator is on: each refuses being on with another.
 *
 * The registry lists every accelerator in a fixed order; the run file has a /timing/<name>
 * column and a /solver/<counter_name> series for each (0 where it is off), so a file's datasets
 * do not depend on which one ran. */
#ifndef OPSIM_ACCEL_H
#define OPSIM_ACCEL_H

#include "opsim/body.h"
#include "opsim/solver.h"

typedef struct op_accel_type op_accel_type;

/* Where an accelerator's settings go as typed parameters: the run file's /parameters attributes
 * (core/io/record.c). Each call returns OP_OK or the failure recorded in ctx. */
typedef struct op_parameter_sink {
    void *context;
    int (*put_int)(op_ctx *ctx, void *context, const char *name, int value);
    int (*put_double)(op_ctx *ctx, void *context, const char *name, double value);
    int (*put_string)(op_ctx *ctx, void *context, const char *name, const char *value);
} op_parameter_sink;

/* An accelerator's state for every body of a world; each type extends it (first member). */
typedef struct op_accel {
    const op_accel_type *type;
    const op_solver_type *solver; /* the variant it accelerates, and the world's array of its */
    void *const *solver_states;   /* per-body states (filled as they are made): for its energy hook */
} op_accel;

struct op_accel_type {
    const char *name;                /* the option that turns it on; its /timing/<name> column */
    const char *counter_name;        /* /solver/<counter_name>, or NULL: it counts nothing */
    const char *counter_description; /* that series' description attribute */
    const op_solver_option *options; /* its [solver] options, NULL-terminated, as a variant's table */
    /* The value check of one of its options: `one` holds that key alone; an error names it.
     * Whatever depends on another option waits for create (a config's options come one by one). */
    int (*check_option)(op_ctx *ctx, const op_solver_settings *one);
    int (*create)(op_ctx *ctx, const op_solver_settings *settings, const op_solver_type *solver,
                  const op_body *bodies, int body_count, op_accel **accel);
    void (*before)(op_accel *accel, int b, const op_body *body, double h, int k);
    int (*after)(op_ctx *ctx, op_accel *accel, int b, op_body *body, double h, int k, int *changed_rotations);
    long (*take_count)(op_accel *accel, int body_count);
    void (*free)(op_accel *accel, int body_count);
    /* Its options in validated settings, on or off, as typed parameters into *sink */
    int (*parameters)(op_ctx *ctx, const op_solver_settings *settings, const op_parameter_sink *sink);
};

/* NULL-terminated, in the order of the run file's columns. */
extern const op_accel_type *const op_accel_registry[];

/* The accelerator the settings turn on for these bodies, or *accel = NULL when none is. */
int op_accel_create(op_ctx *ctx, const op_solver_settings *settings, const op_solver_type *solver,
                    void *const *solver_states, const op_body *bodies, int body_count, op_accel **accel);
/* Frees it and sets *accel to NULL (nothing when NULL). */
void op_accel_free(op_accel **accel, int body_count);

#endif
