/* Data paths that do not depend on the working directory (paths.h). */
#include "base/paths.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Removes "." components and folds "name/.." pairs, keeping a leading "/" and leading ".."s. */
static void tidy(char *path)
{
    int absolute = path[0] == '/';
    char *parts[PATH_MAX / 2];
    int count = 0;
    char *rest = NULL;
    for (char *p = strtok_r(path + absolute, "/", &rest); p; p = strtok_r(NULL, "/", &rest)) {
        if (strcmp(p, ".") == 0)
            continue;
        if (strcmp(p, "..") == 0 && count > 0 && strcmp(parts[count - 1], "..") != 0) {
            --count;
            continue;
        }
        if (strcmp(p, "..") == 0 && absolute)
            continue;
        parts[count++] = p;
    }
    char result[PATH_MAX] = "";
    size_t length = 0;
    if (absolute)
        result[length++] = '/';
    for (int i = 0; i < count; ++i)
        length += (size_t)snprintf(result + length, sizeof result - length, "%s%s", i ? "/" : "", parts[i]);
    if (length == 0)
        strcpy(result, ".");
    strcpy(path, result);
}

static int join(op_ctx *ctx, const char *folder, const char *name, char *out, size_t size)
{
    char joined[PATH_MAX];
    if ((size_t)snprintf(joined, sizeof joined, "%s%s%s", folder, folder[0] ? "/" : "", name) >= sizeof joined)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s/%s: the path is too long", folder, name);
    tidy(joined);
    if (strlen(joined) >= size)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: the path is too long (at most %zu characters)", joined, size - 1);
    strcpy(out, joined);
    return OP_OK;
}

/* The folder part of `file` ("" when it has none). */
static void folder_of(const char *file, char *folder, size_t size)
{
    const char *slash = strrchr(file, '/');
    size_t length = slash ? (size_t)(slash - file) : 0;
    if (slash == file)
        length = 1;
    if (length >= size)
        length = size - 1;
    memcpy(folder, file, length);
    folder[length] = '\0';
}

int op_path_beside(op_ctx *ctx, const char *file, const char *relative, char *out, size_t size)
{
    char folder[PATH_MAX];
    folder_of(file, folder, sizeof folder);
    return join(ctx, relative[0] == '/' ? "" : folder, relative, out, size);
}

static int readable(const char *path)
{
    return access(path, R_OK) == 0;
}

/* data/models.tsv in `start` or a folder above it: 1 and *out set when found. Relative starts
 * climb through "..", at most as deep as the working directory is from the root. */
static int climb(op_ctx *ctx, const char *start, char *out, size_t size, char *tried, size_t tried_size)
{
    char folder[PATH_MAX], candidate[PATH_MAX];
    snprintf(folder, sizeof folder, "%s", start);
    for (int depth = 0; depth < 64; ++depth) {
        if (join(ctx, folder, "data/models.tsv", candidate, sizeof candidate) != OP_OK)
            return 0;
        if (readable(candidate)) {
            if (strlen(candidate) >= size)
                return 0;
            strcpy(out, candidate);
            return 1;
        }
        char resolved[PATH_MAX];
        if (!realpath(folder[0] ? folder : ".", resolved) || strcmp(resolved, "/") == 0)
            break;
        char up[PATH_MAX];
        if (join(ctx, folder[0] ? folder : ".", "..", up, sizeof up) != OP_OK)
            break;
        strcpy(folder, up);
    }
    size_t used = strlen(tried);
    snprintf(tried + used, tried_size - used, "%sdata/models.tsv in %s and above", used ? ", " : "",
             start[0] ? start : ".");
    return 0;
}

/* The catalogue beside the running program (its folder's ../data or ../share/opsim/data). */
static int beside_program(op_ctx *ctx, char *out, size_t size, char *tried, size_t tried_size)
{
    char program[PATH_MAX];
    ssize_t length = readlink("/proc/self/exe", program, sizeof program - 1);
    if (length <= 0)
        return 0;
    program[length] = '\0';
    static const char *const places[] = { "../data/models.tsv", "../share/opsim/data/models.tsv" };
    for (size_t i = 0; i < sizeof places / sizeof *places; ++i) {
        char candidate[PATH_MAX];
        if (op_path_beside(ctx, program, places[i], candidate, sizeof candidate) != OP_OK)
            continue;
        if (readable(candidate) && strlen(candidate) < size) {
            strcpy(out, candidate);
            return 1;
        }
        size_t used = strlen(tried);
        snprintf(tried + used, tried_size - used, ", %s", candidate);
    }
    return 0;
}

int op_default_catalogue(op_ctx *ctx, const char *config_path, char *out, size_t size)
{
    const char *data = getenv("OPSIM_DATA");
    if (data && data[0]) {
        if (join(ctx, data, "models.tsv", out, size) != OP_OK)
            return ctx->status;
        return OP_OK;
    }
    char tried[4 * PATH_MAX] = "";
    if (config_path) {
        char folder[PATH_MAX];
        folder_of(config_path, folder, sizeof folder);
        if (climb(ctx, folder, out, size, tried, sizeof tried))
            return OP_OK;
    }
    if (climb(ctx, "", out, size, tried, sizeof tried) || beside_program(ctx, out, size, tried, sizeof tried))
        return OP_OK;
    return OP_FAIL(ctx, OP_ERR_IO,
                   "no model catalogue found (tried %s); set OPSIM_DATA to the folder holding models.tsv, "
                   "or [run] models in the config",
                   tried);
}

int op_graph_cache_beside(op_ctx *ctx, const char *catalogue, char *out, size_t size)
{
    const char *directory = getenv("OPSIM_GRAPH_CACHE");
    if (directory) {
        int off = directory[0] == '\0' || strcmp(directory, "off") == 0;
        if (strlen(directory) >= size)
            return OP_FAIL(ctx, OP_ERR_INVALID, "OPSIM_GRAPH_CACHE: the path is too long");
        strcpy(out, off ? "" : directory);
        return OP_OK;
    }
    return op_path_beside(ctx, catalogue, "cache/graphs", out, size);
}
