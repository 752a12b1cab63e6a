/* The convergence of one sub-step: see converge.h. */
#include "sim/converge.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/probe.h"
#include "base/timer.h"
#include "base/timing_stats.h"

static int check_compatible(op_ctx *ctx, const op_world *a, const op_world *b)
{
    if (a->def.frame_time != b->def.frame_time || a->def.substeps != b->def.substeps)
        return OP_FAIL(ctx, OP_ERR_INVALID, "the studied sub-step's world has another frame time or sub-step count");
    if (a->body_count != b->body_count)
        return OP_FAIL(ctx, OP_ERR_INVALID, "the studied sub-step's world has %d bodies, the run %d", b->body_count,
                       a->body_count);
    for (int i = 0; i < a->body_count; ++i) {
        const op_body *x = &a->bodies[i], *y = &b->bodies[i];
        if (strcmp(x->name, y->name) != 0 || x->graph->particle_count != y->graph->particle_count ||
            x->stiffness != y->stiffness)
            return OP_FAIL(ctx, OP_ERR_INVALID, "body %s of the studied sub-step's world differs from the run's",
                           y->name);
    }
    return OP_OK;
}

/* The study world takes the run's state and makes its solver states afresh on it. */
static int take_state(op_ctx *ctx, op_world *to, const op_world *from)
{
    for (int b = 0; b < from->body_count; ++b) {
        const op_state *s = &from->bodies[b].state;
        op_state *t = &to->bodies[b].state;
        size_t n = (size_t)s->particle_count;
        memcpy(t->position, s->position, 3 * n * sizeof(double));
        memcpy(t->rotation, s->rotation, 9 * n * sizeof(double));
        memcpy(t->velocity, s->velocity, 3 * n * sizeof(double));
        memcpy(t->rotation_rate, s->rotation_rate, 9 * n * sizeof(double));
    }
    to->time = from->time;
    to->frame = from->frame;
    to->substep = from->substep;
    return op_world_remake_solver_states(ctx, to);
}

/* Every body's positions, one after another, into x (NULL: their count). */
static size_t gather_positions(const op_world *w, double *x)
{
    size_t used = 0;
    for (int b = 0; b < w->body_count; ++b) {
        size_t n = 3 * (size_t)w->bodies[b].state.particle_count;
        if (x)
            memcpy(&x[used], w->bodies[b].state.position, n * sizeof(double));
        used += n;
    }
    return used;
}

/* ‖x − y‖ over every body's positions against y[] (gather_positions' order). */
static double distance_to(const op_world *w, const double *y)
{
    double sum = 0.0;
    size_t c = 0;
    for (int b = 0; b < w->body_count; ++b) {
        const op_state *s = &w->bodies[b].state;
        for (int i = 0; i < 3 * s->particle_count; ++i, ++c) {
            double d = s->position[i] - y[c];
            sum += d * d;
        }
    }
    return sqrt(sum);
}

/* What the studied sub-step records besides the times: energies into energy[0 … iterations] and,
 * with a fixed point x*, the distances ‖x_k − x*‖ into distance[0 … iterations]. */
typedef struct study_record {
    double *energy;
    const double *fixed;
    double *distance;
} study_record;

static void record_iterate(const op_world *w, double h, int k, const study_record *out)
{
    out->energy[k] = op_world_energy(w, h, NULL);
    if (out->fixed)
        out->distance[k] = distance_to(w, out->fixed);
}

/* The studied sub-step in world w, each iteration's time into took[k]. */
static int study_substep(op_ctx *ctx, op_world *w, int iterations, double *took, const study_record *out)
{
    double h = w->def.frame_time / w->def.substeps;
    if (op_world_begin_substep(ctx, w, h) != OP_OK)
        return ctx->status;
    op_stage_times times = { 0 };
    record_iterate(w, h, 0, out);
    for (int k = 0; k < iterations; ++k) {
        double start = op_now();
        int status = op_world_iterate(ctx, w, h, k, &times);
        took[k] = op_now() - start;
        if (status != OP_OK)
            return ctx->status;
        record_iterate(w, h, k + 1, out);
    }
    return OP_OK;
}

/* The variant's own fixed point of the sub-step in the study world (after it took the scene's
 * state): x* into fixed, x_1 into first, x_{N−1} into before_last. */
static int solve_to_fixed_point(op_ctx *ctx, op_world *study, const op_world *from, int iterations, double *fixed,
                                double *first, double *before_last)
{
    if (take_state(ctx, study, from) != OP_OK)
        return ctx->status;
    double h = study->def.frame_time / study->def.substeps;
    if (op_world_begin_substep(ctx, study, h) != OP_OK)
        return ctx->status;
    op_stage_times times = { 0 };
    for (int k = 0; k < iterations; ++k) {
        if (k == iterations - 1)
            gather_positions(study, before_last);
        if (op_world_iterate(ctx, study, h, k, &times) != OP_OK)
            return ctx->status;
        if (k == 0)
            gather_positions(study, first);
    }
    gather_positions(study, fixed);
    return OP_OK;
}

int op_converge_reached(const double *r, int count, double tolerance)
{
    int reached = -1;
    for (int k = count - 1; k >= 0 && r[k] <= tolerance; --k)
        reached = k;
    return reached;
}

int op_converge(op_ctx *ctx, op_scene *scene, op_scene *study, int frames, int iterations, double *seconds,
                double *energy)
{
    return op_converge_repeated(ctx, scene, study, frames, iterations, 1, seconds, energy);
}

int op_converge_repeated(op_ctx *ctx, op_scene *scene, op_scene *study, int frames, int iterations, int repeats,
                         double *seconds, double *energy)
{
    return op_converge_study(ctx, scene, study, frames, iterations, repeats, seconds, energy, NULL, NULL);
}

int op_converge_timed(op_ctx *ctx, op_scene *scene, op_scene *study, int frames, int iterations, int repeats,
                      double *seconds, double *energy, const op_converge_spread *spread)
{
    return op_converge_study(ctx, scene, study, frames, iterations, repeats, seconds, energy, spread, NULL);
}

int op_converge_to_fixed_point(op_ctx *ctx, op_scene *scene, op_scene *study, int frames, int iterations, int repeats,
                               double *seconds, double *energy, op_converge_fixed_point *fixed)
{
    return op_converge_study(ctx, scene, study, frames, iterations, repeats, seconds, energy, NULL, fixed);
}

/* error[] and the rest of *fixed from the distances and the stored positions */
static void finish_fixed_point(op_converge_fixed_point *fixed, int iterations, const double *distance,
                               const double *first, const double *before_last, const double *x_star, size_t count)
{
    double scale = distance[0], first_step = 0.0, last = 0.0;
    for (int k = 0; k <= iterations; ++k)
        fixed->error[k] = scale > 0.0 ? distance[k] / scale : 0.0;
    for (size_t c = 0; c < count; ++c) {
        last += (x_star[c] - before_last[c]) * (x_star[c] - before_last[c]);
        first_step += (first[c] - x_star[c]) * (first[c] - x_star[c]);
    }
    fixed->last_step = scale > 0.0 ? sqrt(last) / scale : 0.0;
    fixed->single_update = scale > 0.0 && first_step == 0.0;
}

/* What one subject's solves need besides its outputs: each timed repeat's iteration times
 * (took[r·iterations + k]), its wall, thread CPU and start time, the energies of a later repeat
 * (again, checked against the first's) and, with a fixed point, x*, x_1, x_{N−1} and the
 * distances ‖x_k − x*‖ of the first timed repeat. */
typedef struct subject_work {
    double *took, *wall, *cpu, *start, *again;
    double *x_star, *first, *before_last, *distance;
} subject_work;

static void free_work(subject_work *work)
{
    free(work->took);
    free(work->wall);
    free(work->cpu);
    free(work->start);
    free(work->again);
    free(work->x_star);
    free(work->first);
    free(work->before_last);
    free(work->distance);
}

static int alloc_work(op_ctx *ctx, subject_work *work, const op_converge_subject *subject, int iterations,
                      int repeats, size_t count)
{
    size_t n = (size_t)iterations + 1, r = (size_t)repeats;
    work->took = op_calloc(ctx, (size_t)iterations * r, sizeof(double));
    work->wall = op_calloc(ctx, r, sizeof(double));
    work->cpu = op_calloc(ctx, r, sizeof(double));
    work->start = op_calloc(ctx, r, sizeof(double));
    work->again = op_calloc(ctx, n, sizeof(double));
    if (subject->fixed) {
        work->x_star = op_calloc(ctx, count, sizeof(double));
        work->first = op_calloc(ctx, count, sizeof(double));
        work->before_last = op_calloc(ctx, count, sizeof(double));
        work->distance = op_calloc(ctx, n, sizeof(double));
    }
    return ctx->status;
}

/* Solve r of a subject (−1: the untimed warm-up) from the scene's state w: repeat r's iteration
 * times, wall, thread CPU and start time (after `origin`) into its work; the first timed
 * repeat's energies into subject->energy (and, with a fixed point, its distances to x*), every
 * later one's checked against them. */
static int solve_once(op_ctx *ctx, op_world *w, const op_converge_subject *subject, subject_work *work,
                      int iterations, int r, double origin)
{
    op_scene *study = subject->study;
    if (study) {
        study->world.def.log_energy = 0;
        if (take_state(ctx, &study->world, w) != OP_OK)
            return ctx->status;
    }
    double *times = &work->took[(size_t)(r < 0 ? 0 : r) * (size_t)iterations];
    double start = op_now(), cpu_start = op_thread_cpu_seconds();
    study_record out = { .energy = r == 0 ? subject->energy : work->again,
                         .fixed = r == 0 ? work->x_star : NULL,
                         .distance = work->distance };
    if (study_substep(ctx, study ? &study->world : w, iterations, times, &out) != OP_OK)
        return ctx->status;
    if (r >= 0) {
        work->wall[r] = op_now() - start;
        work->cpu[r] = op_thread_cpu_seconds() - cpu_start;
        work->start[r] = start - origin;
    }
    if (r > 0 && memcmp(work->again, subject->energy, ((size_t)iterations + 1) * sizeof(double)) != 0)
        OP_FAIL(ctx, OP_ERR_INVALID, "repeat %d of the studied sub-step gave other energies than the first", r + 1);
    return ctx->status;
}

int op_converge_turn(int round, int position, int count)
{
    return (round + position) % count;
}

/* Round r (−1: the untimed warm-up) of a job's subjects, in op_converge_turn's order; round 0's
 * first solve sets the job's origin of the repeats' start times. A failing subject is marked. */
static int solve_round(op_ctx *ctx, op_converge_job *job, subject_work *work, int r, double *origin)
{
    for (int position = 0; position < job->count; ++position) {
        int s = op_converge_turn(r < 0 ? 0 : r, position, job->count);
        if (r == 0 && position == 0)
            *origin = op_now();
        if (solve_once(ctx, &job->scene->world, &job->subject[s], &work[s], job->iterations, r, *origin) != OP_OK) {
            job->subject[s].failed = 1;
            return ctx->status;
        }
    }
    return OP_OK;
}

/* A subject's seconds[k]: the median over the repeats of each repeat's time to the end of
 * iteration k, with its interval and noisy mark, and each repeat's wall, CPU and start time,
 * into its spread; its error[] from the distances. */
static int summarise(op_ctx *ctx, const op_converge_subject *subject, const subject_work *work, int iterations,
                     int repeats, size_t count)
{
    double *to_k = op_calloc(ctx, (size_t)repeats * (size_t)iterations, sizeof(double));
    double *one = op_calloc(ctx, (size_t)repeats, sizeof(double));
    const op_converge_spread *spread = subject->spread;
    if (ctx->status == OP_OK) {
        for (int r = 0; r < repeats; ++r)
            for (int k = 0; k < iterations; ++k)
                to_k[(size_t)r * (size_t)iterations + (size_t)k] =
                    (k ? to_k[(size_t)r * (size_t)iterations + (size_t)k - 1] : 0.0) +
                    work->took[(size_t)r * (size_t)iterations + (size_t)k];
        subject->seconds[0] = 0.0;
        for (int k = 0; k <= iterations; ++k) {
            for (int r = 0; k > 0 && r < repeats; ++r)
                one[r] = to_k[(size_t)r * (size_t)iterations + (size_t)k - 1];
            op_timing_summary s = k > 0 ? op_timing_summarize(one, repeats)
                                        : (op_timing_summary){ .n = repeats, .noisy = repeats < OP_TIMING_MIN_SAMPLES };
            subject->seconds[k] = s.median;
            if (spread && spread->lo)
                spread->lo[k] = s.lo;
            if (spread && spread->hi)
                spread->hi[k] = s.hi;
            if (spread && spread->noisy)
                spread->noisy[k] = s.noisy;
        }
        for (int r = 0; spread && r < repeats; ++r) {
            if (spread->wall)
                spread->wall[r] = work->wall[r];
            if (spread->cpu)
                spread->cpu[r] = work->cpu[r];
            if (spread->start)
                spread->start[r] = work->start[r];
        }
        if (subject->fixed)
            finish_fixed_point(subject->fixed, iterations, work->distance, work->first, work->before_last,
                               work->x_star, count);
    }
    free(to_k);
    free(one);
    return ctx->status;
}

/* The arguments' checks, before anything runs: OP_ERR_USAGE or OP_ERR_INVALID naming what is
 * wrong (a subject's failure marks it). */
static int check_arguments(op_ctx *ctx, op_scene *scene, op_converge_subject *subject, int count, int frames,
                           int iterations, int repeats)
{
    if (frames < 0 || frames > OP_CONVERGE_MAX_FRAMES)
        return OP_FAIL(ctx, OP_ERR_USAGE, "frame %d: give a whole number of frames from 0 to %d", frames,
                       OP_CONVERGE_MAX_FRAMES);
    if (iterations < 1 || iterations > OP_CONVERGE_MAX_ITERATIONS)
        return OP_FAIL(ctx, OP_ERR_USAGE, "%d iterations: give a whole number from 1 to %d", iterations,
                       OP_CONVERGE_MAX_ITERATIONS);
    if (repeats < 1 || repeats > OP_CONVERGE_MAX_REPEATS)
        return OP_FAIL(ctx, OP_ERR_USAGE, "%d repeats: give a whole number from 1 to %d", repeats,
                       OP_CONVERGE_MAX_REPEATS);
    if (count < 1 || count > OP_CONVERGE_MAX_STUDIES || !subject)
        return OP_FAIL(ctx, OP_ERR_USAGE, "%d studied solvers: give 1 to %d", count, OP_CONVERGE_MAX_STUDIES);
    for (int s = 0; s < count && ctx->status == OP_OK; ++s) {
        op_converge_subject *one = &subject[s];
        one->failed = 1;
        if (one->study == scene)
            one->study = NULL;
        if (!one->seconds || !one->energy)
            OP_FAIL(ctx, OP_ERR_USAGE, "op_converge needs arrays for the energies and times");
        else if (count > 1 && !one->study)
            OP_FAIL(ctx, OP_ERR_USAGE, "studying several solvers needs a study world for each");
        else if (repeats > 1 && !one->study)
            OP_FAIL(ctx, OP_ERR_USAGE, "repeating the studied sub-step needs a study world to take the state");
        else if (one->fixed && !one->study)
            OP_FAIL(ctx, OP_ERR_USAGE, "the studied variant's fixed point needs a study world to take the state");
        else if (one->fixed && (one->fixed->iterations < 1 || one->fixed->iterations > OP_CONVERGE_MAX_ITERATIONS ||
                                !one->fixed->error))
            OP_FAIL(ctx, OP_ERR_USAGE, "%d fixed-point iterations: give a whole number from 1 to %d",
                    one->fixed->iterations, OP_CONVERGE_MAX_ITERATIONS);
        else if (one->study)
            check_compatible(ctx, &scene->world, &one->study->world);
        one->failed = ctx->status != OP_OK;
    }
    return ctx->status;
}

int op_converge_studies(op_ctx *ctx, op_scene *scene, op_converge_subject *subject, int count, int frames,
                        int iterations, int repeats)
{
    return op_converge_studies_probed(ctx, scene, subject, count, frames, iterations, repeats, NULL);
}

int op_converge_studies_probed(op_ctx *ctx, op_scene *scene, op_converge_subject *subject, int count, int frames,
                               int iterations, int repeats, const op_converge_probe *probe)
{
    op_converge_job job = { .scene = scene, .subject = subject, .count = count, .frames = frames,
                            .iterations = iterations, .repeats = repeats };
    return op_converge_jobs(ctx, &job, 1, probe);
}

/* What a job's solves need: each subject's work, the positions' count and the repeats' origin. */
typedef struct job_work {
    subject_work *work;
    size_t positions;
    double origin;
} job_work;

/* A job's checks, its frames, its subjects' work and fixed points: all before any timed solve. */
static int prepare_job(op_ctx *ctx, op_converge_job *job, job_work *jw)
{
    if (check_arguments(ctx, job->scene, job->subject, job->count, job->frames, job->iterations, job->repeats) !=
        OP_OK)
        return ctx->status;
    op_world *w = &job->scene->world;
    w->def.log_energy = 0;
    op_frame_stats stats = { 0 };
    for (int f = 0; f < job->frames; ++f)
        if (op_world_step(ctx, w, &stats) != OP_OK)
            return ctx->status;
    jw->positions = gather_positions(w, NULL);
    jw->work = op_calloc(ctx, (size_t)job->count, sizeof *jw->work);
    for (int s = 0; s < job->count && ctx->status == OP_OK; ++s)
        alloc_work(ctx, &jw->work[s], &job->subject[s], job->iterations, job->repeats, jw->positions);
    for (int s = 0; s < job->count && ctx->status == OP_OK; ++s) {
        op_converge_subject *one = &job->subject[s];
        if (!one->fixed)
            continue;
        one->study->world.def.log_energy = 0;
        if (solve_to_fixed_point(ctx, &one->study->world, w, one->fixed->iterations, jw->work[s].x_star,
                                 jw->work[s].first, jw->work[s].before_last) != OP_OK)
            one->failed = 1;
    }
    return ctx->status;
}

/* Every job's rounds, round by round across the jobs (converge.h); the probe first in each timed
 * round. A failing job is marked. */
static int solve_jobs(op_ctx *ctx, op_converge_job *job, job_work *jw, int job_count, const op_converge_probe *probe)
{
    int rounds = 0, warm_up = 0;
    for (int j = 0; j < job_count; ++j) {
        rounds = job[j].repeats > rounds ? job[j].repeats : rounds;
        warm_up |= job[j].repeats > 1;
    }
    double origin = 0.0;
    for (int r = warm_up ? -1 : 0; r < rounds; ++r) {
        if (r == 0)
            origin = op_now();
        if (r >= 0 && probe) {
            probe->started[r] = op_now() - origin;
            probe->ms[r] = op_probe_ms(NULL);
        }
        for (int j = 0; j < job_count; ++j)
            if (r < job[j].repeats && (r >= 0 || job[j].repeats > 1) &&
                solve_round(ctx, &job[j], jw[j].work, r, &jw[j].origin) != OP_OK) {
                job[j].failed = 1;
                return ctx->status;
            }
    }
    return OP_OK;
}

int op_converge_jobs(op_ctx *ctx, op_converge_job *job, int job_count, const op_converge_probe *probe)
{
    if (job_count < 1 || !job)
        return OP_FAIL(ctx, OP_ERR_USAGE, "%d jobs: give one or more", job_count);
    job_work *jw = op_calloc(ctx, (size_t)job_count, sizeof *jw);
    for (int j = 0; j < job_count; ++j)
        job[j].failed = 0;
    for (int j = 0; jw && j < job_count && ctx->status == OP_OK; ++j)
        job[j].failed = prepare_job(ctx, &job[j], &jw[j]) != OP_OK;
    if (ctx->status == OP_OK && solve_jobs(ctx, job, jw, job_count, probe) == OP_OK)
        for (int j = 0; j < job_count && ctx->status == OP_OK; ++j)
            for (int s = 0; s < job[j].count && ctx->status == OP_OK; ++s)
                summarise(ctx, &job[j].subject[s], &jw[j].work[s], job[j].iterations, job[j].repeats,
                          jw[j].positions);
    for (int j = 0; jw && j < job_count; ++j) {
        for (int s = 0; jw[j].work && s < job[j].count; ++s)
            free_work(&jw[j].work[s]);
        free(jw[j].work);
    }
    free(jw);
    return ctx->status;
}

int op_converge_study(op_ctx *ctx, op_scene *scene, op_scene *study, int frames, int iterations, int repeats,
                      double *seconds, double *energy, const op_converge_spread *spread, op_converge_fixed_point *fixed)
{
    op_converge_subject subject = { .study = study, .seconds = seconds, .energy = energy, .spread = spread,
                                    .fixed = fixed };
    return op_converge_studies(ctx, scene, &subject, 1, frames, iterations, repeats);
}
