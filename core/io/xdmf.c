/* The XDMF sidecar writer (xdmf.h): learns the run file's shapes through runfile.h, checks
 * that they fit together, and prints XML that points at the datasets; the same for the
 * sub-step sidecar of a run that stored its sub-steps. */
#include "io/xdmf.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/atomic.h"
#include "io/xdmf_views.h"
#include "opsim/runfile.h"
#include "geometry/skin.h"

typedef struct shape {
    int rank;
    int64_t dims[OP_RUNFILE_MAX_RANK];
} shape;

/* The rows one body owns in the shared series, and its own datasets' shapes. */
typedef struct body_layout {
    int64_t particle_offset, particles;
    int64_t vertex_offset, vertices;
    shape radii, rest_axes, faces;
} body_layout;

/* Which stored states a sidecar steps through: the output frames, or every sub-step. */
typedef struct states {
    const char *series;   /* the run file's group: /particles or /substeps */
    const char *views;    /* the companion's group of per-state views: /frames or /substeps */
    const char *grid;     /* each state's grid is named "<grid> <index>" */
    const char *word;     /* how the sidecar's opening comment names a state */
    const char *suffix;   /* the sidecar is RUN<suffix>.xmf, its companion RUN<suffix>.views.h5 */
} states;
static const states FRAMES = { "/particles", "/frames", "frame", "frame", "" },
                    SUBSTEPS = { "/substeps", "/substeps", "substep", "sub-step", ".substeps" };

typedef struct sidecar {
    op_ctx *ctx;
    const states *states;
    const char *run;      /* the run file's path, for messages */
    const char *source;   /* where its bytes are read: the run file, or its temporary before publishing */
    char file[1024];      /* its name as the sidecar writes it: no directory, XML-escaped */
    char views_file[1040]; /* the companion's (xdmf_views.h), alike */
    int ellipsoids;       /* the companion holds the ellipsoid tensors */
    FILE *out;
    long frames;
    double *time;         /* [frames] */
    int64_t *step;        /* [frames] */
    shape position, orientation, index, surface;
    char index_path[OP_SERIES_PATH_SIZE]; /* /particles/index's name in this file (op_runfile_stored_name) */
    int64_t surface_stored;
    int body_count;
    char names[OP_RUNFILE_MAX_BODIES][OP_RUNFILE_NAME_SIZE];
    body_layout bodies[OP_RUNFILE_MAX_BODIES];
    op_xdmf_body view_bodies[OP_RUNFILE_MAX_BODIES];
    op_xdmf_layout layout;
} sidecar;

/* Element types of the datasets the sidecar names, as the run-file layout fixes them
 * (runfile.h, record.h): XDMF wants them spelled out. */
typedef struct number_type {
    const char *name;
    int precision;
} number_type;
static const number_type FLOAT64 = { "Float", 8 }, INT64 = { "Int", 8 }, INT32 = { "Int", 4 };

/* RUN.h5 becomes RUN<ending>; any other name gets <ending> appended. */
static int path_ending(op_ctx *ctx, const char *run_path, const char *ending, char *out, size_t size)
{
    size_t length = strlen(run_path);
    if (length > 3 && strcmp(run_path + length - 3, ".h5") == 0)
        length -= 3;
    if ((size_t)snprintf(out, size, "%.*s%s", (int)length, run_path, ending) >= size)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%.200s: the path of its %s is too long", run_path, ending);
    return OP_OK;
}

int op_xdmf_path(op_ctx *ctx, const char *run_path, char *out, size_t size)
{
    return path_ending(ctx, run_path, ".xmf", out, size);
}

int op_xdmf_substeps_path(op_ctx *ctx, const char *run_path, char *out, size_t size)
{
    return path_ending(ctx, run_path, ".substeps.xmf", out, size);
}

int op_xdmf_substeps_views_path(op_ctx *ctx, const char *run_path, char *out, size_t size)
{
    return path_ending(ctx, run_path, ".substeps.views.h5", out, size);
}

/* The dataset's shape, which must be `rank` extents equal to `expected` where that is not -1. */
static int read_shape(sidecar *s, const char *dataset, int rank, const int64_t *expected, shape *out)
{
    if (op_runfile_dataset_shape(s->ctx, s->source, dataset, &out->rank, out->dims) != OP_OK)
        return s->ctx->status;
    int fits = out->rank == rank;
    for (int i = 0; fits && i < rank; ++i)
        fits = expected[i] < 0 || out->dims[i] == expected[i];
    if (!fits) {
        char want[160] = "", have[160] = "";
        for (int i = 0; i < rank; ++i) {
            size_t used = strlen(want);
            if (expected[i] < 0)
                snprintf(want + used, sizeof want - used, "%s*", i ? "," : "");
            else
                snprintf(want + used, sizeof want - used, "%s%lld", i ? "," : "", (long long)expected[i]);
        }
        for (int i = 0; i < out->rank; ++i) {
            size_t used = strlen(have);
            snprintf(have + used, sizeof have - used, "%s%lld", i ? "," : "", (long long)out->dims[i]);
        }
        return OP_FAIL(s->ctx, OP_ERR_INVALID, "%s: %s has shape [%s], expected [%s]", s->run, dataset, have, want);
    }
    return OP_OK;
}

/* The run file's name in the sidecar: the directory dropped (the two files sit side by side),
 * markup characters escaped. */
static int set_file_name(sidecar *s)
{
    const char *slash = strrchr(s->run, '/'), *name = slash ? slash + 1 : s->run;
    if (strchr(name, ':'))
        return OP_FAIL(s->ctx, OP_ERR_INVALID,
                       "%s: XDMF cannot name a run file whose name holds ':' (it separates file and dataset)",
                       s->run);
    size_t used = 0;
    for (const char *c = name; *c; ++c) {
        const char *text = *c == '&' ? "&amp;" : *c == '<' ? "&lt;" : *c == '>' ? "&gt;" : *c == '"' ? "&quot;" : NULL;
        size_t length = text ? strlen(text) : 1;
        if (used + length >= sizeof s->file)
            return OP_FAIL(s->ctx, OP_ERR_INVALID, "%.200s: run file name too long for the sidecar", s->run);
        memcpy(s->file + used, text ? text : c, length);
        used += length;
    }
    s->file[used] = '\0';
    return OP_OK;
}

static int read_frames(sidecar *s)
{
    char time_path[64], step_path[64];
    snprintf(time_path, sizeof time_path, "%s/position/time", s->states->series);
    snprintf(step_path, sizeof step_path, "%s/position/step", s->states->series);
    shape time;
    if (op_runfile_dataset_shape(s->ctx, s->source, time_path, &time.rank, time.dims) != OP_OK) {
        if (s->ctx->status == OP_ERR_INVALID)
            snprintf(s->ctx->message + strlen(s->ctx->message), sizeof s->ctx->message - strlen(s->ctx->message),
                     " (not a simulation run: make one with 'opsim run')");
        return s->ctx->status;
    }
    if (time.rank != 1 || time.dims[0] < 1)
        return OP_FAIL(s->ctx, OP_ERR_INVALID, "%s: %s holds no stored states", s->run, time_path);
    s->frames = (long)time.dims[0];
    s->time = op_calloc(s->ctx, (size_t)s->frames, sizeof *s->time);
    s->step = op_calloc(s->ctx, (size_t)s->frames, sizeof *s->step);
    if (s->ctx->status != OP_OK ||
        op_runfile_read_rows(s->ctx, s->source, time_path, 0, s->frames, s->time, s->frames) != OP_OK ||
        op_runfile_read_rows_int64(s->ctx, s->source, step_path, 0, s->frames, s->step, s->frames) != OP_OK)
        return s->ctx->status;
    for (long f = 0; f < s->frames; ++f)
        if (s->step[f] < 0 || (f > 0 && s->step[f] <= s->step[f - 1]))
            return OP_FAIL(s->ctx, OP_ERR_INVALID,
                           "%s: %s row %ld holds %s %lld: the indices must increase from 0 (a damaged file)", s->run,
                           step_path, f, s->states->grid, (long long)s->step[f]);
    return OP_OK;
}

/* The body read as `opsim export` reads it (every index checked against what it indexes), so
 * that no sidecar describes a body that export refuses. */
static int check_body(sidecar *s, const char *name)
{
    op_graph graph = { 0 };
    op_mesh mesh = { 0 };
    op_skin skin = { 0 };
    op_runfile_read_body(s->ctx, s->source, name, &graph, &mesh, &skin);
    op_graph_free(&graph);
    op_mesh_free(&mesh);
    op_skin_free(&skin);
    return s->ctx->status;
}

/* The shared series, then each body's place in them. */
static int read_layout(sidecar *s)
{
    int64_t T = s->frames, any = -1;
    char position[64], orientation[64];
    snprintf(position, sizeof position, "%s/position/value", s->states->series);
    snprintf(orientation, sizeof orientation, "%s/orientation/value", s->states->series);
    if (read_shape(s, position, 3, (int64_t[]){ T, any, 3 }, &s->position) != OP_OK ||
        read_shape(s, orientation, 4, (int64_t[]){ T, s->position.dims[1], 3, 3 }, &s->orientation) != OP_OK)
        return s->ctx->status;
    if (op_runfile_dataset_shape(s->ctx, s->source, "/particles/index", &s->index.rank, s->index.dims) != OP_OK) {
        if (s->ctx->status == OP_ERR_INVALID)
            snprintf(s->ctx->message + strlen(s->ctx->message), sizeof s->ctx->message - strlen(s->ctx->message),
                     " (written by an opsim without XDMF sidecars: run it again)");
        return s->ctx->status;
    }
    if (read_shape(s, "/particles/index", 1, (int64_t[]){ s->position.dims[1] }, &s->index) != OP_OK ||
        op_runfile_stored_name(s->ctx, s->source, "/particles/index", s->index_path, sizeof s->index_path) != OP_OK ||
        op_runfile_read_attribute_int(s->ctx, s->source, "/parameters", "store_surface", &s->surface_stored) != OP_OK)
        return s->ctx->status;
    /* the surface is stored at the output frames only */
    s->surface_stored = s->surface_stored && s->states == &FRAMES;
    if ((s->surface_stored &&
         read_shape(s, "/surface/position/value", 3, (int64_t[]){ T, any, 3 }, &s->surface) != OP_OK) ||
        op_runfile_body_names(s->ctx, s->source, s->names, OP_RUNFILE_MAX_BODIES, &s->body_count) != OP_OK)
        return s->ctx->status;
    for (int b = 0; b < s->body_count; ++b) {
        const char *name = s->names[b];
        body_layout *l = &s->bodies[b];
        char parameters[128], radii[128], axes[128], faces[128], vertices[128];
        snprintf(parameters, sizeof parameters, "/parameters/%s", name);
        snprintf(radii, sizeof radii, "/graph/%s/radii", name);
        snprintf(axes, sizeof axes, "/graph/%s/rest_axes", name);
        snprintf(faces, sizeof faces, "/mesh/%s/faces", name);
        snprintf(vertices, sizeof vertices, "/mesh/%s/rest_vertices", name);
        shape rest;
        if (check_body(s, name) != OP_OK || read_shape(s, radii, 2, (int64_t[]){ any, 3 }, &l->radii) != OP_OK ||
            read_shape(s, axes, 3, (int64_t[]){ l->radii.dims[0], 3, 3 }, &l->rest_axes) != OP_OK ||
            read_shape(s, faces, 2, (int64_t[]){ any, 3 }, &l->faces) != OP_OK ||
            read_shape(s, vertices, 2, (int64_t[]){ any, 3 }, &rest) != OP_OK ||
            op_runfile_read_attribute_int(s->ctx, s->source, parameters, "particle_offset", &l->particle_offset) !=
                OP_OK ||
            (s->surface_stored &&
             op_runfile_read_attribute_int(s->ctx, s->source, parameters, "vertex_offset", &l->vertex_offset) != OP_OK))
            return s->ctx->status;
        l->particles = l->radii.dims[0];
        l->vertices = rest.dims[0];
        if (l->particle_offset < 0 || l->particle_offset + l->particles > s->position.dims[1])
            return OP_FAIL(s->ctx, OP_ERR_INVALID,
                           "%s: body %s (particles %lld to %lld) does not fit %s of %lld particles", s->run, name,
                           (long long)l->particle_offset, (long long)(l->particle_offset + l->particles - 1),
                           position, (long long)s->position.dims[1]);
        if (s->surface_stored && (l->vertex_offset < 0 || l->vertex_offset + l->vertices > s->surface.dims[1]))
            return OP_FAIL(s->ctx, OP_ERR_INVALID,
                           "%s: body %s (vertices %lld to %lld) does not fit /surface/position/value of %lld "
                           "vertices",
                           s->run, name, (long long)l->vertex_offset, (long long)(l->vertex_offset + l->vertices - 1),
                           (long long)s->surface.dims[1]);
    }
    return OP_OK;
}

static void print_extents(FILE *out, int rank, const int64_t *extents)
{
    for (int i = 0; i < rank; ++i)
        fprintf(out, "%s%lld", i ? " " : "", (long long)extents[i]);
}

/* A whole dataset of `file` (the run file or its companion, as named in the sidecar). */
static void hdf_item(const sidecar *s, const char *file, const char *dataset, int rank, const int64_t *dims,
                     number_type type)
{
    fprintf(s->out, "%*s<DataItem Dimensions=\"", 12, "");
    print_extents(s->out, rank, dims);
    fprintf(s->out, "\" NumberType=\"%s\" Precision=\"%d\" Format=\"HDF\">%s:%s</DataItem>\n", type.name,
            type.precision, file, dataset);
}

static void attribute(const sidecar *s, const char *name, const char *type, const char *dataset, int rank,
                      const int64_t *dims, number_type number)
{
    fprintf(s->out, "          <Attribute Name=\"%s\" AttributeType=\"%s\" Center=\"Node\">\n", name, type);
    hdf_item(s, s->views_file, dataset, rank, dims, number);
    fprintf(s->out, "          </Attribute>\n");
}

static void print_surface(const sidecar *s, long t)
{
    FILE *out = s->out;
    char dataset[64];
    int64_t V = s->layout.vertices, F = s->layout.faces;
    fprintf(out, "        <Grid Name=\"surface\" GridType=\"Uniform\">\n");
    fprintf(out, "          <Topology TopologyType=\"Triangle\" NumberOfElements=\"%lld\">\n", (long long)F);
    hdf_item(s, s->views_file, "/static/faces", 2, (int64_t[]){ F, 3 }, INT32);
    fprintf(out, "          </Topology>\n          <Geometry GeometryType=\"XYZ\">\n");
    snprintf(dataset, sizeof dataset, "%s/%ld/surface", s->states->views, t);
    hdf_item(s, s->views_file, dataset, 2, (int64_t[]){ V, 3 }, FLOAT64);
    fprintf(out, "          </Geometry>\n");
    attribute(s, "body", "Scalar", "/static/vertex_body", 1, (int64_t[]){ V }, INT32);
    fprintf(out, "        </Grid>\n");
}

static void print_particles(const sidecar *s, long t)
{
    FILE *out = s->out;
    char dataset[64];
    int64_t N = s->layout.particles;
    fprintf(out, "        <Grid Name=\"particles\" GridType=\"Uniform\">\n");
    fprintf(out, "          <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"%lld\" NodesPerElement=\"1\">\n",
            (long long)N);
    hdf_item(s, s->file, s->index_path, 1, (int64_t[]){ N }, INT64);
    fprintf(out, "          </Topology>\n          <Geometry GeometryType=\"XYZ\">\n");
    snprintf(dataset, sizeof dataset, "%s/%ld/position", s->states->views, t);
    hdf_item(s, s->views_file, dataset, 2, (int64_t[]){ N, 3 }, FLOAT64);
    fprintf(out, "          </Geometry>\n");
    snprintf(dataset, sizeof dataset, "%s/%ld/orientation", s->states->views, t);
    attribute(s, "orientation", "Tensor", dataset, 3, (int64_t[]){ N, 3, 3 }, FLOAT64);
    attribute(s, "radii", "Vector", "/static/radii", 2, (int64_t[]){ N, 3 }, FLOAT64);
    attribute(s, "body", "Scalar", "/static/particle_body", 1, (int64_t[]){ N }, INT32);
    snprintf(dataset, sizeof dataset, "%s/%ld/ellipsoid", s->states->views, t);
    if (s->ellipsoids)
        attribute(s, "ellipsoid", "Tensor", dataset, 2, (int64_t[]){ N, 9 }, FLOAT64);
    fprintf(out, "        </Grid>\n");
}

static void print_sidecar(const sidecar *s)
{
    FILE *out = s->out;
    fprintf(out, "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n");
    fprintf(out, "<!-- The run %s for ParaView, %s: open this file (the default XDMF reader reads it). "
                 "Written by opsim (core/io/xdmf.h); the data stay in the run file, %s maps each %s onto it. "
                 "Bodies in order:",
            s->file, s->states == &FRAMES ? "its output frames" : "the state after every sub-step", s->views_file,
            s->states->word);
    for (int b = 0; b < s->body_count; ++b)
        fprintf(out, " %d %s", b, s->names[b]);
    fprintf(out, ". -->\n<Xdmf Version=\"3.0\">\n  <Domain>\n");
    fprintf(out, "    <Grid Name=\"run\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
    for (long t = 0; t < s->frames; ++t) {
        fprintf(out, "      <Grid Name=\"%s %lld\" GridType=\"Collection\" CollectionType=\"Spatial\">\n",
                s->states->grid, (long long)s->step[t]);
        fprintf(out, "        <Time Value=\"%.17g\"/>\n", s->time[t]);
        /* XDMF has no empty arrays: a run without triangles has no surface grid */
        if (s->layout.surface_stored && s->layout.faces > 0 && s->layout.vertices > 0)
            print_surface(s, t);
        print_particles(s, t);
        fprintf(out, "      </Grid>\n");
    }
    fprintf(out, "    </Grid>\n  </Domain>\n</Xdmf>\n");
}

/* The bodies' rows gathered for the companion (xdmf_views.h). */
static void fill_layout(sidecar *s)
{
    op_xdmf_layout *l = &s->layout;
    *l = (op_xdmf_layout){ .series = s->states->series, .views = s->states->views, .frames = s->frames,
                           .particles = s->position.dims[1], .surface_stored = (int)s->surface_stored,
                           .vertices = s->surface_stored ? s->surface.dims[1] : 0, .body_count = s->body_count,
                           .bodies = s->view_bodies };
    for (int b = 0; b < s->body_count; ++b) {
        const body_layout *from = &s->bodies[b];
        s->view_bodies[b] = (op_xdmf_body){ .name = s->names[b], .particle_offset = from->particle_offset,
                                            .particles = from->particles, .vertex_offset = from->vertex_offset,
                                            .vertices = from->vertices, .faces = from->faces.dims[0] };
        l->faces += s->surface_stored ? from->faces.dims[0] : 0;
    }
}

int op_xdmf_views_path(op_ctx *ctx, const char *run_path, char *out, size_t size)
{
    return path_ending(ctx, run_path, ".views.h5", out, size);
}

/* The companion's name in the sidecar: the run file's, with <suffix>.views.h5 for .h5. */
static void set_views_file(sidecar *s)
{
    size_t length = strlen(s->file);
    if (length > 3 && strcmp(s->file + length - 3, ".h5") == 0)
        length -= 3;
    snprintf(s->views_file, sizeof s->views_file, "%.*s%s.views.h5", (int)length, s->file, s->states->suffix);
}

/* Reads `source`, names `run_path`: the companion of views (xdmf_views.h; written under its own
 * temporary name and renamed), then the sidecar of `which` states printed to `out`. */
static int write_sidecar(op_ctx *ctx, const char *source, const char *run_path, FILE *out, int ellipsoids,
                         const states *which)
{
    char views_path[4200], ending[64];
    snprintf(ending, sizeof ending, "%s.views.h5", which->suffix);
    if (path_ending(ctx, run_path, ending, views_path, sizeof views_path) != OP_OK)
        return ctx->status;
    sidecar *s = op_calloc(ctx, 1, sizeof *s);
    if (!s)
        return ctx->status;
    s->ctx = ctx;
    s->run = run_path;
    s->source = source;
    s->ellipsoids = ellipsoids;
    s->states = which;
    if (set_file_name(s) == OP_OK && read_frames(s) == OP_OK && read_layout(s) == OP_OK) {
        set_views_file(s);
        fill_layout(s);
        if (op_xdmf_views_write(ctx, source, run_path, views_path, &s->layout, ellipsoids) == OP_OK) {
            s->out = out;
            print_sidecar(s);
        }
    }
    free(s->time);
    free(s->step);
    free(s);
    return ctx->status;
}

/* 1 when `source` stored its sub-steps (/substeps), 0 when not; a file that cannot be read
 * fails. */
static int has_substeps(op_ctx *ctx, const char *source)
{
    op_ctx probe;
    op_ctx_init(&probe);
    int rank;
    int64_t dims[OP_RUNFILE_MAX_RANK];
    if (op_runfile_dataset_shape(&probe, source, "/substeps/position/time", &rank, dims) == OP_OK)
        return 1;
    if (probe.status != OP_ERR_INVALID)
        OP_FAIL(ctx, probe.status, "%s", probe.message);
    return 0;
}

/* The sidecar of `which` states at RUN<suffix>.xmf, under a temporary name renamed when complete. */
static int write_sidecar_file(op_ctx *ctx, const char *source, const char *run_path, int ellipsoids,
                              const states *which)
{
    char path[4200], ending[64];
    snprintf(ending, sizeof ending, "%s.xmf", which->suffix);
    if (path_ending(ctx, run_path, ending, path, sizeof path) != OP_OK)
        return ctx->status;
    op_atomic_file file;
    if (op_atomic_open(ctx, &file, path) != OP_OK)
        return ctx->status;
    if (write_sidecar(ctx, source, run_path, file.file, ellipsoids, which) == OP_OK)
        op_atomic_commit(ctx, &file);
    else
        op_atomic_abort(&file);
    return ctx->status;
}

/* The sub-step sidecar and its companion when `source` stored sub-steps; otherwise any left by
 * an earlier run at the same path removed, so that none describes another run. */
static int write_substep_sidecar(op_ctx *ctx, const char *source, const char *run_path, int ellipsoids)
{
    int stored = has_substeps(ctx, source);
    if (ctx->status != OP_OK)
        return ctx->status;
    if (stored)
        return write_sidecar_file(ctx, source, run_path, ellipsoids, &SUBSTEPS);
    char sidecar[4200], views[4200];
    if (op_xdmf_substeps_path(ctx, run_path, sidecar, sizeof sidecar) != OP_OK ||
        op_xdmf_substeps_views_path(ctx, run_path, views, sizeof views) != OP_OK)
        return ctx->status;
    if ((unlink(sidecar) != 0 && errno != ENOENT) || (unlink(views) != 0 && errno != ENOENT))
        return OP_FAIL(ctx, OP_ERR_IO, "%s: cannot remove the previous run's sub-step sidecar: %s", run_path,
                       strerror(errno));
    return OP_OK;
}

int op_xdmf_write(op_ctx *ctx, const char *run_path, int ellipsoids)
{
    if (write_sidecar_file(ctx, run_path, run_path, ellipsoids, &FRAMES) == OP_OK)
        write_substep_sidecar(ctx, run_path, run_path, ellipsoids);
    return ctx->status;
}

/* A message naming the temporary run file names the run file instead. */
static void name_the_run(op_ctx *ctx, const char *source, const char *run_path)
{
    char *at = strstr(ctx->message, source);
    if (!at)
        return;
    char rest[sizeof ctx->message];
    snprintf(rest, sizeof rest, "%s", at + strlen(source));
    snprintf(at, sizeof ctx->message - (size_t)(at - ctx->message), "%s%s", run_path, rest);
}

int op_xdmf_write_companion(op_ctx *ctx, const char *source, const char *run_path, const char *temp)
{
    int fd = op_temp_create(temp);
    FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!out) {
        if (fd >= 0)
            close(fd);
        return OP_FAIL(ctx, OP_ERR_IO, "%s: cannot create the sidecar's temporary file: %s", run_path, strerror(errno));
    }
    if (write_sidecar(ctx, source, run_path, out, 0, &FRAMES) != OP_OK ||
        write_substep_sidecar(ctx, source, run_path, 0) != OP_OK)
        name_the_run(ctx, source, run_path);
    errno = 0;
    int failed = fflush(out) != 0 || ferror(out) || fsync(fileno(out)) != 0;
    int reason = errno ? errno : EIO;
    failed |= fclose(out) != 0;
    if (ctx->status == OP_OK && failed)
        OP_FAIL(ctx, OP_ERR_IO, "%s: cannot write its sidecar: %s", run_path, strerror(reason));
    return ctx->status;
}

int op_xdmf_companion(op_ctx *ctx, const char *run_path, op_runfile_companion *companion)
{
    memset(companion, 0, sizeof *companion);
    companion->write = op_xdmf_write_companion;
    return op_xdmf_path(ctx, run_path, companion->path, sizeof companion->path);
}
