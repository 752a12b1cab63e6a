/* Generated meshes: the paper's bar (a 40 x 4 x 4 quad box: 674 vertices, 672 faces), a sheet,
 * a column, a torus, Müller et al. 2005's cube (0.4 m), and Vogiannou et al. 2010's cloth
 * (0.64 m square: 32 x 32 shell particles 2 cm apart) and its solid cube (cube18, 0.18 m: a
 * 9 x 9 x 9 lattice 2 cm apart), and the load of its Fig. 5 (cube27, 0.2736 m: 5 times the
 * cloth's volume, so 5 times its mass at one density). Sizes are in metres with y up; docs/data.md lists them. */
#ifndef OPSIM_SHAPES_H
#define OPSIM_SHAPES_H

#include "opsim/ctx.h"
#include "opsim/mesh.h"

/* name: "bar", "sheet", "column", "torus", "cube", "cloth", "cube18" or "cube27". Unknown names fail with the
 * list of valid ones. */
int op_shape_mesh(op_ctx *ctx, const char *name, op_mesh *mesh);
extern const char *const op_shape_names[];

#endif
