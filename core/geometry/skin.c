/* Skinning (Eq. 2): binding each visual vertex to K particles and blending their rigid
 * transformations. The binding searches the graph outward from the vertex's owner particle,
 * ring by ring, so every influence is connected to the vertex through the solid. */
#include "geometry/skin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/math3.h"

int op_skin_alloc(op_ctx *ctx, op_skin *skin, int vertex_count, int k)
{
    memset(skin, 0, sizeof *skin);
    if (k < 1 || k > OP_SKIN_MAX_K)
        return OP_FAIL(ctx, OP_ERR_INVALID, "skin: K = %d is outside 1..%d", k, OP_SKIN_MAX_K);
    skin->vertex_count = vertex_count;
    skin->k = k;
    skin->index = op_calloc(ctx, (size_t)vertex_count * (size_t)k, sizeof(int));
    skin->weight = op_calloc(ctx, (size_t)vertex_count * (size_t)k, sizeof(double));
    if (ctx->status != OP_OK) {
        op_skin_free(skin);
        return ctx->status;
    }
    return OP_OK;
}

void op_skin_free(op_skin *skin)
{
    OP_FREE(skin->index);
    OP_FREE(skin->weight);
    skin->vertex_count = 0;
}

typedef struct candidate {
    double distance;
    int particle;
} candidate;

static int compare_candidate(const void *a, const void *b)
{
    const candidate *ca = a, *cb = b;
    if (ca->distance != cb->distance)
        return ca->distance < cb->distance ? -1 : 1;
    return ca->particle - cb->particle; /* ties broken by index: deterministic */
}

/* Collects the owner's graph neighbourhood ring by ring until it holds at least `wanted`
 * particles (and always the first two rings), returning how many were found. */
static int gather_rings(const op_graph *graph, int owner, int wanted, int *found, int *visit_stamp, int stamp)
{
    int count = 0, ring_begin = 0, ring = 0;
    found[count++] = owner;
    visit_stamp[owner] = stamp;
    while (ring_begin < count && (count < wanted || ring < 2)) {
        int ring_end = count;
        for (int f = ring_begin; f < ring_end; ++f) {
            int i = found[f];
            for (int a = graph->adjacency_start[i]; a < graph->adjacency_start[i + 1]; ++a) {
                int j = graph->adjacency[a];
                if (visit_stamp[j] != stamp) {
                    visit_stamp[j] = stamp;
                    found[count++] = j;
                }
            }
        }
        ring_begin = ring_end;
        ++ring;
    }
    return count;
}

int op_skin_bind(op_ctx *ctx, const op_graph *graph, const op_mesh *mesh, const int *owner, int k,
                 op_skin *skin)
{
    int n = graph->particle_count;
    if (op_skin_alloc(ctx, skin, mesh->vertex_count, k) != OP_OK)
        return ctx->status;
    int *found = op_calloc(ctx, (size_t)n, sizeof(int));
    int *visit_stamp = op_calloc(ctx, (size_t)n, sizeof(int));
    candidate *candidates = op_calloc(ctx, (size_t)n, sizeof(candidate));
    if (ctx->status != OP_OK) {
        free(found);
        free(visit_stamp);
        free(candidates);
        op_skin_free(skin);
        return ctx->status;
    }
    for (int v = 0; v < mesh->vertex_count; ++v) {
        if (owner[v] < 0 || owner[v] >= n) {
            OP_FAIL(ctx, OP_ERR_INVALID, "skin: vertex %d has owner particle %d out of range", v, owner[v]);
            break;
        }
        int count = gather_rings(graph, owner[v], k + 1, found, visit_stamp, v + 1);
        const double *rest_vertex = &mesh->vertices[3 * v];
        for (int c = 0; c < count; ++c) {
            candidates[c].particle = found[c];
            candidates[c].distance = sqrt(v3_dist2(rest_vertex, &graph->rest_position[3 * found[c]]));
        }
        qsort(candidates, (size_t)count, sizeof(candidate), compare_candidate);
        int used = count < k ? count : k;
        /* Sumner: d_max is the (K+1)-th distance. A body with at most K particles has none, so
         * twice the farthest keeps every influence's weight positive. */
        double d_max = count > k ? candidates[k].distance : 2.0 * candidates[used - 1].distance;
        double sum = 0.0;
        int *index = &skin->index[(size_t)v * k];
        double *weight = &skin->weight[(size_t)v * k];
        for (int c = 0; c < k; ++c) {
            index[c] = candidates[c < used ? c : 0].particle;
            double w = 0.0;
            if (c < used && d_max > 0) {
                double t = 1.0 - candidates[c].distance / d_max;
                w = t * t;
            }
            weight[c] = w;
            sum += w;
        }
        if (sum > 0) {
            for (int c = 0; c < k; ++c)
                weight[c] /= sum;
        } else { /* every candidate at the same distance as d_max: follow the nearest alone */
            weight[0] = 1.0;
        }
    }
    free(found);
    free(visit_stamp);
    free(candidates);
    if (ctx->status != OP_OK)
        op_skin_free(skin);
    return ctx->status;
}

void op_skin_apply(const op_skin *skin, const op_graph *graph, const op_state *state,
                   const double *rest_vertices, double *out_vertices)
{
    int k = skin->k;
    for (int v = 0; v < skin->vertex_count; ++v) {
        double blended[3] = { 0, 0, 0 };
        for (int c = 0; c < k; ++c) {
            double w = skin->weight[(size_t)v * k + c];
            if (w == 0.0)
                continue;
            int j = skin->index[(size_t)v * k + c];
            double offset[3];
            v3_sub(offset, &rest_vertices[3 * v], &graph->rest_position[3 * j]);
            m3_mul_v(offset, &state->rotation[9 * j], offset);
            v3_add(offset, offset, &state->position[3 * j]);
            v3_axpy(blended, w, offset);
        }
        v3_copy(&out_vertices[3 * v], blended);
    }
}

int op_skin_check(op_ctx *ctx, const op_skin *skin, int particle_count, const char *name)
{
    int k = skin->k;
    if (k < 1 || k > OP_SKIN_MAX_K)
        return OP_FAIL(ctx, OP_ERR_INVALID, "skin %s: K = %d is outside 1..%d", name, k, OP_SKIN_MAX_K);
    for (int v = 0; v < skin->vertex_count; ++v) {
        double sum = 0.0;
        for (int c = 0; c < k; ++c) {
            int j = skin->index[(size_t)v * k + c];
            double w = skin->weight[(size_t)v * k + c];
            if (j < 0 || j >= particle_count)
                return OP_FAIL(ctx, OP_ERR_INVALID, "skin %s: vertex %d is bound to particle %d of %d", name, v, j,
                               particle_count);
            if (!(isfinite(w) && w >= 0))
                return OP_FAIL(ctx, OP_ERR_INVALID, "skin %s: vertex %d has weight %g", name, v, w);
            sum += w;
        }
        if (!(fabs(sum - 1.0) <= 1e-12))
            return OP_FAIL(ctx, OP_ERR_INVALID, "skin %s: weights of vertex %d sum to %.17g", name, v, sum);
    }
    return OP_OK;
}

void op_skin_print(FILE *out, const op_skin *skin, const char *name)
{
    int k = skin->k, influences = 0;
    for (size_t e = 0; e < (size_t)skin->vertex_count * (size_t)k; ++e)
        influences += skin->weight[e] > 0;
    fprintf(out, "skin %s: %d vertices, K = %d, %.2f influences per vertex on average\n", name,
            skin->vertex_count, k, skin->vertex_count ? (double)influences / skin->vertex_count : 0.0);
}
