/* opsim export: a run-file dataset as tab-separated text, the skinned surface or particles of a frame, or OBJ files. */
#include "app.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include <dirent.h>
#include <unistd.h>

#include "io/atomic.h"
#include "base/math3.h"

static const char export_help[] =
    "usage: opsim export RUN.h5 DATASET\n"
    "       opsim export RUN.h5 --triangles BODY | --axes BODY\n"
    "       opsim export RUN.h5 --skinned BODY --frame F [--faces N] | --particles BODY --frame F\n"
    "       opsim export RUN.h5 --obj DIR [--frames all|last|F,F,...] [--body BODY]\n"
    "       opsim export RUN.h5 --attribute OBJECT NAME\n"
    "\n"
    "Prints tab-separated text for gnuplot: DATASET (e.g. /graph/dino/radii) one row per leading\n"
    "index, so a time series is one line per frame or sub-step: /observables/NAME/value and\n"
    "/observables/NAME/time (one value per frame), /timing/total (ms per frame; also local,\n"
    "global, collision, chebyshev), /solver/energy/total (one row per sub-step: E before and\n"
    "after each iteration; also kinetic, elastic, constraint).\n"
    "--triangles BODY: the rest surface as closed triangle outlines, one per block (blocks are\n"
    "separated by two blank lines so splot draws no grid between them);\n"
    "--axes BODY: each particle's three principal axes as segments through its centre, scaled by\n"
    "the radii, with columns x y z particle axis(0..2).\n"
    "--skinned BODY --frame F: the visual surface at output frame F, skinned by the particles\n"
    "(Eq. 2), as closed triangle outlines like --triangles; --particles BODY --frame F: the\n"
    "current axes R_i E_i of the particles at frame F, like --axes. F is a frame index\n"
    "recorded in /particles/position/step, or 'last'. Both start with a comment line\n"
    "'# BODY frame F time T' (T in seconds). --faces N: at most N triangles, a coarse stand-in of\n"
    "the surface by vertex clustering (its corners are mesh vertices, skinned as they are), for\n"
    "pictures of scenes too big to draw whole.\n"
    "--obj DIR: the skinned surface as OBJ files DIR/BODY-FFFFFF.obj (F the frame index, six\n"
    "digits), one per body (or only --body BODY) and output frame (--frames: all, the default;\n"
    "last; or frame indices and 'last' separated by commas), each written under a temporary name\n"
    "and renamed when complete; DIR is made if missing; prints each path written.\n"
    "--attribute OBJECT NAME: one numeric attribute, e.g. /parameters/bar_k stiffness.\n";

static int export_triangles(op_ctx *ctx, const char *path, const char *body)
{
    op_mesh mesh = { 0 };
    if (op_runfile_read_body(ctx, path, body, NULL, &mesh, NULL) != OP_OK)
        return ctx->status;
    for (int t = 0; t < mesh.face_count; ++t) {
        for (int k = 0; k <= 3; ++k) {
            const double *p = &mesh.vertices[3 * mesh.faces[3 * t + k % 3]];
            printf("%.9g\t%.9g\t%.9g\n", p[0], p[1], p[2]);
        }
        printf("\n\n");
    }
    op_mesh_free(&mesh);
    return OP_OK;
}

/* Segments of each particle's three axes, centre ± radius × axis, for centres x and axes
 * (columns) `axes`. */
static void print_axes(const op_graph *graph, const double *x, const double *axes)
{
    for (int i = 0; i < graph->particle_count; ++i)
        for (int a = 0; a < 3; ++a) {
            for (int end = -1; end <= 1; end += 2) {
                const double *c = &x[3 * i], *e = &axes[9 * i];
                double r = end * graph->radii[3 * i + a];
                printf("%.9g\t%.9g\t%.9g\t%d\t%d\n", c[0] + r * e[a], c[1] + r * e[3 + a],
                       c[2] + r * e[6 + a], i, a);
            }
            printf("\n\n");
        }
}

static int export_axes(op_ctx *ctx, const char *path, const char *body)
{
    op_graph graph = { 0 };
    if (op_runfile_read_body(ctx, path, body, &graph, NULL, NULL) != OP_OK)
        return ctx->status;
    print_axes(&graph, graph.rest_position, graph.rest_axes);
    op_graph_free(&graph);
    return OP_OK;
}

/* One body at one output frame of a run: its rest graph (and mesh and skin when asked for),
 * its place in the shared particle series, and its particles' centres and rotations at that
 * frame. */
typedef struct frame_state {
    op_graph graph;
    op_mesh mesh;
    op_skin skin;
    int64_t offset;   /* the body's first particle in /particles/.../value */
    long total;       /* particles of every body */
    double *position; /* [n][3] */
    double *rotation; /* [n][9] */
    long long frame;
    double time;
} frame_state;

static void frame_state_free(frame_state *f)
{
    op_graph_free(&f->graph);
    op_mesh_free(&f->mesh);
    op_skin_free(&f->skin);
    free(f->position);
    free(f->rotation);
    memset(f, 0, sizeof *f);
}

/* Every output frame's index, /particles/position/step, into a new array of *rows. */
static int read_steps(op_ctx *ctx, const char *path, int64_t **steps, long *rows)
{
    const char *steps_path = "/particles/position/step";
    int rank = 0;
    int64_t dims[OP_RUNFILE_MAX_RANK];
    *steps = NULL;
    if (op_runfile_dataset_shape(ctx, path, steps_path, &rank, dims) != OP_OK) {
        if (ctx->status == OP_ERR_INVALID)
            snprintf(ctx->message + strlen(ctx->message), sizeof ctx->message - strlen(ctx->message),
                     " (not a simulation run: make one with 'opsim run')");
        return ctx->status;
    }
    if (rank != 1 || dims[0] < 1)
        return OP_FAIL(ctx, OP_ERR_INVALID, "%s: %s holds no output frames", path, steps_path);
    *rows = (long)dims[0];
    *steps = op_calloc(ctx, (size_t)*rows, sizeof **steps);
    if (*steps && op_runfile_read_rows_int64(ctx, path, steps_path, 0, *rows, *steps, *rows) != OP_OK)
        OP_FREE(*steps);
    /* Frame indices name the OBJ files and pick rows: negative or repeated ones (a damaged
     * file) would have written one name several times. */
    for (long r = 0; *steps && r < *rows; ++r)
        if ((*steps)[r] < 0 || (*steps)[r] > 999999999 || (r > 0 && (*steps)[r] <= (*steps)[r - 1])) {
            OP_FAIL(ctx, OP_ERR_INVALID,
                    "%s: %s row %ld holds frame %lld: frame indices must increase from 0 (a damaged file)", path,
                    steps_path, r, (long long)(*steps)[r]);
            OP_FREE(*steps);
        }
    return ctx->status;
}

/* The output row whose step is `frame_text` (a frame index or "last"). An unknown frame names
 * the frames the run has. */
static int find_frame_row(op_ctx *ctx, const char *path, const char *frame_text, long *row)
{
    int64_t *steps;
    long rows = 0;
    if (read_steps(ctx, path, &steps, &rows) != OP_OK)
        return ctx->status;
    *row = -1;
    if (strcmp(frame_text, "last") == 0)
        *row = rows - 1;
    else {
        long long frame = strtoll(frame_text, NULL, 10);
        for (long r = 0; r < rows; ++r)
            if (steps[r] == frame) {
                *row = r;
                break;
            }
    }
    if (*row < 0) {
        /* The recorder writes frame 0, every output_every-th frame and the last one. */
        long long every = rows > 1 ? (long long)(steps[1] - steps[0]) : 0;
        int regular = 1;
        for (long r = 1; r + 1 < rows; ++r)
            regular &= steps[r + 1] - steps[r] == every;
        if (rows == 1)
            OP_FAIL(ctx, OP_ERR_INVALID, "%s: frame %s was not recorded; the only output frame is %lld",
                    path, frame_text, (long long)steps[0]);
        else if (regular)
            OP_FAIL(ctx, OP_ERR_INVALID,
                    "%s: frame %s was not recorded; output frames are %lld to %lld every %lld "
                    "(%ld frames), or 'last'",
                    path, frame_text, (long long)steps[0], (long long)steps[rows - 1], every, rows);
        else
            OP_FAIL(ctx, OP_ERR_INVALID,
                    "%s: frame %s was not recorded; output frames are %lld, %lld, ... %lld (%ld "
                    "frames, every %lld and the last), or 'last'",
                    path, frame_text, (long long)steps[0], (long long)steps[1],
                    (long long)steps[rows - 1], rows, every);
    }
    free(steps);
    return ctx->status;
}

/* The body's rest data and place in the series, with room for one frame of its state. */
static int read_frame_body(op_ctx *ctx, const char *path, const char *body, int with_mesh, frame_state *f)
{
    memset(f, 0, sizeof *f);
    if (op_runfile_read_body(ctx, path, body, &f->graph, with_mesh ? &f->mesh : NULL,
                             with_mesh ? &f->skin : NULL) != OP_OK)
        return ctx->status;
    char object[128];
    snprintf(object, sizeof object, "/parameters/%s", body);
    int rank = 0;
    int64_t dims[OP_RUNFILE_MAX_RANK];
    if (op_runfile_read_attribute_int(ctx, path, object, "particle_offset", &f->offset) != OP_OK ||
        op_runfile_dataset_shape(ctx, path, "/particles/position/value", &rank, dims) != OP_OK)
        return ctx->status;
    int n = f->graph.particle_count;
    if (rank != 3 || dims[2] != 3 || f->offset < 0 || f->offset + n > dims[1])
        return OP_FAIL(ctx, OP_ERR_INVALID,
                       "%s: body %s (particles %lld to %lld) does not fit /particles/position/value "
                       "of %lld particles",
                       path, body, (long long)f->offset, (long long)f->offset + n - 1,
                       rank >= 2 ? (long long)dims[1] : 0LL);
    f->total = (long)dims[1];
    f->position = op_calloc(ctx, 3 * (size_t)n, sizeof *f->position);
    f->rotation = op_calloc(ctx, 9 * (size_t)n, sizeof *f->rotation);
    return ctx->status;
}

/* The body's particles at output row `row` (its frame index and time too). */
static int read_frame_row(op_ctx *ctx, const char *path, long row, frame_state *f)
{
    long total = f->total;
    size_t n = (size_t)f->graph.particle_count;
    double *all_x = op_calloc(ctx, 3 * (size_t)total, sizeof *all_x);
    double *all_r = op_calloc(ctx, 9 * (size_t)total, sizeof *all_r);
    int64_t step = 0;
    if (ctx->status == OP_OK &&
        op_runfile_read_rows(ctx, path, "/particles/position/value", row, 1, all_x, 3 * total) == OP_OK &&
        op_runfile_read_rows(ctx, path, "/particles/orientation/value", row, 1, all_r, 9 * total) == OP_OK &&
        op_runfile_read_rows_int64(ctx, path, "/particles/position/step", row, 1, &step, 1) == OP_OK &&
        op_runfile_read_rows(ctx, path, "/particles/position/time", row, 1, &f->time, 1) == OP_OK) {
        memcpy(f->position, &all_x[3 * f->offset], 3 * n * sizeof(double));
        memcpy(f->rotation, &all_r[9 * f->offset], 9 * n * sizeof(double));
        f->frame = step;
    }
    free(all_x);
    free(all_r);
    return ctx->status;
}

static int read_frame_state(op_ctx *ctx, const char *path, const char *body, const char *frame_text,
                            int with_mesh, frame_state *f)
{
    long row = 0;
    memset(f, 0, sizeof *f);
    if (find_frame_row(ctx, path, frame_text, &row) == OP_OK && read_frame_body(ctx, path, body, with_mesh, f) == OP_OK)
        read_frame_row(ctx, path, row, f);
    return ctx->status;
}

/* The body's visual surface skinned by its particles at the frame read (Eq. 2). */
static void skin_frame(const frame_state *f, double *vertices)
{
    op_state state = { .particle_count = f->graph.particle_count, .position = f->position, .rotation = f->rotation };
    op_skin_apply(&f->skin, &f->graph, &state, f->mesh.vertices, vertices);
}

/* max_faces > 0: the coarse surface of op_mesh_cluster_faces, for pictures of big scenes. */
static int export_skinned(op_ctx *ctx, const char *path, const char *body, const char *frame, int max_faces)
{
    frame_state f;
    if (read_frame_state(ctx, path, body, frame, 1, &f) == OP_OK) {
        double *vertices = op_calloc(ctx, 3 * (size_t)f.mesh.vertex_count, sizeof *vertices);
        int *faces = f.mesh.faces, face_count = f.mesh.face_count;
        if (vertices && max_faces > 0)
            op_mesh_cluster_faces(ctx, &f.mesh, max_faces, &faces, &face_count);
        if (ctx->status == OP_OK) {
            skin_frame(&f, vertices);
            printf("# %s frame %lld time %.9g\n", body, f.frame, f.time);
            for (int t = 0; t < face_count; ++t) {
                for (int k = 0; k <= 3; ++k) {
                    const double *p = &vertices[3 * faces[3 * t + k % 3]];
                    printf("%.9g\t%.9g\t%.9g\n", p[0], p[1], p[2]);
                }
                printf("\n\n");
            }
        }
        if (faces != f.mesh.faces)
            free(faces);
        free(vertices);
    }
    frame_state_free(&f);
    return ctx->status;
}

static int export_particles(op_ctx *ctx, const char *path, const char *body, const char *frame)
{
    frame_state f;
    if (read_frame_state(ctx, path, body, frame, 0, &f) == OP_OK) {
        int n = f.graph.particle_count;
        double *axes = op_calloc(ctx, 9 * (size_t)n, sizeof *axes);
        if (axes) {
            for (int i = 0; i < n; ++i)
                m3_mul(&axes[9 * i], &f.rotation[9 * i], &f.graph.rest_axes[9 * i]);
            printf("# %s frame %lld time %.9g\n", body, f.frame, f.time);
            print_axes(&f.graph, f.position, axes);
            free(axes);
        }
    }
    frame_state_free(&f);
    return ctx->status;
}

/* DIR, made unless it exists (its parent must). */
/* The output rows `frames` names: "all", or a comma-separated list of frame indices and
 * 'last' (each checked by valid_frame_list), in the order given. */
static int select_rows(op_ctx *ctx, const char *path, const char *frames, long **rows, long *count)
{
    int64_t *steps;
    long recorded = 0;
    *rows = NULL;
    *count = 0;
    if (read_steps(ctx, path, &steps, &recorded) != OP_OK)
        return ctx->status;
    free(steps);
    int all = strcmp(frames, "all") == 0;
    long wanted = all ? recorded : 1;
    for (const char *c = frames; !all && *c; ++c)
        wanted += *c == ',';
    *rows = op_calloc(ctx, (size_t)wanted, sizeof **rows);
    if (*rows && all)
        for (*count = 0; *count < recorded; ++*count)
            (*rows)[*count] = *count;
    for (const char *item = frames; *rows && !all;) {
        char text[32];
        size_t length = strcspn(item, ",");
        snprintf(text, sizeof text, "%.*s", (int)length, item);
        if (find_frame_row(ctx, path, text, &(*rows)[(*count)++]) != OP_OK || !item[length])
            break;
        item += length + 1;
    }
    if (ctx->status != OP_OK)
        OP_FREE(*rows);
    return ctx->status;
}

/* Moves every file of the complete temporary directory `temp` into `dir`: the whole directory
 * at once when `dir` does not exist yet, else file by file (each rename atomic, each file
 * already whole). */
static int move_directory_files(op_ctx *ctx, const char *temp, const char *dir)
{
    if (rename(temp, dir) == 0)
        return OP_OK;
    if (errno != EEXIST && errno != ENOTEMPTY)
        return OP_FAIL(ctx, OP_ERR_IO, "%s: cannot rename %s onto it: %s", dir, temp, strerror(errno));
    DIR *d = opendir(temp);
    if (!d)
        return OP_FAIL(ctx, OP_ERR_IO, "%s: cannot read %s: %s", dir, temp, strerror(errno));
    struct dirent *entry;
    while (ctx->status == OP_OK && (entry = readdir(d))) {
        char from[4200], to[4200];
        if (entry->d_name[0] == '.')
            continue;
        if ((size_t)snprintf(from, sizeof from, "%s/%s", temp, entry->d_name) >= sizeof from ||
            (size_t)snprintf(to, sizeof to, "%s/%s", dir, entry->d_name) >= sizeof to)
            OP_FAIL(ctx, OP_ERR_USAGE, "%.200s...: --obj directory name too long", dir);
        else if (rename(from, to) != 0)
            OP_FAIL(ctx, OP_ERR_IO, "%s: cannot rename %s onto it: %s", to, from, strerror(errno));
    }
    closedir(d);
    return ctx->status;
}

/* Removes the temporary directory of a failed export and what was written into it. */
static void remove_directory_files(const char *temp)
{
    DIR *d = opendir(temp);
    struct dirent *entry;
    while (d && (entry = readdir(d))) {
        char file[4200];
        if (entry->d_name[0] != '.' && (size_t)snprintf(file, sizeof file, "%s/%s", temp, entry->d_name) < sizeof file)
            unlink(file);
    }
    if (d)
        closedir(d);
    rmdir(temp);
}

/* `--obj DIR`: the skinned surface of each chosen body at each chosen frame, one OBJ file each
 * (DIR/BODY-FFFFFF.obj, F the frame index, six digits so names sort). All of them are written
 * into DIR.PID.tmp first and moved into DIR only when every one is complete, so a failure
 * midway (a damaged frame, a full disk) leaves none; the paths are printed once moved. SIGINT,
 * SIGTERM and SIGHUP are held meanwhile and looked for between files: one stops the export, the
 * directory is removed, and then the signal ends the process (core/io/atomic.h). */
static int export_obj(op_ctx *ctx, const char *path, const char *dir, const char *frames, const char *only_body)
{
    char (*names)[OP_RUNFILE_NAME_SIZE] = op_calloc(ctx, OP_RUNFILE_MAX_BODIES, sizeof *names);
    long *rows = NULL, row_count = 0;
    int body_count = 0;
    if (names && select_rows(ctx, path, frames, &rows, &row_count) == OP_OK &&
        op_runfile_body_names(ctx, path, names, OP_RUNFILE_MAX_BODIES, &body_count) == OP_OK && only_body) {
        /* the one body asked for, checked before DIR is made */
        int found = 0;
        char list[1024] = "";
        for (int b = 0; b < body_count; ++b) {
            found |= strcmp(names[b], only_body) == 0;
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", b ? ", " : "", names[b]);
        }
        if (!found)
            OP_FAIL(ctx, OP_ERR_INVALID, "%s: no body %s (its bodies: %s)", path, only_body, list);
        snprintf(names[0], sizeof names[0], "%s", only_body);
        body_count = 1;
    }
    char temp[4200];
    if (ctx->status == OP_OK && (size_t)snprintf(temp, sizeof temp, "%s.%ld.tmp", dir, (long)getpid()) >= sizeof temp)
        OP_FAIL(ctx, OP_ERR_USAGE, "%.200s...: --obj directory name too long", dir);
    if (ctx->status == OP_OK) {
        op_temp_remove_stale(dir);
        op_temp_track(temp);
    }
    if (ctx->status != OP_OK || make_directory(ctx, temp) != OP_OK) {
        op_temp_untrack(temp);
        free(names);
        free(rows);
        return ctx->status;
    }
    char (*written)[4200] = op_calloc(ctx, (size_t)(body_count * row_count) + 1, sizeof *written);
    long written_count = 0;
    int interrupted = 0;
    op_temp_hold_signals();
    for (int b = 0; b < body_count && ctx->status == OP_OK && !interrupted; ++b) {
        frame_state f;
        double *vertices = NULL;
        if (read_frame_body(ctx, path, names[b], 1, &f) == OP_OK)
            vertices = op_calloc(ctx, 3 * (size_t)f.mesh.vertex_count, sizeof *vertices);
        /* the rest mesh's triangles around the skinned vertices */
        op_mesh surface = f.mesh;
        surface.vertices = vertices;
        for (long r = 0; r < row_count && ctx->status == OP_OK && !(interrupted = op_temp_signal_pending()); ++r) {
            char file[4200];
            if (read_frame_row(ctx, path, rows[r], &f) != OP_OK)
                break;
            skin_frame(&f, vertices);
            if ((size_t)snprintf(file, sizeof file, "%s/%s-%06lld.obj", temp, names[b], f.frame) >= sizeof file) {
                OP_FAIL(ctx, OP_ERR_USAGE, "%.200s...: --obj directory name too long", dir);
                break;
            }
            if (op_mesh_write_obj(ctx, file, &surface) == OP_OK)
                snprintf(written[written_count++], sizeof *written, "%s/%s-%06lld.obj", dir, names[b], f.frame);
        }
        free(vertices);
        frame_state_free(&f);
    }
    if (ctx->status == OP_OK && !interrupted && move_directory_files(ctx, temp, dir) == OP_OK)
        for (long w = 0; w < written_count; ++w)
            printf("%s\n", written[w]);
    remove_directory_files(temp);
    op_temp_untrack(temp);
    op_temp_release_signals();
    free(written);
    free(names);
    free(rows);
    return ctx->status;
}

/* A frame is a non-negative whole number or "last". */
static int valid_frame_text(const char *text)
{
    if (strcmp(text, "last") == 0)
        return 1;
    char *end;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    return !errno && end != text && !*end && value >= 0;
}

/* `--frames`: "all", or frame indices and 'last' separated by commas. */
static int valid_frame_list(const char *text)
{
    if (strcmp(text, "all") == 0)
        return 1;
    for (const char *item = text;; ++item) {
        char one[32];
        size_t length = strcspn(item, ",");
        if (length == 0 || length >= sizeof one)
            return 0;
        snprintf(one, sizeof one, "%.*s", (int)length, item);
        if (!valid_frame_text(one))
            return 0;
        item += length;
        if (!*item)
            return 1;
    }
}

int command_export(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--help") == 0) {
        fputs(export_help, stdout);
        return 0;
    }
    op_ctx ctx;
    op_ctx_init(&ctx);
    if (argc == 4 && strcmp(argv[2], "--triangles") == 0)
        export_triangles(&ctx, argv[1], argv[3]);
    else if (argc == 4 && strcmp(argv[2], "--axes") == 0)
        export_axes(&ctx, argv[1], argv[3]);
    else if (argc == 3 && argv[2][0] != '-')
        op_runfile_export_tsv(&ctx, argv[1], argv[2], stdout);
    else if (argc == 5 && strcmp(argv[2], "--attribute") == 0) {
        double value;
        if (op_runfile_read_attribute_double(&ctx, argv[1], argv[3], argv[4], &value) == OP_OK)
            printf("%.17g\n", value);
    } else if (argc >= 3 && argv[1][0] != '-' &&
             (strcmp(argv[2], "--skinned") == 0 || strcmp(argv[2], "--particles") == 0 ||
              strcmp(argv[2], "--frame") == 0)) {
        /* RUN (--skinned BODY [--faces N] | --particles BODY) --frame F, the options in any order. */
        const char *what = NULL, *body = NULL, *frame = NULL, *faces = NULL;
        for (int i = 2; i < argc; i += 2) {
            if (i + 1 >= argc || argv[i + 1][0] == '\0')
                return usage_error("export", "%s needs a value", argv[i]);
            if (strcmp(argv[i], "--frame") == 0 && !frame)
                frame = argv[i + 1];
            else if (strcmp(argv[i], "--faces") == 0 && !faces)
                faces = argv[i + 1];
            else if ((strcmp(argv[i], "--skinned") == 0 || strcmp(argv[i], "--particles") == 0) && !what) {
                what = argv[i];
                body = argv[i + 1];
            } else
                return usage_error("export", "unexpected '%s': give one --skinned BODY or --particles BODY and one --frame F", argv[i]);
        }
        if (!what)
            return usage_error("export", "%s", "--frame goes with --skinned BODY or --particles BODY");
        if (!frame)
            return usage_error("export", "%s needs --frame F (a frame index or 'last')", what);
        if (!valid_frame_text(frame))
            return usage_error("export", "--frame needs a frame index (0, 1, ...) or 'last', not '%s'", frame);
        long max_faces = 0;
        if (faces) {
            char *end;
            max_faces = strtol(faces, &end, 10);
            if (*end || end == faces || max_faces < 1 || max_faces > INT_MAX || strcmp(what, "--skinned") != 0)
                return usage_error("export", "--faces goes with --skinned and needs a whole number of triangles "
                                   "(1 or more), not '%s'", faces);
        }
        if (strcmp(what, "--skinned") == 0)
            export_skinned(&ctx, argv[1], body, frame, (int)max_faces);
        else
            export_particles(&ctx, argv[1], body, frame);
    } else if (argc >= 4 && argv[1][0] != '-' &&
               (strcmp(argv[2], "--obj") == 0 || strcmp(argv[2], "--frames") == 0 || strcmp(argv[2], "--body") == 0)) {
        /* RUN --obj DIR [--frames LIST] [--body NAME], the options in any order */
        static const char *const option[3] = { "--obj", "--frames", "--body" };
        const char *value[3] = { NULL, NULL, NULL };
        for (int i = 2; i < argc; i += 2) {
            int k = 0;
            while (k < 3 && strcmp(argv[i], option[k]) != 0)
                ++k;
            if (k == 3 || value[k])
                return usage_error("export", "unexpected '%s': give --obj DIR, at most one --frames LIST and one --body NAME",
                                   argv[i]);
            if (i + 1 >= argc || argv[i + 1][0] == '\0')
                return usage_error("export", "%s needs a value", argv[i]);
            value[k] = argv[i + 1];
        }
        const char *frames = value[1] ? value[1] : "all";
        if (!value[0])
            return usage_error("export", "%s", "--frames and --body go with --obj DIR");
        if (!valid_frame_list(frames))
            return usage_error("export", "--frames needs 'all', or frame indices and 'last' separated by commas "
                               "(e.g. 0,30,last), not '%s'", frames);
        export_obj(&ctx, argv[1], value[0], frames, value[2]);
    } else
        return usage_error("export", "%s",
                           "give RUN.h5 and a DATASET, --triangles BODY, --axes BODY, "
                           "--skinned BODY / --particles BODY with --frame F, --obj DIR, or --attribute OBJECT NAME");
    return ctx.status == OP_OK ? 0 : report_failure(&ctx);
}
