/* opsim graph: build one body's particle graph and skinning into a run file. */
#include "app.h"

#include <getopt.h>
#include <stdlib.h>

#include "geometry/graph_cache.h"
#include "base/math3.h"

static const char graph_help[] =
    "usage: opsim graph (--mesh FILE | --shape bar|sheet|column|torus|cube|cloth|cube18|cube27)\n"
    "                   --kind solid|rod|shell|lattice\n"
    "                   --particles N [--seed S] [--density RHO] [--voxels R] [--lloyd N]\n"
    "                   [--edges faces|overlap:S] [--skin-k K] [--name BODY] [--no-cache] --out RUN.h5\n"
    "       opsim graph --model NAME [--catalogue FILE] [--seed S] [--density RHO] [--voxels R]\n"
    "                   [--lloyd N] [--skin-k K] [--name BODY] [--no-cache] --out RUN.h5\n"
    "\n"
    "Builds one body's oriented-particle graph and skinning (docs/graph-construction.md) and\n"
    "writes /graph/BODY and /mesh/BODY to a new run file.\n"
    "  --model NAME   a model of the catalogue (default data/models.tsv) as a scene builds it,\n"
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

int command_graph(int argc, char **argv, const app_call *call)
{
    const char *command_line = call->command_line;
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
    op_build_def def = op_default_build_def();
    const char *mesh_path = NULL, *shape = NULL, *out = NULL, *name = NULL, *model_name = NULL;
    const char *catalogue = "data/models.tsv";
    int have_kind = 0, have_particles = 0, have_edges = 0, c;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (c) {
        case 'm': mesh_path = optarg; break;
        case 's': shape = optarg; break;
        case 'k':
            if (op_body_kind_parse(optarg, &def.kind))
                return usage_error("graph", "--kind must be solid, rod, shell or lattice, not '%s'", optarg);
            have_kind = 1;
            break;
        case 'n':
            if (parse_int(optarg, 1, 1000000, &def.particles))
                return usage_error("graph", "--particles needs a whole number from 1 to 1000000, not '%s'", optarg);
            have_particles = 1;
            break;
        case 'S':
            if (parse_u64(optarg, &def.seed))
                return usage_error("graph", "--seed needs a non-negative whole number, not '%s'", optarg);
            break;
        case 'd':
            if (parse_positive(optarg, &def.density))
                return usage_error("graph", "--density needs a positive number in kg/m^3, not '%s'", optarg);
            break;
        case 'v':
            if (parse_int(optarg, 4, 2048, &def.voxel_resolution))
                return usage_error("graph", "--voxels needs a whole number from 4 to 2048, not '%s'", optarg);
            break;
        case 'l':
            if (parse_int(optarg, 0, 100000, &def.lloyd_iterations))
                return usage_error("graph", "--lloyd needs a whole number from 0 to 100000, not '%s'", optarg);
            break;
        case 'e':
            if (op_edge_rule_parse(optarg, &def.overlap_scale))
                return usage_error("graph", "--edges must be faces or overlap:S with S in (0, 10], not '%s'", optarg);
            have_edges = 1;
            break;
        case 'K':
            if (parse_int(optarg, 1, OP_SKIN_MAX_K, &def.skin_k))
                return usage_error("graph", "--skin-k needs a whole number from 1 to 8, not '%s'", optarg);
            break;
        case 'N': name = optarg; break;
        case 'o': out = optarg; break;
        case 'M': model_name = optarg; break;
        case 'C': catalogue = optarg; break;
        case 'c': setenv("OPSIM_GRAPH_CACHE", "off", 1); break;
        case 'h': fputs(graph_help, stdout); return 0;
        default: return usage_error("graph", "%s", "unknown option");
        }
    }
    if (optind != argc)
        return usage_error("graph", "unexpected argument '%s'", argv[optind]);
    if (!!mesh_path + !!shape + !!model_name != 1)
        return usage_error("graph", "%s", "give exactly one of --mesh FILE, --shape NAME and --model NAME");
    if (model_name ? have_kind || have_particles || have_edges || !out : !have_kind || !have_particles || !out)
        return usage_error("graph", "%s",
                           model_name ? "--out is required, and --kind, --particles and --edges come from the catalogue"
                                      : "--kind, --particles and --out are required");
    char body[4200], source[4200];
    body_name_from_path(name ? name : model_name ? model_name : shape ? shape : mesh_path, body, sizeof body);
    if (strlen(body) >= OP_RUNFILE_NAME_SIZE)
        return usage_error("graph", "the body name '%s' is longer than 63 characters: give a shorter --name",
                           body);
    snprintf(source, sizeof source, "%s%s", shape ? "shape:" : "", shape ? shape : mesh_path);

    op_ctx ctx;
    op_ctx_init(&ctx);
    op_mesh mesh = { 0 };
    op_graph graph = { 0 };
    op_skin skin = { 0 };
    op_runfile run = { .file = -1 };
    op_model model = { 0 };
    op_build_report built = { 0 };
    if (model_name)
        def.particles = 0; /* the catalogue's */
    if (model_name && op_model_load(&ctx, catalogue, model_name, &def, &model) == OP_OK) {
        /* the model's parts move into this command's, freed below */
        def = model.build;
        built = model.built;
        snprintf(source, sizeof source, "%s", model.source);
        mesh = model.mesh, graph = model.graph, skin = model.skin;
    }
    if (ctx.status == OP_OK && (model_name || load_input_mesh(&ctx, mesh_path, shape, &mesh) == OP_OK) &&
        (model_name ||
         op_build_body_cached(&ctx, op_graph_cache_directory(), body, &mesh, &def, &graph, &skin, &built, NULL) ==
             OP_OK ||
         name_input(&ctx, source))) {
        op_provenance prov = { .command_line = command_line, .config_text = "", .seed = def.seed };
        op_body_info info = { .kind = op_body_kind_name(def.kind),
                              .source = source,
                              .particles_requested = def.particles,
                              .seed = def.seed,
                              .voxel_resolution = built.voxel_resolution };
        if (op_runfile_create(&ctx, &run, out, &prov) == OP_OK &&
            op_runfile_write_body(&ctx, &run, body, &info, &graph, &mesh, &skin) == OP_OK)
            op_runfile_commit(&ctx, &run);
    }
    if (ctx.status != OP_OK) {
        op_runfile_abort(&run);
    } else {
        if (built.voxel_resolution != def.voxel_resolution)
            fprintf(stderr, "%s: %s: the interior is in pieces at %d voxels: built at %d\n", program, source,
                    def.voxel_resolution, built.voxel_resolution);
        if (built.islands_dropped)
            fprintf(stderr, "%s: %s: %d stray voxel islands (%d voxels) dropped\n", program, source,
                    built.islands_dropped, built.island_voxels);
        printf("%s: %s %d particles, %d edges, %d vertices, %d faces (%d triangles) -> %s\n", body,
               op_body_kind_name(def.kind), graph.particle_count, graph.edge_count, mesh.vertex_count,
               mesh.polygon_count, mesh.face_count, out);
    }
    op_mesh_free(&mesh);
    op_graph_free(&graph);
    op_skin_free(&skin);
    return ctx.status == OP_OK ? 0 : report_failure(&ctx);
}
