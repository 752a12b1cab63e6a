/* Linear blend skinning of the visual mesh by the particles (Eq. 2): each vertex is bound to
 * its K nearest particles with Sumner-style weights w_j = (1 − d_j/d_max)², normalised, where
 * d_max is the distance to the (K+1)-th candidate. Candidates come from the graph
 * neighbourhood of the particle that owns the vertex (its nearest particle through the solid),
 * never from plain Euclidean distance, so a vertex is never bound across a gap to another limb. */
#ifndef OPSIM_SKIN_H
#define OPSIM_SKIN_H

#include <stdio.h>

#include "opsim/body.h"
#include "opsim/ctx.h"
#include "opsim/graph.h"
#include "opsim/mesh.h"

typedef struct op_skin {
    int vertex_count;
    int k;          /* influences per vertex */
    int *index;     /* [vertex_count][k] particle indices; unused slots repeat the first with weight 0 */
    double *weight; /* [vertex_count][k] non-negative, summing to one */
} op_skin;

/* owner[v] is the particle whose region contains (or is nearest to) vertex v. */
int op_skin_bind(op_ctx *ctx, const op_graph *graph, const op_mesh *mesh, const int *owner, int k,
                 op_skin *skin);
int op_skin_alloc(op_ctx *ctx, op_skin *skin, int vertex_count, int k);
void op_skin_free(op_skin *skin);

/* out[v] = Σ_j w_j (R_j (v̄ − x̄_j) + x_j) for every vertex. */
void op_skin_apply(const op_skin *skin, const op_graph *graph, const op_state *state,
                   const double *rest_vertices, double *out_vertices);

/* Rejects indices out of range, negative or non-finite weights, sums not one (1e-12). */
int op_skin_check(op_ctx *ctx, const op_skin *skin, int particle_count, const char *name);
void op_skin_print(FILE *out, const op_skin *skin, const char *name);

#endif
