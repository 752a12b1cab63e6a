/* The world and its frame loop: the stage list of world.h, each stage a plain function
 * dispatched in one switch (unit_stage), and the ownership of models, bodies, scripts and
 * solver states. Which thread steps which unit is core/sim/schedule.c's; what acts between
 * iterations, solvers/accel/accel.h's; the contacts, core/contact/collide.c's. */
#include "opsim/world.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "base/choice.h"
#include "base/math3.h"
#include "base/timer.h"
#include "kernels/polar.h"
#include "sim/predict.h"
#include "accel/accel.h"
#include "contact/collide.h"
#include "geometry/model.h"
#include "sim/energy.h"
#include "sim/schedule.h"
#include "sim/script.h"

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
                           .collision_rounds = OP_COLLIDE_DEFAULT_ROUNDS,
                           .collision_order = OP_CONTACT_ORDER_COLOURS,
                           .collision_threads = OP_CONTACT_THREADS_AUTO,
                           .schedule_threads = OP_SCHEDULE_THREADS_AUTO,
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
        def->collision_passes < 1 || def->collision_passes_max < 0 || def->collision_rounds < 1 ||
        !(isfinite(def->collision_margin) && def->collision_margin >= 0) ||
        (def->collision_order != OP_CONTACT_ORDER_COLOURS && def->collision_order != OP_CONTACT_ORDER_JACOBI) ||
        def->collision_threads < OP_CONTACT_THREADS_ALL || def->collision_threads > OP_CONTACT_THREADS_AUTO ||
        def->schedule_threads < OP_SCHEDULE_THREADS_ALL || def->schedule_threads > OP_SCHEDULE_THREADS_AUTO ||
        def->floor_contact < OP_FLOOR_CONTACT_SUBSTEP || def->floor_contact > OP_FLOOR_CONTACT_SOLVE ||
        def->rotation_start < OP_ROTATION_START_RIGID || def->rotation_start > OP_ROTATION_START_CURRENT)
        return OP_FAIL(ctx, OP_ERR_INVALID,
                       "world: frame_time must be positive, substeps at least 1, iterations not negative, "
                       "gravity and floor finite, friction not negative, collision_passes at least 1, "
                       "collision_passes_max not negative, collision_rounds at least 1, "
                       "collision_margin finite and not negative, collision_order colours or jacobi, "
                       "collision_threads all, one or auto, schedule_threads all, one or auto, "
                       "floor_contact substep, iteration or solve, "
                       "rotation_start rigid, predicted or current");
    world->def = *def;
    world->models = op_calloc(ctx, OP_WORLD_MAX_MODELS, sizeof(op_model));
    world->bodies = op_calloc(ctx, OP_WORLD_MAX_BODIES, sizeof(op_body));
    world->scripts = op_calloc(ctx, OP_WORLD_MAX_SCRIPTS, sizeof(op_script));
    world->schedule = op_calloc(ctx, 1, sizeof(op_schedule));
    world->collider = op_calloc(ctx, 1, sizeof(op_collider));
    world->contact_choice = op_calloc(ctx, 1, sizeof(op_choice));
    if (world->contact_choice)
        op_choice_init(world->contact_choice, 2, OP_COLLIDE_CHOICE_TRIALS, OP_COLLIDE_CHOICE_SETTLE);
    world->contact_cycle = op_calloc(ctx, 1, sizeof(op_choice_cycle));
    world->schedule_cycle = op_calloc(ctx, 1, sizeof(op_choice_cycle));
    world->sweep_cycle = op_calloc(ctx, 1, sizeof(op_choice_cycle));
    world->sweep_choice = op_calloc(ctx, 1, sizeof(op_choice));
    if (world->sweep_choice)
        op_choice_init(world->sweep_choice, 2, OP_SCHEDULE_CHOICE_TRIALS, OP_SCHEDULE_CHOICE_SETTLE);
    if (world->sweep_choice)
        world->sweep_choice->initial = 1; /* one thread until timed: a team's barriers can cost far more */
    world->schedule_choice = op_calloc(ctx, 1, sizeof(op_choice));
    if (world->schedule_choice)
        op_choice_init(world->schedule_choice, 2, OP_SCHEDULE_CHOICE_TRIALS, OP_SCHEDULE_CHOICE_SETTLE);
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

/* floor_contact = solve: the variant's global step holds the floor (op_solver_type.holds_floor),
 * with no accelerator moving the positions after it; each body told where the floor is. */
static int hold_floor(op_ctx *ctx, op_world *world)
{
    int solve = world->def.floor_contact == OP_FLOOR_CONTACT_SOLVE;
    if (solve && !world->solver->holds_floor)
        return OP_FAIL(ctx, OP_ERR_USAGE,
                       "world.floor_contact = solve: solver %s does not hold the floor in its solve (arap and "
                       "arap-reference do); use floor_contact = substep or iteration",
                       world->solver->name);
    if (solve && world->accel)
        return OP_FAIL(ctx, OP_ERR_USAGE,
                       "world.floor_contact = solve: not with solver.chebyshev or solver.anderson, whose "
                       "extrapolation moves the positions after the solve that held them");
    for (int b = 0; b < world->body_count; ++b) {
        world->bodies[b].floor_held = solve && world->def.floor;
        world->bodies[b].floor_height = world->def.floor_height;
        world->bodies[b].floor_friction = world->def.friction;
    }
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
    if (op_accel_create(ctx, &world->solver_settings, solver, world->solver_state, world->bodies,
                        world->body_count, &world->accel) != OP_OK || hold_floor(ctx, world) != OP_OK)
        return ctx->status;
    op_schedule_start(world->schedule, world->body_count);
    return op_world_remake_solver_states(ctx, world);
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
    if (ctx->status != OP_OK)
        return ctx->status;
    return op_schedule_form_units(ctx, world->schedule, world->bodies, world->body_count, world->solver,
                                  world->solver_state, !world->accel);
}

void op_world_free(op_world *world)
{
    if (world->solver_state)
        for (int b = 0; b < world->body_count; ++b)
            world->solver->destroy(world->solver_state[b]);
    OP_FREE(world->solver_state);
    if (world->schedule)
        op_schedule_free(world->schedule);
    OP_FREE(world->schedule);
    OP_FREE(world->thread_sums);
    world->thread_sums_capacity = 0;
    op_accel_free(&world->accel, world->body_count);
    if (world->collider)
        op_collider_free(world->collider);
    OP_FREE(world->collider);
    OP_FREE(world->contact_choice);
    OP_FREE(world->schedule_choice);
    OP_FREE(world->contact_cycle);
    OP_FREE(world->schedule_cycle);
    OP_FREE(world->sweep_choice);
    OP_FREE(world->sweep_cycle);
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
    OP_FREE(world->scripts);
    world->body_count = world->model_count = 0;
}

int op_world_particle_count(const op_world *world)
{
    int total = 0;
    for (int b = 0; b < world->body_count; ++b)
        total += world->bodies[b].graph->particle_count;
    return total;
}

/* x and R as the sub-step starts, for VELOCITIES and the contacts' static friction */
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
    const int *members = &world->schedule->unit_body[world->schedule->unit_start[u]];
    int count = world->schedule->unit_start[u + 1] - world->schedule->unit_start[u];
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

/* What the end of some bodies' sub-step leaves for CONTACTS: the floor's work (FLOOR, and the
 * projections of floor_contact = iteration): contacts, the deepest reach below the floor before
 * a push (m) and what was left below it afterwards (m); the gathering of their centres for the
 * contact call when the world collides; and the time the two took (s), which the collision
 * column counts. */
typedef struct substep_end {
    int contacts;
    double reach, left, seconds;
    op_gathered gathered;
} substep_end;

static void add_substep_end(substep_end *sum, const substep_end *part)
{
    sum->contacts += part->contacts;
    sum->reach = op_max(sum->reach, part->reach);
    sum->left = op_max(sum->left, part->left);
    sum->seconds += part->seconds;
    op_gathered_add(&sum->gathered, &part->gathered);
}

/* One thread's sums over the units it stepped in a loop: the variant's and the accelerator's
 * stage times, the floor's work, and each stage's time (s). A cache line or more of its own:
 * the thread writes it at every stage. */
struct op_world_thread_sums {
    _Alignas(64) op_stage_times spent;
    substep_end floor;
    double stage_seconds[OP_STAGE_COUNT];
};

static int ensure_thread_sums(op_ctx *ctx, op_world *world)
{
    int threads = op_schedule_threads(world->schedule);
    if (threads > world->thread_sums_capacity) {
        free(world->thread_sums);
        world->thread_sums_capacity = 0;
        if (!(world->thread_sums = op_calloc_lines(ctx, (size_t)threads, sizeof *world->thread_sums)))
            return ctx->status;
        world->thread_sums_capacity = threads;
    }
    memset(world->thread_sums, 0, (size_t)threads * sizeof *world->thread_sums);
    return OP_OK;
}

/* The threads' sums, in thread order */
static op_world_thread_sums sum_threads(const op_world *world)
{
    op_world_thread_sums sum = { 0 };
    for (int t = 0; t < op_schedule_threads(world->schedule); ++t) {
        const op_world_thread_sums *part = &world->thread_sums[t];
        sum.spent.local += part->spent.local;
        sum.spent.global += part->spent.global;
        sum.spent.accel += part->spent.accel;
        for (int c = 0; c < OP_SOLVER_MAX_COUNTERS; ++c)
            sum.spent.count[c] += part->spent.count[c];
        add_substep_end(&sum.floor, &part->floor);
        for (int s = 0; s < OP_STAGE_COUNT; ++s)
            sum.stage_seconds[s] += part->stage_seconds[s];
    }
    return sum;
}

/* ---- PREDICT ---------------------------------------------------------------------------- */

/* PREDICT of every body, for the staged calls (op_world_begin_substep) */
typedef struct predict_call {
    op_world *world;
    double h, t_end;
} predict_call;

static double predict_one(void *context, int thread, int b)
{
    (void)thread;
    predict_call *call = context;
    predict(call->world, &call->world->bodies[b], call->h, call->t_end);
    return 0.0;
}

/* ---- ITERATE: the variant's begin_substep and n_i iterations, with the accelerator ------------ */

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
    const op_schedule *s = world->schedule;
    for (int m = s->unit_start[u]; m < s->unit_start[u + 1]; ++m) {
        call->solvers[m - s->unit_start[u]] = world->solver_state[s->unit_body[m]];
        call->bodies[m - s->unit_start[u]] = &world->bodies[s->unit_body[m]];
    }
    op_ctx_init(&call->ctx);
    call->failed = 0;
}

/* The call's status, its failure noted against the failing member of unit u. */
static int unit_call_end(const op_world *world, int u, const unit_call *call, stage_failure *failure)
{
    if (call->ctx.status != OP_OK)
        note_failure(failure, world->schedule->unit_body[world->schedule->unit_start[u] + call->failed], &call->ctx);
    return call->ctx.status;
}

/* The sub-step start of unit u's bodies, already predicted: the variant's begin_group for a
 * group when it has one, else begin_substep body by body. */
static int begin_unit(op_world *world, int u, double h, stage_failure *failure)
{
    const int *members = &world->schedule->unit_body[world->schedule->unit_start[u]];
    int count = world->schedule->unit_start[u + 1] - world->schedule->unit_start[u];
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
    const int *members = &world->schedule->unit_body[world->schedule->unit_start[u]];
    int count = world->schedule->unit_start[u + 1] - world->schedule->unit_start[u], status;
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

/* ---- one sub-step of a unit: its stages in the order of the list ----------------------------- */

/* What a sub-step's stages of the units share: its length and end time, where the energies go
 * (energy[b·columns + k] for body b; NULL: not logged) and the first failure. */
typedef struct substep_call {
    op_world *world;
    double h, t_end;
    op_energy *energy;
    int columns;
    stage_failure failure;
} substep_call;

/* ITERATE: begin_substep, then the n_i iterations, the energy before the first and after each */
static int stage_iterate(substep_call *call, int u, op_world_thread_sums *sums)
{
    op_world *world = call->world;
    const int *members = &world->schedule->unit_body[world->schedule->unit_start[u]];
    int count = world->schedule->unit_start[u + 1] - world->schedule->unit_start[u];
    if (begin_unit(world, u, call->h, &call->failure) != OP_OK)
        return OP_ERR_INVALID;
    for (int m = 0; call->energy && m < count; ++m)
        op_energy_eval(&world->bodies[members[m]], call->h, &call->energy[members[m] * call->columns]);
    for (int k = 0; k < world->def.iterations; ++k) {
        if (iterate_unit(world, u, call->h, k, &call->failure, &sums->spent, &sums->floor) != OP_OK)
            return OP_ERR_INVALID;
        for (int m = 0; call->energy && m < count; ++m)
            op_energy_eval(&world->bodies[members[m]], call->h, &call->energy[members[m] * call->columns + k + 1]);
    }
    return OP_OK;
}

/* VELOCITIES: v = (x − x_start)/h, Ṙ = (R − R_start)/h */
static void stage_velocities(substep_call *call, int u)
{
    op_world *world = call->world;
    for (int m = world->schedule->unit_start[u]; m < world->schedule->unit_start[u + 1]; ++m)
        op_predict_update_velocity(&world->bodies[world->schedule->unit_body[m]], call->h);
}

/* FLOOR: the unit's floor contacts, which involve no other body, here while its data is in
 * cache; then its centres gathered for CONTACTS, for the same reason */
static void stage_floor(substep_call *call, int u, substep_end *floor)
{
    op_world *world = call->world;
    const int *members = &world->schedule->unit_body[world->schedule->unit_start[u]];
    int count = world->schedule->unit_start[u + 1] - world->schedule->unit_start[u];
    for (int m = 0; m < count && world->def.floor; ++m) {
        op_body *body = &world->bodies[members[m]];
        double reach = 0.0, left;
        if (world->def.floor_contact == OP_FLOOR_CONTACT_ITERATION) {
            floor->contacts += op_floor_respond(body, body->floor_push, call->h, world->def.friction);
            left = op_floor_penetration(body, world->def.floor_height);
        } else if (world->def.floor_contact == OP_FLOOR_CONTACT_SOLVE) {
            /* the solve held the particles, with friction: what reaches below now is all there was
             * to push, and a held particle keeps no downward velocity */
            floor->contacts += op_floor_respond(body, body->floor_push, call->h, 0.0);
            left = reach = op_floor_penetration(body, world->def.floor_height);
        } else {
            floor->contacts +=
                op_collide_floor(body, world->def.floor_height, world->def.friction, &reach, &left);
        }
        floor->reach = op_max(floor->reach, reach);
        floor->left = op_max(floor->left, left);
    }
    for (int m = 0; m < count && op_world_collides(world); ++m)
        op_collider_gather_body(world->collider, world->bodies, members[m], &floor->gathered);
}

/* The one dispatch of a unit's stages (world.h's list); a failing stage is noted in call->failure
 * and ends the unit's sub-step. */
static int unit_stage(substep_call *call, op_stage stage, int u, op_world_thread_sums *sums)
{
    switch (stage) {
    case OP_STAGE_PREDICT:
        predict_unit(call->world, u, call->h, call->t_end);
        return OP_OK;
    case OP_STAGE_ITERATE:
        return stage_iterate(call, u, sums);
    case OP_STAGE_VELOCITIES:
        stage_velocities(call, u);
        return OP_OK;
    case OP_STAGE_FLOOR:
        stage_floor(call, u, &sums->floor);
        return OP_OK;
    case OP_STAGE_CONTACTS: /* every unit's at once: op_world_step's */
    case OP_STAGE_COUNT:
        break;
    }
    return OP_OK;
}

/* Unit u's sub-step, PREDICT to FLOOR, each stage timed by name (one clock read a stage: a read
 * costs about 9 ns, core/base/timer.h); returns the time it took. Bodies do not meet before
 * CONTACTS, so a unit's whole sub-step runs without waiting for the others, and its data stays
 * in cache from its prediction to its floor contacts. */
static double step_unit(void *context, int thread, int u)
{
    substep_call *call = context;
    op_world_thread_sums *sums = &call->world->thread_sums[thread];
    double start = op_now(), before = start;
    for (op_stage stage = OP_STAGE_PREDICT; stage < OP_STAGE_CONTACTS; ++stage) {
        int status = unit_stage(call, stage, u, sums);
        double now = op_now();
        sums->stage_seconds[stage] += now - before;
        before = now;
        if (status != OP_OK)
            break;
    }
    return before - start;
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

/* The offset of a world's cycle slots: with an even number of sub-steps a frame's cycles
 * alternate from the other option than the last frame's, so that each option takes the cycle
 * across the frame's end (recording, whatever the caller does between frames) as often as the
 * other. */
static long slot_offset(const op_world *world)
{
    return world->def.substeps % 2 == 0 ? world->frame : 0;
}

int op_world_contact_threads(op_world *world)
{
    if (world->def.collision_threads != OP_CONTACT_THREADS_AUTO)
        return world->def.collision_threads;
    if (omp_get_max_threads() < 2) /* the two options are one thread alike: nothing to time */
        return OP_CONTACT_THREADS_ALL;
    return op_choice_cycle_take(world->contact_choice, world->contact_cycle, slot_offset(world), op_now());
}

/* The turn to calibrate among the automatic choices this world makes now (world.h,
 * core/base/choice.h), in this order: the units' first, so that the contacts' cycles, which hold
 * the next sub-step's units, are timed on the units' chosen threads; the sweeps' last. A choice
 * with nothing to choose is left out: one thread in all, one body (the units), no contacts
 * between bodies, or no sweep that can take a team (op_world_sweep_auto). */
static void give_turns(op_world *world)
{
    int threads = omp_get_max_threads() > 1;
    world->turn_count = 0;
    if (world->def.schedule_threads == OP_SCHEDULE_THREADS_AUTO && threads && world->body_count > 1)
        world->turn_choices[world->turn_count++] = world->schedule_choice;
    if (world->def.collision_threads == OP_CONTACT_THREADS_AUTO && threads && op_world_collides(world))
        world->turn_choices[world->turn_count++] = world->contact_choice;
    if (op_world_sweep_auto(world))
        world->turn_choices[world->turn_count++] = world->sweep_choice;
    op_choice_turn(world->turn_choices, world->turn_count, &world->choice_turn);
}

int op_world_schedule_threads(op_world *world)
{
    give_turns(world);
    if (world->body_count < 2)
        return 0;
    if (world->def.schedule_threads != OP_SCHEDULE_THREADS_AUTO)
        return world->def.schedule_threads == OP_SCHEDULE_THREADS_ALL;
    if (omp_get_max_threads() < 2) /* no team: nothing to time, and a team of one costs a fork */
        return 0;
    return op_choice_cycle_take(world->schedule_choice, world->schedule_cycle, slot_offset(world), op_now()) ==
           OP_SCHEDULE_THREADS_ALL;
}

int op_world_sweep_auto(const op_world *world)
{
    const char *sweep = op_solver_setting(&world->solver_settings, "sweep_threads");
    return sweep && strcmp(sweep, "auto") == 0 && omp_get_max_threads() > 1 &&
           (world->body_count == 1 || world->def.schedule_threads == OP_SCHEDULE_THREADS_ONE);
}

/* Every body told whether this sub-step's sweeps take a team (op_body.sweep_team): the timed
 * choice where it applies (op_world_sweep_auto), else not. Returns that. */
static int offer_sweep_team(op_world *world)
{
    int team = op_world_sweep_auto(world) &&
               op_choice_cycle_take(world->sweep_choice, world->sweep_cycle, slot_offset(world), op_now()) == 0;
    for (int b = 0; b < world->body_count; ++b)
        world->bodies[b].sweep_team = team;
    return team;
}

op_contact_def op_world_contact_def(const op_world *world, int threads)
{
    const op_world_def *def = &world->def;
    return (op_contact_def){ .passes = def->collision_passes,
                             .passes_max = def->collision_passes_max,
                             .rounds = def->collision_rounds,
                             .order = def->collision_order,
                             .floor = def->floor,
                             .floor_height = def->floor_height,
                             .margin = def->collision_margin,
                             .friction = def->friction,
                             .threads = threads };
}

/* The body pairs (world.h, CONTACTS), after every body's FLOOR, on the frame's contact threads
 * (stats->collision_threads); floor_left is what the floor contacts left below the floor, and
 * what is left there is measured after both. */
static int stage_collide(op_ctx *ctx, op_world *world, double floor_left, const op_gathered *gathered, int sub,
                         op_frame_stats *stats)
{
    if (stats->penetration)
        stats->penetration[sub] = 0.0;
    if (op_world_collides(world)) {
        int threads = op_world_contact_threads(world);
        world->frame_calls++;
        world->frame_calls_one += threads == OP_CONTACT_THREADS_ONE;
        op_contact_def contact = op_world_contact_def(world, threads);
        op_contact_stats found;
        if (op_collide_gathered_bodies(ctx, world->collider, world->bodies, world->body_count, &contact, gathered,
                                       &found) != OP_OK)
            return ctx->status;
        stats->collision_pairs += found.pairs;
        stats->collision_contacts += found.contacts;
        stats->max_penetration = fmax(stats->max_penetration, found.max_penetration);
        if (stats->penetration)
            stats->penetration[sub] = found.max_penetration;
        /* the pairs measure the particles they moved; the floor's measure holds for the rest */
        floor_left = fmax(floor_left, found.max_floor_penetration);
    }
    stats->max_floor_penetration = fmax(stats->max_floor_penetration, floor_left);
    return OP_OK;
}

/* Every unit's sub-step on the schedule (core/sim/schedule.h), its energies into energy_row
 * (summed in body order, as op_world_energy sums them) when not NULL. Into *sum: the threads'
 * sums, the times apportioned on threads to the loop's wall time (schedule.h). */
static int step_units(op_ctx *ctx, op_world *world, double h, op_energy *energy_row, op_world_thread_sums *sum)
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
    if (ensure_thread_sums(ctx, world) != OP_OK)
        return ctx->status;
    substep_call call = { .world = world,
                          .h = h,
                          .t_end = world->time + h,
                          .energy = energy_row ? world->body_energy : NULL,
                          .columns = columns };
    no_failure(&call.failure, world);
    double wall, all = op_schedule_units(ctx, world->schedule, world->bodies, world->substep, step_unit, &call, &wall);
    if (ctx->status != OP_OK || report_failure(ctx, world, &call.failure) != OP_OK)
        return ctx->status;
    *sum = sum_threads(world);
    if (world->schedule->parallel) {
        op_stage_times summed = sum->spent;
        sum->spent = (op_stage_times){ 0 };
        op_schedule_apportion(&sum->spent, wall, &summed, all);
        double share = all > 0.0 ? wall / all : 0.0;
        sum->floor.seconds *= share;
        for (int s = 0; s < OP_STAGE_COUNT; ++s)
            sum->stage_seconds[s] *= share;
    }
    if (energy_row)
        for (int k = 0; k < columns; ++k) {
            op_energy total = { 0 };
            for (int b = 0; b < world->body_count; ++b)
                add_energy(&total, &world->body_energy[b * columns + k]);
            energy_row[k] = total;
        }
    return OP_OK;
}

/* ---- the stages one at a time, every body together, for studies ------------------------------- */

static double begin_one(void *context, int thread, int u)
{
    (void)thread;
    substep_call *call = context;
    begin_unit(call->world, u, call->h, &call->failure);
    return 0.0;
}

int op_world_begin_substep(op_ctx *ctx, op_world *world, double h)
{
    predict_call predicting = { world, h, world->time + h };
    op_schedule_each(world->schedule, world->body_count, predict_one, &predicting);
    substep_call call = { .world = world, .h = h };
    no_failure(&call.failure, world);
    op_schedule_each(world->schedule, world->schedule->unit_count, begin_one, &call);
    return report_failure(ctx, world, &call.failure);
}

typedef struct iterate_call {
    substep_call substep;
    int k;
} iterate_call;

static double iterate_one(void *context, int thread, int u)
{
    iterate_call *call = context;
    op_world *world = call->substep.world;
    iterate_unit(world, u, call->substep.h, call->k, &call->substep.failure, &world->thread_sums[thread].spent, NULL);
    return 0.0;
}

/* Every body's iteration k, unit by unit. On threads, the loop's wall time is apportioned to
 * the stages by their summed per-body times (schedule.h); on one, those sums are wall times
 * already. */
int op_world_iterate(op_ctx *ctx, op_world *world, double h, int k, op_stage_times *times)
{
    if (ensure_thread_sums(ctx, world) != OP_OK)
        return ctx->status;
    iterate_call call = { .substep = { .world = world, .h = h }, .k = k };
    no_failure(&call.substep.failure, world);
    double start = op_now();
    op_schedule_each(world->schedule, world->schedule->unit_count, iterate_one, &call);
    double wall = op_now() - start;
    op_stage_times spent = sum_threads(world).spent;
    if (world->schedule->parallel) {
        op_schedule_apportion(times, wall, &spent, spent.local + spent.global + spent.accel);
    } else {
        times->local += spent.local;
        times->global += spent.global;
        times->accel += spent.accel;
        for (int c = 0; c < OP_SOLVER_MAX_COUNTERS; ++c)
            times->count[c] += spent.count[c];
    }
    return report_failure(ctx, world, &call.substep.failure);
}

/* CONTACTS: the body pairs after every unit's FLOOR (stage_collide), and the energy of the state
 * after them when logging is on */
static int stage_contacts(op_ctx *ctx, op_world *world, double h, int sub, const substep_end *floor, op_energy *after,
                          op_frame_stats *stats)
{
    if (stage_collide(ctx, world, floor->left, &floor->gathered, sub, stats) != OP_OK)
        return ctx->status;
    if (world->def.log_energy && after)
        op_world_energy(world, h, after);
    return OP_OK;
}

/* The frame's sums, zero */
static void clear_frame_stats(op_frame_stats *stats)
{
    stats->floor_contacts = stats->collision_pairs = stats->collision_contacts = 0;
    stats->max_penetration = stats->max_floor_penetration = stats->max_floor_reach = 0.0;
    for (int s = 0; s < OP_STAGE_COUNT; ++s)
        stats->stage_ms[s] = 0.0;
}

/* Sub-step `sub` of the frame: the units' stages PREDICT to FLOOR on the schedule, then
 * CONTACTS; its times added to *solve, *collide_seconds and stats->stage_ms. */
static int substep(op_ctx *ctx, op_world *world, int sub, op_frame_stats *stats, op_stage_times *solve,
                   double *collide_seconds)
{
    const op_world_def *def = &world->def;
    double h = def->frame_time / def->substeps;
    op_energy *energy_row = def->log_energy && stats->energy ? &stats->energy[sub * (def->iterations + 1)] : NULL;
    /* the units gather their centres for the contact call as their sub-steps end */
    if (op_world_collides(world) && op_collider_lay_out(ctx, world->collider, world->bodies, world->body_count) != OP_OK)
        return ctx->status;
    op_world_thread_sums units;
    world->schedule->parallel = op_world_schedule_threads(world);
    world->frame_units++;
    world->frame_units_one += !world->schedule->parallel;
    world->frame_sweeps_team += offer_sweep_team(world);
    if (step_units(ctx, world, h, energy_row, &units) != OP_OK)
        return ctx->status;
    double start = op_now();
    if (stage_contacts(ctx, world, h, sub, &units.floor,
                       stats->energy_after_contacts ? &stats->energy_after_contacts[sub] : NULL, stats) != OP_OK)
        return ctx->status;
    units.stage_seconds[OP_STAGE_CONTACTS] = op_now() - start;
    for (int s = 0; s < OP_STAGE_COUNT; ++s)
        stats->stage_ms[s] += 1e3 * units.stage_seconds[s];
    *collide_seconds += units.floor.seconds + units.stage_seconds[OP_STAGE_FLOOR] + units.stage_seconds[OP_STAGE_CONTACTS];
    stats->floor_contacts += units.floor.contacts;
    stats->max_floor_reach = op_max(stats->max_floor_reach, units.floor.reach);
    if (stats->floor_reach)
        stats->floor_reach[sub] = units.floor.reach;
    if (stats->accel_counts)
        stats->accel_counts[sub] = world->accel ? world->accel->type->take_count(world->accel, world->body_count) : 0;
    for (int c = 0; stats->counts && c < OP_SOLVER_MAX_COUNTERS; ++c)
        stats->counts[sub * OP_SOLVER_MAX_COUNTERS + c] = units.spent.count[c];
    solve->local += units.spent.local;
    solve->global += units.spent.global;
    solve->accel += units.spent.accel;
    return OP_OK;
}

const char *op_stage_name(op_stage stage)
{
    static const char *const names[OP_STAGE_COUNT] = { "predict", "iterate", "velocities", "floor", "contacts" };
    return stage >= 0 && stage < OP_STAGE_COUNT ? names[stage] : "?";
}

int op_world_step(op_ctx *ctx, op_world *world, op_frame_stats *stats)
{
    const op_world_def *def = &world->def;
    double frame_start = op_now();
    op_stage_times solve = { 0 };
    clear_frame_stats(stats);
    stats->handoff_ns = def->collision_threads == OP_CONTACT_THREADS_AUTO && op_world_collides(world)
                            ? op_team_handoff_ns(OP_COLLIDE_HANDOFFS)
                            : NAN;
    world->frame_calls = world->frame_calls_one = 0;
    world->frame_units = world->frame_units_one = world->frame_sweeps_team = 0;
    double collide_seconds = op_now() - frame_start; /* the hand-over probe's */
    for (int sub = 0; sub < def->substeps; ++sub) {
        if (substep(ctx, world, sub, stats, &solve, &collide_seconds) != OP_OK)
            return ctx->status;
        world->time += def->frame_time / def->substeps;
        world->substep++;
        if (stats->substep_end && stats->substep_end(ctx, stats->substep_context, world) != OP_OK)
            return ctx->status;
    }
    world->frame++;
    stats->collision_threads = def->collision_threads != OP_CONTACT_THREADS_AUTO ? def->collision_threads
                               : world->frame_calls_one == 0                     ? OP_CONTACT_THREADS_ALL
                               : world->frame_calls_one == world->frame_calls    ? OP_CONTACT_THREADS_ONE
                                                                                 : OP_CONTACT_THREADS_AUTO;
    stats->schedule_threads = world->frame_units_one == 0                   ? OP_SCHEDULE_THREADS_ALL
                              : world->frame_units_one == world->frame_units ? OP_SCHEDULE_THREADS_ONE
                                                                             : OP_SCHEDULE_THREADS_AUTO;
    stats->sweep_threads = world->frame_sweeps_team == 0                   ? OP_SCHEDULE_THREADS_ONE
                           : world->frame_sweeps_team == world->frame_units ? OP_SCHEDULE_THREADS_ALL
                                                                            : OP_SCHEDULE_THREADS_AUTO;
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

int op_frame_stats_make(op_ctx *ctx, const op_world *world, op_frame_stats *stats)
{
    *stats = (op_frame_stats){ 0 };
    size_t substeps = (size_t)world->def.substeps;
    stats->energy = op_calloc(ctx, substeps * (size_t)(world->def.iterations + 1), sizeof *stats->energy);
    stats->energy_after_contacts = op_calloc(ctx, substeps, sizeof *stats->energy_after_contacts);
    stats->floor_reach = op_calloc(ctx, substeps, sizeof *stats->floor_reach);
    stats->accel_counts = op_calloc(ctx, substeps, sizeof *stats->accel_counts);
    stats->counts = op_calloc(ctx, substeps * OP_SOLVER_MAX_COUNTERS, sizeof *stats->counts);
    if (ctx->status != OP_OK)
        op_frame_stats_free(stats);
    return ctx->status;
}

void op_frame_stats_free(op_frame_stats *stats)
{
    free(stats->energy);
    free(stats->energy_after_contacts);
    free(stats->floor_reach);
    free(stats->accel_counts);
    free(stats->counts);
    *stats = (op_frame_stats){ 0 };
}
