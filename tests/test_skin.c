/* Tests for core/geometry/skin.c (Eq. 2): on the built dinosaur, weights form a partition of unity,
 * the rest state and any rigid motion are reproduced exactly, influences are ordered nearest
 * first; on hand-made graphs, the Sumner weights and the blend against numbers worked by hand;
 * on a U-shaped body built here, no vertex is bound across the gap to the other arm and no edge
 * crosses it; and the bind and check functions reject bad owners, weights and indices. */
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#include "geometry/build.h"
#include "base/math3.h"
#include "base/rng.h"
#include "geometry/skin.h"
#include "geometry/voxel.h"

/* ---- the dinosaur, built once for the group ----------------------------------------------- */

typedef struct dino_fixture {
    op_mesh mesh;
    op_graph graph;
    op_skin skin;
} dino_fixture;

static int dino_setup(void **state)
{
    dino_fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_build_def def = op_default_build_def(); /* solid, 100 particles, K = 4 */
    if (op_mesh_read(&ctx, TEST_MESH_DIR "/dino.obj", &f->mesh) != OP_OK ||
        op_build_body(&ctx, &f->mesh, &def, &f->graph, &f->skin) != OP_OK) {
        print_error("dino100 (run `make data` first): %s\n", ctx.message);
        op_mesh_free(&f->mesh);
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

static int dino_teardown(void **state)
{
    dino_fixture *f = *state;
    op_skin_free(&f->skin);
    op_graph_free(&f->graph);
    op_mesh_free(&f->mesh);
    free(f);
    return 0;
}

static void test_dino_weights_are_a_partition_of_unity(void **state)
{
    const dino_fixture *f = *state;
    const op_skin *skin = &f->skin;
    assert_int_equal(skin->k, 4);
    assert_int_equal(skin->vertex_count, f->mesh.vertex_count);
    int influences = 0;
    for (int v = 0; v < skin->vertex_count; ++v) {
        double sum = 0.0;
        for (int c = 0; c < skin->k; ++c) {
            double w = skin->weight[v * skin->k + c];
            int j = skin->index[v * skin->k + c];
            assert_true(j >= 0 && j < f->graph.particle_count);
            assert_true(w >= 0.0 && isfinite(w));
            sum += w;
            influences += w > 0;
        }
        if (!(fabs(sum - 1.0) <= 1e-12))
            fail_msg("vertex %d: weights sum to %.17g", v, sum);
    }
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_skin_check(&ctx, skin, f->graph.particle_count, "dino"), OP_OK);
    print_message("dino100: %d vertices, %.2f influences per vertex\n", skin->vertex_count,
                  (double)influences / skin->vertex_count);
    /* with K = 4 and d_max the fifth distance, most vertices really have 4 influences */
    assert_true(influences > 3 * skin->vertex_count);
}

static void test_dino_rest_state_reproduces_vertices(void **state)
{
    const dino_fixture *f = *state;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_state body;
    assert_int_equal(op_state_alloc(&ctx, &body, f->graph.particle_count), OP_OK);
    op_state_set_rest(&body, &f->graph);
    double *out = calloc(3 * (size_t)f->mesh.vertex_count, sizeof(double));
    assert_non_null(out);
    op_skin_apply(&f->skin, &f->graph, &body, f->mesh.vertices, out);
    double worst = 0.0;
    for (int k = 0; k < 3 * f->mesh.vertex_count; ++k)
        worst = fmax(worst, fabs(out[k] - f->mesh.vertices[k]));
    print_message("rest state: largest vertex error %.3g m\n", worst);
    assert_le(worst, 1e-12);
    free(out);
    op_state_free(&body);
}

/* A uniformly random rotation from a random unit quaternion. */
static void random_rotation(op_rng *rng, double q[9])
{
    double a[4], norm = 0.0;
    do {
        norm = 0.0;
        for (int k = 0; k < 4; ++k) {
            a[k] = 2.0 * op_rng_uniform(rng) - 1.0;
            norm += a[k] * a[k];
        }
    } while (norm > 1.0 || norm < 1e-3);
    norm = sqrt(norm);
    double w = a[0] / norm, x = a[1] / norm, y = a[2] / norm, z = a[3] / norm;
    double r[9] = { 1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                    2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                    2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y) };
    m3_copy(q, r);
}

static void test_dino_rigid_motion_is_exact(void **state)
{
    const dino_fixture *f = *state;
    int n = f->graph.particle_count, nv = f->mesh.vertex_count;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_state body;
    assert_int_equal(op_state_alloc(&ctx, &body, n), OP_OK);
    double *out = calloc(3 * (size_t)nv, sizeof(double));
    assert_non_null(out);
    op_rng rng = op_rng_seeded(20170707);
    double q[9], t[3];
    for (int trial = 0; trial < 4; ++trial) {
        random_rotation(&rng, q);
        assert_close(m3_det(q), 1.0, 1e-14);
        assert_true(m3_orthonormality_error(q) < 1e-14);
        for (int d = 0; d < 3; ++d)
            t[d] = 4.0 * op_rng_uniform(&rng) - 2.0;
        for (int i = 0; i < n; ++i) {
            m3_mul_v(&body.position[3 * i], q, &f->graph.rest_position[3 * i]);
            v3_add(&body.position[3 * i], &body.position[3 * i], t);
            m3_copy(&body.rotation[9 * i], q);
        }
        op_skin_apply(&f->skin, &f->graph, &body, f->mesh.vertices, out);
        double worst = 0.0;
        for (int v = 0; v < nv; ++v) {
            double expected[3];
            m3_mul_v(expected, q, &f->mesh.vertices[3 * v]);
            v3_add(expected, expected, t);
            worst = fmax(worst, sqrt(v3_dist2(expected, &out[3 * v])));
        }
        print_message("rigid motion %d: largest vertex error %.3g m\n", trial, worst);
        assert_le(worst, 1e-12);
    }
    /* the comparison has teeth: moving one particle 1 cm off the rigid motion moves the
     * vertices it influences by weight x 1 cm */
    body.position[3 * 7 + 1] += 0.01;
    op_skin_apply(&f->skin, &f->graph, &body, f->mesh.vertices, out);
    double moved = 0.0, heaviest = 0.0;
    for (int v = 0; v < nv; ++v) {
        double expected[3], influence = 0.0;
        m3_mul_v(expected, q, &f->mesh.vertices[3 * v]);
        v3_add(expected, expected, t);
        for (int c = 0; c < f->skin.k; ++c)
            if (f->skin.index[v * f->skin.k + c] == 7)
                influence += f->skin.weight[v * f->skin.k + c];
        assert_close(out[3 * v + 1] - expected[1], 0.01 * influence, 1e-12);
        moved = fmax(moved, sqrt(v3_dist2(expected, &out[3 * v])));
        heaviest = fmax(heaviest, influence);
    }
    assert_true(heaviest > 0.25);
    assert_close(moved, 0.01 * heaviest, 1e-12);
    free(out);
    op_state_free(&body);
}

static void test_dino_influences_nearest_first(void **state)
{
    const dino_fixture *f = *state;
    const op_skin *skin = &f->skin;
    int k = skin->k;
    for (int v = 0; v < skin->vertex_count; ++v) {
        const int *index = &skin->index[v * k];
        const double *weight = &skin->weight[v * k], *p = &f->mesh.vertices[3 * v];
        assert_true(weight[0] > 0);
        double previous = sqrt(v3_dist2(p, &f->graph.rest_position[3 * index[0]]));
        for (int c = 1; c < k; ++c) {
            if (!(weight[c] <= weight[c - 1]))
                fail_msg("vertex %d: weight %d = %g after %g", v, c, weight[c], weight[c - 1]);
            if (weight[c] == 0.0)
                continue;
            double d = sqrt(v3_dist2(p, &f->graph.rest_position[3 * index[c]]));
            assert_le(previous, d);
            previous = d;
            for (int b = 0; b < c; ++b)
                assert_int_not_equal(index[b], index[c]); /* no particle counted twice */
        }
    }
}

/* ---- hand-made graphs --------------------------------------------------------------------- */

/* Unit spheres at the given centres joined in a chain 0-1-...-(n-1). */
static void chain_graph(op_graph *graph, int n, const double *centres)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_graph_alloc(&ctx, graph, n, 0), OP_OK);
    int edges[2 * 16];
    assert_true(n <= 16);
    for (int i = 0; i < n; ++i) {
        v3_copy(&graph->rest_position[3 * i], &centres[3 * i]);
        v3_set(&graph->radii[3 * i], 0.3, 0.2, 0.1);
        m3_identity(&graph->rest_axes[9 * i]);
        if (i + 1 < n) {
            edges[2 * i] = i;
            edges[2 * i + 1] = i + 1;
        }
    }
    op_graph_derive(graph, 1000.0);
    assert_int_equal(op_graph_set_edges(&ctx, graph, edges, n - 1), OP_OK);
    assert_int_equal(op_graph_check(&ctx, graph, "chain"), OP_OK);
}

static void one_vertex_mesh(op_mesh *mesh, int vertex_count, const double *vertices)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_mesh_alloc(&ctx, mesh, vertex_count, 0), OP_OK);
    memcpy(mesh->vertices, vertices, 3 * (size_t)vertex_count * sizeof(double));
}

static double sumner(double d, double d_max)
{
    double t = 1.0 - d / d_max;
    return t * t;
}

/* Six particles on the x axis, 1 m apart. A vertex owned by particle 0 sees the chain ring by
 * ring until K + 1 = 5 candidates are found (d_max is the fifth distance); one owned by the
 * middle particle 2 gets its five candidates from the first two rings. */
static void test_sumner_weights_on_a_chain(void **state)
{
    (void)state;
    const double centres[] = { 0, 0, 0, 1, 0, 0, 2, 0, 0, 3, 0, 0, 4, 0, 0, 5, 0, 0 };
    op_graph graph;
    chain_graph(&graph, 6, centres);
    const double vertices[] = { 0.2, 0.1, 0.0, /**/ 2.4, 0.0, 0.0 };
    op_mesh mesh;
    one_vertex_mesh(&mesh, 2, vertices);
    const int owner[] = { 0, 2 };
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_skin skin;
    assert_int_equal(op_skin_bind(&ctx, &graph, &mesh, owner, 4, &skin), OP_OK);

    /* vertex 0: distances to particles 0..4, d_max the one to particle 4 */
    double d[5], w[4], sum = 0;
    for (int i = 0; i < 5; ++i)
        d[i] = sqrt((0.2 - i) * (0.2 - i) + 0.01);
    for (int i = 0; i < 4; ++i)
        sum += w[i] = sumner(d[i], d[4]);
    for (int c = 0; c < 4; ++c) {
        assert_int_equal(skin.index[c], c);
        assert_close(skin.weight[c], w[c] / sum, 1e-14);
    }
    /* vertex 1 at x = 2.4: order 2 (0.4), 3 (0.6), 1 (1.4), 4 (1.6); d_max = 2.4 (particle 0),
     * and particle 5 (2.6 m away, three rings out) is never a candidate */
    const int order[] = { 2, 3, 1, 4 };
    const double dist[] = { 0.4, 0.6, 1.4, 1.6 };
    sum = 0;
    for (int c = 0; c < 4; ++c)
        sum += w[c] = sumner(dist[c], 2.4);
    for (int c = 0; c < 4; ++c) {
        assert_int_equal(skin.index[4 + c], order[c]);
        assert_close(skin.weight[4 + c], w[c] / sum, 1e-14);
    }
    assert_close(skin.weight[4], 100.0 / 222.0, 1e-14); /* (5/6)² / Σ = 100/222, worked by hand */
    assert_int_equal(op_skin_check(&ctx, &skin, 6, "chain"), OP_OK);
    op_skin_free(&skin);
    op_mesh_free(&mesh);
    op_graph_free(&graph);
}

/* A body with no more particles than K: every particle is an influence, empty slots repeat the
 * first with weight 0; a vertex equidistant from its K + 1 candidates follows the nearest. */
static void test_small_bodies(void **state)
{
    (void)state;
    const double centres[] = { -1, 0, 0, 1, 0, 0 };
    op_graph graph;
    chain_graph(&graph, 2, centres);
    const double vertices[] = { -0.5, 0, 0, /**/ 0, 0, 0 };
    op_mesh mesh;
    one_vertex_mesh(&mesh, 2, vertices);
    const int owner[] = { 0, 1 };
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_skin skin;
    assert_int_equal(op_skin_bind(&ctx, &graph, &mesh, owner, 4, &skin), OP_OK);
    /* vertex 0: distances 0.5 and 1.5, d_max = 2 · 1.5 */
    double w0 = sumner(0.5, 3.0), w1 = sumner(1.5, 3.0);
    assert_int_equal(skin.index[0], 0);
    assert_int_equal(skin.index[1], 1);
    assert_close(skin.weight[0], w0 / (w0 + w1), 1e-14);
    assert_close(skin.weight[1], w1 / (w0 + w1), 1e-14);
    for (int c = 2; c < 4; ++c) {
        assert_int_equal(skin.index[c], 0);
        assert_true(skin.weight[c] == 0.0);
    }
    /* vertex 1, halfway: equal weights, ties broken by particle index */
    assert_int_equal(skin.index[4], 0);
    assert_int_equal(skin.index[5], 1);
    assert_close(skin.weight[4], 0.5, 1e-15);
    assert_close(skin.weight[5], 0.5, 1e-15);
    assert_int_equal(op_skin_check(&ctx, &skin, 2, "pair"), OP_OK);
    op_skin_free(&skin);

    /* K = 1: the second candidate sets d_max = 1 = the first distance, so the raw weight is 0 */
    assert_int_equal(op_skin_bind(&ctx, &graph, &mesh, owner, 1, &skin), OP_OK);
    assert_int_equal(skin.index[0], 0);
    assert_true(skin.weight[0] == 1.0);
    assert_int_equal(skin.index[1], 0);
    assert_true(skin.weight[1] == 1.0);
    assert_int_equal(op_skin_check(&ctx, &skin, 2, "pair"), OP_OK);
    op_skin_free(&skin);
    op_mesh_free(&mesh);
    op_graph_free(&graph);
}

/* Eq. 2 by hand: one vertex, weights 1/4 and 3/4, one particle translated, one rotated. */
static void test_apply_by_hand(void **state)
{
    (void)state;
    const double centres[] = { 0, 0, 0, 1, 0, 0 };
    op_graph graph;
    chain_graph(&graph, 2, centres);
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_skin skin;
    assert_int_equal(op_skin_alloc(&ctx, &skin, 1, 2), OP_OK);
    skin.index[0] = 0, skin.weight[0] = 0.25;
    skin.index[1] = 1, skin.weight[1] = 0.75;
    op_state body;
    assert_int_equal(op_state_alloc(&ctx, &body, 2), OP_OK);
    op_state_set_rest(&body, &graph);
    v3_set(&body.position[0], 0, 0, 1); /* particle 0 moves up z */
    v3_set(&body.position[3], 1, 1, 0); /* particle 1 moves up y and turns 90° about z */
    const double quarter_turn[9] = { 0, -1, 0, 1, 0, 0, 0, 0, 1 };
    m3_copy(&body.rotation[9], quarter_turn);
    const double rest_vertex[3] = { 0.5, 0.2, 0.0 };
    double out[3];
    op_skin_apply(&skin, &graph, &body, rest_vertex, out);
    /* particle 0 carries it to (0.5, 0.2, 1); particle 1 turns (−0.5, 0.2, 0) into (−0.2, −0.5, 0)
     * about (1, 1, 0): (0.8, 0.5, 0). Blend: (0.725, 0.425, 0.25). */
    assert_close(out[0], 0.725, 1e-15);
    assert_close(out[1], 0.425, 1e-15);
    assert_close(out[2], 0.25, 1e-15);
    op_state_free(&body);
    op_skin_free(&skin);
    op_graph_free(&graph);
}

static void test_bind_rejects_bad_owner(void **state)
{
    (void)state;
    const double centres[] = { 0, 0, 0, 1, 0, 0, 2, 0, 0 };
    op_graph graph;
    chain_graph(&graph, 3, centres);
    const double vertices[] = { 0, 0, 0, 1, 0, 0, 2, 0, 0 };
    op_mesh mesh;
    one_vertex_mesh(&mesh, 3, vertices);
    const int owners[2][3] = { { 0, 1, 3 }, { -1, 1, 2 } };
    for (int o = 0; o < 2; ++o) {
        op_ctx ctx;
        op_ctx_init(&ctx);
        op_skin skin;
        memset(&skin, 0, sizeof skin);
        assert_int_equal(op_skin_bind(&ctx, &graph, &mesh, owners[o], 4, &skin), OP_ERR_INVALID);
        char expected[64];
        snprintf(expected, sizeof expected, "vertex %d has owner particle %d out of range", o ? 0 : 2,
                 o ? -1 : 3);
        if (!strstr(ctx.message, expected))
            fail_msg("expected \"%s\", got \"%s\"", expected, ctx.message);
        assert_null(skin.index);
        assert_null(skin.weight);
        assert_int_equal(skin.vertex_count, 0);
    }
    op_mesh_free(&mesh);
    op_graph_free(&graph);
}

/* A valid 3-vertex skin with K = 2 over 4 particles. */
static void valid_skin(op_skin *skin)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_skin_alloc(&ctx, skin, 3, 2), OP_OK);
    const int index[] = { 0, 1, 2, 3, 3, 3 };
    const double weight[] = { 0.75, 0.25, 0.5, 0.5, 1.0, 0.0 };
    memcpy(skin->index, index, sizeof index);
    memcpy(skin->weight, weight, sizeof weight);
    assert_int_equal(op_skin_check(&ctx, skin, 4, "hand"), OP_OK);
}

static void expect_skin_rejected(int slot, int index, double weight, const char *reason)
{
    op_skin skin;
    valid_skin(&skin);
    if (index != -2)
        skin.index[slot] = index;
    if (!isnan(weight))
        skin.weight[slot] = weight;
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_skin_check(&ctx, &skin, 4, "hand"), OP_ERR_INVALID);
    if (!strstr(ctx.message, "skin hand") || !strstr(ctx.message, reason))
        fail_msg("expected \"%s\", got \"%s\"", reason, ctx.message);
    op_skin_free(&skin);
}

static void test_check_rejects_bad_skins(void **state)
{
    (void)state;
    /* weight sum 0.9: vertex 1's weights 0.5 and 0.4 */
    expect_skin_rejected(3, -2, 0.4, "vertex 1 sum to 0.9");
    /* a negative weight whose vertex still sums to one */
    op_skin skin;
    valid_skin(&skin);
    skin.weight[0] = 1.25;
    skin.weight[1] = -0.25;
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_skin_check(&ctx, &skin, 4, "hand"), OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "vertex 0 has weight -0.25"));
    /* a NaN weight */
    skin.weight[1] = NAN;
    skin.weight[0] = 0.75;
    op_ctx_init(&ctx);
    assert_int_equal(op_skin_check(&ctx, &skin, 4, "hand"), OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "vertex 0 has weight nan"));
    op_skin_free(&skin);
    /* indices out of range, even with weight 0 */
    expect_skin_rejected(5, 4, NAN, "vertex 2 is bound to particle 4 of 4");
    expect_skin_rejected(2, -1, NAN, "vertex 1 is bound to particle -1 of 4");
    /* a sum a little over one */
    expect_skin_rejected(4, -2, 1.0 + 1e-9, "vertex 2 sum to");
    /* and rounding-level error is accepted */
    valid_skin(&skin);
    skin.weight[0] = 0.75 + 1e-15;
    op_ctx_init(&ctx);
    assert_int_equal(op_skin_check(&ctx, &skin, 4, "hand"), OP_OK);
    /* a bad K */
    skin.k = 0;
    assert_int_equal(op_skin_check(&ctx, &skin, 4, "hand"), OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "K = 0"));
    skin.k = 2;
    op_skin_free(&skin);
    assert_null(skin.index);
    assert_null(skin.weight);
    op_ctx_init(&ctx);
    assert_int_equal(op_skin_alloc(&ctx, &skin, 5, OP_SKIN_MAX_K + 1), OP_ERR_INVALID);
    assert_null(skin.index);
}

/* ---- the limb test: a U-shaped body ------------------------------------------------------- */

/* The U, on a lattice of 25 mm cells: arms 3 x 20 x 3 cells at i = 0..2 (A) and i = 4..6 (B),
 * joined by a 7 x 3 x 3 bridge at the bottom (j < 3). Lattice column i = 3, the gap between the
 * arms, is only half a cell wide (12.5 mm, against 500 mm of arm). y is up; the arms' free
 * ends are at the top. */
enum { U_X = 7, U_Y = 23, U_Z = 3, U_BRIDGE = 3 };
static const double u_cube = 0.025;
static const double u_gap_x = 0.08125;        /* the middle of the gap, x in [0.075, 0.0875] */
static const double u_bridge_y = 3.0 * 0.025; /* top of the bridge */
static const double u_free_y = 13.0 * 0.025;  /* the arms' free halves lie above this */
/* Vertices this far above the bridge (two arm widths) belong to one arm alone: nearer the
 * junction, the two arms really are a couple of particles apart through the bridge. */
static const double u_limb_y = 9.0 * 0.025;

static int u_occupied(int i, int j, int k)
{
    if (i < 0 || j < 0 || k < 0 || i >= U_X || j >= U_Y || k >= U_Z)
        return 0;
    return j < U_BRIDGE || i != 3;
}

/* The closed boundary of the union of the occupied cubes: one quad (two triangles) per cube
 * face with an empty neighbour, outward, vertices shared through the lattice. */
static void u_mesh(op_mesh *mesh)
{
    enum { LX = U_X + 1, LY = U_Y + 1, LZ = U_Z + 1 };
    static int vertex_of[LX * LY * LZ];
    int vertex_count = 0, quads = 0;
    for (int pass = 0; pass < 2; ++pass) {
        int face = 0;
        for (int p = 0; p < LX * LY * LZ; ++p)
            vertex_of[p] = -1;
        vertex_count = 0;
        for (int k = 0; k < U_Z; ++k)
            for (int j = 0; j < U_Y; ++j)
                for (int i = 0; i < U_X; ++i) {
                    if (!u_occupied(i, j, k))
                        continue;
                    int cell[3] = { i, j, k };
                    for (int d = 0; d < 3; ++d)
                        for (int side = 0; side < 2; ++side) {
                            int next[3] = { i, j, k };
                            next[d] += side ? 1 : -1;
                            if (u_occupied(next[0], next[1], next[2]))
                                continue;
                            int u = (d + 1) % 3, v = (d + 2) % 3, corner[4];
                            const int du[4] = { 0, 1, 1, 0 }, dv[4] = { 0, 0, 1, 1 };
                            for (int q = 0; q < 4; ++q) {
                                int c[3];
                                c[d] = cell[d] + side;
                                c[u] = cell[u] + du[q];
                                c[v] = cell[v] + dv[q];
                                int p = c[0] + LX * (c[1] + LY * c[2]);
                                if (vertex_of[p] < 0) {
                                    vertex_of[p] = vertex_count++;
                                    if (pass == 1)
                                        for (int e = 0; e < 3; ++e)
                                            mesh->vertices[3 * vertex_of[p] + e] =
                                                u_cube * c[e] - (e == 0 && c[e] >= 4 ? 0.5 * u_cube : 0.0);
                                }
                                corner[q] = vertex_of[p];
                            }
                            if (!side) { /* seen from −d the (u, v) order is clockwise */
                                int t = corner[1];
                                corner[1] = corner[3];
                                corner[3] = t;
                            }
                            if (pass == 1) {
                                int *f = &mesh->faces[3 * face];
                                f[0] = corner[0], f[1] = corner[1], f[2] = corner[2];
                                f[3] = corner[0], f[4] = corner[2], f[5] = corner[3];
                            }
                            face += 2;
                        }
                }
        if (pass == 0) {
            quads = face / 2;
            op_ctx ctx;
            op_ctx_init(&ctx);
            assert_int_equal(op_mesh_alloc(&ctx, mesh, vertex_count, 2 * quads), OP_OK);
            mesh->polygon_count = quads;
        }
    }
}

/* Half-width of particle i's ellipsoid along the unit direction n: √(nᵀ Ē diag(a², b², c²) Ēᵀ n). */
static double support(const op_graph *graph, int i, const double n[3])
{
    double local[3], sum = 0.0;
    m3_mul_tv(local, &graph->rest_axes[9 * i], n);
    for (int d = 0; d < 3; ++d)
        sum += graph->radii[3 * i + d] * graph->radii[3 * i + d] * local[d] * local[d];
    return sqrt(sum);
}

static int in_arm_a(const double *p) { return p[0] < u_gap_x && p[1] > u_bridge_y; }
static int in_arm_b(const double *p) { return p[0] > u_gap_x && p[1] > u_bridge_y; }

static void test_no_binding_or_edge_across_the_gap(void **state)
{
    (void)state;
    op_mesh mesh = { 0 };
    u_mesh(&mesh);
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_mesh_check(&ctx, &mesh, "U"), OP_OK);
    assert_true(op_mesh_is_closed(&mesh));
    /* sanity of the shape: inside the arms and bridge, outside in the gap */
    assert_true(op_mesh_contains_point(&mesh, (const double[3]){ 0.03, 0.5, 0.03 }));
    assert_true(op_mesh_contains_point(&mesh, (const double[3]){ 0.09, 0.5, 0.03 }));
    assert_true(op_mesh_contains_point(&mesh, (const double[3]){ 0.16, 0.5, 0.03 }));
    assert_false(op_mesh_contains_point(&mesh, (const double[3]){ 0.17, 0.5, 0.03 }));
    assert_true(op_mesh_contains_point(&mesh, (const double[3]){ u_gap_x, 0.05, 0.03 }));
    assert_false(op_mesh_contains_point(&mesh, (const double[3]){ u_gap_x, 0.3, 0.03 }));

    op_build_def def = op_default_build_def();
    def.particles = 24;
    op_graph graph;
    op_skin skin;
    if (op_build_body(&ctx, &mesh, &def, &graph, &skin) != OP_OK)
        fail_msg("building the U: %s", ctx.message);
    int n = graph.particle_count, k = skin.k;
    assert_int_equal(n, 24);
    assert_int_equal(op_skin_check(&ctx, &skin, n, "U"), OP_OK);

    int free_a = 0, free_b = 0;
    for (int i = 0; i < n; ++i) {
        const double *x = &graph.rest_position[3 * i];
        free_a += in_arm_a(x) && x[1] > u_free_y;
        free_b += in_arm_b(x) && x[1] > u_free_y;
    }
    print_message("U: %d particles, %d edges; %d and %d in the arms' free halves\n", n, graph.edge_count, free_a,
                  free_b);
    assert_true(free_a >= 3 && free_b >= 3);

    /* Skinning: no vertex of one arm (above u_limb_y) is bound to a particle of the other arm
     * (any particle whose centre is above the bridge on the other side of the gap). And the test
     * has teeth: for some such vertex, plain Euclidean K-nearest would pick the other arm. */
    int bound_across = 0, euclid_across = 0, arm_vertices = 0;
    double *distance = calloc((size_t)n, sizeof(double));
    assert_non_null(distance);
    for (int v = 0; v < mesh.vertex_count; ++v) {
        const double *p = &mesh.vertices[3 * v];
        int arm = p[1] <= u_limb_y ? 0 : in_arm_a(p) ? 1 : in_arm_b(p) ? 2 : 0;
        if (!arm)
            continue;
        ++arm_vertices;
        for (int c = 0; c < k; ++c) {
            const double *x = &graph.rest_position[3 * skin.index[v * k + c]];
            int other = arm == 1 ? in_arm_b(x) : in_arm_a(x);
            if (other && skin.weight[v * k + c] > 0) {
                ++bound_across;
                print_error("vertex %d (%g, %g, %g) of arm %c is bound to particle %d at (%g, %g, %g)\n", v, p[0],
                            p[1], p[2], arm == 1 ? 'A' : 'B', skin.index[v * k + c], x[0], x[1], x[2]);
            }
        }
        /* the K nearest particles by straight-line distance */
        for (int i = 0; i < n; ++i)
            distance[i] = sqrt(v3_dist2(p, &graph.rest_position[3 * i]));
        for (int c = 0; c < k; ++c) {
            int nearest = 0;
            for (int i = 1; i < n; ++i)
                if (distance[i] < distance[nearest])
                    nearest = i;
            const double *x = &graph.rest_position[3 * nearest];
            if (arm == 1 ? in_arm_b(x) : in_arm_a(x)) {
                ++euclid_across;
                break;
            }
            distance[nearest] = INFINITY;
        }
    }
    free(distance);
    print_message("U: %d arm vertices; %d would be bound across the gap by Euclidean %d-nearest, %d are\n",
                  arm_vertices, euclid_across, k, bound_across);
    assert_true(arm_vertices > 100);
    assert_true(euclid_across > 0);
    assert_int_equal(bound_across, 0);

    /* Edges: none between the arms' free halves, although their ellipsoids reach across the
     * gap and overlap (a proximity rule would join them). */
    int *edges = calloc(2 * (size_t)graph.edge_count, sizeof(int));
    assert_non_null(edges);
    op_graph_edges(&graph, edges);
    for (int e = 0; e < graph.edge_count; ++e) {
        const double *a = &graph.rest_position[3 * edges[2 * e]], *b = &graph.rest_position[3 * edges[2 * e + 1]];
        int a_free = a[1] > u_free_y, b_free = b[1] > u_free_y;
        if (a_free && b_free && ((in_arm_a(a) && in_arm_b(b)) || (in_arm_b(a) && in_arm_a(b))))
            fail_msg("edge %d-%d joins the two arms' free halves", edges[2 * e], edges[2 * e + 1]);
    }
    int overlapping = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            const double *a = &graph.rest_position[3 * i], *b = &graph.rest_position[3 * j];
            if (!(in_arm_a(a) && in_arm_b(b) && a[1] > u_free_y && b[1] > u_free_y))
                continue;
            double direction[3];
            v3_sub(direction, b, a);
            double distance = v3_norm(direction);
            v3_scale(direction, direction, 1.0 / distance);
            overlapping += support(&graph, i, direction) + support(&graph, j, direction) > distance;
        }
    print_message("U: %d pairs of particles in the free halves overlap across the gap\n", overlapping);
    assert_true(overlapping > 0);
    free(edges);
    op_graph_free(&graph);
    op_skin_free(&skin);
    op_mesh_free(&mesh);
}

int main(void)
{
    const struct CMUnitTest dino[] = {
        cmocka_unit_test(test_dino_weights_are_a_partition_of_unity),
        cmocka_unit_test(test_dino_rest_state_reproduces_vertices),
        cmocka_unit_test(test_dino_rigid_motion_is_exact),
        cmocka_unit_test(test_dino_influences_nearest_first),
    };
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sumner_weights_on_a_chain),
        cmocka_unit_test(test_small_bodies),
        cmocka_unit_test(test_apply_by_hand),
        cmocka_unit_test(test_bind_rejects_bad_owner),
        cmocka_unit_test(test_check_rejects_bad_skins),
        cmocka_unit_test(test_no_binding_or_edge_across_the_gap),
    };
    int failed = cmocka_run_group_tests_name("skin on dino100", dino, dino_setup, dino_teardown);
    failed += cmocka_run_group_tests_name("skin", tests, NULL, NULL);
    return failed;
}
