/* The opsim command line: one subcommand per verb, each parsing its own options with
 * getopt_long. Core functions report failures through op_ctx; this file alone prints them and
 * picks the exit status (64 usage, 65 bad input data, 74 i/o, 70 anything else). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/atomic.h"
#include "geometry/build.h"
#include "accel/chebyshev.h"
#include "sim/converge.h"
#include "opsim/ctx.h"
#include "geometry/graph_cache.h"
#include "base/math3.h"
#include "opsim/mesh.h"
#include "base/platform.h"
#include "io/record.h"
#include "opsim/runfile.h"
#include "opsim/scene.h"
#include "geometry/shapes.h"
#include "opsim/solver.h"
#include "springs.h"
#include "io/sweep.h"
#include "io/xdmf.h"

enum { EXIT_USAGE = 64, EXIT_DATA = 65, EXIT_SOFTWARE = 70, EXIT_IO = 74 };

static const char *program = "opsim";

static int usage_error(const char *command, const char *format, const char *detail)
{
    fprintf(stderr, "%s%s%s: ", program, command[0] ? " " : "", command);
    fprintf(stderr, format, detail);
    fprintf(stderr, "\nTry '%s%s%s --help'.\n", program, command[0] ? " " : "", command);
    return EXIT_USAGE;
}

/* Set while a command reads a run file (info, export, xdmf): HDF5 failing there means the file
 * is damaged (a metadata checksum, a heap reference out of range), which is bad input data. */
static int reading_run_file;

static int report_failure(const op_ctx *ctx)
{
    int damaged = reading_run_file && ctx->status == OP_ERR_LIBRARY;
    fprintf(stderr, "%s: %s%s\n", program, ctx->message, damaged ? " (a damaged run file)" : "");
    if (damaged)
        return EXIT_DATA;
    switch (ctx->status) {
    case OP_ERR_USAGE: return EXIT_USAGE;
    case OP_ERR_PARSE:
    case OP_ERR_INVALID: return EXIT_DATA;
    case OP_ERR_IO: return EXIT_IO;
    default: return EXIT_SOFTWARE;
    }
}

static int parse_int(const char *text, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno || end == text || *end || value < lo || value > hi)
        return -1;
    *out = (int)value;
    return 0;
}

static int parse_u64(const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    if (text[0] == '-')
        return -1;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno || end == text || *end)
        return -1;
    *out = value;
    return 0;
}

static int parse_positive(const char *text, double *out)
{
    char *end;
    errno = 0;
    double value = strtod(text, &end);
    if (errno || end == text || *end || !isfinite(value) || value <= 0)
        return -1;
    *out = value;
    return 0;
}

static char *joined_command_line(int argc, char **argv)
{
    size_t length = 1;
    for (int i = 0; i < argc; ++i)
        length += strlen(argv[i]) + 1;
    char *line = calloc(length, 1);
    if (!line)
        return NULL;
    for (int i = 0; i < argc; ++i) {
        if (i)
            strcat(line, " ");
        strcat(line, argv[i]);
    }
    return line;
}

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

/* ---- opsim mesh ---------------------------------------------------------------------- */

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

static int load_input_mesh(op_ctx *ctx, const char *path, const char *shape, op_mesh *mesh)
{
    return shape ? op_shape_mesh(ctx, shape, mesh) : op_mesh_read(ctx, path, mesh);
}

static int command_mesh(int argc, char **argv)
{
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

/* ---- opsim graph --------------------------------------------------------------------- */

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
    "  --no-cache     build the graph even when the graph cache holds it (README, \"Graph cache\")\n";

static int command_graph(int argc, char **argv, const char *command_line)
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

/* ---- opsim info / export ------------------------------------------------------------- */

/* Runs a command that reads the run file `path` in a child process, its standard output held
 * in a temporary file and copied out once the child has exited. libhdf5 1.10 has readers that
 * dereference garbage in a damaged file (H5HG_read, behind variable-length string attributes:
 * one byte changed crashed `opsim info`, and `h5dump -A` crashes on the same file) and no check
 * that opsim could make first protects against them; a crash of the child becomes "PATH: damaged
 * run file", exit 65, and no partial output. SIGINT, SIGTERM and SIGHUP sent to this process
 * are passed on to the child, which cleans up as any opsim process does, and this process then
 * dies of the same signal (without that, `kill PID` ended the parent alone while the child went
 * on to finish an export). */
static int read_run_file_guarded(int (*command)(int, char **), int argc, char **argv, const char *path)
{
    reading_run_file = 1;
    fflush(stdout);
    fflush(stderr);
    sigset_t waited, previous;
    sigemptyset(&waited);
    sigaddset(&waited, SIGINT);
    sigaddset(&waited, SIGTERM);
    sigaddset(&waited, SIGHUP);
    sigaddset(&waited, SIGCHLD);
    sigprocmask(SIG_BLOCK, &waited, &previous);
    FILE *held = tmpfile();
    pid_t child = held ? fork() : -1;
    if (child < 0) {
        sigprocmask(SIG_SETMASK, &previous, NULL);
        if (held)
            fclose(held);
        return command(argc, argv); /* no process to spare: read unguarded */
    }
    if (child == 0) {
        sigprocmask(SIG_SETMASK, &previous, NULL);
        dup2(fileno(held), STDOUT_FILENO);
        int status = command(argc, argv);
        fflush(stdout);
        exit(status);
    }
    int wait_status = 0, forwarded = 0;
    for (;;) {
        int signal_number = sigwaitinfo(&waited, NULL);
        if (signal_number == SIGCHLD || signal_number < 0) { /* < 0: EINTR, or no SIGCHLD to wait for */
            pid_t done = waitpid(child, &wait_status, signal_number < 0 && errno != EINTR ? 0 : WNOHANG);
            if (done == child || (done < 0 && errno != EINTR))
                break;
        } else {
            kill(child, signal_number);
            forwarded = signal_number;
        }
    }
    sigprocmask(SIG_SETMASK, &previous, NULL);
    if (forwarded) {
        fclose(held);
        raise(forwarded); /* the handlers of op_temp_catch_signals end the process with it */
        return 128 + forwarded;
    }
    int status;
    if (WIFSIGNALED(wait_status)) {
        fprintf(stderr, "%s: %s: damaged run file (the HDF5 library crashed reading it: %s)\n", program, path,
                strsignal(WTERMSIG(wait_status)));
        status = EXIT_DATA;
    } else {
        status = WEXITSTATUS(wait_status);
        char buffer[65536];
        size_t got;
        rewind(held);
        while ((got = fread(buffer, 1, sizeof buffer, held)) > 0)
            if (fwrite(buffer, 1, got, stdout) != got)
                break;
        if (fflush(stdout) != 0 && status == 0) {
            fprintf(stderr, "%s: cannot write the output: %s\n", program, strerror(errno));
            status = EXIT_IO;
        }
    }
    fclose(held);
    return status;
}

static const char info_help[] = "usage: opsim info RUN.h5\n\nPrints the provenance, bodies, groups and datasets of a run file.\n";

/* A command taking one run file and nothing else: -1 when argv[1] is that file, else the exit
 * status to return (0 after printing `help` for --help, 64 for anything else). */
static int check_single_run_file(const char *command, const char *help, int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--help") == 0) {
        fputs(help, stdout);
        return 0;
    }
    if (argc != 2 || argv[1][0] == '-')
        return usage_error(command, "%s", "give exactly one run file");
    return -1;
}

static int command_info(int argc, char **argv)
{
    int status = check_single_run_file("info", info_help, argc, argv);
    if (status >= 0)
        return status;
    op_ctx ctx;
    op_ctx_init(&ctx);
    if (op_runfile_info(&ctx, argv[1], stdout) != OP_OK)
        return report_failure(&ctx);
    return 0;
}

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
static int make_directory(op_ctx *ctx, const char *dir)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return OP_FAIL(ctx, OP_ERR_IO, "%s: cannot create the directory: %s", dir, strerror(errno));
    return OP_OK;
}

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

static int command_export(int argc, char **argv)
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

/* ---- opsim run / solvers ------------------------------------------------------------ */

static const char run_help[] =
    "usage: opsim run CONFIG.ini [--set SECTION.KEY=VALUE ...] [--no-surface] [--no-cache] --out RUN.h5\n"
    "\n"
    "Runs the experiment CONFIG (format: include/opsim/scene.h, examples in experiments/) and records it\n"
    "into RUN.h5 (layout: core/io/record.h). --set replaces or adds a key before the config is\n"
    "read, e.g. --set world.iterations=100 --set 'body bar.stiffness=2e9' --set solver.rotations=jacobi.\n"
    "The skinned surface of every body is stored at each output frame (/surface/position, 24 bytes\n"
    "per vertex and frame) unless --no-surface. Then writes the XDMF sidecar RUN.xmf beside it\n"
    "(core/io/xdmf.h): open that in ParaView. A progress line goes to stderr when it is a terminal.\n"
    "On failure no RUN.h5 is written; if only the sidecar fails, RUN.h5 stays and the exit status\n"
    "says why (`opsim xdmf RUN.h5` writes it again). The models' graphs come from the graph cache\n"
    "(data/cache/graphs, or $OPSIM_GRAPH_CACHE; \"off\" turns it off) when it holds them, else are\n"
    "built and stored there; --no-cache builds them all.\n";

/* `opsim run`: one config, its overrides, recorded into `out`, then the sidecar beside it. */
static int record_config(op_ctx *ctx, const char *config, int override_count, const char *const *overrides,
                         const char *out, const char *command_line, const op_record_def *def)
{
    op_scene scene;
    if (op_scene_load(ctx, config, override_count, overrides, &scene) != OP_OK)
        return ctx->status;
    op_provenance prov = { .command_line = command_line, .config_text = scene.config_text, .seed = 0 };
    if (op_record_run_def(ctx, &scene, out, &prov, def) == OP_OK)
        op_xdmf_write(ctx, out);
    op_scene_free(&scene);
    return ctx->status;
}

static int command_run(int argc, char **argv, const char *command_line)
{
    static const struct option options[] = { { "set", required_argument, 0, 's' },
                                              { "out", required_argument, 0, 'o' },
                                              { "no-surface", no_argument, 0, 'n' },
                                              { "no-cache", no_argument, 0, 'C' },
                                              { "help", no_argument, 0, 'h' },
                                              { 0, 0, 0, 0 } };
    const char **overrides = calloc((size_t)argc, sizeof *overrides), *out = NULL;
    int override_count = 0, c;
    op_record_def def = op_default_record_def();
    if (!overrides)
        return EXIT_SOFTWARE;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (c) {
        case 's': overrides[override_count++] = optarg; break;
        case 'o': out = optarg; break;
        case 'n': def.store_surface = 0; break;
        case 'C': setenv("OPSIM_GRAPH_CACHE", "off", 1); break;
        case 'h': fputs(run_help, stdout); free(overrides); return 0;
        default: free(overrides); return usage_error("run", "%s", "unknown option");
        }
    }
    if (optind != argc - 1 || !out) {
        free(overrides);
        return usage_error("run", "%s", "give one CONFIG.ini and --out RUN.h5");
    }
    op_ctx ctx;
    op_ctx_init(&ctx);
    def.progress = isatty(STDERR_FILENO) ? stderr : NULL;
    record_config(&ctx, argv[optind], override_count, overrides, out, command_line, &def);
    free(overrides);
    return ctx.status == OP_OK ? 0 : report_failure(&ctx);
}

/* ---- opsim xdmf --------------------------------------------------------------------- */

static const char xdmf_help[] =
    "usage: opsim xdmf RUN.h5\n"
    "\n"
    "Writes (again) the XDMF sidecar RUN.xmf beside a run file made by 'opsim run' (core/io/xdmf.h):\n"
    "per output frame, each body's skinned surface as triangles (when the run stored it) and its\n"
    "particles as points with their orientation, radii and rest axes. Open RUN.xmf in ParaView\n"
    "(File > Open, then the XDMF reader) and play the frames. Prints the sidecar's path.\n";

static int command_xdmf(int argc, char **argv)
{
    int status = check_single_run_file("xdmf", xdmf_help, argc, argv);
    if (status >= 0)
        return status;
    op_ctx ctx;
    op_ctx_init(&ctx);
    char sidecar[4200];
    if (op_xdmf_write(&ctx, argv[1]) != OP_OK || op_xdmf_path(&ctx, argv[1], sidecar, sizeof sidecar) != OP_OK)
        return report_failure(&ctx);
    printf("%s\n", sidecar);
    return 0;
}

/* ---- opsim sweep -------------------------------------------------------------------- */

static const char sweep_help[] =
    "usage: opsim sweep CONFIG.ini [--set SECTION.KEY=VALUE ...] --grid SECTION.KEY=V1,V2,...\n"
    "                   [--grid ...] --out DIR [--print-make | --run]\n"
    "\n"
    "A parameter sweep (core/io/sweep.h): one run of CONFIG per combination of the grids' values\n"
    "(the Cartesian product; the first grid varies slowest), each with the --set overrides and\n"
    "one --set per grid, recorded into DIR/run-NNN.h5 (and its sidecar DIR/run-NNN.xmf). The\n"
    "first combination's config is loaded at once, so a misspelt key fails here. DIR is made if\n"
    "missing. Writes DIR/sweep.tsv: one line per run, its run file and each grid's value, after\n"
    "'#' lines naming the config, the --set overrides and the grid keys. Then:\n"
    "  (default)     writes DIR/sweep.mk, one make rule per run: make -f DIR/sweep.mk -j2 runs\n"
    "                them two at a time (from the project root; OPSIM=... for another binary)\n"
    "  --print-make  the same, and prints the fragment\n"
    "  --run         runs them here, one after the other, instead of writing DIR/sweep.mk\n"
    "On a Slurm cluster tools/sweep-slurm.sh runs line $SLURM_ARRAY_TASK_ID of DIR/sweep.tsv;\n"
    "plots/overlay.gp draws one observable of every run (sweep='DIR/sweep.tsv').\n"
    "Example: opsim sweep experiments/fig2.ini --set run.frames=90 --grid world.iterations=10,100 \\\n"
    "             --grid 'body bar_k.stiffness=5e8,1e9' --out sweep\n";

static int command_sweep(int argc, char **argv, const char *command_line, const char *opsim)
{
    static const struct option options[] = { { "set", required_argument, 0, 's' },
                                              { "grid", required_argument, 0, 'g' },
                                              { "out", required_argument, 0, 'o' },
                                              { "print-make", no_argument, 0, 'p' },
                                              { "run", no_argument, 0, 'r' },
                                              { "help", no_argument, 0, 'h' },
                                              { 0, 0, 0, 0 } };
    const char **sets = calloc((size_t)argc, sizeof *sets), **grids = calloc((size_t)argc, sizeof *grids);
    const char *out = NULL;
    int set_count = 0, grid_count = 0, print_make = 0, run_here = 0, status = 0, c;
    if (!sets || !grids) {
        free(sets), free(grids);
        return EXIT_SOFTWARE;
    }
    while (status == 0 && (c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (c) {
        case 's': sets[set_count++] = optarg; break;
        case 'g': grids[grid_count++] = optarg; break;
        case 'o': out = optarg; break;
        case 'p': print_make = 1; break;
        case 'r': run_here = 1; break;
        case 'h': fputs(sweep_help, stdout); status = -1; break;
        default: status = usage_error("sweep", "%s", "unknown option");
        }
    }
    if (status == 0 && (optind != argc - 1 || !out || grid_count == 0))
        status = usage_error("sweep", "%s", "give one CONFIG.ini, at least one --grid SECTION.KEY=V1,V2,... and --out DIR");
    if (status == 0 && print_make && run_here)
        status = usage_error("sweep", "%s", "--print-make and --run exclude each other");
    if (status != 0) {
        free(sets), free(grids);
        return status < 0 ? 0 : status;
    }
    const char *config = argv[optind];
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_sweep sweep;
    if (op_sweep_init(&ctx, &sweep, config, out, set_count, sets) == OP_OK)
        for (int g = 0; g < grid_count && ctx.status == OP_OK; ++g)
            op_sweep_add_grid(&ctx, &sweep, grids[g]);
    char **overrides = NULL;
    int override_count = 0;
    if (ctx.status == OP_OK && op_sweep_overrides(&ctx, &sweep, 0, &overrides, &override_count) == OP_OK) {
        op_scene scene;
        if (op_scene_load(&ctx, config, override_count, (const char *const *)overrides, &scene) == OP_OK)
            op_scene_free(&scene);
        op_sweep_free_strings(overrides, override_count);
    }
    if (ctx.status == OP_OK && make_directory(&ctx, out) == OP_OK &&
        op_sweep_write_table(&ctx, &sweep, command_line) == OP_OK && !run_here &&
        op_sweep_write_make(&ctx, &sweep, command_line, print_make ? stdout : NULL) == OP_OK && !print_make)
        printf("%s/sweep.tsv: %ld runs; run them with: make -f %s/sweep.mk -j2\n", out, sweep.run_count, out);
    op_record_def def = op_default_record_def();
    def.progress = isatty(STDERR_FILENO) ? stderr : NULL;
    for (long r = 0; run_here && r < sweep.run_count && ctx.status == OP_OK; ++r) {
        char path[4200], *words = op_sweep_command(&ctx, &sweep, opsim, r, OP_SWEEP_WORDS);
        if (words && op_sweep_run_path(&ctx, &sweep, r, path, sizeof path) == OP_OK &&
            op_sweep_overrides(&ctx, &sweep, r, &overrides, &override_count) == OP_OK) {
            if (record_config(&ctx, config, override_count, (const char *const *)overrides, path, words, &def) ==
                OP_OK)
                printf("%s (%ld of %ld)\n", path, r + 1, sweep.run_count);
            op_sweep_free_strings(overrides, override_count);
        }
        free(words);
    }
    op_sweep_free(&sweep);
    free(sets), free(grids);
    return ctx.status == OP_OK ? 0 : report_failure(&ctx);
}

/* ---- opsim estimate-rho ------------------------------------------------------------- */

static const char estimate_rho_help[] =
    "usage: opsim estimate-rho CONFIG.ini [--set SECTION.KEY=VALUE ...] [--frame F] [--iterations N]\n"
    "                          [--out FILE]\n"
    "\n"
    "Estimates the spectral radius rho of the scene's plain iteration for Chebyshev acceleration\n"
    "(solvers/accel/chebyshev.h). Runs CONFIG with chebyshev forced off to the end of frame F (default 10;\n"
    "0: from the initial state), each frame as the config says, then N plain iterations (default\n"
    "200) of the next sub-step. With d_k = |x^{k+1} - x^k| (all particle centres of all bodies, one\n"
    "Euclidean norm), the estimate is the median of the ratios d_k / d_{k-1} over the last half of\n"
    "the iterations (k >= N/2), leaving out ratios whose d_{k-1} is at rounding level. The median\n"
    "rather than a mean: a few ratios near a rotation flip or at rounding level do not move it.\n"
    "Prints 'chebyshev_rho = ...' and 'chebyshev_rho_source = ...' lines ready for a [solver]\n"
    "section (or --set solver.KEY=VALUE); --out FILE writes them as an INI snippet.\n";

static int command_estimate_rho(int argc, char **argv)
{
    static const struct option options[] = { { "set", required_argument, 0, 's' },
                                              { "frame", required_argument, 0, 'f' },
                                              { "iterations", required_argument, 0, 'n' },
                                              { "out", required_argument, 0, 'o' },
                                              { "help", no_argument, 0, 'h' },
                                              { 0, 0, 0, 0 } };
    const char **overrides = calloc((size_t)argc + 1, sizeof *overrides), *out = NULL;
    int override_count = 0, frames = 10, iterations = 200, c;
    if (!overrides)
        return EXIT_SOFTWARE;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (c) {
        case 's': overrides[override_count++] = optarg; break;
        case 'f':
            if (parse_int(optarg, 0, 1000000, &frames)) {
                free(overrides);
                return usage_error("estimate-rho", "--frame needs a whole number from 0 to 1000000, not '%s'", optarg);
            }
            break;
        case 'n':
            if (parse_int(optarg, 4, 1000000, &iterations)) {
                free(overrides);
                return usage_error("estimate-rho", "--iterations needs a whole number from 4 to 1000000, not '%s'",
                                   optarg);
            }
            break;
        case 'o': out = optarg; break;
        case 'h': fputs(estimate_rho_help, stdout); free(overrides); return 0;
        default: free(overrides); return usage_error("estimate-rho", "%s", "unknown option");
        }
    }
    if (optind != argc - 1) {
        free(overrides);
        return usage_error("estimate-rho", "%s", "give one CONFIG.ini");
    }
    const char *config = argv[optind];
    int user_overrides = override_count;
    overrides[override_count++] = "solver.chebyshev=off"; /* last: it wins over the config and --set */
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_scene scene;
    double *change = NULL;
    if (op_scene_load(&ctx, config, override_count, overrides, &scene) != OP_OK) {
        free(overrides);
        return report_failure(&ctx);
    }
    free(overrides);
    op_world *w = &scene.world;
    w->def.log_energy = 0;
    change = op_calloc(&ctx, (size_t)iterations, sizeof(double));
    op_frame_stats stats = { 0 };
    for (int f = 0; f < frames && ctx.status == OP_OK; ++f)
        op_world_step(&ctx, w, &stats);
    double h = w->def.frame_time / w->def.substeps, scale = 0.0;
    op_rho_estimate e;
    if (ctx.status == OP_OK && op_world_probe_substep(&ctx, w, iterations, change, &scale) == OP_OK &&
        op_chebyshev_estimate_rho(&ctx, change, iterations, 1e-13 * scale, &e) == OP_OK) {
        double rho = e.rho;
        char variant[160] = "", source[256];
        snprintf(variant, sizeof variant, "%s", w->solver->name);
        for (const op_solver_option *o = w->solver->options; o->key; ++o) {
            const char *value = op_solver_setting(&w->solver_settings, o->key);
            size_t used = strlen(variant);
            snprintf(variant + used, sizeof variant - used, " %s=%s", o->key, value ? value : "");
        }
        const char *base = strrchr(config, '/');
        base = base ? base + 1 : config;
        char sets[32] = "";
        if (user_overrides)
            snprintf(sets, sizeof sets, " +%d --set", user_overrides);
        if (snprintf(source, sizeof source,
                     "estimate-rho %s%s (%s) frame %d: median of %d ratios |dx_k|/|dx_k-1|, k %d-%d of %d plain", base,
                     sets, variant, frames, e.used, e.first, e.last, iterations) >= (int)sizeof source)
            memcpy(source + sizeof source - 4, "...", 4); /* only recorded as text: shortened visibly */
        printf("# %s%s, frame %d, then %d plain iterations of the next sub-step (h = %.6g s)\n", config, sets, frames,
               iterations, h);
        printf("# ratios |x^{k+1}-x^k| / |x^k-x^{k-1}| for k = %d..%d: %d used, min %.6f, quartiles %.6f %.6f %.6f, "
               "max %.6f\n",
               e.first, e.last, e.used, e.min, e.lower_quartile, e.median, e.upper_quartile, e.max);
        printf("# |dx| at iteration %d: %.3e m, at iteration %d: %.3e m\n", e.first, change[e.first], e.last,
               change[e.last]);
        printf("chebyshev_rho = %.6f\nchebyshev_rho_source = %s\n", rho, source);
        printf("# use: --set solver.chebyshev=on --set solver.chebyshev_rho=%.6f --set 'solver.chebyshev_rho_source=%s'\n",
               rho, source);
        if (out) {
            FILE *file = fopen(out, "w");
            if (!file)
                OP_FAIL(&ctx, OP_ERR_IO, "%s: cannot write: %s", out, strerror(errno));
            else {
                fprintf(file, "; opsim estimate-rho %s: paste into the [solver] section\n[solver]\nchebyshev = on\n"
                              "chebyshev_rho = %.6f\nchebyshev_rho_source = %s\n",
                        config, rho, source);
                if (fclose(file) != 0)
                    OP_FAIL(&ctx, OP_ERR_IO, "%s: cannot write: %s", out, strerror(errno));
            }
        }
    }
    free(change);
    op_scene_free(&scene);
    return ctx.status == OP_OK ? 0 : report_failure(&ctx);
}

/* ---- opsim converge ----------------------------------------------------------------- */

static const char converge_help[] =
    "usage: opsim converge CONFIG.ini [--set SECTION.KEY=VALUE ...] [--solver KEY=VALUE ...]\n"
    "                      --frame F --iterations N [--repeats R] --out FILE.tsv\n"
    "\n"
    "The convergence of one sub-step (core/sim/converge.h): runs CONFIG (with --set) to the end of\n"
    "frame F (0: from the initial state), each frame as configured, with energy logging off; then\n"
    "begins the next sub-step and runs N iterations of it, recording before the first and after\n"
    "each iteration k the energy E summed over the bodies (h = frame_time / substeps) and the\n"
    "wall-clock seconds spent in the k iterations (each iteration timed on its own, Chebyshev\n"
    "extrapolation included; energy evaluations and the sub-step's refactoring excluded).\n"
    "\n"
    "--solver KEY=VALUE sets a [solver] key for the studied sub-step only (e.g. --solver\n"
    "rotations=jacobi --solver chebyshev=on --solver chebyshev_rho=0.97): the frames before it run\n"
    "the configured solver, so every variant starts from the same state and has the same minimum.\n"
    "The sub-step runs in a second world loaded from the config (with --set and --solver) that\n"
    "takes the first world's state; its solver states are made afresh on that state. Runs are\n"
    "deterministic: the energies of two runs are bitwise equal.\n"
    "\n"
    "--repeats R solves the studied sub-step R times (1), each from the first world's state taken\n"
    "afresh, and records each iteration's median time over the R (the energies of every repeat\n"
    "must be bitwise the first's): a machine that stalls a run now and then moves no median.\n"
    "\n"
    "FILE.tsv: '#' header lines (config, overrides, frame, h, both worlds' solver settings),\n"
    "then one line per k = 0 … N: k, seconds, energy (J), tab-separated, %.17g. It is written\n"
    "under a temporary name and renamed when complete: on failure no FILE.tsv is left.\n";

/* "name key=value ..." of a world's solver settings (defaults filled in). */
static void describe_solver(const op_world *w, char *text, size_t size)
{
    snprintf(text, size, "%s", w->solver->name);
    for (int i = 0; i < w->solver_settings.count; ++i) {
        size_t used = strlen(text);
        if (used + 1 < size)
            snprintf(text + used, size - used, " %s=%s", w->solver_settings.key[i], w->solver_settings.value[i]);
    }
}

static int command_converge(int argc, char **argv, const char *command_line)
{
    static const struct option options[] = { { "set", required_argument, 0, 's' },
                                              { "solver", required_argument, 0, 'v' },
                                              { "frame", required_argument, 0, 'f' },
                                              { "iterations", required_argument, 0, 'n' },
                                              { "repeats", required_argument, 0, 'r' },
                                              { "out", required_argument, 0, 'o' },
                                              { "help", no_argument, 0, 'h' },
                                              { 0, 0, 0, 0 } };
    /* study = the --set overrides, then "solver.KEY=VALUE" of each --solver */
    const char **overrides = calloc((size_t)argc + 1, sizeof *overrides);
    const char **study = calloc((size_t)argc + 1, sizeof *study);
    char **owned = calloc((size_t)argc + 1, sizeof *owned);
    const char *out = NULL;
    int override_count = 0, study_only = 0, frames = -1, iterations = -1, repeats = 1, c, status = 0;
    if (!overrides || !study || !owned) {
        free(overrides), free(study), free(owned);
        return EXIT_SOFTWARE;
    }
    while (status == 0 && (c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (c) {
        case 's': overrides[override_count++] = optarg; break;
        case 'v': {
            const char *eq = strchr(optarg, '=');
            if (!eq || eq == optarg) {
                status = usage_error("converge", "--solver needs KEY=VALUE (a [solver] key), not '%s'", optarg);
                break;
            }
            size_t length = strlen(optarg) + sizeof "solver.";
            char *item = malloc(length);
            if (!item) {
                status = EXIT_SOFTWARE;
                break;
            }
            snprintf(item, length, "solver.%s", optarg);
            owned[study_only++] = item;
            break;
        }
        case 'f':
            if (parse_int(optarg, 0, OP_CONVERGE_MAX_FRAMES, &frames))
                status = usage_error("converge", "--frame needs a whole number from 0 to 1000000, not '%s'", optarg);
            break;
        case 'n':
            if (parse_int(optarg, 1, OP_CONVERGE_MAX_ITERATIONS, &iterations))
                status = usage_error("converge", "--iterations needs a whole number from 1 to 10000000, not '%s'",
                                     optarg);
            break;
        case 'r':
            if (parse_int(optarg, 1, OP_CONVERGE_MAX_REPEATS, &repeats))
                status = usage_error("converge", "--repeats needs a whole number from 1 to 1000, not '%s'", optarg);
            break;
        case 'o': out = optarg; break;
        case 'h': fputs(converge_help, stdout); status = -1; break;
        default: status = usage_error("converge", "%s", "unknown option");
        }
    }
    if (status == 0 && (optind != argc - 1 || !out || frames < 0 || iterations < 0))
        status = usage_error("converge", "%s", "give one CONFIG.ini, --frame F, --iterations N and --out FILE.tsv");
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_scene scene, second;
    int loaded = 0;
    double *seconds = NULL, *energy = NULL;
    if (status == 0) {
        const char *config = argv[optind];
        for (int i = 0; i < override_count; ++i)
            study[i] = overrides[i];
        for (int i = 0; i < study_only; ++i)
            study[override_count + i] = owned[i];
        if (op_scene_load(&ctx, config, override_count, overrides, &scene) == OP_OK) {
            loaded = 1;
            if (op_scene_load(&ctx, config, override_count + study_only, study, &second) == OP_OK)
                loaded = 2;
        }
        seconds = op_calloc(&ctx, (size_t)iterations + 1, sizeof(double));
        energy = op_calloc(&ctx, (size_t)iterations + 1, sizeof(double));
        if (ctx.status == OP_OK)
            op_converge_repeated(&ctx, &scene, &second, frames, iterations, repeats, seconds, energy);
        op_atomic_file file;
        if (ctx.status == OP_OK && op_atomic_open(&ctx, &file, out) == OP_OK) {
            char run_solver[2048], study_solver[2048];
            describe_solver(&scene.world, run_solver, sizeof run_solver);
            describe_solver(&second.world, study_solver, sizeof study_solver);
            const op_world *w = &second.world;
            FILE *f = file.file;
            fprintf(f, "# opsim converge (opsim %s, git %s): energy of one sub-step against iteration\n",
                    OPSIM_VERSION, OPSIM_GIT_REV);
            fprintf(f, "# command = %s\n# config = %s\n", command_line, config);
            for (int i = 0; i < override_count; ++i)
                fprintf(f, "# set = %s\n", overrides[i]);
            for (int i = 0; i < study_only; ++i)
                fprintf(f, "# study set = %s\n", owned[i]);
            fprintf(f, "# frame = %d (frames run before the studied sub-step, sub-step %ld of the run)\n", frames,
                    w->substep + 1);
            fprintf(f, "# h = %.17g s (frame_time %.17g / substeps %d), time at its start = %.17g s\n",
                    w->def.frame_time / w->def.substeps, w->def.frame_time, w->def.substeps, w->time);
            fprintf(f, "# iterations = %d\n# repeats = %d\n# run solver = %s\n# study solver = %s\n", iterations,
                    repeats, run_solver, study_solver);
            fprintf(f, "# k\tseconds\tenergy\n");
            for (int k = 0; k <= iterations; ++k)
                fprintf(f, "%d\t%.17g\t%.17g\n", k, seconds[k], energy[k]);
            op_atomic_commit(&ctx, &file);
        }
        if (ctx.status != OP_OK)
            status = report_failure(&ctx);
    }
    if (loaded >= 1)
        op_scene_free(&scene);
    if (loaded >= 2)
        op_scene_free(&second);
    for (int i = 0; i < study_only; ++i)
        free(owned[i]);
    free(owned), free(overrides), free(study), free(seconds), free(energy);
    return status < 0 ? 0 : status;
}

static const char solvers_help[] = "usage: opsim solvers [--names]\n"
                                   "  the solver variants, each with its summary, source and options, then the\n"
                                   "  options every variant takes; --names: the variants' names alone, one a line\n";

static int command_solvers(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--help") == 0) {
        fputs(solvers_help, stdout);
        return 0;
    }
    int names = argc == 2 && strcmp(argv[1], "--names") == 0;
    if (argc != 1 && !names)
        return usage_error("solvers", "%s", "takes no arguments but --names");
    for (int v = 0; names && op_solver_registry[v]; ++v)
        printf("%s\n", op_solver_registry[v]->name);
    if (names)
        return 0;
    for (int v = 0; op_solver_registry[v]; ++v) {
        const op_solver_type *t = op_solver_registry[v];
        printf("%s\n    %s (%s)\n", t->name, t->summary, t->source);
        for (const op_solver_option *o = t->options; o->key; ++o)
            printf("    %s = %s\n        %s\n", o->key, o->default_value, o->help);
    }
    printf("options of every variant (Chebyshev acceleration, Wang 2015, solvers/accel/chebyshev.h; Anderson acceleration, "
           "Peng et al. 2018, solvers/accel/anderson.h)\n");
    for (const op_solver_option *o = op_solver_common_options; o->key; ++o)
        printf("    %s = %s\n        %s\n", o->key, o->default_value, o->help);
    return 0;
}

static const char spring_curves_help[] =
    "usage: opsim spring-curves [--from X] [--to X] [--samples N]\n"
    "\n"
    "Prints, as tab-separated text with a '#' header, the force magnitude g and the stiffness g'\n"
    "against the spring length for the springs variant's three laws at the parameters of\n"
    "Vogiannou et al. 2010 Fig. 1 and 2: L = 1, K = 1, a1 = 1.1, a2 = 0.9, K2 = 2K and, for the\n"
    "full cubic, K1 = 2K, 4K and 6K. The numbers come from the functions the solver evaluates\n"
    "(solvers/springs.h). Lengths from --from (0) to --to (2) in --samples (401) steps.\n";

static int command_spring_curves(int argc, char **argv)
{
    static const struct option options[] = { { "from", required_argument, 0, 'f' },
                                              { "to", required_argument, 0, 't' },
                                              { "samples", required_argument, 0, 'n' },
                                              { "help", no_argument, 0, 'h' },
                                              { 0, 0, 0, 0 } };
    double from = 0.0, to = 2.0;
    int samples = 401, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'f':
        case 't': {
            double value = strtod(optarg, &end);
            if (end == optarg || *end || !isfinite(value) || value < 0)
                return usage_error("spring-curves", "--from and --to take a length >= 0, not '%s'", optarg);
            *(c == 'f' ? &from : &to) = value;
            break;
        }
        case 'n':
            if (parse_int(optarg, 2, 1000000, &samples) != 0)
                return usage_error("spring-curves", "--samples takes a whole number from 2, not '%s'", optarg);
            break;
        case 'h': fputs(spring_curves_help, stdout); return 0;
        default: return usage_error("spring-curves", "%s", "unknown option");
        }
    }
    if (optind != argc || !(to > from))
        return usage_error("spring-curves", "%s", "takes no operands, and --to must exceed --from");
    enum { CURVES = 5 };
    static const char *const names[CURVES] = { "linear", "cubic2", "cubic_k1_2", "cubic_k1_4", "cubic_k1_6" };
    op_spring spring[CURVES];
    op_ctx ctx;
    op_ctx_init(&ctx);
    for (int k = 0; k < CURVES; ++k) {
        op_spring_shape shape = { 1.1, 0.9, k < 2 ? 1.0 : 2.0 * (k - 1), 2.0 };
        op_spring_law law = k == 0 ? OP_SPRING_LINEAR : k == 1 ? OP_SPRING_CUBIC2 : OP_SPRING_CUBIC;
        if (op_spring_make(&ctx, law, 1.0, 1.0, &shape, &spring[k]) != OP_OK)
            return report_failure(&ctx);
    }
    printf("# length");
    for (int k = 0; k < CURVES; ++k)
        printf("\t%s_force\t%s_stiffness", names[k], names[k]);
    printf("\n");
    for (int i = 0; i < samples; ++i) {
        double x = from + (to - from) * i / (samples - 1);
        printf("%.10g", x); /* the sample lengths as written, e.g. 0.8, so a report can name a row */
        for (int k = 0; k < CURVES; ++k)
            printf("\t%.17g\t%.17g", op_spring_magnitude(&spring[k], x), op_spring_slope(&spring[k], x));
        printf("\n");
    }
    return ferror(stdout) ? EXIT_IO : 0;
}

/* ---- dispatch ------------------------------------------------------------------------ */

static const char main_help[] =
    "usage: opsim COMMAND [OPTIONS]\n"
    "\n"
    "commands:\n"
    "  run      run an experiment config and record it into a run file\n"
    "  solvers  list the solver variants and their options\n"
    "  spring-curves\n"
    "           the springs variant's force laws at Vogiannou et al. 2010's Fig. 1-2 parameters\n"
    "  estimate-rho\n"
    "           estimate the spectral radius rho for Chebyshev acceleration (chebyshev_rho)\n"
    "  converge energy against iteration and time for one sub-step (convergence study)\n"
    "  graph    build one body's particle graph and skinning into a run file\n"
    "  mesh     prepare a mesh: rotate, scale to metres, write OBJ\n"
    "  sweep    a grid of runs of one config: a table, and a Makefile (or runs them)\n"
    "  info     print what a run file holds\n"
    "  export   print a run-file dataset as tab-separated text, or write OBJ files\n"
    "  xdmf     write a run file's XDMF sidecar for ParaView (opsim run writes it too)\n"
    "\n"
    "'opsim COMMAND --help' describes each. Exit status: 0 success, 64 usage error,\n"
    "65 bad input data, 74 input/output error, 70 internal error.\n";

static void print_notice(const char *message)
{
    fprintf(stderr, "%s: %s\n", program, message);
}

int main(int argc, char **argv)
{
    op_platform_init();
    op_temp_catch_signals();
    op_graph_cache_set_notice(print_notice);
    if (argc < 2)
        return usage_error("", "%s", "a command is required");
    const char *command = argv[1];
    if (strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0) {
        fputs(main_help, stdout);
        return 0;
    }
    if (strcmp(command, "--version") == 0) {
        printf("opsim %s (git %s)\n", OPSIM_VERSION, OPSIM_GIT_REV);
        return 0;
    }
    char *command_line = joined_command_line(argc, argv);
    if (!command_line) {
        fprintf(stderr, "%s: out of memory\n", program);
        return EXIT_SOFTWARE;
    }
    int status;
    if (strcmp(command, "run") == 0)
        status = command_run(argc - 1, argv + 1, command_line);
    else if (strcmp(command, "estimate-rho") == 0)
        status = command_estimate_rho(argc - 1, argv + 1);
    else if (strcmp(command, "converge") == 0)
        status = command_converge(argc - 1, argv + 1, command_line);
    else if (strcmp(command, "solvers") == 0)
        status = command_solvers(argc - 1, argv + 1);
    else if (strcmp(command, "spring-curves") == 0)
        status = command_spring_curves(argc - 1, argv + 1);
    else if (strcmp(command, "graph") == 0)
        status = command_graph(argc - 1, argv + 1, command_line);
    else if (strcmp(command, "mesh") == 0)
        status = command_mesh(argc - 1, argv + 1);
    else if (strcmp(command, "info") == 0)
        status = read_run_file_guarded(command_info, argc - 1, argv + 1, argc > 2 ? argv[2] : "");
    else if (strcmp(command, "export") == 0)
        status = read_run_file_guarded(command_export, argc - 1, argv + 1, argc > 2 ? argv[2] : "");
    else if (strcmp(command, "xdmf") == 0)
        status = read_run_file_guarded(command_xdmf, argc - 1, argv + 1, argc > 2 ? argv[2] : "");
    else if (strcmp(command, "sweep") == 0)
        status = command_sweep(argc - 1, argv + 1, command_line, argv[0]);
    else
        status = usage_error("", "unknown command '%s'", command);
    free(command_line);
    return status;
}
