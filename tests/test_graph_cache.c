/* The graph cache (core/geometry/graph_cache.h): a run from cached graphs is bit for bit the run from
 * fresh ones; every builder parameter, and nothing else of op_build_def, is in the key; a
 * damaged or stale entry is rebuilt with a notice; processes filling one entry at once leave a
 * whole entry; the cache can be turned off. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

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
        for (int g = 0; g < 4; ++g) {
            static const char *const groups[] = { "/graph", "/mesh", "/particles", "/surface" };
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
                                "cat '%s'-?.log | grep . && exit 1; ls '%s' | grep -v '[.]graph$' && exit 2; exit 0",
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cached_run_is_the_fresh_run),
        cmocka_unit_test(test_damaged_and_stale_entries_are_rebuilt),
        cmocka_unit_test(test_every_build_parameter_is_in_the_key),
        cmocka_unit_test(test_processes_filling_one_entry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
