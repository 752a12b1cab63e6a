/* The sidecar's companion of per-frame views (xdmf_views.h). */
#include "io/xdmf_views.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/atomic.h"
#include "io/runfile_hdf5.h"

typedef struct views {
    op_ctx *ctx;
    const char *run;        /* the run file's path, for messages */
    const char *read_from;  /* where its bytes are read (the run file or its temporary) */
    const char *source;     /* its name as the virtual datasets give it: no directory */
    const op_xdmf_layout *layout;
    hid_t in, out;          /* the run file, read; the companion, written */
    double *radii, *axes;   /* [N][3], [N][9]: the bodies' rest data, gathered */
} views;

static hid_t plain_dataset_list(void)
{
    hid_t list = H5Pcreate(H5P_DATASET_CREATE);
    if (list >= 0)
        H5Pset_obj_track_times(list, 0);
    return list;
}

/* A whole dataset of `rank` extents `dims` holding `data` of `type`, shuffled and deflated in
 * chunks: the gathered faces of Fig. 7's 180 models are 69 MB raw, the body numbers one run of
 * equal values a body. */
static int write_plain(views *v, const char *name, hid_t type, int rank, const hsize_t *dims, const void *data)
{
    hid_t space = H5Screate_simple(rank, dims, NULL), list = plain_dataset_list();
    hsize_t chunk[OP_RUNFILE_MAX_RANK];
    for (int i = 0; i < rank; ++i)
        chunk[i] = i == 0 ? (dims[0] < 65536 ? dims[0] : 65536) : dims[i];
    if (list >= 0 && dims[0] > 0 &&
        (H5Pset_chunk(list, rank, chunk) < 0 || H5Pset_shuffle(list) < 0 || H5Pset_deflate(list, 6) < 0)) {
        H5Pclose(list);
        list = -1;
    }
    hid_t set = space >= 0 && list >= 0 ? H5Dcreate2(v->out, name, type, space, H5P_DEFAULT, list, H5P_DEFAULT) : -1;
    int ok = set >= 0 && H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0;
    if (!ok)
        H5_FAIL(v->ctx, OP_ERR_IO, "%s: cannot write the companion's %s", v->run, name);
    if (set >= 0)
        H5Dclose(set);
    H5Sclose(space);
    H5Pclose(list);
    return v->ctx->status;
}

/* `rows` leading rows of `dataset` in the run file into `out`, whose elements follow its own. */
static int read_whole(views *v, const char *dataset, hid_t type, void *out)
{
    hid_t set = H5Dopen2(v->in, dataset, H5P_DEFAULT);
    if (set < 0 || H5Dread(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0)
        H5_FAIL(v->ctx, OP_ERR_INVALID, "%s: cannot read %s", v->run, dataset);
    if (set >= 0)
        H5Dclose(set);
    return v->ctx->status;
}

/* /static: radii, body numbers, the faces shifted to the surface series' rows. */
static int write_static(views *v)
{
    const op_xdmf_layout *l = v->layout;
    size_t n = (size_t)l->particles, vertices = (size_t)l->vertices, faces = (size_t)l->faces;
    int32_t *particle_body = op_calloc(v->ctx, n ? n : 1, sizeof *particle_body);
    int32_t *vertex_body = op_calloc(v->ctx, vertices ? vertices : 1, sizeof *vertex_body);
    int32_t *face_rows = op_calloc(v->ctx, faces ? 3 * faces : 1, sizeof *face_rows);
    for (int b = 0; v->ctx->status == OP_OK && b < l->body_count; ++b) {
        const op_xdmf_body *body = &l->bodies[b];
        char path[160];
        snprintf(path, sizeof path, "/graph/%s/radii", body->name);
        if (read_whole(v, path, H5T_NATIVE_DOUBLE, &v->radii[3 * body->particle_offset]) != OP_OK)
            break;
        snprintf(path, sizeof path, "/graph/%s/rest_axes", body->name);
        if (read_whole(v, path, H5T_NATIVE_DOUBLE, &v->axes[9 * body->particle_offset]) != OP_OK)
            break;
        for (int64_t i = 0; i < body->particles; ++i)
            particle_body[body->particle_offset + i] = b;
        if (!l->surface_stored)
            continue;
        for (int64_t i = 0; i < body->vertices; ++i)
            vertex_body[body->vertex_offset + i] = b;
    }
    /* the faces follow one another in body order, each body's shifted by its vertex offset */
    size_t face = 0;
    for (int b = 0; v->ctx->status == OP_OK && l->surface_stored && b < l->body_count; ++b) {
        const op_xdmf_body *body = &l->bodies[b];
        char path[160];
        snprintf(path, sizeof path, "/mesh/%s/faces", body->name);
        if (body->faces > 0 && read_whole(v, path, H5T_NATIVE_INT32, &face_rows[3 * face]) != OP_OK)
            break;
        for (int64_t k = 0; k < 3 * body->faces; ++k)
            face_rows[3 * face + (size_t)k] += (int32_t)body->vertex_offset;
        face += (size_t)body->faces;
    }
    hsize_t rows3[2] = { n, 3 }, rows[1] = { n };
    if (v->ctx->status == OP_OK && H5Gclose(H5Gcreate2(v->out, "/static", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0)
        H5_FAIL(v->ctx, OP_ERR_IO, "%s: cannot write the companion's /static", v->run);
    if (v->ctx->status == OP_OK &&
        write_plain(v, "/static/radii", H5T_NATIVE_DOUBLE, 2, rows3, v->radii) == OP_OK &&
        write_plain(v, "/static/particle_body", H5T_NATIVE_INT32, 1, rows, particle_body) == OP_OK &&
        l->surface_stored && faces > 0) {
        hsize_t face_dims[2] = { faces, 3 }, vertex_dims[1] = { vertices };
        if (write_plain(v, "/static/faces", H5T_NATIVE_INT32, 2, face_dims, face_rows) == OP_OK)
            write_plain(v, "/static/vertex_body", H5T_NATIVE_INT32, 1, vertex_dims, vertex_body);
    }
    free(particle_body);
    free(vertex_body);
    free(face_rows);
    return v->ctx->status;
}

/* `name` in the companion: a virtual dataset of `rank` extents dims[1..] mapped onto row t of
 * the run file's [T][...] `series`. */
static int write_view(views *v, const char *name, const char *series, long t)
{
    char stored[OP_SERIES_PATH_SIZE];
    series = runfile_stored_name(v->in, series, stored, sizeof stored);
    hid_t set = H5Dopen2(v->in, series, H5P_DEFAULT);
    hid_t source = set >= 0 ? H5Dget_space(set) : -1;
    hsize_t dims[OP_RUNFILE_MAX_RANK], start[OP_RUNFILE_MAX_RANK] = { (hsize_t)t }, count[OP_RUNFILE_MAX_RANK];
    int rank = source >= 0 ? H5Sget_simple_extent_ndims(source) : -1;
    if (rank < 2 || rank > OP_RUNFILE_MAX_RANK || H5Sget_simple_extent_dims(source, dims, NULL) < 0) {
        H5_FAIL(v->ctx, OP_ERR_INVALID, "%s: cannot read the shape of %s", v->run, series);
    } else {
        count[0] = 1;
        for (int i = 1; i < rank; ++i)
            count[i] = dims[i];
        hid_t space = H5Screate_simple(rank - 1, &dims[1], NULL), list = plain_dataset_list();
        int ok = space >= 0 && list >= 0 && H5Sselect_hyperslab(source, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
                 H5Pset_virtual(list, space, v->source, series, source) >= 0;
        hid_t view = ok ? H5Dcreate2(v->out, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, list, H5P_DEFAULT) : -1;
        if (view < 0)
            H5_FAIL(v->ctx, OP_ERR_IO, "%s: cannot write the companion's %s", v->run, name);
        else
            H5Dclose(view);
        H5Sclose(space);
        H5Pclose(list);
    }
    if (source >= 0)
        H5Sclose(source);
    if (set >= 0)
        H5Dclose(set);
    return v->ctx->status;
}

/* Row t's ellipsoid tensors: E = R·Ē·diag(r), stored column after column (VTK's order). */
static int write_ellipsoids(views *v, const char *name, const char *orientation, long t, double *rotation,
                            double *tensor)
{
    int64_t n = v->layout->particles;
    if (op_runfile_read_rows(v->ctx, v->read_from, orientation, t, 1, rotation, 9 * n) != OP_OK)
        return v->ctx->status;
    for (int64_t i = 0; i < n; ++i) {
        const double *R = &rotation[9 * i], *E = &v->axes[9 * i], *r = &v->radii[3 * i];
        for (int k = 0; k < 3; ++k)
            for (int row = 0; row < 3; ++row) {
                double axis = R[3 * row + 0] * E[0 + k] + R[3 * row + 1] * E[3 + k] + R[3 * row + 2] * E[6 + k];
                tensor[9 * i + 3 * k + row] = axis * r[k];
            }
    }
    hsize_t dims[2] = { (hsize_t)n, 9 };
    return write_plain(v, name, H5T_NATIVE_DOUBLE, 2, dims, tensor);
}

static int write_frames(views *v, int ellipsoids)
{
    const op_xdmf_layout *l = v->layout;
    double *rotation = NULL, *tensor = NULL;
    if (ellipsoids) {
        rotation = op_calloc(v->ctx, 9 * (size_t)l->particles, sizeof *rotation);
        tensor = op_calloc(v->ctx, 9 * (size_t)l->particles, sizeof *tensor);
    }
    char position[64], orientation[64];
    snprintf(position, sizeof position, "%s/position/value", l->series);
    snprintf(orientation, sizeof orientation, "%s/orientation/value", l->series);
    if (v->ctx->status == OP_OK && H5Gclose(H5Gcreate2(v->out, l->views, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0)
        H5_FAIL(v->ctx, OP_ERR_IO, "%s: cannot write the companion's %s", v->run, l->views);
    for (long t = 0; v->ctx->status == OP_OK && t < l->frames; ++t) {
        char group[64], name[96];
        snprintf(group, sizeof group, "%s/%ld", l->views, t);
        if (H5Gclose(H5Gcreate2(v->out, group, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0) {
            H5_FAIL(v->ctx, OP_ERR_IO, "%s: cannot write the companion's %s", v->run, group);
            break;
        }
        snprintf(name, sizeof name, "%s/position", group);
        if (write_view(v, name, position, t) != OP_OK)
            break;
        snprintf(name, sizeof name, "%s/orientation", group);
        if (write_view(v, name, orientation, t) != OP_OK)
            break;
        snprintf(name, sizeof name, "%s/surface", group);
        if (l->surface_stored && l->vertices > 0 && write_view(v, name, "/surface/position/value", t) != OP_OK)
            break;
        snprintf(name, sizeof name, "%s/ellipsoid", group);
        if (ellipsoids && write_ellipsoids(v, name, orientation, t, rotation, tensor) != OP_OK)
            break;
    }
    free(rotation);
    free(tensor);
    return v->ctx->status;
}

/* The closed file's data on the disk before it is renamed over the old one. */
static int sync_file(const char *path)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW);
    if (fd < 0)
        return -1;
    int status = fsync(fd);
    close(fd);
    return status;
}

int op_xdmf_views_write(op_ctx *ctx, const char *source, const char *run_path, const char *views_path,
                        const op_xdmf_layout *layout, int ellipsoids)
{
    const char *slash = strrchr(run_path, '/');
    views v = { .ctx = ctx, .run = run_path, .read_from = source, .source = slash ? slash + 1 : run_path,
                .layout = layout, .in = -1, .out = -1 };
    char temp[4300];
    if ((size_t)snprintf(temp, sizeof temp, "%s.%ld.tmp", views_path, (long)getpid()) >= sizeof temp)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%.200s: the companion's path is too long", views_path);
    v.radii = op_calloc(ctx, 3 * (size_t)(layout->particles ? layout->particles : 1), sizeof *v.radii);
    v.axes = op_calloc(ctx, 9 * (size_t)(layout->particles ? layout->particles : 1), sizeof *v.axes);
    h5_quiet quiet = quiet_begin();
    hid_t access = runfile_file_access_list(), creation = H5Pcreate(H5P_FILE_CREATE);
    if (ctx->status == OP_OK && (v.in = runfile_open_file(ctx, source, H5F_ACC_RDONLY)) >= 0) {
        op_temp_track(temp);
        /* EXCL: a link planted at the temporary name is refused, not followed (docs/data.md) */
        v.out = H5Fcreate(temp, H5F_ACC_EXCL, creation, access);
        if (v.out < 0)
            H5_FAIL(ctx, OP_ERR_IO, "%s: cannot create %s", views_path, temp);
        else if (write_static(&v) == OP_OK)
            write_frames(&v, ellipsoids);
        if (v.out >= 0 && H5Fclose(v.out) < 0 && ctx->status == OP_OK)
            H5_FAIL(ctx, OP_ERR_IO, "%s: cannot close %s", views_path, temp);
        if (ctx->status == OP_OK && sync_file(temp) != 0)
            OP_FAIL(ctx, OP_ERR_IO, "%s: cannot write %s: %s", views_path, temp, strerror(errno));
        if (ctx->status == OP_OK && rename(temp, views_path) != 0)
            OP_FAIL(ctx, OP_ERR_IO, "%s: cannot rename %s onto it: %s", views_path, temp, strerror(errno));
        if (ctx->status != OP_OK)
            remove(temp);
        op_temp_untrack(temp);
        H5Fclose(v.in);
    }
    H5Pclose(access);
    H5Pclose(creation);
    quiet_end(quiet);
    free(v.radii);
    free(v.axes);
    return ctx->status;
}
