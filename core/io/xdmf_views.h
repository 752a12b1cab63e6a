/* The sidecar's companion RUN.views.h5 (xdmf.h): for every output frame, a dataset of its own per
 * series that ParaView's default XDMF reader can read, made of HDF5 virtual datasets over the run
 * file's series (no frame data copied), and the few static arrays the grids need, gathered
 * across bodies.
 *
 * Why a companion: ParaView's XDMF 3 readers (Xdmf3ReaderS/T, the default for .xmf in 5.11)
 * read no HyperSlab item: the Xdmf3 subset behind it never reads the dataset it points into, so
 * every grid comes out with 0 points ("Skipping unrecognized array type [None]"). A virtual
 * dataset is a whole dataset to XDMF, and HDF5 itself maps it onto frame t's rows of RUN.h5.
 *
 *   /frames/<t>/position     [N][3]     virtual: /states/position/value[t]
 *   /frames/<t>/orientation  [N][3][3]  virtual: /states/orientation/value[t]
 *                                       (/particles/... in run files written before H5MD)
 *   /frames/<t>/surface      [V][3]     virtual: /surface/position/value[t] (when stored)
 *   /frames/<t>/ellipsoid    [N][9]     with ellipsoids only: the ellipsoid tensor in VTK's
 *                                       order for Tensor Glyph (component 3k+i = axis k's
 *                                       coordinate i times radius k; axes R_i·Ē_i), real data
 *   /static/radii            [N][3]     /graph/<body>/radii, bodies in order
 *   /static/particle_body    [N]        the body's number (its place in /bodies order)
 *   /static/faces            [F][3]     every body's /mesh/<body>/faces, shifted to the
 *                                       surface series' rows (when the surface is stored)
 *   /static/vertex_body      [V]        the body's number of each surface vertex
 * N particles, V surface vertices, F triangles over all bodies. The source file is named
 * relative (RUN.h5's name without directory): HDF5 finds it beside the companion.
 *
 * The sub-step companion RUN.substeps.views.h5 (a run with `[run] output = substeps`) is the
 * same with /substeps/<s>/{position,orientation,ellipsoid} over row s of /substeps/.../value in
 * place of /frames/<t>, and no surface (the run stores none per sub-step). */
#ifndef OPSIM_XDMF_VIEWS_H
#define OPSIM_XDMF_VIEWS_H

#include <stdint.h>

#include "opsim/ctx.h"
#include "opsim/runfile.h"

typedef struct op_xdmf_body {
    const char *name;
    int64_t particle_offset, particles; /* rows of /particles/... */
    int64_t vertex_offset, vertices;    /* rows of /surface/position/value */
    int64_t faces;                      /* rows of /mesh/<name>/faces */
} op_xdmf_body;

typedef struct op_xdmf_layout {
    const char *series; /* the run file's group of states: "/particles", or "/substeps" */
    const char *views;  /* the companion's group of per-state views: "/frames", or "/substeps" */
    long frames;        /* rows of the states' series */
    int64_t particles, vertices, faces; /* over all bodies; vertices 0 when no surface stored */
    int surface_stored;
    int body_count;
    const op_xdmf_body *bodies;
} op_xdmf_layout;

/* Writes `views_path` for the run file `run_path`, read from `source` (the run file itself, or its
 * temporary before it is published: the virtual datasets name run_path's file), under a
 * temporary name renamed when complete; with `ellipsoids` the ellipsoid tensors too. */
int op_xdmf_views_write(op_ctx *ctx, const char *source, const char *run_path, const char *views_path,
                        const op_xdmf_layout *layout, int ellipsoids);

#endif
