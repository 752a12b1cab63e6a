/* Locking a run file's path for one writer and publishing the run file with its companion
 * (runfile_publish.h).
 *
 * Why the old companion goes first: a process killed (SIGKILL, a power cut) between the two
 * renames must not leave the new RUN.h5 beside the previous run's RUN.xmf (ParaView would show
 * 3 time values of a 2-row run). Removed first, the worst case is a new RUN.h5 with no sidecar,
 * which `opsim xdmf RUN.h5` writes again. SIGINT, SIGTERM and SIGHUP are held across the three
 * steps, so those never split them. OPSIM_TEST_KILL_BETWEEN_RENAMES=1 makes the process kill
 * itself (SIGKILL) at that point: tests/test_hardening.c checks what it leaves. */
#include "io/runfile_publish.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/atomic.h"

static int concurrent_writers_allowed(void)
{
    const char *allow = getenv("OPSIM_ALLOW_CONCURRENT_WRITERS");
    return allow && strcmp(allow, "1") == 0;
}

/* The lock file is removed by its holder when done; a process that opened it just before that
 * would hold a lock on a file no longer at the path, so a lock is only taken when the locked
 * file is still the one at the path. */
int runfile_lock(op_ctx *ctx, op_runfile *run)
{
    run->lock_held = 0;
    if (concurrent_writers_allowed())
        return OP_OK;
    char lock[4200];
    if ((size_t)snprintf(lock, sizeof lock, "%s.lock", run->final_path) >= sizeof lock)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%.200s...: run file path too long", run->final_path);
    for (int attempt = 0; attempt < 8; ++attempt) {
        int fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0)
            return OP_FAIL(ctx, OP_ERR_IO, "%s: cannot create the lock file %s: %s", run->final_path, lock,
                           strerror(errno));
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int reason = errno;
            close(fd);
            if (reason == EWOULDBLOCK)
                return OP_FAIL(ctx, OP_ERR_IO,
                               "%s: another process is writing this run file (it holds %s); "
                               "opsim run --allow-concurrent (OPSIM_ALLOW_CONCURRENT_WRITERS=1) lets the last to finish win",
                               run->final_path, lock);
            return OP_FAIL(ctx, OP_ERR_IO, "%s: cannot lock %s: %s", run->final_path, lock, strerror(reason));
        }
        struct stat held, present;
        if (fstat(fd, &held) == 0 && lstat(lock, &present) == 0 && held.st_ino == present.st_ino &&
            held.st_dev == present.st_dev) {
            run->lock_fd = fd;
            run->lock_held = 1;
            return OP_OK;
        }
        close(fd);
    }
    return OP_FAIL(ctx, OP_ERR_IO, "%s: cannot lock %s: it keeps being replaced", run->final_path, lock);
}

void runfile_unlock(op_runfile *run)
{
    if (!run->lock_held)
        return;
    char lock[4200];
    if ((size_t)snprintf(lock, sizeof lock, "%s.lock", run->final_path) < sizeof lock)
        unlink(lock);
    close(run->lock_fd);
    run->lock_held = 0;
}

static int write_companion(op_ctx *ctx, op_runfile *run, char *temp, size_t temp_size)
{
    const op_runfile_companion *c = &run->companion;
    if ((size_t)snprintf(temp, temp_size, "%s.%ld.tmp", c->path, (long)getpid()) >= temp_size)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%.200s...: companion path too long", c->path);
    op_temp_remove_stale(c->path);
    op_temp_track(temp);
    if (c->write(ctx, run->temp_path, run->final_path, temp) != OP_OK) {
        unlink(temp);
        op_temp_untrack(temp);
        temp[0] = '\0';
        return ctx->status;
    }
    return OP_OK;
}

int runfile_publish(op_ctx *ctx, op_runfile *run)
{
    const char *path = run->final_path;
    if (op_sync_file(run->temp_path) != 0)
        return OP_FAIL(ctx, OP_ERR_IO, "%s: cannot write: fsync: %s", path, strerror(errno));
    char companion_temp[4200] = "";
    op_ctx companion_ctx;
    op_ctx_init(&companion_ctx);
    if (run->companion.write)
        write_companion(&companion_ctx, run, companion_temp, sizeof companion_temp);
    op_temp_hold_signals();
    int rc = OP_OK;
    if (run->companion.write && unlink(run->companion.path) != 0 && errno != ENOENT)
        rc = OP_FAIL(ctx, OP_ERR_IO, "%s: cannot remove the previous %s: %s", path, run->companion.path,
                     strerror(errno));
    if (!rc && rename(run->temp_path, path) != 0)
        rc = OP_FAIL(ctx, OP_ERR_IO, "%s: cannot write: rename: %s", path, strerror(errno));
    if (!rc) {
        op_temp_untrack(run->temp_path);
        run->temp_path[0] = '\0';
        const char *kill_here = getenv("OPSIM_TEST_KILL_BETWEEN_RENAMES");
        if (kill_here && strcmp(kill_here, "1") == 0)
            raise(SIGKILL);
    }
    if (companion_temp[0]) {
        if (!rc && rename(companion_temp, run->companion.path) != 0)
            OP_FAIL(&companion_ctx, OP_ERR_IO, "%s: cannot write: rename: %s", run->companion.path, strerror(errno));
        unlink(companion_temp); /* gone already when renamed */
        op_temp_untrack(companion_temp);
    }
    op_temp_release_signals();
    if (!rc && op_sync_directory_of(path) != 0)
        rc = OP_FAIL(ctx, OP_ERR_IO, "%s: cannot write: fsync of its directory: %s", path, strerror(errno));
    if (!rc && companion_ctx.status != OP_OK)
        rc = OP_FAIL(ctx, companion_ctx.status, "%s", companion_ctx.message);
    return rc;
}
