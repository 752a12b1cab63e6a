/* Text files written whole or not at all: the file is written under a temporary name beside
 * its final path ("<path>.<pid>.tmp"), created with O_CREAT | O_EXCL | O_NOFOLLOW (a link
 * planted at that predictable name is never followed), fsynced, renamed onto the path only when
 * every byte reached it, and the directory fsynced after, so a failed or killed writer (or a
 * power cut) never leaves a partial file under the final name (the run files do the same
 * through HDF5, include/opsim/runfile.h). */
#ifndef OPSIM_ATOMIC_H
#define OPSIM_ATOMIC_H

#include <stdio.h>

#include "opsim/ctx.h"

typedef struct op_atomic_file {
    FILE *file; /* write here between open and commit */
    char *path; /* the final name */
    char *temp; /* the temporary name */
} op_atomic_file;

/* Creates the temporary file; on failure (OP_ERR_IO naming the path, the temporary name and
 * the reason) *f is left closed and nothing exists on disk. */
int op_atomic_open(op_ctx *ctx, op_atomic_file *f, const char *path);
/* Creates `temp` for writing with O_CREAT | O_EXCL | O_NOFOLLOW, mode 0666 & ~umask; a file
 * or link already there (a dead process of the same pid) is removed first, never followed.
 * Returns the descriptor, or -1 with errno. */
int op_temp_create(const char *temp);
/* fsync of a file (opened without following a link) and of the directory holding `path`; 0 or
 * -1 with errno. */
int op_sync_file(const char *path);
int op_sync_directory_of(const char *path);
/* Closes the file and renames it onto the final path. A write error seen by the stream, a
 * failed close or a failed rename is OP_ERR_IO "<path>: cannot write: <reason>", and the
 * temporary file is removed. *f is closed either way. */
int op_atomic_commit(op_ctx *ctx, op_atomic_file *f);
/* Closes and removes the temporary file; safe on a closed *f. */
void op_atomic_abort(op_atomic_file *f);

/* Temporary files in flight (these text files, the run files of include/opsim/runfile.h, the OBJ
 * directories of `opsim export --obj`): each is tracked from its creation to its rename or
 * removal, so that op_temp_catch_signals() can remove it when SIGINT, SIGTERM or SIGHUP ends the
 * process (then dying of the same signal, the status the shell expects). At most
 * OP_TEMP_TRACKED at once; a path beyond that is simply not removed by a signal. */
enum { OP_TEMP_TRACKED = 16 };
void op_temp_track(const char *temp);
void op_temp_untrack(const char *temp);
/* Installs the handlers (bin/opsim's main does; the library itself installs none). */
void op_temp_catch_signals(void);
/* For a writer of many files in a temporary directory (export --obj), which the handler cannot
 * list (opendir is not async-signal-safe): hold SIGINT, SIGTERM and SIGHUP while it writes, ask
 * op_temp_signal_pending() between files, and when one is pending stop, remove the directory
 * itself, then op_temp_release_signals() lets the signal end the process as usual. */
void op_temp_hold_signals(void);
int op_temp_signal_pending(void);
void op_temp_release_signals(void);
/* Removes what a process that died without cleaning up (SIGKILL, a crash, a power cut) left
 * beside `path`: files or directories named "<path>.<pid>.tmp" whose pid is no live process. */
void op_temp_remove_stale(const char *path);

#endif
