/* The H5MD 1.1 elements of a run file (docs/h5md.md): the /h5md metadata group, one particle
 * group per body under /particles and its edges under /connectivity, written when the run is
 * complete. They hold no frame data of their own: each body's time-dependent elements are HDF5
 * virtual datasets over its rows of opsim's concatenated /states series (record.h), whose step
 * and time they share by hard links, and its mass is a hard link to /graph/<body>/mass; so the
 * H5MD view costs no second copy of the states. Private to core/io. */
#ifndef OPSIM_H5MD_H
#define OPSIM_H5MD_H

#include <stdint.h>

#include "opsim/graph.h"
#include "opsim/runfile.h"

/* /h5md: version [1, 1]; author (name: $OPSIM_AUTHOR, else $USER, else "unknown"); creator
 * (name "opsim", version); modules/units (version [1, 0], system "SI"). */
int op_h5md_write_metadata(op_ctx *ctx, op_runfile *run);

/* /states/<element>/{step,time} as hard links to /states/position's: the element is sampled with
 * the positions (H5MD lets elements sampled together share them). */
int op_h5md_link_step_time(op_ctx *ctx, op_runfile *run, const char *element);

/* One body's place among the states and what its particle group says of it. */
typedef struct op_h5md_body {
    const char *name;
    int64_t offset;        /* its first particle in the /states rows */
    int64_t total;         /* the particles of all bodies: the /states rows' extent */
    long rows;             /* the output frames /states holds */
    const op_graph *graph; /* its particles and edges */
    int species;           /* the number of its model, in the order models first appear */
    const char *same_model; /* an earlier body of the same model (its species is linked), or NULL */
} op_h5md_body;

/* /particles/<body>/{box, position, orientation, velocity, mass, species} and
 * /connectivity/<body>, written once /states holds its last row (the views are made with their
 * final extent) and /graph/<body> exists. */
int op_h5md_write_body(op_ctx *ctx, op_runfile *run, const op_h5md_body *body);

#endif
