/* Tests for the run files (core/io/runfile_*.c): bitwise round trips of a hand-made body, the atomic commit and
 * abort, name rules, export/info output, the check function against corrupted files,
 * determinism of the stored datasets, and the time series, arrays and attributes a simulation
 * adds (including a run killed after a flush). */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <hdf5.h>

#include "opsim/runfile.h"
#include "test_util.h"
#include "geometry/skin.h"

typedef struct body {
    op_graph graph;
    op_mesh mesh;
    op_skin skin;
} body;

static const op_provenance PROVENANCE = {
    .command_line = "opsim run --config test.ini",
    .config_text = "[scene]\nname = chain\nparticles = 4\n",
    .seed = 18446744073709551557ull,
};

static const op_body_info INFO = {
    .kind = "solid",
    .source = "shape:chain",
    .particles_requested = 4,
    .seed = 42,
};

/* Four particles in a chain, each with its own radii and axes rotated about a tilted axis so
 * no matrix entry is trivially 0 or 1; an octahedron skinned to two particles per vertex. */
static void make_body(body *b, int particles)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    int chain = particles - 1;
    assert_int_equal(op_graph_alloc(&ctx, &b->graph, particles, chain), OP_OK);
    for (int i = 0; i < particles; i++) {
        double *x = &b->graph.rest_position[3 * i];
        x[0] = 0.1 * i + 0.013;
        x[1] = 0.02 * i * i;
        x[2] = -0.007 * i;
        double *r = &b->graph.radii[3 * i];
        r[0] = 0.05 + 0.011 * i;
        r[1] = 0.04 + 0.007 * i;
        r[2] = 0.03 + 0.003 * i;
        /* Rotation by angle t about the unit axis u (Rodrigues), row-major. */
        double t = 0.3 + 0.4 * i, c = cos(t), s = sin(t), k = 1 - c;
        double u[3] = { 1 / sqrt(3.0), 1 / sqrt(3.0), 1 / sqrt(3.0) };
        double *E = &b->graph.rest_axes[9 * i];
        E[0] = c + u[0] * u[0] * k;
        E[1] = u[0] * u[1] * k - u[2] * s;
        E[2] = u[0] * u[2] * k + u[1] * s;
        E[3] = u[1] * u[0] * k + u[2] * s;
        E[4] = c + u[1] * u[1] * k;
        E[5] = u[1] * u[2] * k - u[0] * s;
        E[6] = u[2] * u[0] * k - u[1] * s;
        E[7] = u[2] * u[1] * k + u[0] * s;
        E[8] = c + u[2] * u[2] * k;
    }
    int *edges = calloc(2 * (size_t)(chain > 0 ? chain : 1), sizeof *edges);
    assert_non_null(edges);
    for (int e = 0; e < chain; e++) {
        /* Written j, i on purpose: the file must hold them as i < j. */
        edges[2 * e] = e + 1;
        edges[2 * e + 1] = e;
    }
    assert_int_equal(op_graph_set_edges(&ctx, &b->graph, edges, chain), OP_OK);
    free(edges);
    op_graph_derive(&b->graph, 1000.0);

    static const double vertices[6][3] = { { 0.3, 0, 0 }, { -0.3, 0, 0 }, { 0, 0.3, 0 },
                                           { 0, -0.3, 0 }, { 0, 0, 0.3 }, { 0, 0, -0.3 } };
    static const int faces[8][3] = { { 0, 2, 4 }, { 2, 1, 4 }, { 1, 3, 4 }, { 3, 0, 4 },
                                     { 2, 0, 5 }, { 1, 2, 5 }, { 3, 1, 5 }, { 0, 3, 5 } };
    assert_int_equal(op_mesh_alloc(&ctx, &b->mesh, 6, 8), OP_OK);
    memcpy(b->mesh.vertices, vertices, sizeof vertices);
    memcpy(b->mesh.faces, faces, sizeof faces);
    b->mesh.polygon_count = 7;

    assert_int_equal(op_skin_alloc(&ctx, &b->skin, 6, 2), OP_OK);
    for (int v = 0; v < 6; v++) {
        b->skin.index[2 * v] = v % particles;
        b->skin.index[2 * v + 1] = (v + 1) % particles;
        /* Not representable in float32, so a narrowed store would show. */
        b->skin.weight[2 * v] = 2.0 / 3.0;
        b->skin.weight[2 * v + 1] = 1.0 / 3.0;
    }
}

static void free_body(body *b)
{
    op_graph_free(&b->graph);
    op_mesh_free(&b->mesh);
    op_skin_free(&b->skin);
}

/* Every file or directory a test makes is removed by the group teardown, newest first so a
 * directory is empty by then, also after a failed test. */
static char created[64][600];
static int created_count;

static const char *remember(const char *path)
{
    assert_true(created_count < 64);
    char *copy = created[created_count++];
    snprintf(copy, sizeof created[0], "%s", path);
    return copy;
}

static const char *fresh_path(const char *suffix)
{
    return remember(test_tmp_path(suffix));
}

static int remove_created(void **state)
{
    (void)state;
    while (created_count > 0)
        remove(created[--created_count]);
    return 0;
}

static int file_exists(const char *path)
{
    return access(path, F_OK) == 0;
}

/* Writes the bodies under `names` (all the same body) and commits. */
static void write_run(const char *path, const body *b, const char *const *names, int count)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_runfile run;
    assert_int_equal(op_runfile_create(&ctx, &run, path, &PROVENANCE), OP_OK);
    for (int i = 0; i < count; i++)
        assert_int_equal(op_runfile_write_body(&ctx, &run, names[i], &INFO, &b->graph, &b->mesh,
                                               &b->skin),
                         OP_OK);
    assert_int_equal(op_runfile_commit(&ctx, &run), OP_OK);
    assert_int_equal(ctx.status, OP_OK);
}

static void write_chain(const char *path, const body *b)
{
    const char *names[] = { "chain" };
    write_run(path, b, names, 1);
}

/* Replaces a dataset of a committed file, as a corrupted or hand-edited file would have it. */
static void replace_dataset(const char *path, const char *dataset, hid_t type, int rank,
                            const hsize_t *dims, const void *data)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(file >= 0);
    assert_true(H5Ldelete(file, dataset, H5P_DEFAULT) >= 0);
    hid_t space = rank ? H5Screate_simple(rank, dims, NULL) : H5Screate(H5S_SCALAR);
    hid_t ds = H5Dcreate2(file, dataset, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(ds >= 0);
    assert_true(H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
    H5Dclose(ds);
    H5Sclose(space);
    assert_true(H5Fclose(file) >= 0);
}

static char *export_text(const char *path, const char *dataset, int expected_status)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    assert_non_null(out);
    assert_int_equal(op_runfile_export_tsv(&ctx, path, dataset, out), expected_status);
    fclose(out);
    return text;
}

/* Parses the TSV back into doubles, checking that every line has `columns` fields. */
static size_t parse_tsv(const char *text, int columns, double *values, size_t capacity)
{
    size_t count = 0;
    const char *p = text;
    while (*p) {
        for (int c = 0; c < columns; c++) {
            char *end;
            errno = 0;
            double x = strtod(p, &end);
            assert_true(end != p && errno == 0);
            assert_true(count < capacity);
            values[count++] = x;
            assert_int_equal(*end, c + 1 < columns ? '\t' : '\n');
            p = end + 1;
        }
    }
    return count;
}

/* ------------------------------------------------------------------------------------------ */

static void test_roundtrip_is_bitwise(void **state)
{
    (void)state;
    body b;
    make_body(&b, 4);
    const char *path = fresh_path(".h5");
    write_chain(path, &b);

    op_ctx ctx;
    op_ctx_init(&ctx);
    body r;
    assert_int_equal(op_runfile_read_body(&ctx, path, "chain", &r.graph, &r.mesh, &r.skin), OP_OK);
    int n = b.graph.particle_count, m = b.graph.edge_count;
    assert_int_equal(r.graph.particle_count, n);
    assert_int_equal(r.graph.edge_count, m);
    assert_memory_equal(r.graph.rest_position, b.graph.rest_position, 3 * n * sizeof(double));
    assert_memory_equal(r.graph.rest_axes, b.graph.rest_axes, 9 * n * sizeof(double));
    assert_memory_equal(r.graph.radii, b.graph.radii, 3 * n * sizeof(double));
    assert_memory_equal(r.graph.volume, b.graph.volume, n * sizeof(double));
    assert_memory_equal(r.graph.mass, b.graph.mass, n * sizeof(double));
    assert_memory_equal(r.graph.rest_moment, b.graph.rest_moment, 9 * n * sizeof(double));
    assert_memory_equal(r.graph.adjacency_start, b.graph.adjacency_start, (n + 1) * sizeof(int));
    assert_memory_equal(r.graph.adjacency, b.graph.adjacency, 2 * m * sizeof(int));
    assert_memory_equal(&r.graph.density, &b.graph.density, sizeof(double));

    assert_int_equal(r.mesh.vertex_count, 6);
    assert_int_equal(r.mesh.face_count, 8);
    assert_int_equal(r.mesh.polygon_count, 7);
    assert_memory_equal(r.mesh.vertices, b.mesh.vertices, 18 * sizeof(double));
    assert_memory_equal(r.mesh.faces, b.mesh.faces, 24 * sizeof(int));

    assert_int_equal(r.skin.vertex_count, 6);
    assert_int_equal(r.skin.k, 2);
    assert_memory_equal(r.skin.index, b.skin.index, 12 * sizeof(int));
    assert_memory_equal(r.skin.weight, b.skin.weight, 12 * sizeof(double));
    free_body(&r);

    /* Parts can be skipped. */
    op_mesh mesh;
    assert_int_equal(op_runfile_read_body(&ctx, path, "chain", NULL, &mesh, NULL), OP_OK);
    assert_int_equal(mesh.face_count, 8);
    op_mesh_free(&mesh);

    /* The file is readable as plain HDF5 with the documented layout. */
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(file >= 0);
    int edges[3][2];
    hid_t ds = H5Dopen2(file, "/graph/chain/edges", H5P_DEFAULT);
    assert_true(ds >= 0);
    assert_true(H5Dread(ds, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, edges) >= 0);
    H5Dclose(ds);
    for (int e = 0; e < 3; e++) {
        assert_int_equal(edges[e][0], e);
        assert_int_equal(edges[e][1], e + 1);
    }
    uint64_t seed;
    hid_t attr = H5Aopen(file, "seed", H5P_DEFAULT);
    assert_true(H5Aread(attr, H5T_NATIVE_UINT64, &seed) >= 0);
    H5Aclose(attr);
    assert_true(seed == PROVENANCE.seed);
    H5Fclose(file);
    free_body(&b);
}

static void test_commit_renames_temp_onto_final(void **state)
{
    (void)state;
    body b;
    make_body(&b, 4);
    const char *path = fresh_path(".h5");
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_runfile run;
    assert_int_equal(op_runfile_create(&ctx, &run, path, &PROVENANCE), OP_OK);
    assert_int_equal(
        op_runfile_write_body(&ctx, &run, "chain", &INFO, &b.graph, &b.mesh, &b.skin), OP_OK);
    char temp[4096];
    snprintf(temp, sizeof temp, "%s", run.temp_path);
    assert_true(strncmp(temp, path, strlen(path)) == 0 && strlen(temp) > strlen(path));
    assert_true(file_exists(temp));
    assert_false(file_exists(path));

    assert_int_equal(op_runfile_commit(&ctx, &run), OP_OK);
    assert_true(file_exists(path));
    assert_false(file_exists(temp));
    assert_true(run.file <= 0);

    /* Abort after commit keeps the committed file; a second commit is refused. */
    op_runfile_abort(&run);
    assert_true(file_exists(path));
    assert_int_equal(op_runfile_commit(&ctx, &run), OP_ERR_INVALID);
    free_body(&b);
}

static void test_abort_leaves_no_file(void **state)
{
    (void)state;
    body b;
    make_body(&b, 4);
    const char *path = fresh_path(".h5");
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_runfile run;
    assert_int_equal(op_runfile_create(&ctx, &run, path, &PROVENANCE), OP_OK);
    assert_int_equal(
        op_runfile_write_body(&ctx, &run, "chain", &INFO, &b.graph, &b.mesh, &b.skin), OP_OK);
    char temp[4096];
    snprintf(temp, sizeof temp, "%s", run.temp_path);
    op_runfile_abort(&run);
    assert_false(file_exists(temp));
    assert_false(file_exists(path));
    assert_true(run.file <= 0);
    op_runfile_abort(&run);

    assert_int_equal(op_runfile_write_body(&ctx, &run, "more", &INFO, &b.graph, &b.mesh, &b.skin),
                     OP_ERR_INVALID);

    op_runfile never = { 0 };
    op_runfile_abort(&never);
    free_body(&b);
}

static void test_failed_commit_removes_temp(void **state)
{
    (void)state;
    body b;
    make_body(&b, 4);
    /* The final name is a non-empty directory, so the rename fails. */
    const char *dir = fresh_path(".dir");
    assert_int_equal(mkdir(dir, 0777), 0);
    char inside[600];
    snprintf(inside, sizeof inside, "%s/keep", dir);
    remember(inside);
    FILE *f = fopen(inside, "w");
    assert_non_null(f);
    fclose(f);
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_runfile run;
    assert_int_equal(op_runfile_create(&ctx, &run, dir, &PROVENANCE), OP_OK);
    assert_int_equal(
        op_runfile_write_body(&ctx, &run, "chain", &INFO, &b.graph, &b.mesh, &b.skin), OP_OK);
    char temp[4096];
    snprintf(temp, sizeof temp, "%s", run.temp_path);
    assert_int_equal(op_runfile_commit(&ctx, &run), OP_ERR_IO);
    assert_non_null(strstr(ctx.message, dir));
    assert_false(file_exists(temp));
    assert_true(run.file <= 0);
    op_runfile_abort(&run);
    free_body(&b);
}

static void test_missing_directory_fails(void **state)
{
    (void)state;
    const char *path = "build/test-tmp/no-such-directory/sub/run.h5";
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_runfile run;
    assert_int_equal(op_runfile_create(&ctx, &run, path, &PROVENANCE), OP_ERR_IO);
    assert_non_null(strstr(ctx.message, path));
    assert_true(run.file <= 0);
    assert_false(file_exists(path));
    op_runfile_abort(&run);
}

static void test_invalid_and_duplicate_names(void **state)
{
    (void)state;
    body b;
    make_body(&b, 4);
    const char *path = fresh_path(".h5");
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_runfile run;
    assert_int_equal(op_runfile_create(&ctx, &run, path, &PROVENANCE), OP_OK);

    char too_long[65];
    memset(too_long, 'a', 64);
    too_long[64] = '\0';
    const char *bad[] = { "", "with space", "a/b", "..", "dot.name", "é", too_long, NULL };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        op_ctx_init(&ctx);
        assert_int_equal(op_runfile_write_body(&ctx, &run, bad[i], &INFO, &b.graph, &b.mesh,
                                               &b.skin),
                         OP_ERR_INVALID);
        assert_non_null(strstr(ctx.message, "invalid body name"));
    }

    op_ctx_init(&ctx);
    too_long[63] = '\0';
    assert_int_equal(
        op_runfile_write_body(&ctx, &run, too_long, &INFO, &b.graph, &b.mesh, &b.skin), OP_OK);
    assert_int_equal(
        op_runfile_write_body(&ctx, &run, "Body_2-x", &INFO, &b.graph, &b.mesh, &b.skin), OP_OK);
    assert_int_equal(
        op_runfile_write_body(&ctx, &run, "Body_2-x", &INFO, &b.graph, &b.mesh, &b.skin),
        OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "Body_2-x"));

    /* The rejected writes left nothing behind: the file still checks. */
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_commit(&ctx, &run), OP_OK);
    assert_int_equal(op_runfile_check(&ctx, path), OP_OK);
    free_body(&b);
}

static void test_inconsistent_body_rejected_before_writing(void **state)
{
    (void)state;
    body b;
    make_body(&b, 4);
    const char *path = fresh_path(".h5");
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_runfile run;
    assert_int_equal(op_runfile_create(&ctx, &run, path, &PROVENANCE), OP_OK);
    b.skin.index[5] = 4;
    assert_int_equal(op_runfile_write_body(&ctx, &run, "chain", &INFO, &b.graph, &b.mesh, &b.skin),
                     OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "binds particle 4"));
    b.skin.index[5] = 0;
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_write_body(&ctx, &run, "chain", &INFO, &b.graph, NULL, &b.skin),
                     OP_ERR_INVALID);
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_write_body(&ctx, &run, "chain", &INFO, &b.graph, &b.mesh, &b.skin),
                     OP_OK);
    op_runfile_abort(&run);
    assert_false(file_exists(path));
    free_body(&b);
}

static void test_body_names_in_order(void **state)
{
    (void)state;
    body b;
    make_body(&b, 4);
    const char *path = fresh_path(".h5");
    const char *names[] = { "zeta", "alpha", "mid" };
    write_run(path, &b, names, 3);

    op_ctx ctx;
    op_ctx_init(&ctx);
    char read[8][OP_RUNFILE_NAME_SIZE];
    int count = -1;
    assert_int_equal(op_runfile_body_names(&ctx, path, read, 8, &count), OP_OK);
    assert_int_equal(count, 3);
    for (int i = 0; i < 3; i++)
        assert_string_equal(read[i], names[i]);
    assert_int_equal(op_runfile_body_names(&ctx, path, read, 2, &count), OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "3 bodies"));

    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_check(&ctx, path), OP_OK);

    /* Other writers (h5py with numpy bytes) store the list as fixed-length strings. */
    hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(file >= 0);
    assert_true(H5Adelete(file, "bodies") >= 0);
    hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, 5);
    H5Tset_strpad(type, H5T_STR_NULLPAD);
    hid_t space = H5Screate_simple(1, (hsize_t[]){ 3 }, NULL);
    hid_t attr = H5Acreate2(file, "bodies", type, space, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(attr >= 0);
    assert_true(H5Awrite(attr, type, "zeta\0alphamid\0\0") >= 0);
    H5Aclose(attr);
    H5Sclose(space);
    H5Tclose(type);
    H5Fclose(file);
    assert_int_equal(op_runfile_body_names(&ctx, path, read, 8, &count), OP_OK);
    assert_int_equal(count, 3);
    for (int i = 0; i < 3; i++)
        assert_string_equal(read[i], names[i]);
    assert_int_equal(op_runfile_check(&ctx, path), OP_OK);
    free_body(&b);
}

static void test_empty_datasets(void **state)
{
    (void)state;
    body b;
    make_body(&b, 1);
    assert_int_equal(b.graph.edge_count, 0);
    /* A body with no faces still has vertices bound to its particle. */
    op_mesh_free(&b.mesh);
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_mesh_alloc(&ctx, &b.mesh, 6, 0), OP_OK);
    const char *path = fresh_path(".h5");
    write_chain(path, &b);
    assert_int_equal(op_runfile_check(&ctx, path), OP_OK);

    body r;
    assert_int_equal(op_runfile_read_body(&ctx, path, "chain", &r.graph, &r.mesh, &r.skin), OP_OK);
    assert_int_equal(r.graph.particle_count, 1);
    assert_int_equal(r.graph.edge_count, 0);
    assert_int_equal(r.mesh.face_count, 0);
    assert_memory_equal(r.graph.mass, b.graph.mass, sizeof(double));
    free_body(&r);

    char *text = export_text(path, "/graph/chain/edges", OP_OK);
    assert_string_equal(text, "");
    free(text);
    free_body(&b);

    /* A run with no bodies commits and checks too. */
    path = fresh_path(".h5");
    write_run(path, NULL, NULL, 0);
    assert_int_equal(op_runfile_check(&ctx, path), OP_OK);
    char names[1][OP_RUNFILE_NAME_SIZE];
    int count = -1;
    assert_int_equal(op_runfile_body_names(&ctx, path, names, 1, &count), OP_OK);
    assert_int_equal(count, 0);
}

static void test_export_tsv_parses_back(void **state)
{
    (void)state;
    body b;
    make_body(&b, 4);
    const char *path = fresh_path(".h5");
    write_chain(path, &b);

    double values[64];
    char *text = export_text(path, "/graph/chain/rest_axes", OP_OK);
    assert_int_equal(parse_tsv(text, 9, values, 64), 36);
    assert_memory_equal(values, b.graph.rest_axes, 36 * sizeof(double));
    free(text);

    text = export_text(path, "graph/chain/mass", OP_OK);
    assert_int_equal(parse_tsv(text, 1, values, 64), 4);
    assert_memory_equal(values, b.graph.mass, 4 * sizeof(double));
    free(text);

    text = export_text(path, "/graph/chain/edges", OP_OK);
    assert_string_equal(text, "0\t1\n1\t2\n2\t3\n");
    free(text);

    text = export_text(path, "/mesh/chain/skin_weight", OP_OK);
    assert_int_equal(parse_tsv(text, 2, values, 64), 12);
    assert_memory_equal(values, b.skin.weight, 12 * sizeof(double));
    free(text);

    op_ctx ctx;
    op_ctx_init(&ctx);
    FILE *out = tmpfile();
    assert_non_null(out);
    assert_int_equal(op_runfile_export_tsv(&ctx, path, "/graph/chain/nothing", out),
                     OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, path));
    assert_non_null(strstr(ctx.message, "no dataset /graph/chain/nothing"));
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_export_tsv(&ctx, path, "/nowhere/at/all", out), OP_ERR_INVALID);
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_export_tsv(&ctx, path, "/graph/chain", out), OP_ERR_INVALID);
    fclose(out);

    /* Rank 0 is one value; a 3-D integer dataset flattens its trailing dimensions. */
    double pi = 3.141592653589793;
    replace_dataset(path, "/graph/chain/volume", H5T_NATIVE_DOUBLE, 0, NULL, &pi);
    text = export_text(path, "/graph/chain/volume", OP_OK);
    assert_string_equal(text, "3.1415926535897931\n");
    free(text);
    long long cube[2][2][3] = { { { 1, -2, 3 }, { 4, 5, 6 } },
                                { { -7, 8, 9 }, { 10, 11, -9000000000LL } } };
    replace_dataset(path, "/mesh/chain/faces", H5T_NATIVE_LLONG, 3, (hsize_t[]){ 2, 2, 3 }, cube);
    text = export_text(path, "/mesh/chain/faces", OP_OK);
    assert_string_equal(text, "1\t-2\t3\t4\t5\t6\n-7\t8\t9\t10\t11\t-9000000000\n");
    free(text);
    free_body(&b);
}

static void test_info_lists_layout(void **state)
{
    (void)state;
    body b;
    make_body(&b, 4);
    const char *path = fresh_path(".h5");
    write_chain(path, &b);

    op_ctx ctx;
    op_ctx_init(&ctx);
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    assert_non_null(out);
    assert_int_equal(op_runfile_info(&ctx, path, out), OP_OK);
    fclose(out);
    const char *expected[] = {
        "program = opsim",
        "seed = 18446744073709551557",
        "bodies = [chain]",
        "config = [scene] (3 lines)",
        "command_line = opsim run --config test.ini",
        "/graph/chain/rest_axes  [4,3,3] float64\n",
        "/graph/chain/edges  [3,2] int32\n",
        "/mesh/chain/skin_index  [6,2] int32\n",
        "kind = solid",
        "density = 1000",
    };
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
        if (!strstr(text, expected[i]))
            fail_msg("info output lacks \"%s\":\n%s", expected[i], text);
    /* Name order, indented by depth. */
    const char *edges = strstr(text, "\n      /graph/chain/edges");
    const char *axes = strstr(text, "\n      /graph/chain/rest_axes");
    assert_non_null(edges);
    assert_non_null(axes);
    assert_true(edges < axes);
    assert_true(strstr(text, "\n  /graph/\n") != NULL);
    free(text);

    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_info(&ctx, "build/test-tmp/absent.h5", stdout), OP_ERR_IO);
    assert_non_null(strstr(ctx.message, "absent.h5"));
    free_body(&b);
}

static void test_check_rejects_wrong_shape(void **state)
{
    (void)state;
    body b;
    make_body(&b, 4);
    const char *path = fresh_path(".h5");
    write_chain(path, &b);
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_check(&ctx, path), OP_OK);

    double radii[4][2] = { { 1, 2 }, { 3, 4 }, { 5, 6 }, { 7, 8 } };
    replace_dataset(path, "/graph/chain/radii", H5T_NATIVE_DOUBLE, 2, (hsize_t[]){ 4, 2 }, radii);
    assert_int_equal(op_runfile_check(&ctx, path), OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, path));
    assert_non_null(strstr(ctx.message, "/graph/chain/radii"));
    assert_non_null(strstr(ctx.message, "[4,2]"));

    op_ctx_init(&ctx);
    op_graph graph;
    assert_int_equal(op_runfile_read_body(&ctx, path, "chain", &graph, NULL, NULL),
                     OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "/graph/chain/radii"));
    assert_null(graph.radii);
    free_body(&b);
}

static void test_check_rejects_bad_contents(void **state)
{
    (void)state;
    body b;
    make_body(&b, 4);
    const char *path;
    op_ctx ctx;

    /* Out-of-range edge. */
    path = fresh_path(".h5");
    write_chain(path, &b);
    int edges[3][2] = { { 0, 1 }, { 1, 2 }, { 2, 4 } };
    replace_dataset(path, "/graph/chain/edges", H5T_NATIVE_INT, 2, (hsize_t[]){ 3, 2 }, edges);
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_check(&ctx, path), OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "edges"));

    int reversed[3][2] = { { 0, 1 }, { 2, 1 }, { 2, 3 } };
    replace_dataset(path, "/graph/chain/edges", H5T_NATIVE_INT, 2, (hsize_t[]){ 3, 2 }, reversed);
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_check(&ctx, path), OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "row 1 is (2, 1), not i < j"));

    /* Edges out of canonical order are read but do not check. */
    int swapped[3][2] = { { 1, 2 }, { 0, 1 }, { 2, 3 } };
    replace_dataset(path, "/graph/chain/edges", H5T_NATIVE_INT, 2, (hsize_t[]){ 3, 2 }, swapped);
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_check(&ctx, path), OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "unsorted"));
    op_ctx_init(&ctx);
    op_graph graph;
    assert_int_equal(op_runfile_read_body(&ctx, path, "chain", &graph, NULL, NULL), OP_OK);
    op_graph_free(&graph);

    /* Stored masses that disagree with the radii and density. */
    path = fresh_path(".h5");
    write_chain(path, &b);
    double mass[4];
    for (int i = 0; i < 4; i++)
        mass[i] = b.graph.mass[i] * (1 + 1e-9);
    replace_dataset(path, "/graph/chain/mass", H5T_NATIVE_DOUBLE, 1, (hsize_t[]){ 4 }, mass);
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_read_body(&ctx, path, "chain", &graph, NULL, NULL),
                     OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "inconsistent"));
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_check(&ctx, path), OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "inconsistent"));

    /* Skin rows that do not match the mesh vertices. */
    path = fresh_path(".h5");
    write_chain(path, &b);
    int index[5][2] = { { 0 } };
    replace_dataset(path, "/mesh/chain/skin_index", H5T_NATIVE_INT, 2, (hsize_t[]){ 5, 2 }, index);
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_check(&ctx, path), OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "skin_index"));

    /* A missing dataset, and a dataset of the wrong type. */
    path = fresh_path(".h5");
    write_chain(path, &b);
    replace_dataset(path, "/mesh/chain/rest_vertices", H5T_NATIVE_INT, 2, (hsize_t[]){ 5, 2 },
                    index);
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_check(&ctx, path), OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "rest_vertices is int32"));
    path = fresh_path(".h5");
    write_chain(path, &b);
    hid_t file = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(H5Ldelete(file, "/mesh/chain/faces", H5P_DEFAULT) >= 0);
    H5Fclose(file);
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_check(&ctx, path), OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "missing dataset /mesh/chain/faces"));
    free_body(&b);
}

static void test_read_errors_name_file_and_body(void **state)
{
    (void)state;
    body b;
    make_body(&b, 4);
    const char *path = fresh_path(".h5");
    write_chain(path, &b);
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_graph graph;
    assert_int_equal(op_runfile_read_body(&ctx, path, "other", &graph, NULL, NULL),
                     OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, path));
    assert_non_null(strstr(ctx.message, "no body other"));

    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_read_body(&ctx, "build/test-tmp/absent.h5", "chain", &graph, NULL,
                                          NULL),
                     OP_ERR_IO);
    assert_non_null(strstr(ctx.message, "absent.h5"));

    /* A file that is not HDF5. */
    const char *text_path = fresh_path(".txt");
    FILE *f = fopen(text_path, "w");
    assert_non_null(f);
    fputs("not hdf5\n", f);
    fclose(f);
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_check(&ctx, text_path), OP_ERR_IO);
    assert_non_null(strstr(ctx.message, text_path));
    free_body(&b);
}

/* Reads a whole dataset as raw bytes in its own type for an exact comparison. */
static void *raw_dataset(const char *path, const char *name, size_t *size)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(file >= 0);
    hid_t ds = H5Dopen2(file, name, H5P_DEFAULT);
    assert_true(ds >= 0);
    hid_t type = H5Dget_type(ds), space = H5Dget_space(ds);
    *size = (size_t)H5Sget_simple_extent_npoints(space) * H5Tget_size(type);
    void *data = calloc(*size + 1, 1);
    assert_non_null(data);
    if (*size)
        assert_true(H5Dread(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
    H5Tclose(type);
    H5Sclose(space);
    H5Dclose(ds);
    H5Fclose(file);
    return data;
}

static void test_same_body_same_datasets(void **state)
{
    (void)state;
    body b;
    make_body(&b, 4);
    const char *first = fresh_path(".h5");
    const char *second = fresh_path(".h5");
    write_chain(first, &b);
    /* The second file is written from a body rebuilt from scratch, not the same memory. */
    body again;
    make_body(&again, 4);
    write_chain(second, &again);

    const char *datasets[] = {
        "/graph/chain/rest_position", "/graph/chain/rest_axes", "/graph/chain/radii",
        "/graph/chain/volume",        "/graph/chain/mass",      "/graph/chain/edges",
        "/mesh/chain/rest_vertices",  "/mesh/chain/faces",      "/mesh/chain/skin_index",
        "/mesh/chain/skin_weight",
    };
    for (size_t i = 0; i < sizeof datasets / sizeof datasets[0]; i++) {
        size_t size_a, size_b;
        void *a = raw_dataset(first, datasets[i], &size_a);
        void *c = raw_dataset(second, datasets[i], &size_b);
        assert_int_equal(size_a, size_b);
        assert_true(size_a > 0);
        assert_memory_equal(a, c, size_a);
        free(a);
        free(c);
        char *text_a = export_text(first, datasets[i], OP_OK);
        char *text_b = export_text(second, datasets[i], OP_OK);
        assert_string_equal(text_a, text_b);
        free(text_a);
        free(text_b);
    }
    free_body(&b);
    free_body(&again);
}

/* An instance's groups are links to the first body's: the same bytes under both names, read
 * back as the same body, and stored once (the file hardly grows with a second instance). */
static void test_instances_link_the_first_body(void **state)
{
    (void)state;
    body b;
    make_body(&b, 40);
    const char *one = fresh_path(".h5"), *three = fresh_path(".h5");
    write_chain(one, &b);
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_runfile run;
    assert_int_equal(op_runfile_create(&ctx, &run, three, &PROVENANCE), OP_OK);
    assert_int_equal(op_runfile_write_body(&ctx, &run, "chain", &INFO, &b.graph, &b.mesh, &b.skin), OP_OK);
    assert_int_equal(op_runfile_write_instance(&ctx, &run, "chain-1", "chain"), OP_OK);
    assert_int_equal(op_runfile_write_instance(&ctx, &run, "chain-2", "chain-1"), OP_OK);
    assert_int_equal(op_runfile_write_instance(&ctx, &run, "chain-2", "chain"), OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "written twice"));
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_write_instance(&ctx, &run, "other", "chian"), OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "chian"));
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_write_instance(&ctx, &run, "bad name", "chain"), OP_ERR_INVALID);
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_commit(&ctx, &run), OP_OK);

    char names[4][OP_RUNFILE_NAME_SIZE];
    int count = 0;
    assert_int_equal(op_runfile_body_names(&ctx, three, names, 4, &count), OP_OK);
    assert_int_equal(count, 3);
    assert_string_equal(names[2], "chain-2");
    assert_int_equal(op_runfile_check(&ctx, three), OP_OK);
    const char *datasets[] = { "rest_position", "radii", "edges", "rest_vertices", "skin_weight" };
    for (size_t i = 0; i < sizeof datasets / sizeof datasets[0]; i++) {
        char first[128], linked[128];
        const char *group = i < 3 ? "graph" : "mesh";
        snprintf(first, sizeof first, "/%s/chain/%s", group, datasets[i]);
        snprintf(linked, sizeof linked, "/%s/chain-2/%s", group, datasets[i]);
        size_t size_a, size_b;
        void *a = raw_dataset(three, first, &size_a), *c = raw_dataset(three, linked, &size_b);
        assert_int_equal(size_a, size_b);
        assert_memory_equal(a, c, size_a);
        free(a);
        free(c);
    }
    op_graph graph = { 0 };
    assert_int_equal(op_runfile_read_body(&ctx, three, "chain-1", &graph, NULL, NULL), OP_OK);
    assert_int_equal(graph.particle_count, b.graph.particle_count);
    assert_memory_equal(graph.rest_position, b.graph.rest_position, 3 * sizeof(double) * (size_t)graph.particle_count);
    op_graph_free(&graph);
    struct stat single, triple;
    assert_int_equal(stat(one, &single), 0);
    assert_int_equal(stat(three, &triple), 0);
    assert_le((double)triple.st_size, 1.1 * (double)single.st_size);
    free_body(&b);
}

/* ------------------------------------------------------------------------------------------ */
/* Time series, arrays and attributes                                                          */

enum { FRAME_PARTICLES = 4400 };

/* A frame of positions or orientations whose every value differs from frame to frame and is
 * not a short decimal, so a narrowed or misplaced row would show. */
static void fill_frame(double *x, size_t count, int frame)
{
    for (size_t i = 0; i < count; i++)
        x[i] = sin(0.37 * (double)i + 1.1 * frame) / 3.0;
}

static char *info_text(const char *path)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    assert_non_null(out);
    assert_int_equal(op_runfile_info(&ctx, path, out), OP_OK);
    fclose(out);
    return text;
}

static void assert_contains(const char *text, const char *expected)
{
    if (!strstr(text, expected))
        fail_msg("output lacks \"%s\":\n%.4000s", expected, text);
}

/* Reads attribute `name` of `object` in memory type `type` into value. */
static void read_attribute(const char *path, const char *object, const char *name, hid_t type,
                           void *value)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(file >= 0);
    hid_t attr = H5Aopen_by_name(file, object, name, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(attr >= 0);
    assert_true(H5Aread(attr, type, value) >= 0);
    H5Aclose(attr);
    H5Fclose(file);
}

/* Text attributes are fixed-length UTF-8 strings, as long as the value and its '\0' (no
 * global heap: core/io/runfile_write.c, write_strings). */
static void assert_string_attribute(const char *path, const char *object, const char *name,
                                    const char *expected)
{
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(file >= 0);
    hid_t attr = H5Aopen_by_name(file, object, name, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(attr >= 0);
    hid_t stored = H5Aget_type(attr);
    assert_int_equal(H5Tis_variable_str(stored), 0);
    assert_int_equal(H5Tget_cset(stored), H5T_CSET_UTF8);
    size_t size = H5Tget_size(stored);
    assert_int_equal(size, strlen(expected) + 1);
    char *value = calloc(size, 1);
    assert_non_null(value);
    assert_true(H5Aread(attr, stored, value) >= 0);
    assert_string_equal(value, expected);
    free(value);
    H5Tclose(stored);
    H5Aclose(attr);
    H5Fclose(file);
}

static void test_series_append_in_batches_is_bitwise(void **state)
{
    (void)state;
    body b;
    make_body(&b, 4);
    const char *path = fresh_path(".h5");
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_runfile run;
    assert_int_equal(op_runfile_create(&ctx, &run, path, &PROVENANCE), OP_OK);
    assert_int_equal(
        op_runfile_write_body(&ctx, &run, "chain", &INFO, &b.graph, &b.mesh, &b.skin), OP_OK);

    op_series position, orientation, step, time;
    assert_int_equal(op_series_create(&ctx, &run, &position, "/particles/position/value",
                                      OP_SERIES_FLOAT64, 2, (int64_t[]){ FRAME_PARTICLES, 3 },
                                      "m", "particle centres"),
                     OP_OK);
    assert_int_equal(op_series_create(&ctx, &run, &orientation, "/particles/orientation/value",
                                      OP_SERIES_FLOAT64, 3,
                                      (int64_t[]){ FRAME_PARTICLES, 3, 3 }, NULL, NULL),
                     OP_OK);
    assert_int_equal(op_series_create(&ctx, &run, &step, "/particles/position/step",
                                      OP_SERIES_INT64, 0, NULL, NULL, "frame index"),
                     OP_OK);
    assert_int_equal(op_series_create(&ctx, &run, &time, "/particles/position/time",
                                      OP_SERIES_FLOAT64, 0, NULL, "s", NULL),
                     OP_OK);
    assert_int_equal(position.rows, 0);

    /* Batches of 1, 0, 3 and 2 frames: six in all. */
    enum { FRAMES = 6 };
    const size_t p = 3 * FRAME_PARTICLES, o = 9 * FRAME_PARTICLES;
    double *positions = calloc(FRAMES * p, sizeof *positions);
    double *orientations = calloc(FRAMES * o, sizeof *orientations);
    assert_non_null(positions);
    assert_non_null(orientations);
    int64_t steps[FRAMES];
    double times[FRAMES];
    for (int f = 0; f < FRAMES; f++) {
        fill_frame(positions + f * p, p, f);
        fill_frame(orientations + f * o, o, -f);
        /* Beyond 32 bits, so a narrowed store would show. */
        steps[f] = 5000000000LL * f - 1;
        times[f] = f / 30.0;
    }
    const long batches[] = { 1, 0, 3, 2 };
    long first = 0;
    for (size_t i = 0; i < sizeof batches / sizeof batches[0]; i++) {
        long n = batches[i];
        assert_int_equal(op_series_append(&ctx, &run, &position, positions + first * p, n), OP_OK);
        assert_int_equal(
            op_series_append(&ctx, &run, &orientation, orientations + first * o, n), OP_OK);
        assert_int_equal(op_series_append(&ctx, &run, &step, steps + first, n), OP_OK);
        assert_int_equal(op_series_append(&ctx, &run, &time, times + first, n), OP_OK);
        first += n;
        assert_int_equal(position.rows, first);
        assert_int_equal(op_runfile_flush(&ctx, &run), OP_OK);
    }
    assert_int_equal(op_series_close(&ctx, &run, &orientation), OP_OK);
    assert_true(orientation.dataset <= 0);
    assert_int_equal(op_runfile_commit(&ctx, &run), OP_OK);
    assert_int_equal(ctx.status, OP_OK);

    size_t size;
    void *data = raw_dataset(path, "/particles/position/value", &size);
    assert_int_equal(size, FRAMES * p * sizeof(double));
    assert_memory_equal(data, positions, size);
    free(data);
    data = raw_dataset(path, "/particles/orientation/value", &size);
    assert_int_equal(size, FRAMES * o * sizeof(double));
    assert_memory_equal(data, orientations, size);
    free(data);
    data = raw_dataset(path, "/particles/position/step", &size);
    assert_int_equal(size, sizeof steps);
    assert_memory_equal(data, steps, size);
    free(data);
    data = raw_dataset(path, "/particles/position/time", &size);
    assert_int_equal(size, sizeof times);
    assert_memory_equal(data, times, size);
    free(data);

    /* The export parses back to the same bits: one line per frame, N x 3 columns. */
    double *values = calloc(FRAMES * p, sizeof *values);
    assert_non_null(values);
    char *text = export_text(path, "/particles/position/value", OP_OK);
    assert_int_equal(parse_tsv(text, (int)p, values, FRAMES * p), FRAMES * p);
    assert_memory_equal(values, positions, FRAMES * p * sizeof(double));
    free(text);
    values = realloc(values, FRAMES * o * sizeof *values);
    assert_non_null(values);
    text = export_text(path, "/particles/orientation/value", OP_OK);
    assert_int_equal(parse_tsv(text, (int)o, values, FRAMES * o), FRAMES * o);
    assert_memory_equal(values, orientations, FRAMES * o * sizeof(double));
    free(text);
    free(values);
    text = export_text(path, "/particles/position/step", OP_OK);
    assert_string_equal(text, "-1\n4999999999\n9999999999\n14999999999\n19999999999\n"
                              "24999999999\n");
    free(text);

    /* Rows keep the trailing shape they were created with; the file still checks. */
    text = info_text(path);
    assert_contains(text, "/particles/position/value  [6,4400,3] float64 extendible\n");
    assert_contains(text, "/particles/orientation/value  [6,4400,3,3] float64 extendible\n");
    assert_contains(text, "/particles/position/step  [6] int64 extendible\n");
    assert_contains(text, "unit = m\n");
    assert_contains(text, "description = particle centres\n");
    assert_contains(text, "/graph/chain/rest_axes  [4,3,3] float64\n");
    free(text);
    assert_int_equal(op_runfile_check(&ctx, path), OP_OK);
    assert_string_attribute(path, "/particles/position/step", "description", "frame index");
    assert_string_attribute(path, "/particles/position/time", "unit", "s");
    free(positions);
    free(orientations);
    free_body(&b);
}

static void test_series_energy_table_and_timing_column(void **state)
{
    (void)state;
    const char *path = fresh_path(".h5");
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_runfile run;
    assert_int_equal(op_runfile_create(&ctx, &run, path, &PROVENANCE), OP_OK);
    /* Three sub-steps of three iterations: I + 1 = 4 energies per sub-step. */
    enum { SUBSTEPS = 3, ENERGIES = 4, FRAMES = 5 };
    op_series energy, timing;
    assert_int_equal(op_series_create(&ctx, &run, &energy, "/solver/energy/total",
                                      OP_SERIES_FLOAT64, 1, (int64_t[]){ ENERGIES }, "J", NULL),
                     OP_OK);
    assert_int_equal(op_series_create(&ctx, &run, &timing, "/timing/total", OP_SERIES_FLOAT64, 0,
                                      NULL, "ms", NULL),
                     OP_OK);
    double energies[FRAMES * SUBSTEPS * ENERGIES], timings[FRAMES];
    for (int f = 0; f < FRAMES; f++) {
        for (int i = 0; i < SUBSTEPS * ENERGIES; i++)
            energies[f * SUBSTEPS * ENERGIES + i] = 1.0 / (3.0 + f * 17 + i);
        timings[f] = 0.1 * (f + 1) / 7.0;
        /* One frame's sub-steps in one call, as the frame loop will do. */
        assert_int_equal(op_series_append(&ctx, &run, &energy,
                                          energies + f * SUBSTEPS * ENERGIES, SUBSTEPS),
                         OP_OK);
        assert_int_equal(op_series_append(&ctx, &run, &timing, timings + f, 1), OP_OK);
    }
    assert_int_equal(op_runfile_commit(&ctx, &run), OP_OK);

    double values[FRAMES * SUBSTEPS * ENERGIES];
    char *text = export_text(path, "/solver/energy/total", OP_OK);
    assert_int_equal(parse_tsv(text, ENERGIES, values, FRAMES * SUBSTEPS * ENERGIES),
                     FRAMES * SUBSTEPS * ENERGIES);
    assert_memory_equal(values, energies, sizeof energies);
    free(text);
    text = export_text(path, "/timing/total", OP_OK);
    assert_int_equal(parse_tsv(text, 1, values, FRAMES), FRAMES);
    assert_memory_equal(values, timings, sizeof timings);
    free(text);

    text = info_text(path);
    assert_contains(text, "/solver/energy/total  [15,4] float64 extendible\n");
    assert_contains(text, "/timing/total  [5] float64 extendible\n");
    free(text);
    /* A run without bodies but with series checks too. */
    assert_int_equal(op_runfile_check(&ctx, path), OP_OK);
}

static void test_series_with_no_rows(void **state)
{
    (void)state;
    const char *path = fresh_path(".h5");
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_runfile run;
    assert_int_equal(op_runfile_create(&ctx, &run, path, &PROVENANCE), OP_OK);
    op_series empty, scalar;
    assert_int_equal(op_series_create(&ctx, &run, &empty, "/observables/tip/value",
                                      OP_SERIES_FLOAT64, 1, (int64_t[]){ 3 }, NULL, NULL),
                     OP_OK);
    assert_int_equal(op_series_create(&ctx, &run, &scalar, "/observables/tip/step",
                                      OP_SERIES_INT64, 0, NULL, NULL, NULL),
                     OP_OK);
    /* Zero rows need no data. */
    assert_int_equal(op_series_append(&ctx, &run, &empty, NULL, 0), OP_OK);
    assert_int_equal(op_runfile_flush(&ctx, &run), OP_OK);
    assert_int_equal(op_runfile_commit(&ctx, &run), OP_OK);

    char *text = export_text(path, "/observables/tip/value", OP_OK);
    assert_string_equal(text, "");
    free(text);
    text = export_text(path, "/observables/tip/step", OP_OK);
    assert_string_equal(text, "");
    free(text);
    text = info_text(path);
    assert_contains(text, "/observables/tip/value  [0,3] float64 extendible\n");
    assert_contains(text, "/observables/tip/step  [0] int64 extendible\n");
    free(text);
    assert_int_equal(op_runfile_check(&ctx, path), OP_OK);
}

static void test_series_errors(void **state)
{
    (void)state;
    body b;
    make_body(&b, 4);
    const char *path = fresh_path(".h5");
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_runfile run;
    assert_int_equal(op_runfile_create(&ctx, &run, path, &PROVENANCE), OP_OK);
    assert_int_equal(
        op_runfile_write_body(&ctx, &run, "chain", &INFO, &b.graph, &b.mesh, &b.skin), OP_OK);
    op_series s;
    const int64_t row[] = { 4, 3 };

    char too_long[OP_SERIES_PATH_SIZE + 8];
    memset(too_long, 'a', sizeof too_long - 1);
    too_long[sizeof too_long - 1] = '\0';
    for (size_t i = 0; i < sizeof too_long - 1; i += 32)
        too_long[i] = '/';
    const char *bad[] = { NULL, "", "/", "relative/path", "/a//b", "/a/", "/a/b.c", "/a/ b",
                          "/../x", too_long };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        op_ctx_init(&ctx);
        assert_int_equal(op_series_create(&ctx, &run, &s, bad[i], OP_SERIES_FLOAT64, 2, row,
                                          NULL, NULL),
                         OP_ERR_INVALID);
        assert_non_null(strstr(ctx.message, "invalid series path"));
        assert_true(s.dataset <= 0);
    }
    /* Through a dataset, onto an existing dataset or group. */
    op_ctx_init(&ctx);
    assert_int_equal(op_series_create(&ctx, &run, &s, "/graph/chain/mass/x", OP_SERIES_FLOAT64, 2,
                                      row, NULL, NULL),
                     OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "/graph/chain/mass is not a group"));
    op_ctx_init(&ctx);
    assert_int_equal(op_series_create(&ctx, &run, &s, "/graph/chain/mass", OP_SERIES_FLOAT64, 2,
                                      row, NULL, NULL),
                     OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "already exists"));
    op_ctx_init(&ctx);
    assert_int_equal(
        op_series_create(&ctx, &run, &s, "/graph", OP_SERIES_FLOAT64, 2, row, NULL, NULL),
        OP_ERR_INVALID);

    /* Bad type and row shapes. */
    op_ctx_init(&ctx);
    assert_int_equal(
        op_series_create(&ctx, &run, &s, "/x/value", (op_series_type)7, 2, row, NULL, NULL),
        OP_ERR_INVALID);
    const int64_t zero[] = { 4, 0 }, negative[] = { -1 }, deep[] = { 2, 2, 2, 2 };
    op_ctx_init(&ctx);
    assert_int_equal(
        op_series_create(&ctx, &run, &s, "/x/value", OP_SERIES_FLOAT64, 2, zero, NULL, NULL),
        OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "/x/value"));
    op_ctx_init(&ctx);
    assert_int_equal(op_series_create(&ctx, &run, &s, "/x/value", OP_SERIES_FLOAT64, 1, negative,
                                      NULL, NULL),
                     OP_ERR_INVALID);
    op_ctx_init(&ctx);
    assert_int_equal(
        op_series_create(&ctx, &run, &s, "/x/value", OP_SERIES_FLOAT64, 4, deep, NULL, NULL),
        OP_ERR_INVALID);
    op_ctx_init(&ctx);
    assert_int_equal(
        op_series_create(&ctx, &run, &s, "/x/value", OP_SERIES_FLOAT64, 2, NULL, NULL, NULL),
        OP_ERR_INVALID);
    op_ctx_init(&ctx);
    assert_int_equal(
        op_series_create(&ctx, &run, &s, "/x/value", OP_SERIES_FLOAT64, -1, row, NULL, NULL),
        OP_ERR_INVALID);

    /* The same path twice. */
    op_ctx_init(&ctx);
    assert_int_equal(
        op_series_create(&ctx, &run, &s, "/x/value", OP_SERIES_FLOAT64, 2, row, NULL, NULL),
        OP_OK);
    op_series again;
    assert_int_equal(
        op_series_create(&ctx, &run, &again, "/x/value", OP_SERIES_INT64, 0, NULL, NULL, NULL),
        OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "/x/value"));
    assert_non_null(strstr(ctx.message, "already exists"));
    assert_true(again.dataset <= 0);

    /* Bad appends leave the rows as they were. */
    double rows[2][4][3] = { { { 0 } } };
    op_ctx_init(&ctx);
    assert_int_equal(op_series_append(&ctx, &run, &s, NULL, 1), OP_ERR_INVALID);
    op_ctx_init(&ctx);
    assert_int_equal(op_series_append(&ctx, &run, &s, rows, -1), OP_ERR_INVALID);
    assert_int_equal(s.rows, 0);
    op_ctx_init(&ctx);
    assert_int_equal(op_series_append(&ctx, &run, &s, rows, 2), OP_OK);

    /* A closed series, a never created one, and one from another run. */
    assert_int_equal(op_series_close(&ctx, &run, &s), OP_OK);
    assert_int_equal(op_series_close(&ctx, &run, &s), OP_OK);
    assert_int_equal(op_series_append(&ctx, &run, &s, rows, 1), OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "series /x/value is not open"));
    op_series never;
    memset(&never, 0, sizeof never);
    op_ctx_init(&ctx);
    assert_int_equal(op_series_append(&ctx, &run, &never, rows, 1), OP_ERR_INVALID);
    op_ctx_init(&ctx);
    assert_int_equal(op_series_append(&ctx, &run, NULL, rows, 1), OP_ERR_INVALID);
    const char *other_path = fresh_path(".h5");
    op_runfile other;
    op_series foreign;
    assert_int_equal(op_runfile_create(&ctx, &other, other_path, &PROVENANCE), OP_OK);
    assert_int_equal(op_series_create(&ctx, &other, &foreign, "/y", OP_SERIES_FLOAT64, 0, NULL,
                                      NULL, NULL),
                     OP_OK);
    assert_int_equal(op_series_append(&ctx, &run, &foreign, rows, 1), OP_ERR_INVALID);
    op_ctx_init(&ctx);
    op_runfile_abort(&other);
    assert_false(file_exists(other_path));
    /* Its run is gone, so the series is closed. */
    assert_int_equal(op_series_append(&ctx, &other, &foreign, rows, 1), OP_ERR_INVALID);
    op_ctx_init(&ctx);
    assert_int_equal(op_series_close(&ctx, &other, &foreign), OP_OK);

    /* None of the failures left anything behind: /x holds only the good series. */
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_commit(&ctx, &run), OP_OK);
    assert_int_equal(op_runfile_check(&ctx, path), OP_OK);
    char *text = info_text(path);
    assert_contains(text, "/x/value  [2,4,3] float64 extendible\n");
    assert_null(strstr(text, "/graph/chain/mass/"));
    free(text);
    /* Nothing can be added to a committed run. */
    assert_int_equal(
        op_series_create(&ctx, &run, &s, "/z", OP_SERIES_FLOAT64, 0, NULL, NULL, NULL),
        OP_ERR_INVALID);
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_flush(&ctx, &run), OP_ERR_INVALID);
    free_body(&b);
}

static void test_commit_and_abort_close_open_series(void **state)
{
    (void)state;
    const char *path = fresh_path(".h5");
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_runfile run;
    assert_int_equal(op_runfile_create(&ctx, &run, path, &PROVENANCE), OP_OK);

    /* The registry fills up, and a closed series frees its slot. */
    static op_series many[OP_RUNFILE_MAX_SERIES];
    for (int i = 0; i < OP_RUNFILE_MAX_SERIES; i++) {
        char name[64];
        snprintf(name, sizeof name, "/observables/o%d/value", i);
        assert_int_equal(op_series_create(&ctx, &run, &many[i], name, OP_SERIES_FLOAT64, 0, NULL,
                                          NULL, NULL),
                         OP_OK);
    }
    op_series extra;
    assert_int_equal(
        op_series_create(&ctx, &run, &extra, "/extra", OP_SERIES_FLOAT64, 0, NULL, NULL, NULL),
        OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "open already"));
    op_ctx_init(&ctx);
    op_series stale = many[7];
    assert_int_equal(op_series_close(&ctx, &run, &many[7]), OP_OK);
    assert_int_equal(
        op_series_create(&ctx, &run, &extra, "/extra", OP_SERIES_FLOAT64, 0, NULL, NULL, NULL),
        OP_OK);
    /* A copy taken before the close does not reach the series now in its slot. */
    assert_int_equal(extra.slot, stale.slot);
    double value = 2.5;
    assert_int_equal(op_series_append(&ctx, &run, &stale, &value, 1), OP_ERR_INVALID);

    op_ctx_init(&ctx);
    for (int i = 0; i < OP_RUNFILE_MAX_SERIES; i++)
        if (i != 7)
            assert_int_equal(op_series_append(&ctx, &run, &many[i], &value, 1), OP_OK);
    assert_int_equal(op_series_append(&ctx, &run, &extra, &value, 1), OP_OK);
    /* Commit closes the open series; their rows are in the committed file. */
    assert_int_equal(op_runfile_commit(&ctx, &run), OP_OK);
    assert_true(file_exists(path));
    char *text = export_text(path, "/observables/o255/value", OP_OK);
    assert_string_equal(text, "2.5\n");
    free(text);
    text = export_text(path, "/extra", OP_OK);
    assert_string_equal(text, "2.5\n");
    free(text);
    assert_int_equal(op_series_append(&ctx, &run, &many[0], &value, 1), OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "not open"));
    op_ctx_init(&ctx);
    assert_int_equal(op_series_close(&ctx, &run, &many[0]), OP_OK);
    assert_true(many[0].dataset <= 0);

    /* Abort with series open leaves no file and no open HDF5 object. */
    ssize_t before = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
    const char *aborted = fresh_path(".h5");
    assert_int_equal(op_runfile_create(&ctx, &run, aborted, &PROVENANCE), OP_OK);
    op_series open;
    assert_int_equal(op_series_create(&ctx, &run, &open, "/a/b/c", OP_SERIES_FLOAT64, 0, NULL,
                                      NULL, NULL),
                     OP_OK);
    assert_int_equal(op_series_append(&ctx, &run, &open, &value, 1), OP_OK);
    op_runfile_abort(&run);
    assert_false(file_exists(aborted));
    assert_int_equal(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL), before);
    assert_int_equal(op_series_append(&ctx, &run, &open, &value, 1), OP_ERR_INVALID);
}

/* The "nothing is lost when a run is killed" property: a child process writes rows, flushes
 * and is killed (SIGKILL, so nothing of it runs after the flush) without committing. */
static void test_killed_run_keeps_flushed_rows(void **state)
{
    (void)state;
    const char *path = fresh_path(".h5");
    enum { FRAMES = 3 };
    const size_t p = 3 * FRAME_PARTICLES;
    double *positions = calloc(FRAMES * p, sizeof *positions);
    assert_non_null(positions);
    for (int f = 0; f < FRAMES; f++)
        fill_frame(positions + f * p, p, f);
    int64_t steps[FRAMES] = { 0, 1, 2 };

    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        /* No cmocka here: a failure is exit status 2. */
        op_ctx ctx;
        op_ctx_init(&ctx);
        op_runfile run;
        op_series position, step;
        int rc = op_runfile_create(&ctx, &run, path, &PROVENANCE);
        if (!rc)
            rc = op_series_create(&ctx, &run, &position, "/particles/position/value",
                                  OP_SERIES_FLOAT64, 2, (int64_t[]){ FRAME_PARTICLES, 3 }, "m",
                                  NULL);
        if (!rc)
            rc = op_series_create(&ctx, &run, &step, "/particles/position/step", OP_SERIES_INT64,
                                  0, NULL, NULL, NULL);
        for (int f = 0; f < FRAMES && !rc; f++) {
            rc = op_series_append(&ctx, &run, &position, positions + f * p, 1);
            if (!rc)
                rc = op_series_append(&ctx, &run, &step, &steps[f], 1);
            if (!rc)
                rc = op_runfile_flush(&ctx, &run);
        }
        /* The test's own buffer goes, so valgrind reports no leak in the child; the run stays
         * open as a kill leaves it. */
        free(positions);
        if (!rc)
            kill(getpid(), SIGKILL);
        _exit(2);
    }
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
        fail_msg("the writing child was not killed (status %#x)", status);

    char name[600];
    snprintf(name, sizeof name, "%.560s.%ld.tmp", path, (long)child);
    const char *temp = remember(name);
    assert_false(file_exists(path));
    assert_true(file_exists(temp));

    /* The temporary file is plain HDF5 and holds every flushed row. */
    size_t size;
    void *data = raw_dataset(temp, "/particles/position/value", &size);
    assert_int_equal(size, FRAMES * p * sizeof(double));
    assert_memory_equal(data, positions, size);
    free(data);
    char *text = export_text(temp, "/particles/position/step", OP_OK);
    assert_string_equal(text, "0\n1\n2\n");
    free(text);
    text = info_text(temp);
    assert_contains(text, "/particles/position/value  [3,4400,3] float64 extendible\n");
    assert_contains(text, "command_line = opsim run --config test.ini\n");
    free(text);
    free(positions);
}

static void test_attributes_and_arrays(void **state)
{
    (void)state;
    const char *path = fresh_path(".h5");
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_runfile run;
    assert_int_equal(op_runfile_create(&ctx, &run, path, &PROVENANCE), OP_OK);
    const double frame_time = 1.0 / 30.0;
    assert_int_equal(
        op_runfile_set_attribute_double(&ctx, &run, "/parameters", "frame_time", frame_time),
        OP_OK);
    assert_int_equal(op_runfile_set_attribute_int(&ctx, &run, "/parameters", "frames",
                                                  -9000000000LL),
                     OP_OK);
    assert_int_equal(
        op_runfile_set_attribute_string(&ctx, &run, "/parameters", "solver", "arap gs"), OP_OK);
    assert_int_equal(
        op_runfile_set_attribute_string(&ctx, &run, "/", "scene", "dinosaur falling"), OP_OK);
    op_series series;
    assert_int_equal(op_series_create(&ctx, &run, &series, "/observables/deflection/value",
                                      OP_SERIES_FLOAT64, 0, NULL, NULL, NULL),
                     OP_OK);
    assert_int_equal(op_runfile_set_attribute_string(&ctx, &run, "/observables/deflection/value",
                                                     "unit", "m"),
                     OP_OK);

    double matrix[2][3] = { { 1.0 / 3, -2, 1e-300 }, { 4, 5, 6 } };
    int64_t ids[4] = { -1, 0, 1, 9000000000LL };
    assert_int_equal(op_runfile_write_array(&ctx, &run, "/extras/chain/matrix", OP_SERIES_FLOAT64,
                                            2, (int64_t[]){ 2, 3 }, matrix),
                     OP_OK);
    assert_int_equal(op_runfile_write_array(&ctx, &run, "/extras/chain/ids", OP_SERIES_INT64, 1,
                                            (int64_t[]){ 4 }, ids),
                     OP_OK);
    assert_int_equal(op_runfile_write_array(&ctx, &run, "/extras/chain/none", OP_SERIES_FLOAT64,
                                            2, (int64_t[]){ 0, 3 }, NULL),
                     OP_OK);

    /* Refused: a second value, the body list, bad names, a missing string, a dataset in the
     * way, an existing array path, ranks outside 1 to 4, missing data. */
    assert_int_equal(op_runfile_set_attribute_double(&ctx, &run, "/parameters", "frame_time", 1),
                     OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "already has attribute frame_time"));
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_set_attribute_string(&ctx, &run, "/", "program", "other"),
                     OP_ERR_INVALID);
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_set_attribute_string(&ctx, &run, "/", "bodies", "x"),
                     OP_ERR_INVALID);
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_set_attribute_int(&ctx, &run, "/parameters", "a b", 1),
                     OP_ERR_INVALID);
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_set_attribute_int(&ctx, &run, "parameters", "a", 1),
                     OP_ERR_INVALID);
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_set_attribute_string(&ctx, &run, "/parameters", "a", NULL),
                     OP_ERR_INVALID);
    op_ctx_init(&ctx);
    assert_int_equal(
        op_runfile_set_attribute_int(&ctx, &run, "/extras/chain/ids/sub", "a", 1),
        OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "/extras/chain/ids is not a group"));
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_write_array(&ctx, &run, "/extras/chain/ids", OP_SERIES_INT64, 1,
                                            (int64_t[]){ 4 }, ids),
                     OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "already exists"));
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_write_array(&ctx, &run, "/extras/scalar", OP_SERIES_INT64, 0,
                                            NULL, ids),
                     OP_ERR_INVALID);
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_write_array(&ctx, &run, "/extras/deep", OP_SERIES_INT64, 5,
                                            (int64_t[]){ 1, 1, 1, 1, 1 }, ids),
                     OP_ERR_INVALID);
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_write_array(&ctx, &run, "/extras/nodata", OP_SERIES_FLOAT64, 1,
                                            (int64_t[]){ 2 }, NULL),
                     OP_ERR_INVALID);
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_commit(&ctx, &run), OP_OK);

    double d;
    read_attribute(path, "/parameters", "frame_time", H5T_NATIVE_DOUBLE, &d);
    assert_memory_equal(&d, &frame_time, sizeof d);
    int64_t i64;
    read_attribute(path, "/parameters", "frames", H5T_NATIVE_INT64, &i64);
    assert_true(i64 == -9000000000LL);
    assert_string_attribute(path, "/parameters", "solver", "arap gs");
    assert_string_attribute(path, "/", "scene", "dinosaur falling");
    assert_string_attribute(path, "/observables/deflection/value", "unit", "m");
    size_t size;
    void *data = raw_dataset(path, "/extras/chain/matrix", &size);
    assert_int_equal(size, sizeof matrix);
    assert_memory_equal(data, matrix, size);
    free(data);
    data = raw_dataset(path, "/extras/chain/ids", &size);
    assert_int_equal(size, sizeof ids);
    assert_memory_equal(data, ids, size);
    free(data);

    char *text = info_text(path);
    assert_contains(text, "/extras/chain/matrix  [2,3] float64\n");
    assert_contains(text, "/extras/chain/ids  [4] int64\n");
    assert_contains(text, "/extras/chain/none  [0,3] float64\n");
    assert_contains(text, "frames = -9000000000\n");
    assert_contains(text, "frame_time = 0.033333333333333333\n");
    assert_null(strstr(text, "/extras/scalar"));
    assert_null(strstr(text, "/extras/nodata"));
    free(text);
    assert_int_equal(op_runfile_check(&ctx, path), OP_OK);
}

/* One frame of a series read back by its first index (op_runfile_read_rows), the shape and
 * attribute readers, and every refusal naming the dataset and the file. */
static void test_read_rows_of_a_series(void **state)
{
    (void)state;
    const char *path = fresh_path(".h5");
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_runfile run;
    assert_int_equal(op_runfile_create(&ctx, &run, path, &PROVENANCE), OP_OK);
    enum { FRAMES = 7, N = 5 };
    const size_t p = 3 * N;
    op_series position, step;
    assert_int_equal(op_series_create(&ctx, &run, &position, "/particles/position/value",
                                      OP_SERIES_FLOAT64, 2, (int64_t[]){ N, 3 }, "m", NULL),
                     OP_OK);
    assert_int_equal(op_series_create(&ctx, &run, &step, "/particles/position/step",
                                      OP_SERIES_INT64, 0, NULL, NULL, NULL),
                     OP_OK);
    double positions[FRAMES * 3 * N];
    int64_t steps[FRAMES];
    for (int f = 0; f < FRAMES; f++) {
        fill_frame(positions + f * p, p, f);
        steps[f] = 5000000000LL * f + 3;
        /* One row at a time, as the recorder appends them. */
        assert_int_equal(op_series_append(&ctx, &run, &position, positions + f * p, 1), OP_OK);
        assert_int_equal(op_series_append(&ctx, &run, &step, &steps[f], 1), OP_OK);
    }
    assert_int_equal(op_runfile_set_attribute_int(&ctx, &run, "/parameters/chain",
                                                  "particle_offset", 9000000000LL),
                     OP_OK);
    assert_int_equal(
        op_runfile_set_attribute_double(&ctx, &run, "/parameters/chain", "stiffness", 1.0 / 3.0),
        OP_OK);
    assert_int_equal(op_runfile_commit(&ctx, &run), OP_OK);

    /* The shape. */
    int rank = -1;
    int64_t dims[OP_RUNFILE_MAX_RANK];
    assert_int_equal(
        op_runfile_dataset_shape(&ctx, path, "/particles/position/value", &rank, dims), OP_OK);
    assert_int_equal(rank, 3);
    assert_true(dims[0] == FRAMES && dims[1] == N && dims[2] == 3);

    /* A middle row, bit for bit; the sentinel after it is untouched. */
    double row[3 * N + 1];
    row[3 * N] = -7.25;
    assert_int_equal(op_runfile_read_rows(&ctx, path, "/particles/position/value", 3, 1, row,
                                          3 * N + 1),
                     OP_OK);
    assert_memory_equal(row, positions + 3 * p, p * sizeof(double));
    assert_true(row[3 * N] == -7.25);
    /* A range: the first and the last rows. */
    double range[3 * 3 * N];
    assert_int_equal(op_runfile_read_rows(&ctx, path, "/particles/position/value", 4, 3, range,
                                          3 * 3 * N),
                     OP_OK);
    assert_memory_equal(range, positions + 4 * p, 3 * p * sizeof(double));
    assert_int_equal(op_runfile_read_rows(&ctx, path, "/particles/position/value", 0, 1, row,
                                          3 * N),
                     OP_OK);
    assert_memory_equal(row, positions, p * sizeof(double));
    int64_t s[2];
    assert_int_equal(
        op_runfile_read_rows_int64(&ctx, path, "/particles/position/step", 5, 2, s, 2), OP_OK);
    assert_true(s[0] == steps[5] && s[1] == steps[6]);

    /* Out of range: past the end, negative, a range running over the end, no rows. */
    const long bad[][2] = { { FRAMES, 1 }, { -1, 1 }, { 6, 2 }, { 2, 0 } };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        op_ctx_init(&ctx);
        row[0] = 42.0;
        assert_int_equal(op_runfile_read_rows(&ctx, path, "/particles/position/value", bad[i][0],
                                              bad[i][1], row, 3 * N + 1),
                         OP_ERR_INVALID);
        assert_non_null(strstr(ctx.message, path));
        assert_non_null(strstr(ctx.message, "/particles/position/value"));
        assert_non_null(strstr(ctx.message, "rows 0 to 6"));
        assert_true(row[0] == 42.0);
    }
    /* Too little room, the wrong type, a missing dataset, a group. */
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_read_rows(&ctx, path, "/particles/position/value", 1, 1, row,
                                          3 * N - 1),
                     OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "more than the 14"));
    op_ctx_init(&ctx);
    assert_int_equal(
        op_runfile_read_rows(&ctx, path, "/particles/position/step", 1, 1, row, 3 * N),
        OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, path));
    assert_non_null(strstr(ctx.message, "/particles/position/step is int64, not float64"));
    op_ctx_init(&ctx);
    assert_int_equal(
        op_runfile_read_rows_int64(&ctx, path, "/particles/position/value", 1, 1, s, 2),
        OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "is float64, not int64"));
    op_ctx_init(&ctx);
    assert_int_equal(
        op_runfile_read_rows(&ctx, path, "/particles/velocity/value", 1, 1, row, 3 * N),
        OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "no dataset /particles/velocity/value"));
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_read_rows(&ctx, path, "/particles/position", 1, 1, row, 3 * N),
                     OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "it is a group"));
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_read_rows(&ctx, "build/test-tmp/missing.h5",
                                          "/particles/position/value", 1, 1, row, 3 * N),
                     OP_ERR_IO);

    /* Attributes: an int64 beyond 32 bits, a double bitwise, an int read as a double. */
    op_ctx_init(&ctx);
    int64_t offset = 0;
    assert_int_equal(op_runfile_read_attribute_int(&ctx, path, "/parameters/chain",
                                                   "particle_offset", &offset),
                     OP_OK);
    assert_true(offset == 9000000000LL);
    double k = 0, third = 1.0 / 3.0, as_double = 0;
    assert_int_equal(
        op_runfile_read_attribute_double(&ctx, path, "/parameters/chain", "stiffness", &k),
        OP_OK);
    assert_memory_equal(&k, &third, sizeof k);
    assert_int_equal(op_runfile_read_attribute_double(&ctx, path, "/parameters/chain",
                                                      "particle_offset", &as_double),
                     OP_OK);
    assert_true(as_double == 9e9);
    assert_int_equal(op_runfile_read_attribute_int(&ctx, path, "/parameters/chain", "stiffness",
                                                   &offset),
                     OP_ERR_INVALID);
    op_ctx_init(&ctx);
    assert_int_equal(
        op_runfile_read_attribute_double(&ctx, path, "/parameters/dino", "stiffness", &k),
        OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "/parameters/dino"));
    op_ctx_init(&ctx);
    assert_int_equal(
        op_runfile_read_attribute_double(&ctx, path, "/parameters/chain", "density", &k),
        OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "has no attribute density"));
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_read_attribute_double(&ctx, path, "/", "command_line", &k),
                     OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "not one number"));

    /* String attributes: the root's, whole; too long for the buffer, a number, a missing one. */
    op_ctx_init(&ctx);
    char text[64] = "junk";
    assert_int_equal(op_runfile_read_attribute_string(&ctx, path, "/", "program", text, sizeof text),
                     OP_OK);
    assert_string_equal(text, "opsim");
    assert_int_equal(op_runfile_read_attribute_string(&ctx, path, "/", "program", text, 5),
                     OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "program of /"));
    assert_string_equal(text, "");
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_read_attribute_string(&ctx, path, "/parameters/chain", "stiffness",
                                                      text, sizeof text),
                     OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "is not a string"));
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_read_attribute_string(&ctx, path, "/parameters/dino", "model", text,
                                                      sizeof text),
                     OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "no group or dataset /parameters/dino"));
    op_ctx_init(&ctx);
    assert_int_equal(op_runfile_read_attribute_string(&ctx, "build/test-tmp/missing.h5", "/", "program",
                                                      text, sizeof text),
                     OP_ERR_IO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_is_bitwise),
        cmocka_unit_test(test_commit_renames_temp_onto_final),
        cmocka_unit_test(test_abort_leaves_no_file),
        cmocka_unit_test(test_failed_commit_removes_temp),
        cmocka_unit_test(test_missing_directory_fails),
        cmocka_unit_test(test_invalid_and_duplicate_names),
        cmocka_unit_test(test_inconsistent_body_rejected_before_writing),
        cmocka_unit_test(test_body_names_in_order),
        cmocka_unit_test(test_empty_datasets),
        cmocka_unit_test(test_export_tsv_parses_back),
        cmocka_unit_test(test_info_lists_layout),
        cmocka_unit_test(test_check_rejects_wrong_shape),
        cmocka_unit_test(test_check_rejects_bad_contents),
        cmocka_unit_test(test_read_errors_name_file_and_body),
        cmocka_unit_test(test_same_body_same_datasets),
        cmocka_unit_test(test_instances_link_the_first_body),
        cmocka_unit_test(test_series_append_in_batches_is_bitwise),
        cmocka_unit_test(test_series_energy_table_and_timing_column),
        cmocka_unit_test(test_series_with_no_rows),
        cmocka_unit_test(test_series_errors),
        cmocka_unit_test(test_commit_and_abort_close_open_series),
        cmocka_unit_test(test_killed_run_keeps_flushed_rows),
        cmocka_unit_test(test_attributes_and_arrays),
        cmocka_unit_test(test_read_rows_of_a_series),
    };
    /* The tests corrupt files on purpose; HDF5's stack dumps would only be noise. */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    return cmocka_run_group_tests(tests, NULL, remove_created);
}
