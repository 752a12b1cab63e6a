/* `opsim graph`: builds one body's oriented-particle graph and skinning from a mesh, a shape or
 * a catalogue model (docs/graph-construction.md), through the graph cache, and writes
 * /graph/BODY and /mesh/BODY to a new run file.
 *
 * usage: opsim graph (--mesh FILE | --shape NAME) --kind solid|rod|shell|lattice --particles N
 *                    [--seed S] [--density RHO] [--voxels R] [--lloyd N] [--edges RULE]
 *                    [--skin-k K] [--name BODY] [--no-cache] --out RUN.h5
 *        opsim graph --model NAME [--catalogue FILE] [...] --out RUN.h5 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/paths.h"
#include "commands.h"
#include "geometry/build.h"
#include "geometry/graph_cache.h"
#include "geometry/model.h"
#include "opsim/runfile.h"

const char app_graph_usage[] =
    "usage: opsim graph (--mesh FILE | --shape bar|sheet|column|torus|cube|cloth|cube18|cube27)\n"
    "                   --kind solid|rod|shell|lattice\n"
    "                   --particles N [--seed S] [--density RHO] [--voxels R] [--lloyd N]\n"
    "                   [--edges faces|overlap:S] [--skin-k K] [--name BODY] [--no-cache] --out RUN.h5\n"
    "       opsim graph --model NAME [--catalogue FILE] [--seed S] [--density RHO] [--voxels R]\n"
    "                   [--lloyd N] [--skin-k K] [--name BODY] [--no-cache] --out RUN.h5\n"
    "\n"
    "Builds one body's oriented-particle graph and skinning (docs/graph-construction.md) and\n"
    "writes /graph/BODY and /mesh/BODY to a new run file.\n"
    "  --model NAME   a model of the catalogue (default: found as docs/data.md says) as a scene builds it,\n"
    "                 its source, kind and particles from its row (the way to build a joined one)\n"
    "  --particles N  solid and rod: exactly N particles; shell: the nearest u x v grid;\n"
    "                 lattice: the nearest u x v x w grid, joined to its 26 neighbours\n"
    "  --seed S       solid: seeds the first farthest-point sample (default 1)\n"
    "  --density RHO  kg/m^3 (default 1000)\n"
    "  --voxels R     voxel cells along the longest extent (default 96)\n"
    "  --lloyd N      most Lloyd iterations for solids (default 30)\n"
    "  --edges RULE   faces: cells sharing enough voxel faces (default); overlap:S: also\n"
    "                 particles whose ellipsoids, scaled by S in (0, 10], meet on the line\n"
    "                 between their centres, that line inside the solid (denser graphs)\n"
    "  --skin-k K     particles influencing each visual vertex (default 4)\n"
    "  --name BODY    body name in the run file (default: the mesh file or shape name)\n"
    "  --no-cache     build the graph even when the graph cache holds it (docs/components.md, \"graph cache\")\n";

typedef struct graph_options {
    op_build_def def;
    const char *mesh_path, *shape, *model_name, *catalogue, *name, *out;
    int have_kind, have_particles, have_edges;
} graph_options;

/* The body as built: its parts, how it was built, and its names. */
typedef struct graph_body {
    op_build_def def;
    op_build_report built;
    op_mesh mesh;
    op_graph graph;
    op_skin skin;
    char name[4200];   /* in the run file */
    char source[4200]; /* the mesh path, "shape:NAME", or the model's source */
} graph_body;

/* Body name from a path: the file name without directory and extension. */
static void body_name_from_path(const char *path, char *name, size_t size)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(name, size, "%s", base);
    char *dot = strrchr(name, '.');
    if (dot && dot != name)
        *dot = '\0';
}

/* Puts "INPUT: " before a failure's message that does not name the input already (the
 * builder's "voxelize: the mesh is not closed" knows no file name); returns 0 so that it can
 * sit in a condition after the failed call. */
static int name_input(op_ctx *ctx, const char *input)
{
    size_t length = strlen(input), used = strlen(ctx->message);
    if (strncmp(ctx->message, input, length) == 0 || length + 2 + used >= sizeof ctx->message)
        return 0;
    memmove(ctx->message + length + 2, ctx->message, used + 1);
    memcpy(ctx->message, input, length);
    memcpy(ctx->message + length, ": ", 2);
    return 0;
}

/* One option of the build definition: -1 when taken, else the exit status of its bad value. */
static int parse_build_option(int c, const char *value, graph_options *o)
{
    op_build_def *def = &o->def;
    switch (c) {
    case 'k':
        if (op_body_kind_parse(value, &def->kind))
            return app_usage_error("graph", "--kind must be solid, rod, shell or lattice, not '%s'", value);
        o->have_kind = 1;
        return -1;
    case 'n':
        if (app_parse_int(value, 1, 1000000, &def->particles))
            return app_usage_error("graph", "--particles needs a whole number from 1 to 1000000, not '%s'", value);
        o->have_particles = 1;
        return -1;
    case 'S':
        if (app_parse_u64(value, &def->seed))
            return app_usage_error("graph", "--seed needs a non-negative whole number, not '%s'", value);
        return -1;
    case 'd':
        if (app_parse_positive(value, &def->density))
            return app_usage_error("graph", "--density needs a positive number in kg/m^3, not '%s'", value);
        return -1;
    case 'v':
        if (app_parse_int(value, 4, 2048, &def->voxel_resolution))
            return app_usage_error("graph", "--voxels needs a whole number from 4 to 2048, not '%s'", value);
        return -1;
    case 'l':
        if (app_parse_int(value, 0, 100000, &def->lloyd_iterations))
            return app_usage_error("graph", "--lloyd needs a whole number from 0 to 100000, not '%s'", value);
        return -1;
    case 'e':
        if (op_edge_rule_parse(value, &def->overlap_scale))
            return app_usage_error("graph", "--edges must be faces or overlap:S with S in (0, 10], not '%s'", value);
        o->have_edges = 1;
        return -1;
    default:
        if (app_parse_int(value, 1, OP_SKIN_MAX_K, &def->skin_k))
            return app_usage_error("graph", "--skin-k needs a whole number from 1 to 8, not '%s'", value);
        return -1;
    }
}

/* -1 when the options name one input and what it needs, else the exit status (0 after --help). */
static int check_graph_options(const app_call *call, const graph_options *o)
{
    if (optind != call->argc)
        return app_usage_error("graph", "unexpected argument '%s'", call->argv[optind]);
    if (!!o->mesh_path + !!o->shape + !!o->model_name != 1)
        return app_usage_error("graph", "%s", "give exactly one of --mesh FILE, --shape NAME and --model NAME");
    if (o->model_name ? o->have_kind || o->have_particles || o->have_edges || !o->out
                      : !o->have_kind || !o->have_particles || !o->out)
        return app_usage_error("graph", "%s",
                               o->model_name
                                   ? "--out is required, and --kind, --particles and --edges come from the catalogue"
                                   : "--kind, --particles and --out are required");
    return -1;
}

static int parse_graph_options(const app_call *call, graph_options *o)
{
    static const struct option options[] = {
        { "mesh", required_argument, 0, 'm' },      { "shape", required_argument, 0, 's' },
        { "kind", required_argument, 0, 'k' },      { "particles", required_argument, 0, 'n' },
        { "seed", required_argument, 0, 'S' },      { "density", required_argument, 0, 'd' },
        { "voxels", required_argument, 0, 'v' },    { "lloyd", required_argument, 0, 'l' },
        { "skin-k", required_argument, 0, 'K' },    { "name", required_argument, 0, 'N' },
        { "edges", required_argument, 0, 'e' },     { "out", required_argument, 0, 'o' },
        { "help", no_argument, 0, 'h' },            { "model", required_argument, 0, 'M' },
        { "catalogue", required_argument, 0, 'C' }, { "no-cache", no_argument, 0, 'c' },
        { 0, 0, 0, 0 }
    };
    *o = (graph_options){ .def = op_default_build_def(), .catalogue = NULL };
    int c, status;
    while ((c = getopt_long(call->argc, call->argv, "", options, NULL)) != -1) {
        switch (c) {
        case 'm': o->mesh_path = optarg; break;
        case 's': o->shape = optarg; break;
        case 'N': o->name = optarg; break;
        case 'o': o->out = optarg; break;
        case 'M': o->model_name = optarg; break;
        case 'C': o->catalogue = optarg; break;
        case 'c': setenv("OPSIM_GRAPH_CACHE", "off", 1); break;
        case 'h': fputs(app_graph_usage, stdout); return 0;
        case 'k': case 'n': case 'S': case 'd': case 'v': case 'l': case 'e': case 'K':
            if ((status = parse_build_option(c, optarg, o)) >= 0)
                return status;
            break;
        default: return app_usage_error("graph", "%s", "unknown option");
        }
    }
    return check_graph_options(call, o);
}

/* The catalogue's model, its parts moved into `body` (freed with it). */
static int load_model(op_ctx *ctx, const graph_options *o, graph_body *body)
{
    op_model model = { 0 };
    body->def.particles = 0; /* the catalogue's */
    char found[4096];
    const char *catalogue = o->catalogue;
    if (!catalogue) {
        if (op_default_catalogue(ctx, NULL, found, sizeof found) != OP_OK)
            return ctx->status;
        catalogue = found;
    }
    if (op_model_load(ctx, catalogue, o->model_name, &body->def, &model) != OP_OK)
        return ctx->status;
    body->def = model.build;
    body->built = model.built;
    snprintf(body->source, sizeof body->source, "%s", model.source);
    body->mesh = model.mesh, body->graph = model.graph, body->skin = model.skin;
    return OP_OK;
}

/* A mesh given by path shares the catalogue's graph cache (paths.h); with no catalogue in
 * reach and no OPSIM_GRAPH_CACHE, it is built uncached rather than leaving a cache folder in
 * whatever directory the command ran in. */
static int graph_cache_for_meshes(op_ctx *ctx, char *cache, size_t size)
{
    char catalogue[4096] = "";
    op_ctx probe = { 0 };
    if (getenv("OPSIM_GRAPH_CACHE") == NULL && op_default_catalogue(&probe, NULL, catalogue, sizeof catalogue) != OP_OK) {
        cache[0] = '\0';
        return OP_OK;
    }
    return op_graph_cache_beside(ctx, catalogue, cache, size);
}

/* The mesh or shape, its graph built or taken from the graph cache. */
static int build_from_mesh(op_ctx *ctx, const graph_options *o, graph_body *body)
{
    char cache[4096];
    if (app_load_input_mesh(ctx, o->mesh_path, o->shape, &body->mesh) == OP_OK &&
        graph_cache_for_meshes(ctx, cache, sizeof cache) == OP_OK &&
        op_build_body_cached(ctx, cache[0] ? cache : NULL, body->name, &body->mesh, &body->def, &body->graph,
                             &body->skin, &body->built, NULL) != OP_OK)
        name_input(ctx, body->source);
    return ctx->status;
}

static int write_body(op_ctx *ctx, const graph_options *o, const graph_body *body, const char *command_line)
{
    op_runfile run = { .file = -1 };
    op_provenance prov = { .command_line = command_line, .config_text = "", .seed = body->def.seed };
    op_body_info info = { .kind = op_body_kind_name(body->def.kind),
                          .source = body->source,
                          .particles_requested = body->def.particles,
                          .seed = body->def.seed,
                          .voxel_resolution = body->built.voxel_resolution };
    if (op_runfile_create(ctx, &run, o->out, &prov) == OP_OK &&
        op_runfile_write_body(ctx, &run, body->name, &info, &body->graph, &body->mesh, &body->skin) == OP_OK)
        op_runfile_commit(ctx, &run);
    if (ctx->status != OP_OK)
        op_runfile_abort(&run);
    return ctx->status;
}

/* What the builder changed on its own (stderr), then one line on what was written. */
static void print_built(const graph_options *o, const graph_body *body)
{
    const op_build_report *built = &body->built;
    /* a joined model is built from its parts' builds and reports no resolution of its own */
    if (built->voxel_resolution > 0 && built->voxel_resolution != body->def.voxel_resolution)
        fprintf(stderr,
                "%s: %s: built at %d voxels, not %d: the interior there was in pieces, or too few voxels for "
                "the particles (docs/graph-construction.md, section 1)\n",
                app_program, body->source, built->voxel_resolution, body->def.voxel_resolution);
    if (built->islands_dropped)
        fprintf(stderr, "%s: %s: %d stray voxel islands (%d voxels) dropped\n", app_program, body->source,
                built->islands_dropped, built->island_voxels);
    printf("%s: %s %d particles, %d edges, %d vertices, %d faces (%d triangles) -> %s\n", body->name,
           op_body_kind_name(body->def.kind), body->graph.particle_count, body->graph.edge_count,
           body->mesh.vertex_count, body->mesh.polygon_count, body->mesh.face_count, o->out);
}

int app_graph(const app_call *call)
{
    graph_options o;
    int status = parse_graph_options(call, &o);
    if (status >= 0)
        return status;
    graph_body body = { .def = o.def };
    body_name_from_path(o.name ? o.name : o.model_name ? o.model_name : o.shape ? o.shape : o.mesh_path, body.name,
                        sizeof body.name);
    if (strlen(body.name) >= OP_RUNFILE_NAME_SIZE)
        return app_usage_error("graph", "the body name '%s' is longer than 63 characters: give a shorter --name",
                               body.name);
    snprintf(body.source, sizeof body.source, "%s%s", o.shape ? "shape:" : "", o.shape ? o.shape : o.mesh_path);
    op_ctx ctx;
    op_ctx_init(&ctx);
    if ((o.model_name ? load_model(&ctx, &o, &body) : build_from_mesh(&ctx, &o, &body)) == OP_OK &&
        write_body(&ctx, &o, &body, call->command_line) == OP_OK)
        print_built(&o, &body);
    op_mesh_free(&body.mesh);
    op_graph_free(&body.graph);
    op_skin_free(&body.skin);
    return app_exit_status(&ctx);
}
