/* Input files opened only when regular and within their cap (input.h). */
#include "io/input.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *file_kind(mode_t mode)
{
    return S_ISDIR(mode)    ? "a directory"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISSOCK(mode) ? "a socket"
                            : "not a regular file";
}

FILE *op_input_open(op_ctx *ctx, const char *path, long long max_bytes, const char *what)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        OP_FAIL(ctx, OP_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat info;
    if (fstat(fd, &info) != 0) {
        OP_FAIL(ctx, OP_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    if (!S_ISREG(info.st_mode)) {
        OP_FAIL(ctx, OP_ERR_IO, "%s: cannot read it as a %s: it is %s, not a regular file", path, what,
                file_kind(info.st_mode));
        close(fd);
        return NULL;
    }
    if (info.st_size > max_bytes) {
        OP_FAIL(ctx, OP_ERR_IO, "%s: %lld bytes, larger than the %s cap of %lld bytes (core/io/input.h)", path,
                (long long)info.st_size, what, max_bytes);
        close(fd);
        return NULL;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        OP_FAIL(ctx, OP_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
    }
    return f;
}
