/* Whole-or-nothing text files, and the removal of temporary files on a signal or after a dead
 * process (atomic.h). The signal handler calls only unlink, rmdir, signal and raise (all
 * async-signal-safe), on paths copied in before their slot was marked used. */
#include "io/atomic.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { TEMP_PATH_SIZE = 4096 };
static char temp_paths[OP_TEMP_TRACKED][TEMP_PATH_SIZE];
static volatile sig_atomic_t temp_used[OP_TEMP_TRACKED];

void op_temp_track(const char *temp)
{
    if (strlen(temp) >= TEMP_PATH_SIZE)
        return;
    for (int i = 0; i < OP_TEMP_TRACKED; ++i)
        if (!temp_used[i]) {
            memcpy(temp_paths[i], temp, strlen(temp) + 1);
            temp_used[i] = 1;
            return;
        }
}

void op_temp_untrack(const char *temp)
{
    for (int i = 0; i < OP_TEMP_TRACKED; ++i)
        if (temp_used[i] && strcmp(temp_paths[i], temp) == 0)
            temp_used[i] = 0;
}

/* A tracked directory (export --obj) holds only the files written into it: each is unlinked
 * by name through its own tracked slot first, so the directory is empty by the time rmdir runs. */
static void remove_tracked(int sig)
{
    for (int i = OP_TEMP_TRACKED - 1; i >= 0; --i)
        if (temp_used[i]) {
            if (unlink(temp_paths[i]) != 0)
                rmdir(temp_paths[i]);
        }
    signal(sig, SIG_DFL);
    raise(sig);
}

void op_temp_catch_signals(void)
{
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = remove_tracked;
    sigemptyset(&action.sa_mask);
    sigaddset(&action.sa_mask, SIGINT);
    sigaddset(&action.sa_mask, SIGTERM);
    sigaddset(&action.sa_mask, SIGHUP);
    sigaction(SIGINT, &action, NULL);
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGHUP, &action, NULL);
}

static sigset_t held_signals, before_holding;

void op_temp_hold_signals(void)
{
    sigemptyset(&held_signals);
    sigaddset(&held_signals, SIGINT);
    sigaddset(&held_signals, SIGTERM);
    sigaddset(&held_signals, SIGHUP);
    sigprocmask(SIG_BLOCK, &held_signals, &before_holding);
}

int op_temp_signal_pending(void)
{
    sigset_t pending;
    if (sigpending(&pending) != 0)
        return 0;
    return sigismember(&pending, SIGINT) == 1 || sigismember(&pending, SIGTERM) == 1 ||
           sigismember(&pending, SIGHUP) == 1;
}

void op_temp_release_signals(void)
{
    sigprocmask(SIG_SETMASK, &before_holding, NULL);
}

static void remove_tree(const char *path)
{
    DIR *dir = opendir(path);
    if (!dir) {
        unlink(path);
        return;
    }
    struct dirent *entry;
    char child[TEMP_PATH_SIZE];
    while ((entry = readdir(dir)))
        if (strcmp(entry->d_name, ".") && strcmp(entry->d_name, "..") &&
            (size_t)snprintf(child, sizeof child, "%s/%s", path, entry->d_name) < sizeof child)
            unlink(child);
    closedir(dir);
    rmdir(path);
}

void op_temp_remove_stale(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[TEMP_PATH_SIZE];
    const char *base = slash ? slash + 1 : path;
    if ((size_t)snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".") >= sizeof dir)
        return;
    if (slash == path)
        snprintf(dir, sizeof dir, "/");
    DIR *d = opendir(dir);
    if (!d)
        return;
    size_t base_length = strlen(base);
    struct dirent *entry;
    while ((entry = readdir(d))) {
        const char *name = entry->d_name;
        if (strncmp(name, base, base_length) || name[base_length] != '.')
            continue;
        const char *digits = name + base_length + 1, *end = digits;
        while (isdigit((unsigned char)*end))
            ++end;
        if (end == digits || end - digits > 9 || strcmp(end, ".tmp"))
            continue;
        pid_t pid = (pid_t)atol(digits);
        if (pid <= 0 || pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH)
            continue;
        char stale[TEMP_PATH_SIZE];
        if ((size_t)snprintf(stale, sizeof stale, "%s/%s", dir, name) < sizeof stale)
            remove_tree(stale);
    }
    closedir(d);
}

static void release(op_atomic_file *f)
{
    OP_FREE(f->path);
    OP_FREE(f->temp);
    f->file = NULL;
}

int op_atomic_open(op_ctx *ctx, op_atomic_file *f, const char *path)
{
    memset(f, 0, sizeof *f);
    size_t length = strlen(path), temp_size = length + 32;
    f->path = op_calloc(ctx, length + 1, 1);
    f->temp = op_calloc(ctx, temp_size, 1);
    if (!f->path || !f->temp) {
        release(f);
        return ctx->status;
    }
    memcpy(f->path, path, length);
    snprintf(f->temp, temp_size, "%s.%ld.tmp", path, (long)getpid());
    op_temp_remove_stale(path);
    op_temp_track(f->temp);
    int fd = op_temp_create(f->temp);
    f->file = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f->file) {
        int reason = errno;
        if (fd >= 0) {
            close(fd);
            unlink(f->temp);
        }
        op_temp_untrack(f->temp);
        int status = OP_FAIL(ctx, OP_ERR_IO, "%s: cannot create its temporary file: %s", path, strerror(reason));
        release(f);
        return status;
    }
    return OP_OK;
}

int op_temp_create(const char *temp)
{
    int fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0 && errno == EEXIST) {
        /* Left by an earlier process of this pid (op_temp_remove_stale spares our own pid). A
         * link there is removed itself, its target untouched. */
        struct stat st;
        if (lstat(temp, &st) == 0 && !S_ISDIR(st.st_mode) && unlink(temp) == 0)
            fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        else
            errno = EEXIST;
    }
    return fd;
}

int op_sync_file(const char *path)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

int op_sync_directory_of(const char *path)
{
    char dir[TEMP_PATH_SIZE];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else if ((size_t)snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path) >= sizeof dir)
        return -1;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    /* Some file systems (tmpfs on old kernels) refuse fsync on a directory: nothing to sync. */
    return rc == 0 || errno == EINVAL || errno == EROFS ? 0 : -1;
}

int op_atomic_commit(op_ctx *ctx, op_atomic_file *f)
{
    if (!f->file)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: not open for writing", f->path ? f->path : "(no file)");
    /* Most write errors (a full disk) surface when the buffer is flushed, with errno set; an
     * earlier failed write left only the stream's error flag, whose errno may be long gone. */
    errno = 0;
    int failed = fflush(f->file) != 0 || ferror(f->file), reason = failed ? (errno ? errno : EIO) : 0;
    if (!failed && fsync(fileno(f->file)) != 0 && errno != EINVAL) {
        failed = 1;
        reason = errno;
    }
    if (fclose(f->file) != 0 && !failed) {
        failed = 1;
        reason = errno;
    }
    f->file = NULL;
    if (!failed && rename(f->temp, f->path) != 0) {
        failed = 1;
        reason = errno;
    }
    if (!failed && op_sync_directory_of(f->path) != 0) {
        failed = 1; /* renamed, but the rename may not survive a power cut: said, not undone */
        reason = errno;
    }
    int status = OP_OK;
    if (failed) {
        remove(f->temp);
        status = OP_FAIL(ctx, OP_ERR_IO, "%s: cannot write: %s", f->path, strerror(reason));
    }
    op_temp_untrack(f->temp);
    release(f);
    return status;
}

void op_atomic_abort(op_atomic_file *f)
{
    if (f->file) {
        fclose(f->file);
        remove(f->temp);
        op_temp_untrack(f->temp);
    }
    release(f);
}
