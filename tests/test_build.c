/* Tests for core/geometry/voxel.c, core/geometry/shapes.c and core/geometry/build.c: the voxeliser against box grids
 * counted by hand, the point-in-mesh test at box faces, then every builder kind on every model
 * of data/models.tsv that is cheap to build (graph and skin validity, exact counts, every centre
 * and edge inside the mesh, volumes), the dinosaur's edge count, determinism, the overlap edge
 * rule on the 180-model scene's models, and bad input. */
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#include "geometry/build.h"
#include "base/math3.h"
#include "base/rng.h"
#include "base/timer.h"
#include "geometry/model.h"
#include "geometry/shapes.h"
#include "geometry/voxel.h"

static void load_shape(const char *name, op_mesh *mesh)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    if (op_shape_mesh(&ctx, name, mesh) != OP_OK)
        fail_msg("shape %s: %s", name, ctx.message);
    assert_true(op_mesh_is_closed(mesh));
}

static void load_file(const char *name, op_mesh *mesh)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s.obj", TEST_MESH_DIR, name);
    op_ctx ctx;
    op_ctx_init(&ctx);
    if (op_mesh_read(&ctx, path, mesh) != OP_OK)
        fail_msg("%s (run `make data` first): %s", path, ctx.message);
    assert_true(op_mesh_is_closed(mesh));
}

/* A copy of `mesh` without its triangle `drop`. */
static void open_copy(const op_mesh *mesh, int drop, op_mesh *out)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_mesh_alloc(&ctx, out, mesh->vertex_count, mesh->face_count - 1), OP_OK);
    memcpy(out->vertices, mesh->vertices, 3 * (size_t)mesh->vertex_count * sizeof(double));
    for (int f = 0, g = 0; f < mesh->face_count; ++f)
        if (f != drop)
            memcpy(&out->faces[3 * g++], &mesh->faces[3 * f], 3 * sizeof(int));
    assert_false(op_mesh_is_closed(out));
}

/* ---- voxeliser ---------------------------------------------------------------------------- */

/* Cells of a grid centred on the box whose centres lie strictly inside it, counted per axis. */
static void check_box_voxels(const char *shape, const double size[3], int resolution)
{
    op_mesh mesh = { 0 };
    load_shape(shape, &mesh);
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_voxels voxels;
    if (op_voxelize(&ctx, &mesh, resolution, &voxels) != OP_OK)
        fail_msg("voxelize %s: %s", shape, ctx.message);
    double longest = fmax(size[0], fmax(size[1], size[2])), shortest = fmin(size[0], fmin(size[1], size[2]));
    double cell = fmin(longest / resolution, shortest / 4.0);
    assert_close(voxels.size, cell, 1e-14);
    long expected = 1;
    for (int d = 0; d < 3; ++d) {
        assert_int_equal(voxels.dims[d], (int)ceil(size[d] / voxels.size) + 2);
        /* the grid is centred on the box (centred on the origin) */
        assert_close(voxels.origin[d] + 0.5 * (voxels.dims[d] - 1) * voxels.size, 0.0, 1e-14);
        int inside = 0;
        for (int i = 0; i < voxels.dims[d]; ++i) {
            double c = voxels.origin[d] + i * voxels.size;
            inside += c > -0.5 * size[d] && c < 0.5 * size[d];
        }
        expected *= inside;
    }
    assert_int_equal(voxels.inside_count, expected);
    long flagged = 0;
    for (int z = 0; z < voxels.dims[2]; ++z)
        for (int y = 0; y < voxels.dims[1]; ++y)
            for (int x = 0; x < voxels.dims[0]; ++x) {
                int index = op_voxel_index(&voxels, x, y, z);
                double c[3];
                op_voxel_center(&voxels, index, c);
                assert_close(c[0], voxels.origin[0] + x * voxels.size, 0.0);
                assert_close(c[2], voxels.origin[2] + z * voxels.size, 0.0);
                int want = fabs(c[0]) < 0.5 * size[0] && fabs(c[1]) < 0.5 * size[1] && fabs(c[2]) < 0.5 * size[2];
                if (voxels.inside[index] != want)
                    fail_msg("%s: cell (%d, %d, %d) at (%g, %g, %g) flagged %d", shape, x, y, z, c[0], c[1], c[2],
                             voxels.inside[index]);
                assert_int_equal(op_voxel_at(&voxels, c), index);
                flagged += voxels.inside[index];
            }
    assert_int_equal(flagged, expected);
    print_message("%s at resolution %d: %d x %d x %d cells of %.5g m, %d inside\n", shape, resolution,
                  voxels.dims[0], voxels.dims[1], voxels.dims[2], voxels.size, voxels.inside_count);
    op_voxels_free(&voxels);
    assert_null(voxels.inside);
    op_mesh_free(&mesh);
}

static void test_voxelize_boxes(void **state)
{
    (void)state;
    const double bar[3] = { 1.0, 0.05, 0.05 }, column[3] = { 0.1, 1.0, 0.1 }, sheet[3] = { 1.0, 0.02, 1.0 };
    /* 96: odd cell counts across the bar, so rays run exactly through the end caps' shared
     * edges and centre vertex (the tie rule must count them once) */
    check_box_voxels("bar", bar, 96);
    check_box_voxels("bar", bar, 80);
    check_box_voxels("bar", bar, 17);
    check_box_voxels("column", column, 96);
    check_box_voxels("column", column, 8);
    check_box_voxels("sheet", sheet, 96);
}

/* On curved meshes, the voxeliser's column sweep and the single-point test agree on every cell
 * centre, and the inside voxels' volume approaches the mesh's. */
static void check_voxels_match_point_test(const op_mesh *mesh, const char *name, int resolution, double volume_tol)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_voxels voxels;
    if (op_voxelize(&ctx, mesh, resolution, &voxels) != OP_OK)
        fail_msg("voxelize %s: %s", name, ctx.message);
    int cells = voxels.dims[0] * voxels.dims[1] * voxels.dims[2], count = 0;
    for (int c = 0; c < cells; ++c) {
        double p[3];
        op_voxel_center(&voxels, c, p);
        int inside = op_mesh_contains_point(mesh, p);
        if (inside != voxels.inside[c])
            fail_msg("%s: cell %d at (%g, %g, %g): voxeliser says %d, point test %d", name, c, p[0], p[1], p[2],
                     voxels.inside[c], inside);
        count += inside;
    }
    assert_int_equal(count, voxels.inside_count);
    double voxel_volume = count * voxels.size * voxels.size * voxels.size, body = op_mesh_volume(mesh);
    print_message("%s at resolution %d: %d inside voxels, %.5g m^3 against %.5g m^3\n", name, resolution, count,
                  voxel_volume, body);
    assert_close(voxel_volume / body, 1.0, volume_tol);
    op_voxels_free(&voxels);
}

static void test_voxelize_curved_meshes(void **state)
{
    (void)state;
    op_mesh mesh = { 0 };
    load_shape("torus", &mesh);
    check_voxels_match_point_test(&mesh, "torus", 24, 0.1);
    check_voxels_match_point_test(&mesh, "torus", 48, 0.05);
    op_mesh_free(&mesh);
    load_file("dino", &mesh);
    check_voxels_match_point_test(&mesh, "dino", 24, 0.15);
    op_mesh_free(&mesh);
}

static void test_voxel_at_outside_grid(void **state)
{
    (void)state;
    op_mesh mesh = { 0 };
    load_shape("column", &mesh);
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_voxels voxels;
    assert_int_equal(op_voxelize(&ctx, &mesh, 40, &voxels), OP_OK);
    double below[3] = { 0, voxels.origin[1] - voxels.size, 0 };
    assert_int_equal(op_voxel_at(&voxels, below), -1);
    double above[3] = { voxels.origin[0] + voxels.dims[0] * voxels.size, 0, 0 };
    assert_int_equal(op_voxel_at(&voxels, above), -1);
    double corner[3] = { voxels.origin[0], voxels.origin[1], voxels.origin[2] };
    assert_int_equal(op_voxel_at(&voxels, corner), 0);
    /* nearest centre: just under half a cell away still maps to it */
    double near[3] = { voxels.origin[0] + 2.49 * voxels.size, voxels.origin[1] + 0.51 * voxels.size,
                       voxels.origin[2] + 3.0 * voxels.size };
    assert_int_equal(op_voxel_at(&voxels, near), op_voxel_index(&voxels, 2, 1, 3));
    op_voxels_free(&voxels);
    op_mesh_free(&mesh);
}

static void test_contains_point_at_box_faces(void **state)
{
    (void)state;
    const char *shapes[] = { "bar", "column", "sheet" };
    const double sizes[3][3] = { { 1.0, 0.05, 0.05 }, { 0.1, 1.0, 0.1 }, { 1.0, 0.02, 1.0 } };
    for (int s = 0; s < 3; ++s) {
        op_mesh mesh = { 0 };
        load_shape(shapes[s], &mesh);
        const double *size = sizes[s];
        double centre[3] = { 0, 0, 0 };
        /* the centre ray of the bar and column runs through end-cap vertices */
        assert_true(op_mesh_contains_point(&mesh, centre));
        for (int d = 0; d < 3; ++d)
            for (int side = -1; side <= 1; side += 2) {
                double eps = 1e-9 * size[d];
                double p[3] = { 0, 0, 0 };
                p[d] = side * (0.5 * size[d] + eps);
                if (op_mesh_contains_point(&mesh, p))
                    fail_msg("%s: (%g, %g, %g) just outside is reported inside", shapes[s], p[0], p[1], p[2]);
                p[d] = side * (0.5 * size[d] - eps);
                if (!op_mesh_contains_point(&mesh, p))
                    fail_msg("%s: (%g, %g, %g) just inside is reported outside", shapes[s], p[0], p[1], p[2]);
                /* off-centre as well, where rays meet no lattice vertex */
                double q[3] = { 0.123 * size[0], -0.271 * size[1], 0.317 * size[2] };
                q[d] = side * (0.5 * size[d] + eps);
                assert_false(op_mesh_contains_point(&mesh, q));
                q[d] = side * (0.5 * size[d] - eps);
                assert_true(op_mesh_contains_point(&mesh, q));
            }
        op_mesh_free(&mesh);
    }
}

/* The locator answers op_mesh_contains_point's answer for every point: random points around the
 * dinosaur and the bunny, and points on the generated shapes' grid lines and vertices, where
 * rays pass through shared edges and the tie rule decides. */
static void test_locator_agrees_with_the_full_scan(void **state)
{
    (void)state;
    const char *files[] = { "dino", "bunny" }, *shapes[] = { "bar", "sheet", "cube", "torus" };
    op_rng rng = op_rng_seeded(7);
    for (int m = 0; m < 6; ++m) {
        op_mesh mesh = { 0 };
        if (m < 2)
            load_file(files[m], &mesh);
        else
            load_shape(shapes[m - 2], &mesh);
        op_ctx ctx;
        op_ctx_init(&ctx);
        op_mesh_locator locator;
        assert_int_equal(op_mesh_locator_make(&ctx, &mesh, &locator), OP_OK);
        double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY };
        for (int v = 0; v < mesh.vertex_count; ++v)
            for (int d = 0; d < 3; ++d) {
                lo[d] = fmin(lo[d], mesh.vertices[3 * v + d]);
                hi[d] = fmax(hi[d], mesh.vertices[3 * v + d]);
            }
        int inside = 0, points = m < 2 ? 4000 : 20000;
        for (int k = 0; k < points; ++k) {
            double p[3];
            for (int d = 0; d < 3; ++d)
                p[d] = lo[d] - 0.1 * (hi[d] - lo[d]) + 1.2 * (hi[d] - lo[d]) * op_rng_uniform(&rng);
            if (k % 2 == 1) { /* on a vertex's y and z: the ray meets edges and vertices */
                int v = op_rng_below(&rng, mesh.vertex_count);
                p[1] = mesh.vertices[3 * v + 1];
                p[2] = mesh.vertices[3 * v + 2];
            }
            int full = op_mesh_contains_point(&mesh, p);
            inside += full;
            if (op_mesh_locator_contains(&locator, p) != full)
                fail_msg("mesh %d: (%.17g, %.17g, %.17g): the full scan says %d", m, p[0], p[1], p[2], full);
        }
        print_message("mesh %d: %d of %d points inside, both ways\n", m, inside, points);
        assert_true(inside > points / 20 && inside < points);
        op_mesh_locator_free(&locator);
        op_mesh_free(&mesh);
    }
}

static void test_voxelize_open_mesh_fails(void **state)
{
    (void)state;
    op_mesh mesh = { 0 }, open = { 0 };
    load_shape("column", &mesh);
    open_copy(&mesh, 17, &open);
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_voxels voxels;
    memset(&voxels, 0x5a, sizeof voxels);
    assert_int_equal(op_voxelize(&ctx, &open, 32, &voxels), OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "not closed"));
    assert_null(voxels.inside);
    assert_int_equal(voxels.inside_count, 0);

    op_ctx_init(&ctx);
    assert_int_equal(op_voxelize(&ctx, &mesh, 3, &voxels), OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "resolution 3"));
    assert_null(voxels.inside);

    /* two triangles back to back: closed, but with no interior */
    op_mesh flat = { 0 };
    assert_int_equal(op_mesh_alloc(&ctx, &flat, 3, 2), OP_OK);
    const double corners[9] = { 0, 0, 0, 1, 0, 0, 0, 1, 0 };
    const int faces[6] = { 0, 1, 2, 0, 2, 1 };
    memcpy(flat.vertices, corners, sizeof corners);
    memcpy(flat.faces, faces, sizeof faces);
    assert_true(op_mesh_is_closed(&flat));
    op_ctx_init(&ctx);
    assert_int_equal(op_voxelize(&ctx, &flat, 32, &voxels), OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "flat"));
    assert_null(voxels.inside);
    op_mesh_free(&flat);
    op_mesh_free(&open);
    op_mesh_free(&mesh);
}

static void test_shapes(void **state)
{
    (void)state;
    /* the paper's bar: 674 vertices, 672 quads */
    op_mesh mesh = { 0 };
    load_shape("bar", &mesh);
    assert_int_equal(mesh.vertex_count, 674);
    assert_int_equal(mesh.polygon_count, 672);
    assert_int_equal(mesh.face_count, 1344);
    assert_close(op_mesh_volume(&mesh), 1.0 * 0.05 * 0.05, 1e-13);
    op_mesh_free(&mesh);
    load_shape("column", &mesh);
    assert_close(op_mesh_volume(&mesh), 0.1 * 1.0 * 0.1, 1e-13);
    op_mesh_free(&mesh);
    load_shape("sheet", &mesh);
    assert_close(op_mesh_volume(&mesh), 1.0 * 0.02 * 1.0, 1e-13);
    op_mesh_free(&mesh);
    /* the torus is a polyhedron inscribed in the smooth one: slightly less than 2π²Rr² */
    load_shape("torus", &mesh);
    double smooth = 2.0 * M_PI * M_PI * 0.3 * 0.1 * 0.1;
    assert_le(op_mesh_volume(&mesh), smooth);
    assert_le(0.98 * smooth, op_mesh_volume(&mesh));
    op_mesh_free(&mesh);
    load_shape("cube", &mesh);
    assert_close(op_mesh_volume(&mesh), 0.4 * 0.4 * 0.4, 1e-13);
    op_mesh_free(&mesh);
    op_ctx ctx;
    op_ctx_init(&ctx);
    load_shape("cloth", &mesh);
    assert_close(op_mesh_volume(&mesh), 0.64 * 0.01 * 0.64, 1e-13);
    op_mesh_free(&mesh);
    load_shape("cube18", &mesh);
    assert_close(op_mesh_volume(&mesh), 0.18 * 0.18 * 0.18, 1e-13);
    op_mesh_free(&mesh);
    assert_int_equal(op_shape_mesh(&ctx, "sphere", &mesh), OP_ERR_USAGE);
    assert_non_null(strstr(ctx.message, "sphere"));
    assert_null(mesh.vertices);
}

/* ---- builders ----------------------------------------------------------------------------- */

typedef struct model {
    const char *name;
    const char *source; /* a shape name, or a file under TEST_MESH_DIR */
    int is_shape;
    op_body_kind kind;
    int particles;
} model;

static void load_model(const model *m, op_mesh *mesh)
{
    if (m->is_shape)
        load_shape(m->source, mesh);
    else
        load_file(m->source, mesh);
}

static void build_or_fail(const op_mesh *mesh, const op_build_def *def, const char *name, op_graph *graph,
                          op_skin *skin)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    if (op_build_body(&ctx, mesh, def, graph, skin) != OP_OK)
        fail_msg("building %s: %s", name, ctx.message);
}

static int degree(const op_graph *graph, int i)
{
    return graph->adjacency_start[i + 1] - graph->adjacency_start[i];
}

/* Everything every built body must satisfy. */
static void check_body(const model *m, const op_mesh *mesh, const op_build_def *def, const op_graph *graph,
                       const op_skin *skin)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    if (op_graph_check(&ctx, graph, m->name) != OP_OK)
        fail_msg("%s", ctx.message);
    assert_int_equal(op_graph_component_count(graph), 1);
    int n = graph->particle_count;
    if (m->kind != OP_BODY_SHELL)
        assert_int_equal(n, m->particles);
    for (int i = 0; i < n; ++i) {
        const double *r = &graph->radii[3 * i], *axes = &graph->rest_axes[9 * i];
        if (!(r[0] >= r[1] && r[1] >= r[2] && r[2] > 0))
            fail_msg("%s: particle %d radii %g %g %g", m->name, i, r[0], r[1], r[2]);
        double ata[9];
        m3_mul_at(ata, axes, axes);
        for (int k = 0; k < 9; ++k)
            assert_close(ata[k], k % 4 == 0 ? 1.0 : 0.0, 1e-12);
        assert_close(m3_det(axes), 1.0, 1e-12);
        if (!op_mesh_contains_point(mesh, &graph->rest_position[3 * i]))
            fail_msg("%s: particle %d centre (%g, %g, %g) is outside the mesh", m->name, i,
                     graph->rest_position[3 * i], graph->rest_position[3 * i + 1], graph->rest_position[3 * i + 2]);
        assert_close(graph->mass[i], def->density * graph->volume[i], 1e-14);
    }
    int *edges = calloc(2 * (size_t)graph->edge_count + 2, sizeof(int));
    assert_non_null(edges);
    op_graph_edges(graph, edges);
    for (int e = 0; e < graph->edge_count; ++e) {
        int i = edges[2 * e], j = edges[2 * e + 1];
        double mid[3];
        v3_add(mid, &graph->rest_position[3 * i], &graph->rest_position[3 * j]);
        v3_scale(mid, mid, 0.5);
        if (!op_mesh_contains_point(mesh, mid))
            fail_msg("%s: the midpoint of edge %d-%d is outside the mesh", m->name, i, j);
    }
    free(edges);
    double particles_volume = 0.0, body_volume = op_mesh_volume(mesh);
    for (int i = 0; i < n; ++i)
        particles_volume += graph->volume[i];
    double ratio = particles_volume / body_volume;
    if (!(ratio >= 0.5 && ratio <= 2.0))
        fail_msg("%s: particles hold %g m^3 for a mesh of %g m^3 (ratio %g)", m->name, particles_volume, body_volume,
                 ratio);
    assert_int_equal(skin->k, def->skin_k);
    assert_int_equal(skin->vertex_count, mesh->vertex_count);
    if (op_skin_check(&ctx, skin, n, m->name) != OP_OK)
        fail_msg("%s", ctx.message);
    int min_degree = n, max_degree = 0;
    for (int i = 0; i < n; ++i) {
        min_degree = degree(graph, i) < min_degree ? degree(graph, i) : min_degree;
        max_degree = degree(graph, i) > max_degree ? degree(graph, i) : max_degree;
    }
    print_message("%-12s %-5s %4d particles %5d edges, degree %d..%d, volume ratio %.3f\n", m->name,
                  op_body_kind_name(m->kind), n, graph->edge_count, min_degree, max_degree, ratio);
}

static void build_and_check(const model *m, op_graph *graph, op_skin *skin, op_mesh *mesh)
{
    load_model(m, mesh);
    op_build_def def = op_default_build_def();
    def.kind = m->kind;
    def.particles = m->particles;
    double start = op_now();
    build_or_fail(mesh, &def, m->name, graph, skin);
    double elapsed = op_now() - start;
    check_body(m, mesh, &def, graph, skin);
    print_message("%-12s built in %.2f s\n", m->name, elapsed);
}

static void test_bar20_rod(void **state)
{
    (void)state;
    const model m = { "bar20", "bar", 1, OP_BODY_ROD, 20 };
    op_mesh mesh = { 0 };
    op_graph graph;
    op_skin skin;
    build_and_check(&m, &graph, &skin, &mesh);
    /* a chain along x: 19 edges, particle i joined to i ± 1 in x order */
    assert_int_equal(graph.edge_count, 19);
    for (int i = 0; i < 20; ++i) {
        assert_int_equal(degree(&graph, i), i == 0 || i == 19 ? 1 : 2);
        if (i > 0)
            assert_true(graph.rest_position[3 * i] > graph.rest_position[3 * (i - 1)]);
        assert_close(graph.rest_position[3 * i + 1], 0.0, 1e-12);
        assert_close(graph.rest_position[3 * i + 2], 0.0, 1e-12);
    }
    op_graph_free(&graph);
    op_skin_free(&skin);
    op_mesh_free(&mesh);
}

static void test_column10_rod(void **state)
{
    (void)state;
    const model m = { "column10", "column", 1, OP_BODY_ROD, 10 };
    op_mesh mesh = { 0 };
    op_graph graph;
    op_skin skin;
    build_and_check(&m, &graph, &skin, &mesh);
    assert_int_equal(graph.edge_count, 9);
    for (int i = 1; i < 10; ++i)
        assert_true(graph.rest_position[3 * i + 1] > graph.rest_position[3 * (i - 1) + 1]);
    op_graph_free(&graph);
    op_skin_free(&skin);
    op_mesh_free(&mesh);
}

static void test_sheet256_shell(void **state)
{
    (void)state;
    const model m = { "sheet256", "sheet", 1, OP_BODY_SHELL, 256 };
    op_mesh mesh = { 0 };
    op_graph graph;
    op_skin skin;
    build_and_check(&m, &graph, &skin, &mesh);
    /* a 16 x 16 grid: 2 · 16 · 15 = 480 edges, corners of degree 2, inner nodes of degree 4 */
    assert_int_equal(graph.particle_count, 256);
    assert_int_equal(graph.edge_count, 480);
    int histogram[5] = { 0 };
    for (int i = 0; i < 256; ++i) {
        assert_true(degree(&graph, i) >= 2 && degree(&graph, i) <= 4);
        histogram[degree(&graph, i)]++;
        /* flat ellipsoids: the shortest axis is the sheet normal y */
        assert_close(fabs(graph.rest_axes[9 * i + 5]), 1.0, 1e-12);
        assert_le(graph.radii[3 * i + 2], 0.5 * graph.radii[3 * i + 1]);
    }
    assert_int_equal(histogram[2], 4);
    assert_int_equal(histogram[3], 4 * 14);
    assert_int_equal(histogram[4], 14 * 14);
    op_graph_free(&graph);
    op_skin_free(&skin);
    op_mesh_free(&mesh);
}

/* The lattice kind on the cube18 shape: u x v x w = 3 x 3 x 3 and 9 x 9 x 9 particles, each joined
 * to its 26 neighbours (3³: 54 structural + 72 face-diagonal + 32 body-diagonal edges = 158;
 * 9³: 1944 + 3456 + 2048 = 7448), edge lengths L, √2 L and √3 L for the lattice spacing L (to
 * the voxels' quantisation), a corner of degree 7 and a centre of degree 26. */
static void test_cube_lattice(void **state)
{
    (void)state;
    const struct {
        int particles, edges;
    } cases[] = { { 27, 158 }, { 729, 7448 } };
    for (int c = 0; c < 2; ++c) {
        const model m = { "cube18", "cube18", 1, OP_BODY_LATTICE, cases[c].particles };
        op_mesh mesh = { 0 };
        op_graph graph;
        op_skin skin;
        build_and_check(&m, &graph, &skin, &mesh);
        assert_int_equal(graph.particle_count, cases[c].particles);
        assert_int_equal(graph.edge_count, cases[c].edges);
        int n = graph.particle_count, side = c == 0 ? 3 : 9, corner = -1, centre = -1;
        double spacing = 0.18 / side, p[3];
        v3_set(p, -0.09, -0.09, -0.09);
        corner = v3_nearest(graph.rest_position, n, p);
        v3_set(p, 0, 0, 0);
        centre = v3_nearest(graph.rest_position, n, p);
        assert_int_equal(degree(&graph, corner), 7);
        assert_int_equal(degree(&graph, centre), 26);
        int *edges = calloc(2 * (size_t)graph.edge_count, sizeof(int));
        assert_non_null(edges);
        op_graph_edges(&graph, edges);
        int kinds[3] = { 0, 0, 0 };
        for (int e = 0; e < graph.edge_count; ++e) {
            double r = sqrt(v3_dist2(&graph.rest_position[3 * edges[2 * e]], &graph.rest_position[3 * edges[2 * e + 1]])) /
                       spacing;
            int k = r < 1.2 ? 0 : r < 1.6 ? 1 : 2;
            assert_le(fabs(r - sqrt(k + 1.0)), 0.1); /* quantised to 96 voxels along 0.18 m */
            kinds[k]++;
        }
        assert_int_equal(kinds[0], 3 * side * side * (side - 1));
        assert_int_equal(kinds[2], 4 * (side - 1) * (side - 1) * (side - 1));
        free(edges);
        op_graph_free(&graph);
        op_skin_free(&skin);
        op_mesh_free(&mesh);
    }
}

static void test_torus_solids(void **state)
{
    (void)state;
    const model m100 = { "torus100", "torus", 1, OP_BODY_SOLID, 100 };
    const model m12 = { "torus12", "torus", 1, OP_BODY_SOLID, 12 };
    op_mesh mesh = { 0 };
    op_graph graph;
    op_skin skin;
    build_and_check(&m100, &graph, &skin, &mesh);
    op_graph_free(&graph);
    op_skin_free(&skin);
    op_mesh_free(&mesh);

    build_and_check(&m12, &graph, &skin, &mesh);
    /* twelve cells around the ring: a cycle, every node of degree 2, neighbours adjacent in angle */
    assert_int_equal(graph.edge_count, 12);
    for (int i = 0; i < 12; ++i) {
        assert_int_equal(degree(&graph, i), 2);
        for (int k = graph.adjacency_start[i]; k < graph.adjacency_start[i + 1]; ++k) {
            int j = graph.adjacency[k];
            const double *a = &graph.rest_position[3 * i], *b = &graph.rest_position[3 * j];
            double angle = fabs(atan2(-a[2], a[0]) - atan2(-b[2], b[0]));
            angle = fmin(angle, 2 * M_PI - angle);
            assert_le(angle, 2 * M_PI / 12 * 1.5);
        }
    }
    op_graph_free(&graph);
    op_skin_free(&skin);
    op_mesh_free(&mesh);
}

static void test_dino_solids(void **state)
{
    (void)state;
    const model m100 = { "dino100", "dino", 0, OP_BODY_SOLID, 100 };
    const model m30 = { "dino30", "dino", 0, OP_BODY_SOLID, 30 };
    op_mesh mesh = { 0 };
    op_graph graph;
    op_skin skin;
    build_and_check(&m100, &graph, &skin, &mesh);
    print_message("dino100: %d edges (the paper's dinosaur has 261)\n", graph.edge_count);
    assert_true(graph.edge_count >= 200 && graph.edge_count <= 330);
    op_graph_free(&graph);
    op_skin_free(&skin);
    op_mesh_free(&mesh);
    build_and_check(&m30, &graph, &skin, &mesh);
    op_graph_free(&graph);
    op_skin_free(&skin);
    op_mesh_free(&mesh);
}

static void test_armadillo30_solid(void **state)
{
    (void)state;
    const model m = { "armadillo30", "armadillo", 0, OP_BODY_SOLID, 30 };
    op_mesh mesh = { 0 };
    op_graph graph;
    op_skin skin;
    build_and_check(&m, &graph, &skin, &mesh);
    op_graph_free(&graph);
    op_skin_free(&skin);
    op_mesh_free(&mesh);
}

static void test_bunny30_solid(void **state)
{
    (void)state;
    const model m = { "bunny30", "bunny", 0, OP_BODY_SOLID, 30 };
    op_mesh mesh = { 0 };
    op_graph graph;
    op_skin skin;
    build_and_check(&m, &graph, &skin, &mesh);
    op_graph_free(&graph);
    op_skin_free(&skin);
    op_mesh_free(&mesh);
}

/* ---- determinism -------------------------------------------------------------------------- */

static int same_bytes(const void *a, const void *b, size_t bytes)
{
    return memcmp(a, b, bytes) == 0;
}

static int same_graph(const op_graph *a, const op_graph *b)
{
    size_t n = (size_t)a->particle_count;
    return a->particle_count == b->particle_count && a->edge_count == b->edge_count &&
           same_bytes(a->adjacency_start, b->adjacency_start, (n + 1) * sizeof(int)) &&
           same_bytes(a->adjacency, b->adjacency, 2 * (size_t)a->edge_count * sizeof(int)) &&
           same_bytes(a->rest_position, b->rest_position, 3 * n * sizeof(double)) &&
           same_bytes(a->rest_axes, b->rest_axes, 9 * n * sizeof(double)) &&
           same_bytes(a->radii, b->radii, 3 * n * sizeof(double));
}

static void test_build_is_deterministic(void **state)
{
    (void)state;
    op_mesh mesh = { 0 };
    load_file("dino", &mesh);
    op_build_def def = op_default_build_def();
    op_graph first, second, other;
    op_skin first_skin, second_skin, other_skin;
    build_or_fail(&mesh, &def, "dino100", &first, &first_skin);
    build_or_fail(&mesh, &def, "dino100 again", &second, &second_skin);
    assert_true(same_graph(&first, &second));
    size_t n = (size_t)first.particle_count;
    assert_true(same_bytes(first.volume, second.volume, n * sizeof(double)));
    assert_true(same_bytes(first.rest_moment, second.rest_moment, 9 * n * sizeof(double)));
    size_t slots = (size_t)first_skin.vertex_count * (size_t)first_skin.k;
    assert_int_equal(first_skin.vertex_count, second_skin.vertex_count);
    assert_int_equal(first_skin.k, second_skin.k);
    assert_true(same_bytes(first_skin.index, second_skin.index, slots * sizeof(int)));
    assert_true(same_bytes(first_skin.weight, second_skin.weight, slots * sizeof(double)));

    def.seed = 2;
    build_or_fail(&mesh, &def, "dino100 seed 2", &other, &other_skin);
    assert_int_equal(other.particle_count, 100);
    assert_false(same_graph(&first, &other));
    assert_false(same_bytes(first.rest_position, other.rest_position, 3 * n * sizeof(double)));
    print_message("dino100 seed 1: %d edges; seed 2: %d edges\n", first.edge_count, other.edge_count);
    op_graph_free(&first);
    op_graph_free(&second);
    op_graph_free(&other);
    op_skin_free(&first_skin);
    op_skin_free(&second_skin);
    op_skin_free(&other_skin);
    op_mesh_free(&mesh);
}

/* ---- the overlap edge rule (docs/graph-construction.md §4) --------------------------------- */

/* Whether graph `a`'s edges include every edge of `b`. */
static int has_every_edge(const op_graph *a, const op_graph *b)
{
    for (int i = 0; i < b->particle_count; ++i)
        for (int k = b->adjacency_start[i]; k < b->adjacency_start[i + 1]; ++k) {
            int found = 0;
            for (int q = a->adjacency_start[i]; q < a->adjacency_start[i + 1]; ++q)
                found |= a->adjacency[q] == b->adjacency[k];
            if (!found)
                return 0;
        }
    return 1;
}

/* The edges of `dense` that `faces` lacks, i.e. the overlap rule's own, never leave the mesh: 65
 * points along each, ends included, all inside by the exact point test (a stronger test than
 * the rule's own: its midpoint against the mesh, the rest against the voxels). Returns how
 * many such edges there are. */
static int overlap_edges_inside(const char *name, const op_mesh *mesh, const op_graph *dense, const op_graph *faces)
{
    int extra = 0;
    for (int i = 0; i < dense->particle_count; ++i)
        for (int k = dense->adjacency_start[i]; k < dense->adjacency_start[i + 1]; ++k) {
            int j = dense->adjacency[k], in_faces = 0;
            for (int q = faces->adjacency_start[i]; q < faces->adjacency_start[i + 1]; ++q)
                in_faces |= faces->adjacency[q] == j;
            if (j < i || in_faces)
                continue;
            ++extra;
            const double *a = &dense->rest_position[3 * i], *b = &dense->rest_position[3 * j];
            for (int t = 0; t <= 64; ++t) {
                double p[3], d[3];
                v3_sub(d, b, a);
                v3_copy(p, a);
                v3_axpy(p, t / 64.0, d);
                if (!op_mesh_contains_point(mesh, p))
                    fail_msg("%s: overlap edge %d-%d leaves the mesh at %d/64 of its length", name, i, j, t);
            }
        }
    return extra;
}

/* The 180-model scene's models (Table 1's last row) built from data/models.tsv with their
 * catalogue edge rules: each valid (check_body: connected, centres and midpoints inside, the
 * skinning), the face rule's edges all kept, the overlap rule's own never leaving the mesh, the
 * build repeating bit for bit (the dinosaur and the torus); and the scene's edge count, 42 of each plus 12 ten-particle
 * columns of 9 edges, within 10 % of the paper's 18,640 where the face rule alone gives about
 * half. The other scenes' models take a minute to build: reports/graphs.md checks those counts
 * (make graphs). */
static void test_overlap_rule_matches_the_180_model_scene(void **state)
{
    (void)state;
    static const model models[] = { { "dino30", "dino", 0, OP_BODY_SOLID, 30 },
                                    { "bunny30", "bunny", 0, OP_BODY_SOLID, 30 },
                                    { "armadillo30", "armadillo", 0, OP_BODY_SOLID, 30 },
                                    { "torus12", "torus", 1, OP_BODY_SOLID, 12 } };
    long dense_edges = 0, face_edges = 0;
    for (size_t m = 0; m < sizeof models / sizeof models[0]; ++m) {
        op_ctx ctx;
        op_ctx_init(&ctx);
        op_build_def def = op_default_build_def();
        def.particles = 0;
        def.overlap_scale = -1.0; /* the catalogue's */
        op_model model;
        if (op_model_load(&ctx, "data/models.tsv", models[m].name, &def, &model) != OP_OK)
            fail_msg("%s: %s", models[m].name, ctx.message);
        assert_true(model.build.overlap_scale > 0.0);
        check_body(&models[m], &model.mesh, &model.build, &model.graph, &model.skin);
        if (m == 0 || models[m].is_shape) { /* the quick ones built again (the bunny takes seconds) */
            op_model again;
            if (op_model_load(&ctx, "data/models.tsv", models[m].name, &def, &again) != OP_OK)
                fail_msg("%s: %s", models[m].name, ctx.message);
            assert_true(same_graph(&model.graph, &again.graph));
            op_model_free(&again);
        }
        op_build_def face_def = model.build;
        face_def.overlap_scale = 0.0;
        op_graph faces;
        op_skin face_skin;
        build_or_fail(&model.mesh, &face_def, models[m].name, &faces, &face_skin);
        assert_true(has_every_edge(&model.graph, &faces));
        int extra = overlap_edges_inside(models[m].name, &model.mesh, &model.graph, &faces);
        assert_int_equal(extra, model.graph.edge_count - faces.edge_count);
        assert_true(extra > 0);
        print_message("%-12s overlap:%g %d edges, face rule %d\n", models[m].name, model.build.overlap_scale,
                      model.graph.edge_count, faces.edge_count);
        dense_edges += model.graph.edge_count;
        face_edges += faces.edge_count;
        op_graph_free(&faces);
        op_skin_free(&face_skin);
        op_model_free(&model);
    }
    long scene = 42 * dense_edges + 12 * 9, face_scene = 42 * face_edges + 12 * 9;
    print_message("180 models: %ld edges (face rule %ld), the paper's 18640\n", scene, face_scene);
    assert_true(scene >= 0.9 * 18640 && scene <= 1.1 * 18640);
    assert_true(face_scene < 0.6 * 18640);
}

static void test_edge_rule_names(void **state)
{
    (void)state;
    double scale = -1.0;
    char text[32];
    assert_int_equal(op_edge_rule_parse("faces", &scale), 0);
    assert_true(scale == 0.0);
    assert_int_equal(op_edge_rule_parse("overlap:1.25", &scale), 0);
    assert_true(scale == 1.25);
    op_edge_rule_format(scale, text, sizeof text);
    assert_string_equal(text, "overlap:1.25");
    op_edge_rule_format(0.0, text, sizeof text);
    assert_string_equal(text, "faces");
    static const char *const bad[] = { "overlap", "overlap:", "overlap:0", "overlap:-1", "overlap:11", "overlap:1x",
                                       "overlap:nan", "Faces", "" };
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; ++b) {
        scale = 7.0;
        assert_int_equal(op_edge_rule_parse(bad[b], &scale), -1);
        assert_true(scale == 7.0);
    }
}

/* ---- bad input ---------------------------------------------------------------------------- */

static void expect_build_failure(const op_mesh *mesh, const op_build_def *def, const char *reason)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_graph graph;
    op_skin skin;
    memset(&graph, 0, sizeof graph);
    memset(&skin, 0, sizeof skin);
    graph.particle_count = graph.edge_count = 99;
    skin.vertex_count = skin.k = 99;
    int status = op_build_body(&ctx, mesh, def, &graph, &skin);
    assert_int_not_equal(status, OP_OK);
    assert_int_equal(ctx.status, status);
    if (!strstr(ctx.message, reason))
        fail_msg("expected a message with \"%s\", got \"%s\"", reason, ctx.message);
    print_message("rejected: %s\n", ctx.message);
    assert_int_equal(graph.particle_count, 0);
    assert_int_equal(graph.edge_count, 0);
    assert_null(graph.adjacency_start);
    assert_null(graph.adjacency);
    assert_null(graph.rest_position);
    assert_null(graph.rest_axes);
    assert_null(graph.radii);
    assert_null(graph.volume);
    assert_null(graph.mass);
    assert_null(graph.rest_moment);
    assert_int_equal(skin.vertex_count, 0);
    assert_null(skin.index);
    assert_null(skin.weight);
}

static void test_bad_parameters(void **state)
{
    (void)state;
    op_mesh mesh = { 0 };
    load_shape("column", &mesh);
    op_build_def def = op_default_build_def();
    def.particles = 0;
    expect_build_failure(&mesh, &def, "particles");
    def.particles = -5;
    expect_build_failure(&mesh, &def, "particles");
    def = op_default_build_def();
    def.density = NAN;
    expect_build_failure(&mesh, &def, "density");
    def.density = -1000.0;
    expect_build_failure(&mesh, &def, "density");
    def.density = 0.0;
    expect_build_failure(&mesh, &def, "density");
    def = op_default_build_def();
    def.skin_k = 0;
    expect_build_failure(&mesh, &def, "K = 0");
    def.skin_k = OP_SKIN_MAX_K + 1;
    expect_build_failure(&mesh, &def, "K = 9");
    def = op_default_build_def();
    def.voxel_resolution = 2;
    expect_build_failure(&mesh, &def, "resolution");
    def = op_default_build_def();
    def.contact_fraction = NAN;
    expect_build_failure(&mesh, &def, "contact_fraction");
    def = op_default_build_def();
    def.lloyd_iterations = -1;
    expect_build_failure(&mesh, &def, "lloyd_iterations");
    def = op_default_build_def();
    def.overlap_scale = -1.0;
    expect_build_failure(&mesh, &def, "overlap_scale");
    def.overlap_scale = NAN;
    expect_build_failure(&mesh, &def, "overlap_scale");
    op_mesh_free(&mesh);
}

static void test_too_many_particles(void **state)
{
    (void)state;
    op_mesh mesh = { 0 };
    load_shape("column", &mesh);
    op_build_def def = op_default_build_def();
    def.voxel_resolution = 8; /* 4 x 40 x 4 interior voxels */
    def.particles = 10000000; /* 2.4e8 voxels: a grid beyond the bound */
    expect_build_failure(&mesh, &def, "beyond the bound");
    /* 641 particles: more than the 640 voxels at 8, so the grid is refined until each particle
       has OP_BUILD_VOXELS_PER_PARTICLE of them */
    def.particles = 641;
    op_graph graph;
    op_skin skin;
    op_build_report report;
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_build_body_report(&ctx, &mesh, &def, &graph, &skin, &report), OP_OK);
    assert_int_equal(graph.particle_count, 641);
    print_message("641 particles: built at resolution %d\n", report.voxel_resolution);
    assert_true(report.voxel_resolution > 8);
    op_graph_free(&graph);
    op_skin_free(&skin);
    /* what the particles need is found at the resolution asked for: as before */
    def.voxel_resolution = 32;
    def.particles = 20;
    assert_int_equal(op_build_body_report(&ctx, &mesh, &def, &graph, &skin, &report), OP_OK);
    assert_int_equal(report.voxel_resolution, 32);
    op_graph_free(&graph);
    op_skin_free(&skin);
    def.voxel_resolution = 8;
    /* a rod cannot have more particles than voxel layers along its length either */
    def.kind = OP_BODY_ROD;
    def.particles = 100000;
    expect_build_failure(&mesh, &def, "voxel layers");
    def.particles = 41;
    expect_build_failure(&mesh, &def, "voxel layers");
    def.particles = 40;
    build_or_fail(&mesh, &def, "column rod 40", &graph, &skin);
    assert_int_equal(graph.particle_count, 40);
    assert_int_equal(graph.edge_count, 39);
    op_graph_free(&graph);
    op_skin_free(&skin);
    op_mesh_free(&mesh);
}

static void test_open_mesh_fails(void **state)
{
    (void)state;
    op_mesh mesh = { 0 }, open = { 0 };
    load_file("dino", &mesh);
    open_copy(&mesh, mesh.face_count / 2, &open);
    op_build_def def = op_default_build_def();
    expect_build_failure(&open, &def, "not closed");
    op_mesh_free(&open);
    op_mesh_free(&mesh);
}

/* Two separate columns in one closed mesh: the builder must refuse a body in two pieces (a
 * failure raised after the graph was allocated, so it must be freed). */
static void test_disconnected_mesh_fails(void **state)
{
    (void)state;
    op_mesh column = { 0 }, pair = { 0 };
    load_shape("column", &column);
    op_ctx ctx;
    op_ctx_init(&ctx);
    int nv = column.vertex_count, nf = column.face_count;
    assert_int_equal(op_mesh_alloc(&ctx, &pair, 2 * nv, 2 * nf), OP_OK);
    for (int v = 0; v < nv; ++v) {
        v3_copy(&pair.vertices[3 * v], &column.vertices[3 * v]);
        v3_copy(&pair.vertices[3 * (nv + v)], &column.vertices[3 * v]);
        pair.vertices[3 * (nv + v)] += 0.5; /* 0.4 m apart in x */
    }
    for (int f = 0; f < 3 * nf; ++f) {
        pair.faces[f] = column.faces[f];
        pair.faces[3 * nf + f] = column.faces[f] + nv;
    }
    assert_true(op_mesh_is_closed(&pair));
    op_build_def def = op_default_build_def();
    def.particles = 20;
    expect_build_failure(&pair, &def, "pieces");
    op_mesh_free(&pair);
    op_mesh_free(&column);
}

/* A joined model (core/geometry/model.c): two 2 x 2 x 2 lattice cubes 0.18 m wide (particles 9 cm apart),
 * the second 0.2 m along x, within reach 0.12 m of each other only across the 11 cm gap: one
 * connected graph of 16 particles with 28 + 28 + 4 edges, the second part's centres, radii and
 * mesh moved by the offset, its skinning pointing at its own particles; and the refusals (nothing
 * within reach, a malformed source, a joined part, kind and source that disagree, a particle
 * count set on it, a mesh built as kind joined). */
static void test_joined_model(void **state)
{
    (void)state;
    const char *catalogue = test_tmp_path(".tsv");
    FILE *f = fopen(catalogue, "w");
    assert_non_null(f);
    fputs("a\tshape:cube18\tlattice\t8\n"
          "ab\tjoin:a+a offset 0.2 0 0 reach 0.12\tjoined\t16\n"
          "far\tjoin:a+a offset 1 0 0 reach 0.12\tjoined\t16\n"
          "bad\tjoin:a+a offset 0.2 0 reach 0.12\tjoined\t16\n"
          "nested\tjoin:ab+a offset 0.5 0 0 reach 0.2\tjoined\t24\n"
          "kindless\tjoin:a+a offset 0.2 0 0 reach 0.12\tlattice\t16\n",
          f);
    fclose(f);
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_build_def def = op_default_build_def();
    def.particles = 0;
    op_model part, joined;
    assert_int_equal(op_model_load(&ctx, catalogue, "a", &def, &part), OP_OK);
    assert_int_equal(op_model_load(&ctx, catalogue, "ab", &def, &joined), OP_OK);
    const op_graph *g = &joined.graph;
    assert_int_equal(joined.build.kind, OP_BODY_JOINED);
    assert_int_equal(g->particle_count, 16);
    assert_int_equal(g->edge_count, 28 + 28 + 4);
    assert_int_equal(op_graph_component_count(g), 1);
    assert_int_equal(op_graph_check(&ctx, g, "ab"), OP_OK);
    assert_int_equal(op_skin_check(&ctx, &joined.skin, 16, "ab"), OP_OK);
    int v = part.mesh.vertex_count;
    assert_int_equal(joined.mesh.vertex_count, 2 * v);
    assert_int_equal(joined.mesh.face_count, 2 * part.mesh.face_count);
    for (int i = 0; i < 8; ++i) {
        assert_close(g->rest_position[3 * (8 + i)], part.graph.rest_position[3 * i] + 0.2, 1e-15);
        assert_close(g->mass[8 + i], part.graph.mass[i], 0);
        assert_close(g->radii[3 * (8 + i)], part.graph.radii[3 * i], 0);
    }
    for (int k = 0; k < v; ++k) {
        assert_close(joined.mesh.vertices[3 * (v + k)], part.mesh.vertices[3 * k] + 0.2, 1e-15);
        assert_int_equal(joined.skin.index[joined.skin.k * (v + k)], part.skin.index[part.skin.k * k] + 8);
    }
    op_model_free(&part);
    op_model_free(&joined);
    const char *refused[][2] = { { "far", "no particle of a is within reach 0.12 m" },
                                 { "bad", "is not 'join:A+B offset DX DY DZ reach R'" },
                                 { "nested", "its part ab is itself joined" },
                                 { "kindless", "the kind 'joined' goes with a 'join:' source" } };
    for (int r = 0; r < 4; ++r) {
        op_ctx_init(&ctx);
        assert_int_not_equal(op_model_load(&ctx, catalogue, refused[r][0], &def, &joined), OP_OK);
        print_message("%s -> %s\n", refused[r][0], ctx.message);
        assert_non_null(strstr(ctx.message, refused[r][1]));
    }
    op_ctx_init(&ctx);
    def.particles = 16;
    assert_int_not_equal(op_model_load(&ctx, catalogue, "ab", &def, &joined), OP_OK);
    assert_non_null(strstr(ctx.message, "set their particle counts"));
    op_mesh mesh;
    assert_int_equal(op_shape_mesh(&ctx, "cube18", &mesh), OP_OK);
    op_ctx_init(&ctx);
    def.kind = OP_BODY_JOINED;
    op_graph graph;
    op_skin skin;
    assert_int_not_equal(op_build_body(&ctx, &mesh, &def, &graph, &skin), OP_OK);
    assert_non_null(strstr(ctx.message, "joined model"));
    op_mesh_free(&mesh);
    remove(catalogue);
}

static void test_body_kind_names(void **state)
{
    (void)state;
    const char *names[] = { "solid", "rod", "shell", "lattice", "joined" };
    for (op_body_kind k = OP_BODY_SOLID; k <= OP_BODY_JOINED; ++k) {
        op_body_kind parsed = (op_body_kind)-1;
        assert_string_equal(op_body_kind_name(k), names[k]);
        assert_int_equal(op_body_kind_parse(names[k], &parsed), 0);
        assert_int_equal(parsed, k);
    }
    op_body_kind untouched = OP_BODY_ROD;
    assert_int_equal(op_body_kind_parse("Solid", &untouched), -1);
    assert_int_equal(op_body_kind_parse("", &untouched), -1);
    assert_int_equal(untouched, OP_BODY_ROD);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_voxelize_boxes),
        cmocka_unit_test(test_voxelize_curved_meshes),
        cmocka_unit_test(test_voxel_at_outside_grid),
        cmocka_unit_test(test_contains_point_at_box_faces),
        cmocka_unit_test(test_locator_agrees_with_the_full_scan),
        cmocka_unit_test(test_voxelize_open_mesh_fails),
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_bar20_rod),
        cmocka_unit_test(test_column10_rod),
        cmocka_unit_test(test_sheet256_shell),
        cmocka_unit_test(test_cube_lattice),
        cmocka_unit_test(test_torus_solids),
        cmocka_unit_test(test_dino_solids),
        cmocka_unit_test(test_armadillo30_solid),
        cmocka_unit_test(test_bunny30_solid),
        cmocka_unit_test(test_build_is_deterministic),
        cmocka_unit_test(test_overlap_rule_matches_the_180_model_scene),
        cmocka_unit_test(test_edge_rule_names),
        cmocka_unit_test(test_bad_parameters),
        cmocka_unit_test(test_too_many_particles),
        cmocka_unit_test(test_open_mesh_fails),
        cmocka_unit_test(test_disconnected_mesh_fails),
        cmocka_unit_test(test_joined_model),
        cmocka_unit_test(test_body_kind_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
