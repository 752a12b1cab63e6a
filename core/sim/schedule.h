/* Who steps which bodies, and how their time is told: the world's units (a body alone, or a
 * group of twins its variant iterates side by side), the thread team that shares them out, the
 * units' measured costs, and the apportioning of a threaded loop's wall time to its stages.
 * The physics (core/sim/world.c's stages) knows none of it: it hands the schedule a function
 * that steps one unit, and the schedule calls it once for every unit.
 *
 * Units. op_schedule_form_units offers each body not yet in a unit, with the next bodies of
 * its model not yet in one, to the variant's group hook (solver.h), which binds some of them into
 * a group; every other body is a unit alone. A body's results are bitwise the same either way.
 *
 * Threads (OpenMP). op_schedule_units runs the units on one thread in unit order, or, when the
 * schedule is parallel (set by the caller each loop, op_schedule_start), on a team: each thread owns a run of consecutive units, which it takes
 * forward in even sub-steps and backward in odd ones, so that it keeps its own units and starts a
 * sub-step on those it ended the last with, still in its cache (on the 180-model scene a dynamic
 * schedule, which scattered the units anew, cost about 3% more a frame). The runs share out the
 * units' measured times (unit_cost, each the mean of its last time and the one before; their
 * particle counts until every unit has been timed); a thread done with its run takes units from
 * the far end of another's (core/sim/team.h), so that a thread held up (these machines' vCPUs
 * stall now and then) delays the loop by no more than a unit. Which thread steps a unit never
 * changes its results.
 *
 * Timing. Stage times summed over units on threads are CPU time, more than the wall time that
 * passed: op_schedule_apportion shares a loop's wall time out to the stages by their share of
 * the units' summed times, so that the loop's overhead is shared out too. */
#ifndef OPSIM_SCHEDULE_H
#define OPSIM_SCHEDULE_H

#include "opsim/body.h"
#include "opsim/solver.h"
#include "sim/team.h"

typedef struct op_schedule {
    int parallel;      /* the units are shared between threads (op_schedule_start) */
    int unit_count;    /* a body alone, or a group of twins (solver.h) */
    int *unit_start;   /* [unit_count + 1] each unit's run in unit_body */
    int *unit_body;    /* [body_count] the bodies by unit, in body order within one */
    double *unit_cost; /* [body_count] each unit's time (s), smoothed over sub-steps: what the
                          threads' runs of units share out (0: not yet measured) */
    int unit_run_capacity;
    op_run *unit_run; /* [unit_run_capacity] the threads' runs of units (team.h) */
} op_schedule;

/* Parallel when there are two bodies or more. Whether a sub-step's units then go on the team
 * or one thread is the caller's to set in `parallel` before each loop: the world times both
 * (`[world] schedule_threads = auto`, include/opsim/world.h) rather than reading a threshold of
 * particles, whose break-even moves with the machine and its load. */
void op_schedule_start(op_schedule *schedule, int body_count);

/* The units of bodies[0 .. body_count − 1] (above); `solver` and its states solver_state[b]
 * are offered to the variant's group hook unless groups = 0 (an accelerator is on). */
int op_schedule_form_units(op_ctx *ctx, op_schedule *schedule, const op_body *bodies, int body_count,
                           const op_solver_type *solver, void *const *solver_state, int groups);

/* The threads a loop of op_schedule_units or op_schedule_each may use: what a caller's
 * per-thread sums need (1 when not parallel). */
int op_schedule_threads(const op_schedule *schedule);

/* Calls step(context, thread, u) once for every unit u, as the file comment says, in sub-step
 * `substep` (its parity sets the direction of the runs); each call returns the time it took
 * (s), which updates unit_cost: the step reads the clock itself, at its stages' boundaries.
 * Returns the calls' times summed (s); *wall the loop's wall time (s). */
typedef double op_unit_step(void *context, int thread, int unit);
double op_schedule_units(op_ctx *ctx, op_schedule *schedule, const op_body *bodies, long substep, op_unit_step *step,
                         void *context, double *wall);

/* Calls step(context, thread, i) for every i in [0, count), on a team taking them in any order
 * when the schedule is parallel, else in order; for the one-stage-at-a-time calls of studies. */
void op_schedule_each(const op_schedule *schedule, int count, op_unit_step *step, void *context);

/* times += spent, the seconds apportioned: each stage's share of `summed` (the loop's summed
 * unit times) of the loop's `wall`; counts are summed, not apportioned. */
void op_schedule_apportion(op_stage_times *times, double wall, const op_stage_times *spent, double summed);

void op_schedule_free(op_schedule *schedule);

#endif
