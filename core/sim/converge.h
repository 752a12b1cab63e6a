/* The convergence of one sub-step (opsim converge, experiments/convergence.mk): a scene runs
 * `frames` frames as configured (op_world_step, energy logging off), then the next sub-step
 * begins (op_world_begin_substep: PREDICT and BEGIN) and `iterations` iterations run
 * (op_world_iterate), recording before the first and after each one
 *
 *   energy[k]   E = E^k + E^e + E^c summed over the bodies (op_energy_eval, h = frame_time /
 *               substeps), k = 0 … iterations;
 *   seconds[k]  the wall-clock time spent in the k iterations so far: each op_world_iterate
 *               call is timed on its own (the Chebyshev extrapolation, which op_world_iterate
 *               runs, included; the energy evaluations and BEGIN, i.e. any refactoring, not).
 *
 * The studied sub-step may run another solver than the frames before it (`study`): the same
 * config with other [solver] settings, e.g. Jacobi rotations or Chebyshev acceleration, so that
 * every variant starts its sub-step from the one state the configured solver reached and
 * solves the same minimisation problem (one E*, one E_0 for all). After the frames the study
 * world takes the scene's state (x, R, v, Ṙ of every body, time, frame and sub-step counts);
 * its solver states are then created afresh on that state, as op_world_start creates them on
 * a world that starts there (for arap: the warm-start quaternions are those of the current R).
 * With study == scene (or NULL) the sub-step runs in the scene's own world.
 *
 * Runs are deterministic: the same scene, frames and iterations give bitwise the same
 * energies. The worlds are left mid-sub-step. */
#ifndef OPSIM_CONVERGE_H
#define OPSIM_CONVERGE_H

#include "opsim/scene.h"

enum { OP_CONVERGE_MAX_FRAMES = 1000000, OP_CONVERGE_MAX_ITERATIONS = 10000000, OP_CONVERGE_MAX_REPEATS = 1000 };

/* frames in [0, OP_CONVERGE_MAX_FRAMES], iterations in [1, OP_CONVERGE_MAX_ITERATIONS]
 * (OP_ERR_USAGE otherwise, naming the value); energy and seconds hold iterations + 1 values.
 * A study scene must have the scene's bodies (count, particles, stiffness), frame time and
 * sub-steps (OP_ERR_INVALID otherwise). */
int op_converge(op_ctx *ctx, op_scene *scene, op_scene *study, int frames, int iterations, double *seconds,
                double *energy);

/* op_converge with the studied sub-step solved `repeats` times (1 … OP_CONVERGE_MAX_REPEATS),
 * each time in the study world after it took the scene's state afresh (so repeats > 1 needs a
 * study world other than the scene's: OP_ERR_USAGE otherwise), by the timing protocol
 * (docs/timing.md): with repeats > 1 one untimed solve first (the warm-up), then the timed ones;
 * seconds[k] is the median over the repeats of each repeat's time to the end of iteration k (a
 * machine that stalls a run now and then moves no median), energy[k] the first repeat's, which
 * every repeat must give bitwise (OP_ERR_INVALID otherwise). op_converge is repeats = 1. */
int op_converge_repeated(op_ctx *ctx, op_scene *scene, op_scene *study, int frames, int iterations, int repeats,
                         double *seconds, double *energy);

/* What op_converge_timed adds, each array NULL or as long as said: the 95 % interval of
 * seconds[k] over the repeats and whether it is noisy (core/base/timing_stats.h), iterations + 1
 * each; each timed repeat's wall time and the thread's CPU time over the whole sub-step, repeats
 * each. */
typedef struct op_converge_spread {
    double *lo, *hi;
    int *noisy;
    double *wall, *cpu;
    double *start; /* NULL or repeats long: each timed repeat's start, seconds after the first
                      timed solve of the call began (the order across op_converge_studies'
                      subjects) */
} op_converge_spread;

/* op_converge_repeated, and the spread of its times into *spread (NULL: none). */
int op_converge_timed(op_ctx *ctx, op_scene *scene, op_scene *study, int frames, int iterations, int repeats,
                      double *seconds, double *energy, const op_converge_spread *spread);

/* The error of each iterate against the studied variant's own converged solution of the same
 * sub-step, for every family alike (shape matching, springs, meshless minimise no ARAP energy, so
 * E − E* says nothing of them):
 *   error[k] = ‖x_k − x*‖ / ‖x_0 − x*‖  over every body's positions (all particles, one norm),
 * x* the positions after `iterations` iterations of the same variant from the same state (its
 * fixed point: a run of its own before the repeats, in the study world after it took the
 * scene's state; 0 when x_0 = x*). Positions, because they are what every family iterates and
 * what a viewer sees; the ARAP variants' rotations follow them. Filled by
 * op_converge_to_fixed_point. */
typedef struct op_converge_fixed_point {
    int iterations;    /* N*, in [1, OP_CONVERGE_MAX_ITERATIONS] */
    double *error;     /* [studied iterations + 1] error[k] above */
    double last_step;  /* ‖x_N* − x_{N*−1}‖ / ‖x_0 − x*‖: how settled x* is (0: exactly) */
    int single_update; /* 1: x_1 = x* bitwise and x_0 ≠ x_1 (the first iteration applies the
                          update, later ones repeat it: meshless goals = start, rigid) */
} op_converge_fixed_point;

/* op_converge_repeated, with error[] against the variant's own fixed point (needs a study world,
 * as repeats > 1). */
int op_converge_to_fixed_point(op_ctx *ctx, op_scene *scene, op_scene *study, int frames, int iterations, int repeats,
                               double *seconds, double *energy, op_converge_fixed_point *fixed);

/* The first k after which r[k … count − 1] all stay at or below tolerance (NaN is above), or −1
 * when r[count − 1] is above: "iterations to tolerance" of the convergence tables. */
int op_converge_reached(const double *r, int count, double tolerance);

/* Both at once: the spread of the times (NULL: none) and the error against the fixed point
 * (NULL: none), from one set of solves. */
int op_converge_study(op_ctx *ctx, op_scene *scene, op_scene *study, int frames, int iterations, int repeats,
                      double *seconds, double *energy, const op_converge_spread *spread, op_converge_fixed_point *fixed);

/* Several solvers on the one sub-step (opsim converge --study), each a subject: its study world
 * (the config with its [solver] keys) and what is recorded of it, as op_converge_study records
 * one study. The scene runs its frames once; then each subject's fixed point, if it has one, is
 * solved; then the repeats go round the subjects (the timing protocol, docs/timing.md: A B C,
 * B C A, C A B, …; op_converge_turn), the untimed warm-up round first when repeats > 1. Every
 * solve starts from the scene's state taken afresh, so each subject's energies, errors and
 * iteration counts are bitwise those of op_converge_study with its world alone: only the order
 * of the timed solves differs. On a failure in a subject's solves, that subject's `failed` is
 * set (the caller names it in the message); a failure of the frames sets none. */
typedef struct op_converge_subject {
    op_scene *study;                  /* its world; with one subject, NULL or the scene: the scene's own */
    double *seconds, *energy;         /* iterations + 1 each */
    const op_converge_spread *spread; /* NULL: none */
    op_converge_fixed_point *fixed;   /* NULL: none */
    int failed;                       /* out: 1 when the failure in ctx arose in its solves */
} op_converge_subject;

enum { OP_CONVERGE_MAX_STUDIES = 64 };

/* count in [1, OP_CONVERGE_MAX_STUDIES]; with more than one, each subject needs a study world. */
int op_converge_studies(op_ctx *ctx, op_scene *scene, op_converge_subject *subject, int count, int frames,
                        int iterations, int repeats);

/* The machine probe (core/base/probe.h) timed at the start of each timed round: round r's
 * milliseconds into ms[r] and its start into started[r] (seconds after the first timed round's
 * start), repeats each. */
typedef struct op_converge_probe {
    double *ms, *started;
} op_converge_probe;

/* op_converge_studies with the probe before each timed round (probe NULL: none). The probe runs
 * outside the solves: no time of theirs includes it. */
int op_converge_studies_probed(op_ctx *ctx, op_scene *scene, op_converge_subject *subject, int count, int frames,
                               int iterations, int repeats, const op_converge_probe *probe);

/* Several scenes' studies in one process (opsim converge --batch), each a job: the arguments of
 * one op_converge_studies call. Every job is prepared first (its frames, its subjects' fixed
 * points); then the rounds go round the jobs: the untimed round of every job whose repeats
 * exceed 1, then timed round 1 of every job (each in op_converge_turn's order), round 2 of
 * every job, …, the probe (NULL: none; as long as the most repeats) at each timed round's start.
 * So a job's repeats are spread over the whole timed phase, and a change of the machine's speed
 * during it falls on one round of every job rather than on every round of one. Each job's
 * results are bitwise those of op_converge_studies with its arguments alone. On a failure the
 * job it arose in is marked `failed` (and its subject, as op_converge_studies marks it). */
typedef struct op_converge_job {
    op_scene *scene;
    op_converge_subject *subject;
    int count, frames, iterations, repeats;
    int failed; /* out */
} op_converge_job;

int op_converge_jobs(op_ctx *ctx, op_converge_job *job, int job_count, const op_converge_probe *probe);

/* The subject timed at `position` (0-based) of timed round `round` (0-based) among `count`:
 * (round + position) mod count. Each round takes every subject once and round r begins with
 * subject r mod count, so that no subject always goes first. */
int op_converge_turn(int round, int position, int count);

#endif
