/* The oriented-particle graph every solver variant shares (docs/design.md §1).
 *
 * op_graph is the rest configuration and topology: built once per model, immutable, shared by
 * all instances of the model. op_state is one body's current configuration. Both are
 * structure-of-arrays; 3x3 matrices are row-major double[9] with the ellipsoid axes as columns. */
#ifndef OPSIM_GRAPH_H
#define OPSIM_GRAPH_H

#include <stdio.h>

#include "opsim/ctx.h"

typedef struct op_graph {
    int particle_count;
    int edge_count;        /* undirected edges; adjacency holds each twice */
    int *adjacency_start;  /* [particle_count + 1] CSR offsets */
    int *adjacency;        /* [2 * edge_count] neighbours, ascending within each row */
    double *rest_position; /* [n][3] x̄_i */
    double *rest_axes;     /* [n][9] Ē_i, columns are the unit axes a, b, c */
    double *radii;         /* [n][3] (a, b, c), a >= b >= c > 0 */
    double *volume;        /* [n] v_i = 4/3 π a b c */
    double *mass;          /* [n] m_i = ρ v_i */
    double *rest_moment;   /* [n][9] Ā_i = Ē_i A_i Ē_iᵀ, A_i = v_i/5 diag(a², b², c²) */
    double density;        /* ρ, kg/m³ */
} op_graph;

typedef struct op_state {
    int particle_count;
    double *position;      /* [n][3] x_i */
    double *rotation;      /* [n][9] R_i; current axes E_i = R_i Ē_i */
    double *velocity;      /* [n][3] */
    double *rotation_rate; /* [n][9] Ṙ_i */
} op_state;

/* Allocates all arrays for n particles and `edge_count` undirected edges (zeroed). */
int op_graph_alloc(op_ctx *ctx, op_graph *graph, int particle_count, int edge_count);
void op_graph_free(op_graph *graph);

/* Builds the symmetric CSR adjacency from an undirected edge list [edge_count][2]; duplicate
 * edges (in either direction) are merged, self-loops and out-of-range ends rejected.
 * Reallocates adjacency to the merged count. */
int op_graph_set_edges(op_ctx *ctx, op_graph *graph, const int *edges, int edge_count);
/* Writes the edges as (i, j) with i < j, sorted, into edges[edge_count][2]. */
void op_graph_edges(const op_graph *graph, int *edges);

/* Fills volume, mass and rest_moment from radii, rest_axes and density. */
void op_graph_derive(op_graph *graph, double density);

/* Rejects non-finite values, non-orthonormal or left-handed axes, non-positive or unsorted
 * radii, volumes/masses/moments inconsistent with the radii, an adjacency that is
 * asymmetric, unsorted, self-looped or out of range. `name` identifies the graph. */
int op_graph_check(op_ctx *ctx, const op_graph *graph, const char *name);
void op_graph_print(FILE *out, const op_graph *graph, const char *name);

/* Number of connected components (1 for every body opsim builds). */
int op_graph_component_count(const op_graph *graph);

int op_state_alloc(op_ctx *ctx, op_state *state, int particle_count);
void op_state_free(op_state *state);
/* Rest positions, identity rotations, zero velocities and rotation rates. */
void op_state_set_rest(op_state *state, const op_graph *graph);

#endif
