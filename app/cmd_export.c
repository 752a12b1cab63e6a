/* `opsim export`: a run file's contents as text for gnuplot (a dataset, the rest surface or
 * axes, the skinned surface or particle axes at one frame, one attribute) or its skinned
 * surface as OBJ files (app/export_obj.c). Runs in the guarded child of app/files.c: a damaged
 * run file exits 65. The forms and their output are in `usage` below.
 *
 * `--substeps` makes --skinned, --particles and --obj read every sub-step's state (/substeps,
 * `[run] output = substeps`) instead of the output frames: F then names a sub-step.
 *
 * usage: opsim export RUN.h5 DATASET
 *        opsim export RUN.h5 --triangles BODY | --axes BODY
 *        opsim export RUN.h5 --skinned BODY --frame F [--faces N] [--substeps]
 *        opsim export RUN.h5 --particles BODY --frame F [--substeps]
 *        opsim export RUN.h5 --obj DIR [--frames all|last|F,F,...] [--body BODY] [--substeps]
 *        opsim export RUN.h5 --attribute OBJECT NAME */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/math3.h"
#include "commands.h"
#include "export.h"
#include "opsim/runfile.h"

const char app_export_usage[] =
    "usage: opsim export RUN.h5 DATASET\n"
    "       opsim export RUN.h5 --triangles BODY | --axes BODY\n"
    "       opsim export RUN.h5 --skinned BODY --frame F [--faces N] [--substeps]\n"
    "       opsim export RUN.h5 --particles BODY --frame F [--substeps]\n"
    "       opsim export RUN.h5 --obj DIR [--frames all|last|F,F,...] [--body BODY] [--substeps]\n"
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
    "--substeps: --skinned, --particles and --obj read the state after every sub-step (/substeps,\n"
    "stored by a run with '--set run.output=substeps') instead of the output frames: F and the\n"
    "--frames list name sub-steps (0 the start, S after S sub-steps), the comment line says\n"
    "'# BODY sub-step S time T' and the OBJ files are DIR/BODY-substep-SSSSSS.obj. A run that\n"
    "stored no sub-steps is an error.\n"
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

/* max_faces > 0: the coarse surface of op_mesh_cluster_faces, for pictures of big scenes. */
static int export_skinned(op_ctx *ctx, const char *path, const char *group, const char *body, const char *frame,
                          int max_faces)
{
    app_frame_state f;
    if (app_read_frame_state(ctx, path, group, body, frame, 1, &f) == OP_OK) {
        double *vertices = op_calloc(ctx, 3 * (size_t)f.mesh.vertex_count, sizeof *vertices);
        int *faces = f.mesh.faces, face_count = f.mesh.face_count;
        if (vertices && max_faces > 0)
            op_mesh_cluster_faces(ctx, &f.mesh, max_faces, &faces, &face_count);
        if (ctx->status == OP_OK) {
            app_skin_frame(&f, vertices);
            printf("# %s %s %lld time %.9g\n", body, app_state_word(group), f.frame, f.time);
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
    app_frame_state_free(&f);
    return ctx->status;
}

static int export_particles(op_ctx *ctx, const char *path, const char *group, const char *body, const char *frame)
{
    app_frame_state f;
    if (app_read_frame_state(ctx, path, group, body, frame, 0, &f) == OP_OK) {
        int n = f.graph.particle_count;
        double *axes = op_calloc(ctx, 9 * (size_t)n, sizeof *axes);
        if (axes) {
            for (int i = 0; i < n; ++i)
                m3_mul(&axes[9 * i], &f.rotation[9 * i], &f.graph.rest_axes[9 * i]);
            printf("# %s %s %lld time %.9g\n", body, app_state_word(group), f.frame, f.time);
            print_axes(&f.graph, f.position, axes);
            free(axes);
        }
    }
    app_frame_state_free(&f);
    return ctx->status;
}

/* `RUN (--skinned BODY [--faces N] | --particles BODY) --frame F`, the options in any order. */
typedef struct frame_options {
    const char *what, *body, *frame, *faces;
    long max_faces; /* 0: the whole surface */
} frame_options;

/* -1 when the options are complete, else the exit status. */
static int parse_frame_options(const app_call *call, frame_options *o)
{
    char **argv = call->argv;
    *o = (frame_options){ 0 };
    for (int i = 2; i < call->argc; i += 2) {
        if (i + 1 >= call->argc || argv[i + 1][0] == '\0')
            return app_usage_error("export", "%s needs a value", argv[i]);
        if (strcmp(argv[i], "--frame") == 0 && !o->frame)
            o->frame = argv[i + 1];
        else if (strcmp(argv[i], "--faces") == 0 && !o->faces)
            o->faces = argv[i + 1];
        else if ((strcmp(argv[i], "--skinned") == 0 || strcmp(argv[i], "--particles") == 0) && !o->what) {
            o->what = argv[i];
            o->body = argv[i + 1];
        } else
            return app_usage_error("export",
                                   "unexpected '%s': give one --skinned BODY or --particles BODY and one --frame F",
                                   argv[i]);
    }
    if (!o->what)
        return app_usage_error("export", "%s", "--frame goes with --skinned BODY or --particles BODY");
    if (!o->frame)
        return app_usage_error("export", "%s needs --frame F (a frame index or 'last')", o->what);
    if (!app_valid_frame_text(o->frame))
        return app_usage_error("export", "--frame needs a frame index (0, 1, ...) or 'last', not '%s'", o->frame);
    if (o->faces) {
        char *end;
        o->max_faces = strtol(o->faces, &end, 10);
        if (*end || end == o->faces || o->max_faces < 1 || o->max_faces > INT_MAX || strcmp(o->what, "--skinned") != 0)
            return app_usage_error("export",
                                   "--faces goes with --skinned and needs a whole number of triangles "
                                   "(1 or more), not '%s'",
                                   o->faces);
    }
    return -1;
}

static int export_frame(const app_call *call, const char *group)
{
    frame_options o;
    int status = parse_frame_options(call, &o);
    if (status >= 0)
        return status;
    op_ctx ctx;
    op_ctx_init(&ctx);
    if (strcmp(o.what, "--skinned") == 0)
        export_skinned(&ctx, call->argv[1], group, o.body, o.frame, (int)o.max_faces);
    else
        export_particles(&ctx, call->argv[1], group, o.body, o.frame);
    return app_exit_status(&ctx);
}

/* `RUN --obj DIR [--frames LIST] [--body NAME]`, the options in any order. */
static int export_obj_files(const app_call *call, const char *group)
{
    static const char *const option[3] = { "--obj", "--frames", "--body" };
    const char *value[3] = { NULL, NULL, NULL };
    char **argv = call->argv;
    for (int i = 2; i < call->argc; i += 2) {
        int k = 0;
        while (k < 3 && strcmp(argv[i], option[k]) != 0)
            ++k;
        if (k == 3 || value[k])
            return app_usage_error(
                "export", "unexpected '%s': give --obj DIR, at most one --frames LIST and one --body NAME", argv[i]);
        if (i + 1 >= call->argc || argv[i + 1][0] == '\0')
            return app_usage_error("export", "%s needs a value", argv[i]);
        value[k] = argv[i + 1];
    }
    const char *frames = value[1] ? value[1] : "all";
    if (!value[0])
        return app_usage_error("export", "%s", "--frames and --body go with --obj DIR");
    if (!app_valid_frame_list(frames))
        return app_usage_error("export",
                               "--frames needs 'all', or frame indices and 'last' separated by commas "
                               "(e.g. 0,30,last), not '%s'",
                               frames);
    op_ctx ctx;
    op_ctx_init(&ctx);
    app_export_obj(&ctx, argv[1], group, value[0], frames, value[2]);
    return app_exit_status(&ctx);
}

/* The forms of a fixed length: a dataset, --triangles, --axes, --attribute. 0 when `call` is
 * none of them, else 1 with ctx holding the outcome. */
static int export_fixed_form(op_ctx *ctx, const app_call *call)
{
    int argc = call->argc;
    char **argv = call->argv;
    if (argc == 4 && strcmp(argv[2], "--triangles") == 0)
        export_triangles(ctx, argv[1], argv[3]);
    else if (argc == 4 && strcmp(argv[2], "--axes") == 0)
        export_axes(ctx, argv[1], argv[3]);
    else if (argc == 3 && argv[2][0] != '-')
        op_runfile_export_tsv(ctx, argv[1], argv[2], stdout);
    else if (argc == 5 && strcmp(argv[2], "--attribute") == 0) {
        double value;
        if (op_runfile_read_attribute_double(ctx, argv[1], argv[3], argv[4], &value) == OP_OK)
            printf("%.17g\n", value);
    } else
        return 0;
    return 1;
}

/* RUN.h5 then argv[2] one of `first` (NULL-terminated), with at least `least` arguments. */
static int is_form(const app_call *call, int least, const char *const *first)
{
    if (call->argc < least || call->argv[1][0] == '-')
        return 0;
    for (; *first; ++first)
        if (strcmp(call->argv[2], *first) == 0)
            return 1;
    return 0;
}

/* `call` without its `--substeps` flag, into `kept` (argv with room for call->argc + 1): the
 * options after RUN.h5 come as pairs of a name and its value, so the flag is a `--substeps`
 * where a name is due. 1 when there was one. */
static int drop_substeps_flag(const app_call *call, app_call *kept, char **argv)
{
    int found = 0;
    *kept = *call;
    kept->argv = argv;
    kept->argc = 0;
    for (int a = 0; a < call->argc; ++a) {
        if (a >= 2 && strcmp(call->argv[a], "--substeps") == 0) {
            found = 1;
            continue;
        }
        argv[kept->argc++] = call->argv[a];
        if (a >= 2 && a + 1 < call->argc)
            argv[kept->argc++] = call->argv[++a];
    }
    argv[kept->argc] = NULL;
    return found;
}

int app_export(const app_call *call)
{
    static const char *const frame_form[] = { "--skinned", "--particles", "--frame", NULL };
    static const char *const obj_form[] = { "--obj", "--frames", "--body", NULL };
    if (call->argc == 2 && strcmp(call->argv[1], "--help") == 0) {
        fputs(app_export_usage, stdout);
        return 0;
    }
    op_ctx ctx;
    op_ctx_init(&ctx);
    char **argv = op_calloc(&ctx, (size_t)call->argc + 1, sizeof *argv);
    if (!argv)
        return app_exit_status(&ctx);
    app_call kept;
    const char *group = drop_substeps_flag(call, &kept, argv) ? APP_SUBSTEPS : APP_FRAMES;
    int status;
    if (strcmp(group, APP_SUBSTEPS) != 0 && export_fixed_form(&ctx, call))
        status = app_exit_status(&ctx);
    else if (is_form(&kept, 3, frame_form))
        status = export_frame(&kept, group);
    else if (is_form(&kept, 4, obj_form))
        status = export_obj_files(&kept, group);
    else if (strcmp(group, APP_SUBSTEPS) == 0)
        status = app_usage_error("export", "%s", "--substeps goes with --skinned BODY, --particles BODY or --obj DIR");
    else
        status = -1;
    free(argv);
    if (status >= 0)
        return status;
    return app_usage_error("export", "%s",
                           "give RUN.h5 and a DATASET, --triangles BODY, --axes BODY, "
                           "--skinned BODY / --particles BODY with --frame F, --obj DIR, or --attribute OBJECT NAME");
}
