/* The oriented-particle graph: allocation, CSR adjacency from edge lists, the derived rest
 * quantities (volume, mass, moments), the check and print functions, and the body state. */
#include "opsim/graph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/math3.h"

int op_graph_alloc(op_ctx *ctx, op_graph *graph, int particle_count, int edge_count)
{
    memset(graph, 0, sizeof *graph);
    if (particle_count < 0 || edge_count < 0)
        return OP_FAIL(ctx, OP_ERR_INVALID, "graph: negative size (%d particles, %d edges)",
                       particle_count, edge_count);
    size_t n = (size_t)particle_count;
    graph->particle_count = particle_count;
    graph->edge_count = edge_count;
    graph->adjacency_start = op_calloc(ctx, n + 1, sizeof(int));
    graph->adjacency = op_calloc(ctx, 2 * (size_t)edge_count, sizeof(int));
    graph->rest_position = op_calloc(ctx, 3 * n, sizeof(double));
    graph->rest_axes = op_calloc(ctx, 9 * n, sizeof(double));
    graph->radii = op_calloc(ctx, 3 * n, sizeof(double));
    graph->volume = op_calloc(ctx, n, sizeof(double));
    graph->mass = op_calloc(ctx, n, sizeof(double));
    graph->rest_moment = op_calloc(ctx, 9 * n, sizeof(double));
    if (ctx->status != OP_OK) {
        op_graph_free(graph);
        return ctx->status;
    }
    return OP_OK;
}

void op_graph_free(op_graph *graph)
{
    OP_FREE(graph->adjacency_start);
    OP_FREE(graph->adjacency);
    OP_FREE(graph->rest_position);
    OP_FREE(graph->rest_axes);
    OP_FREE(graph->radii);
    OP_FREE(graph->volume);
    OP_FREE(graph->mass);
    OP_FREE(graph->rest_moment);
    graph->particle_count = 0;
    graph->edge_count = 0;
}

static int compare_edge(const void *a, const void *b)
{
    const int *ea = a, *eb = b;
    if (ea[0] != eb[0])
        return ea[0] < eb[0] ? -1 : 1;
    return ea[1] < eb[1] ? -1 : ea[1] > eb[1];
}

int op_graph_set_edges(op_ctx *ctx, op_graph *graph, const int *edges, int edge_count)
{
    int n = graph->particle_count;
    /* Both directions of every edge, sorted: rows of the CSR come out ascending. */
    int *directed = op_calloc(ctx, 4 * (size_t)edge_count, sizeof(int));
    if (!directed)
        return ctx->status;
    for (int e = 0; e < edge_count; ++e) {
        int i = edges[2 * e], j = edges[2 * e + 1];
        if (i < 0 || j < 0 || i >= n || j >= n || i == j) {
            free(directed);
            return OP_FAIL(ctx, OP_ERR_INVALID, "graph: edge %d (%d, %d) is %s", e, i, j,
                           i == j ? "a self-loop" : "out of range");
        }
        directed[4 * e] = i;
        directed[4 * e + 1] = j;
        directed[4 * e + 2] = j;
        directed[4 * e + 3] = i;
    }
    qsort(directed, 2 * (size_t)edge_count, 2 * sizeof(int), compare_edge);
    int unique = 0;
    for (int k = 0; k < 2 * edge_count; ++k)
        if (k == 0 || compare_edge(&directed[2 * k], &directed[2 * (k - 1)]) != 0) {
            directed[2 * unique] = directed[2 * k];
            directed[2 * unique + 1] = directed[2 * k + 1];
            ++unique;
        }
    int *adjacency = op_calloc(ctx, (size_t)unique, sizeof(int));
    if (!adjacency) {
        free(directed);
        return ctx->status;
    }
    memset(graph->adjacency_start, 0, ((size_t)n + 1) * sizeof(int));
    for (int k = 0; k < unique; ++k) {
        graph->adjacency_start[directed[2 * k] + 1]++;
        adjacency[k] = directed[2 * k + 1];
    }
    for (int i = 0; i < n; ++i)
        graph->adjacency_start[i + 1] += graph->adjacency_start[i];
    free(directed);
    free(graph->adjacency);
    graph->adjacency = adjacency;
    graph->edge_count = unique / 2;
    return OP_OK;
}

void op_graph_edges(const op_graph *graph, int *edges)
{
    int e = 0;
    for (int i = 0; i < graph->particle_count; ++i)
        for (int k = graph->adjacency_start[i]; k < graph->adjacency_start[i + 1]; ++k)
            if (graph->adjacency[k] > i) {
                edges[2 * e] = i;
                edges[2 * e + 1] = graph->adjacency[k];
                ++e;
            }
}

/* A_i = v/5 diag(a², b², c²) rotated into the rest frame: Ā = Ē A Ēᵀ. The lower triangle is
 * mirrored from the upper so Ā is exactly symmetric: a body at rest then has exactly symmetric
 * local matrices C_i, whose polar rotation is exactly the identity. */
static void rest_moment_of(const double axes[9], const double radii[3], double volume, double out[9])
{
    double scaled[9];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            scaled[3 * r + c] = axes[3 * r + c] * (volume / 5.0) * radii[c] * radii[c];
    m3_mul_bt(out, scaled, axes);
    out[3] = out[1];
    out[6] = out[2];
    out[7] = out[5];
}

void op_graph_derive(op_graph *graph, double density)
{
    graph->density = density;
    for (int i = 0; i < graph->particle_count; ++i) {
        const double *r = &graph->radii[3 * i];
        graph->volume[i] = 4.0 / 3.0 * M_PI * r[0] * r[1] * r[2];
        graph->mass[i] = density * graph->volume[i];
        rest_moment_of(&graph->rest_axes[9 * i], r, graph->volume[i], &graph->rest_moment[9 * i]);
    }
}

static int relative_mismatch(double stored, double expected)
{
    return !(fabs(stored - expected) <= 1e-12 * fabs(expected));
}

/* Every offset is checked before any is used: the neighbour loop below reads start[j] of a
 * neighbour j, so one offset out of order or out of range (a damaged cache entry)
 * would index outside adjacency. */
static int adjacency_offsets_check(op_ctx *ctx, const op_graph *graph, const char *name)
{
    const int *start = graph->adjacency_start;
    int n = graph->particle_count;
    if (graph->edge_count < 0 || start[0] != 0 || (long long)start[n] != 2LL * graph->edge_count)
        return OP_FAIL(ctx, OP_ERR_INVALID, "graph %s: adjacency holds %d entries for %d edges", name, start[n],
                       graph->edge_count);
    for (int i = 0; i < n; ++i)
        if (start[i + 1] < start[i] || start[i + 1] > start[n])
            return OP_FAIL(ctx, OP_ERR_INVALID, "graph %s: adjacency offsets decrease at particle %d", name, i);
    return OP_OK;
}

int op_graph_check(op_ctx *ctx, const op_graph *graph, const char *name)
{
    int n = graph->particle_count;
    if (n <= 0)
        return OP_FAIL(ctx, OP_ERR_INVALID, "graph %s: no particles", name);
    if (!(isfinite(graph->density) && graph->density > 0))
        return OP_FAIL(ctx, OP_ERR_INVALID, "graph %s: density %g is not positive", name, graph->density);
    for (int i = 0; i < n; ++i) {
        const double *x = &graph->rest_position[3 * i], *axes = &graph->rest_axes[9 * i];
        const double *r = &graph->radii[3 * i];
        if (!v3_isfinite(x) || !m3_isfinite(axes) || !v3_isfinite(r))
            return OP_FAIL(ctx, OP_ERR_INVALID, "graph %s: particle %d has a non-finite position, axis or radius", name, i);
        if (!(r[2] > 0 && r[1] >= r[2] && r[0] >= r[1]))
            return OP_FAIL(ctx, OP_ERR_INVALID,
                           "graph %s: particle %d radii (%g, %g, %g) are not positive and descending", name, i,
                           r[0], r[1], r[2]);
        if (m3_orthonormality_error(axes) > 1e-9 || m3_det(axes) < 0)
            return OP_FAIL(ctx, OP_ERR_INVALID, "graph %s: particle %d axes are not a right-handed orthonormal frame",
                           name, i);
        double volume = 4.0 / 3.0 * M_PI * r[0] * r[1] * r[2], moment[9];
        rest_moment_of(axes, r, volume, moment);
        int moment_bad = 0;
        for (int k = 0; k < 9; ++k)
            moment_bad |= fabs(graph->rest_moment[9 * i + k] - moment[k]) > 1e-12 * (volume * r[0] * r[0]);
        if (relative_mismatch(graph->volume[i], volume) ||
            relative_mismatch(graph->mass[i], graph->density * volume) || moment_bad)
            return OP_FAIL(ctx, OP_ERR_INVALID,
                           "graph %s: particle %d volume, mass or moment disagrees with its radii and density",
                           name, i);
    }
    const int *start = graph->adjacency_start, *adj = graph->adjacency;
    if (adjacency_offsets_check(ctx, graph, name) != OP_OK)
        return ctx->status;
    for (int i = 0; i < n; ++i) {
        for (int k = start[i]; k < start[i + 1]; ++k) {
            int j = adj[k];
            if (j < 0 || j >= n)
                return OP_FAIL(ctx, OP_ERR_INVALID, "graph %s: particle %d has neighbour %d out of range", name, i, j);
            if (j == i)
                return OP_FAIL(ctx, OP_ERR_INVALID, "graph %s: particle %d is its own neighbour", name, i);
            if (k > start[i] && adj[k - 1] >= j)
                return OP_FAIL(ctx, OP_ERR_INVALID, "graph %s: neighbours of particle %d are not strictly ascending",
                               name, i);
            int found = 0;
            for (int l = start[j]; l < start[j + 1] && !found; ++l)
                found = adj[l] == i;
            if (!found)
                return OP_FAIL(ctx, OP_ERR_INVALID, "graph %s: edge %d -> %d has no reverse", name, i, j);
        }
    }
    return OP_OK;
}

void op_graph_print(FILE *out, const op_graph *graph, const char *name)
{
    int n = graph->particle_count, min_degree = n ? graph->adjacency_start[1] : 0, max_degree = 0;
    double total_mass = 0, total_volume = 0;
    for (int i = 0; i < n; ++i) {
        int degree = graph->adjacency_start[i + 1] - graph->adjacency_start[i];
        min_degree = degree < min_degree ? degree : min_degree;
        max_degree = degree > max_degree ? degree : max_degree;
        total_mass += graph->mass[i];
        total_volume += graph->volume[i];
    }
    fprintf(out, "graph %s: %d particles, %d edges, degree %d..%d, volume %.6g m^3, mass %.6g kg, density %g kg/m^3\n",
            name, n, graph->edge_count, min_degree, max_degree, total_volume, total_mass, graph->density);
}

int op_graph_component_count(const op_graph *graph)
{
    int n = graph->particle_count, components = 0;
    int *label = calloc((size_t)n + 1, sizeof(int)), *stack = calloc((size_t)n + 1, sizeof(int));
    if (!label || !stack) {
        free(label);
        free(stack);
        return -1;
    }
    for (int seed = 0; seed < n; ++seed) {
        if (label[seed])
            continue;
        ++components;
        int top = 0;
        stack[top++] = seed;
        label[seed] = components;
        while (top) {
            int i = stack[--top];
            for (int k = graph->adjacency_start[i]; k < graph->adjacency_start[i + 1]; ++k)
                if (!label[graph->adjacency[k]]) {
                    label[graph->adjacency[k]] = components;
                    stack[top++] = graph->adjacency[k];
                }
        }
    }
    free(label);
    free(stack);
    return components;
}

int op_state_alloc(op_ctx *ctx, op_state *state, int particle_count)
{
    memset(state, 0, sizeof *state);
    size_t n = (size_t)particle_count;
    state->particle_count = particle_count;
    state->position = op_calloc(ctx, 3 * n, sizeof(double));
    state->rotation = op_calloc(ctx, 9 * n, sizeof(double));
    state->velocity = op_calloc(ctx, 3 * n, sizeof(double));
    state->rotation_rate = op_calloc(ctx, 9 * n, sizeof(double));
    if (ctx->status != OP_OK) {
        op_state_free(state);
        return ctx->status;
    }
    return OP_OK;
}

void op_state_free(op_state *state)
{
    OP_FREE(state->position);
    OP_FREE(state->rotation);
    OP_FREE(state->velocity);
    OP_FREE(state->rotation_rate);
    state->particle_count = 0;
}

void op_state_set_rest(op_state *state, const op_graph *graph)
{
    int n = graph->particle_count;
    memcpy(state->position, graph->rest_position, 3 * (size_t)n * sizeof(double));
    memset(state->velocity, 0, 3 * (size_t)n * sizeof(double));
    memset(state->rotation_rate, 0, 9 * (size_t)n * sizeof(double));
    for (int i = 0; i < n; ++i)
        m3_identity(&state->rotation[9 * i]);
}
