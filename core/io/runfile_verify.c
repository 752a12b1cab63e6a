/* Verifying a run file end to end (op_runfile_verify): every object HDF5 can reach, every
 * attribute and every dataset value read, so that each Fletcher-32 checksum on the stored data
 * (runfile_checksummed) and each object-header checksum of the 1.8 format is tested, and every
 * chunk of a checksummed dataset is found stored (chunks_all_stored), then the
 * structural check of op_runfile_check. Nothing else reads every byte: `info` reads shapes, an
 * export one dataset. */
#include <stdlib.h>
#include <string.h>

#include "io/runfile_hdf5.h"

/* Rows read at once: a dataset is read in slabs of at most this many bytes. */
enum { SLAB_BYTES = 64 << 20 };

typedef struct verify_walk {
    op_ctx *ctx;
    const char *path;
    op_runfile_verified *count;
} verify_walk;

static int read_attributes(verify_walk *w, hid_t object, const char *name)
{
    H5O_info_t info;
    if (H5Oget_info2(object, &info, H5O_INFO_NUM_ATTRS) < 0)
        return H5_FAIL(w->ctx, OP_ERR_INVALID, "%s: %s: cannot read its header", w->path, name);
    for (hsize_t a = 0; a < info.num_attrs; ++a) {
        hid_t attribute = H5Aopen_by_idx(object, ".", H5_INDEX_CRT_ORDER, H5_ITER_NATIVE, a, H5P_DEFAULT, H5P_DEFAULT);
        if (attribute < 0)
            attribute = H5Aopen_by_idx(object, ".", H5_INDEX_NAME, H5_ITER_NATIVE, a, H5P_DEFAULT, H5P_DEFAULT);
        if (attribute < 0)
            return H5_FAIL(w->ctx, OP_ERR_INVALID, "%s: %s: cannot open attribute %llu", w->path, name,
                           (unsigned long long)a);
        hid_t stored = H5Aget_type(attribute), space = H5Aget_space(attribute);
        hid_t type = stored >= 0 ? H5Tget_native_type(stored, H5T_DIR_ASCEND) : -1;
        hssize_t points = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
        size_t bytes = type >= 0 ? H5Tget_size(type) : 0;
        int ok = points >= 0 && bytes > 0 && (size_t)points <= (size_t)SLAB_BYTES / bytes;
        void *buffer = ok ? calloc((size_t)points + 1, bytes) : NULL;
        ok = buffer && (points == 0 || H5Aread(attribute, type, buffer) >= 0);
        if (ok && H5Tdetect_class(type, H5T_VLEN) > 0)
            H5Dvlen_reclaim(type, space, H5P_DEFAULT, buffer);
        if (ok && H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) > 0)
            H5Dvlen_reclaim(type, space, H5P_DEFAULT, buffer);
        free(buffer);
        if (type >= 0)
            H5Tclose(type);
        if (stored >= 0)
            H5Tclose(stored);
        if (space >= 0)
            H5Sclose(space);
        H5Aclose(attribute);
        if (!ok)
            return H5_FAIL(w->ctx, OP_ERR_INVALID, "%s: %s: an attribute cannot be read (damaged)", w->path, name);
        ++w->count->attributes;
    }
    return OP_OK;
}

/* Whether every chunk of the extent is stored where the chunk index says. opsim writes every
 * value of a checksummed dataset, so a chunk the index cannot find is damage: a changed byte in
 * the index (a 1.8-format B-tree, not checksummed) can file a chunk under another offset, and
 * HDF5 then reads the fill value, zeros, with no checksum to fail. */
static int chunks_all_stored(hid_t dataset, hid_t dcpl, int rank, const hsize_t *dims)
{
    hsize_t chunk[H5S_MAX_RANK], at[H5S_MAX_RANK] = { 0 };
    if (rank <= 0 || H5Pget_chunk(dcpl, rank, chunk) != rank)
        return rank == 0;
    for (int i = 0; i < rank; ++i)
        if (dims[i] == 0)
            return 1;
    for (;;) {
        unsigned mask;
        haddr_t address = HADDR_UNDEF;
        hsize_t size = 0;
        if (H5Dget_chunk_info_by_coord(dataset, at, &mask, &address, &size) < 0 || address == HADDR_UNDEF ||
            size == 0)
            return 0;
        int i = rank - 1;
        for (; i >= 0; --i) { /* the next chunk, last dimension fastest */
            at[i] += chunk[i];
            if (at[i] < dims[i])
                break;
            at[i] = 0;
        }
        if (i < 0)
            return 1;
    }
}

/* Every value, slab by slab along the first dimension. */
static int read_dataset(verify_walk *w, hid_t dataset, const char *name)
{
    hid_t stored = H5Dget_type(dataset), space = H5Dget_space(dataset), dcpl = H5Dget_create_plist(dataset);
    hid_t type = stored >= 0 ? H5Tget_native_type(stored, H5T_DIR_ASCEND) : -1;
    int rank = space >= 0 ? H5Sget_simple_extent_ndims(space) : -1, rc = OP_OK;
    hsize_t dims[H5S_MAX_RANK], start[H5S_MAX_RANK] = { 0 }, count[H5S_MAX_RANK];
    size_t element = type >= 0 ? H5Tget_size(type) : 0;
    if (rank < 0 || element == 0 || H5Sget_simple_extent_dims(space, dims, NULL) < 0 || dcpl < 0) {
        rc = H5_FAIL(w->ctx, OP_ERR_INVALID, "%s: %s: cannot read its type or shape (damaged)", w->path, name);
        goto done;
    }
    int checksummed = 0;
    if (H5Pget_layout(dcpl) == H5D_CHUNKED)
        for (int f = 0, filters = H5Pget_nfilters(dcpl); f < filters; ++f) {
            unsigned flags;
            size_t values = 0;
            checksummed |= H5Pget_filter2(dcpl, (unsigned)f, &flags, &values, NULL, 0, NULL, NULL) ==
                           H5Z_FILTER_FLETCHER32;
        }
    if (checksummed && !chunks_all_stored(dataset, dcpl, rank, dims)) {
        rc = OP_FAIL(w->ctx, OP_ERR_INVALID, "%s: %s: chunks of its values are missing (damaged chunk index)", w->path,
                     name);
        goto done;
    }
    size_t row = element;
    for (int i = 1; i < rank; ++i) {
        row *= (size_t)dims[i];
        count[i] = dims[i];
    }
    hsize_t rows = rank == 0 ? 1 : dims[0], step = row >= SLAB_BYTES ? 1 : SLAB_BYTES / (row ? row : 1);
    if (rank > 0 && rows > 0 && row > (size_t)SLAB_BYTES * 4) {
        rc = OP_FAIL(w->ctx, OP_ERR_INVALID, "%s: %s: rows of %zu bytes are beyond any run file", w->path, name, row);
        goto done;
    }
    void *buffer = malloc((rank == 0 ? element : row * (size_t)(step < rows ? step : rows)) + 1);
    if (!buffer) {
        rc = OP_FAIL(w->ctx, OP_ERR_NOMEM, "%s: %s: out of memory", w->path, name);
        goto done;
    }
    for (hsize_t at = 0; at < rows && !rc; at += step) {
        hid_t memory = -1;
        int read_ok;
        if (rank == 0)
            read_ok = H5Dread(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer) >= 0;
        else {
            start[0] = at;
            count[0] = rows - at < step ? rows - at : step;
            memory = H5Screate_simple(rank, count, NULL);
            read_ok = memory >= 0 && H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
                      H5Dread(dataset, type, memory, space, H5P_DEFAULT, buffer) >= 0;
        }
        if (read_ok && H5Tdetect_class(type, H5T_VLEN) > 0)
            H5Dvlen_reclaim(type, memory >= 0 ? memory : space, H5P_DEFAULT, buffer);
        if (read_ok && H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) > 0)
            H5Dvlen_reclaim(type, memory >= 0 ? memory : space, H5P_DEFAULT, buffer);
        if (memory >= 0)
            H5Sclose(memory);
        if (!read_ok)
            rc = H5_FAIL(w->ctx, OP_ERR_INVALID, "%s: %s: its values cannot be read (damaged%s)", w->path, name,
                         checksummed ? ": a checksum fails" : "");
    }
    free(buffer);
    if (!rc) {
        ++w->count->datasets;
        w->count->checksummed += checksummed;
        w->count->bytes += (unsigned long long)row * (unsigned long long)(rank == 0 ? 1 : rows);
    }
done:
    if (type >= 0)
        H5Tclose(type);
    if (stored >= 0)
        H5Tclose(stored);
    if (space >= 0)
        H5Sclose(space);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    return rc;
}

static herr_t visit(hid_t root, const char *name, const H5O_info_t *info, void *data)
{
    verify_walk *w = data;
    char object[1100];
    snprintf(object, sizeof object, "/%s", strcmp(name, ".") == 0 ? "" : name);
    hid_t handle = H5Oopen(root, name, H5P_DEFAULT);
    if (handle < 0)
        return H5_FAIL(w->ctx, OP_ERR_INVALID, "%s: %s: cannot open it (damaged)", w->path, object), -1;
    int rc = read_attributes(w, handle, object);
    if (!rc && info->type == H5O_TYPE_DATASET)
        rc = read_dataset(w, handle, object);
    if (!rc && info->type == H5O_TYPE_GROUP)
        ++w->count->groups;
    H5Oclose(handle);
    return rc ? -1 : 0;
}

static int verify_impl(op_ctx *ctx, const char *path, op_runfile_verified *count)
{
    memset(count, 0, sizeof *count);
    hid_t file = runfile_open_file(ctx, path, H5F_ACC_RDONLY);
    if (file < 0)
        return ctx->status;
    verify_walk w = { ctx, path, count };
    if (H5Ovisit2(file, H5_INDEX_NAME, H5_ITER_NATIVE, visit, &w, H5O_INFO_BASIC) < 0 && ctx->status == OP_OK)
        H5_FAIL(ctx, OP_ERR_INVALID, "%s: cannot walk its objects (damaged)", path);
    H5Fclose(file);
    return ctx->status;
}

int op_runfile_verify(op_ctx *ctx, const char *path, op_runfile_verified *count)
{
    h5_quiet q = quiet_begin();
    int rc = verify_impl(ctx, path, count);
    quiet_end(q);
    if (!rc)
        rc = op_runfile_check(ctx, path);
    return rc;
}
