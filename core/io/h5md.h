/* The H5MD 1.1 elements of a run file (docs/h5md.md): the /h5md metadata group, one particle
 * group per body under /particles and its edges under /connectivity, written when the run is
 * complete. They hold no frame data of their own: each body's time-dependent elements are HDF5
 * virtual datasets over its rows of opsim's concatenated /states series (record.h), whose step
 * and time they share by hard links, and its mass is a hard link to /graph/<body>/mass; so the
 * H5MD view costs no second copy of the states.
 *
 * The states after every sub-step (`[run] output = substeps`) are a second time series of the
 * same particles. An H5MD particle group holds one series per element, so they get an H5MD
 * structure of their own, rooted at /substeps (H5MD 1.1 lets a structure's root be any group):
 * /substeps/h5md, /substeps/particles/<body> over /substeps/<element>/value, and
 * /substeps/connectivity/<body> pointing at those groups. Private to core/io. */
#ifndef OPSIM_H5MD_H
#define OPSIM_H5MD_H

#include <stdint.h>

#include "opsim/graph.h"
#include "opsim/runfile.h"

/* Which states an H5MD structure shows: the output frames' (root "/", views over /states) or
 * every sub-step's (root /substeps, views over /substeps). */
typedef enum op_h5md_sampling { OP_H5MD_FRAMES, OP_H5MD_SUBSTEPS } op_h5md_sampling;

/* <root>/h5md: version [1, 1]; author (name: $OPSIM_AUTHOR, else $USER, else "unknown"); creator
 * (name "opsim", version); modules/units (version [1, 0], system "SI"). */
int op_h5md_write_metadata(op_ctx *ctx, op_runfile *run, op_h5md_sampling sampling);

/* <series>/<element>/{step,time} as hard links to <series>/position's, the series /states or
 * /substeps: the element is sampled with the positions (H5MD lets elements sampled together
 * share them). */
int op_h5md_link_step_time(op_ctx *ctx, op_runfile *run, op_h5md_sampling sampling, const char *element);

/* One body's place among the states and what its particle group says of it. */
typedef struct op_h5md_body {
    const char *name;
    int64_t offset;        /* its first particle in the series' rows */
    int64_t total;         /* the particles of all bodies: the series' rows' extent */
    long rows;             /* the states the series holds: output frames, or sub-steps + 1 */
    const op_graph *graph; /* its particles and edges */
    int species;           /* the number of its model, in the order models first appear */
    const char *same_model; /* an earlier body of the same model (its species is linked), or NULL */
    op_h5md_sampling sampling; /* the frames' structure or the sub-steps' */
} op_h5md_body;

/* <root>/particles/<body>/{box, position, orientation, velocity, mass, species} and
 * <root>/connectivity/<body>, written once the series holds its last row (the views are made
 * with their final extent) and /graph/<body> exists. */
int op_h5md_write_body(op_ctx *ctx, op_runfile *run, const op_h5md_body *body);

#endif
