/* The convergence of one sub-step: see converge.h. */
#include "sim/converge.h"

#include <stdlib.h>
#include <string.h>

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

/* The studied sub-step in world w: energies into energy[0 … iterations], each iteration's time
 * into took[k]. */
static int study_substep(op_ctx *ctx, op_world *w, int iterations, double *took, double *energy)
{
    double h = w->def.frame_time / w->def.substeps;
    if (op_world_begin_substep(ctx, w, h) != OP_OK)
        return ctx->status;
    op_stage_times times = { 0 };
    energy[0] = op_world_energy(w, h, NULL);
    for (int k = 0; k < iterations; ++k) {
        double start = op_now();
        int status = op_world_iterate(ctx, w, h, k, &times);
        took[k] = op_now() - start;
        if (status != OP_OK)
            return ctx->status;
        energy[k + 1] = op_world_energy(w, h, NULL);
    }
    return OP_OK;
}

int op_converge(op_ctx *ctx, op_scene *scene, op_scene *study, int frames, int iterations, double *seconds,
                double *energy)
{
    return op_converge_repeated(ctx, scene, study, frames, iterations, 1, seconds, energy);
}

int op_converge_repeated(op_ctx *ctx, op_scene *scene, op_scene *study, int frames, int iterations, int repeats,
                         double *seconds, double *energy)
{
    return op_converge_timed(ctx, scene, study, frames, iterations, repeats, seconds, energy, NULL);
}

/* The solves: with repeats > 1 an untimed one first, then repeat r's iteration times into
 * took[r·iterations …], its wall and thread CPU time into wall[r], cpu[r], the first timed
 * repeat's energies into energy and every other's checked against them. */
static int solve_repeats(op_ctx *ctx, op_world *w, op_scene *study, int iterations, int repeats, double *took,
                         double *wall, double *cpu, double *energy, double *again)
{
    for (int r = repeats > 1 ? -1 : 0; r < repeats && ctx->status == OP_OK; ++r) {
        if (study) {
            study->world.def.log_energy = 0;
            if (take_state(ctx, &study->world, w) != OP_OK)
                break;
        }
        double *times = &took[(size_t)(r < 0 ? 0 : r) * (size_t)iterations];
        double start = op_now(), cpu_start = op_thread_cpu_seconds();
        if (study_substep(ctx, study ? &study->world : w, iterations, times, r == 0 ? energy : again) != OP_OK)
            break;
        if (r >= 0) {
            wall[r] = op_now() - start;
            cpu[r] = op_thread_cpu_seconds() - cpu_start;
        }
        if (r > 0 && memcmp(again, energy, ((size_t)iterations + 1) * sizeof(double)) != 0)
            OP_FAIL(ctx, OP_ERR_INVALID, "repeat %d of the studied sub-step gave other energies than the first", r + 1);
    }
    return ctx->status;
}

int op_converge_timed(op_ctx *ctx, op_scene *scene, op_scene *study, int frames, int iterations, int repeats,
                      double *seconds, double *energy, const op_converge_spread *spread)
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
    if (!seconds || !energy)
        return OP_FAIL(ctx, OP_ERR_USAGE, "op_converge needs arrays for the energies and times");
    if (study == scene)
        study = NULL;
    if (repeats > 1 && !study)
        return OP_FAIL(ctx, OP_ERR_USAGE, "repeating the studied sub-step needs a study world to take the state");
    if (study && check_compatible(ctx, &scene->world, &study->world) != OP_OK)
        return ctx->status;
    op_world *w = &scene->world;
    w->def.log_energy = 0;
    op_frame_stats stats = { 0 };
    for (int f = 0; f < frames; ++f)
        if (op_world_step(ctx, w, &stats) != OP_OK)
            return ctx->status;
    double *took = op_calloc(ctx, (size_t)iterations * (size_t)repeats, sizeof(double));
    double *again = op_calloc(ctx, (size_t)iterations + 1, sizeof(double));
    double *to_k = op_calloc(ctx, (size_t)repeats * (size_t)iterations, sizeof(double));
    double *one = op_calloc(ctx, (size_t)repeats, sizeof(double));
    double *wall = op_calloc(ctx, (size_t)repeats, sizeof(double)), *cpu = op_calloc(ctx, (size_t)repeats, sizeof(double));
    if (ctx->status == OP_OK &&
        solve_repeats(ctx, w, study, iterations, repeats, took, wall, cpu, energy, again) == OP_OK) {
        /* each repeat's time to the end of iteration k, then their median and interval per k */
        for (int r = 0; r < repeats; ++r)
            for (int k = 0; k < iterations; ++k)
                to_k[(size_t)r * (size_t)iterations + (size_t)k] =
                    (k ? to_k[(size_t)r * (size_t)iterations + (size_t)k - 1] : 0.0) +
                    took[(size_t)r * (size_t)iterations + (size_t)k];
        seconds[0] = 0.0;
        for (int k = 0; k <= iterations; ++k) {
            for (int r = 0; k > 0 && r < repeats; ++r)
                one[r] = to_k[(size_t)r * (size_t)iterations + (size_t)k - 1];
            op_timing_summary s = k > 0 ? op_timing_summarize(one, repeats)
                                        : (op_timing_summary){ .n = repeats, .noisy = repeats < OP_TIMING_MIN_SAMPLES };
            seconds[k] = s.median;
            if (spread && spread->lo)
                spread->lo[k] = s.lo;
            if (spread && spread->hi)
                spread->hi[k] = s.hi;
            if (spread && spread->noisy)
                spread->noisy[k] = s.noisy;
        }
        for (int r = 0; spread && r < repeats; ++r) {
            if (spread->wall)
                spread->wall[r] = wall[r];
            if (spread->cpu)
                spread->cpu[r] = cpu[r];
        }
    }
    free(took);
    free(again);
    free(to_k);
    free(one);
    free(wall);
    free(cpu);
    return ctx->status;
}
