/* The run-file views the command line offers: `opsim info` (op_runfile_info: provenance,
 * bodies, groups, datasets) and `opsim export` (op_runfile_export_tsv: a dataset as
 * tab-separated text). */
#include <stdlib.h>
#include <string.h>

#include "io/runfile_hdf5.h"

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
        rc = runfile_read_strings(w->ctx, w->path, attr, name, &strings, &count);
        for (size_t i = 0; i < count && !rc; i++) {
            fputs(i ? ", " : "", w->out);
            print_string(w->out, strings[i]);
        }
        if (!rc)
            runfile_free_strings(strings, count);
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
        runfile_type_name(type, type_text, sizeof type_text);
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
            runfile_format_shape(shape, sizeof shape, rank, dims);
        else
            snprintf(shape, sizeof shape, "scalar");
        runfile_type_name(type, type_text, sizeof type_text);
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
    hid_t file = runfile_open_file(ctx, path, H5F_ACC_RDONLY);
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

/* Rows are read in blocks of about this many values: a frame series can be far larger than
 * memory needs to be. */
enum { EXPORT_BLOCK = 1 << 16 };

static int export_impl(op_ctx *ctx, const char *path, const char *dataset, FILE *out)
{
    if (!dataset || !*dataset)
        return OP_FAIL(ctx, OP_ERR_USAGE, "%s: no dataset name given", path ? path : "");
    hid_t file = runfile_open_file(ctx, path, H5F_ACC_RDONLY);
    if (file < 0)
        return ctx->status;
    int rc = OP_OK;
    hid_t ds = -1, type = -1, space = -1, memspace = -1;
    void *buffer = NULL;
    ds = runfile_open_dataset(ctx, path, file, dataset);
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
    if (cls != H5T_INTEGER && cls != H5T_FLOAT) {
        char type_text[32];
        runfile_type_name(type, type_text, sizeof type_text);
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
