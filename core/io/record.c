/* Recording a run: the frame loop around op_world_step and everything it writes (record.h). */
#include "io/record.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "accel/accel.h"
#include "base/timer.h"
#include "base/math3.h"
#include "contact/collide.h"
#include "geometry/model.h"
#include "geometry/skin.h"
#include "io/h5md.h"
#include "sim/energy.h"
#include "sim/observe.h"

enum { ENERGY_TERMS = 4, TIMING_FIXED = 4, ACCEL_MAX = 8, TIMING_STAGES = TIMING_FIXED + ACCEL_MAX, COUNTERS_MAX = 32 };
static const char *const energy_names[ENERGY_TERMS] = { "kinetic", "elastic", "constraint", "total" };
/* /timing/<name>: these, then one column per accelerator (op_accel_registry), then total */
static const char *const timing_names[TIMING_FIXED] = { "local", "global", "collision", "total" };
/* /collision/<name>: counts, then penetrations (op_frame_stats) */
enum { COLLISION_COUNTS = 3, COLLISION_SERIES = 6 };
static const char *const collision_names[COLLISION_SERIES] = { "floor_contacts",        "pairs",
                                                               "contacts",              "max_penetration",
                                                               "max_floor_penetration", "max_floor_reach_before" };
static const char *const collision_descriptions[COLLISION_SERIES] = {
    "particles pushed out of the floor, summed over the frame's sub-steps",
    "candidate pairs of particles of different bodies (broad phase), summed over the sub-steps",
    "pairs that penetrated in some contact pass, summed over the sub-steps",
    ("largest ellipsoid-ellipsoid penetration between bodies in the state a sub-step ends in (every pair within "
     "reach), over the sub-steps"),
    "deepest reach below the floor left after a sub-step's contacts, over the sub-steps",
    "deepest reach below the floor before the floor pushed a particle back, over the sub-steps",
};

/* /substeps/: position and orientation with their step and time, and velocity's value (its step
 * and time are links to position's) */
enum { SUBSTEP_SERIES = 7 };

typedef struct recorder {
    op_runfile run;
    op_series position, position_step, position_time;
    op_series orientation, orientation_step, orientation_time;
    op_series velocity;
    op_series energy_series[ENERGY_TERMS];
    op_series energy_after_series[ENERGY_TERMS]; /* [S], open only when log_energy */
    op_series floor_reach_series;                /* [S] */
    op_series penetration_series;                /* [S] */
    int output_substeps;                         /* every sub-step's state into substep_state */
    op_series substep_state[SUBSTEP_SERIES];     /* /substeps/{position,orientation}/{value,step,time}, velocity/value */
    op_series accel_counter[ACCEL_MAX];          /* [S] /solver/<counter_name> of each accelerator */
    op_series timing[TIMING_STAGES];             /* local, global, collision, the accelerators', total */
    int accel_types;                             /* accelerators in op_accel_registry */
    op_series handoff, contacts_on_one_thread; /* /timing/: where the frame's contacts ran */
    op_series units_on_one_thread;             /* /timing/: where the frame's units were stepped */
    op_series sweeps_on_team;                  /* /timing/: whether the frame's sweeps took a team */
    op_series collision[COLLISION_SERIES];
    int counter_count;                                /* the names the registry's variants publish */
    op_series counter[COUNTERS_MAX];                  /* [S] /solver/<name> of each */
    int counter_slot[COUNTERS_MAX];                   /* its slot in the running variant's counts, or −1 */
    op_series observable[OP_SCENE_MAX_OBSERVABLES][3]; /* value, step, time */
    op_series surface, surface_step, surface_time;     /* open only when def->store_surface */
    int store_surface;
    double *surface_rows;             /* one frame of every body's skinned vertices */
    int particles;
    double *positions, *orientations, *velocities; /* one frame of every body */
    double *energy_rows;              /* [substeps][iterations + 1] of one term */
    op_energy *energy;                /* [substeps][iterations + 1], filled by op_world_step */
    op_energy *energy_after_contacts; /* [substeps], likewise */
    double *floor_reach;              /* [substeps], likewise */
    double *penetration;              /* [substeps], likewise */
    long *counts;                     /* [substeps][OP_SOLVER_MAX_COUNTERS], filled by op_world_step */
    long *accel_counts;               /* [substeps], likewise */
    int64_t *count_rows;              /* [substeps] one counter's, as written */
} recorder;

/* The accelerators' parameter sink (accel.h): /parameters attributes of the recorder's run */
static int put_int_parameter(op_ctx *ctx, void *context, const char *name, int value)
{
    return op_runfile_set_attribute_int(ctx, &((recorder *)context)->run, "/parameters", name, value);
}

static int put_double_parameter(op_ctx *ctx, void *context, const char *name, double value)
{
    return op_runfile_set_attribute_double(ctx, &((recorder *)context)->run, "/parameters", name, value);
}

static int put_string_parameter(op_ctx *ctx, void *context, const char *name, const char *value)
{
    return op_runfile_set_attribute_string(ctx, &((recorder *)context)->run, "/parameters", name, value);
}

static int write_parameters(op_ctx *ctx, recorder *r, const op_scene *scene)
{
    const op_world *w = &scene->world;
    const op_world_def *d = &w->def;
    op_runfile *run = &r->run;
    const char *p = "/parameters";
    char gravity[128];
    snprintf(gravity, sizeof gravity, "%.17g %.17g %.17g", d->gravity[0], d->gravity[1], d->gravity[2]);
    if (op_runfile_set_attribute_int(ctx, run, p, "frames", scene->run.frames) != OP_OK ||
        op_runfile_set_attribute_int(ctx, run, p, "output_every", scene->run.output_every) != OP_OK ||
        op_runfile_set_attribute_double(ctx, run, p, "frame_time", d->frame_time) != OP_OK ||
        op_runfile_set_attribute_int(ctx, run, p, "substeps", d->substeps) != OP_OK ||
        op_runfile_set_attribute_int(ctx, run, p, "iterations", d->iterations) != OP_OK ||
        op_runfile_set_attribute_string(ctx, run, p, "gravity", gravity) != OP_OK ||
        op_runfile_set_attribute_int(ctx, run, p, "floor", d->floor) != OP_OK ||
        op_runfile_set_attribute_double(ctx, run, p, "floor_height", d->floor_height) != OP_OK ||
        op_runfile_set_attribute_double(ctx, run, p, "friction", d->friction) != OP_OK ||
        op_runfile_set_attribute_string(ctx, run, p, "rotation_start",
                                        d->rotation_start == OP_ROTATION_START_RIGID       ? "rigid"
                                        : d->rotation_start == OP_ROTATION_START_PREDICTED ? "predicted"
                                                                                           : "current") != OP_OK ||
        op_runfile_set_attribute_string(ctx, run, p, "floor_contact",
                                        d->floor_contact == OP_FLOOR_CONTACT_SOLVE       ? "solve"
                                        : d->floor_contact == OP_FLOOR_CONTACT_ITERATION ? "iteration"
                                                                                         : "substep") !=
            OP_OK ||
        op_runfile_set_attribute_int(ctx, run, p, "collisions", d->collisions) != OP_OK ||
        op_runfile_set_attribute_int(ctx, run, p, "collision_passes", d->collision_passes) != OP_OK ||
        op_runfile_set_attribute_int(ctx, run, p, "collision_passes_max", d->collision_passes_max) != OP_OK ||
        op_runfile_set_attribute_int(ctx, run, p, "collision_rounds", d->collision_rounds) != OP_OK ||
        op_runfile_set_attribute_string(ctx, run, p, "collision_order",
                                        d->collision_order == OP_CONTACT_ORDER_JACOBI ? "jacobi" : "colours") != OP_OK ||
        op_runfile_set_attribute_string(ctx, run, p, "collision_threads",
                                        d->collision_threads == OP_CONTACT_THREADS_AUTO  ? "auto"
                                        : d->collision_threads == OP_CONTACT_THREADS_ONE ? "one"
                                                                                         : "all") != OP_OK ||
        op_runfile_set_attribute_string(ctx, run, p, "schedule_threads",
                                        d->schedule_threads == OP_SCHEDULE_THREADS_AUTO  ? "auto"
                                        : d->schedule_threads == OP_SCHEDULE_THREADS_ONE ? "one"
                                                                                         : "all") != OP_OK ||
        op_runfile_set_attribute_double(ctx, run, p, "collision_margin", d->collision_margin) != OP_OK ||
        op_runfile_set_attribute_int(ctx, run, p, "log_energy", d->log_energy) != OP_OK ||
        op_runfile_set_attribute_string(ctx, run, p, "solver", w->solver->name) != OP_OK)
        return ctx->status;
    /* every registered accelerator's options, typed, on or off (accel.h) */
    op_parameter_sink sink = { r, put_int_parameter, put_double_parameter, put_string_parameter };
    for (int t = 0; op_accel_registry[t]; ++t)
        if (op_accel_registry[t]->parameters(ctx, &w->solver_settings, &sink) != OP_OK)
            return ctx->status;
    for (int k = 0; k < w->solver_settings.count; ++k) {
        char name[80];
        snprintf(name, sizeof name, "solver_%s", w->solver_settings.key[k]);
        if (op_runfile_set_attribute_string(ctx, run, p, name, w->solver_settings.value[k]) != OP_OK)
            return ctx->status;
    }
    int offset = 0;
    for (int b = 0; b < w->body_count; ++b) {
        const op_body *body = &w->bodies[b];
        char path[128];
        snprintf(path, sizeof path, "/parameters/%s", body->name);
        if (op_runfile_set_attribute_string(ctx, run, path, "model", body->model->name) != OP_OK ||
            op_runfile_set_attribute_double(ctx, run, path, "stiffness", body->stiffness) != OP_OK ||
            op_runfile_set_attribute_int(ctx, run, path, "particle_offset", offset) != OP_OK)
            return ctx->status;
        offset += body->graph->particle_count;
    }
    return OP_OK;
}

static int write_bodies(op_ctx *ctx, recorder *r, const op_world *w)
{
    for (int b = 0; b < w->body_count; ++b) {
        const op_body *body = &w->bodies[b];
        const op_model *m = body->model;
        int first = 0; /* the first body of this model: instances link to its groups */
        while (w->bodies[first].model != m)
            ++first;
        if (first < b) {
            if (op_runfile_write_instance(ctx, &r->run, body->name, w->bodies[first].name) != OP_OK)
                return ctx->status;
            continue;
        }
        op_body_info info = { .kind = op_body_kind_name(m->build.kind),
                              .source = m->source,
                              .particles_requested = m->build.particles,
                              .seed = m->build.seed,
                              .voxel_resolution = m->built.voxel_resolution };
        if (op_runfile_write_body(ctx, &r->run, body->name, &info, &m->graph, &m->mesh, &m->skin) != OP_OK)
            return ctx->status;
    }
    return OP_OK;
}

/* /solver/<counter_name> of every accelerator that counts (accel.h), whichever is on */
static int create_accel_counters(op_ctx *ctx, recorder *r)
{
    for (int t = 0; t < r->accel_types; ++t) {
        const op_accel_type *type = op_accel_registry[t];
        char path[96];
        snprintf(path, sizeof path, "/solver/%s", type->counter_name ? type->counter_name : "");
        if (type->counter_name && op_series_create(ctx, &r->run, &r->accel_counter[t], path, OP_SERIES_INT64, 0, NULL,
                                                   "1", type->counter_description) != OP_OK)
            return ctx->status;
    }
    return OP_OK;
}

/* timing[t]'s /timing/ name: the fixed stages, the accelerators in registry order, total last */
static const char *timing_name(const recorder *r, int t)
{
    if (t < TIMING_FIXED - 1)
        return timing_names[t];
    if (t < TIMING_FIXED - 1 + r->accel_types)
        return op_accel_registry[t - (TIMING_FIXED - 1)]->name;
    return timing_names[TIMING_FIXED - 1];
}

static int create_timing(op_ctx *ctx, recorder *r)
{
    for (int t = 0; t < TIMING_FIXED + r->accel_types; ++t) {
        char path[64];
        snprintf(path, sizeof path, "/timing/%s", timing_name(r, t));
        if (op_series_create(ctx, &r->run, &r->timing[t], path, OP_SERIES_FLOAT64, 0, NULL, "ms", "per frame") != OP_OK)
            return ctx->status;
    }
    return OP_OK;
}

/* The running variant's slot of counter `name`, or −1 when it does not publish it */
static int counter_slot(const op_solver_type *solver, const char *name)
{
    for (int c = 0; solver->counters && solver->counters[c].name; ++c)
        if (strcmp(solver->counters[c].name, name) == 0)
            return c;
    return -1;
}

/* Whether a series /solver/<name> is made already */
static int counter_made(const recorder *r, const op_solver_type *const *types, const int *entries, const char *name)
{
    for (int k = 0; k < r->counter_count; ++k)
        if (strcmp(types[k]->counters[entries[k]].name, name) == 0)
            return 1;
    return 0;
}

/* /solver/<name> of every counter a registered variant publishes (solver.h), once a name,
 * whichever variant runs: the run files of all variants have the same datasets */
static int create_variant_counters(op_ctx *ctx, recorder *r, const op_solver_type *solver)
{
    const op_solver_type *types[COUNTERS_MAX];
    int entries[COUNTERS_MAX];
    for (int v = 0; op_solver_registry[v]; ++v) {
        const op_solver_type *type = op_solver_registry[v];
        for (int c = 0; type->counters && type->counters[c].name; ++c) {
            const op_solver_counter *counter = &type->counters[c];
            if (counter_made(r, types, entries, counter->name))
                continue;
            if (r->counter_count == COUNTERS_MAX)
                return OP_FAIL(ctx, OP_ERR_INVALID, "record: the variants publish more than %d counters", COUNTERS_MAX);
            char path[96];
            snprintf(path, sizeof path, "/solver/%s", counter->name);
            int k = r->counter_count;
            if (op_series_create(ctx, &r->run, &r->counter[k], path, OP_SERIES_INT64, 0, NULL, "1",
                                 counter->description) != OP_OK)
                return ctx->status;
            types[k] = type;
            entries[k] = c;
            r->counter_slot[k] = counter_slot(solver, counter->name);
            r->counter_count++;
        }
    }
    return OP_OK;
}

/* A frame's sub-steps of every counter: the running variant's counts, 0 for the others' */
static int append_variant_counters(op_ctx *ctx, recorder *r, int substeps)
{
    for (int k = 0; k < r->counter_count; ++k) {
        for (int sub = 0; sub < substeps; ++sub)
            r->count_rows[sub] =
                r->counter_slot[k] < 0 ? 0 : r->counts[sub * OP_SOLVER_MAX_COUNTERS + r->counter_slot[k]];
        if (op_series_append(ctx, &r->run, &r->counter[k], r->count_rows, substeps) != OP_OK)
            return ctx->status;
    }
    return OP_OK;
}

/* One H5MD structure (h5md.h) over `rows` states of every body: metadata, then each body's
 * particle group over its rows of the series */
static int write_h5md_structure(op_ctx *ctx, recorder *r, const op_world *w, op_h5md_sampling sampling, long rows)
{
    if (op_h5md_write_metadata(ctx, &r->run, sampling) != OP_OK)
        return ctx->status;
    int64_t offset = 0;
    int models = 0;
    for (int b = 0; b < w->body_count; ++b) {
        const op_body *body = &w->bodies[b];
        int first = 0; /* the first body of this model */
        while (w->bodies[first].model != body->model)
            ++first;
        int species = first == b ? models++ : 0; /* an instance links its model's first body's */
        op_h5md_body h = { .name = body->name,
                           .offset = offset,
                           .total = r->particles,
                           .rows = rows,
                           .graph = body->graph,
                           .species = species,
                           .same_model = first < b ? w->bodies[first].name : NULL,
                           .sampling = sampling };
        if (op_h5md_write_body(ctx, &r->run, &h) != OP_OK)
            return ctx->status;
        offset += body->graph->particle_count;
    }
    return OP_OK;
}

/* The H5MD elements, once the run is complete: the frames' structure at the file's root and,
 * with `output = substeps`, the sub-steps' at /substeps */
static int write_h5md(op_ctx *ctx, recorder *r, const op_world *w)
{
    if (write_h5md_structure(ctx, r, w, OP_H5MD_FRAMES, r->position.rows) != OP_OK)
        return ctx->status;
    if (r->output_substeps)
        return write_h5md_structure(ctx, r, w, OP_H5MD_SUBSTEPS, r->substep_state[0].rows);
    return OP_OK;
}

static int create_series(op_ctx *ctx, recorder *r, const op_scene *scene)
{
    const op_world *w = &scene->world;
    op_runfile *run = &r->run;
    int64_t vec[2] = { r->particles, 3 }, mat[3] = { r->particles, 3, 3 };
    int64_t energy_row[1] = { w->def.iterations + 1 };
    if (op_series_create(ctx, run, &r->position, "/states/position/value", OP_SERIES_FLOAT64, 2, vec, "m",
                         "particle centres x_i, every body's in body order") != OP_OK ||
        op_series_create(ctx, run, &r->position_step, "/states/position/step", OP_SERIES_INT64, 0, NULL, "1",
                         "frame index") != OP_OK ||
        op_series_create(ctx, run, &r->position_time, "/states/position/time", OP_SERIES_FLOAT64, 0, NULL, "s",
                         "simulated time of each row") != OP_OK ||
        op_series_create(ctx, run, &r->orientation, "/states/orientation/value", OP_SERIES_FLOAT64, 3, mat, "1",
                         "rotations R_i, row-major; current axes E_i = R_i rest_axes_i") != OP_OK ||
        op_series_create(ctx, run, &r->orientation_step, "/states/orientation/step", OP_SERIES_INT64, 0, NULL,
                         "1", "frame index") != OP_OK ||
        op_series_create(ctx, run, &r->orientation_time, "/states/orientation/time", OP_SERIES_FLOAT64, 0, NULL,
                         "s", "simulated time of each row") != OP_OK ||
        op_series_create(ctx, run, &r->velocity, "/states/velocity/value", OP_SERIES_FLOAT64, 2, vec, "m s-1",
                         "particle velocities v_i as the solver holds them after the frame's last sub-step (its "
                         "floor and contacts included)") != OP_OK ||
        op_h5md_link_step_time(ctx, &r->run, OP_H5MD_FRAMES, "velocity") != OP_OK)
        return ctx->status;
    if (w->def.log_energy)
        for (int e = 0; e < ENERGY_TERMS; ++e) {
            char path[64];
            snprintf(path, sizeof path, "/solver/energy/%s", energy_names[e]);
            if (op_series_create(ctx, run, &r->energy_series[e], path, OP_SERIES_FLOAT64, 1, energy_row, "J",
                                 "per sub-step; column 0 before the first iteration, k after the k-th") != OP_OK)
                return ctx->status;
            snprintf(path, sizeof path, "/solver/energy_after_contacts/%s", energy_names[e]);
            if (op_series_create(ctx, run, &r->energy_after_series[e], path, OP_SERIES_FLOAT64, 0, NULL, "J",
                                 "per sub-step: the state after its contacts, with the sub-step's h, y and Y") !=
                OP_OK)
                return ctx->status;
        }
    if (op_series_create(ctx, run, &r->floor_reach_series, "/collision/floor_reach_before", OP_SERIES_FLOAT64, 0, NULL, "m",
                         "per sub-step: deepest reach below the floor before the floor pushed a particle back") !=
        OP_OK)
        return ctx->status;
    if (op_series_create(ctx, run, &r->penetration_series, "/collision/penetration", OP_SERIES_FLOAT64, 0, NULL, "m",
                         "per sub-step: the deepest penetration between bodies in the state the sub-step ends in, "
                         "over every pair within reach (core/contact/collide.h)") != OP_OK)
        return ctx->status;
    if (create_accel_counters(ctx, r) != OP_OK || create_timing(ctx, r) != OP_OK)
        return ctx->status;
    if (op_series_create(ctx, run, &r->handoff, "/timing/handoff", OP_SERIES_FLOAT64, 0, NULL, "ns",
                         "per frame: a cache line's time between two threads' cores, measured at the frame's start "
                         "under collision_threads = auto (core/sim/team.h), a record of the machine that no choice reads; "
                         "NaN when not measured") != OP_OK ||
        op_series_create(ctx, run, &r->contacts_on_one_thread, "/timing/contacts_on_one_thread", OP_SERIES_INT64, 0,
                         NULL, "1",
                         "per frame: 1 when every contact call between bodies ran on one thread (collision_threads = "
                         "one, or auto having timed one thread the faster), 0 otherwise (OpenMP's team, or auto "
                         "timing both within the frame)") != OP_OK ||
        op_series_create(ctx, run, &r->units_on_one_thread, "/timing/units_on_one_thread", OP_SERIES_INT64, 0, NULL,
                         "1",
                         "per frame: 1 when every sub-step stepped the bodies on one thread (schedule_threads = one, "
                         "auto having timed one thread the faster, or one body), 0 otherwise (OpenMP's team, or auto "
                         "timing both within the frame)") != OP_OK ||
        op_series_create(ctx, run, &r->sweeps_on_team, "/timing/sweeps_on_team", OP_SERIES_INT64, 0, NULL, "1",
                         "per frame: 1 when every sub-step offered the bodies' sweeps a thread team under the variant's "
                         "sweep_threads = auto (the world having timed the team the faster), 0 otherwise (one thread, "
                         "auto timing both within the frame, or sweep_threads not auto)") != OP_OK)
        return ctx->status;
    for (int k = 0; k < COLLISION_SERIES; ++k) {
        char path[64];
        snprintf(path, sizeof path, "/collision/%s", collision_names[k]);
        int count = k < COLLISION_COUNTS;
        if (op_series_create(ctx, run, &r->collision[k], path, count ? OP_SERIES_INT64 : OP_SERIES_FLOAT64, 0, NULL,
                             count ? "1" : "m", collision_descriptions[k]) != OP_OK)
            return ctx->status;
    }
    /* the yardstick for the penetrations: the smallest semi-axis of any particle */
    double smallest = INFINITY;
    for (int b = 0; b < w->body_count; ++b)
        for (int a = 0; a < 3 * w->bodies[b].graph->particle_count; ++a)
            smallest = fmin(smallest, w->bodies[b].graph->radii[a]);
    if (op_runfile_set_attribute_double(ctx, run, "/collision", "smallest_semi_axis", smallest) != OP_OK)
        return ctx->status;
    if (create_variant_counters(ctx, r, w->solver) != OP_OK)
        return ctx->status;
    for (int o = 0; o < scene->observable_count; ++o) {
        const op_observable *obs = &scene->observables[o];
        char path[3][160];
        snprintf(path[0], sizeof path[0], "/observables/%s/value", obs->name);
        snprintf(path[1], sizeof path[1], "/observables/%s/step", obs->name);
        snprintf(path[2], sizeof path[2], "/observables/%s/time", obs->name);
        if (op_series_create(ctx, run, &r->observable[o][0], path[0], OP_SERIES_FLOAT64, 0, NULL,
                             op_observable_kind_unit(obs->kind), op_observable_kind_name(obs->kind)) != OP_OK ||
            op_series_create(ctx, run, &r->observable[o][1], path[1], OP_SERIES_INT64, 0, NULL, "1", "frame index") !=
                OP_OK ||
            op_series_create(ctx, run, &r->observable[o][2], path[2], OP_SERIES_FLOAT64, 0, NULL, "s",
                             "simulated time of each row") != OP_OK)
            return ctx->status;
    }
    return OP_OK;
}

static int append_step_time(op_ctx *ctx, recorder *r, op_series *step, op_series *time, const op_world *w)
{
    int64_t frame = w->frame;
    double t = w->time;
    if (op_series_append(ctx, &r->run, step, &frame, 1) != OP_OK || op_series_append(ctx, &r->run, time, &t, 1) != OP_OK)
        return ctx->status;
    return OP_OK;
}

/* The layout the XDMF sidecar (core/io/xdmf.h) points at besides the particle states:
 * /states/index, the identity 0 .. N-1 whose first n entries are the vertex list of any
 * body's particles (XDMF can only point at datasets, and a polyvertex grid without one shows
 * no cells in ParaView's XDMF 3 reader); each body's vertex_offset and store_surface in
 * /parameters; and, when stored, the skinned surface series. */
static int create_surface(op_ctx *ctx, recorder *r, const op_world *w)
{
    op_runfile *run = &r->run;
    int64_t particles = r->particles;
    int64_t *index = op_calloc(ctx, (size_t)particles, sizeof *index);
    if (!index)
        return ctx->status;
    for (int64_t i = 0; i < particles; ++i)
        index[i] = i;
    int status = op_runfile_write_array(ctx, run, "/states/index", OP_SERIES_INT64, 1, &particles, index);
    free(index);
    if (status != OP_OK ||
        op_runfile_set_attribute_string(ctx, run, "/states/index", "description",
                                        "0 .. N-1: the first n entries list any body's n particles") != OP_OK ||
        op_runfile_set_attribute_string(ctx, run, "/states/index", "unit", "1") != OP_OK ||
        op_runfile_set_attribute_int(ctx, run, "/parameters", "store_surface", r->store_surface) != OP_OK)
        return ctx->status;
    int64_t vertices = 0;
    for (int b = 0; b < w->body_count; ++b) {
        char path[128];
        snprintf(path, sizeof path, "/parameters/%s", w->bodies[b].name);
        if (op_runfile_set_attribute_int(ctx, run, path, "vertex_offset", vertices) != OP_OK)
            return ctx->status;
        vertices += w->bodies[b].model->mesh.vertex_count;
    }
    if (!r->store_surface)
        return OP_OK;
    r->surface_rows = op_calloc(ctx, 3 * (size_t)vertices, sizeof(double));
    int64_t row[2] = { vertices, 3 };
    if (!r->surface_rows ||
        op_series_create(ctx, run, &r->surface, "/surface/position/value", OP_SERIES_FLOAT64, 2, row, "m",
                         "skinned visual vertices (Eq. 2) at each output frame; body b from its vertex_offset "
                         "in /parameters/<b>") != OP_OK ||
        op_series_create(ctx, run, &r->surface_step, "/surface/position/step", OP_SERIES_INT64, 0, NULL, "1",
                         "frame index") != OP_OK ||
        op_series_create(ctx, run, &r->surface_time, "/surface/position/time", OP_SERIES_FLOAT64, 0, NULL, "s",
                         "simulated time of each row") != OP_OK)
        return ctx->status;
    return OP_OK;
}

/* Each body's visual mesh skinned by its current state, as `opsim export --skinned` does. */
static int append_surface(op_ctx *ctx, recorder *r, const op_world *w)
{
    if (!r->store_surface)
        return OP_OK;
    size_t offset = 0;
    for (int b = 0; b < w->body_count; ++b) {
        const op_body *body = &w->bodies[b];
        const op_model *m = body->model;
        op_skin_apply(&m->skin, &m->graph, &body->state, m->mesh.vertices, &r->surface_rows[3 * offset]);
        offset += (size_t)m->mesh.vertex_count;
    }
    if (op_series_append(ctx, &r->run, &r->surface, r->surface_rows, 1) != OP_OK ||
        append_step_time(ctx, r, &r->surface_step, &r->surface_time, w) != OP_OK)
        return ctx->status;
    return OP_OK;
}

/* Every body's state, in body order, into r->positions, r->orientations and r->velocities */
static void collect_state(recorder *r, const op_world *w)
{
    int offset = 0;
    for (int b = 0; b < w->body_count; ++b) {
        const op_state *s = &w->bodies[b].state;
        memcpy(&r->positions[3 * offset], s->position, 3 * (size_t)s->particle_count * sizeof(double));
        memcpy(&r->orientations[9 * offset], s->rotation, 9 * (size_t)s->particle_count * sizeof(double));
        memcpy(&r->velocities[3 * offset], s->velocity, 3 * (size_t)s->particle_count * sizeof(double));
        offset += s->particle_count;
    }
}

/* `output = substeps`: /substeps/{position,orientation,velocity}/{value,step,time}, laid out as
 * /states' with step the sub-step index (0 at the start); velocity's step and time are links to
 * position's */
static int create_substep_series(op_ctx *ctx, recorder *r)
{
    if (!r->output_substeps)
        return OP_OK;
    int64_t vec[2] = { r->particles, 3 }, mat[3] = { r->particles, 3, 3 };
    static const char *const names[2] = { "position", "orientation" };
    static const char *const descriptions[2] = {
        "particle centres x_i after every sub-step (the first row: the start)",
        "rotations R_i, row-major, after every sub-step (the first row: the start)"
    };
    for (int k = 0; k < 2; ++k) {
        char path[3][64];
        snprintf(path[0], sizeof path[0], "/substeps/%s/value", names[k]);
        snprintf(path[1], sizeof path[1], "/substeps/%s/step", names[k]);
        snprintf(path[2], sizeof path[2], "/substeps/%s/time", names[k]);
        op_series *s = &r->substep_state[3 * k];
        if (op_series_create(ctx, &r->run, &s[0], path[0], OP_SERIES_FLOAT64, k == 0 ? 2 : 3, k == 0 ? vec : mat,
                             k == 0 ? "m" : "1", descriptions[k]) != OP_OK ||
            op_series_create(ctx, &r->run, &s[1], path[1], OP_SERIES_INT64, 0, NULL, "1",
                             "sub-step index, 0 at the start") != OP_OK ||
            op_series_create(ctx, &r->run, &s[2], path[2], OP_SERIES_FLOAT64, 0, NULL, "s",
                             "simulated time of each row") != OP_OK)
            return ctx->status;
    }
    if (op_series_create(ctx, &r->run, &r->substep_state[6], "/substeps/velocity/value", OP_SERIES_FLOAT64, 2, vec,
                         "m s-1",
                         "particle velocities v_i after every sub-step, as the solver holds them (its floor and "
                         "contacts included; the first row: the start)") != OP_OK ||
        op_h5md_link_step_time(ctx, &r->run, OP_H5MD_SUBSTEPS, "velocity") != OP_OK)
        return ctx->status;
    return OP_OK;
}

/* One row of /substeps: the world as its latest sub-step left it (op_frame_stats.substep_end) */
static int append_substep_state(op_ctx *ctx, void *context, const op_world *w)
{
    recorder *r = context;
    collect_state(r, w);
    int64_t step = w->substep;
    double t = w->time;
    for (int k = 0; k < 2; ++k)
        if (op_series_append(ctx, &r->run, &r->substep_state[3 * k], k == 0 ? r->positions : r->orientations, 1) !=
                OP_OK ||
            op_series_append(ctx, &r->run, &r->substep_state[3 * k + 1], &step, 1) != OP_OK ||
            op_series_append(ctx, &r->run, &r->substep_state[3 * k + 2], &t, 1) != OP_OK)
            return ctx->status;
    return op_series_append(ctx, &r->run, &r->substep_state[6], r->velocities, 1);
}

static int append_state(op_ctx *ctx, recorder *r, const op_world *w)
{
    collect_state(r, w);
    if (op_series_append(ctx, &r->run, &r->position, r->positions, 1) != OP_OK ||
        op_series_append(ctx, &r->run, &r->orientation, r->orientations, 1) != OP_OK ||
        op_series_append(ctx, &r->run, &r->velocity, r->velocities, 1) != OP_OK ||
        append_step_time(ctx, r, &r->position_step, &r->position_time, w) != OP_OK ||
        append_step_time(ctx, r, &r->orientation_step, &r->orientation_time, w) != OP_OK)
        return ctx->status;
    return append_surface(ctx, r, w);
}

static int append_observables(op_ctx *ctx, recorder *r, const op_scene *scene)
{
    for (int o = 0; o < scene->observable_count; ++o) {
        double value = op_observe(&scene->world, &scene->observables[o]);
        if (op_series_append(ctx, &r->run, &r->observable[o][0], &value, 1) != OP_OK ||
            append_step_time(ctx, r, &r->observable[o][1], &r->observable[o][2], &scene->world) != OP_OK)
            return ctx->status;
    }
    return OP_OK;
}

/* The accelerators' counters and the frame's timings: the one on (accel, or NULL) gets the
 * world's accel count and time, the others 0 */
static int append_accel(op_ctx *ctx, recorder *r, const op_accel *accel, int substeps, const op_frame_stats *stats)
{
    for (int t = 0; t < r->accel_types; ++t) {
        const op_accel_type *type = op_accel_registry[t];
        if (!type->counter_name)
            continue;
        int on = accel && accel->type == type;
        for (int sub = 0; sub < substeps; ++sub)
            r->count_rows[sub] = on ? r->accel_counts[sub] : 0;
        if (op_series_append(ctx, &r->run, &r->accel_counter[t], r->count_rows, substeps) != OP_OK)
            return ctx->status;
    }
    double times[TIMING_STAGES];
    int columns = TIMING_FIXED + r->accel_types;
    times[0] = stats->local_ms;
    times[1] = stats->global_ms;
    times[2] = stats->collision_ms;
    for (int t = 0; t < r->accel_types; ++t)
        times[TIMING_FIXED - 1 + t] = accel && accel->type == op_accel_registry[t] ? stats->accel_ms : 0.0;
    times[columns - 1] = stats->total_ms;
    for (int t = 0; t < columns; ++t)
        if (op_series_append(ctx, &r->run, &r->timing[t], &times[t], 1) != OP_OK)
            return ctx->status;
    return OP_OK;
}

static int append_frame(op_ctx *ctx, recorder *r, const op_scene *scene, const op_frame_stats *stats)
{
    const op_world_def *d = &scene->world.def;
    if (d->log_energy) {
        size_t cells = (size_t)d->substeps * (size_t)(d->iterations + 1);
        for (int e = 0; e < ENERGY_TERMS; ++e) {
            for (size_t c = 0; c < cells; ++c) {
                const op_energy *E = &r->energy[c];
                r->energy_rows[c] = e == 0 ? E->kinetic : e == 1 ? E->elastic : e == 2 ? E->constraint : E->total;
            }
            if (op_series_append(ctx, &r->run, &r->energy_series[e], r->energy_rows, d->substeps) != OP_OK)
                return ctx->status;
            for (int sub = 0; sub < d->substeps; ++sub) {
                const op_energy *E = &r->energy_after_contacts[sub];
                r->energy_rows[sub] = e == 0 ? E->kinetic : e == 1 ? E->elastic : e == 2 ? E->constraint : E->total;
            }
            if (op_series_append(ctx, &r->run, &r->energy_after_series[e], r->energy_rows, d->substeps) != OP_OK)
                return ctx->status;
        }
    }
    if (op_series_append(ctx, &r->run, &r->floor_reach_series, r->floor_reach, d->substeps) != OP_OK ||
        op_series_append(ctx, &r->run, &r->penetration_series, r->penetration, d->substeps) != OP_OK)
        return ctx->status;
    if (append_variant_counters(ctx, r, d->substeps) != OP_OK)
        return ctx->status;
    if (append_accel(ctx, r, scene->world.accel, d->substeps, stats) != OP_OK)
        return ctx->status;
    int64_t one_thread = stats->collision_threads == OP_CONTACT_THREADS_ONE;
    int64_t units_one_thread = stats->schedule_threads == OP_SCHEDULE_THREADS_ONE;
    int64_t sweeps_team = stats->sweep_threads == OP_SCHEDULE_THREADS_ALL;
    if (op_series_append(ctx, &r->run, &r->handoff, &stats->handoff_ns, 1) != OP_OK ||
        op_series_append(ctx, &r->run, &r->contacts_on_one_thread, &one_thread, 1) != OP_OK ||
        op_series_append(ctx, &r->run, &r->units_on_one_thread, &units_one_thread, 1) != OP_OK ||
        op_series_append(ctx, &r->run, &r->sweeps_on_team, &sweeps_team, 1) != OP_OK)
        return ctx->status;
    int64_t counts[COLLISION_COUNTS] = { stats->floor_contacts, stats->collision_pairs, stats->collision_contacts };
    double depths[COLLISION_SERIES - COLLISION_COUNTS] = { stats->max_penetration, stats->max_floor_penetration,
                                                           stats->max_floor_reach };
    for (int k = 0; k < COLLISION_SERIES; ++k) {
        const void *row = k < COLLISION_COUNTS ? (const void *)&counts[k] : (const void *)&depths[k - COLLISION_COUNTS];
        if (op_series_append(ctx, &r->run, &r->collision[k], row, 1) != OP_OK)
            return ctx->status;
    }
    return append_observables(ctx, r, scene);
}

op_record_def op_default_record_def(void)
{
    return (op_record_def){ .progress = NULL, .store_surface = 1, .companion = NULL };
}

int op_record_run(op_ctx *ctx, op_scene *scene, const char *path, const op_provenance *provenance, FILE *progress)
{
    op_record_def def = op_default_record_def();
    def.progress = progress;
    return op_record_run_def(ctx, scene, path, provenance, &def);
}

/* "\rRUN.h5: frame 40/150, 2.31 ms/frame, 0:04 elapsed, 0:11 left": the time left from the
 * frames' mean so far. */
static void print_progress(FILE *progress, const char *path, int frame, int frames, double frame_ms, double elapsed)
{
    double left = elapsed / frame * (frames - frame);
    fprintf(progress, "\r%s: frame %d/%d, %.2f ms/frame, %d:%02d elapsed, %d:%02d left ", path, frame, frames, frame_ms,
            (int)elapsed / 60, (int)elapsed % 60, (int)left / 60, (int)left % 60);
    fflush(progress);
}

/* Always true: a step of the chain in op_record_run_def. */
static int set_companion(recorder *r, const op_record_def *def)
{
    if (def->companion)
        op_runfile_set_companion(&r->run, def->companion);
    return 1;
}

int op_record_run_def(op_ctx *ctx, op_scene *scene, const char *path, const op_provenance *provenance,
                      const op_record_def *def)
{
    FILE *progress = def->progress;
    recorder *r = op_calloc(ctx, 1, sizeof *r);
    if (!r)
        return ctx->status;
    r->store_surface = def->store_surface;
    op_world *w = &scene->world;
    const op_world_def *d = &w->def;
    size_t cells = (size_t)d->substeps * (size_t)(d->iterations + 1);
    r->particles = op_world_particle_count(w);
    r->positions = op_calloc(ctx, 3 * (size_t)r->particles, sizeof(double));
    r->orientations = op_calloc(ctx, 9 * (size_t)r->particles, sizeof(double));
    r->velocities = op_calloc(ctx, 3 * (size_t)r->particles, sizeof(double));
    r->energy_rows = op_calloc(ctx, cells, sizeof(double));
    r->energy = op_calloc(ctx, cells, sizeof(op_energy));
    r->energy_after_contacts = op_calloc(ctx, (size_t)d->substeps, sizeof(op_energy));
    r->floor_reach = op_calloc(ctx, (size_t)d->substeps, sizeof(double));
    r->penetration = op_calloc(ctx, (size_t)d->substeps, sizeof(double));
    r->output_substeps = scene->run.output_substeps;
    r->counts = op_calloc(ctx, (size_t)d->substeps * OP_SOLVER_MAX_COUNTERS, sizeof(long));
    r->accel_counts = op_calloc(ctx, (size_t)d->substeps, sizeof(long));
    r->count_rows = op_calloc(ctx, (size_t)d->substeps, sizeof(int64_t));
    while (op_accel_registry[r->accel_types] && r->accel_types < ACCEL_MAX)
        r->accel_types++;
    if (ctx->status == OP_OK && op_runfile_create(ctx, &r->run, path, provenance) == OP_OK && set_companion(r, def) &&
        write_bodies(ctx, r, w) == OP_OK && write_parameters(ctx, r, scene) == OP_OK &&
        create_series(ctx, r, scene) == OP_OK && create_surface(ctx, r, w) == OP_OK &&
        create_substep_series(ctx, r) == OP_OK && append_state(ctx, r, w) == OP_OK &&
        (!r->output_substeps || append_substep_state(ctx, r, w) == OP_OK) &&
        append_observables(ctx, r, scene) == OP_OK && op_runfile_flush(ctx, &r->run) == OP_OK) {
        op_frame_stats stats = { .energy = r->energy,
                                 .energy_after_contacts = r->energy_after_contacts,
                                 .floor_reach = r->floor_reach,
                                 .penetration = r->penetration,
                                 .substep_end = r->output_substeps ? append_substep_state : NULL,
                                 .substep_context = r,
                                 .counts = r->counts,
                                 .accel_counts = r->accel_counts };
        double started = op_now();
        for (int frame = 1; frame <= scene->run.frames; ++frame) {
            if (op_world_step(ctx, w, &stats) != OP_OK || append_frame(ctx, r, scene, &stats) != OP_OK)
                break;
            if ((frame % scene->run.output_every == 0 || frame == scene->run.frames) && append_state(ctx, r, w) != OP_OK)
                break;
            if (op_runfile_flush(ctx, &r->run) != OP_OK)
                break;
            if (progress)
                print_progress(progress, path, frame, scene->run.frames, stats.total_ms, op_now() - started);
        }
        if (progress)
            fprintf(progress, "\n");
    }
    if (ctx->status == OP_OK)
        write_h5md(ctx, r, w);
    if (ctx->status == OP_OK)
        op_runfile_commit(ctx, &r->run); /* the caller names what was written (app/cmd_run.c) */
    if (ctx->status != OP_OK)
        op_runfile_abort(&r->run);
    free(r->positions);
    free(r->orientations);
    free(r->velocities);
    free(r->energy_rows);
    free(r->energy);
    free(r->energy_after_contacts);
    free(r->floor_reach);
    free(r->penetration);
    free(r->counts);
    free(r->accel_counts);
    free(r->count_rows);
    free(r->surface_rows);
    free(r);
    return ctx->status;
}
