/* The deepest overlap between bodies in one state, from the state alone (overlap.h). */
#include "contact/overlap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/math3.h"
#include "contact/collide.h"
#include "opsim/body.h"
#include "opsim/graph.h"
#include "opsim/runfile.h"

void op_overlap_bounds(op_overlap_shapes *shapes)
{
    for (int q = 0; q < shapes->count; ++q) {
        const double *r = &shapes->radii[3 * q];
        shapes->bound[q] = fmax(r[0], fmax(r[1], r[2]));
    }
}

/* Particle q's reach along unit n: E = R Ē, then op_support_distance */
static double reach_along(const op_overlap_shapes *shapes, const double *rotation, int q, const double n[3])
{
    double axes[9];
    m3_mul(axes, &rotation[9 * q], &shapes->rest_axes[9 * q]);
    return op_support_distance(axes, &shapes->radii[3 * q], n);
}

/* Pair (a, b)'s penetration along the centre line (+y when the centres coincide) */
static double pair_depth(const op_overlap_shapes *shapes, const double *position, const double *rotation, int a, int b)
{
    double n[3];
    v3_sub(n, &position[3 * b], &position[3 * a]);
    double length = v3_norm(n);
    if (length > 0)
        v3_scale(n, n, 1.0 / length);
    else
        n[0] = n[2] = 0.0, n[1] = 1.0;
    return reach_along(shapes, rotation, a, n) + reach_along(shapes, rotation, b, n) - length;
}

int op_overlap_deepest(op_ctx *ctx, op_broad_phase *bp, const op_overlap_shapes *shapes, const double *position,
                       const double *rotation, double *deepest, int *i, int *j)
{
    double most = 0.0;
    int at_i = -1, at_j = -1;
    if (op_broad_phase_find(ctx, bp, shapes->count, position, shapes->bound, shapes->group, 0.0) != OP_OK)
        return ctx->status;
    for (int k = 0; k < bp->pair_count; ++k) {
        int a = bp->pairs[k].i, b = bp->pairs[k].j;
        double p = pair_depth(shapes, position, rotation, a, b);
        if (p > most) {
            most = p;
            at_i = a;
            at_j = b;
        }
    }
    *deepest = most;
    if (i)
        *i = at_i;
    if (j)
        *j = at_j;
    return OP_OK;
}

/* The smallest semi-axis of particle q */
static double least_of(const op_overlap_shapes *shapes, int q)
{
    const double *r = &shapes->radii[3 * q];
    return fmin(r[0], fmin(r[1], r[2]));
}

/* The floor's part of op_overlap_start: the first position-free particle, body by body, reaching
 * below the floor deeper than the tolerance */
static void start_in_floor(const op_body *bodies, int count, double height, op_start_fault *fault)
{
    for (int b = 0; b < count; ++b)
        for (int i = 0; i < bodies[b].graph->particle_count; ++i) {
            const double *r = &bodies[b].graph->radii[3 * i];
            double depth = height - op_particle_lowest_point(&bodies[b], i);
            double allowed = OP_START_TOLERANCE * fmin(r[0], fmin(r[1], r[2]));
            if (!bodies[b].position_pinned[i] && depth > allowed) {
                *fault = (op_start_fault){ b, -1, i, -1, depth, allowed };
                return;
            }
        }
}

/* Every body's particles in one list (global index, body by body), as op_overlap_deepest reads
 * them, with each particle's position pin */
typedef struct start_list {
    op_overlap_shapes shapes;
    double *axes, *radii, *position, *rotation;
    int *group, *local;
    unsigned char *pinned;
} start_list;

static int list_bodies(op_ctx *ctx, const op_body *bodies, int count, start_list *list)
{
    int n = 0;
    for (int b = 0; b < count; ++b)
        n += bodies[b].graph->particle_count;
    size_t m = (size_t)n + 1;
    if (!(list->axes = op_calloc(ctx, 9 * m, sizeof(double))) || !(list->radii = op_calloc(ctx, 3 * m, sizeof(double))) ||
        !(list->position = op_calloc(ctx, 3 * m, sizeof(double))) ||
        !(list->rotation = op_calloc(ctx, 9 * m, sizeof(double))) || !(list->group = op_calloc(ctx, m, sizeof(int))) ||
        !(list->local = op_calloc(ctx, m, sizeof(int))) || !(list->pinned = op_calloc(ctx, m, 1)) ||
        !(list->shapes.bound = op_calloc(ctx, m, sizeof(double))))
        return ctx->status;
    for (int b = 0, at = 0; b < count; at += bodies[b++].graph->particle_count) {
        const op_body *body = &bodies[b];
        int k = body->graph->particle_count;
        memcpy(&list->axes[9 * at], body->graph->rest_axes, 9 * (size_t)k * sizeof(double));
        memcpy(&list->radii[3 * at], body->graph->radii, 3 * (size_t)k * sizeof(double));
        memcpy(&list->position[3 * at], body->state.position, 3 * (size_t)k * sizeof(double));
        memcpy(&list->rotation[9 * at], body->state.rotation, 9 * (size_t)k * sizeof(double));
        for (int i = 0; i < k; ++i) {
            list->group[at + i] = b;
            list->local[at + i] = i;
            list->pinned[at + i] = body->position_pinned[i];
        }
    }
    list->shapes.count = n;
    list->shapes.rest_axes = list->axes;
    list->shapes.radii = list->radii;
    list->shapes.group = list->group;
    op_overlap_bounds(&list->shapes);
    return OP_OK;
}

static void free_list(start_list *list)
{
    free(list->axes);
    free(list->radii);
    free(list->position);
    free(list->rotation);
    free(list->group);
    free(list->local);
    free(list->pinned);
    free(list->shapes.bound);
}

/* The bodies' part: the first pair in the broad phase's order deeper than the tolerance */
static int start_in_bodies(op_ctx *ctx, const op_body *bodies, int count, op_start_fault *fault)
{
    start_list list = { 0 };
    op_broad_phase bp = { 0 };
    if (list_bodies(ctx, bodies, count, &list) == OP_OK &&
        op_broad_phase_find(ctx, &bp, list.shapes.count, list.position, list.shapes.bound, list.group, 0.0) == OP_OK)
        for (int k = 0; k < bp.pair_count; ++k) {
            int a = bp.pairs[k].i, b = bp.pairs[k].j;
            if (list.pinned[a] && list.pinned[b])
                continue;
            double depth = pair_depth(&list.shapes, list.position, list.rotation, a, b);
            double allowed = OP_START_TOLERANCE * fmin(least_of(&list.shapes, a), least_of(&list.shapes, b));
            if (depth > allowed) {
                *fault = (op_start_fault){ list.group[a], list.group[b], list.local[a], list.local[b], depth, allowed };
                break;
            }
        }
    op_broad_phase_free(&bp);
    free_list(&list);
    return ctx->status;
}

int op_overlap_start(op_ctx *ctx, const op_body *bodies, int count, int floor, double floor_height,
                     op_start_fault *fault)
{
    *fault = (op_start_fault){ -1, -1, -1, -1, 0.0, 0.0 };
    if (floor)
        start_in_floor(bodies, count, floor_height, fault);
    if (fault->body >= 0 || count < 2)
        return ctx->status;
    return start_in_bodies(ctx, bodies, count, fault);
}

/* The shapes of every body of the run file, body by body in the file's order, each at its
 * /parameters/<body> particle_offset (checked to follow the one before). */
static int read_shapes(op_ctx *ctx, const char *path, op_overlap_shapes *shapes, double **axes, double **radii,
                       int **group)
{
    char (*names)[OP_RUNFILE_NAME_SIZE] = op_calloc(ctx, OP_RUNFILE_MAX_BODIES, sizeof *names);
    int bodies = 0;
    if (!names || op_runfile_body_names(ctx, path, names, OP_RUNFILE_MAX_BODIES, &bodies) != OP_OK) {
        free(names);
        return ctx->status;
    }
    op_graph *graphs = op_calloc(ctx, (size_t)bodies + 1, sizeof *graphs);
    int count = 0, read = 0;
    for (; graphs && read < bodies; ++read) {
        char object[OP_RUNFILE_NAME_SIZE + 16];
        int64_t offset;
        snprintf(object, sizeof object, "/parameters/%s", names[read]);
        if (op_runfile_read_attribute_int(ctx, path, object, "particle_offset", &offset) != OP_OK ||
            op_runfile_read_body(ctx, path, names[read], &graphs[read], NULL, NULL) != OP_OK)
            break;
        if (offset != count) {
            OP_FAIL(ctx, OP_ERR_INVALID, "%s: body %s starts at particle %lld, not %d", path, names[read],
                    (long long)offset, count);
            op_graph_free(&graphs[read]);
            break;
        }
        count += graphs[read].particle_count;
    }
    if (ctx->status == OP_OK && (*axes = op_calloc(ctx, 9 * (size_t)count + 1, sizeof(double))) &&
        (*radii = op_calloc(ctx, 3 * (size_t)count + 1, sizeof(double))) &&
        (*group = op_calloc(ctx, (size_t)count + 1, sizeof(int))))
        for (int b = 0, at = 0; b < bodies; at += graphs[b++].particle_count) {
            int n = graphs[b].particle_count;
            memcpy(&(*axes)[9 * at], graphs[b].rest_axes, 9 * (size_t)n * sizeof(double));
            memcpy(&(*radii)[3 * at], graphs[b].radii, 3 * (size_t)n * sizeof(double));
            for (int k = 0; k < n; ++k)
                (*group)[at + k] = b;
        }
    for (int b = 0; graphs && b < read; ++b)
        op_graph_free(&graphs[b]);
    free(graphs);
    free(names);
    if (ctx->status != OP_OK)
        return ctx->status;
    *shapes = (op_overlap_shapes){ .count = count, .rest_axes = *axes, .radii = *radii, .group = *group };
    if (!(shapes->bound = op_calloc(ctx, (size_t)count + 1, sizeof(double))))
        return ctx->status;
    op_overlap_bounds(shapes);
    return OP_OK;
}

/* Each stored state of `group` measured in turn into deepest[row] */
static int measure_rows(op_ctx *ctx, const char *path, const char *group, const op_overlap_shapes *shapes,
                        long rows, double *deepest)
{
    char position_path[96], rotation_path[96];
    snprintf(position_path, sizeof position_path, "%s/position/value", group);
    snprintf(rotation_path, sizeof rotation_path, "%s/orientation/value", group);
    long n = shapes->count;
    double *x = op_calloc(ctx, 3 * (size_t)n + 1, sizeof(double)), *R = op_calloc(ctx, 9 * (size_t)n + 1, sizeof(double));
    op_broad_phase bp = { 0 };
    for (long row = 0; row < rows && ctx->status == OP_OK; ++row)
        if (op_runfile_read_rows(ctx, path, position_path, row, 1, x, 3 * n) == OP_OK &&
            op_runfile_read_rows(ctx, path, rotation_path, row, 1, R, 9 * n) == OP_OK)
            op_overlap_deepest(ctx, &bp, shapes, x, R, &deepest[row], NULL, NULL);
    op_broad_phase_free(&bp);
    free(x);
    free(R);
    return ctx->status;
}

int op_overlap_run_file(op_ctx *ctx, const char *path, const char *group, long *rows, double **deepest,
                        double **time, double *smallest)
{
    *rows = 0;
    *deepest = *time = NULL;
    op_overlap_shapes shapes = { 0 };
    double *axes = NULL, *radii = NULL;
    int *body = NULL;
    char time_path[96];
    snprintf(time_path, sizeof time_path, "%s/position/time", group);
    int rank;
    int64_t dims[OP_RUNFILE_MAX_RANK];
    if (read_shapes(ctx, path, &shapes, &axes, &radii, &body) == OP_OK &&
        op_runfile_dataset_shape(ctx, path, time_path, &rank, dims) == OP_OK) {
        long count = rank == 1 ? (long)dims[0] : 0;
        *smallest = INFINITY;
        for (long a = 0; a < 3 * (long)shapes.count; ++a)
            *smallest = fmin(*smallest, radii[a]);
        if ((*deepest = op_calloc(ctx, (size_t)count + 1, sizeof(double))) &&
            (*time = op_calloc(ctx, (size_t)count + 1, sizeof(double))) && count > 0 &&
            op_runfile_read_rows(ctx, path, time_path, 0, count, *time, count) == OP_OK &&
            measure_rows(ctx, path, group, &shapes, count, *deepest) == OP_OK)
            *rows = count;
    }
    free(axes);
    free(radii);
    free(body);
    free(shapes.bound);
    if (ctx->status != OP_OK) {
        free(*deepest);
        free(*time);
        *deepest = *time = NULL;
        *rows = 0;
    }
    return ctx->status;
}
