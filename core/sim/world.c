/* The world and its frame loop: the stage list of world.h, its per-body stages shared between
 * threads, and the ownership of models, bodies, scripts and solver states; contacts are
 * core/contact/collide.c's. */
#include "opsim/world.h"

#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/math3.h"
#include "kernels/polar.h"
#include "sim/predict.h"
#include "sim/team.h"
#include "base/timer.h"

/* A sub-step's stages (world.h): every body's own, then the contacts between them. */
typedef enum op_stage {
    OP_STAGE_BODIES, /* per unit: PREDICT, BEGIN, ITERATE × n_i, UPDATE_VELOCITY, FLOOR (step_unit) */
    OP_STAGE_COLLIDE,
    OP_STAGE_COUNT
} op_stage;

op_world_def op_default_world_def(void)
{
    return (op_world_def){ .frame_time = 1.0 / 30.0,
                           .substeps = 1,
                           .iterations = 10,
                           .gravity = { 0.0, -9.81, 0.0 },
                           .floor = 0,
                           .floor_height = 0.0,
                           .friction = 0.5,
                           .collisions = 1,
                           .collision_passes = OP_COLLIDE_DEFAULT_PASSES,
                           .collision_passes_max = OP_COLLIDE_DEFAULT_PASSES_MAX,
                           .collision_order = OP_CONTACT_ORDER_COLOURS,
                           .collision_threads = OP_CONTACT_THREADS_AUTO,
                           .collision_margin = 0.0,
                           .log_energy = 1,
                           .floor_contact = OP_FLOOR_CONTACT_SUBSTEP,
                           .rotation_start = OP_ROTATION_START_RIGID };
}

int op_world_init(op_ctx *ctx, op_world *world, const op_world_def *def)
{
    memset(world, 0, sizeof *world);
    if (!(isfinite(def->frame_time) && def->frame_time > 0) || def->substeps < 1 || def->iterations < 0 ||
        !v3_isfinite(def->gravity) || !isfinite(def->floor_height) || !(def->friction >= 0) ||
        def->collision_passes < 1 || def->collision_passes_max < 0 ||
        !(isfinite(def->collision_margin) && def->collision_margin >= 0) ||
        (def->collision_order != OP_CONTACT_ORDER_COLOURS && def->collision_order != OP_CONTACT_ORDER_JACOBI) ||
        def->collision_threads < OP_CONTACT_THREADS_ALL || def->collision_threads > OP_CONTACT_THREADS_AUTO ||
        (def->floor_contact != OP_FLOOR_CONTACT_SUBSTEP && def->floor_contact != OP_FLOOR_CONTACT_ITERATION) ||
        def->rotation_start < OP_ROTATION_START_RIGID || def->rotation_start > OP_ROTATION_START_CURRENT)
        return OP_FAIL(ctx, OP_ERR_INVALID,
                       "world: frame_time must be positive, substeps at least 1, iterations not negative, "
                       "gravity and floor finite, friction not negative, collision_passes at least 1, "
                       "collision_passes_max not negative, "
                       "collision_margin finite and not negative, collision_order colours or jacobi, "
                       "collision_threads all, one or auto, "
                       "floor_contact substep or iteration, "
                       "rotation_start rigid, predicted or current");
    world->def = *def;
    world->models = op_calloc(ctx, OP_WORLD_MAX_MODELS, sizeof(op_model));
    world->bodies = op_calloc(ctx, OP_WORLD_MAX_BODIES, sizeof(op_body));
    if (ctx->status != OP_OK)
        op_world_free(world);
    return ctx->status;
}

int op_world_model(op_ctx *ctx, op_world *world, const char *catalogue, const char *name, const op_build_def *build,
                   const op_model **model)
{
    for (int m = 0; m < world->model_count; ++m)
        if (strcmp(world->models[m].name, name) == 0) {
            *model = &world->models[m];
            return OP_OK;
        }
    if (world->model_count == OP_WORLD_MAX_MODELS)
        return OP_FAIL(ctx, OP_ERR_INVALID, "world: more than %d models", OP_WORLD_MAX_MODELS);
    if (op_model_load(ctx, catalogue, name, build, &world->models[world->model_count]) != OP_OK)
        return ctx->status;
    *model = &world->models[world->model_count++];
    return OP_OK;
}

int op_world_add_body(op_ctx *ctx, op_world *world, const char *name, const op_model *model, double stiffness,
                      const double placement_rotation[9], const double placement_translation[3], op_body **body)
{
    if (world->body_count == OP_WORLD_MAX_BODIES)
        return OP_FAIL(ctx, OP_ERR_INVALID, "world: more than %d bodies", OP_WORLD_MAX_BODIES);
    for (int b = 0; b < world->body_count; ++b)
        if (strcmp(world->bodies[b].name, name) == 0)
            return OP_FAIL(ctx, OP_ERR_INVALID, "world: two bodies named '%s'", name);
    op_body *added = &world->bodies[world->body_count];
    if (op_body_init(ctx, added, name, model, stiffness, placement_rotation, placement_translation) != OP_OK)
        return ctx->status;
    world->body_count++;
    *body = added;
    return OP_OK;
}

int op_world_start(op_ctx *ctx, op_world *world, const op_solver_type *solver, const op_solver_settings *settings)
{
    world->solver = solver;
    world->solver_settings = *settings;
    if (op_solver_settings_validate(ctx, solver, &world->solver_settings) != OP_OK)
        return ctx->status;
    world->solver_state = op_calloc(ctx, (size_t)world->body_count, sizeof(void *));
    if (!world->solver_state)
        return ctx->status;
    for (int b = 0; b < world->body_count; ++b)
        if (op_body_check(ctx, &world->bodies[b]) != OP_OK)
            return ctx->status;
    if (op_accel_create(ctx, &world->solver_settings, solver, world->bodies, world->body_count, &world->accel) !=
        OP_OK)
        return ctx->status;
    world->parallel = world->body_count > 1 && op_world_particle_count(world) >= OP_WORLD_PARALLEL_MIN;
    return op_world_remake_solver_states(ctx, world);
}

/* The BODIES loop's units (world.h): in body order, each body not yet in one offers itself and
 * the next bodies of its model not yet in one to the variant's group hook, which binds some of
 * them into a group; no groups with an accelerator on (accel.h), which acts between a body's
 * iterations. */
static int form_units(op_ctx *ctx, op_world *world)
{
    int n = world->body_count;
    free(world->unit_start);
    free(world->unit_body);
    world->unit_count = 0;
    world->unit_start = op_calloc(ctx, (size_t)n + 1, sizeof(int));
    world->unit_body = op_calloc(ctx, (size_t)(n ? n : 1), sizeof(int));
    free(world->unit_cost);
    world->unit_cost = op_calloc(ctx, (size_t)(n ? n : 1), sizeof(double));
    unsigned char *placed = op_calloc(ctx, (size_t)(n ? n : 1), 1);
    if (ctx->status != OP_OK) {
        free(placed);
        return ctx->status;
    }
    int filled = 0;
    for (int b = 0; b < n && ctx->status == OP_OK; ++b) {
        if (placed[b])
            continue;
        void *solvers[OP_SOLVER_GROUP_MAX];
        op_body *bodies[OP_SOLVER_GROUP_MAX];
        int members[OP_SOLVER_GROUP_MAX], offered = 0;
        for (int a = b; a < n && offered < OP_SOLVER_GROUP_MAX; ++a)
            if (!placed[a] && world->bodies[a].model == world->bodies[b].model) {
                members[offered] = a;
                solvers[offered] = world->solver_state[a];
                bodies[offered++] = &world->bodies[a];
            }
        int grouped = 1;
        if (offered > 1 && world->solver->group && !world->accel &&
            world->solver->group(ctx, solvers, bodies, offered, &grouped) != OP_OK)
            break;
        for (int m = 0; m < grouped; ++m) {
            placed[members[m]] = 1;
            world->unit_body[filled++] = members[m];
        }
        world->unit_start[++world->unit_count] = filled;
    }
    free(placed);
    return ctx->status;
}

int op_world_remake_solver_states(op_ctx *ctx, op_world *world)
{
    void **twins = op_calloc(ctx, (size_t)world->body_count, sizeof(void *));
    if (!twins)
        return ctx->status;
    double h = world->def.frame_time / world->def.substeps;
    for (int b = 0; b < world->body_count; ++b) {
        world->solver->destroy(world->solver_state[b]);
        world->solver_state[b] = NULL;
        int twin_count = 0;
        for (int a = 0; a < b; ++a)
            if (world->bodies[a].model == world->bodies[b].model)
                twins[twin_count++] = world->solver_state[a];
        op_ctx inner;
        op_ctx_init(&inner);
        if (world->solver->create(&inner, &world->solver_settings, &world->bodies[b], h, twins, twin_count,
                                  &world->solver_state[b]) != OP_OK) {
            /* the solver's own words ("matrix is not positive definite ...") know no body or key */
            OP_FAIL(ctx, inner.status, "body %s (stiffness %g, sub-step h = %g s): %s%s", world->bodies[b].name,
                    world->bodies[b].stiffness, h, inner.message,
                    strstr(inner.message, "positive definite")
                        ? "; k h^2 against the mass spans more than double precision: lower the body's stiffness "
                          "or [world] frame_time, or raise substeps"
                        : "");
            break;
        }
    }
    free(twins);
    return ctx->status == OP_OK ? form_units(ctx, world) : ctx->status;
}

void op_world_free(op_world *world)
{
    if (world->solver_state)
        for (int b = 0; b < world->body_count; ++b)
            world->solver->destroy(world->solver_state[b]);
    OP_FREE(world->solver_state);
    OP_FREE(world->unit_start);
    OP_FREE(world->unit_body);
    OP_FREE(world->unit_cost);
    OP_FREE(world->unit_run);
    world->unit_run_capacity = 0;
    world->unit_count = 0;
    op_accel_free(&world->accel, world->body_count);
    op_collider_free(&world->collider);
    OP_FREE(world->body_energy);
    world->body_energy_capacity = 0;
    if (world->bodies)
        for (int b = 0; b < world->body_count; ++b)
            op_body_free(&world->bodies[b]);
    if (world->models)
        for (int m = 0; m < world->model_count; ++m)
            op_model_free(&world->models[m]);
    OP_FREE(world->bodies);
    OP_FREE(world->models);
    world->body_count = world->model_count = 0;
}

int op_world_particle_count(const op_world *world)
{
    int total = 0;
    for (int b = 0; b < world->body_count; ++b)
        total += world->bodies[b].graph->particle_count;
    return total;
}

/* x and R as the sub-step starts, for UPDATE_VELOCITY and the contacts' static friction */
static void keep_start(op_body *body)
{
    size_t n = (size_t)body->graph->particle_count;
    memcpy(body->start_position, body->state.position, 3 * n * sizeof(double));
    memcpy(body->start_rotation, body->state.rotation, 9 * n * sizeof(double));
}

/* predict_start (below) after the particles' loop (turning: whether it found the body turning;
 * sums: the fit's): the pins' values held, then M, or the predicted rotations */
static int predict_fit(op_world *world, op_body *body, int turning, op_rigid_fit_sums *sums, double M[9])
{
    for (int p = 0; p < body->pin_count; ++p) {
        const op_pin *pin = &body->pins[p];
        if (pin->hold_position) {
            v3_copy(&body->state.position[3 * pin->particle], pin->position);
            v3_copy(&body->inertial_position[3 * pin->particle], pin->position);
        }
        if (pin->hold_rotation)
            m3_copy(&body->state.rotation[9 * pin->particle], pin->rotation);
    }
    if (turning && world->def.rotation_start == OP_ROTATION_START_RIGID) {
        m3_add_outer(sums->spread, -1.0 / sums->mass, sums->d, sums->e); /* Σ m (d − d̄)(e − ē)ᵀ */
        for (int k = 0; k < 9; ++k)
            M[k] = sums->spread[k] + body->graph->density * sums->spin[k];
        return 1;
    }
    if (turning && world->def.rotation_start == OP_ROTATION_START_PREDICTED) {
        for (int i = 0; i < body->graph->particle_count; ++i)
            if (!body->rotation_pinned[i])
                op_polar_rotation_predicted(&body->state.rotation[9 * i], &body->inertial_rotation[9 * i],
                                            &body->state.rotation[9 * i]);
    }
    return 0;
}

/* y = x + h v + h² g, Y = R + h Ṙ; the iterations start from x = y and from rotations chosen by
 * rotation_start (world.h; docs/method.md, "The starting guess"), with pinned values held. A body
 * moving as a rigid translation (every Ṙ_i zero, every v_i the same) keeps R bit for bit, so a
 * body at rest stays exactly at rest. Constraint targets are those of the sub-step's end time.
 *
 * rotation_start = rigid turns every free R_i by Q, the body's turn over the sub-step as its
 * momentum predicts it: the rotation of the best rigid fit of the state its velocities carry it
 * to, (p, Y) with p_i = x_i + h v_i, to its state at the sub-step's start (x, R), every material
 * point of the ellipsoids weighted by its mass,
 *   Q = polar( Σ m_i (p_i − p̄)(x_i − x̄)ᵀ + ρ Σ Y_i Ā_i R_iᵀ ),
 * the minimiser over rotations of Σ m_i ‖Q (x_i − x̄) − (p_i − p̄)‖² + ρ ‖(Q R_i − Y_i) Ē_i A_i^½‖².
 * The sums are gathered in the prediction's own loop (core/sim/predict.c, four particles at a time in
 * AVX lanes), the positions relative to the first particle's so that a body far from the origin
 * loses no digits.
 * The fit and the turn cost about as much as the rest of the prediction: on the 180-model scene
 * (one thread, perf's cpu-clock samples) predict took 1.4 % of the run's samples against 0.7 % with
 * rotation_start = current, and arap's begin_substep, which refreshes what it caches from the
 * turned rotations, 1.6 % against 1.0 %.
 * Gravity's h² g is left out of p: it turns no free body, and on a pinned one (the Fig. 3 bar) it
 * would read the free end's fall as a turn about the pin, which is the solve's to make, not the
 * guess's: taken in, it moved the bar's 5-iteration steady state at 64k from 7.7 to 12.4 times its
 * static deflection.
 * predict_start does it up to the rigid turn: it returns whether the body turns, the matrix
 * whose polar rotation is Q in M. */
static int predict_start(op_world *world, op_body *body, double h, double M[9])
{
    keep_start(body);
    int fit = world->def.rotation_start == OP_ROTATION_START_RIGID;
    /* the rigid fit's sums (core/sim/predict.h), relative to the first particle's start position */
    op_rigid_fit_sums sums = { 0 };
    int turning = op_predict_particles(body, h, world->def.gravity, body->start_position, fit ? &sums : NULL);
    return predict_fit(world, body, turning, &sums, M);
}

/* The constraint targets at t_end, the last of PREDICT */
static void move_targets(op_world *world, op_body *body, double t_end)
{
    for (int c = 0; c < body->constraint_count; ++c) {
        op_constraint *con = &body->constraints[c];
        const op_script *script = con->script >= 0 ? &world->scripts[con->script] : NULL;
        if (!script)
            v3_copy(con->target, con->anchor);
        else if (con->kind == OP_CONSTRAINT_POSITION)
            op_script_move_point(script, t_end, con->anchor, con->target);
        else
            op_script_move_direction(script, t_end, con->anchor, con->target);
    }
}

static void predict(op_world *world, op_body *body, double h, double t_end)
{
    double M[9], Q[9];
    if (predict_start(world, body, h, M)) {
        op_polar_rotation(M, Q);
        op_predict_turn(body, Q);
    }
    move_targets(world, body, t_end);
}

/* PREDICT for unit u's bodies, body by body, but with four bodies (a group) the polar
 * rotations of their rigid turns side by side (op_polar_rotation4: the closed form is a chain
 * of square roots and divisions, about 70 ns a body alone on the 180-model pile), each
 * bitwise what predict gives; and where the four have no pins, their particles' loops and turns
 * side by side too (op_predict_particles4, op_predict_turn4: on the 180-model pile PREDICT went
 * from 16.5 to 14.2 ns a particle and sub-step on one thread; no particle is left over for the
 * one-at-a-time code, and each body's sums need no transposes). */
static void predict_unit(op_world *world, int u, double h, double t_end)
{
    const int *members = &world->unit_body[world->unit_start[u]];
    int count = world->unit_start[u + 1] - world->unit_start[u];
    if (count != 4) {
        for (int m = 0; m < count; ++m)
            predict(world, &world->bodies[members[m]], h, t_end);
        return;
    }
    op_body *bodies[4];
    for (int m = 0; m < 4; ++m)
        bodies[m] = &world->bodies[members[m]];
    double M[4][9], Q[4][9];
    int turns[4], turning = 0, side_by_side = op_predict_bodies_unpinned(bodies);
    if (side_by_side) {
        int fit = world->def.rotation_start == OP_ROTATION_START_RIGID, moving[4];
        op_rigid_fit_sums sums[4] = { { 0 } };
        op_rigid_fit_sums *const fits[4] = { &sums[0], &sums[1], &sums[2], &sums[3] };
        const double *anchor[4];
        for (int m = 0; m < 4; ++m) {
            keep_start(bodies[m]);
            anchor[m] = bodies[m]->start_position;
        }
        op_predict_particles4(bodies, h, world->def.gravity, anchor, fit ? fits : NULL, moving);
        for (int m = 0; m < 4; ++m)
            turns[m] = predict_fit(world, bodies[m], moving[m], &sums[m], M[m]);
    } else {
        for (int m = 0; m < 4; ++m)
            turns[m] = predict_start(world, bodies[m], h, M[m]);
    }
    for (int m = 0; m < 4; ++m) {
        turning += turns[m];
        if (!turns[m]) /* its lane's result is not used */
            m3_identity(M[m]);
    }
    if (turning > 1) {
        const double *in[4] = { M[0], M[1], M[2], M[3] };
        double *out[4] = { Q[0], Q[1], Q[2], Q[3] };
        op_polar_rotation4(in, out);
    } else {
        for (int m = 0; m < 4; ++m)
            if (turns[m])
                op_polar_rotation(M[m], Q[m]);
    }
    const double *turn[4];
    for (int m = 0; m < 4; ++m)
        turn[m] = turns[m] ? Q[m] : NULL;
    if (side_by_side && turning > 0) {
        op_predict_turn4(bodies, turn);
    } else {
        for (int m = 0; m < 4; ++m)
            if (turn[m])
                op_predict_turn(bodies[m], turn[m]);
    }
    for (int m = 0; m < 4; ++m)
        move_targets(world, bodies[m], t_end);
}

/* total += e, term by term: the one order in which bodies' energies are summed */
static void add_energy(op_energy *total, const op_energy *e)
{
    total->kinetic += e->kinetic;
    total->elastic += e->elastic;
    total->constraint += e->constraint;
    total->total += e->total;
}

double op_world_energy(const op_world *world, double h, op_energy *sum)
{
    op_energy total = { 0 };
    for (int b = 0; b < world->body_count; ++b) {
        op_energy e;
        op_energy_eval(&world->bodies[b], h, &e);
        add_energy(&total, &e);
    }
    if (sum)
        *sum = total;
    return total.total;
}

/* The first failure in body order of a per-body stage that may run on several threads: each
 * body reports into a context of its own, and the one with the lowest index is kept, whatever
 * order the threads finish in. body == body_count while none failed; ctx is set only once one
 * has (not cleared before each stage: it is a kilobyte, and the stages run every iteration). */
typedef struct stage_failure {
    int body;
    op_ctx ctx;
} stage_failure;

static void no_failure(stage_failure *failure, const op_world *world)
{
    failure->body = world->body_count;
}

static void note_failure(stage_failure *failure, int body, const op_ctx *body_ctx)
{
#pragma omp critical(op_world_stage_failure)
    if (body < failure->body) {
        failure->body = body;
        failure->ctx = *body_ctx;
    }
}

/* Into the caller's context (which keeps its own first failure, as op_fail does). */
static int report_failure(op_ctx *ctx, const op_world *world, const stage_failure *failure)
{
    if (failure->body == world->body_count)
        return OP_OK;
    if (ctx->status == OP_OK)
        *ctx = failure->ctx;
    return ctx->status;
}

/* Each per-body stage is its loop twice, on a thread team when world->parallel and plainly
 * otherwise, rather than one loop with an OpenMP if clause: a parallel region whose if clause is
 * false still costs about 0.4 µs in libgomp, a few per cent of a one-body frame. */

static void stage_predict(op_world *world, double h)
{
    double t_end = world->time + h;
    if (world->parallel) {
#pragma omp parallel for schedule(dynamic)
        for (int b = 0; b < world->body_count; ++b)
            predict(world, &world->bodies[b], h, t_end);
    } else {
        for (int b = 0; b < world->body_count; ++b)
            predict(world, &world->bodies[b], h, t_end);
    }
}

static int begin_body(op_world *world, int b, double h, stage_failure *failure)
{
    op_ctx body_ctx;
    op_ctx_init(&body_ctx);
    if (world->solver->begin_substep &&
        world->solver->begin_substep(&body_ctx, world->solver_state[b], &world->bodies[b], h) != OP_OK)
        note_failure(failure, b, &body_ctx);
    return body_ctx.status;
}

/* A call of the variant's hook for a group (solver.h): unit u's members' solver states and
 * bodies in unit order, a context of the call's own and the failing member's position. */
typedef struct unit_call {
    void *solvers[OP_SOLVER_GROUP_MAX];
    op_body *bodies[OP_SOLVER_GROUP_MAX];
    op_ctx ctx;
    int failed;
} unit_call;

static void unit_call_init(const op_world *world, int u, unit_call *call)
{
    for (int m = world->unit_start[u]; m < world->unit_start[u + 1]; ++m) {
        call->solvers[m - world->unit_start[u]] = world->solver_state[world->unit_body[m]];
        call->bodies[m - world->unit_start[u]] = &world->bodies[world->unit_body[m]];
    }
    op_ctx_init(&call->ctx);
    call->failed = 0;
}

/* The call's status, its failure noted against the failing member of unit u. */
static int unit_call_end(const op_world *world, int u, const unit_call *call, stage_failure *failure)
{
    if (call->ctx.status != OP_OK)
        note_failure(failure, world->unit_body[world->unit_start[u] + call->failed], &call->ctx);
    return call->ctx.status;
}

/* The BEGIN stage of unit u's bodies, already predicted: the variant's begin_group for a group
 * when it has one, else begin_substep body by body. */
static int begin_unit(op_world *world, int u, double h, stage_failure *failure)
{
    const int *members = &world->unit_body[world->unit_start[u]];
    int count = world->unit_start[u + 1] - world->unit_start[u];
    if (count == 1 || !world->solver->begin_group) {
        int status = OP_OK;
        for (int m = 0; m < count && status == OP_OK; ++m)
            status = begin_body(world, members[m], h, failure);
        return status;
    }
    unit_call call;
    unit_call_init(world, u, &call);
    world->solver->begin_group(&call.ctx, call.solvers, call.bodies, count, h, &call.failed);
    return unit_call_end(world, u, &call, failure);
}

/* The BEGIN stage of every unit, as the world's step runs it (begin_unit), for the staged calls
 * (op_world_begin_substep). */
static int stage_begin(op_ctx *ctx, op_world *world, double h)
{
    stage_failure failure;
    no_failure(&failure, world);
    if (world->parallel) {
#pragma omp parallel for schedule(dynamic)
        for (int u = 0; u < world->unit_count; ++u)
            begin_unit(world, u, h, &failure);
    } else {
        for (int u = 0; u < world->unit_count; ++u)
            begin_unit(world, u, h, &failure);
    }
    return report_failure(ctx, world, &failure);
}

int op_world_begin_substep(op_ctx *ctx, op_world *world, double h)
{
    stage_predict(world, h);
    return stage_begin(ctx, world, h);
}

/* What the end of some bodies' sub-step leaves for COLLIDE: the floor's work (FLOOR, and the
 * projections of floor_contact = iteration): contacts, the deepest reach below the floor before
 * a push (m) and what was left below it afterwards (m); the gathering of their centres for the
 * contact call (GATHER) when the world has a COLLIDE; and the time the two took (s), which the
 * collision column counts. */
typedef struct substep_end {
    int contacts;
    double reach, left, seconds;
    op_gathered gathered;
} substep_end;

#pragma omp declare reduction(add_substep_end : substep_end : omp_out.contacts += omp_in.contacts, \
                                  omp_out.reach = op_max(omp_out.reach, omp_in.reach),     \
                                  omp_out.left = op_max(omp_out.left, omp_in.left),        \
                                  omp_out.seconds += omp_in.seconds,                       \
                                  op_gathered_add(&omp_out.gathered, &omp_in.gathered))    \
    initializer(omp_priv = { 0, 0.0, 0.0, 0.0, { 0, 0 } })

/* floor_contact = iteration: after an iteration, the unit's bodies pushed back above the floor
 * (op_floor_project), into *floor unless NULL. */
static void project_floor(op_world *world, const int *members, int count, substep_end *floor)
{
    double start = op_now(), reach = 0.0;
    for (int m = 0; m < count; ++m) {
        op_body *body = &world->bodies[members[m]];
        double deepest;
        op_floor_project(body, world->def.floor_height, body->floor_push, &deepest);
        reach = op_max(reach, deepest);
    }
    if (floor) {
        floor->reach = op_max(floor->reach, reach);
        floor->seconds += op_now() - start;
    }
}

/* Iteration k of body b, between the accelerator's before and after (accel.h) when one is on:
 * the accelerated iterate from the variant's, rotations re-synchronised with the variant when
 * they changed. Its stage times are added to *spent. */
static int iterate_body(op_world *world, int b, double h, int k, stage_failure *failure, op_stage_times *spent)
{
    op_ctx body_ctx;
    op_ctx_init(&body_ctx);
    op_body *body = &world->bodies[b];
    op_accel *accel = world->accel;
    if (accel) {
        double start = op_now();
        accel->type->before(accel, b, body, h, k);
        spent->accel += op_now() - start;
    }
    if (world->solver->iterate(&body_ctx, world->solver_state[b], body, h, spent) == OP_OK && accel) {
        double start = op_now();
        int changed_rotations;
        if (accel->type->after(&body_ctx, accel, b, body, h, k, &changed_rotations) == OP_OK && changed_rotations)
            world->solver->resync(&body_ctx, world->solver_state[b], body, h);
        spent->accel += op_now() - start;
    }
    if (body_ctx.status != OP_OK)
        note_failure(failure, b, &body_ctx);
    return body_ctx.status;
}

/* Iteration k of unit u's bodies: iterate_body for a body alone, the variant's iterate_group
 * for a group; then the floor projection when floor_contact = iteration (into *floor unless
 * NULL). */
static int iterate_unit(op_world *world, int u, double h, int k, stage_failure *failure, op_stage_times *spent,
                        substep_end *floor)
{
    const int *members = &world->unit_body[world->unit_start[u]];
    int count = world->unit_start[u + 1] - world->unit_start[u], status;
    if (count == 1) {
        status = iterate_body(world, members[0], h, k, failure, spent);
    } else {
        unit_call call;
        unit_call_init(world, u, &call);
        world->solver->iterate_group(&call.ctx, call.solvers, call.bodies, count, h, spent, &call.failed);
        status = unit_call_end(world, u, &call, failure);
    }
    if (status == OP_OK && world->def.floor && world->def.floor_contact == OP_FLOOR_CONTACT_ITERATION)
        project_floor(world, members, count, floor);
    return status;
}

/* A threaded loop's wall time into *times, shared out as the bodies' summed stage times in
 * *spent are shares of `summed` (world.h). */
static void add_apportioned(op_stage_times *times, double wall, const op_stage_times *spent, double summed)
{
    times->linear_iterations += spent->linear_iterations; /* a count: summed, not apportioned */
    if (summed > 0.0) {
        times->local += wall * (spent->local / summed);
        times->global += wall * (spent->global / summed);
        times->accel += wall * (spent->accel / summed);
    }
}

#pragma omp declare reduction(add_stage_times : op_stage_times : omp_out.local += omp_in.local, \
                                  omp_out.global += omp_in.global, omp_out.accel += omp_in.accel, \
                                  omp_out.linear_iterations += omp_in.linear_iterations) \
    initializer(omp_priv = { 0.0, 0.0, 0.0, 0 })

/* Every body's iteration k, unit by unit. On threads, the loop's wall time is apportioned to
 * the stages by their summed per-body times (world.h); on one, those sums are wall times
 * already. */
int op_world_iterate(op_ctx *ctx, op_world *world, double h, int k, op_stage_times *times)
{
    stage_failure failure;
    no_failure(&failure, world);
    if (!world->parallel) {
        for (int u = 0; u < world->unit_count; ++u)
            iterate_unit(world, u, h, k, &failure, times, NULL);
        return report_failure(ctx, world, &failure);
    }
    op_stage_times spent = { 0 }; /* summed over the bodies */
    double start = op_now();
#pragma omp parallel for schedule(dynamic) reduction(add_stage_times : spent)
    for (int u = 0; u < world->unit_count; ++u)
        iterate_unit(world, u, h, k, &failure, &spent, NULL);
    add_apportioned(times, op_now() - start, &spent, spent.local + spent.global + spent.accel);
    return report_failure(ctx, world, &failure);
}

int op_world_probe_substep(op_ctx *ctx, op_world *world, int iterations, double *change, double *scale)
{
    if (world->accel)
        return OP_FAIL(ctx, OP_ERR_USAGE, "probing the plain iteration needs %s = off", world->accel->type->name);
    int n = op_world_particle_count(world);
    double *before = op_calloc(ctx, 3 * (size_t)(n > 0 ? n : 1), sizeof(double));
    if (!before)
        return ctx->status;
    double h = world->def.frame_time / world->def.substeps;
    op_stage_times times = { 0 };
    if (op_world_begin_substep(ctx, world, h) == OP_OK)
        for (int k = 0; k < iterations; ++k) {
            for (int b = 0, offset = 0; b < world->body_count; offset += world->bodies[b++].graph->particle_count)
                memcpy(&before[3 * offset], world->bodies[b].state.position,
                       3 * (size_t)world->bodies[b].graph->particle_count * sizeof(double));
            if (op_world_iterate(ctx, world, h, k, &times) != OP_OK)
                break;
            double sum = 0.0, size = 0.0;
            for (int b = 0, offset = 0; b < world->body_count; offset += world->bodies[b++].graph->particle_count)
                for (int c = 0; c < 3 * world->bodies[b].graph->particle_count; ++c) {
                    double x = world->bodies[b].state.position[c], d = x - before[3 * offset + c];
                    sum += d * d;
                    size += x * x;
                }
            change[k] = sqrt(sum);
            *scale = sqrt(size);
        }
    free(before);
    return ctx->status;
}

int op_world_collides(const op_world *world)
{
    return world->def.collisions && world->body_count > 1;
}

int op_world_contact_threads(const op_world *world, double *handoff_ns)
{
    const op_world_def *def = &world->def;
    *handoff_ns = NAN;
    if (def->collision_threads != OP_CONTACT_THREADS_AUTO)
        return def->collision_threads;
    if (op_world_collides(world))
        *handoff_ns = op_team_handoff_ns(OP_COLLIDE_HANDOFFS);
    return op_contact_threads_for(*handoff_ns);
}

op_contact_def op_world_contact_def(const op_world *world, int threads)
{
    const op_world_def *def = &world->def;
    return (op_contact_def){ .passes = def->collision_passes,
                             .passes_max = def->collision_passes_max,
                             .order = def->collision_order,
                             .floor = def->floor,
                             .floor_height = def->floor_height,
                             .margin = def->collision_margin,
                             .friction = def->friction,
                             .threads = threads };
}

/* The body pairs (world.h, COLLIDE), after every body's FLOOR, on the frame's contact threads
 * (stats->collision_threads); floor_left is what the floor contacts left below the floor, and
 * what is left there is measured after both. */
static int stage_collide(op_ctx *ctx, op_world *world, double floor_left, const op_gathered *gathered,
                         op_frame_stats *stats)
{
    if (op_world_collides(world)) {
        op_contact_def contact = op_world_contact_def(world, stats->collision_threads);
        op_contact_stats found;
        if (op_collide_gathered_bodies(ctx, &world->collider, world->bodies, world->body_count, &contact, gathered,
                                       &found) != OP_OK)
            return ctx->status;
        stats->collision_pairs += found.pairs;
        stats->collision_contacts += found.contacts;
        stats->max_penetration = fmax(stats->max_penetration, found.max_penetration);
        /* the pairs measure the particles they moved; the floor's measure holds for the rest */
        floor_left = fmax(floor_left, found.max_floor_penetration);
    }
    stats->max_floor_penetration = fmax(stats->max_floor_penetration, floor_left);
    return OP_OK;
}

/* Unit u's stages of one sub-step (its bodies' energies into energy[b·columns + k] when energy
 * is not NULL), in order:
 *   PREDICT, BEGIN, ITERATE × n_i (the energy before the first iteration and after each),
 *   UPDATE_VELOCITY, FLOOR (into *floor);
 * each stage body by body, except BEGIN and ITERATE, one call for the unit where the variant
 * groups its bodies (begin_unit, iterate_unit). A failing stage
 * ends the unit's sub-step. Bodies do not meet before COLLIDE, so a unit's whole sub-step runs
 * without waiting for the others: one thread team a sub-step, and the unit's data stays in
 * cache from its prediction to its floor contacts. */
static void step_unit_stages(op_world *world, int u, double h, op_energy *energy, int columns,
                             stage_failure *failure, op_stage_times *spent, substep_end *floor)
{
    const int *members = &world->unit_body[world->unit_start[u]];
    int count = world->unit_start[u + 1] - world->unit_start[u];
    predict_unit(world, u, h, world->time + h);
    if (begin_unit(world, u, h, failure) != OP_OK)
        return;
    for (int m = 0; energy && m < count; ++m)
        op_energy_eval(&world->bodies[members[m]], h, &energy[members[m] * columns]);
    for (int k = 0; k < world->def.iterations; ++k) {
        if (iterate_unit(world, u, h, k, failure, spent, floor) != OP_OK)
            return;
        if (energy)
            for (int m = 0; m < count; ++m)
                op_energy_eval(&world->bodies[members[m]], h, &energy[members[m] * columns + k + 1]);
    }
    for (int m = 0; m < count; ++m)
        op_predict_update_velocity(&world->bodies[members[m]], h);
    /* timed for the unit, not body by body: a clock read costs about 9 ns (core/base/timer.h), and two
     * a body were 2,160 reads of a 180-model frame */
    if (!world->def.floor && !op_world_collides(world))
        return;
    double start = op_now();
    for (int m = 0; m < count && world->def.floor; ++m) {
        op_body *body = &world->bodies[members[m]];
        double reach = 0.0, left;
        if (world->def.floor_contact == OP_FLOOR_CONTACT_ITERATION) {
            floor->contacts += op_floor_respond(body, body->floor_push, h, world->def.friction);
            left = op_floor_penetration(body, world->def.floor_height);
        } else {
            floor->contacts += op_collide_floor(body, world->def.floor_height, world->def.friction, &reach, &left);
        }
        floor->reach = op_max(floor->reach, reach);
        floor->left = op_max(floor->left, left);
    }
    for (int m = 0; m < count && op_world_collides(world); ++m)
        op_collider_gather_body(&world->collider, world->bodies, members[m], &floor->gathered);
    floor->seconds += op_now() - start;
}

/* step_unit_stages, its stage times added to *spent and the time it took in all to *all and,
 * averaged with the last, to the unit's cost */
static void step_unit(op_world *world, int u, double h, op_energy *energy, int columns, stage_failure *failure,
                      op_stage_times *spent, substep_end *floor, double *all)
{
    double start = op_now();
    step_unit_stages(world, u, h, energy, columns, failure, spent, floor);
    double took = op_now() - start;
    *all += took;
    world->unit_cost[u] = world->unit_cost[u] > 0 ? 0.5 * (world->unit_cost[u] + took) : took;
}

/* Unit u's share of the BODIES work: its measured cost, or its particles until every unit has
 * been timed (measured). */
static double unit_weight(const op_world *world, int u, int measured)
{
    if (measured)
        return world->unit_cost[u];
    int particles = 0;
    for (int m = world->unit_start[u]; m < world->unit_start[u + 1]; ++m)
        particles += world->bodies[world->unit_body[m]].graph->particle_count;
    return particles;
}

/* Thread t's run of units [*first, *last) of a team's (world.h): unit u goes to the thread
 * whose share of the summed weights (the t-th of `team` equal ones, in unit order) holds the
 * middle of the unit's weight. */
static void thread_units(const op_world *world, int t, int team, int *first, int *last)
{
    int measured = 1;
    for (int u = 0; u < world->unit_count; ++u)
        measured &= world->unit_cost[u] > 0;
    double total = 0.0, before = 0.0;
    for (int u = 0; u < world->unit_count; ++u)
        total += unit_weight(world, u, measured);
    *first = *last = 0;
    for (int u = 0; u < world->unit_count; ++u) {
        double weight = unit_weight(world, u, measured);
        int owner = total > 0 ? (int)op_min(team - 1, (before + 0.5 * weight) * team / total) : 0;
        if (owner < t)
            *first = *last = u + 1;
        else if (owner == t)
            *last = u + 1;
        before += weight;
    }
}

/* OP_STAGE_BODIES: step_unit for every unit. Energies are kept per body and summed in body
 * order afterwards, as op_world_energy sums them. On threads, the loop's wall time is
 * apportioned to local, global, accel and FLOOR by their share of the summed per-body
 * times (world.h); *floor_done receives the FLOOR stages' results. */
static int stage_bodies(op_ctx *ctx, op_world *world, double h, op_energy *energy_row, op_stage_times *times,
                        substep_end *floor_done)
{
    int columns = world->def.iterations + 1;
    if (energy_row && world->body_energy_capacity < world->body_count * columns) {
        free(world->body_energy);
        world->body_energy_capacity = 0;
        world->body_energy = op_calloc(ctx, (size_t)world->body_count * (size_t)columns, sizeof(op_energy));
        if (!world->body_energy)
            return ctx->status;
        world->body_energy_capacity = world->body_count * columns;
    }
    stage_failure failure;
    no_failure(&failure, world);
    op_stage_times spent = { 0 };
    substep_end floor = { 0, 0.0, 0.0, 0.0, { 0, 0 } };
    double all = 0.0;
    if (world->parallel) {
        int threads = omp_get_max_threads();
        if (threads > world->unit_run_capacity) {
            free(world->unit_run);
            world->unit_run_capacity = 0;
            if (!(world->unit_run = op_calloc_lines(ctx, (size_t)threads, sizeof *world->unit_run)))
                return ctx->status;
            world->unit_run_capacity = threads;
        }
        double start = op_now();
        op_energy *energy = energy_row ? world->body_energy : NULL;
        int low = world->substep % 2 == 0; /* the end each owner takes from */
#pragma omp parallel num_threads(threads) reduction(add_stage_times : spent) reduction(add_substep_end : floor) \
    reduction(+ : all)
        {
            int thread = omp_get_thread_num(), team = omp_get_num_threads(), first, last;
            thread_units(world, thread, team, &first, &last);
            op_run_set(&world->unit_run[thread], first, last);
#pragma omp barrier /* every run set, from the costs before any unit's is updated */
            for (int other = 0; other < team; ++other) {
                op_run *run = &world->unit_run[(thread + other) % team];
                int own = other == 0;
                for (int u; (u = op_run_take(run, own ? low : !low)) >= 0;)
                    step_unit(world, u, h, energy, columns, &failure, &spent, &floor, &all);
            }
        }
        double wall = op_now() - start;
        add_apportioned(times, wall, &spent, all);
        if (all > 0.0)
            floor.seconds = wall * (floor.seconds / all);
    } else {
        for (int u = 0; u < world->unit_count; ++u)
            step_unit(world, u, h, energy_row ? world->body_energy : NULL, columns, &failure, &spent, &floor, &all);
        times->local += spent.local;
        times->global += spent.global;
        times->accel += spent.accel;
        times->linear_iterations += spent.linear_iterations;
    }
    *floor_done = floor;
    if (report_failure(ctx, world, &failure) != OP_OK)
        return ctx->status;
    if (energy_row)
        for (int k = 0; k < columns; ++k) {
            op_energy total = { 0 };
            for (int b = 0; b < world->body_count; ++b)
                add_energy(&total, &world->body_energy[b * columns + k]);
            energy_row[k] = total;
        }
    return OP_OK;
}

int op_world_step(op_ctx *ctx, op_world *world, op_frame_stats *stats)
{
    const op_world_def *def = &world->def;
    double h = def->frame_time / def->substeps, frame_start = op_now();
    op_stage_times solve = { 0 };
    substep_end floor = { 0, 0.0, 0.0, 0.0, { 0, 0 } }; /* the sub-step's FLOOR stages, for its COLLIDE */
    double collide_seconds = 0.0;
    int row_length = def->iterations + 1;
    stats->floor_contacts = stats->collision_pairs = stats->collision_contacts = 0;
    stats->max_penetration = stats->max_floor_penetration = stats->max_floor_reach = 0.0;
    double probe_start = op_now();
    stats->collision_threads = op_world_contact_threads(world, &stats->handoff_ns);
    collide_seconds += op_now() - probe_start;
    for (int sub = 0; sub < def->substeps; ++sub) {
        op_energy *energy_row = def->log_energy ? &stats->energy[sub * row_length] : NULL;
        long linear_before = solve.linear_iterations;
        for (op_stage stage = OP_STAGE_BODIES; stage < OP_STAGE_COUNT; ++stage) {
            switch (stage) {
            case OP_STAGE_BODIES:
                /* the units gather their centres for the contact call as their sub-steps end */
                if (op_world_collides(world) &&
                    op_collider_lay_out(ctx, &world->collider, world->bodies, world->body_count) != OP_OK)
                    return ctx->status;
                if (stage_bodies(ctx, world, h, energy_row, &solve, &floor) != OP_OK)
                    return ctx->status;
                stats->floor_contacts += floor.contacts;
                stats->max_floor_reach = op_max(stats->max_floor_reach, floor.reach);
                if (stats->floor_reach)
                    stats->floor_reach[sub] = floor.reach;
                collide_seconds += floor.seconds;
                if (stats->accel_counts)
                    stats->accel_counts[sub] =
                        world->accel ? world->accel->type->take_count(world->accel, world->body_count) : 0;
                break;
            case OP_STAGE_COLLIDE: {
                double start = op_now();
                if (stage_collide(ctx, world, floor.left, &floor.gathered, stats) != OP_OK)
                    return ctx->status;
                collide_seconds += op_now() - start;
                if (def->log_energy && stats->energy_after_contacts)
                    op_world_energy(world, h, &stats->energy_after_contacts[sub]);
                break;
            }
            case OP_STAGE_COUNT:
                break;
            }
        }
        if (stats->linear_iterations)
            stats->linear_iterations[sub] = solve.linear_iterations - linear_before;
        world->time += h;
        world->substep++;
    }
    world->frame++;
    stats->local_ms = 1e3 * solve.local;
    stats->global_ms = 1e3 * solve.global;
    stats->accel_ms = 1e3 * solve.accel;
    stats->collision_ms = 1e3 * collide_seconds;
    stats->total_ms = 1e3 * (op_now() - frame_start);
    for (int b = 0; b < world->body_count; ++b) {
        const op_state *s = &world->bodies[b].state;
        for (int k = 0; k < 3 * s->particle_count; ++k)
            if (!isfinite(s->position[k]))
                return OP_FAIL(ctx, OP_ERR_INVALID, "frame %ld: body %s has a non-finite position", world->frame,
                               world->bodies[b].name);
    }
    return OP_OK;
}
