/* The interface every solver variant fills, and the registry that lists them. The command
 * line (`opsim solvers`), the experiments, the tests and the benchmarks all read the registry,
 * so adding a variant is one file in solvers/ and one line in solvers/registry.c.
 *
 * One sub-step of length h for one body, driven by core/sim/world.c's stage list (world.h):
 *   world PREDICT      inertial targets y, Y; constraint targets from the scripts; the starting
 *                      guess x ← y, R ← the rotation_start guess (free values only)
 *   world ITERATE      solver: begin_substep   anything that depends on h or the constraint set
 *                      solver: iterate × n_i   one iteration (for arap: local rotations, then
 *                                              global positions), between the accelerator's
 *                                              hooks when one is on (solvers/accel/accel.h)
 *   world VELOCITIES   v = (x − x_start)/h, Ṙ = (R − R_start)/h
 *   world FLOOR, CONTACTS   floor and body contacts, with friction
 * The solver owns no file and computes no reported metric: the harness does.
 *
 * Threads: the world runs begin_substep, iterate and resync of different bodies on different
 * threads at once (include/opsim/world.h, core/sim/schedule.h), so a variant's calls for one
 * body may touch only that body, its own state and data that is read-only while bodies run
 * (the model, anything shared with a twin). Each call gets a context of its own. A call made outside a thread team (omp_in_parallel()
 * false: the world's only unit) may share its body's work with a team of its own, giving the same
 * bits for any team size (arap's sweep_threads = team).
 *
 * Twins: create receives the states the variant already made for the earlier bodies instancing
 * the same model (in body order), so that it can share what is provably the same for both,
 * read-only (arap shares the global step's factor when the matrices match). Either state may be
 * destroyed first: what is shared is reference counted. A variant is free to ignore them. */
#ifndef OPSIM_SOLVER_H
#define OPSIM_SOLVER_H

#include "opsim/body.h"
#include "opsim/ctx.h"

enum { OP_SOLVER_MAX_COUNTERS = 4 };

/* A statistic a variant publishes by name: a count it adds to during its iterations (springs:
 * the conjugate-gradient iterations of its Newton steps, "linear_iterations"). The world sums
 * it over bodies per sub-step (op_frame_stats.counts) and the run file records it as
 * /solver/<name> with this description (core/io/record.h), without knowing it: a name any
 * registered variant publishes is a series in every run file, 0 for the variants that do not
 * publish it, so two variants publishing one name must mean one thing by it. */
typedef struct op_solver_counter {
    const char *name;
    const char *description;
} op_solver_counter;

/* The one description of "linear_iterations", which springs and arap publish. */
#define OP_LINEAR_ITERATIONS_DESCRIPTION                                                                         \
    "per sub-step, summed over bodies: the variant's inner linear-solver iterations (springs: conjugate "         \
    "gradients of its Newton steps; arap with global = pcg: those of its global steps; 0 for variants without one)"

/* Accumulated per-stage time, in seconds. A variant adds the wall time of its stages for one body
 * to local and global; the world adds the accelerator's (solvers/accel/accel.h: Chebyshev's
 * extrapolation, Anderson's mixing with its energy evaluations) to accel, and reports the sum
 * over bodies as include/opsim/world.h says. count[c]: the variant adds to its c-th counter
 * (op_solver_type.counters); a variant without counters leaves them alone. */
typedef struct op_stage_times {
    double local, global, accel;
    long count[OP_SOLVER_MAX_COUNTERS];
} op_stage_times;

typedef struct op_solver_option {
    const char *key;
    const char *default_value;
    const char *help;
} op_solver_option;

enum { OP_SOLVER_MAX_SETTINGS = 32 };

/* The [solver] section of a config as key = value strings, already checked against the
 * variant's option table (op_solver_settings_validate). */
typedef struct op_solver_settings {
    int count;
    char key[OP_SOLVER_MAX_SETTINGS][64];
    char value[OP_SOLVER_MAX_SETTINGS][256];
} op_solver_settings;

typedef struct op_solver_type {
    const char *name;
    const char *summary;
    const char *source; /* the paper it reproduces */
    const op_solver_option *options; /* terminated by a { NULL } entry */
    /* Optional: the statistics it publishes (above), at most OP_SOLVER_MAX_COUNTERS, terminated
     * by a { NULL } entry; op_stage_times.count[c] is counters[c]'s. */
    const op_solver_counter *counters;
    /* Creates the per-body solver state for sub-steps of length h; twins[0 .. twin_count − 1] are
     * this variant's states of earlier bodies of the same model (see above; twin_count may be 0). */
    int (*create)(op_ctx *ctx, const op_solver_settings *settings, op_body *body, double h, void *const *twins,
                  int twin_count, void **solver);
    /* Optional: called at the start of every sub-step, after the world's predict stage. */
    int (*begin_substep)(op_ctx *ctx, void *solver, op_body *body, double h);
    /* One iteration; adds its stage times to *times. */
    int (*iterate)(op_ctx *ctx, void *solver, op_body *body, double h, op_stage_times *times);
    void (*destroy)(void *solver);
    /* Optional. The world's accelerator changed the body's rotations between two iterations
     * (solvers/accel/accel.h: Chebyshev with chebyshev_rotations = on, Anderson): re-derive anything the variant caches from R across iterations.
     * Changed positions need no call: iterate must read x from the body every time. A variant
     * that caches rotation-derived data and leaves this NULL cannot run with
     * chebyshev_rotations = on or anderson = on (op_world_start refuses, naming the option); a variant that
     * caches nothing derived from R gives a function that does nothing. */
    int (*resync)(op_ctx *ctx, void *solver, op_body *body, double h);
    /* Optional, both or neither: twins iterated side by side. group is offered the states of
     * 2 to OP_SOLVER_GROUP_MAX bodies of one model, in body order, when the states are made (not
     * with an accelerator on, core/sim/schedule.h); it binds the first *grouped of them into one group, or sets *grouped
     * to 1 to leave the first alone. From then on the world iterates a group's bodies only
     * together, through iterate_group, on one thread; begin_substep (unless the variant gives
     * begin_group, below), resync and destroy stay per body. Each body's results must be
     * bitwise those it gets alone. iterate_group adds the group's stage times to *times and,
     * when it fails, sets *failed to the failing body's position in the group. */
    int (*group)(op_ctx *ctx, void *const *solvers, op_body *const *bodies, int count, int *grouped);
    int (*iterate_group)(op_ctx *ctx, void *const *solvers, op_body *const *bodies, int count, double h,
                         op_stage_times *times, int *failed);
    /* Optional, with group: a group's sub-step start, in place of begin_substep for each of its
     * bodies (the world calls it after predicting all of them). Each body's results must be
     * bitwise those begin_substep gives it; when it fails, *failed is the failing body's position
     * in the group. */
    int (*begin_group)(op_ctx *ctx, void *const *solvers, op_body *const *bodies, int count, double h, int *failed);
    /* Optional: the energy E of the body's current iterate (core/sim/energy.h, at this sub-step's
     * h, y and Y) into *energy, as the variant computes it from data it keeps for its iterations,
     * so that a method needing E every iteration (Anderson's safeguard, solvers/accel/anderson.c)
     * pays less than the yardstick. It must equal op_energy_eval's total to 1e-12 relative
     * (tests/test_solver_energy.c checks every variant that gives it on every scene); reported
     * numbers still come from the yardstick. Callable whenever iterate is, on the body's thread,
     * and it changes nothing the iterations read. NULL: callers use the yardstick. */
    int (*energy)(op_ctx *ctx, void *solver, const op_body *body, double h, double *energy);
    /* 1: the variant's iterations keep every free particle above the floor when body->floor_held
     * ([world] floor_contact = solve, world.h) and leave the floor's force in body->floor_push;
     * op_world_start refuses floor_contact = solve for the others, naming the variant. */
    int holds_floor;
    /* Optional: the bytes the body's state holds for the linear solves of its iterations (arap:
     * the factor, its bytes shared out over the bodies holding it, and the solve's workspace; or,
     * with global = pcg, the matrix and the conjugate gradients' workspace), for the scaling
     * study's memory per particle (bench/bench_scenes.c's solve_bytes). NULL: not reported. */
    size_t (*solve_bytes)(const void *solver);
} op_solver_type;

/* E of the body's current iterate: the variant's energy hook when it gives one, else the yardstick
 * (op_energy_eval's total). */
int op_solver_energy(op_ctx *ctx, const op_solver_type *type, void *solver, const op_body *body, double h,
                     double *energy);

enum { OP_SOLVER_GROUP_MAX = 4 };

/* NULL-terminated, in the order `opsim solvers` lists them. */
extern const op_solver_type *const op_solver_registry[];

const op_solver_type *op_solver_find(const char *name);

/* Options every iterative variant accepts besides its own table: Chebyshev semi-iterative
 * acceleration applied by the world after each iteration (solvers/accel/chebyshev.h):
 *   chebyshev = off | on            (off)
 *   chebyshev_rho = R               spectral-radius estimate in [0, 1); no default: required when
 *                                   chebyshev = on (estimate it: opsim estimate-rho)
 *   chebyshev_rho_source = TEXT     free text recorded with ρ ("" = "given"); opsim estimate-rho
 *                                   prints one
 *   chebyshev_delay = S             plain iterations k < S before extrapolating, S ≥ 1 (2)
 *   chebyshev_gamma = γ             under-relaxation in (0, 1] (1)
 *   chebyshev_rotations = off | on  also extrapolate the rotations, re-projected onto SO(3) (off)
 * and Anderson acceleration, applied by the world around each iteration (solvers/accel/anderson.h):
 *   anderson = off | on             (off); anderson = on with chebyshev = on is refused
 *   anderson_m = M                  the window, 0 … 50 (5); 0 is the plain iteration bit for bit
 * Each accelerator declares its own (solvers/accel/accel.h, op_accel_type.options): table t = 0,
 * 1, … in the accelerators' registry order, NULL after the last; each NULL-terminated like a
 * variant's table. */
const op_solver_option *op_solver_common_options(int t);

/* Checks every key against the type's options and the common options (OP_ERR_USAGE naming the
 * key and listing the valid ones), checks the values of the common options (an error names the
 * option), and fills in defaults for the keys not given. */
int op_solver_settings_validate(op_ctx *ctx, const op_solver_type *type, op_solver_settings *settings);
/* The value of `key` (after validation every option has one). */
const char *op_solver_setting(const op_solver_settings *settings, const char *key);
/* Parsed values with range checks; errors name the solver option. */
int op_solver_setting_double(op_ctx *ctx, const op_solver_settings *settings, const char *key, double lo, double hi,
                             double *out);
int op_solver_setting_int(op_ctx *ctx, const op_solver_settings *settings, const char *key, int lo, int hi, int *out);
/* One of a '|'-separated list of words, e.g. "gs|jacobi"; returns its position. */
int op_solver_setting_choice(op_ctx *ctx, const op_solver_settings *settings, const char *key, const char *choices,
                             int *out);

#endif
