/* XDMF sidecars (docs/design.md §5): RUN.xmf beside a run file RUN.h5 describes the run to ParaView
 * (and VisIt) without copying any data: an XDMF 3 temporal collection with one spatial
 * collection per output frame t (its <Time> from /particles/position/time), holding per body
 *
 *   "<body> surface"    a triangle grid: /mesh/<body>/faces, and the body's rows of
 *                       /surface/position/value at frame t (a hyperslab of [T][V][3]);
 *                       present when the run stored its surface (/parameters store_surface)
 *   "<body> particles"  a polyvertex grid: the body's rows of /particles/position/value at
 *                       frame t; attributes "orientation" (Tensor, 9 components: R_i at frame t
 *                       in the file's row-major order, component 3r+c = R[r][c]), "radii"
 *                       (Vector: a, b, c of /graph/<body>/radii) and "rest_axes" (Tensor:
 *                       Ē_i, so the current axes are R_i·Ē_i); its vertex list is the first n
 *                       entries of /particles/index
 *
 * Every heavy-data item is Format="HDF", named "RUN.h5:/path" relative to the sidecar, with
 * the dataset's own shape as Dimensions; a frame is picked out of a [T, ...] series by an
 * ItemType="HyperSlab" item (start, stride, count; its Dimensions are the count). */
#ifndef OPSIM_XDMF_H
#define OPSIM_XDMF_H

#include <stddef.h>

#include "opsim/ctx.h"
#include "opsim/runfile.h"

/* The sidecar's path: RUN.h5 becomes RUN.xmf; any other name gets ".xmf" appended.
 * OP_ERR_INVALID when it does not fit `size`. */
int op_xdmf_path(op_ctx *ctx, const char *run_path, char *out, size_t size);

/* Writes the sidecar of a complete simulation run file (one written by `opsim run`) beside it,
 * under a temporary name renamed when complete. A file without output frames (a graph file)
 * or without /particles/index (written before sidecars existed) is OP_ERR_INVALID naming it;
 * so is a run file name holding ':' (XDMF splits file from dataset at the first ':'). */
int op_xdmf_write(op_ctx *ctx, const char *run_path);

/* The sidecar as the run file's companion (include/opsim/runfile.h): written from the complete
 * temporary run file and published with it, so that no reader sees a new RUN.h5 beside the
 * previous run's RUN.xmf (`opsim run` uses it). Messages name run_path. */
int op_xdmf_companion(op_ctx *ctx, const char *run_path, op_runfile_companion *companion);
int op_xdmf_write_companion(op_ctx *ctx, const char *source, const char *run_path, const char *temp);

#endif
