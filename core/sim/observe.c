/* Scene metrics (observe.h): each is a function of the world's state alone, so every solver
 * variant is measured alike. */
#include "sim/observe.h"

#include <math.h>
#include <string.h>

#include "contact/collide.h"
#include "base/math3.h"
#include "kernels/polar.h"
#include "geometry/model.h"
#include "geometry/skin.h"
#include "sim/energy.h"

static const char *const kind_names[] = {
    [OP_OBSERVE_DEFLECTION] = "deflection",
    [OP_OBSERVE_REST_SHAPE_ERROR] = "rest_shape_error",
    [OP_OBSERVE_LOWEST_POINT] = "lowest_point",
    [OP_OBSERVE_KINETIC_ENERGY] = "kinetic_energy",
    [OP_OBSERVE_POSITION_ERROR] = "position_error",
    [OP_OBSERVE_ANGULAR_MOMENTUM] = "angular_momentum",
    [OP_OBSERVE_STRETCH_MAX] = "stretch_max",
    [OP_OBSERVE_STRETCH_MIN] = "stretch_min",
    [OP_OBSERVE_INVERTED_EDGES] = "inverted_edges",
    [OP_OBSERVE_HEIGHT] = "height",
};

enum { KIND_COUNT = sizeof kind_names / sizeof kind_names[0] };

/* UDUNITS spellings, "1" for a ratio or a count (as H5MD writes dimensionless values). */
static const char *const kind_units[KIND_COUNT] = {
    [OP_OBSERVE_DEFLECTION] = "m",         [OP_OBSERVE_REST_SHAPE_ERROR] = "1", [OP_OBSERVE_LOWEST_POINT] = "m",
    [OP_OBSERVE_KINETIC_ENERGY] = "J",     [OP_OBSERVE_POSITION_ERROR] = "m",   [OP_OBSERVE_ANGULAR_MOMENTUM] = "kg m2 s-1",
    [OP_OBSERVE_STRETCH_MAX] = "1",        [OP_OBSERVE_STRETCH_MIN] = "1",      [OP_OBSERVE_INVERTED_EDGES] = "1",
    [OP_OBSERVE_HEIGHT] = "m",
};

const char *op_observable_kind_unit(op_observable_kind kind)
{
    return (unsigned)kind < KIND_COUNT ? kind_units[kind] : "1";
}

const char *op_observable_kind_name(op_observable_kind kind)
{
    return (unsigned)kind < KIND_COUNT ? kind_names[kind] : "unknown";
}

int op_observable_kind_parse(const char *name, op_observable_kind *kind)
{
    for (int k = 0; k < KIND_COUNT; ++k)
        if (strcmp(kind_names[k], name) == 0) {
            *kind = (op_observable_kind)k;
            return 0;
        }
    return -1;
}

double op_rest_shape_fit(const op_body *body, double rotation[9], double translation[3])
{
    const op_graph *g = body->graph;
    const double *x = body->state.position, *rest = g->rest_position;
    int n = g->particle_count;
    double total = 0.0, c[3] = { 0, 0, 0 }, rest_c[3] = { 0, 0, 0 };
    for (int i = 0; i < n; ++i) {
        total += g->mass[i];
        v3_axpy(c, g->mass[i], &x[3 * i]);
        v3_axpy(rest_c, g->mass[i], &rest[3 * i]);
    }
    v3_scale(c, c, 1.0 / total);
    v3_scale(rest_c, rest_c, 1.0 / total);
    /* Centring both sides first keeps the moment free of the cancellation a large placement
     * translation would otherwise cause. */
    double H[9] = { 0 };
    for (int i = 0; i < n; ++i) {
        double d[3], rest_d[3];
        v3_sub(d, &x[3 * i], c);
        v3_sub(rest_d, &rest[3 * i], rest_c);
        m3_add_outer(H, g->mass[i], d, rest_d);
    }
    op_polar_rotation(H, rotation);
    double turned[3];
    m3_mul_v(turned, rotation, rest_c);
    v3_sub(translation, c, turned);
    double sum = 0.0;
    for (int i = 0; i < n; ++i) {
        double fit[3];
        v3_sub(fit, &rest[3 * i], rest_c);
        m3_mul_v(fit, rotation, fit);
        v3_add(fit, fit, c);
        sum += g->mass[i] * v3_dist2(fit, &x[3 * i]);
    }
    return sqrt(sum / total);
}

static double rest_diagonal(const op_graph *g)
{
    double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
    for (int i = 0; i < g->particle_count; ++i)
        for (int d = 0; d < 3; ++d) {
            lo[d] = fmin(lo[d], g->rest_position[3 * i + d]);
            hi[d] = fmax(hi[d], g->rest_position[3 * i + d]);
        }
    double extent[3];
    v3_sub(extent, hi, lo);
    return v3_norm(extent);
}

static double rest_shape_error(const op_body *body)
{
    double rotation[9], translation[3];
    double residual = op_rest_shape_fit(body, rotation, translation);
    double diagonal = rest_diagonal(body->graph);
    /* A single particle has no shape to lose (and no extent to divide by). */
    return diagonal > 0.0 ? residual / diagonal : 0.0;
}

/* Eq. 2 for one visual vertex with the body's current state. */
static void skinned_vertex(const op_body *body, int vertex, double out[3])
{
    const op_skin *skin = &body->model->skin;
    const double *rest_vertex = &body->model->mesh.vertices[3 * vertex];
    double sum[3] = { 0, 0, 0 };
    for (int s = 0; s < skin->k; ++s) {
        size_t slot = (size_t)vertex * skin->k + s;
        int j = skin->index[slot];
        double offset[3];
        v3_sub(offset, rest_vertex, &body->graph->rest_position[3 * j]);
        m3_mul_v(offset, &body->state.rotation[9 * j], offset);
        v3_add(offset, offset, &body->state.position[3 * j]);
        v3_axpy(sum, skin->weight[slot], offset);
    }
    v3_copy(out, sum);
}

static double deflection(const op_body *body, int vertex)
{
    double now[3], placed[3];
    skinned_vertex(body, vertex, now);
    m3_mul_v(placed, body->placement_rotation, &body->model->mesh.vertices[3 * vertex]);
    v3_add(placed, placed, body->placement_translation);
    return -(now[1] - placed[1]);
}

/* The lowest point of the body's ellipsoids along +y (docs/design.md §4). */
static double lowest_point(const op_body *body)
{
    double lowest = INFINITY;
    for (int i = 0; i < body->graph->particle_count; ++i)
        lowest = fmin(lowest, op_particle_lowest_point(body, i));
    return lowest;
}

/* The largest (sign +1) or smallest (sign −1) edge stretch ratio ℓ/L of the body. */
static double edge_stretch(const op_body *body, double sign)
{
    const op_graph *g = body->graph;
    const double *x = body->state.position;
    double extreme = -INFINITY;
    for (int i = 0; i < g->particle_count; ++i)
        for (int k = g->adjacency_start[i]; k < g->adjacency_start[i + 1]; ++k) {
            int j = g->adjacency[k];
            if (j < i)
                continue;
            double ratio = sqrt(v3_dist2(&x[3 * i], &x[3 * j]) /
                                v3_dist2(&g->rest_position[3 * i], &g->rest_position[3 * j]));
            extreme = fmax(extreme, sign * ratio);
        }
    return sign * extreme;
}

static double inverted_edges(const op_body *body)
{
    const op_graph *g = body->graph;
    const double *x = body->state.position;
    double R[9], t[3];
    op_rest_shape_fit(body, R, t);
    int count = 0;
    for (int i = 0; i < g->particle_count; ++i)
        for (int k = g->adjacency_start[i]; k < g->adjacency_start[i + 1]; ++k) {
            int j = g->adjacency[k];
            double now[3], rest[3], turned[3];
            if (j < i)
                continue;
            v3_sub(now, &x[3 * i], &x[3 * j]);
            v3_sub(rest, &g->rest_position[3 * i], &g->rest_position[3 * j]);
            m3_mul_v(turned, R, rest);
            count += v3_dot(now, turned) < 0.0;
        }
    return count;
}

static double height(const op_body *body)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < body->graph->particle_count; ++i) {
        lo = fmin(lo, body->state.position[3 * i + 1]);
        hi = fmax(hi, body->state.position[3 * i + 1]);
    }
    return hi - lo;
}

double op_observe(const op_world *world, const op_observable *observable)
{
    const op_body *body = observable->body >= 0 ? &world->bodies[observable->body] : NULL;
    switch (observable->kind) {
    case OP_OBSERVE_DEFLECTION:
        return deflection(body, observable->vertex);
    case OP_OBSERVE_REST_SHAPE_ERROR:
        return rest_shape_error(body);
    case OP_OBSERVE_LOWEST_POINT: {
        double lowest = INFINITY;
        for (int b = 0; b < world->body_count; ++b)
            if (!body || body == &world->bodies[b])
                lowest = fmin(lowest, lowest_point(&world->bodies[b]));
        return lowest - world->def.floor_height;
    }
    case OP_OBSERVE_KINETIC_ENERGY: {
        double sum = 0.0;
        for (int b = 0; b < world->body_count; ++b)
            if (!body || body == &world->bodies[b])
                sum += op_energy_motion(&world->bodies[b]);
        return sum;
    }
    case OP_OBSERVE_ANGULAR_MOMENTUM: {
        double mass = 0.0, centre[3] = { 0, 0, 0 }, total[3] = { 0, 0, 0 };
        for (int b = 0; b < world->body_count; ++b)
            if (!body || body == &world->bodies[b]) {
                const op_graph *g = world->bodies[b].graph;
                for (int i = 0; i < g->particle_count; ++i) {
                    mass += g->mass[i];
                    v3_axpy(centre, g->mass[i], &world->bodies[b].state.position[3 * i]);
                }
            }
        v3_scale(centre, centre, 1.0 / mass);
        for (int b = 0; b < world->body_count; ++b)
            if (!body || body == &world->bodies[b]) {
                double linear[3], angular[3];
                op_energy_momentum(&world->bodies[b], centre, linear, angular);
                v3_add(total, total, angular);
            }
        return v3_norm(total);
    }
    case OP_OBSERVE_POSITION_ERROR: {
        const op_constraint *c = &body->constraints[observable->constraint];
        double point[3];
        op_constraint_skinned_point(body, c, point);
        return sqrt(v3_dist2(point, c->target));
    }
    case OP_OBSERVE_STRETCH_MAX:
        return edge_stretch(body, 1.0);
    case OP_OBSERVE_STRETCH_MIN:
        return edge_stretch(body, -1.0);
    case OP_OBSERVE_INVERTED_EDGES:
        return inverted_edges(body);
    case OP_OBSERVE_HEIGHT:
        return height(body);
    }
    return NAN;
}
