/* HDF5 run files (docs/design.md §5): creation under a temporary name and the atomic commit, the body
 * layout (graph, mesh, skin) written and read back with every shape checked, and the views the
 * command line offers on a file (info, export, check). Each public call silences HDF5's own
 * error printing while it runs and turns every failure into one op_ctx message that names the
 * file and the object, with HDF5's innermost reason appended. */
/* memfd_create, for the discard path */
#define _GNU_SOURCE
#include "opsim/runfile.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <hdf5.h>

#include "io/atomic.h"

/* The Makefile passes these with -D; the fallbacks let the file build on its own. */
#ifndef OPSIM_VERSION
#define OPSIM_VERSION "unknown"
#endif
#ifndef OPSIM_GIT_REV
#define OPSIM_GIT_REV "unknown"
#endif
#ifndef OPSIM_CFLAGS
#define OPSIM_CFLAGS "unknown"
#endif

/* Any dataset extent opsim reads must fit an int after multiplying by the widest trailing
 * dimension (9 for the axes, OP_SKIN_MAX_K for the skin). */
enum { MAX_EXTENT = INT_MAX / 16 };

static const char *const ROOT_STRING_ATTRIBUTES[] = {
    "program", "version", "git_revision", "compiler_flags", "command_line", "config", "created",
};

/* ------------------------------------------------------------------------------------------ */
/* Errors                                                                                      */

enum { REASON_SIZE = 200 };

static herr_t keep_innermost(unsigned n, const H5E_error2_t *error, void *data)
{
    if (n == 0 && error->desc)
        snprintf(data, REASON_SIZE, "%s", error->desc);
    return 0;
}

/* Must be called straight after the failing HDF5 call: the next API call clears the stack
 * the reason is taken from. */
static int h5_fail(op_ctx *ctx, op_status status, int line, const char *format, ...)
    __attribute__((format(printf, 4, 5)));
static int h5_fail(op_ctx *ctx, op_status status, int line, const char *format, ...)
{
    char what[800];
    char reason[REASON_SIZE] = "";
    va_list args;
    va_start(args, format);
    vsnprintf(what, sizeof what, format, args);
    va_end(args);
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, keep_innermost, reason);
    if (reason[0])
        return op_fail(ctx, status, __FILE__, line, "%s (HDF5: %s)", what, reason);
    return op_fail(ctx, status, __FILE__, line, "%s", what);
}
#define H5_FAIL(ctx, status, ...) h5_fail((ctx), (status), __LINE__, __VA_ARGS__)

typedef struct h5_quiet {
    H5E_auto2_t func;
    void *data;
} h5_quiet;

/* Failures are expected here (a missing dataset, a bad file) and reported through op_ctx, so
 * HDF5's stack printing is off for the call and the caller's setting restored after it. */
static h5_quiet quiet_begin(void)
{
    h5_quiet q = { NULL, NULL };
    H5Eget_auto2(H5E_DEFAULT, &q.func, &q.data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return q;
}

static void quiet_end(h5_quiet q)
{
    H5Eset_auto2(H5E_DEFAULT, q.func, q.data);
}

/* ------------------------------------------------------------------------------------------ */
/* Small helpers                                                                               */

static int valid_body_name(const char *name)
{
    if (!name)
        return 0;
    size_t len = strlen(name);
    if (len < 1 || len >= OP_RUNFILE_NAME_SIZE)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-'))
            return 0;
    }
    return 1;
}

/* An absolute path of valid names, "/a/b/c", or "/" itself when root_allowed. */
static int valid_object_path(const char *path, int root_allowed)
{
    if (!path || path[0] != '/' || strlen(path) >= OP_SERIES_PATH_SIZE)
        return 0;
    if (path[1] == '\0')
        return root_allowed;
    char name[OP_SERIES_PATH_SIZE];
    for (const char *p = path + 1;; p++) {
        size_t len = strcspn(p, "/");
        memcpy(name, p, len);
        name[len] = '\0';
        if (!valid_body_name(name))
            return 0;
        p += len;
        if (*p == '\0')
            return 1;
    }
}

static char *copy_string(op_ctx *ctx, const char *s)
{
    size_t len = strlen(s);
    char *copy = op_calloc(ctx, len + 1, 1);
    if (copy)
        memcpy(copy, s, len);
    return copy;
}

static void free_strings(char **strings, size_t count)
{
    if (!strings)
        return;
    for (size_t i = 0; i < count; i++)
        free(strings[i]);
    free(strings);
}

static void format_shape(char *buf, size_t size, int rank, const hsize_t *dims)
{
    size_t used = (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < rank && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%llu", i ? "," : "",
                                 (unsigned long long)dims[i]);
    if (used < size)
        snprintf(buf + used, size - used, "]");
}

/* Expected shapes use -1 for "any extent", shown as "*". */
static void format_expected(char *buf, size_t size, int rank, const long long *expected)
{
    size_t used = (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < rank && used < size; i++) {
        if (expected[i] < 0)
            used += (size_t)snprintf(buf + used, size - used, "%s*", i ? "," : "");
        else
            used += (size_t)snprintf(buf + used, size - used, "%s%lld", i ? "," : "", expected[i]);
    }
    if (used < size)
        snprintf(buf + used, size - used, "]");
}

static void type_name(hid_t type, char *buf, size_t size)
{
    size_t bits = 8 * H5Tget_size(type);
    switch (H5Tget_class(type)) {
    case H5T_INTEGER:
        snprintf(buf, size, "%sint%zu", H5Tget_sign(type) == H5T_SGN_NONE ? "u" : "", bits);
        break;
    case H5T_FLOAT: snprintf(buf, size, "float%zu", bits); break;
    case H5T_STRING: snprintf(buf, size, "string"); break;
    case H5T_COMPOUND: snprintf(buf, size, "compound"); break;
    case H5T_ENUM: snprintf(buf, size, "enum"); break;
    case H5T_ARRAY: snprintf(buf, size, "array"); break;
    case H5T_VLEN: snprintf(buf, size, "vlen"); break;
    case H5T_REFERENCE: snprintf(buf, size, "reference"); break;
    default: snprintf(buf, size, "opaque"); break;
    }
}

/* H5Lexists fails instead of answering "no" when an intermediate group is missing, so each
 * prefix of the path is tested in turn. */
static int object_exists(hid_t loc, const char *path)
{
    char prefix[1024];
    size_t len = strlen(path);
    if (len >= sizeof prefix)
        return 0;
    memcpy(prefix, path, len + 1);
    int components = 0;
    for (size_t i = 0; i <= len; i++) {
        if ((prefix[i] != '/' && prefix[i] != '\0') || i == 0 || prefix[i - 1] == '/')
            continue;
        char saved = prefix[i];
        prefix[i] = '\0';
        htri_t exists = H5Lexists(loc, prefix, H5P_DEFAULT);
        prefix[i] = saved;
        if (exists <= 0)
            return 0;
        components++;
    }
    return components > 0;
}

static hid_t variable_string_type(H5T_cset_t cset)
{
    hid_t type = H5Tcopy(H5T_C_S1);
    if (type < 0)
        return type;
    if (H5Tset_size(type, H5T_VARIABLE) < 0 || H5Tset_cset(type, cset) < 0) {
        H5Tclose(type);
        return -1;
    }
    return type;
}

/* The soft address-space limit lowered to what the process maps now plus `headroom` bytes (or
 * restored to `*saved`): variable-length strings of run files written before opsim wrote
 * fixed-length ones are read under it, so that a damaged heap reference's garbage length makes
 * HDF5's allocation fail (a clean error) instead of clearing gigabytes (an `opsim info` ran for
 * minutes at 7.7 GB). Linux only (/proc/self/statm); elsewhere nothing is capped. */
static int cap_address_space(size_t headroom, struct rlimit *saved)
{
    FILE *statm = fopen("/proc/self/statm", "r");
    unsigned long long pages = 0;
    int known = statm && fscanf(statm, "%llu", &pages) == 1;
    if (statm)
        fclose(statm);
    if (!known || getrlimit(RLIMIT_AS, saved) != 0)
        return 0;
    struct rlimit capped = *saved;
    rlim_t cap = (rlim_t)(pages * (unsigned long long)sysconf(_SC_PAGESIZE) + headroom);
    if (saved->rlim_cur != RLIM_INFINITY && saved->rlim_cur < cap)
        return 0;
    capped.rlim_cur = cap;
    return setrlimit(RLIMIT_AS, &capped) == 0;
}

/* The fclose degree makes H5Fclose really close the file, so the rename in commit never races
 * an object left open. The 1.8 file format at least: its object headers carry checksums (a
 * changed byte there is an error, not garbage read on), and an attribute too large for its
 * object header (a config text of more than 64 kB, now that text attributes are fixed-length
 * strings) moves to dense storage instead of failing. */
static hid_t file_access_list(void)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl >= 0 && (H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0 ||
                      H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST) < 0)) {
        H5Pclose(fapl);
        return -1;
    }
    return fapl;
}

/* Object modification times would make two runs of the same command differ byte for byte. */
static hid_t creation_list(hid_t class_id)
{
    hid_t plist = H5Pcreate(class_id);
    if (plist >= 0 && H5Pset_obj_track_times(plist, 0) < 0) {
        H5Pclose(plist);
        return -1;
    }
    return plist;
}

/* A missing file and a file HDF5 cannot read get different messages. */
static hid_t open_file(op_ctx *ctx, const char *path, unsigned flags)
{
    if (!path || !*path) {
        OP_FAIL(ctx, OP_ERR_USAGE, "no run file path given");
        return -1;
    }
    if (access(path, (flags & H5F_ACC_RDWR) ? R_OK | W_OK : R_OK) != 0) {
        OP_FAIL(ctx, OP_ERR_IO, "%s: %s", path, strerror(errno));
        return -1;
    }
    hid_t fapl = file_access_list();
    if (fapl < 0) {
        H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot make a file access list", path);
        return -1;
    }
    hid_t file = H5Fopen(path, flags, fapl);
    if (file < 0)
        H5_FAIL(ctx, OP_ERR_IO, "%s: cannot open as an HDF5 file", path);
    H5Pclose(fapl);
    return file;
}

/* ------------------------------------------------------------------------------------------ */
/* Writing                                                                                     */

/* rank 0 writes a scalar, rank 1 `count` values. */
static int write_attribute(op_ctx *ctx, const char *path, hid_t loc, const char *where,
                           const char *name, hid_t file_type, hid_t mem_type, int rank,
                           hsize_t count, const void *value)
{
    int rc = OP_OK;
    hid_t space = rank ? H5Screate_simple(1, &count, NULL) : H5Screate(H5S_SCALAR);
    if (space < 0)
        return H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot make the dataspace of attribute %s of %s",
                       path, name, where);
    hid_t attr = H5Acreate2(loc, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT);
    if (attr < 0)
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot create attribute %s of %s", path, name,
                     where);
    else if (H5Awrite(attr, mem_type, value) < 0)
        rc = H5_FAIL(ctx, OP_ERR_IO, "%s: cannot write attribute %s of %s", path, name, where);
    if (attr >= 0)
        H5Aclose(attr);
    H5Sclose(space);
    return rc;
}

/* Text attributes are fixed-length strings, as long as the longest value plus its '\0': a
 * variable-length string lives in the file's global heap, and libhdf5 1.10 trusts the heap
 * references it finds there. One changed byte in a run file with variable-length attributes
 * crashed `opsim info` in H5HG_read (and `h5dump -A`), or made H5T__conv_vlen allocate and
 * clear gigabytes for a garbage length. Fixed-length strings are read with no heap at all. */
static int write_strings(op_ctx *ctx, const char *path, hid_t loc, const char *where,
                         const char *name, int rank, hsize_t count, const char *const *values)
{
    size_t size = 1;
    for (hsize_t i = 0; i < count; i++)
        if (values[i] && strlen(values[i]) + 1 > size)
            size = strlen(values[i]) + 1;
    char *packed = op_calloc(ctx, (size_t)count + 1, size);
    if (!packed)
        return ctx->status;
    for (hsize_t i = 0; i < count; i++)
        if (values[i])
            memcpy(packed + i * size, values[i], strlen(values[i]));
    hid_t type = H5Tcopy(H5T_C_S1);
    if (type < 0 || H5Tset_size(type, size) < 0 || H5Tset_strpad(type, H5T_STR_NULLTERM) < 0 ||
        H5Tset_cset(type, H5T_CSET_UTF8) < 0) {
        if (type >= 0)
            H5Tclose(type);
        free(packed);
        return H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot make a string type for %s of %s", path,
                       name, where);
    }
    int rc = write_attribute(ctx, path, loc, where, name, type, type, rank, count, packed);
    H5Tclose(type);
    free(packed);
    return rc;
}

static int write_string(op_ctx *ctx, const char *path, hid_t loc, const char *where,
                        const char *name, const char *value)
{
    return write_strings(ctx, path, loc, where, name, 0, 1, &value);
}

static int write_int(op_ctx *ctx, const char *path, hid_t loc, const char *where,
                     const char *name, int value)
{
    return write_attribute(ctx, path, loc, where, name, H5T_STD_I32LE, H5T_NATIVE_INT, 0, 1,
                           &value);
}

static int write_u64(op_ctx *ctx, const char *path, hid_t loc, const char *where,
                     const char *name, uint64_t value)
{
    return write_attribute(ctx, path, loc, where, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, 0, 1,
                           &value);
}

static int write_double(op_ctx *ctx, const char *path, hid_t loc, const char *where,
                        const char *name, double value)
{
    return write_attribute(ctx, path, loc, where, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, 1,
                           &value);
}

static int write_dataset(op_ctx *ctx, const char *path, hid_t group, const char *where,
                         const char *name, hid_t file_type, hid_t mem_type, int rank,
                         const hsize_t *dims, const void *data)
{
    int rc = OP_OK;
    hid_t dcpl = -1, ds = -1;
    hid_t space = H5Screate_simple(rank, dims, NULL);
    if (space < 0) {
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot make the dataspace of %s/%s", path, where,
                     name);
        goto done;
    }
    dcpl = creation_list(H5P_DATASET_CREATE);
    if (dcpl < 0) {
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot make a creation list for %s/%s", path,
                     where, name);
        goto done;
    }
    ds = H5Dcreate2(group, name, file_type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (ds < 0) {
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot create dataset %s/%s", path, where, name);
        goto done;
    }
    /* An empty dataset (no edges, no faces) exists with its zero extent and nothing to write. */
    if (H5Sget_simple_extent_npoints(space) > 0 &&
        H5Dwrite(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
        rc = H5_FAIL(ctx, OP_ERR_IO, "%s: cannot write dataset %s/%s", path, where, name);
done:
    if (ds >= 0)
        H5Dclose(ds);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (space >= 0)
        H5Sclose(space);
    return rc;
}

/* Opens `name` in loc, creating it first if it is not there. */
static hid_t open_or_create_group(op_ctx *ctx, const char *path, hid_t loc, const char *name)
{
    htri_t exists = H5Lexists(loc, name, H5P_DEFAULT);
    if (exists < 0) {
        H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot look up group /%s", path, name);
        return -1;
    }
    if (exists) {
        hid_t group = H5Gopen2(loc, name, H5P_DEFAULT);
        if (group < 0)
            H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot open group /%s", path, name);
        return group;
    }
    hid_t gcpl = creation_list(H5P_GROUP_CREATE);
    if (gcpl < 0) {
        H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot make a creation list for group /%s", path, name);
        return -1;
    }
    hid_t group = H5Gcreate2(loc, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
    if (group < 0)
        H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot create group /%s", path, name);
    H5Pclose(gcpl);
    return group;
}

/* Creates /<top>/<name> and returns it open. */
static hid_t create_body_group(op_ctx *ctx, const char *path, hid_t file, const char *top,
                               const char *name, const char *where)
{
    hid_t parent = open_or_create_group(ctx, path, file, top);
    if (parent < 0)
        return -1;
    hid_t group = -1;
    hid_t gcpl = creation_list(H5P_GROUP_CREATE);
    if (gcpl < 0)
        H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot make a creation list for group %s", path, where);
    else {
        group = H5Gcreate2(parent, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
        if (group < 0)
            H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot create group %s", path, where);
        H5Pclose(gcpl);
    }
    H5Gclose(parent);
    return group;
}

/* Closes every series still open in the run and returns how many failed to close: those may
 * have lost the rows still in their chunk cache. */
static int close_all_series(op_runfile *run)
{
    int failed = 0;
    for (int i = 0; i < OP_RUNFILE_MAX_SERIES; i++)
        if (run->series[i] > 0) {
            failed += H5Dclose(run->series[i]) < 0;
            run->series[i] = 0;
        }
    return failed;
}

/* Points the file's descriptor at an anonymous memory file. A file being discarded has no bytes
 * worth keeping: its last flushes (series chunk caches, metadata) then go to memory and succeed,
 * so a dataset write that failed on a full disk is followed by a clean close, and the unlinked
 * temporary file's blocks are freed at once, not when the process ends (an in-process sweep
 * goes on). After a failed H5Fflush, libhdf5 1.10 refuses every later close of the file
 * ("slist already enabled?") and leaves it half closed; its exit handler then crashed on it
 * (SIGSEGV, exit 139, instead of 74), which op_platform_init prevents (core/base/platform.h). */
static void divert_writes_to_memory(hid_t file)
{
    void *handle = NULL;
    if (H5Fget_vfd_handle(file, H5P_DEFAULT, &handle) < 0 || !handle)
        return;
    int memory = memfd_create("opsim-discarded-run-file", MFD_CLOEXEC);
    if (memory < 0)
        return;
    dup2(memory, *(int *)handle);
    close(memory);
}

static void discard_temp(op_runfile *run)
{
    if (run->file > 0)
        divert_writes_to_memory(run->file);
    close_all_series(run);
    if (run->file > 0)
        H5Fclose(run->file);
    run->file = -1;
    if (run->temp_path[0]) {
        unlink(run->temp_path);
        op_temp_untrack(run->temp_path);
    }
    run->temp_path[0] = '\0';
}

static int check_directory(op_ctx *ctx, const char *path)
{
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    struct stat st;
    if (stat(dir, &st) != 0)
        return OP_FAIL(ctx, OP_ERR_IO, "%s: cannot create the run file: directory %s: %s", path,
                       dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return OP_FAIL(ctx, OP_ERR_IO, "%s: cannot create the run file: %s is not a directory",
                       path, dir);
    return OP_OK;
}

static int create_impl(op_ctx *ctx, op_runfile *run, const char *path, const op_provenance *prov)
{
    memset(run, 0, sizeof *run);
    run->file = -1;
    if (!path || !*path)
        return OP_FAIL(ctx, OP_ERR_USAGE, "no run file path given");
    if (!prov || !prov->command_line || !prov->config_text)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: provenance without command line or config", path);
    if ((size_t)snprintf(run->final_path, sizeof run->final_path, "%s", path) >=
            sizeof run->final_path ||
        (size_t)snprintf(run->temp_path, sizeof run->temp_path, "%s.%ld.tmp", path,
                         (long)getpid()) >= sizeof run->temp_path) {
        run->final_path[0] = run->temp_path[0] = '\0';
        return OP_FAIL(ctx, OP_ERR_INVALID, "%.200s...: run file path too long", path);
    }
    int rc = check_directory(ctx, path);
    if (rc) {
        run->temp_path[0] = '\0';
        return rc;
    }

    char created[32];
    time_t now = time(NULL);
    struct tm utc;
    if (now == (time_t)-1 || !gmtime_r(&now, &utc) ||
        !strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &utc)) {
        run->temp_path[0] = '\0';
        return OP_FAIL(ctx, OP_ERR_IO, "%s: cannot read the clock for the created attribute", path);
    }

    hid_t fapl = file_access_list();
    if (fapl < 0) {
        run->temp_path[0] = '\0';
        return H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot make a file access list", path);
    }
    op_temp_remove_stale(path);
    op_temp_track(run->temp_path);
    run->file = H5Fcreate(run->temp_path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (run->file < 0)
        rc = H5_FAIL(ctx, OP_ERR_IO, "%s: cannot create the temporary file %s", path,
                     run->temp_path);
    H5Pclose(fapl);
    if (rc) {
        discard_temp(run);
        return rc;
    }

    const char *values[] = { "opsim", OPSIM_VERSION, OPSIM_GIT_REV, OPSIM_CFLAGS,
                             prov->command_line, prov->config_text, created };
    for (size_t i = 0; i < sizeof values / sizeof values[0] && !rc; i++)
        rc = write_string(ctx, path, run->file, "/", ROOT_STRING_ATTRIBUTES[i], values[i]);
    if (!rc)
        rc = write_u64(ctx, path, run->file, "/", "seed", prov->seed);
    if (rc)
        discard_temp(run);
    return rc;
}

/* Everything that would make the body unreadable is refused before the file is touched. */
static int check_body_args(op_ctx *ctx, const op_runfile *run, const char *name,
                           const op_body_info *info, const op_graph *graph, const op_mesh *mesh,
                           const op_skin *skin)
{
    const char *path = run->final_path;
    if (run->file <= 0)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: run file is not open", path);
    if (!valid_body_name(name))
        return OP_FAIL(ctx, OP_ERR_INVALID,
                       "%s: invalid body name \"%.80s\" (1 to 63 of A-Z a-z 0-9 _ -)", path,
                       name ? name : "(null)");
    for (int b = 0; b < run->body_count; b++)
        if (strcmp(run->body_names[b], name) == 0)
            return OP_FAIL(ctx, OP_ERR_INVALID, "%s: body %s written twice", path, name);
    if (run->body_count >= OP_RUNFILE_MAX_BODIES)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: body %s: more than %d bodies", path, name,
                       OP_RUNFILE_MAX_BODIES);
    if (!info || !info->kind || !info->source || !graph || !mesh || !skin)
        return OP_FAIL(ctx, OP_ERR_INVALID,
                       "%s: body %s needs its info (kind, source), graph, mesh and skin", path,
                       name);
    int n = graph->particle_count;
    if (n < 0 || n > MAX_EXTENT || graph->edge_count < 0 || graph->edge_count > MAX_EXTENT)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: body %s: graph counts %d particles, %d edges",
                       path, name, n, graph->edge_count);
    if (!isfinite(graph->density) || graph->density <= 0)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: body %s: graph density %g is not positive", path,
                       name, graph->density);
    int v = mesh->vertex_count;
    if (v < 0 || v > MAX_EXTENT || mesh->face_count < 0 || mesh->face_count > MAX_EXTENT)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: body %s: mesh counts %d vertices, %d faces", path,
                       name, v, mesh->face_count);
    for (int f = 0; f < 3 * mesh->face_count; f++)
        if (mesh->faces[f] < 0 || mesh->faces[f] >= v)
            return OP_FAIL(ctx, OP_ERR_INVALID, "%s: body %s: face %d uses vertex %d of %d", path,
                           name, f / 3, mesh->faces[f], v);
    if (skin->vertex_count != v || skin->k < 1 || skin->k > OP_SKIN_MAX_K)
        return OP_FAIL(ctx, OP_ERR_INVALID,
                       "%s: body %s: skin of %d vertices x %d influences for a mesh of %d "
                       "vertices (1 to %d influences)",
                       path, name, skin->vertex_count, skin->k, v, OP_SKIN_MAX_K);
    for (long long i = 0; i < (long long)v * skin->k; i++)
        if (skin->index[i] < 0 || skin->index[i] >= n)
            return OP_FAIL(ctx, OP_ERR_INVALID, "%s: body %s: vertex %lld binds particle %d of %d",
                           path, name, i / skin->k, skin->index[i], n);
    return OP_OK;
}

static int write_graph(op_ctx *ctx, const char *path, hid_t group, const char *where,
                       const op_body_info *info, const op_graph *graph)
{
    hsize_t n = (hsize_t)graph->particle_count, m = (hsize_t)graph->edge_count;
    int *edges = op_calloc(ctx, 2 * (size_t)m, sizeof *edges);
    if (!edges)
        return ctx->status;
    op_graph_edges(graph, edges);
    int rc = write_dataset(ctx, path, group, where, "rest_position", H5T_IEEE_F64LE,
                           H5T_NATIVE_DOUBLE, 2, (hsize_t[]){ n, 3 }, graph->rest_position);
    if (!rc)
        rc = write_dataset(ctx, path, group, where, "rest_axes", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                           3, (hsize_t[]){ n, 3, 3 }, graph->rest_axes);
    if (!rc)
        rc = write_dataset(ctx, path, group, where, "radii", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 2,
                           (hsize_t[]){ n, 3 }, graph->radii);
    if (!rc)
        rc = write_dataset(ctx, path, group, where, "volume", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1,
                           &n, graph->volume);
    if (!rc)
        rc = write_dataset(ctx, path, group, where, "mass", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 1,
                           &n, graph->mass);
    if (!rc)
        rc = write_dataset(ctx, path, group, where, "edges", H5T_STD_I32LE, H5T_NATIVE_INT, 2,
                           (hsize_t[]){ m, 2 }, edges);
    free(edges);
    if (!rc)
        rc = write_string(ctx, path, group, where, "kind", info->kind);
    if (!rc)
        rc = write_string(ctx, path, group, where, "source", info->source);
    if (!rc)
        rc = write_int(ctx, path, group, where, "particles_requested", info->particles_requested);
    if (!rc)
        rc = write_u64(ctx, path, group, where, "seed", info->seed);
    if (!rc)
        rc = write_double(ctx, path, group, where, "density", graph->density);
    if (!rc)
        rc = write_int(ctx, path, group, where, "particles", graph->particle_count);
    if (!rc)
        rc = write_int(ctx, path, group, where, "edges", graph->edge_count);
    if (!rc && info->voxel_resolution > 0)
        rc = write_int(ctx, path, group, where, "voxel_resolution", info->voxel_resolution);
    return rc;
}

static int write_mesh(op_ctx *ctx, const char *path, hid_t group, const char *where,
                      const op_mesh *mesh, const op_skin *skin)
{
    hsize_t v = (hsize_t)mesh->vertex_count, f = (hsize_t)mesh->face_count, k = (hsize_t)skin->k;
    int rc = write_dataset(ctx, path, group, where, "rest_vertices", H5T_IEEE_F64LE,
                           H5T_NATIVE_DOUBLE, 2, (hsize_t[]){ v, 3 }, mesh->vertices);
    if (!rc)
        rc = write_dataset(ctx, path, group, where, "faces", H5T_STD_I32LE, H5T_NATIVE_INT, 2,
                           (hsize_t[]){ f, 3 }, mesh->faces);
    if (!rc)
        rc = write_dataset(ctx, path, group, where, "skin_index", H5T_STD_I32LE, H5T_NATIVE_INT, 2,
                           (hsize_t[]){ v, k }, skin->index);
    if (!rc)
        rc = write_dataset(ctx, path, group, where, "skin_weight", H5T_IEEE_F64LE,
                           H5T_NATIVE_DOUBLE, 2, (hsize_t[]){ v, k }, skin->weight);
    if (!rc)
        rc = write_int(ctx, path, group, where, "polygons", mesh->polygon_count);
    return rc;
}

static int write_body_impl(op_ctx *ctx, op_runfile *run, const char *name,
                           const op_body_info *info, const op_graph *graph, const op_mesh *mesh,
                           const op_skin *skin)
{
    int rc = check_body_args(ctx, run, name, info, graph, mesh, skin);
    if (rc)
        return rc;
    const char *path = run->final_path;
    char graph_where[80], mesh_where[80];
    snprintf(graph_where, sizeof graph_where, "/graph/%s", name);
    snprintf(mesh_where, sizeof mesh_where, "/mesh/%s", name);

    hid_t group = create_body_group(ctx, path, run->file, "graph", name, graph_where);
    if (group < 0)
        return ctx->status;
    rc = write_graph(ctx, path, group, graph_where, info, graph);
    H5Gclose(group);
    if (!rc) {
        group = create_body_group(ctx, path, run->file, "mesh", name, mesh_where);
        if (group < 0)
            rc = ctx->status;
        else {
            rc = write_mesh(ctx, path, group, mesh_where, mesh, skin);
            H5Gclose(group);
        }
    }
    if (rc) {
        /* A half-written body would contradict the body list written at commit. */
        if (object_exists(run->file, graph_where))
            H5Ldelete(run->file, graph_where, H5P_DEFAULT);
        if (object_exists(run->file, mesh_where))
            H5Ldelete(run->file, mesh_where, H5P_DEFAULT);
        return rc;
    }
    snprintf(run->body_names[run->body_count++], OP_RUNFILE_NAME_SIZE, "%s", name);
    return OP_OK;
}

static int write_instance_impl(op_ctx *ctx, op_runfile *run, const char *name, const char *earlier)
{
    const char *path = run->final_path;
    if (run->file <= 0)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: run file is not open", path);
    if (!valid_body_name(name))
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: invalid body name \"%.80s\" (1 to 63 of A-Z a-z 0-9 _ -)", path,
                       name ? name : "(null)");
    int found = 0;
    for (int b = 0; b < run->body_count; b++) {
        if (strcmp(run->body_names[b], name) == 0)
            return OP_FAIL(ctx, OP_ERR_INVALID, "%s: body %s written twice", path, name);
        found |= earlier && strcmp(run->body_names[b], earlier) == 0;
    }
    if (!found)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: body %s: the body it instances, %s, is not in the file", path, name,
                       earlier ? earlier : "(null)");
    if (run->body_count >= OP_RUNFILE_MAX_BODIES)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: body %s: more than %d bodies", path, name, OP_RUNFILE_MAX_BODIES);
    static const char *const parts[2] = { "graph", "mesh" };
    for (int p = 0; p < 2; ++p) {
        char from[80], to[80];
        snprintf(from, sizeof from, "/%s/%s", parts[p], earlier);
        snprintf(to, sizeof to, "/%s/%s", parts[p], name);
        if (H5Lcreate_hard(run->file, from, run->file, to, H5P_DEFAULT, H5P_DEFAULT) < 0) {
            int rc = H5_FAIL(ctx, OP_ERR_IO, "%s: cannot link %s to %s", path, to, from);
            if (p == 1) { /* a half-written body would contradict the body list */
                snprintf(to, sizeof to, "/graph/%s", name);
                H5Ldelete(run->file, to, H5P_DEFAULT);
            }
            return rc;
        }
    }
    snprintf(run->body_names[run->body_count++], OP_RUNFILE_NAME_SIZE, "%s", name);
    return OP_OK;
}

static int commit_impl(op_ctx *ctx, op_runfile *run)
{
    const char *path = run->final_path;
    if (run->file <= 0)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: run file is not open", path);
    /* An open dataset would survive H5Fclose only as a dangling handle (the close degree is
     * strong), and its cached rows must reach the file before the rename. */
    int rc = OP_OK;
    int failed = close_all_series(run);
    if (failed)
        rc = OP_FAIL(ctx, OP_ERR_IO, "%s: %d series could not be closed; their last rows may be "
                     "lost", path, failed);
    const char *names[OP_RUNFILE_MAX_BODIES];
    for (int b = 0; b < run->body_count; b++)
        names[b] = run->body_names[b];
    if (!rc)
        rc = write_strings(ctx, path, run->file, "/", "bodies", 1, (hsize_t)run->body_count,
                           names);
    if (!rc && H5Fflush(run->file, H5F_SCOPE_GLOBAL) < 0)
        rc = H5_FAIL(ctx, OP_ERR_IO, "%s: cannot flush %s", path, run->temp_path);
    if (!rc) {
        herr_t closed = H5Fclose(run->file);
        run->file = -1;
        if (closed < 0)
            rc = H5_FAIL(ctx, OP_ERR_IO, "%s: cannot close %s", path, run->temp_path);
    }
    if (!rc && rename(run->temp_path, path) != 0)
        rc = OP_FAIL(ctx, OP_ERR_IO, "%s: cannot rename %s onto it: %s", path, run->temp_path,
                     strerror(errno));
    if (rc) {
        discard_temp(run);
        return rc;
    }
    op_temp_untrack(run->temp_path);
    run->temp_path[0] = '\0';
    return OP_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Series, arrays and attributes                                                               */

/* Extents are capped as for the bodies (readers multiply them as ints), and a whole array or
 * row at 2^40 values, so counting them cannot overflow. */
static const long long MAX_VALUES = 1LL << 40;

/* The number of values in an array of these extents, or -1 when an extent is outside
 * [minimum, MAX_EXTENT] or the count exceeds MAX_VALUES. */
static long long count_values(int rank, const int64_t *dims, int64_t minimum)
{
    long long count = 1;
    for (int i = 0; i < rank; i++) {
        if (dims[i] < minimum || dims[i] > MAX_EXTENT)
            return -1;
        if (dims[i] > 0 && count > MAX_VALUES / dims[i])
            return -1;
        count *= dims[i];
    }
    return count;
}

static int valid_type(op_series_type type)
{
    return type == OP_SERIES_FLOAT64 || type == OP_SERIES_INT64;
}

static hid_t file_type_of(op_series_type type)
{
    return type == OP_SERIES_INT64 ? H5T_STD_I64LE : H5T_IEEE_F64LE;
}

static hid_t memory_type_of(op_series_type type)
{
    return type == OP_SERIES_INT64 ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE;
}

/* Creates the missing groups on the way to `object`, and `object` itself when `self` and it
 * is missing; a dataset on the way makes the path invalid. */
static int make_groups(op_ctx *ctx, op_runfile *run, const char *object, int self)
{
    const char *path = run->final_path;
    char prefix[OP_SERIES_PATH_SIZE];
    size_t len = strlen(object);
    /* From 2: the first name has at least one character, and "/" itself needs nothing. */
    for (size_t i = 2; i <= len; i++) {
        if (object[i] != '/' && !(object[i] == '\0' && self))
            continue;
        memcpy(prefix, object, i);
        prefix[i] = '\0';
        if (object_exists(run->file, prefix)) {
            if (i == len)
                break;
            hid_t existing = H5Oopen(run->file, prefix, H5P_DEFAULT);
            if (existing < 0)
                return H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot open %s", path, prefix);
            H5I_type_t type = H5Iget_type(existing);
            H5Oclose(existing);
            if (type != H5I_GROUP)
                return OP_FAIL(ctx, OP_ERR_INVALID, "%s: %s is not a group", path, prefix);
            continue;
        }
        hid_t group = open_or_create_group(ctx, path, run->file, prefix + 1);
        if (group < 0)
            return ctx->status;
        H5Gclose(group);
    }
    return OP_OK;
}

/* The checks shared by everything that adds a new object at `name`. */
static int check_new_object(op_ctx *ctx, op_runfile *run, const char *what, const char *name,
                            op_series_type type)
{
    const char *path = run->final_path;
    if (run->file <= 0)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: run file is not open", path);
    if (!valid_object_path(name, 0))
        return OP_FAIL(ctx, OP_ERR_INVALID,
                       "%s: invalid %s path \"%.80s\" (/a/b/..., names of 1 to 63 of A-Z a-z 0-9 "
                       "_ -)", path, what, name ? name : "(null)");
    if (!valid_type(type))
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: %s %s: unknown type %d", path, what, name,
                       (int)type);
    if (object_exists(run->file, name))
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: %s %s: the path already exists", path, what,
                       name);
    return OP_OK;
}

/* Rows of CHUNK_BYTES or more are one chunk each, cut along their next dimensions when over
 * CHUNK_MAX, so a frame of particles is written and read back as whole chunks. Smaller rows
 * share a chunk of at most CHUNK_ROWS rows: every flush rewrites each series' partly filled
 * chunk whole, and a run may hold a hundred scalar series (observables' value/step/time), so
 * 4 KiB scalar chunks instead of 64 KiB keep the flush and a short run's file small (measured
 * with 104 small series: 0.7 instead of 1.5-2.7 ms per frame, 6 MB less per file). */
enum { CHUNK_BYTES = 64 << 10, CHUNK_MAX = 1 << 20, CHUNK_ROWS = 512 };

static void series_chunk(int rank, const hsize_t *dims, hsize_t *chunk)
{
    hsize_t bytes = 8;
    for (int i = 1; i < rank; i++) {
        chunk[i] = dims[i];
        bytes *= dims[i];
    }
    chunk[0] = bytes >= CHUNK_BYTES ? 1 : CHUNK_BYTES / bytes;
    if (chunk[0] > CHUNK_ROWS)
        chunk[0] = CHUNK_ROWS;
    for (int i = 1; i < rank && bytes > CHUNK_MAX; i++) {
        hsize_t parts = (bytes + CHUNK_MAX - 1) / CHUNK_MAX;
        hsize_t keep = (chunk[i] + parts - 1) / parts;
        bytes = bytes / chunk[i] * keep;
        chunk[i] = keep;
    }
}

static int series_create_impl(op_ctx *ctx, op_runfile *run, op_series *series, const char *name,
                              op_series_type type, int row_rank, const int64_t *row_dims,
                              const char *unit, const char *description)
{
    memset(series, 0, sizeof *series);
    series->dataset = -1;
    const char *path = run->final_path;
    int rc = check_new_object(ctx, run, "series", name, type);
    if (rc)
        return rc;
    if (row_rank < 0 || row_rank > OP_SERIES_MAX_ROW_RANK || (row_rank > 0 && !row_dims) ||
        count_values(row_rank, row_dims, 1) < 0)
        return OP_FAIL(ctx, OP_ERR_INVALID,
                       "%s: series %s: rows of rank %d (0 to %d, each extent 1 to %d)", path,
                       name, row_rank, OP_SERIES_MAX_ROW_RANK, MAX_EXTENT);
    int slot = 0;
    while (slot < OP_RUNFILE_MAX_SERIES && run->series[slot] > 0)
        slot++;
    if (slot == OP_RUNFILE_MAX_SERIES)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: series %s: %d series are open already", path,
                       name, OP_RUNFILE_MAX_SERIES);
    rc = make_groups(ctx, run, name, 0);
    if (rc)
        return rc;

    int rank = row_rank + 1;
    hsize_t dims[OP_SERIES_MAX_ROW_RANK + 1] = { 0 }, max[OP_SERIES_MAX_ROW_RANK + 1] = {
        H5S_UNLIMITED
    }, chunk[OP_SERIES_MAX_ROW_RANK + 1];
    for (int i = 0; i < row_rank; i++)
        dims[i + 1] = max[i + 1] = (hsize_t)row_dims[i];
    series_chunk(rank, dims, chunk);
    hid_t ds = -1, dcpl = -1, dapl = -1, space = H5Screate_simple(rank, dims, max);
    if (space < 0) {
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot make the dataspace of series %s", path,
                     name);
        goto done;
    }
    /* When a chunk holds one row or less, every append covers whole chunks, so there is no
     * fill value to write first and nothing to gain from the chunk cache: without both, HDF5
     * writes a frame straight from the caller's rows instead of copying it through the cache
     * (measured: a third less time per frame of 4,400 particles). */
    int whole_chunks = chunk[0] == 1;
    dcpl = creation_list(H5P_DATASET_CREATE);
    if (dcpl < 0 || H5Pset_chunk(dcpl, rank, chunk) < 0 ||
        (whole_chunks && H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) < 0)) {
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot make a chunked creation list for series %s",
                     path, name);
        goto done;
    }
    dapl = H5Pcreate(H5P_DATASET_ACCESS);
    if (dapl < 0 || (whole_chunks && H5Pset_chunk_cache(dapl, H5D_CHUNK_CACHE_NSLOTS_DEFAULT, 0,
                                                        H5D_CHUNK_CACHE_W0_DEFAULT) < 0)) {
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot make an access list for series %s", path,
                     name);
        goto done;
    }
    ds = H5Dcreate2(run->file, name, file_type_of(type), space, H5P_DEFAULT, dcpl, dapl);
    if (ds < 0) {
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot create series %s", path, name);
        goto done;
    }
    if (unit)
        rc = write_string(ctx, path, ds, name, "unit", unit);
    if (!rc && description)
        rc = write_string(ctx, path, ds, name, "description", description);
done:
    if (dapl >= 0)
        H5Pclose(dapl);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (space >= 0)
        H5Sclose(space);
    if (rc) {
        if (ds >= 0) {
            H5Dclose(ds);
            H5Ldelete(run->file, name, H5P_DEFAULT);
        }
        return rc;
    }
    run->series[slot] = ds;
    series->dataset = ds;
    series->slot = slot;
    series->type = type;
    series->row_rank = row_rank;
    for (int i = 0; i < row_rank; i++)
        series->row_dims[i] = row_dims[i];
    snprintf(series->path, sizeof series->path, "%s", name);
    return OP_OK;
}

/* Open means registered in this run: commit and abort empty the registry, so a series that
 * outlived its run is refused rather than written through a stale handle. */
static int series_is_open(const op_runfile *run, const op_series *series)
{
    return run && series && series->dataset > 0 && series->slot >= 0 &&
           series->slot < OP_RUNFILE_MAX_SERIES && run->series[series->slot] == series->dataset;
}

static int series_append_impl(op_ctx *ctx, op_runfile *run, op_series *series, const void *rows,
                              long count)
{
    const char *path = run->final_path;
    if (!series_is_open(run, series))
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: series %s is not open in this run", path,
                       series && series->path[0] ? series->path : "(never created)");
    if (count < 0 || (count > 0 && !rows) || count > LONG_MAX - series->rows)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: series %s: cannot append %ld rows%s", path,
                       series->path, count, rows ? "" : " from NULL");
    if (count == 0)
        return OP_OK;
    int rank = series->row_rank + 1, rc = OP_OK;
    hsize_t extent[OP_SERIES_MAX_ROW_RANK + 1], block[OP_SERIES_MAX_ROW_RANK + 1];
    hsize_t start[OP_SERIES_MAX_ROW_RANK + 1] = { (hsize_t)series->rows };
    extent[0] = (hsize_t)(series->rows + count);
    block[0] = (hsize_t)count;
    for (int i = 0; i < series->row_rank; i++)
        extent[i + 1] = block[i + 1] = (hsize_t)series->row_dims[i];
    if (H5Dset_extent(series->dataset, extent) < 0)
        return H5_FAIL(ctx, OP_ERR_IO, "%s: cannot extend series %s to %ld rows", path,
                       series->path, series->rows + count);
    hid_t file_space = H5Dget_space(series->dataset);
    hid_t memory = H5Screate_simple(rank, block, NULL);
    if (file_space < 0 || memory < 0 ||
        H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, NULL, block, NULL) < 0)
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot select rows of series %s", path,
                     series->path);
    else if (H5Dwrite(series->dataset, memory_type_of(series->type), memory, file_space,
                      H5P_DEFAULT, rows) < 0)
        rc = H5_FAIL(ctx, OP_ERR_IO, "%s: cannot write rows %ld to %ld of series %s", path,
                     series->rows, series->rows + count - 1, series->path);
    if (memory >= 0)
        H5Sclose(memory);
    if (file_space >= 0)
        H5Sclose(file_space);
    if (rc) {
        /* Rows of fill values would pass for data. */
        extent[0] = (hsize_t)series->rows;
        H5Dset_extent(series->dataset, extent);
        return rc;
    }
    series->rows += count;
    return OP_OK;
}

static int series_close_impl(op_ctx *ctx, op_runfile *run, op_series *series)
{
    if (!series)
        return OP_OK;
    int rc = OP_OK;
    if (series_is_open(run, series)) {
        run->series[series->slot] = 0;
        if (H5Dclose(series->dataset) < 0)
            rc = H5_FAIL(ctx, OP_ERR_IO, "%s: cannot close series %s; its last rows may be lost",
                         run->final_path, series->path);
    }
    series->dataset = -1;
    return rc;
}

static int flush_impl(op_ctx *ctx, op_runfile *run)
{
    if (run->file <= 0)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: run file is not open", run->final_path);
    if (H5Fflush(run->file, H5F_SCOPE_GLOBAL) < 0)
        return H5_FAIL(ctx, OP_ERR_IO, "%s: cannot flush %s", run->final_path, run->temp_path);
    return OP_OK;
}

/* Checks an attribute about to be set and opens its object, creating it as a group when it
 * is missing; -1 on failure. */
static hid_t attribute_target(op_ctx *ctx, op_runfile *run, const char *object, const char *name)
{
    const char *path = run->final_path;
    if (run->file <= 0) {
        OP_FAIL(ctx, OP_ERR_INVALID, "%s: run file is not open", path);
        return -1;
    }
    if (!valid_object_path(object, 1) || !valid_body_name(name)) {
        OP_FAIL(ctx, OP_ERR_INVALID,
                "%s: invalid attribute \"%.80s\" of \"%.80s\" (names of 1 to 63 of A-Z a-z 0-9 "
                "_ -)", path, name ? name : "(null)", object ? object : "(null)");
        return -1;
    }
    if (strcmp(object, "/") == 0 && strcmp(name, "bodies") == 0) {
        OP_FAIL(ctx, OP_ERR_INVALID, "%s: the root attribute bodies is written by commit", path);
        return -1;
    }
    if (make_groups(ctx, run, object, 1))
        return -1;
    htri_t exists = H5Aexists_by_name(run->file, object, name, H5P_DEFAULT);
    if (exists != 0) {
        if (exists > 0)
            OP_FAIL(ctx, OP_ERR_INVALID, "%s: %s already has attribute %s", path, object, name);
        else
            H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot look up attribute %s of %s", path, name,
                    object);
        return -1;
    }
    hid_t target = H5Oopen(run->file, object, H5P_DEFAULT);
    if (target < 0)
        H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot open %s", path, object);
    return target;
}

static int write_array_impl(op_ctx *ctx, op_runfile *run, const char *name, op_series_type type,
                            int rank, const int64_t *dims, const void *data)
{
    const char *path = run->final_path;
    int rc = check_new_object(ctx, run, "array", name, type);
    if (rc)
        return rc;
    long long values = rank >= 1 && rank <= OP_SERIES_MAX_ROW_RANK + 1 && dims
                           ? count_values(rank, dims, 0)
                           : -1;
    if (values < 0)
        return OP_FAIL(ctx, OP_ERR_INVALID,
                       "%s: array %s: rank %d (1 to %d, each extent 0 to %d)", path, name, rank,
                       OP_SERIES_MAX_ROW_RANK + 1, MAX_EXTENT);
    if (values > 0 && !data)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: array %s: no data for %lld values", path, name,
                       values);
    rc = make_groups(ctx, run, name, 0);
    if (rc)
        return rc;
    hsize_t extent[OP_SERIES_MAX_ROW_RANK + 1];
    for (int i = 0; i < rank; i++)
        extent[i] = (hsize_t)dims[i];
    rc = write_dataset(ctx, path, run->file, "", name + 1, file_type_of(type),
                       memory_type_of(type), rank, extent, data);
    if (rc && object_exists(run->file, name))
        H5Ldelete(run->file, name, H5P_DEFAULT);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Reading                                                                                     */

/* Reads a string attribute of any rank, variable- or fixed-length, into copies the caller
 * frees with free_strings. */
static int read_strings(op_ctx *ctx, const char *path, hid_t attr, const char *what,
                        char ***out, size_t *count)
{
    int rc = OP_OK;
    char **strings = NULL;
    hid_t mem = -1;
    size_t n = 0;
    *out = NULL;
    *count = 0;
    hid_t type = H5Aget_type(attr);
    hid_t space = H5Aget_space(attr);
    if (type < 0 || space < 0) {
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot inspect attribute %s", path, what);
        goto done;
    }
    if (H5Tget_class(type) != H5T_STRING) {
        rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: attribute %s is not a string", path, what);
        goto done;
    }
    hssize_t points = H5Sget_simple_extent_npoints(space);
    if (points < 0 || points > MAX_EXTENT) {
        rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: attribute %s has %lld strings", path, what,
                     (long long)points);
        goto done;
    }
    n = (size_t)points;
    strings = op_calloc(ctx, n, sizeof *strings);
    if (!strings) {
        rc = ctx->status;
        goto done;
    }
    htri_t variable = H5Tis_variable_str(type);
    if (variable > 0) {
        mem = variable_string_type(H5Tget_cset(type));
        char **raw = op_calloc(ctx, n, sizeof *raw);
        if (!raw) {
            rc = ctx->status;
            goto done;
        }
        struct rlimit saved;
        int capped = cap_address_space((size_t)256 << 20, &saved);
        herr_t read = mem < 0 ? -1 : n > 0 ? H5Aread(attr, mem, raw) : 0;
        if (capped)
            setrlimit(RLIMIT_AS, &saved);
        if (read < 0)
            rc = H5_FAIL(ctx, OP_ERR_IO, "%s: cannot read attribute %s", path, what);
        for (size_t i = 0; i < n; i++) {
            if (!rc && !(strings[i] = copy_string(ctx, raw[i] ? raw[i] : "")))
                rc = ctx->status;
            if (raw[i])
                H5free_memory(raw[i]);
        }
        free(raw);
    } else {
        /* One byte more per string than stored, so the conversion always leaves a '\0'. */
        size_t size = H5Tget_size(type) + 1;
        char *raw = op_calloc(ctx, n, size);
        if (!raw) {
            rc = ctx->status;
            goto done;
        }
        mem = H5Tcopy(H5T_C_S1);
        if (mem < 0 || H5Tset_size(mem, size) < 0 || H5Tset_strpad(mem, H5T_STR_NULLTERM) < 0 ||
            H5Tset_cset(mem, H5Tget_cset(type)) < 0 || (n > 0 && H5Aread(attr, mem, raw) < 0))
            rc = H5_FAIL(ctx, OP_ERR_IO, "%s: cannot read attribute %s", path, what);
        for (size_t i = 0; i < n && !rc; i++)
            if (!(strings[i] = copy_string(ctx, raw + i * size)))
                rc = ctx->status;
        free(raw);
    }
done:
    if (mem >= 0)
        H5Tclose(mem);
    if (type >= 0)
        H5Tclose(type);
    if (space >= 0)
        H5Sclose(space);
    if (rc)
        free_strings(strings, n);
    else {
        *out = strings;
        *count = n;
    }
    return rc;
}

static hid_t open_attribute(op_ctx *ctx, const char *path, hid_t file, const char *where,
                            const char *name)
{
    htri_t exists = H5Aexists_by_name(file, where, name, H5P_DEFAULT);
    if (exists <= 0) {
        OP_FAIL(ctx, OP_ERR_INVALID, "%s: %s has no attribute %s", path, where, name);
        return -1;
    }
    hid_t attr = H5Aopen_by_name(file, where, name, H5P_DEFAULT, H5P_DEFAULT);
    if (attr < 0)
        H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot open attribute %s of %s", path, name, where);
    return attr;
}

/* One number of the class of mem_type (integer or float). */
static int read_number(op_ctx *ctx, const char *path, hid_t file, const char *where,
                       const char *name, hid_t mem_type, void *value)
{
    hid_t attr = open_attribute(ctx, path, file, where, name);
    if (attr < 0)
        return ctx->status;
    int rc = OP_OK;
    hid_t type = H5Aget_type(attr), space = H5Aget_space(attr);
    if (type < 0 || space < 0)
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot inspect attribute %s of %s", path, name,
                     where);
    else if (H5Tget_class(type) != H5Tget_class(mem_type) ||
             H5Sget_simple_extent_npoints(space) != 1)
        rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: attribute %s of %s is not one %s", path, name,
                     where, H5Tget_class(mem_type) == H5T_FLOAT ? "float" : "integer");
    else if (H5Aread(attr, mem_type, value) < 0)
        rc = H5_FAIL(ctx, OP_ERR_IO, "%s: cannot read attribute %s of %s", path, name, where);
    if (type >= 0)
        H5Tclose(type);
    if (space >= 0)
        H5Sclose(space);
    H5Aclose(attr);
    return rc;
}

/* One string; used only to prove that it is there and is a string. */
static int require_string(op_ctx *ctx, const char *path, hid_t file, const char *where,
                          const char *name)
{
    hid_t attr = open_attribute(ctx, path, file, where, name);
    if (attr < 0)
        return ctx->status;
    char what[160];
    snprintf(what, sizeof what, "%s of %s", name, where);
    char **strings;
    size_t count;
    int rc = read_strings(ctx, path, attr, what, &strings, &count);
    H5Aclose(attr);
    if (rc)
        return rc;
    free_strings(strings, count);
    if (count != 1)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: attribute %s holds %zu strings, not one", path,
                       what, count);
    return OP_OK;
}

/* Reads where/name whole into a new array after checking its class and shape: expected[i] < 0
 * accepts any extent up to MAX_EXTENT. dims receives the extents. NULL on failure. */
static void *read_dataset(op_ctx *ctx, const char *path, hid_t file, const char *where,
                          const char *name, hid_t mem_type, int rank, const long long *expected,
                          hsize_t *dims)
{
    char full[160], got[96], want[96], type_text[32];
    snprintf(full, sizeof full, "%s/%s", where, name);
    if (H5Lexists(file, full, H5P_DEFAULT) <= 0) {
        OP_FAIL(ctx, OP_ERR_INVALID, "%s: missing dataset %s", path, full);
        return NULL;
    }
    hid_t ds = H5Dopen2(file, full, H5P_DEFAULT);
    if (ds < 0) {
        H5_FAIL(ctx, OP_ERR_INVALID, "%s: %s is not a dataset", path, full);
        return NULL;
    }
    void *data = NULL;
    hid_t type = H5Dget_type(ds), space = H5Dget_space(ds);
    if (type < 0 || space < 0) {
        H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot inspect dataset %s", path, full);
        goto done;
    }
    if (H5Tget_class(type) != H5Tget_class(mem_type)) {
        type_name(type, type_text, sizeof type_text);
        OP_FAIL(ctx, OP_ERR_INVALID, "%s: dataset %s is %s, expected %s", path, full, type_text,
                H5Tget_class(mem_type) == H5T_FLOAT ? "float64" : "int32");
        goto done;
    }
    int actual = H5Sget_simple_extent_ndims(space);
    int matches = actual == rank;
    if (matches) {
        H5Sget_simple_extent_dims(space, dims, NULL);
        for (int i = 0; i < rank; i++)
            if (expected[i] >= 0 ? dims[i] != (hsize_t)expected[i] : dims[i] > MAX_EXTENT)
                matches = 0;
    }
    if (!matches) {
        hsize_t shown[H5S_MAX_RANK];
        int shown_rank = actual < 0 ? 0 : actual;
        H5Sget_simple_extent_dims(space, shown, NULL);
        format_shape(got, sizeof got, shown_rank, shown);
        format_expected(want, sizeof want, rank, expected);
        OP_FAIL(ctx, OP_ERR_INVALID, "%s: dataset %s has shape %s, expected %s", path, full, got,
                want);
        goto done;
    }
    size_t count = 1;
    for (int i = 0; i < rank; i++)
        count *= (size_t)dims[i];
    data = op_calloc(ctx, count, H5Tget_size(mem_type));
    if (data && count > 0 && H5Dread(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
        H5_FAIL(ctx, OP_ERR_IO, "%s: cannot read dataset %s", path, full);
        OP_FREE(data);
    }
done:
    if (type >= 0)
        H5Tclose(type);
    if (space >= 0)
        H5Sclose(space);
    H5Dclose(ds);
    return data;
}

/* One body exactly as stored, shapes and index ranges already checked. */
typedef struct body_data {
    int n, m, v, f, k, polygons;
    double density;
    double *rest_position, *rest_axes, *radii, *volume, *mass, *rest_vertices, *skin_weight;
    int *edges, *faces, *skin_index;
} body_data;

static void body_data_free(body_data *b)
{
    OP_FREE(b->rest_position);
    OP_FREE(b->rest_axes);
    OP_FREE(b->radii);
    OP_FREE(b->volume);
    OP_FREE(b->mass);
    OP_FREE(b->rest_vertices);
    OP_FREE(b->skin_weight);
    OP_FREE(b->edges);
    OP_FREE(b->faces);
    OP_FREE(b->skin_index);
}

static int check_indices(op_ctx *ctx, const char *path, const char *where, const char *name,
                         const int *index, int rows, int columns, int limit)
{
    for (long long i = 0; i < (long long)rows * columns; i++)
        if (index[i] < 0 || index[i] >= limit)
            return OP_FAIL(ctx, OP_ERR_INVALID, "%s: %s/%s row %lld holds %d, outside [0, %d)",
                           path, where, name, i / columns, index[i], limit);
    return OP_OK;
}

static int load_body(op_ctx *ctx, const char *path, hid_t file, const char *name, body_data *b)
{
    char graph_where[80], mesh_where[80];
    snprintf(graph_where, sizeof graph_where, "/graph/%s", name);
    snprintf(mesh_where, sizeof mesh_where, "/mesh/%s", name);
    memset(b, 0, sizeof *b);
    if (!object_exists(file, graph_where) || !object_exists(file, mesh_where))
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: no body %s (needs %s and %s)", path, name,
                       graph_where, mesh_where);
    hsize_t dims[3];
    if (!(b->rest_position = read_dataset(ctx, path, file, graph_where, "rest_position",
                                          H5T_NATIVE_DOUBLE, 2, (const long long[]){ -1, 3 },
                                          dims)))
        return ctx->status;
    b->n = (int)dims[0];
    long long n = b->n;
    if (!(b->rest_axes = read_dataset(ctx, path, file, graph_where, "rest_axes", H5T_NATIVE_DOUBLE,
                                      3, (const long long[]){ n, 3, 3 }, dims)) ||
        !(b->radii = read_dataset(ctx, path, file, graph_where, "radii", H5T_NATIVE_DOUBLE, 2,
                                  (const long long[]){ n, 3 }, dims)) ||
        !(b->volume = read_dataset(ctx, path, file, graph_where, "volume", H5T_NATIVE_DOUBLE, 1,
                                   &n, dims)) ||
        !(b->mass = read_dataset(ctx, path, file, graph_where, "mass", H5T_NATIVE_DOUBLE, 1, &n,
                                 dims)) ||
        !(b->edges = read_dataset(ctx, path, file, graph_where, "edges", H5T_NATIVE_INT, 2,
                                  (const long long[]){ -1, 2 }, dims)))
        return ctx->status;
    b->m = (int)dims[0];
    if (!(b->rest_vertices = read_dataset(ctx, path, file, mesh_where, "rest_vertices",
                                          H5T_NATIVE_DOUBLE, 2, (const long long[]){ -1, 3 },
                                          dims)))
        return ctx->status;
    b->v = (int)dims[0];
    long long v = b->v;
    if (!(b->faces = read_dataset(ctx, path, file, mesh_where, "faces", H5T_NATIVE_INT, 2,
                                  (const long long[]){ -1, 3 }, dims)))
        return ctx->status;
    b->f = (int)dims[0];
    if (!(b->skin_index = read_dataset(ctx, path, file, mesh_where, "skin_index", H5T_NATIVE_INT,
                                       2, (const long long[]){ v, -1 }, dims)))
        return ctx->status;
    b->k = (int)dims[1];
    if (b->k < 1 || b->k > OP_SKIN_MAX_K)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: %s/skin_index has %d columns, expected 1 to %d",
                       path, mesh_where, b->k, OP_SKIN_MAX_K);
    if (!(b->skin_weight = read_dataset(ctx, path, file, mesh_where, "skin_weight",
                                        H5T_NATIVE_DOUBLE, 2, (const long long[]){ v, b->k },
                                        dims)))
        return ctx->status;
    int rc = read_number(ctx, path, file, graph_where, "density", H5T_NATIVE_DOUBLE, &b->density);
    if (!rc && (!isfinite(b->density) || b->density <= 0))
        rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: %s density %g is not positive", path, graph_where,
                     b->density);
    if (!rc)
        rc = read_number(ctx, path, file, mesh_where, "polygons", H5T_NATIVE_INT, &b->polygons);
    if (!rc)
        rc = check_indices(ctx, path, graph_where, "edges", b->edges, b->m, 2, b->n);
    if (!rc)
        rc = check_indices(ctx, path, mesh_where, "faces", b->faces, b->f, 3, b->v);
    if (!rc)
        rc = check_indices(ctx, path, mesh_where, "skin_index", b->skin_index, b->v, b->k, b->n);
    return rc;
}

static int agrees(double a, double b)
{
    return fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b));
}

static void free_outputs(op_graph *graph, op_mesh *mesh, op_skin *skin)
{
    if (graph) {
        op_graph_free(graph);
        memset(graph, 0, sizeof *graph);
    }
    if (mesh) {
        op_mesh_free(mesh);
        memset(mesh, 0, sizeof *mesh);
    }
    if (skin) {
        op_skin_free(skin);
        memset(skin, 0, sizeof *skin);
    }
}

/* The caller has zeroed graph, mesh and skin, so freeing all three on failure is safe. */
static int build_body(op_ctx *ctx, const char *path, const char *name, const body_data *b,
                      op_graph *graph, op_mesh *mesh, op_skin *skin)
{
    int rc = OP_OK;
    if (graph) {
        rc = op_graph_alloc(ctx, graph, b->n, b->m);
        if (rc)
            goto fail;
        memcpy(graph->rest_position, b->rest_position, 3 * (size_t)b->n * sizeof(double));
        memcpy(graph->rest_axes, b->rest_axes, 9 * (size_t)b->n * sizeof(double));
        memcpy(graph->radii, b->radii, 3 * (size_t)b->n * sizeof(double));
        rc = op_graph_set_edges(ctx, graph, b->edges, b->m);
        if (rc)
            goto fail;
        if (graph->edge_count != b->m) {
            rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: /graph/%s/edges repeats edges (%d unique of %d)",
                         path, name, graph->edge_count, b->m);
            goto fail;
        }
        op_graph_derive(graph, b->density);
        for (int i = 0; i < b->n; i++)
            if (!agrees(graph->volume[i], b->volume[i]) || !agrees(graph->mass[i], b->mass[i])) {
                rc = OP_FAIL(ctx, OP_ERR_INVALID,
                             "%s: /graph/%s particle %d: stored volume %.17g and mass %.17g are "
                             "inconsistent with the radii and density (%.17g, %.17g)",
                             path, name, i, b->volume[i], b->mass[i], graph->volume[i],
                             graph->mass[i]);
                goto fail;
            }
    }
    if (mesh) {
        rc = op_mesh_alloc(ctx, mesh, b->v, b->f);
        if (rc)
            goto fail;
        memcpy(mesh->vertices, b->rest_vertices, 3 * (size_t)b->v * sizeof(double));
        memcpy(mesh->faces, b->faces, 3 * (size_t)b->f * sizeof(int));
        mesh->polygon_count = b->polygons;
    }
    if (skin) {
        rc = op_skin_alloc(ctx, skin, b->v, b->k);
        if (rc)
            goto fail;
        memcpy(skin->index, b->skin_index, (size_t)b->v * (size_t)b->k * sizeof(int));
        memcpy(skin->weight, b->skin_weight, (size_t)b->v * (size_t)b->k * sizeof(double));
    }
    return OP_OK;
fail:
    free_outputs(graph, mesh, skin);
    return rc;
}

static int read_body_impl(op_ctx *ctx, const char *path, const char *name, op_graph *graph,
                          op_mesh *mesh, op_skin *skin)
{
    if (graph)
        memset(graph, 0, sizeof *graph);
    if (mesh)
        memset(mesh, 0, sizeof *mesh);
    if (skin)
        memset(skin, 0, sizeof *skin);
    if (!valid_body_name(name))
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: invalid body name \"%.80s\"", path ? path : "",
                       name ? name : "(null)");
    hid_t file = open_file(ctx, path, H5F_ACC_RDONLY);
    if (file < 0)
        return ctx->status;
    body_data b;
    int rc = load_body(ctx, path, file, name, &b);
    if (!rc)
        rc = build_body(ctx, path, name, &b, graph, mesh, skin);
    body_data_free(&b);
    H5Fclose(file);
    return rc;
}

/* The "bodies" root attribute, every name validated. */
static int read_body_list(op_ctx *ctx, const char *path, hid_t file, char ***names, size_t *count)
{
    hid_t attr = open_attribute(ctx, path, file, "/", "bodies");
    if (attr < 0)
        return ctx->status;
    int rc = read_strings(ctx, path, attr, "bodies", names, count);
    H5Aclose(attr);
    for (size_t i = 0; i < *count && !rc; i++)
        if (!valid_body_name((*names)[i]))
            rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: bodies lists an invalid name \"%.80s\"", path,
                         (*names)[i]);
    if (rc) {
        free_strings(*names, *count);
        *names = NULL;
        *count = 0;
    }
    return rc;
}

static int body_names_impl(op_ctx *ctx, const char *path, char (*names)[OP_RUNFILE_NAME_SIZE],
                           int capacity, int *count)
{
    *count = 0;
    hid_t file = open_file(ctx, path, H5F_ACC_RDONLY);
    if (file < 0)
        return ctx->status;
    char **list;
    size_t listed;
    int rc = read_body_list(ctx, path, file, &list, &listed);
    H5Fclose(file);
    if (rc)
        return rc;
    if (listed > (size_t)(capacity < 0 ? 0 : capacity))
        rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: %zu bodies, more than the %d expected", path,
                     listed, capacity);
    else {
        for (size_t i = 0; i < listed; i++)
            snprintf(names[i], OP_RUNFILE_NAME_SIZE, "%s", list[i]);
        *count = (int)listed;
    }
    free_strings(list, listed);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Check                                                                                       */

static int check_finite(op_ctx *ctx, const char *path, const char *where, const char *name,
                        const double *x, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (!isfinite(x[i]))
            return OP_FAIL(ctx, OP_ERR_INVALID, "%s: %s/%s element %zu is %g", path, where, name,
                           i, x[i]);
    return OP_OK;
}

static int check_count(op_ctx *ctx, const char *path, hid_t file, const char *where,
                       const char *name, int expected)
{
    int value;
    int rc = read_number(ctx, path, file, where, name, H5T_NATIVE_INT, &value);
    if (!rc && value != expected)
        rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: %s attribute %s is %d but the datasets hold %d",
                     path, where, name, value, expected);
    return rc;
}

static int check_body(op_ctx *ctx, const char *path, hid_t file, const char *name)
{
    char graph_where[80], mesh_where[80];
    snprintf(graph_where, sizeof graph_where, "/graph/%s", name);
    snprintf(mesh_where, sizeof mesh_where, "/mesh/%s", name);
    body_data b;
    int rc = load_body(ctx, path, file, name, &b);
    size_t n = (size_t)b.n;
    if (!rc)
        rc = check_finite(ctx, path, graph_where, "rest_position", b.rest_position, 3 * n);
    if (!rc)
        rc = check_finite(ctx, path, graph_where, "rest_axes", b.rest_axes, 9 * n);
    if (!rc)
        rc = check_finite(ctx, path, graph_where, "radii", b.radii, 3 * n);
    if (!rc)
        rc = check_finite(ctx, path, graph_where, "volume", b.volume, n);
    if (!rc)
        rc = check_finite(ctx, path, graph_where, "mass", b.mass, n);
    if (!rc)
        rc = check_finite(ctx, path, mesh_where, "rest_vertices", b.rest_vertices,
                          3 * (size_t)b.v);
    if (!rc)
        rc = check_finite(ctx, path, mesh_where, "skin_weight", b.skin_weight,
                          (size_t)b.v * (size_t)b.k);
    for (int e = 0; e < b.m && !rc; e++) {
        const int *edge = &b.edges[2 * e], *previous = edge - 2;
        if (edge[0] >= edge[1])
            rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: %s/edges row %d is (%d, %d), not i < j", path,
                         graph_where, e, edge[0], edge[1]);
        else if (e > 0 && (edge[0] < previous[0] ||
                           (edge[0] == previous[0] && edge[1] <= previous[1])))
            rc = OP_FAIL(ctx, OP_ERR_INVALID,
                         "%s: %s/edges row %d (%d, %d) is unsorted or repeated", path,
                         graph_where, e, edge[0], edge[1]);
    }
    if (!rc)
        rc = require_string(ctx, path, file, graph_where, "kind");
    if (!rc)
        rc = require_string(ctx, path, file, graph_where, "source");
    int requested;
    uint64_t seed;
    if (!rc)
        rc = read_number(ctx, path, file, graph_where, "particles_requested", H5T_NATIVE_INT,
                         &requested);
    if (!rc)
        rc = read_number(ctx, path, file, graph_where, "seed", H5T_NATIVE_UINT64, &seed);
    if (!rc)
        rc = check_count(ctx, path, file, graph_where, "particles", b.n);
    if (!rc)
        rc = check_count(ctx, path, file, graph_where, "edges", b.m);
    if (!rc) {
        op_graph graph;
        memset(&graph, 0, sizeof graph);
        rc = build_body(ctx, path, name, &b, &graph, NULL, NULL);
        if (!rc)
            op_graph_free(&graph);
    }
    body_data_free(&b);
    return rc;
}

/* Every body group under /<top> must be listed, so nothing in the file goes unchecked. */
static int check_group_count(op_ctx *ctx, const char *path, hid_t file, const char *top,
                             size_t listed)
{
    if (H5Lexists(file, top, H5P_DEFAULT) <= 0) {
        if (listed == 0)
            return OP_OK;
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: bodies are listed but /%s is missing", path, top);
    }
    H5G_info_t info;
    if (H5Gget_info_by_name(file, top, &info, H5P_DEFAULT) < 0)
        return H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot inspect group /%s", path, top);
    if (info.nlinks != listed)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: /%s holds %llu bodies but bodies lists %zu", path,
                       top, (unsigned long long)info.nlinks, listed);
    return OP_OK;
}

static int check_impl(op_ctx *ctx, const char *path)
{
    hid_t file = open_file(ctx, path, H5F_ACC_RDONLY);
    if (file < 0)
        return ctx->status;
    int rc = OP_OK;
    size_t count = sizeof ROOT_STRING_ATTRIBUTES / sizeof ROOT_STRING_ATTRIBUTES[0];
    for (size_t i = 0; i < count && !rc; i++)
        rc = require_string(ctx, path, file, "/", ROOT_STRING_ATTRIBUTES[i]);
    uint64_t seed;
    if (!rc)
        rc = read_number(ctx, path, file, "/", "seed", H5T_NATIVE_UINT64, &seed);
    char **names = NULL;
    size_t listed = 0;
    if (!rc)
        rc = read_body_list(ctx, path, file, &names, &listed);
    for (size_t i = 0; i < listed && !rc; i++)
        for (size_t j = 0; j < i && !rc; j++)
            if (strcmp(names[i], names[j]) == 0)
                rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: bodies lists %s twice", path, names[i]);
    if (!rc)
        rc = check_group_count(ctx, path, file, "graph", listed);
    if (!rc)
        rc = check_group_count(ctx, path, file, "mesh", listed);
    for (size_t i = 0; i < listed && !rc; i++)
        rc = check_body(ctx, path, file, names[i]);
    free_strings(names, listed);
    H5Fclose(file);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Info                                                                                        */

typedef struct info_walk {
    op_ctx *ctx;
    const char *path;
    FILE *out;
    int depth;
    char object[1024]; /* the group being listed, "" for the root */
} info_walk;

/* A multi-line string (the config) is shown as its first line and its line count. */
static void print_string(FILE *out, const char *s)
{
    const char *newline = strchr(s, '\n');
    if (!newline) {
        fputs(s, out);
        return;
    }
    size_t lines = 0;
    for (const char *p = s; *p; p++)
        lines += *p == '\n';
    if (s[strlen(s) - 1] != '\n')
        lines++;
    fprintf(out, "%.*s (%zu lines)", (int)(newline - s), s, lines);
}

static herr_t print_attribute(hid_t loc, const char *name, const H5A_info_t *ainfo, void *data)
{
    (void)ainfo;
    info_walk *w = data;
    int rc = OP_OK;
    hid_t attr = H5Aopen(loc, name, H5P_DEFAULT);
    if (attr < 0)
        return H5_FAIL(w->ctx, OP_ERR_LIBRARY, "%s: cannot open attribute %s of %s", w->path,
                       name, w->object[0] ? w->object : "/");
    hid_t type = H5Aget_type(attr), space = H5Aget_space(attr);
    hssize_t points = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
    int array = space >= 0 && H5Sget_simple_extent_ndims(space) > 0;
    if (type < 0 || points < 0 || points > MAX_EXTENT) {
        rc = H5_FAIL(w->ctx, OP_ERR_LIBRARY, "%s: cannot inspect attribute %s of %s", w->path,
                     name, w->object[0] ? w->object : "/");
        goto done;
    }
    fprintf(w->out, "%*s%s = %s", 2 * w->depth + 2, "", name, array ? "[" : "");
    size_t n = (size_t)points;
    H5T_class_t cls = H5Tget_class(type);
    if (cls == H5T_STRING) {
        char **strings;
        size_t count;
        rc = read_strings(w->ctx, w->path, attr, name, &strings, &count);
        for (size_t i = 0; i < count && !rc; i++) {
            fputs(i ? ", " : "", w->out);
            print_string(w->out, strings[i]);
        }
        if (!rc)
            free_strings(strings, count);
    } else if (cls == H5T_INTEGER || cls == H5T_FLOAT) {
        int is_unsigned = cls == H5T_INTEGER && H5Tget_sign(type) == H5T_SGN_NONE;
        hid_t mem = cls == H5T_FLOAT ? H5T_NATIVE_DOUBLE
                                     : is_unsigned ? H5T_NATIVE_ULLONG : H5T_NATIVE_LLONG;
        union { double d; long long i; unsigned long long u; } *values =
            op_calloc(w->ctx, n, sizeof *values);
        if (!values)
            rc = w->ctx->status;
        else if (n > 0 && H5Aread(attr, mem, values) < 0)
            rc = H5_FAIL(w->ctx, OP_ERR_IO, "%s: cannot read attribute %s", w->path, name);
        for (size_t i = 0; i < n && !rc; i++) {
            fputs(i ? ", " : "", w->out);
            if (cls == H5T_FLOAT)
                fprintf(w->out, "%.17g", values[i].d);
            else if (is_unsigned)
                fprintf(w->out, "%llu", values[i].u);
            else
                fprintf(w->out, "%lld", values[i].i);
        }
        free(values);
    } else {
        char type_text[32];
        type_name(type, type_text, sizeof type_text);
        fprintf(w->out, "(%s)", type_text);
    }
    fprintf(w->out, "%s\n", array ? "]" : "");
done:
    if (type >= 0)
        H5Tclose(type);
    if (space >= 0)
        H5Sclose(space);
    H5Aclose(attr);
    return rc ? -1 : 0;
}

static int print_attributes(info_walk *w, hid_t object)
{
    if (H5Aiterate2(object, H5_INDEX_NAME, H5_ITER_INC, NULL, print_attribute, w) < 0)
        return w->ctx->status ? w->ctx->status
                              : H5_FAIL(w->ctx, OP_ERR_LIBRARY, "%s: cannot list the attributes "
                                        "of %s", w->path, w->object[0] ? w->object : "/");
    return OP_OK;
}

static int print_dataset(info_walk *w, hid_t ds)
{
    hid_t type = H5Dget_type(ds), space = H5Dget_space(ds);
    int rc = OP_OK;
    if (type < 0 || space < 0)
        rc = H5_FAIL(w->ctx, OP_ERR_LIBRARY, "%s: cannot inspect dataset %s", w->path, w->object);
    else {
        hsize_t dims[H5S_MAX_RANK], max[H5S_MAX_RANK];
        int rank = H5Sget_simple_extent_dims(space, dims, max);
        char shape[768], type_text[32];
        if (rank > 0)
            format_shape(shape, sizeof shape, rank, dims);
        else
            snprintf(shape, sizeof shape, "scalar");
        type_name(type, type_text, sizeof type_text);
        int extendible = 0;
        for (int i = 0; i < rank; i++)
            extendible |= max[i] == H5S_UNLIMITED;
        fprintf(w->out, "%*s%s  %s %s%s\n", 2 * w->depth, "", w->object, shape, type_text,
                extendible ? " extendible" : "");
    }
    if (type >= 0)
        H5Tclose(type);
    if (space >= 0)
        H5Sclose(space);
    if (!rc)
        rc = print_attributes(w, ds);
    return rc;
}

static int print_group(info_walk *w, hid_t group);

static herr_t print_link(hid_t group, const char *name, const H5L_info_t *info, void *data)
{
    info_walk *w = data;
    size_t length = strlen(w->object);
    if ((size_t)snprintf(w->object + length, sizeof w->object - length, "/%s", name) >=
        sizeof w->object - length) {
        w->object[length] = '\0';
        return OP_FAIL(w->ctx, OP_ERR_INVALID, "%s: object path too long under %s", w->path,
                       w->object);
    }
    int rc = OP_OK;
    w->depth++;
    if (info->type != H5L_TYPE_HARD) {
        /* Soft and external links are named, not followed: they may loop or leave the file. */
        fprintf(w->out, "%*s%s  (%s link)\n", 2 * w->depth, "", w->object,
                info->type == H5L_TYPE_SOFT ? "soft" : "external");
    } else {
        hid_t object = H5Oopen(group, name, H5P_DEFAULT);
        if (object < 0)
            rc = H5_FAIL(w->ctx, OP_ERR_LIBRARY, "%s: cannot open %s", w->path, w->object);
        else {
            H5I_type_t type = H5Iget_type(object);
            if (type == H5I_GROUP) {
                fprintf(w->out, "%*s%s/\n", 2 * w->depth, "", w->object);
                rc = print_group(w, object);
            } else if (type == H5I_DATASET)
                rc = print_dataset(w, object);
            else
                fprintf(w->out, "%*s%s  (named datatype)\n", 2 * w->depth, "", w->object);
            H5Oclose(object);
        }
    }
    w->depth--;
    w->object[length] = '\0';
    return rc ? -1 : 0;
}

static int print_group(info_walk *w, hid_t group)
{
    int rc = print_attributes(w, group);
    if (!rc && H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, NULL, print_link, w) < 0)
        rc = w->ctx->status ? w->ctx->status
                            : H5_FAIL(w->ctx, OP_ERR_LIBRARY, "%s: cannot list group %s", w->path,
                                      w->object[0] ? w->object : "/");
    return rc;
}

static int info_impl(op_ctx *ctx, const char *path, FILE *out)
{
    hid_t file = open_file(ctx, path, H5F_ACC_RDONLY);
    if (file < 0)
        return ctx->status;
    info_walk w = { .ctx = ctx, .path = path, .out = out, .depth = 0, .object = "" };
    fprintf(out, "%s\n", path);
    int rc = print_group(&w, file);
    H5Fclose(file);
    if (!rc && ferror(out))
        rc = OP_FAIL(ctx, OP_ERR_IO, "%s: cannot write the info output", path);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Export                                                                                      */

/* Rows are read in blocks of about this many values: a frame series can be far larger than
 * memory needs to be. */
enum { EXPORT_BLOCK = 1 << 16 };

static int export_impl(op_ctx *ctx, const char *path, const char *dataset, FILE *out)
{
    if (!dataset || !*dataset)
        return OP_FAIL(ctx, OP_ERR_USAGE, "%s: no dataset name given", path ? path : "");
    hid_t file = open_file(ctx, path, H5F_ACC_RDONLY);
    if (file < 0)
        return ctx->status;
    int rc = OP_OK;
    hid_t ds = -1, type = -1, space = -1, memspace = -1;
    void *buffer = NULL;
    if (!object_exists(file, dataset)) {
        rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: no dataset %s", path, dataset);
        goto done;
    }
    ds = H5Oopen(file, dataset, H5P_DEFAULT);
    if (ds < 0) {
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot open %s", path, dataset);
        goto done;
    }
    if (H5Iget_type(ds) != H5I_DATASET) {
        rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: no dataset %s (it is a group)", path, dataset);
        goto done;
    }
    type = H5Dget_type(ds);
    space = H5Dget_space(ds);
    if (type < 0 || space < 0) {
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot inspect dataset %s", path, dataset);
        goto done;
    }
    H5T_class_t cls = H5Tget_class(type);
    if (cls != H5T_INTEGER && cls != H5T_FLOAT) {
        char type_text[32];
        type_name(type, type_text, sizeof type_text);
        rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: dataset %s is %s, not numeric", path, dataset,
                     type_text);
        goto done;
    }
    int is_unsigned = cls == H5T_INTEGER && H5Tget_sign(type) == H5T_SGN_NONE;
    hid_t mem = cls == H5T_FLOAT ? H5T_NATIVE_DOUBLE
                                 : is_unsigned ? H5T_NATIVE_ULLONG : H5T_NATIVE_LLONG;

    hsize_t dims[H5S_MAX_RANK];
    int rank = H5Sget_simple_extent_dims(space, dims, NULL);
    if (rank < 0) {
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot read the shape of %s", path, dataset);
        goto done;
    }
    /* A scalar is one row of one value. */
    hsize_t rows = rank ? dims[0] : 1, columns = 1;
    for (int i = 1; i < rank; i++)
        columns *= dims[i];
    if (columns == 0 || rows == 0) {
        for (hsize_t r = 0; r < (columns == 0 ? rows : 0); r++)
            fputc('\n', out);
        goto done;
    }
    hsize_t block = columns >= EXPORT_BLOCK ? 1 : EXPORT_BLOCK / columns;
    if (block > rows)
        block = rows;
    union value { double d; long long i; unsigned long long u; };
    buffer = op_calloc(ctx, (size_t)(block * columns), sizeof(union value));
    if (!buffer) {
        rc = ctx->status;
        goto done;
    }
    const union value *values = buffer;
    for (hsize_t first = 0; first < rows && !rc; first += block) {
        hsize_t count = rows - first < block ? rows - first : block;
        herr_t read;
        if (rank == 0)
            read = H5Dread(ds, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer);
        else {
            hsize_t start[H5S_MAX_RANK] = { first }, extent[H5S_MAX_RANK];
            memcpy(extent, dims, (size_t)rank * sizeof *dims);
            extent[0] = count;
            hsize_t flat = count * columns;
            memspace = H5Screate_simple(1, &flat, NULL);
            read = -1;
            if (memspace >= 0 &&
                H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, extent, NULL) >= 0)
                read = H5Dread(ds, mem, memspace, space, H5P_DEFAULT, buffer);
        }
        if (read < 0) {
            rc = H5_FAIL(ctx, OP_ERR_IO, "%s: cannot read dataset %s", path, dataset);
            break;
        }
        if (memspace >= 0) {
            H5Sclose(memspace);
            memspace = -1;
        }
        for (hsize_t r = 0; r < count; r++)
            for (hsize_t c = 0; c < columns; c++) {
                const union value *x = &values[r * columns + c];
                if (cls == H5T_FLOAT)
                    fprintf(out, "%.17g", x->d);
                else if (is_unsigned)
                    fprintf(out, "%llu", x->u);
                else
                    fprintf(out, "%lld", x->i);
                fputc(c + 1 < columns ? '\t' : '\n', out);
            }
    }
done:
    free(buffer);
    if (memspace >= 0)
        H5Sclose(memspace);
    if (space >= 0)
        H5Sclose(space);
    if (type >= 0)
        H5Tclose(type);
    if (ds >= 0)
        H5Oclose(ds);
    H5Fclose(file);
    if (!rc && ferror(out))
        rc = OP_FAIL(ctx, OP_ERR_IO, "%s: cannot write the export of %s", path, dataset);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Reading rows and attributes                                                                 */

/* Opens `dataset` for reading; a missing object or a group in its place is OP_ERR_INVALID. */
static hid_t open_dataset_for_reading(op_ctx *ctx, const char *path, hid_t file,
                                      const char *dataset)
{
    if (!dataset || !*dataset) {
        OP_FAIL(ctx, OP_ERR_USAGE, "%s: no dataset name given", path);
        return -1;
    }
    if (!object_exists(file, dataset)) {
        OP_FAIL(ctx, OP_ERR_INVALID, "%s: no dataset %s", path, dataset);
        return -1;
    }
    hid_t object = H5Oopen(file, dataset, H5P_DEFAULT);
    if (object < 0) {
        H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot open %s", path, dataset);
        return -1;
    }
    if (H5Iget_type(object) != H5I_DATASET) {
        H5Oclose(object);
        OP_FAIL(ctx, OP_ERR_INVALID, "%s: no dataset %s (it is a group)", path, dataset);
        return -1;
    }
    return object;
}

static int dataset_shape_impl(op_ctx *ctx, const char *path, const char *dataset, int *rank_out,
                              int64_t *dims_out)
{
    hid_t file = open_file(ctx, path, H5F_ACC_RDONLY);
    if (file < 0)
        return ctx->status;
    int rc = OP_OK;
    hid_t space = -1;
    hid_t ds = open_dataset_for_reading(ctx, path, file, dataset);
    if (ds < 0) {
        rc = ctx->status;
        goto done;
    }
    space = H5Dget_space(ds);
    int rank = space < 0 ? -1 : H5Sget_simple_extent_ndims(space);
    hsize_t dims[H5S_MAX_RANK];
    if (rank < 0 || H5Sget_simple_extent_dims(space, dims, NULL) < 0) {
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot read the shape of %s", path, dataset);
        goto done;
    }
    if (rank > OP_RUNFILE_MAX_RANK) {
        rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: dataset %s has rank %d (at most %d)", path,
                     dataset, rank, OP_RUNFILE_MAX_RANK);
        goto done;
    }
    *rank_out = rank;
    for (int i = 0; i < rank; i++)
        dims_out[i] = (int64_t)dims[i];
done:
    if (space >= 0)
        H5Sclose(space);
    if (ds >= 0)
        H5Oclose(ds);
    H5Fclose(file);
    return rc;
}

/* Rows [first, first + count) of a dataset whose stored type is `want` (float64 or int64). */
static int read_rows_impl(op_ctx *ctx, const char *path, const char *dataset, long first,
                          long count, op_series_type want, void *out, long capacity)
{
    const char *want_name = want == OP_SERIES_FLOAT64 ? "float64" : "int64";
    if (!out && capacity > 0)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: rows of %s: no output buffer", path ? path : "",
                       dataset ? dataset : "");
    hid_t file = open_file(ctx, path, H5F_ACC_RDONLY);
    if (file < 0)
        return ctx->status;
    int rc = OP_OK;
    hid_t type = -1, space = -1, memspace = -1;
    hid_t ds = open_dataset_for_reading(ctx, path, file, dataset);
    if (ds < 0) {
        rc = ctx->status;
        goto done;
    }
    type = H5Dget_type(ds);
    space = H5Dget_space(ds);
    if (type < 0 || space < 0) {
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot inspect dataset %s", path, dataset);
        goto done;
    }
    H5T_class_t cls = H5Tget_class(type);
    int matches = H5Tget_size(type) == 8 &&
                  (want == OP_SERIES_FLOAT64 ? cls == H5T_FLOAT
                                             : cls == H5T_INTEGER && H5Tget_sign(type) == H5T_SGN_2);
    if (!matches) {
        char type_text[32];
        type_name(type, type_text, sizeof type_text);
        rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: dataset %s is %s, not %s", path, dataset,
                     type_text, want_name);
        goto done;
    }
    hsize_t dims[H5S_MAX_RANK];
    int rank = H5Sget_simple_extent_dims(space, dims, NULL);
    if (rank < 0) {
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot read the shape of %s", path, dataset);
        goto done;
    }
    if (rank == 0) {
        rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: dataset %s is a scalar, it has no rows", path,
                     dataset);
        goto done;
    }
    long long rows = (long long)dims[0];
    if (count < 1 || first < 0 || first >= rows || count > rows - first) {
        rc = OP_FAIL(ctx, OP_ERR_INVALID,
                     "%s: dataset %s has rows 0 to %lld; cannot read %ld row%s from row %ld",
                     path, dataset, rows - 1, count, count == 1 ? "" : "s", first);
        goto done;
    }
    hsize_t columns = 1;
    for (int i = 1; i < rank; i++)
        columns *= dims[i];
    if (columns != 0 && (hsize_t)count > (hsize_t)LONG_MAX / columns) {
        rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: %ld rows of %s are too many values", path, count,
                     dataset);
        goto done;
    }
    hsize_t values = (hsize_t)count * columns;
    if (values > (hsize_t)(capacity < 0 ? 0 : capacity)) {
        rc = OP_FAIL(ctx, OP_ERR_INVALID,
                     "%s: %ld row%s of %s hold %llu values, more than the %ld given room for",
                     path, count, count == 1 ? "" : "s", dataset, (unsigned long long)values,
                     capacity);
        goto done;
    }
    if (values == 0)
        goto done;
    hsize_t start[H5S_MAX_RANK] = { (hsize_t)first }, extent[H5S_MAX_RANK];
    memcpy(extent, dims, (size_t)rank * sizeof *dims);
    extent[0] = (hsize_t)count;
    memspace = H5Screate_simple(1, &values, NULL);
    if (memspace < 0 ||
        H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, extent, NULL) < 0) {
        rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot select rows of %s", path, dataset);
        goto done;
    }
    hid_t mem = want == OP_SERIES_FLOAT64 ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64;
    if (H5Dread(ds, mem, memspace, space, H5P_DEFAULT, out) < 0)
        rc = H5_FAIL(ctx, OP_ERR_IO, "%s: cannot read rows %ld to %ld of %s", path, first,
                     first + count - 1, dataset);
done:
    if (memspace >= 0)
        H5Sclose(memspace);
    if (space >= 0)
        H5Sclose(space);
    if (type >= 0)
        H5Tclose(type);
    if (ds >= 0)
        H5Oclose(ds);
    H5Fclose(file);
    return rc;
}

/* Opens the run file for reading an attribute of `object`, which must exist ("/" always
 * does); *file is the open file on success, negative otherwise. */
static int open_attribute_owner(op_ctx *ctx, const char *path, const char *object, const char *name, hid_t *file)
{
    *file = -1;
    if (!object || !*object || !name || !*name)
        return OP_FAIL(ctx, OP_ERR_USAGE, "%s: no attribute name given", path ? path : "");
    *file = open_file(ctx, path, H5F_ACC_RDONLY);
    if (*file < 0)
        return ctx->status;
    if (strcmp(object, "/") != 0 && !object_exists(*file, object)) {
        H5Fclose(*file);
        *file = -1;
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: no group or dataset %s (looking for attribute %s)", path,
                       object, name);
    }
    return OP_OK;
}

static int read_attribute_impl(op_ctx *ctx, const char *path, const char *object,
                               const char *name, hid_t mem_type, void *value)
{
    hid_t file;
    if (open_attribute_owner(ctx, path, object, name, &file) != OP_OK)
        return ctx->status;
    int rc = OP_OK;
    if (mem_type == H5T_NATIVE_DOUBLE) {
        /* Integers convert: a parameter written as an int is still a number. */
        hid_t attr = open_attribute(ctx, path, file, object, name);
        if (attr < 0)
            rc = ctx->status;
        else {
            hid_t type = H5Aget_type(attr), space = H5Aget_space(attr);
            H5T_class_t cls = type < 0 ? H5T_NO_CLASS : H5Tget_class(type);
            if (type < 0 || space < 0)
                rc = H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot inspect attribute %s of %s", path,
                             name, object);
            else if ((cls != H5T_FLOAT && cls != H5T_INTEGER) ||
                     H5Sget_simple_extent_npoints(space) != 1)
                rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: attribute %s of %s is not one number",
                             path, name, object);
            else if (H5Aread(attr, H5T_NATIVE_DOUBLE, value) < 0)
                rc = H5_FAIL(ctx, OP_ERR_IO, "%s: cannot read attribute %s of %s", path, name,
                             object);
            if (type >= 0)
                H5Tclose(type);
            if (space >= 0)
                H5Sclose(space);
            H5Aclose(attr);
        }
    } else
        rc = read_number(ctx, path, file, object, name, mem_type, value);
    H5Fclose(file);
    return rc;
}

static int read_attribute_string_impl(op_ctx *ctx, const char *path, const char *object,
                                      const char *name, char *out, size_t size)
{
    hid_t file;
    if (open_attribute_owner(ctx, path, object, name, &file) != OP_OK)
        return ctx->status;
    int rc = OP_OK;
    hid_t attr = -1;
    if ((attr = open_attribute(ctx, path, file, object, name)) < 0)
        rc = ctx->status;
    else {
        char what[160];
        snprintf(what, sizeof what, "%s of %s", name, object);
        char **strings;
        size_t count;
        rc = read_strings(ctx, path, attr, what, &strings, &count);
        if (!rc) {
            if (count != 1)
                rc = OP_FAIL(ctx, OP_ERR_INVALID, "%s: attribute %s holds %zu strings, not one",
                             path, what, count);
            else if (strlen(strings[0]) >= size)
                rc = OP_FAIL(ctx, OP_ERR_INVALID,
                             "%s: attribute %s has %zu characters, more than the %zu given room for",
                             path, what, strlen(strings[0]), size ? size - 1 : 0);
            else
                memcpy(out, strings[0], strlen(strings[0]) + 1);
            free_strings(strings, count);
        }
    }
    if (attr >= 0)
        H5Aclose(attr);
    H5Fclose(file);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Public entry points: each runs its implementation with HDF5 kept quiet.                    */

int op_runfile_create(op_ctx *ctx, op_runfile *run, const char *path, const op_provenance *prov)
{
    h5_quiet q = quiet_begin();
    int rc = create_impl(ctx, run, path, prov);
    quiet_end(q);
    return rc;
}

int op_runfile_write_body(op_ctx *ctx, op_runfile *run, const char *name, const op_body_info *info,
                          const op_graph *graph, const op_mesh *mesh, const op_skin *skin)
{
    h5_quiet q = quiet_begin();
    int rc = write_body_impl(ctx, run, name, info, graph, mesh, skin);
    quiet_end(q);
    return rc;
}

int op_runfile_write_instance(op_ctx *ctx, op_runfile *run, const char *name, const char *earlier)
{
    h5_quiet q = quiet_begin();
    int rc = write_instance_impl(ctx, run, name, earlier);
    quiet_end(q);
    return rc;
}

int op_runfile_commit(op_ctx *ctx, op_runfile *run)
{
    h5_quiet q = quiet_begin();
    int rc = commit_impl(ctx, run);
    quiet_end(q);
    return rc;
}

void op_runfile_abort(op_runfile *run)
{
    h5_quiet q = quiet_begin();
    discard_temp(run);
    quiet_end(q);
}

int op_series_create(op_ctx *ctx, op_runfile *run, op_series *series, const char *path,
                     op_series_type type, int row_rank, const int64_t *row_dims, const char *unit,
                     const char *description)
{
    h5_quiet q = quiet_begin();
    int rc = series_create_impl(ctx, run, series, path, type, row_rank, row_dims, unit,
                                description);
    quiet_end(q);
    return rc;
}

int op_series_append(op_ctx *ctx, op_runfile *run, op_series *series, const void *rows,
                     long count)
{
    h5_quiet q = quiet_begin();
    int rc = series_append_impl(ctx, run, series, rows, count);
    quiet_end(q);
    return rc;
}

int op_series_close(op_ctx *ctx, op_runfile *run, op_series *series)
{
    h5_quiet q = quiet_begin();
    int rc = series_close_impl(ctx, run, series);
    quiet_end(q);
    return rc;
}

int op_runfile_flush(op_ctx *ctx, op_runfile *run)
{
    h5_quiet q = quiet_begin();
    int rc = flush_impl(ctx, run);
    quiet_end(q);
    return rc;
}

int op_runfile_set_attribute_double(op_ctx *ctx, op_runfile *run, const char *object_path,
                                    const char *name, double value)
{
    h5_quiet q = quiet_begin();
    hid_t target = attribute_target(ctx, run, object_path, name);
    int rc = target < 0 ? ctx->status
                        : write_double(ctx, run->final_path, target, object_path, name, value);
    if (target >= 0)
        H5Oclose(target);
    quiet_end(q);
    return rc;
}

int op_runfile_set_attribute_int(op_ctx *ctx, op_runfile *run, const char *object_path,
                                 const char *name, int64_t value)
{
    h5_quiet q = quiet_begin();
    hid_t target = attribute_target(ctx, run, object_path, name);
    int rc = target < 0 ? ctx->status
                        : write_attribute(ctx, run->final_path, target, object_path, name,
                                          H5T_STD_I64LE, H5T_NATIVE_INT64, 0, 1, &value);
    if (target >= 0)
        H5Oclose(target);
    quiet_end(q);
    return rc;
}

int op_runfile_set_attribute_string(op_ctx *ctx, op_runfile *run, const char *object_path,
                                    const char *name, const char *value)
{
    if (!value)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: attribute %s of %s: no string given",
                       run->final_path, name ? name : "(null)", object_path ? object_path : "");
    h5_quiet q = quiet_begin();
    hid_t target = attribute_target(ctx, run, object_path, name);
    int rc = target < 0 ? ctx->status
                        : write_string(ctx, run->final_path, target, object_path, name, value);
    if (target >= 0)
        H5Oclose(target);
    quiet_end(q);
    return rc;
}

int op_runfile_write_array(op_ctx *ctx, op_runfile *run, const char *path, op_series_type type,
                           int rank, const int64_t *dims, const void *data)
{
    h5_quiet q = quiet_begin();
    int rc = write_array_impl(ctx, run, path, type, rank, dims, data);
    quiet_end(q);
    return rc;
}

int op_runfile_body_names(op_ctx *ctx, const char *path, char (*names)[OP_RUNFILE_NAME_SIZE],
                          int capacity, int *count)
{
    h5_quiet q = quiet_begin();
    int rc = body_names_impl(ctx, path, names, capacity, count);
    quiet_end(q);
    return rc;
}

int op_runfile_read_body(op_ctx *ctx, const char *path, const char *name, op_graph *graph,
                         op_mesh *mesh, op_skin *skin)
{
    h5_quiet q = quiet_begin();
    int rc = read_body_impl(ctx, path, name, graph, mesh, skin);
    quiet_end(q);
    return rc;
}

int op_runfile_info(op_ctx *ctx, const char *path, FILE *out)
{
    h5_quiet q = quiet_begin();
    int rc = info_impl(ctx, path, out);
    quiet_end(q);
    return rc;
}

int op_runfile_export_tsv(op_ctx *ctx, const char *path, const char *dataset, FILE *out)
{
    h5_quiet q = quiet_begin();
    int rc = export_impl(ctx, path, dataset, out);
    quiet_end(q);
    return rc;
}

int op_runfile_check(op_ctx *ctx, const char *path)
{
    h5_quiet q = quiet_begin();
    int rc = check_impl(ctx, path);
    quiet_end(q);
    return rc;
}

int op_runfile_dataset_shape(op_ctx *ctx, const char *path, const char *dataset, int *rank,
                             int64_t dims[OP_RUNFILE_MAX_RANK])
{
    h5_quiet q = quiet_begin();
    int rc = dataset_shape_impl(ctx, path, dataset, rank, dims);
    quiet_end(q);
    return rc;
}

int op_runfile_read_rows(op_ctx *ctx, const char *path, const char *dataset, long first,
                         long count, double *out, long capacity)
{
    h5_quiet q = quiet_begin();
    int rc = read_rows_impl(ctx, path, dataset, first, count, OP_SERIES_FLOAT64, out, capacity);
    quiet_end(q);
    return rc;
}

int op_runfile_read_rows_int64(op_ctx *ctx, const char *path, const char *dataset, long first,
                               long count, int64_t *out, long capacity)
{
    h5_quiet q = quiet_begin();
    int rc = read_rows_impl(ctx, path, dataset, first, count, OP_SERIES_INT64, out, capacity);
    quiet_end(q);
    return rc;
}

int op_runfile_read_attribute_double(op_ctx *ctx, const char *path, const char *object,
                                     const char *name, double *value)
{
    h5_quiet q = quiet_begin();
    int rc = read_attribute_impl(ctx, path, object, name, H5T_NATIVE_DOUBLE, value);
    quiet_end(q);
    return rc;
}

int op_runfile_read_attribute_int(op_ctx *ctx, const char *path, const char *object,
                                  const char *name, int64_t *value)
{
    h5_quiet q = quiet_begin();
    int rc = read_attribute_impl(ctx, path, object, name, H5T_NATIVE_INT64, value);
    quiet_end(q);
    return rc;
}

int op_runfile_read_attribute_string(op_ctx *ctx, const char *path, const char *object,
                                     const char *name, char *out, size_t size)
{
    if (out && size)
        out[0] = '\0';
    if (!out || !size)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: attribute %s: no output buffer", path ? path : "",
                       name ? name : "");
    h5_quiet q = quiet_begin();
    int rc = read_attribute_string_impl(ctx, path, object, name, out, size);
    quiet_end(q);
    if (rc)
        out[0] = '\0';
    return rc;
}
