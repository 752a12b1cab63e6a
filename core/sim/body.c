/* Bodies: placement at rest, pins, position and direction constraints through the skinning,
 * and the consistency check every solver can rely on. */
#include "opsim/body.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/math3.h"
#include "geometry/model.h"
#include "geometry/skin.h"

/* Rotations are accepted to this accuracy (orthonormality and det = +1). */
#define ROTATION_TOL 1e-9

static int is_rotation(const double r[9])
{
    return m3_isfinite(r) && m3_orthonormality_error(r) <= ROTATION_TOL && fabs(m3_det(r) - 1.0) <= ROTATION_TOL;
}

static int body_alloc(op_ctx *ctx, op_body *body, int n)
{
    if (op_state_alloc(ctx, &body->state, n) != OP_OK)
        return ctx->status;
    size_t count = (size_t)n;
    body->start_position = op_calloc(ctx, 3 * count, sizeof(double));
    body->start_rotation = op_calloc(ctx, 9 * count, sizeof(double));
    body->inertial_position = op_calloc(ctx, 3 * count, sizeof(double));
    body->inertial_rotation = op_calloc(ctx, 9 * count, sizeof(double));
    body->position_pinned = op_calloc(ctx, count, 1);
    body->rotation_pinned = op_calloc(ctx, count, 1);
    body->floor_push = op_calloc(ctx, count, sizeof(double));
    return ctx->status;
}

int op_body_init(op_ctx *ctx, op_body *body, const char *name, const op_model *model, double stiffness,
                 const double placement_rotation[9], const double placement_translation[3])
{
    memset(body, 0, sizeof *body);
    if (!name)
        return OP_FAIL(ctx, OP_ERR_INVALID, "a body needs a name");
    if (strlen(name) >= sizeof body->name)
        return OP_FAIL(ctx, OP_ERR_INVALID, "body name '%.20s...' is longer than %zu characters", name,
                       sizeof body->name - 1);
    if (!model)
        return OP_FAIL(ctx, OP_ERR_INVALID, "body %s: no model", name);
    if (!isfinite(stiffness) || stiffness < 0.0)
        return OP_FAIL(ctx, OP_ERR_INVALID, "body %s: stiffness %g is not finite and >= 0", name, stiffness);
    if (!is_rotation(placement_rotation))
        return OP_FAIL(ctx, OP_ERR_INVALID, "body %s: the placement is not a rotation (to %g)", name, ROTATION_TOL);
    if (!v3_isfinite(placement_translation))
        return OP_FAIL(ctx, OP_ERR_INVALID, "body %s: non-finite placement translation", name);
    strcpy(body->name, name);
    body->model = model;
    body->graph = &model->graph;
    body->stiffness = stiffness;
    m3_copy(body->placement_rotation, placement_rotation);
    v3_copy(body->placement_translation, placement_translation);
    int n = model->graph.particle_count;
    if (body_alloc(ctx, body, n) != OP_OK) {
        op_body_free(body);
        return ctx->status;
    }
    op_state *s = &body->state;
    for (int i = 0; i < n; ++i) {
        double *x = &s->position[3 * i];
        m3_mul_v(x, placement_rotation, &model->graph.rest_position[3 * i]);
        v3_add(x, x, placement_translation);
        m3_copy(&s->rotation[9 * i], placement_rotation);
    }
    memcpy(body->start_position, s->position, 3 * (size_t)n * sizeof(double));
    memcpy(body->inertial_position, s->position, 3 * (size_t)n * sizeof(double));
    memcpy(body->start_rotation, s->rotation, 9 * (size_t)n * sizeof(double));
    memcpy(body->inertial_rotation, s->rotation, 9 * (size_t)n * sizeof(double));
    return OP_OK;
}

void op_body_free(op_body *body)
{
    op_state_free(&body->state);
    OP_FREE(body->start_position);
    OP_FREE(body->start_rotation);
    OP_FREE(body->inertial_position);
    OP_FREE(body->inertial_rotation);
    OP_FREE(body->pins);
    OP_FREE(body->constraints);
    OP_FREE(body->position_pinned);
    OP_FREE(body->rotation_pinned);
    OP_FREE(body->floor_push);
    body->pin_count = 0;
    body->constraint_count = 0;
}

int op_body_add_pin(op_ctx *ctx, op_body *body, int particle, int hold_position, int hold_rotation)
{
    if (particle < 0 || particle >= body->state.particle_count)
        return OP_FAIL(ctx, OP_ERR_INVALID, "body %s: pin on particle %d, which is outside 0..%d", body->name,
                       particle, body->state.particle_count - 1);
    if (!hold_position && !hold_rotation)
        return OP_FAIL(ctx, OP_ERR_INVALID, "body %s: a pin on particle %d that holds nothing", body->name, particle);
    op_pin *pins = realloc(body->pins, ((size_t)body->pin_count + 1) * sizeof *pins);
    if (!pins)
        return OP_FAIL(ctx, OP_ERR_NOMEM, "body %s: out of memory adding a pin", body->name);
    body->pins = pins;
    op_pin *pin = &pins[body->pin_count++];
    pin->particle = particle;
    pin->hold_position = hold_position != 0;
    pin->hold_rotation = hold_rotation != 0;
    v3_copy(pin->position, &body->state.position[3 * particle]);
    m3_copy(pin->rotation, &body->state.rotation[9 * particle]);
    if (pin->hold_position)
        body->position_pinned[particle] = 1;
    if (pin->hold_rotation)
        body->rotation_pinned[particle] = 1;
    return OP_OK;
}

int op_body_add_constraint(op_ctx *ctx, op_body *body, op_constraint_kind kind, int vertex,
                           const double rest_direction[3], double weight, int script)
{
    const op_mesh *mesh = &body->model->mesh;
    const op_skin *skin = &body->model->skin;
    if (kind != OP_CONSTRAINT_POSITION && kind != OP_CONSTRAINT_DIRECTION)
        return OP_FAIL(ctx, OP_ERR_INVALID, "body %s: unknown constraint kind %d", body->name, (int)kind);
    if (vertex < 0 || vertex >= mesh->vertex_count || vertex >= skin->vertex_count)
        return OP_FAIL(ctx, OP_ERR_INVALID, "body %s: constraint on vertex %d, which is outside 0..%d", body->name,
                       vertex, mesh->vertex_count - 1);
    if (!isfinite(weight) || weight <= 0.0)
        return OP_FAIL(ctx, OP_ERR_INVALID, "body %s: constraint weight %g is not finite and > 0", body->name, weight);
    if (script < -1)
        return OP_FAIL(ctx, OP_ERR_INVALID, "body %s: constraint script index %d", body->name, script);
    op_constraint c;
    memset(&c, 0, sizeof c);
    c.kind = kind;
    c.weight = weight;
    c.vertex = vertex;
    c.script = script;
    for (int s = 0; s < skin->k; ++s) {
        double w = skin->weight[(size_t)vertex * skin->k + s];
        if (w == 0.0)
            continue;
        c.particle[c.influence_count] = skin->index[(size_t)vertex * skin->k + s];
        c.influence[c.influence_count++] = w;
    }
    if (c.influence_count == 0)
        return OP_FAIL(ctx, OP_ERR_INVALID, "body %s: vertex %d is bound to no particle", body->name, vertex);
    v3_copy(c.rest_point, &mesh->vertices[3 * vertex]);
    if (kind == OP_CONSTRAINT_DIRECTION) {
        double norm = rest_direction && v3_isfinite(rest_direction) ? v3_norm(rest_direction) : 0.0;
        if (!(norm > 0.0) || !isfinite(norm))
            return OP_FAIL(ctx, OP_ERR_INVALID, "body %s: direction constraint at vertex %d needs a finite non-zero "
                           "direction", body->name, vertex);
        v3_scale(c.rest_direction, rest_direction, 1.0 / norm);
        m3_mul_v(c.anchor, body->placement_rotation, c.rest_direction);
    } else {
        m3_mul_v(c.anchor, body->placement_rotation, c.rest_point);
        v3_add(c.anchor, c.anchor, body->placement_translation);
    }
    v3_copy(c.target, c.anchor);
    op_constraint *all = realloc(body->constraints, ((size_t)body->constraint_count + 1) * sizeof *all);
    if (!all)
        return OP_FAIL(ctx, OP_ERR_NOMEM, "body %s: out of memory adding a constraint", body->name);
    body->constraints = all;
    all[body->constraint_count++] = c;
    return OP_OK;
}

void op_constraint_skinned_point(const op_body *body, const op_constraint *c, double out[3])
{
    op_constraint_skinned_point_of(body, c, body->state.position, body->state.rotation, out);
}

void op_constraint_skinned_point_of(const op_body *body, const op_constraint *c, const double *position,
                                    const double *rotation, double out[3])
{
    const double *rest = body->graph->rest_position;
    double sum[3] = { 0, 0, 0 };
    for (int s = 0; s < c->influence_count; ++s) {
        int j = c->particle[s];
        double offset[3];
        v3_sub(offset, c->rest_point, &rest[3 * j]);
        m3_mul_v(offset, &rotation[9 * j], offset);
        v3_add(offset, offset, &position[3 * j]);
        v3_axpy(sum, c->influence[s], offset);
    }
    v3_copy(out, sum);
}

void op_constraint_skinned_direction(const op_body *body, const op_constraint *c, double out[3])
{
    double sum[3] = { 0, 0, 0 };
    for (int s = 0; s < c->influence_count; ++s) {
        double turned[3];
        m3_mul_v(turned, &body->state.rotation[9 * c->particle[s]], c->rest_direction);
        v3_axpy(sum, c->influence[s], turned);
    }
    v3_copy(out, sum);
}

int op_body_nearest_vertex(const op_body *body, const double p[3])
{
    const op_mesh *mesh = &body->model->mesh;
    return v3_nearest(mesh->vertices, mesh->vertex_count, p);
}

void op_body_mass_centre(const op_body *body, double centre[3])
{
    const op_graph *g = body->graph;
    double total = 0.0, sum[3] = { 0, 0, 0 };
    for (int i = 0; i < g->particle_count; ++i) {
        total += g->mass[i];
        v3_axpy(sum, g->mass[i], &body->state.position[3 * i]);
    }
    v3_scale(centre, sum, 1.0 / total);
}

void op_body_set_rigid_velocity(op_body *body, const double velocity[3], const double angular_velocity[3])
{
    double c[3], spin[9];
    op_body_mass_centre(body, c);
    m3_cross_matrix(spin, angular_velocity);
    for (int i = 0; i < body->graph->particle_count; ++i) {
        double arm[3], *v = &body->state.velocity[3 * i];
        v3_sub(arm, &body->state.position[3 * i], c);
        v3_cross(v, angular_velocity, arm);
        v3_add(v, v, velocity);
        m3_mul(&body->state.rotation_rate[9 * i], spin, &body->state.rotation[9 * i]);
    }
}

int op_body_centre_particle(const op_body *body)
{
    const op_graph *g = body->graph;
    double total = 0.0, centre[3] = { 0, 0, 0 };
    for (int i = 0; i < g->particle_count; ++i) {
        total += g->mass[i];
        v3_axpy(centre, g->mass[i], &g->rest_position[3 * i]);
    }
    v3_scale(centre, centre, 1.0 / total);
    return v3_nearest(g->rest_position, g->particle_count, centre);
}

int op_body_check(op_ctx *ctx, const op_body *body)
{
    const char *name = body->name;
    const op_state *s = &body->state;
    int n = s->particle_count;
    if (!body->graph || n != body->graph->particle_count)
        return OP_FAIL(ctx, OP_ERR_INVALID, "body %s: state has %d particles, the graph %d", name, n,
                       body->graph ? body->graph->particle_count : -1);
    if (!isfinite(body->stiffness) || body->stiffness < 0.0)
        return OP_FAIL(ctx, OP_ERR_INVALID, "body %s: stiffness %g", name, body->stiffness);
    for (int i = 0; i < n; ++i) {
        if (!v3_isfinite(&s->position[3 * i]) || !v3_isfinite(&s->velocity[3 * i]) ||
            !m3_isfinite(&s->rotation[9 * i]) || !m3_isfinite(&s->rotation_rate[9 * i]))
            return OP_FAIL(ctx, OP_ERR_INVALID, "body %s: particle %d has a non-finite state", name, i);
        const double *r = &s->rotation[9 * i];
        if (!is_rotation(r))
            return OP_FAIL(ctx, OP_ERR_INVALID, "body %s: particle %d's orientation is not a rotation "
                           "(|RᵀR − I| = %.3g, det = %.17g)", name, i, m3_orthonormality_error(r), m3_det(r));
    }
    for (int p = 0; p < body->pin_count; ++p) {
        const op_pin *pin = &body->pins[p];
        if (pin->particle < 0 || pin->particle >= n)
            return OP_FAIL(ctx, OP_ERR_INVALID, "body %s: pin %d on particle %d, outside 0..%d", name, p,
                           pin->particle, n - 1);
        if (!v3_isfinite(pin->position) || !m3_isfinite(pin->rotation))
            return OP_FAIL(ctx, OP_ERR_INVALID, "body %s: pin %d holds a non-finite value", name, p);
    }
    for (int k = 0; k < body->constraint_count; ++k) {
        const op_constraint *c = &body->constraints[k];
        if (c->kind != OP_CONSTRAINT_POSITION && c->kind != OP_CONSTRAINT_DIRECTION)
            return OP_FAIL(ctx, OP_ERR_INVALID, "body %s: constraint %d has unknown kind %d", name, k, (int)c->kind);
        if (c->influence_count < 1 || c->influence_count > OP_SKIN_MAX_K)
            return OP_FAIL(ctx, OP_ERR_INVALID, "body %s: constraint %d has %d influences", name, k,
                           c->influence_count);
        for (int j = 0; j < c->influence_count; ++j)
            if (c->particle[j] < 0 || c->particle[j] >= n || !isfinite(c->influence[j]))
                return OP_FAIL(ctx, OP_ERR_INVALID, "body %s: constraint %d: influence %d (particle %d, weight %g)",
                               name, k, j, c->particle[j], c->influence[j]);
        if (c->vertex < 0 || c->vertex >= body->model->mesh.vertex_count)
            return OP_FAIL(ctx, OP_ERR_INVALID, "body %s: constraint %d on vertex %d, outside 0..%d", name, k,
                           c->vertex, body->model->mesh.vertex_count - 1);
        if (!isfinite(c->weight) || c->weight <= 0.0 || !v3_isfinite(c->target) || !v3_isfinite(c->anchor) ||
            !v3_isfinite(c->rest_point) || !v3_isfinite(c->rest_direction))
            return OP_FAIL(ctx, OP_ERR_INVALID, "body %s: constraint %d has a non-finite or non-positive value", name,
                           k);
    }
    return OP_OK;
}
