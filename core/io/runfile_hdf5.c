/* What the run-file files share (core/io/runfile_hdf5.h): HDF5 failures as op_ctx messages,
 * name and path checks, shapes and types described in words, and opening a file with opsim's
 * access settings. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/runfile_hdf5.h"

enum { REASON_SIZE = 200 };

static herr_t keep_innermost(unsigned n, const H5E_error2_t *error, void *data)
{
    if (n == 0 && error->desc)
        snprintf(data, REASON_SIZE, "%s", error->desc);
    return 0;
}

/* Must be called straight after the failing HDF5 call: the next API call clears the stack
 * the reason is taken from. */
int runfile_h5_fail(op_ctx *ctx, op_status status, const char *file, int line, const char *format, ...)
{
    char what[800];
    char reason[REASON_SIZE] = "";
    va_list args;
    va_start(args, format);
    vsnprintf(what, sizeof what, format, args);
    va_end(args);
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, keep_innermost, reason);
    if (reason[0])
        return op_fail(ctx, status, file, line, "%s (HDF5: %s)", what, reason);
    return op_fail(ctx, status, file, line, "%s", what);
}

const char *const ROOT_STRING_ATTRIBUTES[7] = {
    "program", "version", "git_revision", "compiler_flags", "command_line", "config", "created",
};

int runfile_valid_body_name(const char *name)
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
int runfile_valid_object_path(const char *path, int root_allowed)
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
        if (!runfile_valid_body_name(name))
            return 0;
        p += len;
        if (*p == '\0')
            return 1;
    }
}

char * runfile_copy_string(op_ctx *ctx, const char *s)
{
    size_t len = strlen(s);
    char *copy = op_calloc(ctx, len + 1, 1);
    if (copy)
        memcpy(copy, s, len);
    return copy;
}

void runfile_free_strings(char **strings, size_t count)
{
    if (!strings)
        return;
    for (size_t i = 0; i < count; i++)
        free(strings[i]);
    free(strings);
}

void runfile_format_shape(char *buf, size_t size, int rank, const hsize_t *dims)
{
    size_t used = (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < rank && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%llu", i ? "," : "",
                                 (unsigned long long)dims[i]);
    if (used < size)
        snprintf(buf + used, size - used, "]");
}

/* Expected shapes use -1 for "any extent", shown as "*". */
void runfile_format_expected(char *buf, size_t size, int rank, const long long *expected)
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

void runfile_type_name(hid_t type, char *buf, size_t size)
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
int runfile_object_exists(hid_t loc, const char *path)
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

hid_t runfile_variable_string_type(H5T_cset_t cset)
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
int runfile_cap_address_space(size_t headroom, struct rlimit *saved)
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
hid_t runfile_file_access_list(void)
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
hid_t runfile_creation_list(hid_t class_id)
{
    hid_t plist = H5Pcreate(class_id);
    if (plist >= 0 && H5Pset_obj_track_times(plist, 0) < 0) {
        H5Pclose(plist);
        return -1;
    }
    return plist;
}

/* Raw data carries no checksum of its own: of 301 damaged run files every reader accepted, 136
 * differed from the original. Fletcher-32 needs a chunked layout, so a non-empty
 * dataset written whole is one chunk (cut along its first dimension beyond 256 MiB, below
 * HDF5's 4 GiB chunk limit); HDF5 then refuses a read of a chunk whose checksum fails. An empty
 * dataset stays contiguous: there is nothing to check. */
int runfile_checksummed(hid_t dcpl, int rank, const hsize_t *dims, size_t element_bytes)
{
    hsize_t chunk[32], row_bytes = element_bytes ? element_bytes : 1;
    if (rank < 1 || rank > 32)
        return 0;
    for (int i = 0; i < rank; ++i) {
        if (dims[i] == 0)
            return 0;
        chunk[i] = dims[i];
        if (i > 0)
            row_bytes *= dims[i];
    }
    const hsize_t chunk_max = (hsize_t)256 << 20;
    if (row_bytes * dims[0] > chunk_max)
        chunk[0] = row_bytes >= chunk_max ? 1 : chunk_max / row_bytes;
    return H5Pset_chunk(dcpl, rank, chunk) < 0 || H5Pset_fletcher32(dcpl) < 0 ? -1 : 0;
}

/* A missing file and a file HDF5 cannot read get different messages. */
hid_t runfile_open_file(op_ctx *ctx, const char *path, unsigned flags)
{
    if (!path || !*path) {
        OP_FAIL(ctx, OP_ERR_USAGE, "no run file path given");
        return -1;
    }
    if (access(path, (flags & H5F_ACC_RDWR) ? R_OK | W_OK : R_OK) != 0) {
        OP_FAIL(ctx, OP_ERR_IO, "%s: %s", path, strerror(errno));
        return -1;
    }
    hid_t fapl = runfile_file_access_list();
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

int runfile_state_alias(const char *dataset, char *out, size_t size)
{
    static const char *const layouts[2] = { "/states/", "/particles/" };
    static const char *const names[] = { "position/value", "position/step", "position/time",
                                         "orientation/value", "orientation/step", "orientation/time",
                                         "velocity/value", "velocity/step", "velocity/time", "index" };
    for (int l = 0; l < 2; ++l) {
        size_t prefix = strlen(layouts[l]);
        if (strncmp(dataset, layouts[l], prefix) != 0)
            continue;
        for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k)
            if (strcmp(dataset + prefix, names[k]) == 0)
                return (size_t)snprintf(out, size, "%s%s", layouts[1 - l], names[k]) < size;
    }
    return 0;
}

/* The dataset at `name`; -1 (nothing reported) when there is none, -2 when an object there
 * cannot be opened (HDF5's reason still on its stack). */
static hid_t open_if_dataset(hid_t file, const char *name)
{
    if (!runfile_object_exists(file, name))
        return -1;
    hid_t object = H5Oopen(file, name, H5P_DEFAULT);
    if (object < 0)
        return -2;
    if (H5Iget_type(object) != H5I_DATASET) {
        H5Oclose(object);
        return -1;
    }
    return object;
}

hid_t runfile_open_dataset(op_ctx *ctx, const char *path, hid_t file, const char *dataset)
{
    if (!dataset || !*dataset) {
        OP_FAIL(ctx, OP_ERR_USAGE, "%s: no dataset name given", path);
        return -1;
    }
    hid_t object = open_if_dataset(file, dataset);
    char alias[OP_SERIES_PATH_SIZE];
    if (object == -1 && runfile_state_alias(dataset, alias, sizeof alias))
        object = open_if_dataset(file, alias);
    if (object >= 0)
        return object;
    if (object == -2) {
        H5_FAIL(ctx, OP_ERR_LIBRARY, "%s: cannot open %s", path, dataset);
        return -1;
    }
    if (!runfile_object_exists(file, dataset))
        OP_FAIL(ctx, OP_ERR_INVALID, "%s: no dataset %s", path, dataset);
    else
        OP_FAIL(ctx, OP_ERR_INVALID, "%s: no dataset %s (it is a group)", path, dataset);
    return -1;
}

const char *runfile_stored_name(hid_t file, const char *dataset, char *buffer, size_t size)
{
    hid_t object = open_if_dataset(file, dataset);
    if (object >= 0) {
        H5Oclose(object);
        return dataset;
    }
    if (object == -1 && runfile_state_alias(dataset, buffer, size) && (object = open_if_dataset(file, buffer)) >= 0) {
        H5Oclose(object);
        return buffer;
    }
    return dataset;
}
