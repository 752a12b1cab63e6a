/* opsim mesh: prepare a mesh (rotate, scale to metres) and write it as OBJ. */
#include "app.h"

#include <getopt.h>

#include "base/math3.h"

static const char mesh_help[] =
    "usage: opsim mesh (FILE | --shape bar|sheet|column|torus|cube) [--fit SIZE] [--up AXIS] --out OUT.obj\n"
    "\n"
    "Reads a mesh (OFF or OBJ) or generates a shape, optionally rotates AXIS (x, y, z, -x, -y, -z)\n"
    "to +y and scales it uniformly so its longest bounding-box extent is SIZE metres, centres its\n"
    "bounding box on the origin, and writes it as OBJ. `make data` uses it to prepare the meshes.\n";

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

int command_mesh(int argc, char **argv, const app_call *call)
{
    (void)call;
    static const struct option options[] = { { "shape", required_argument, 0, 's' },
                                              { "fit", required_argument, 0, 'f' },
                                              { "up", required_argument, 0, 'u' },
                                              { "out", required_argument, 0, 'o' },
                                              { "help", no_argument, 0, 'h' },
                                              { 0, 0, 0, 0 } };
    const char *shape = NULL, *out = NULL, *up = "y";
    double fit = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (c) {
        case 's': shape = optarg; break;
        case 'f':
            if (parse_positive(optarg, &fit))
                return usage_error("mesh", "--fit needs a positive size in metres, not '%s'", optarg);
            break;
        case 'u': up = optarg; break;
        case 'o': out = optarg; break;
        case 'h': fputs(mesh_help, stdout); return 0;
        default: return usage_error("mesh", "%s", "unknown option");
        }
    }
    const char *input = optind < argc ? argv[optind] : NULL;
    if (!!input == !!shape || optind + (input ? 1 : 0) != argc)
        return usage_error("mesh", "%s", "give exactly one input: a mesh FILE or --shape NAME");
    if (!out)
        return usage_error("mesh", "%s", "--out OUT.obj is required");
    double rotation[9];
    if (up_rotation(up, rotation))
        return usage_error("mesh", "--up must be x, y, z, -x, -y or -z, not '%s'", up);
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_mesh mesh;
    if (load_input_mesh(&ctx, input, shape, &mesh) != OP_OK)
        return report_failure(&ctx);
    for (int v = 0; v < mesh.vertex_count; ++v)
        m3_mul_v(&mesh.vertices[3 * v], rotation, &mesh.vertices[3 * v]);
    double lo[3], hi[3], center[3], extent[3];
    op_mesh_bounds(&mesh, lo, hi);
    v3_sub(extent, hi, lo);
    v3_add(center, lo, hi);
    v3_scale(center, center, 0.5);
    double longest = fmax(extent[0], fmax(extent[1], extent[2]));
    double scale = fit > 0 && longest > 0 ? fit / longest : 1.0;
    for (int v = 0; v < mesh.vertex_count; ++v) {
        double *p = &mesh.vertices[3 * v];
        v3_sub(p, p, center);
        v3_scale(p, p, scale);
    }
    op_mesh_write_obj(&ctx, out, &mesh);
    op_mesh_free(&mesh);
    return ctx.status == OP_OK ? 0 : report_failure(&ctx);
}
