/* The run file's writer lock and its publication with its companion (the XDMF sidecar):
 * runfile_write.c calls these at create, commit and abort (include/opsim/runfile.h). */
#ifndef OPSIM_RUNFILE_PUBLISH_H
#define OPSIM_RUNFILE_PUBLISH_H

#include "opsim/runfile.h"

/* Takes RUN.h5.lock (flock, exclusive, not waiting): a second writer to the same path is
 * OP_ERR_IO naming the path, unless OPSIM_ALLOW_CONCURRENT_WRITERS=1 (then the last to finish
 * wins, as before). */
int runfile_lock(op_ctx *ctx, op_runfile *run);
/* Removes and releases the lock; safe when none is held. */
void runfile_unlock(op_runfile *run);
/* The closed temporary run file fsynced; the companion (if any) written to its own temporary
 * name from it; then, with SIGINT, SIGTERM and SIGHUP held, the old companion removed, the run
 * file renamed onto its path, the new companion renamed onto its own, and the directory
 * fsynced. A companion that fails leaves the run published without one and its error in ctx. */
int runfile_publish(op_ctx *ctx, op_runfile *run);

#endif
