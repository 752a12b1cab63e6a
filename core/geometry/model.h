/* A model: a mesh with its particle graph and skinning, built once from the model catalogue
 * (data/models.tsv) and shared, read-only, by every body that instances it. */
#ifndef OPSIM_MODEL_H
#define OPSIM_MODEL_H

#include "geometry/build.h"
#include "opsim/ctx.h"
#include "opsim/graph.h"
#include "opsim/mesh.h"
#include "geometry/skin.h"

typedef struct op_model {
    char name[64];
    char source[256];   /* mesh path, or "shape:NAME" */
    op_build_def build; /* how the graph was built */
    op_build_report built; /* what the builder chose (the voxel resolution used ...) */
    op_mesh mesh;
    op_graph graph;
    op_skin skin;
} op_model;

/* Finds `name` in the catalogue (tab-separated: name, source, kind, particles, view, edges;
 * '#' comments; edges, the edge rule as op_edge_rule_parse reads it, may be left out for
 * "faces") and builds it with `build` for everything the catalogue does not fix (its kind; its
 * particle count unless build->particles > 0; its edge rule when build->overlap_scale < 0).
 * Errors name the catalogue file and line, or the model. */
int op_model_load(op_ctx *ctx, const char *catalogue, const char *name, const op_build_def *build, op_model *model);
void op_model_free(op_model *model);

#endif
