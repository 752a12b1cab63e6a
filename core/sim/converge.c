/* The convergence of one sub-step: see converge.h. */
#include "sim/converge.h"

#include <stdlib.h>
#include <string.h>

#include "base/timer.h"

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

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
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
    double *one = op_calloc(ctx, (size_t)repeats, sizeof(double));
    for (int r = 0; r < repeats && ctx->status == OP_OK; ++r) {
        if (study) {
            study->world.def.log_energy = 0;
            if (take_state(ctx, &study->world, w) != OP_OK)
                break;
        }
        if (study_substep(ctx, study ? &study->world : w, iterations, &took[(size_t)r * (size_t)iterations],
                          r == 0 ? energy : again) != OP_OK)
            break;
        if (r > 0 && memcmp(again, energy, ((size_t)iterations + 1) * sizeof(double)) != 0)
            OP_FAIL(ctx, OP_ERR_INVALID, "repeat %d of the studied sub-step gave other energies than the first", r + 1);
    }
    if (ctx->status == OP_OK) {
        seconds[0] = 0.0;
        for (int k = 0; k < iterations; ++k) {
            for (int r = 0; r < repeats; ++r)
                one[r] = took[(size_t)r * (size_t)iterations + (size_t)k];
            qsort(one, (size_t)repeats, sizeof *one, compare_double);
            double median = repeats % 2 ? one[repeats / 2] : 0.5 * (one[repeats / 2 - 1] + one[repeats / 2]);
            seconds[k + 1] = seconds[k] + median;
        }
    }
    free(took);
    free(again);
    free(one);
    return ctx->status;
}
