/* The convergence of one sub-step: see converge.h. */
#include "converge.h"

#include <stdlib.h>
#include <string.h>

#include "timer.h"

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

int op_converge(op_ctx *ctx, op_scene *scene, op_scene *study, int frames, int iterations, double *seconds,
                double *energy)
{
    if (frames < 0 || frames > OP_CONVERGE_MAX_FRAMES)
        return OP_FAIL(ctx, OP_ERR_USAGE, "frame %d: give a whole number of frames from 0 to %d", frames,
                       OP_CONVERGE_MAX_FRAMES);
    if (iterations < 1 || iterations > OP_CONVERGE_MAX_ITERATIONS)
        return OP_FAIL(ctx, OP_ERR_USAGE, "%d iterations: give a whole number from 1 to %d", iterations,
                       OP_CONVERGE_MAX_ITERATIONS);
    if (!seconds || !energy)
        return OP_FAIL(ctx, OP_ERR_USAGE, "op_converge needs arrays for the energies and times");
    if (study == scene)
        study = NULL;
    if (study && check_compatible(ctx, &scene->world, &study->world) != OP_OK)
        return ctx->status;
    op_world *w = &scene->world;
    w->def.log_energy = 0;
    op_frame_stats stats = { 0 };
    for (int f = 0; f < frames; ++f)
        if (op_world_step(ctx, w, &stats) != OP_OK)
            return ctx->status;
    if (study) {
        study->world.def.log_energy = 0;
        if (take_state(ctx, &study->world, w) != OP_OK)
            return ctx->status;
        w = &study->world;
    }
    double h = w->def.frame_time / w->def.substeps;
    if (op_world_begin_substep(ctx, w, h) != OP_OK)
        return ctx->status;
    op_stage_times times = { 0 };
    seconds[0] = 0.0;
    energy[0] = op_world_energy(w, h, NULL);
    for (int k = 0; k < iterations; ++k) {
        double start = op_now();
        int status = op_world_iterate(ctx, w, h, k, &times);
        double spent = op_now() - start;
        if (status != OP_OK)
            return ctx->status;
        seconds[k + 1] = seconds[k] + spent;
        energy[k + 1] = op_world_energy(w, h, NULL);
    }
    return OP_OK;
}
