/* XDMF sidecars (docs/design.md §5): RUN.xmf beside a run file RUN.h5 describes the run to ParaView
 * (its default XDMF 3 reader and the legacy one) and VisIt without copying the frames: an XDMF 3
 * temporal collection with one spatial collection per output frame t (its <Time> from
 * /particles/position/time), holding, over all bodies in body order,
 *
 *   "surface"    a triangle grid: every body's /mesh/<body>/faces shifted to the surface
 *                series' rows, and /surface/position/value's rows at frame t; with the
 *                attribute "body" (each vertex's body number); present when the run stored
 *                its surface (/parameters store_surface)
 *   "particles"  a polyvertex grid of /particles/position/value's rows at frame t; attributes
 *                "orientation" (Tensor, 9 components: R_i at frame t in the file's row-major
 *                order, component 3r+c = R[r][c]; VTK reads tensors column after column, so
 *                ParaView shows R_iᵀ), "radii" (Vector: a, b, c), "body" (Scalar), and with
 *                `ellipsoids` "ellipsoid" (Tensor in VTK's order, ready for Tensor Glyph with
 *                eigenvalue extraction off: columns R_i·Ē_i·diag(a, b, c))
 *
 * Each frame's arrays are datasets of the companion RUN.views.h5 (xdmf_views.h): HDF5 virtual
 * datasets over frame t of the run file's series, because ParaView's XDMF 3 readers cannot
 * read a HyperSlab item. Heavy-data items are Format="HDF", named "FILE:/path" relative to the
 * sidecar (the three files sit side by side), with the dataset's shape as Dimensions.
 *
 * A run that stored every sub-step's state (`[run] output = substeps`, /substeps) gets a second
 * pair beside the first, RUN.substeps.xmf and RUN.substeps.views.h5: the same document with one
 * spatial collection "substep s" per row of /substeps (its <Time> from /substeps/position/time,
 * s the sub-step index, 0 the start), holding "particles" only, over /substeps' rows: the run
 * stores no surface per sub-step, and skinning it there would copy V×24 bytes a sub-step, which
 * the pair never does beyond the ellipsoids asked for. Its views live under /substeps/<s>. Two
 * separate pairs rather than one document, because ParaView merges the times of every temporal
 * collection it reads, which would show each frame twice. */
#ifndef OPSIM_XDMF_H
#define OPSIM_XDMF_H

#include <stddef.h>

#include "opsim/ctx.h"
#include "opsim/runfile.h"

/* The sidecar's path: RUN.h5 becomes RUN.xmf; any other name gets ".xmf" appended.
 * OP_ERR_INVALID when it does not fit `size`. */
int op_xdmf_path(op_ctx *ctx, const char *run_path, char *out, size_t size);

/* The companion's path: RUN.h5 becomes RUN.views.h5; any other name gets ".views.h5" appended. */
int op_xdmf_views_path(op_ctx *ctx, const char *run_path, char *out, size_t size);

/* The sub-step sidecar's and its companion's paths: RUN.substeps.xmf, RUN.substeps.views.h5. */
int op_xdmf_substeps_path(op_ctx *ctx, const char *run_path, char *out, size_t size);
int op_xdmf_substeps_views_path(op_ctx *ctx, const char *run_path, char *out, size_t size);

/* Writes the companion, then the sidecar, of a complete simulation run file (one written by
 * `opsim run`) beside it, each under a temporary name renamed when complete; `ellipsoids` adds
 * the ellipsoid tensors (9 doubles a particle a frame, as much again as the orientations). A
 * file without output frames (a graph file) or without /states/index (/particles/index in files
 * written before H5MD; neither before sidecars existed) is OP_ERR_INVALID naming it; so is a run
 * file name holding ':' (XDMF splits file from dataset at the first ':'). Then the sub-step pair
 * when the run stored its sub-steps, or else a pair an earlier run left at those paths removed. */
int op_xdmf_write(op_ctx *ctx, const char *run_path, int ellipsoids);

/* The sidecar as the run file's companion (include/opsim/runfile.h): written from the complete
 * temporary run file and published with it, so that no reader sees a new RUN.h5 beside the
 * previous run's RUN.xmf (`opsim run` uses it). The sub-step pair (or the removal of a stale
 * one) is done when the sidecar is written, before the run file is renamed, as the companion
 * RUN.views.h5 is. Messages name run_path. */
int op_xdmf_companion(op_ctx *ctx, const char *run_path, op_runfile_companion *companion);
int op_xdmf_write_companion(op_ctx *ctx, const char *source, const char *run_path, const char *temp);

#endif
