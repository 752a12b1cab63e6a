/* The graph cache (core/geometry/graph_cache.h): a run from cached graphs is bit for bit the run from
 * fresh ones; every builder parameter, and nothing else of op_build_def, is in the key; a
 * damaged or stale entry is rebuilt with a notice; processes filling one entry at once leave a
 * whole entry; the cache can be turned off. */
#define _GNU_SOURCE /* memmem */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <nettle/hmac.h>
#include <nettle/sha2.h>

#include "geometry/graph_cache.h"
#include "geometry/shapes.h"
#include "test_scene_load.h"
#include "test_util.h"

static char notices[8192];

static void keep_notice(const char *message)
{
    snprintf(notices + strlen(notices), sizeof notices - strlen(notices), "%s\n", message);
}

/* A fresh cache directory (not yet created), chosen through OPSIM_GRAPH_CACHE. */
static const char *use_fresh_cache(void)
{
    static char directory[512];
    snprintf(directory, sizeof directory, "%s", test_tmp_path(".cache/graphs"));
    setenv("OPSIM_GRAPH_CACHE", directory, 1);
    notices[0] = '\0';
    op_graph_cache_set_notice(keep_notice);
    return directory;
}

static void assert_graphs_bitwise_equal(const op_graph *a, const op_graph *b, const op_skin *s, const op_skin *t)
{
    size_t n = (size_t)a->particle_count;
    assert_int_equal(a->particle_count, b->particle_count);
    assert_int_equal(a->edge_count, b->edge_count);
    assert_memory_equal(a->adjacency_start, b->adjacency_start, (n + 1) * sizeof(int));
    assert_memory_equal(a->adjacency, b->adjacency, 2 * (size_t)a->edge_count * sizeof(int));
    assert_memory_equal(a->rest_position, b->rest_position, 3 * n * sizeof(double));
    assert_memory_equal(a->rest_axes, b->rest_axes, 9 * n * sizeof(double));
    assert_memory_equal(a->radii, b->radii, 3 * n * sizeof(double));
    assert_memory_equal(a->volume, b->volume, n * sizeof(double));
    assert_memory_equal(a->mass, b->mass, n * sizeof(double));
    assert_memory_equal(a->rest_moment, b->rest_moment, 9 * n * sizeof(double));
    assert_memory_equal(&a->density, &b->density, sizeof(double));
    assert_int_equal(s->vertex_count, t->vertex_count);
    assert_int_equal(s->k, t->k);
    assert_memory_equal(s->index, t->index, (size_t)s->vertex_count * s->k * sizeof(int));
    assert_memory_equal(s->weight, t->weight, (size_t)s->vertex_count * s->k * sizeof(double));
}

static const char scene_text[] = "[run]\nframes = 4\n[world]\ngravity = 0 -9.81 0\nfloor = 0\n"
                                 "[solver]\nname = arap\n[body dino]\nmodel = dino30\nstiffness = 1e6\n"
                                 "position = 0 0.8 0\n[body torus]\nmodel = torus12\nstiffness = 1e6\n"
                                 "position = 0 2 0\n";

/* The same scene recorded with the cache off, filling it, and from it: the run files' bodies,
 * graphs, meshes and every recorded frame are the same bits (h5diff with no tolerance). */
static void test_cached_run_is_the_fresh_run(void **state)
{
    (void)state;
    char config[512], runs[3][512];
    snprintf(config, sizeof config, "%s", test_tmp_path(".ini"));
    FILE *file = fopen(config, "w");
    assert_non_null(file);
    fputs(scene_text, file);
    assert_int_equal(fclose(file), 0);
    const char *directory = use_fresh_cache();
    for (int k = 0; k < 3; ++k) {
        setenv("OPSIM_GRAPH_CACHE", k == 0 ? "off" : directory, 1);
        op_scene scene;
        test_load_scene(&scene, config, NULL);
        snprintf(runs[k], sizeof runs[k], "%s", test_record_scene(&scene));
        struct stat info;
        assert_int_equal(stat(directory, &info) == 0, k > 0); /* off: not even the directory */
    }
    assert_string_equal(notices, "");
    for (int k = 1; k < 3; ++k)
        for (int g = 0; g < 5; ++g) {
            static const char *const groups[] = { "/graph", "/mesh", "/particles", "/states", "/surface" };
            if (test_shell("h5diff '%s' '%s' %s %s > /dev/null", runs[0], runs[k], groups[g], groups[g]) != 0)
                fail_msg("%s differs between %s (fresh) and %s (%s)", groups[g], runs[0], runs[k],
                         k == 1 ? "filling the cache" : "from the cache");
        }
}

/* Builds cube64 through the cache in `directory`; the outcome. */
static op_graph_cache_outcome build_cube(const char *directory, const op_build_def *def, op_graph *graph,
                                         op_skin *skin)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_mesh mesh = { 0 };
    op_graph_cache_outcome outcome;
    if (op_shape_mesh(&ctx, "cube", &mesh) != OP_OK ||
        op_build_body_cached(&ctx, directory, "cube64", &mesh, def, graph, skin, NULL, &outcome) != OP_OK)
        fail_msg("%s", ctx.message);
    op_mesh_free(&mesh);
    return outcome;
}

static void entry_path(const char *directory, const op_build_def *def, char *path, size_t size)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_mesh mesh = { 0 };
    if (op_shape_mesh(&ctx, "cube", &mesh) != OP_OK || op_graph_cache_path(&ctx, directory, &mesh, def, path, size))
        fail_msg("%s", ctx.message);
    op_mesh_free(&mesh);
}

static void flip_byte(const char *path, long at)
{
    FILE *file = fopen(path, "r+b");
    assert_non_null(file);
    assert_int_equal(fseek(file, at, SEEK_SET), 0);
    int byte = fgetc(file);
    assert_int_equal(fseek(file, at, SEEK_SET), 0);
    fputc(byte ^ 0x10, file);
    assert_int_equal(fclose(file), 0);
}

/* Miss, hit; a flipped byte anywhere (header, arrays, checksum) is a damaged entry rebuilt with a
 * notice naming it; another key's entry renamed onto this one is stale, likewise; each time the
 * graph is the fresh build's, bit for bit. */
static void test_damaged_and_stale_entries_are_rebuilt(void **state)
{
    (void)state;
    const char *directory = use_fresh_cache();
    op_build_def def = op_default_build_def();
    def.particles = 64;
    def.voxel_resolution = 16;
    op_graph fresh, graph;
    op_skin fresh_skin, skin;
    assert_int_equal(build_cube(NULL, &def, &fresh, &fresh_skin), OP_GRAPH_CACHE_OFF);
    assert_int_equal(build_cube(directory, &def, &graph, &skin), OP_GRAPH_CACHE_MISS);
    op_graph_free(&graph);
    op_skin_free(&skin);
    char path[4096];
    entry_path(directory, &def, path, sizeof path);
    struct stat info;
    assert_int_equal(stat(path, &info), 0);
    long places[] = { 5, 24, 100, info.st_size / 2, info.st_size - 40, info.st_size - 1 };
    for (size_t p = 0; p < sizeof places / sizeof *places; ++p) {
        assert_int_equal(build_cube(directory, &def, &graph, &skin), OP_GRAPH_CACHE_HIT);
        assert_graphs_bitwise_equal(&fresh, &graph, &fresh_skin, &skin);
        op_graph_free(&graph);
        op_skin_free(&skin);
        flip_byte(path, places[p]);
        notices[0] = '\0';
        assert_int_equal(build_cube(directory, &def, &graph, &skin), OP_GRAPH_CACHE_DAMAGED);
        assert_non_null(strstr(notices, path));
        assert_non_null(strstr(notices, "damaged entry"));
        assert_graphs_bitwise_equal(&fresh, &graph, &fresh_skin, &skin);
        op_graph_free(&graph);
        op_skin_free(&skin);
    }
    /* truncated to nothing */
    assert_int_equal(truncate(path, 0), 0);
    assert_int_equal(build_cube(directory, &def, &graph, &skin), OP_GRAPH_CACHE_DAMAGED);
    op_graph_free(&graph);
    op_skin_free(&skin);
    /* another seed's entry under this key's name */
    op_build_def other = def;
    other.seed = 2;
    char other_path[4096];
    entry_path(directory, &other, other_path, sizeof other_path);
    assert_int_equal(build_cube(directory, &other, &graph, &skin), OP_GRAPH_CACHE_MISS);
    op_graph_free(&graph);
    op_skin_free(&skin);
    assert_int_equal(rename(other_path, path), 0);
    notices[0] = '\0';
    assert_int_equal(build_cube(directory, &def, &graph, &skin), OP_GRAPH_CACHE_STALE);
    assert_non_null(strstr(notices, "stale entry"));
    assert_graphs_bitwise_equal(&fresh, &graph, &fresh_skin, &skin);
    op_graph_free(&graph);
    op_skin_free(&skin);
    assert_int_equal(build_cube(directory, &def, &graph, &skin), OP_GRAPH_CACHE_HIT);
    op_graph_free(&graph);
    op_skin_free(&skin);
    op_graph_free(&fresh);
    op_skin_free(&fresh_skin);
}

/* The key is every byte of op_build_def except its padding: a parameter added to the struct
 * later is in the key with no list to update, and the stack garbage in padding is not. */
static void test_every_build_parameter_is_in_the_key(void **state)
{
    (void)state;
    op_build_def def = op_default_build_def(), padding_mask;
    memset(&padding_mask, 0xff, sizeof padding_mask);
    __builtin_clear_padding(&padding_mask);
    char base[4096], changed[4096];
    entry_path("d", &def, base, sizeof base);
    int parameter_bytes = 0;
    for (size_t b = 0; b < sizeof def; ++b) {
        op_build_def other = def;
        ((unsigned char *)&other)[b] ^= 0x01;
        entry_path("d", &other, changed, sizeof changed);
        int is_parameter = ((const unsigned char *)&padding_mask)[b] != 0;
        parameter_bytes += is_parameter;
        if (is_parameter == !strcmp(base, changed))
            fail_msg("byte %zu of op_build_def (%s) %s the cache key", b, is_parameter ? "a parameter" : "padding",
                     is_parameter ? "does not change" : "changes");
    }
    assert_true(parameter_bytes >= 44); /* kind, particles, seed, voxels, lloyd, contact, density, skin_k */
}

/* Four `opsim graph` processes filling one entry at once: each renames a whole file in, none
 * sees a part of another's (no notice), no temporary file stays, and the entry then loads. */
static void test_processes_filling_one_entry(void **state)
{
    (void)state;
    const char *directory = use_fresh_cache();
    char out[512];
    snprintf(out, sizeof out, "%s", test_tmp_path(""));
    assert_int_equal(test_shell("for k in 1 2 3 4; do OPSIM_GRAPH_CACHE='%s' bin/opsim graph --shape cube --kind "
                                "solid --particles 64 --voxels 16 --out '%s'-$k.h5 > /dev/null 2> '%s'-$k.log & done; wait; "
                                "cat '%s'-?.log | grep . && exit 1; ls '%s' | grep -v '[.]graph$' | grep -vx secret && exit 2; exit 0",
                                directory, out, out, out, directory),
                     0);
    op_build_def def = op_default_build_def();
    def.particles = 64;
    def.voxel_resolution = 16;
    op_graph graph;
    op_skin skin;
    assert_int_equal(build_cube(directory, &def, &graph, &skin), OP_GRAPH_CACHE_HIT);
    assert_string_equal(notices, "");
    op_graph_free(&graph);
    op_skin_free(&skin);
    /* --no-cache builds without touching the cache */
    const char *unused = use_fresh_cache();
    assert_int_equal(test_shell("OPSIM_GRAPH_CACHE='%s' bin/opsim graph --no-cache --shape cube --kind solid "
                                "--particles 8 --voxels 16 --out '%s'-5.h5 > /dev/null && test ! -e '%s'",
                                unused, out, unused),
                     0);
}


/* ---- The crafted entries -------------------------------------------------------------------
 * Each is the bar's valid entry edited and sealed again with the cache's secret (the test
 * writes the secret, so it can: these are the edits an attacker holding the secret, or a
 * bug, could make). Every one must be refused for its own reason, rebuilt bit for bit, and
 * replaced by a valid entry; none may crash or allocate what the file cannot hold. With
 * OPSIM_WRITE_FUZZ_SEEDS=DIR each crafted entry (without its trailer, as tests/fuzz/fuzz_cache.c
 * takes it) is also saved there: tests/fuzz/cache/ holds them. */

static const uint8_t test_secret[OP_GRAPH_CACHE_SECRET_SIZE] = "opsim test secret, not random..";

typedef struct crafted {
    uint8_t *bytes;
    size_t size; /* with the trailer */
} crafted;

static void write_bytes(const char *path, const uint8_t *bytes, size_t size)
{
    FILE *file = fopen(path, "wb");
    assert_non_null(file);
    assert_int_equal(fwrite(bytes, 1, size, file), size);
    assert_int_equal(fclose(file), 0);
}

static crafted read_entry(const char *path)
{
    struct stat info;
    assert_int_equal(stat(path, &info), 0);
    crafted c = { malloc((size_t)info.st_size + 1), (size_t)info.st_size };
    FILE *file = fopen(path, "rb");
    assert_non_null(file);
    assert_int_equal(fread(c.bytes, 1, c.size, file), c.size);
    fclose(file);
    return c;
}

static size_t find(const crafted *c, const void *needle, size_t length)
{
    const uint8_t *at = memmem(c->bytes, c->size, needle, length);
    assert_non_null(at);
    return (size_t)(at - c->bytes);
}

/* Seals the body with the HMAC, or with a plain SHA-256 (the old trailer anyone recomputes). */
static void seal(crafted *c, int plain)
{
    size_t body = c->size - OP_GRAPH_CACHE_DIGEST_SIZE;
    if (plain) {
        struct sha256_ctx hash;
        sha256_init(&hash);
        sha256_update(&hash, body, c->bytes);
        sha256_digest(&hash, OP_GRAPH_CACHE_DIGEST_SIZE, c->bytes + body);
    } else {
        struct hmac_sha256_ctx hmac;
        hmac_sha256_set_key(&hmac, sizeof test_secret, test_secret);
        hmac_sha256_update(&hmac, body, c->bytes);
        hmac_sha256_digest(&hmac, OP_GRAPH_CACHE_DIGEST_SIZE, c->bytes + body);
    }
}

static void save_seed(const char *name, const crafted *c)
{
    const char *seeds = getenv("OPSIM_WRITE_FUZZ_SEEDS");
    if (!seeds)
        return;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", seeds, name);
    write_bytes(path, c->bytes, c->size - OP_GRAPH_CACHE_DIGEST_SIZE);
}

static int32_t read_int(const crafted *c, size_t at)
{
    int32_t value;
    memcpy(&value, c->bytes + at, sizeof value);
    return value;
}

static void write_int(crafted *c, size_t at, int32_t value)
{
    memcpy(c->bytes + at, &value, sizeof value);
}

/* The skin cut to, or grown to, `vertices` (each added vertex a copy of vertex 0), its count in
 * the header changed to match: consistent in itself, wrong for the mesh. */
static crafted resize_skin(const crafted *valid, size_t counts_at, const op_skin *skin, int vertices)
{
    size_t k = (size_t)skin->k, index_at = find(valid, skin->index, (size_t)skin->vertex_count * k * sizeof(int));
    size_t cells = (size_t)vertices * k, size = index_at + cells * (sizeof(int) + sizeof(double)) + 32;
    crafted c = { calloc(size, 1), size };
    memcpy(c.bytes, valid->bytes, index_at);
    write_int(&c, counts_at + 8, vertices);
    int *index = (int *)(void *)(c.bytes + index_at);
    double weight[OP_SKIN_MAX_K * 2];
    for (size_t v = 0; v < (size_t)vertices; ++v)
        for (size_t j = 0; j < k; ++j) {
            size_t from = (v < (size_t)skin->vertex_count ? v : 0) * k + j;
            memcpy(&index[v * k + j], &skin->index[from], sizeof(int));
            weight[0] = skin->weight[from];
            memcpy(c.bytes + index_at + cells * sizeof(int) + (v * k + j) * sizeof(double), weight, sizeof(double));
        }
    return c;
}

static void test_crafted_entries_are_rebuilt(void **state)
{
    (void)state;
    const char *directory = use_fresh_cache();
    char secret_path[1024];
    assert_int_equal(test_shell("mkdir -p '%s'", directory), 0);
    snprintf(secret_path, sizeof secret_path, "%s/secret", directory);
    write_bytes(secret_path, test_secret, sizeof test_secret);
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_mesh mesh = { 0 };
    op_build_def def = op_default_build_def();
    def.particles = 40;
    op_graph fresh, graph;
    op_skin fresh_skin, skin;
    char path[4096];
    assert_int_equal(op_shape_mesh(&ctx, "bar", &mesh), OP_OK);
    assert_int_equal(mesh.vertex_count, 674);
    assert_int_equal(op_build_body_cached(&ctx, NULL, "bar", &mesh, &def, &fresh, &fresh_skin, NULL, NULL), OP_OK);
    op_graph_cache_outcome outcome;
    assert_int_equal(op_build_body_cached(&ctx, directory, "bar", &mesh, &def, &graph, &skin, NULL, &outcome), OP_OK);
    assert_int_equal(outcome, OP_GRAPH_CACHE_MISS);
    op_graph_free(&graph);
    op_skin_free(&skin);
    assert_int_equal(op_graph_cache_path(&ctx, directory, &mesh, &def, path, sizeof path), OP_OK);
    crafted valid = read_entry(path);
    save_seed("valid-bar-40", &valid);
    int n = fresh.particle_count;
    int32_t counts[4] = { n, fresh.edge_count, fresh_skin.vertex_count, fresh_skin.k };
    size_t counts_at = find(&valid, counts, sizeof counts);
    size_t start_at = find(&valid, fresh.adjacency_start, ((size_t)n + 1) * sizeof(int));
    size_t adjacency_at = start_at + ((size_t)n + 1) * sizeof(int);
    size_t positions_at = find(&valid, fresh.rest_position, 3 * (size_t)n * sizeof(double));
    size_t density_at = find(&valid, &fresh.density, sizeof(double));
    struct {
        const char *name, *reason;
        crafted entry;
    } cases[8];
    int count = 0;
    for (int e = 0; e < 7; ++e) {
        crafted c = { malloc(valid.size), valid.size };
        memcpy(c.bytes, valid.bytes, valid.size);
        const char *name = "", *reason = "";
        int plain = 0;
        switch (e) {
        case 0: /* issue 42 #1: SEGV in op_graph_check */
            write_int(&c, start_at + 19 * sizeof(int), -100000000);
            write_int(&c, adjacency_at, 19);
            name = "start19-minus-1e8", reason = "adjacency";
            break;
        case 1: /* issue 42 #1: heap-buffer-overflow */
            write_int(&c, start_at + 3 * sizeof(int), 1000000000);
            name = "start3-1e9", reason = "adjacency offsets";
            break;
        case 2: /* issue 42 #2 */
            free(c.bytes);
            c = resize_skin(&valid, counts_at, &fresh_skin, 10);
            name = "skin-10-vertices", reason = "skin has 10 vertices";
            break;
        case 3:
            free(c.bytes);
            c = resize_skin(&valid, counts_at, &fresh_skin, 1000);
            name = "skin-1000-vertices", reason = "skin has 1000 vertices";
            break;
        case 4: /* issue 42 #3: counts before size */
            write_int(&c, counts_at, 100000000);
            write_int(&c, counts_at + 4, 1000000000);
            name = "1e8-particles-1e9-edges", reason = "counts need";
            break;
        case 5: { /* issue 42 #7: consistent poisoning, plain checksum recomputed */
            double moved, density;
            memcpy(&moved, c.bytes + positions_at, sizeof moved);
            moved += 0.25;
            memcpy(c.bytes + positions_at, &moved, sizeof moved);
            memcpy(&density, c.bytes + density_at, sizeof density);
            density *= 1000;
            memcpy(c.bytes + density_at, &density, sizeof density);
            plain = 1;
            name = "poisoned-plain-checksum", reason = "checksum";
            break;
        }
        default: /* the key's own bytes edited: the entry no longer names its mesh and def */
            c.bytes[counts_at - 16] ^= 0x01; /* the key is the 32 bytes before the counts */
            name = "key-edited", reason = "another mesh";
            break;
        }
        seal(&c, plain);
        cases[count].name = name;
        cases[count].reason = reason;
        cases[count].entry = c;
        ++count;
    }
    assert_int_equal(read_int(&valid, counts_at), n);
    for (int e = 0; e < count; ++e) {
        crafted *c = &cases[e].entry;
        save_seed(cases[e].name, c);
        write_bytes(path, c->bytes, c->size);
        notices[0] = '\0';
        assert_int_equal(op_build_body_cached(&ctx, directory, "bar", &mesh, &def, &graph, &skin, NULL, &outcome),
                         OP_OK);
        if (outcome != OP_GRAPH_CACHE_DAMAGED && outcome != OP_GRAPH_CACHE_STALE)
            fail_msg("%s: outcome %d, notices: %s", cases[e].name, (int)outcome, notices);
        print_message("%s: %s", cases[e].name, notices);
        if (!strstr(notices, cases[e].reason))
            fail_msg("%s: expected '%s' in the notice: %s", cases[e].name, cases[e].reason, notices);
        assert_graphs_bitwise_equal(&fresh, &graph, &fresh_skin, &skin);
        op_graph_free(&graph);
        op_skin_free(&skin);
        /* rebuilt over: the next load is a hit on the valid entry */
        crafted after = read_entry(path);
        assert_int_equal(after.size, valid.size);
        assert_memory_equal(after.bytes, valid.bytes, valid.size);
        free(after.bytes);
        free(c->bytes);
    }
    free(valid.bytes);
    op_mesh_free(&mesh);
    op_graph_free(&fresh);
    op_skin_free(&fresh_skin);
}

/* Two overlapping cubes as one mesh: a warning naming the first crossing pair when built and
 * again when loaded from the cache; the cube shape alone, none. */
static void test_self_intersecting_mesh_is_reported(void **state)
{
    (void)state;
    const char *directory = use_fresh_cache();
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_mesh mesh = { 0 };
    op_build_def def = op_default_build_def();
    def.particles = 10;
    op_graph graph;
    op_skin skin;
    op_graph_cache_outcome outcome;
    assert_int_equal(op_mesh_read(&ctx, "tests/data/two-overlapping-cubes.off", &mesh), OP_OK);
    for (int pass = 0; pass < 2; ++pass) {
        notices[0] = '\0';
        assert_int_equal(op_build_body_cached(&ctx, directory, "cubes", &mesh, &def, &graph, &skin, NULL, &outcome), OP_OK);
        assert_int_equal(outcome, pass == 0 ? OP_GRAPH_CACHE_MISS : OP_GRAPH_CACHE_HIT);
        assert_non_null(strstr(notices, "cubes: warning: the mesh's surface intersects itself (triangles 2 and 17 cross"));
        op_graph_free(&graph);
        op_skin_free(&skin);
    }
    op_mesh_free(&mesh);
    notices[0] = '\0';
    assert_int_equal(build_cube(directory, &def, &graph, &skin), OP_GRAPH_CACHE_MISS);
    assert_string_equal(notices, "");
    op_graph_free(&graph);
    op_skin_free(&skin);
}

/* `opsim cache verify` rebuilds entries from the mesh and def they hold and finds them the
 * same; one damaged is INVALID (exit 65); `opsim cache prune` removes it and a dead process's
 * temporary file, keeps the valid one; verify is then clean. */
static void test_cache_commands(void **state)
{
    (void)state;
    const char *directory = use_fresh_cache();
    char out[512], log[512];
    snprintf(out, sizeof out, "%s", test_tmp_path(".h5"));
    snprintf(log, sizeof log, "%s", test_tmp_path(".log"));
    const char *env = "OPSIM_GRAPH_CACHE";
    assert_int_equal(test_shell("for p in 8 12; do %s='%s' bin/opsim graph --shape bar --kind solid --particles $p "
                                "--out '%s' > /dev/null || exit 1; done",
                                env, directory, out),
                     0);
    assert_int_equal(test_shell("%s='%s' bin/opsim cache verify --all > '%s' && grep -q '# 2 of 2 entries: 2 same' '%s'",
                                env, directory, log, log),
                     0);
    assert_int_equal(test_shell("f=$(ls '%s'/*.graph | head -1); printf x | dd of=\"$f\" bs=1 seek=3000 conv=notrunc "
                                "status=none; touch '%s'/0123456789abcdef0123456789abcdef.graph.999999999.tmp",
                                directory, directory),
                     0);
    assert_int_equal(test_shell("%s='%s' bin/opsim cache verify --all > '%s' 2>&1", env, directory, log), 65);
    char *text = test_read_file(log);
    assert_non_null(strstr(text, "1 same, 0 different, 1 invalid"));
    free(text);
    assert_int_equal(test_shell("%s='%s' bin/opsim cache prune > '%s' && grep -q 'kept 1 entries; removed 1 invalid, 0 "
                                "valid (--all), 1 temporary' '%s'",
                                env, directory, log, log),
                     0);
    assert_int_equal(test_shell("%s='%s' bin/opsim cache verify > '%s' && grep -q '# 1 of 1 entries: 1 same' '%s'", env,
                                directory, log, log),
                     0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cached_run_is_the_fresh_run),
        cmocka_unit_test(test_damaged_and_stale_entries_are_rebuilt),
        cmocka_unit_test(test_every_build_parameter_is_in_the_key),
        cmocka_unit_test(test_processes_filling_one_entry),
        cmocka_unit_test(test_crafted_entries_are_rebuilt),
        cmocka_unit_test(test_self_intersecting_mesh_is_reported),
        cmocka_unit_test(test_cache_commands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
