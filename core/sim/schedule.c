/* The world's units, the threads that share them, their measured costs and the apportioned
 * timing (schedule.h). */
#include "sim/schedule.h"

#include <omp.h>
#include <stdlib.h>

#include "base/math3.h"
#include "base/timer.h"

void op_schedule_start(op_schedule *schedule, int body_count)
{
    schedule->parallel = body_count > 1;
}

/* Body b and the next bodies of its model not yet placed, at most OP_SOLVER_GROUP_MAX, into
 * members[]; returns how many. */
static int offer(const op_body *bodies, int body_count, const unsigned char *placed, int b, int *members)
{
    int offered = 0;
    for (int a = b; a < body_count && offered < OP_SOLVER_GROUP_MAX; ++a)
        if (!placed[a] && bodies[a].model == bodies[b].model)
            members[offered++] = a;
    return offered;
}

int op_schedule_form_units(op_ctx *ctx, op_schedule *schedule, const op_body *bodies, int body_count,
                           const op_solver_type *solver, void *const *solver_state, int groups)
{
    int n = body_count;
    schedule->unit_count = 0;
    unsigned char *placed = NULL;
    if (!OP_RENEW(ctx, schedule->unit_start, (size_t)n + 1) || !OP_RENEW(ctx, schedule->unit_body, n ? n : 1) ||
        !OP_RENEW(ctx, schedule->unit_cost, n ? n : 1) || !(placed = op_calloc(ctx, (size_t)(n ? n : 1), 1)))
        return ctx->status;
    int filled = 0;
    for (int b = 0; b < n && ctx->status == OP_OK; ++b) {
        if (placed[b])
            continue;
        int members[OP_SOLVER_GROUP_MAX], offered = offer(bodies, n, placed, b, members), grouped = 1;
        void *solvers[OP_SOLVER_GROUP_MAX];
        op_body *group[OP_SOLVER_GROUP_MAX];
        for (int m = 0; m < offered; ++m) {
            solvers[m] = solver_state[members[m]];
            group[m] = (op_body *)&bodies[members[m]];
        }
        if (offered > 1 && solver->group && groups && solver->group(ctx, solvers, group, offered, &grouped) != OP_OK)
            break;
        for (int m = 0; m < grouped; ++m) {
            placed[members[m]] = 1;
            schedule->unit_body[filled++] = members[m];
        }
        schedule->unit_start[++schedule->unit_count] = filled;
    }
    free(placed);
    return ctx->status;
}

int op_schedule_threads(const op_schedule *schedule)
{
    return schedule->parallel ? omp_get_max_threads() : 1;
}

/* Unit u's share of the work: its measured cost, or its particles until every unit has been
 * timed (measured). */
static double unit_weight(const op_schedule *schedule, const op_body *bodies, int u, int measured)
{
    if (measured)
        return schedule->unit_cost[u];
    int particles = 0;
    for (int m = schedule->unit_start[u]; m < schedule->unit_start[u + 1]; ++m)
        particles += bodies[schedule->unit_body[m]].graph->particle_count;
    return particles;
}

/* Thread t's run of units [*first, *last) of a team's: unit u goes to the thread whose share of
 * the summed weights (the t-th of `team` equal ones, in unit order) holds the middle of the
 * unit's weight. */
static void thread_units(const op_schedule *schedule, const op_body *bodies, int t, int team, int *first, int *last)
{
    int measured = 1;
    for (int u = 0; u < schedule->unit_count; ++u)
        measured &= schedule->unit_cost[u] > 0;
    double total = 0.0, before = 0.0;
    for (int u = 0; u < schedule->unit_count; ++u)
        total += unit_weight(schedule, bodies, u, measured);
    *first = *last = 0;
    for (int u = 0; u < schedule->unit_count; ++u) {
        double weight = unit_weight(schedule, bodies, u, measured);
        int owner = total > 0 ? (int)op_min(team - 1, (before + 0.5 * weight) * team / total) : 0;
        if (owner < t)
            *first = *last = u + 1;
        else if (owner == t)
            *last = u + 1;
        before += weight;
    }
}

/* step for unit u: its time added to *all and, averaged with the last, to u's cost */
static void step_timed(op_schedule *schedule, int thread, int u, op_unit_step *step, void *context, double *all)
{
    double took = step(context, thread, u);
    *all += took;
    schedule->unit_cost[u] = schedule->unit_cost[u] > 0 ? 0.5 * (schedule->unit_cost[u] + took) : took;
}

static int ensure_runs(op_ctx *ctx, op_schedule *schedule, int threads)
{
    if (threads <= schedule->unit_run_capacity)
        return OP_OK;
    free(schedule->unit_run);
    schedule->unit_run_capacity = 0;
    if (!(schedule->unit_run = op_calloc_lines(ctx, (size_t)threads, sizeof *schedule->unit_run)))
        return ctx->status;
    schedule->unit_run_capacity = threads;
    return OP_OK;
}

double op_schedule_units(op_ctx *ctx, op_schedule *schedule, const op_body *bodies, long substep, op_unit_step *step,
                         void *context, double *wall)
{
    double all = 0.0, start = op_now();
    if (!schedule->parallel) {
        for (int u = 0; u < schedule->unit_count; ++u)
            step_timed(schedule, 0, u, step, context, &all);
        *wall = op_now() - start;
        return all;
    }
    int threads = omp_get_max_threads();
    if (ensure_runs(ctx, schedule, threads) != OP_OK)
        return 0.0;
    int low = substep % 2 == 0; /* the end each owner takes from */
#pragma omp parallel num_threads(threads) reduction(+ : all)
    {
        int thread = omp_get_thread_num(), team = omp_get_num_threads(), first, last;
        thread_units(schedule, bodies, thread, team, &first, &last);
        op_run_set(&schedule->unit_run[thread], first, last);
#pragma omp barrier /* every run set, from the costs before any unit's is updated */
        for (int other = 0; other < team; ++other) {
            op_run *run = &schedule->unit_run[(thread + other) % team];
            int own = other == 0;
            for (int u; (u = op_run_take(run, own ? low : !low)) >= 0;)
                step_timed(schedule, thread, u, step, context, &all);
        }
    }
    *wall = op_now() - start;
    return all;
}

/* Each loop is written twice, on a thread team when parallel and plainly otherwise, rather
 * than one loop with an OpenMP if clause: a parallel region whose if clause is false still
 * costs about 0.4 µs in libgomp, a few per cent of a one-body frame. */
void op_schedule_each(const op_schedule *schedule, int count, op_unit_step *step, void *context)
{
    if (schedule->parallel) {
#pragma omp parallel for schedule(dynamic)
        for (int i = 0; i < count; ++i)
            step(context, omp_get_thread_num(), i);
    } else {
        for (int i = 0; i < count; ++i)
            step(context, 0, i);
    }
}

void op_schedule_apportion(op_stage_times *times, double wall, const op_stage_times *spent, double summed)
{
    for (int c = 0; c < OP_SOLVER_MAX_COUNTERS; ++c)
        times->count[c] += spent->count[c]; /* counts: summed, not apportioned */
    if (summed > 0.0) {
        times->local += wall * (spent->local / summed);
        times->global += wall * (spent->global / summed);
        times->accel += wall * (spent->accel / summed);
    }
}

void op_schedule_free(op_schedule *schedule)
{
    OP_FREE(schedule->unit_start);
    OP_FREE(schedule->unit_body);
    OP_FREE(schedule->unit_cost);
    OP_FREE(schedule->unit_run);
    schedule->unit_run_capacity = 0;
    schedule->unit_count = 0;
}
