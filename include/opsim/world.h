/* The world: models, bodies, scripts and the solver variant, and the frame loop with its
 * explicit stage list (after Box2D's solver stages; op_stage below, one dispatch in
 * core/sim/world.c's unit_stage, each stage a plain function there):
 *
 *   per frame, per sub-step (h = frame_time / substeps):
 *     for each unit of bodies (below), its stages in this order:
 *       PREDICT          y = x + h v + h² g, Y = R + h Ṙ; constraint targets at the sub-step's
 *                        end time; x ← y and R ← the rotation_start guess, except where pinned
 *       ITERATE          the solver's begin_substep (refactor when h or the constraints
 *                        changed), then n_i times the solver's iteration (local and global
 *                        stages, timed separately), inside the accelerator's before and after
 *                        when one is on (solvers/accel/accel.h: Chebyshev's extrapolation,
 *                        Anderson's mixing with its energy safeguard; timed as the accel stage,
 *                        its count taken per sub-step), then, when floor_contact = iteration,
 *                        the floor projection (op_floor_project, timed as contact); the energy
 *                        is logged before the first iteration and after each when logging is
 *                        on, i.e. of the accelerated and projected state
 *       VELOCITIES       v = (x − x_start)/h, Ṙ = (R − R_start)/h
 *       FLOOR            when there is a floor, the body's floor contacts: with floor_contact =
 *                        substep (the paper's) op_collide_floor pushes particles out and
 *                        changes their velocities; with floor_contact = iteration the
 *                        iterations kept them above the floor and op_floor_respond changes the
 *                        velocities of those the last projection pushed; with floor_contact =
 *                        solve the global step held them, with friction (solvers/arap_floor.h),
 *                        and op_floor_respond only removes the held particles' downward
 *                        velocity. Then, when there are
 *                        CONTACTS, the body's centres gathered into the contact call's list
 *                        with how far each has moved since the pairs' search
 *                        (op_collider_gather_body). Neither involves another body, so both run
 *                        here, while the body's data is in cache; timed as contact
 *     CONTACTS           when collisions = on and there are two bodies or more, the pairs of
 *                        particles of different bodies (core/contact/collide.h): the pairs start
 *                        from the floor's corrections, and the floor bounds each of their
 *                        passes, so no pair resolves by pushing a particle into it; what is left
 *                        below the floor and between bodies is measured after both, and so is
 *                        the energy of the state after contacts (when logging is on)
 *
 * Units and threads (core/sim/schedule.h). Where the variant groups twins (solver.h: arap takes
 * four bodies of one model at a time, whose rotations it computes side by side in AVX lanes),
 * the group's bodies go through the stages together, each stage body by body but begin_substep and
 * the iterations as one call; every other body is a unit alone. No groups form with an accelerator
 * on: it acts on each body between its iterations. Bodies do not meet before CONTACTS, so a
 * unit's PREDICT to FLOOR runs without waiting for the others, on the thread the schedule gives
 * it (two bodies or more and OP_SCHEDULE_PARALLEL_MIN particles share the units between
 * OpenMP threads), and its data stays in cache from PREDICT to FLOOR. Every body is computed
 * exactly as alone, so the state is bitwise the same for every thread count and grouping. The
 * pairs are parallel inside core/contact/collide.c. Each body's energy is logged into a row of
 * its own and the rows are summed in body order (op_world_energy's sum, bitwise). Each body
 * reports errors into a context of its own; a failed stage ends that unit's sub-step and the
 * step reports the failure of the first failing body in body order. op_world_begin_substep and
 * op_world_iterate give the same stages one at a time, every body together, for studies that
 * look between iterations (core/sim/converge.c).
 *
 * Timings are per frame in milliseconds from a monotonic clock, each stage's in stage_ms.
 * local_ms, global_ms and accel_ms are wall time, and collision_ms is CONTACTS' wall time plus
 * FLOOR's and the floor projections'. On one thread the per-unit stage times are summed over
 * the units. On threads those sums are CPU time, more than the wall time that passed: there
 * the units' loop is timed as a whole, and its wall time is apportioned to the stages by their
 * share of the units' summed sub-step times (op_schedule_apportion), so that the loop's
 * overhead is shared out too. */
#ifndef OPSIM_WORLD_H
#define OPSIM_WORLD_H

#include "opsim/body.h"
#include "opsim/energy.h"
#include "opsim/solver.h"

/* The library's own types the world holds by pointer (or returns, op_contact_def), opaque here:
 * code that looks inside includes their private headers. */
typedef struct op_accel op_accel;             /* solvers/accel/accel.h */
typedef struct op_build_def op_build_def;     /* core/geometry/build.h */
typedef struct op_choice op_choice;           /* core/base/choice.h */
typedef struct op_choice_cycle op_choice_cycle; /* core/base/choice.h */
typedef struct op_collider op_collider;       /* core/contact/collide.h */
typedef struct op_contact_def op_contact_def; /* core/contact/collide.h */
typedef struct op_schedule op_schedule;       /* core/sim/schedule.h */
typedef struct op_script op_script;           /* core/sim/script.h */

typedef struct op_world_def {
    double frame_time;   /* s per frame; the paper's h = 1/30 */
    int substeps;        /* n_s */
    int iterations;      /* n_i per sub-step */
    double gravity[3];   /* m/s² */
    int floor;           /* 1: a floor plane y = floor_height with normal +y */
    double floor_height; /* m */
    double friction;     /* Coulomb coefficient for floor and body contacts */
    int collisions;      /* 1: contacts between the particles of different bodies */
    int collision_passes; /* passes of the body contacts (collide.h) */
    int collision_passes_max; /* the passes' cap for deep pairs (collide.h, "Passes") */
    int collision_rounds; /* rounds of passes while a pair of the state left is deep (collide.h, "Rounds") */
    int collision_order;  /* OP_CONTACT_ORDER_COLOURS or OP_CONTACT_ORDER_JACOBI (collide.h) */
    int collision_threads; /* OP_CONTACT_THREADS_ALL, _ONE or _AUTO (collide.h) */
    int schedule_threads;  /* OP_SCHEDULE_THREADS_ALL, _ONE or _AUTO (below) */
    double collision_margin; /* m, added to the broad phase's reach */
    int log_energy;      /* evaluate E after every iteration (off for timing runs) */
    int floor_contact;   /* OP_FLOOR_CONTACT_SUBSTEP, _ITERATION or _SOLVE (below) */
    int rotation_start;  /* OP_ROTATION_START_RIGID, _PREDICTED or _CURRENT (below) */
} op_world_def;

/* Which threads step the bodies' units (core/sim/schedule.h), `[world] schedule_threads`: the
 * OpenMP team (ALL) or the calling thread (ONE), bitwise the same results; AUTO, the default,
 * times both where the run is and keeps the faster (op_world_schedule_threads). One body is
 * always stepped on the calling thread: there is nothing to share. */
enum { OP_SCHEDULE_THREADS_ALL = 0, OP_SCHEDULE_THREADS_ONE = 1, OP_SCHEDULE_THREADS_AUTO = 2 };
/* Sub-step cycles per option in a schedule calibration, and cycles between calibrations (as the
 * contacts', core/contact/collide.h). */
enum { OP_SCHEDULE_CHOICE_TRIALS = 6, OP_SCHEDULE_CHOICE_SETTLE = 288 };

/* The rotations each sub-step's iterations start from (the positions start at y), free
 * orientations only (docs/method.md, "The starting guess"):
 *   RIGID      Q R_i, Q the body's turn over the sub-step as its momentum predicts (the best rigid
 *              fit of (y, Y) to (x, R)): a spinning body keeps its spin, and the rates of the
 *              particles' own turns relative to the body are not extrapolated (the default);
 *   PREDICTED  polar(Y_i), each particle's own prediction (op_polar_rotation_predicted);
 *   CURRENT    R_i, where the sub-step started (opsim before November 2026: a free body lost its
 *              spin within a third of a second at the paper's iteration counts). */
enum { OP_ROTATION_START_RIGID = 0, OP_ROTATION_START_PREDICTED = 1, OP_ROTATION_START_CURRENT = 2 };

/* Where the floor acts (docs/method.md, "Floor contacts"): at the end of each sub-step, after
 * the iterations (the paper's), inside them, a projection after every iteration, or inside the
 * global step, a bound the solve keeps (SOLVE: only variants whose op_solver_type.holds_floor
 * is set, and no accelerator; op_world_start refuses the rest by name). */
enum { OP_FLOOR_CONTACT_SUBSTEP = 0, OP_FLOOR_CONTACT_ITERATION = 1, OP_FLOOR_CONTACT_SOLVE = 2 };

op_world_def op_default_world_def(void);

/* A sub-step's stages, in order (the list above): PREDICT to FLOOR for each unit of bodies on
 * the schedule (core/sim/schedule.h), CONTACTS for all of them at once. */
typedef enum op_stage {
    OP_STAGE_PREDICT,    /* PREDICT */
    OP_STAGE_ITERATE,    /* begin_substep and n_i iterations, with the accelerator and the energy log */
    OP_STAGE_VELOCITIES,
    OP_STAGE_FLOOR,      /* the floor contacts, and the gathering of the centres for CONTACTS */
    OP_STAGE_CONTACTS,   /* the body pairs, and the energy after them */
    OP_STAGE_COUNT
} op_stage;

/* "predict", "iterate", "velocities", "floor", "contacts" */
const char *op_stage_name(op_stage stage);

struct op_world;

typedef struct op_frame_stats {
    double local_ms, global_ms, collision_ms, total_ms;
    double stage_ms[OP_STAGE_COUNT]; /* each stage's time (op_stage_name), as the timings below */
    double accel_ms;     /* the accelerator's stage (solvers/accel/accel.h; 0 when none is on) */
    int floor_contacts;  /* particles pushed out of the floor this frame */
    /* Body contacts (collide.h), 0 where they do not run: counts summed over the frame's
     * sub-steps, penetrations the largest left at the end of a sub-step's CONTACTS. */
    int collision_pairs;          /* candidate pairs of the broad phase */
    int collision_contacts;       /* of them, pairs that penetrated */
    double max_penetration;       /* m, between ellipsoids of different bodies */
    double max_floor_penetration; /* m, below the floor (0 without a floor) */
    double max_floor_reach;       /* m: how far any particle reached below the floor before the
                                     floor pushed it back (the largest over the sub-steps) */
    /* Where the frame's contacts between bodies ran: OP_CONTACT_THREADS_ALL or _ONE when every
     * contact call of the frame ran there (def's, or auto's timed choice), _AUTO when auto's
     * calibration tried both within the frame. handoff_ns: under auto, the cache line's time
     * between the team's cores measured at the frame's start (core/sim/team.h), a record of the
     * machine that no choice reads (NAN when not measured: not auto, or no contact stage); the
     * probe's time is in collision_ms. */
    int collision_threads;
    double handoff_ns;
    /* Where the frame's units were stepped: OP_SCHEDULE_THREADS_ALL or _ONE when every sub-step
     * of the frame stepped them there, _AUTO when auto's calibration tried both within it. */
    int schedule_threads;
    /* Whether the frame's sweeps were offered a team under sweep_threads = auto: _ALL when every
     * sub-step's were, _ONE when none was (or the variant's sweep_threads is not auto), _AUTO
     * when the calibration tried both within the frame (OP_SCHEDULE_THREADS_* values). */
    int sweep_threads;
    /* [substeps], each unless NULL: that reach per sub-step; the energy terms of the state
     * after the sub-step's contacts, summed over bodies with the sub-step's h, y and Y (filled
     * only when def.log_energy) */
    double *floor_reach;
    op_energy *energy_after_contacts;
    /* [substeps] unless NULL: the deepest penetration between bodies in the state each sub-step
     * ends in (collide.h's max_penetration: every pair within reach, not only the candidates) */
    double *penetration;
    /* Unless NULL, called after every sub-step with the world as that sub-step leaves it (time and
     * substep advanced), e.g. to store its state (`[run] output = substeps`); a failure ends the
     * frame with it. */
    int (*substep_end)(op_ctx *ctx, void *context, const struct op_world *world);
    void *substep_context;
    /* [substeps] unless NULL: the accelerator's count in the sub-step, summed over bodies
     * (op_accel_type.counter_name: Anderson's rejections; 0 when none is on) */
    long *accel_counts;
    /* [substeps][iterations + 1], summed over bodies: column 0 before the first iteration,
     * column k after the k-th. Filled only when def.log_energy. */
    op_energy *energy;
    /* [substeps][OP_SOLVER_MAX_COUNTERS], summed over bodies: the variant's counters
     * (op_solver_type.counters, op_stage_times.count) per sub-step. Filled when not NULL. */
    long *counts;
} op_frame_stats;

enum { OP_WORLD_MAX_MODELS = 16, OP_WORLD_MAX_BODIES = 16384, OP_WORLD_MAX_SCRIPTS = 16 };

typedef struct op_world_thread_sums op_world_thread_sums; /* core/sim/world.c's */

typedef struct op_world {
    op_world_def def;
    int model_count;
    op_model *models;   /* [OP_WORLD_MAX_MODELS] */
    int body_count;
    op_body *bodies;    /* [OP_WORLD_MAX_BODIES] */
    int script_count;
    op_script *scripts; /* [OP_WORLD_MAX_SCRIPTS] */
    const op_solver_type *solver;
    op_solver_settings solver_settings;
    void **solver_state; /* [body_count], made by op_world_start */
    op_schedule *schedule; /* the units of bodies and the threads that step them (schedule.h) */
    int thread_sums_capacity;
    op_world_thread_sums *thread_sums; /* [thread_sums_capacity] each thread's sums of a loop */
    op_accel *accel;                /* the accelerator the solver settings turn on (accel.h), or NULL */
    op_collider *collider;          /* the body contacts' workspace */
    /* collision_threads = auto: the contact calls' threads, chosen by timing both (option 0 the
     * team, 1 one thread; core/base/choice.h, op_world_contact_threads), and the contact cycle
     * being timed: from one contact call's start to the next's */
    op_choice *contact_choice;
    op_choice_cycle *contact_cycle;
    int frame_calls, frame_calls_one; /* this frame's contact calls, and of them on one thread */
    /* schedule_threads = auto: the units' threads, chosen by timing both (option 0 the team, 1
     * one thread) over sub-step cycles, from one unit loop's start to the next's */
    op_choice *schedule_choice;
    op_choice_cycle *schedule_cycle;
    int frame_units, frame_units_one; /* this frame's unit loops, and of them on one thread */
    /* sweep_threads = auto (op_world_sweep_auto): option 0 the team, 1 one thread */
    op_choice *sweep_choice;
    op_choice_cycle *sweep_cycle;
    int frame_sweeps_team;             /* this frame's sub-steps whose sweeps were offered a team */
    /* The automatic choices in use take turns to calibrate (core/base/choice.h, "Turns"):
     * the schedule's first, then the contacts', then the sweeps'; choice_turn indexes the
     * list that op_world_schedule_threads makes each sub-step */
    op_choice *turn_choices[3];
    int turn_count, choice_turn;
    int body_energy_capacity;
    op_energy *body_energy;         /* [bodies][iterations + 1] one sub-step's energies per body */
    double time;         /* s since the start */
    long frame;          /* frames completed */
    long substep;        /* sub-steps completed */
} op_world;

int op_world_init(op_ctx *ctx, op_world *world, const op_world_def *def);
/* The model named `name`, loading it from the catalogue on first use. */
int op_world_model(op_ctx *ctx, op_world *world, const char *catalogue, const char *name, const op_build_def *build,
                   const op_model **model);
/* Appends a body (op_body_init) and returns it. */
int op_world_add_body(op_ctx *ctx, op_world *world, const char *name, const op_model *model, double stiffness,
                      const double placement_rotation[9], const double placement_translation[3], op_body **body);
/* Creates each body's solver state; call once all bodies, pins and constraints are in. */
int op_world_start(op_ctx *ctx, op_world *world, const op_solver_type *solver, const op_solver_settings *settings);
/* Makes every body's solver state afresh from the bodies as they are now (what op_world_start
 * does once; a study that takes over another world's state does it again), in body order, each
 * given the states of the earlier bodies of its model as twins (solver.h). */
int op_world_remake_solver_states(op_ctx *ctx, op_world *world);
/* Advances one frame. Each array of *stats is filled when not NULL (stats->energy: substeps ×
 * (iterations + 1) entries, and only when def.log_energy is on). */
int op_world_step(op_ctx *ctx, op_world *world, op_frame_stats *stats);
/* *stats with every array allocated for `world`'s sub-steps and iterations, zeroed (free with
 * op_frame_stats_free); on failure nothing is left allocated. */
int op_frame_stats_make(op_ctx *ctx, const op_world *world, op_frame_stats *stats);
void op_frame_stats_free(op_frame_stats *stats);
/* Where the next contact call between bodies runs, OP_CONTACT_THREADS_ALL or _ONE: def's choice
 * or, under _AUTO, the timed choice (collide.h, "AUTO"): the call that ends a contact cycle
 * records that cycle's time when it was a calibration's. The stage CONTACTS calls it once a
 * sub-step, just before its contact call. */
int op_world_contact_threads(op_world *world);
/* Whether the next sub-step steps its units on the team (1) or one thread (0): def's
 * schedule_threads or, under _AUTO, the timed choice; the call that ends a sub-step cycle
 * records that cycle's time when it was a calibration's. Also gives the automatic choices their
 * turns. Each sub-step calls it once, before its units. */
int op_world_schedule_threads(op_world *world);
/* A variant's `sweep_threads = auto` (arap, vbd: each colour of a body's sweep shared with a
 * thread team, or the sweep on one thread, bitwise the same): the world times both over sub-step
 * cycles, in turn after the units and the contacts, and tells every body (op_body.sweep_team).
 * Timed only where a sweep can take a team: two threads or more, and one body or
 * schedule_threads = one (inside the units' team a sweep never opens its own); elsewhere the
 * sweeps stay on one thread. */
int op_world_sweep_auto(const op_world *world);
/* Whether the world has contacts between bodies (CONTACTS): collisions on and two bodies or more. */
int op_world_collides(const op_world *world);
/* The contacts between bodies as the world's def sets them (collide.h), on `threads`
 * (OP_CONTACT_THREADS_ALL or _ONE): what each CONTACTS stage passes to op_collide_bodies. */
op_contact_def op_world_contact_def(const op_world *world, int threads);
void op_world_free(op_world *world);

/* The stages of one sub-step of length h, for studies of a sub-step's convergence
 * (opsim estimate-rho, tests): op_world_begin_substep runs PREDICT and ITERATE's
 * begin_substep; op_world_iterate runs iteration k (0, 1, … in order) of ITERATE, the accelerator included
 * (k = 0 restarts its sequence). Neither logs energy nor advances time: a study that stops
 * here leaves the world mid-sub-step. op_world_step's sub-step is these plus VELOCITIES, FLOOR and
 * CONTACTS, bitwise (tests/test_arap.c compares the energies). */
int op_world_begin_substep(op_ctx *ctx, op_world *world, double h);
int op_world_iterate(op_ctx *ctx, op_world *world, double h, int k, op_stage_times *times);
/* The plain iteration's step sizes, for estimating chebyshev_rho: begins the next sub-step and
 * runs `iterations` iterations, change[k] = ‖x^{k+1} − x^k‖ over every body's centres and
 * *scale = ‖x‖ at the end. No accelerator may be on (OP_ERR_USAGE otherwise). */
int op_world_probe_substep(op_ctx *ctx, op_world *world, int iterations, double *change, double *scale);

/* The energy terms of docs/design.md §1 (op_energy_eval at sub-step length h) summed over the bodies
 * in order, what the energy log records: the total returned, every term in *sum unless NULL. */
double op_world_energy(const op_world *world, double h, op_energy *sum);

/* Total particles over all bodies, and each body's first index in that order. */
int op_world_particle_count(const op_world *world);

#endif
