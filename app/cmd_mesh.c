/* `opsim mesh`: prepares a mesh for the scenes. Reads a mesh (OFF or OBJ) or generates a shape,
 * turns the named axis to +y, scales it uniformly to a longest extent in metres, centres its
 * bounding box on the origin and writes OBJ. `make data` runs it on every mesh of
 * data/meshes.tsv.
 *
 * usage: opsim mesh (FILE | --shape bar|sheet|column|torus|cube) [--fit SIZE] [--up AXIS] --out OUT.obj */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/math3.h"
#include "commands.h"

const char app_mesh_usage[] =
    "usage: opsim mesh (FILE | --shape bar|sheet|column|torus|cube) [--fit SIZE] [--up AXIS] --out OUT.obj\n"
    "\n"
    "Reads a mesh (OFF or OBJ) or generates a shape, optionally rotates AXIS (x, y, z, -x, -y, -z)\n"
    "to +y and scales it uniformly so its longest bounding-box extent is SIZE metres, centres its\n"
    "bounding box on the origin, and writes it as OBJ. `make data` uses it to prepare the meshes.\n";

typedef struct mesh_options {
    const char *input, *shape, *out, *up;
    double fit; /* 0: keep the size */
} mesh_options;

/* Rotation taking the named axis to +y (a right-handed axis permutation or half turn). */
static int up_rotation(const char *axis, double rotation[9])
{
    static const struct { const char *name; double m[9]; } table[] = {
        { "y", { 1, 0, 0, 0, 1, 0, 0, 0, 1 } },   { "-y", { 1, 0, 0, 0, -1, 0, 0, 0, -1 } },
        { "z", { 1, 0, 0, 0, 0, 1, 0, -1, 0 } },  { "-z", { 1, 0, 0, 0, 0, -1, 0, 1, 0 } },
        { "x", { 0, 1, 0, -1, 0, 0, 0, 0, 1 } },  { "-x", { 0, -1, 0, 1, 0, 0, 0, 0, 1 } },
    };
    for (size_t k = 0; k < sizeof table / sizeof table[0]; ++k)
        if (strcmp(axis, table[k].name) == 0) {
            m3_copy(rotation, table[k].m);
            return 0;
        }
    return -1;
}

/* Rotates every vertex, then centres the bounding box on the origin and scales the longest
 * extent to `fit` (when > 0). */
static void place_mesh(op_mesh *mesh, const double rotation[9], double fit)
{
    for (int v = 0; v < mesh->vertex_count; ++v)
        m3_mul_v(&mesh->vertices[3 * v], rotation, &mesh->vertices[3 * v]);
    double lo[3], hi[3], center[3], extent[3];
    op_mesh_bounds(mesh, lo, hi);
    v3_sub(extent, hi, lo);
    v3_add(center, lo, hi);
    v3_scale(center, center, 0.5);
    double longest = fmax(extent[0], fmax(extent[1], extent[2]));
    double scale = fit > 0 && longest > 0 ? fit / longest : 1.0;
    for (int v = 0; v < mesh->vertex_count; ++v) {
        double *p = &mesh->vertices[3 * v];
        v3_sub(p, p, center);
        v3_scale(p, p, scale);
    }
}

/* -1 when the options are complete, else the exit status (0 after --help). */
static int parse_mesh_options(const app_call *call, mesh_options *o)
{
    static const struct option options[] = { { "shape", required_argument, 0, 's' },
                                              { "fit", required_argument, 0, 'f' },
                                              { "up", required_argument, 0, 'u' },
                                              { "out", required_argument, 0, 'o' },
                                              { "help", no_argument, 0, 'h' },
                                              { 0, 0, 0, 0 } };
    *o = (mesh_options){ .up = "y" };
    int c;
    while ((c = getopt_long(call->argc, call->argv, "", options, NULL)) != -1) {
        switch (c) {
        case 's': o->shape = optarg; break;
        case 'f':
            if (app_parse_positive(optarg, &o->fit))
                return app_usage_error("mesh", "--fit needs a positive size in metres, not '%s'", optarg);
            break;
        case 'u': o->up = optarg; break;
        case 'o': o->out = optarg; break;
        case 'h': fputs(app_mesh_usage, stdout); return 0;
        default: return app_usage_error("mesh", "%s", "unknown option");
        }
    }
    o->input = optind < call->argc ? call->argv[optind] : NULL;
    if (!!o->input == !!o->shape || optind + (o->input ? 1 : 0) != call->argc)
        return app_usage_error("mesh", "%s", "give exactly one input: a mesh FILE or --shape NAME");
    if (!o->out)
        return app_usage_error("mesh", "%s", "--out OUT.obj is required");
    return -1;
}

int app_mesh(const app_call *call)
{
    mesh_options o;
    int status = parse_mesh_options(call, &o);
    if (status >= 0)
        return status;
    double rotation[9];
    if (up_rotation(o.up, rotation))
        return app_usage_error("mesh", "--up must be x, y, z, -x, -y or -z, not '%s'", o.up);
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_mesh mesh;
    if (app_load_input_mesh(&ctx, o.input, o.shape, &mesh) != OP_OK)
        return app_report_failure(&ctx);
    place_mesh(&mesh, rotation, o.fit);
    op_mesh_write_obj(&ctx, o.out, &mesh);
    op_mesh_free(&mesh);
    return app_exit_status(&ctx);
}
