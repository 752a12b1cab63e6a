/* Tests for core/geometry/graph.c: the CSR adjacency built from edge lists (merging, ordering, symmetry,
 * rejected edges), the derived rest quantities checked against independent formulas, every
 * corruption op_graph_check must reject, connected components and the rest state. */
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#include "opsim/graph.h"
#include "base/math3.h"

/* Rotation by `angle` about the (normalised) axis, by Rodrigues' formula. */
static void rotation_about(double out[9], const double axis_in[3], double angle)
{
    double axis[3];
    v3_scale(axis, axis_in, 1.0 / v3_norm(axis_in));
    double c = cos(angle), s = sin(angle), t = 1.0 - c;
    double x = axis[0], y = axis[1], z = axis[2];
    double r[9] = { t * x * x + c,     t * x * y - s * z, t * x * z + s * y,
                    t * x * y + s * z, t * y * y + c,     t * y * z - s * x,
                    t * x * z - s * y, t * y * z + s * x, t * z * z + c };
    m3_copy(out, r);
}

/* A valid chain 0-1-...-(n-1) of particles with distinct radii and rotated axes. */
static void make_chain(op_graph *graph, int n)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_graph_alloc(&ctx, graph, n, 0), OP_OK);
    for (int i = 0; i < n; ++i) {
        v3_set(&graph->rest_position[3 * i], 0.1 * i, 0.02 * i * i, -0.03 * i);
        v3_set(&graph->radii[3 * i], 0.05 + 0.01 * i, 0.03 + 0.005 * i, 0.02);
        rotation_about(&graph->rest_axes[9 * i], (const double[3]){ 1.0 + i, -2.0, 0.5 * i + 0.3 }, 0.4 + 0.7 * i);
    }
    op_graph_derive(graph, 1200.0);
    int *edges = calloc(2 * (size_t)(n > 1 ? n - 1 : 1), sizeof(int));
    assert_non_null(edges);
    for (int e = 0; e + 1 < n; ++e) {
        edges[2 * e] = e + 1; /* reversed on purpose: the CSR must not care */
        edges[2 * e + 1] = e;
    }
    assert_int_equal(op_graph_set_edges(&ctx, graph, edges, n - 1), OP_OK);
    free(edges);
    assert_int_equal(graph->edge_count, n - 1);
}

static void assert_symmetric_sorted(const op_graph *graph)
{
    int n = graph->particle_count;
    assert_int_equal(graph->adjacency_start[0], 0);
    assert_int_equal(graph->adjacency_start[n], 2 * graph->edge_count);
    for (int i = 0; i < n; ++i)
        for (int k = graph->adjacency_start[i]; k < graph->adjacency_start[i + 1]; ++k) {
            int j = graph->adjacency[k];
            assert_true(j >= 0 && j < n && j != i);
            if (k > graph->adjacency_start[i])
                assert_true(graph->adjacency[k - 1] < j);
            int reverse = 0;
            for (int l = graph->adjacency_start[j]; l < graph->adjacency_start[j + 1]; ++l)
                reverse += graph->adjacency[l] == i;
            assert_int_equal(reverse, 1);
        }
}

static void test_set_edges_merges_and_sorts(void **state)
{
    (void)state;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_graph graph;
    assert_int_equal(op_graph_alloc(&ctx, &graph, 6, 0), OP_OK);
    /* 0-1 three times (both directions), 1-2 twice, 4-3 twice, 0-4 once, 5 isolated */
    const int edges[][2] = { { 0, 1 }, { 1, 0 }, { 2, 1 }, { 0, 1 }, { 4, 3 }, { 3, 4 }, { 1, 2 }, { 4, 0 } };
    assert_int_equal(op_graph_set_edges(&ctx, &graph, &edges[0][0], 8), OP_OK);
    assert_int_equal(ctx.status, OP_OK);
    assert_int_equal(graph.edge_count, 4);
    const int start[] = { 0, 2, 4, 5, 6, 8, 8 };
    const int adjacency[] = { 1, 4, /**/ 0, 2, /**/ 1, /**/ 4, /**/ 0, 3 };
    for (int i = 0; i <= 6; ++i)
        assert_int_equal(graph.adjacency_start[i], start[i]);
    for (int k = 0; k < 8; ++k)
        assert_int_equal(graph.adjacency[k], adjacency[k]);
    assert_symmetric_sorted(&graph);

    int listed[4][2];
    memset(listed, 0xff, sizeof listed);
    op_graph_edges(&graph, &listed[0][0]);
    const int expected[4][2] = { { 0, 1 }, { 0, 4 }, { 1, 2 }, { 3, 4 } };
    for (int e = 0; e < 4; ++e) {
        assert_int_equal(listed[e][0], expected[e][0]);
        assert_int_equal(listed[e][1], expected[e][1]);
    }

    /* replacing the edges rebuilds the adjacency from scratch */
    const int fewer[][2] = { { 5, 2 } };
    assert_int_equal(op_graph_set_edges(&ctx, &graph, &fewer[0][0], 1), OP_OK);
    assert_int_equal(graph.edge_count, 1);
    const int start2[] = { 0, 0, 0, 1, 1, 1, 2 };
    for (int i = 0; i <= 6; ++i)
        assert_int_equal(graph.adjacency_start[i], start2[i]);
    assert_int_equal(graph.adjacency[0], 5);
    assert_int_equal(graph.adjacency[1], 2);
    op_graph_free(&graph);
    assert_null(graph.adjacency);
    assert_null(graph.adjacency_start);
    assert_null(graph.rest_moment);
    assert_int_equal(graph.particle_count, 0);
}

/* A larger random multigraph: the CSR must equal the de-duplicated, symmetrised input. */
static void test_set_edges_random_multigraph(void **state)
{
    (void)state;
    enum { N = 37, E = 400 };
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_graph graph;
    assert_int_equal(op_graph_alloc(&ctx, &graph, N, 0), OP_OK);
    static int edges[E][2];
    static unsigned char want[N][N];
    memset(want, 0, sizeof want);
    unsigned seed = 12345;
    int e = 0;
    while (e < E) {
        seed = seed * 1103515245u + 12345u;
        int i = (int)(seed >> 8) % N;
        seed = seed * 1103515245u + 12345u;
        int j = (int)(seed >> 8) % 7 + i - 3; /* near i: many repeats */
        if (j < 0 || j >= N || j == i)
            continue;
        edges[e][0] = i;
        edges[e][1] = j;
        want[i][j] = want[j][i] = 1;
        ++e;
    }
    int unique = 0;
    for (int i = 0; i < N; ++i)
        for (int j = i + 1; j < N; ++j)
            unique += want[i][j];
    assert_int_equal(op_graph_set_edges(&ctx, &graph, &edges[0][0], E), OP_OK);
    assert_int_equal(graph.edge_count, unique);
    assert_true(unique < E); /* the input really had duplicates */
    assert_symmetric_sorted(&graph);
    for (int i = 0; i < N; ++i) {
        int degree = 0;
        for (int j = 0; j < N; ++j)
            degree += want[i][j];
        assert_int_equal(graph.adjacency_start[i + 1] - graph.adjacency_start[i], degree);
        for (int k = graph.adjacency_start[i]; k < graph.adjacency_start[i + 1]; ++k)
            assert_true(want[i][graph.adjacency[k]]);
    }
    int *listed = calloc(2 * (size_t)unique, sizeof(int));
    assert_non_null(listed);
    op_graph_edges(&graph, listed);
    for (int k = 0; k < unique; ++k) {
        assert_true(listed[2 * k] < listed[2 * k + 1]);
        assert_true(want[listed[2 * k]][listed[2 * k + 1]]);
        if (k > 0)
            assert_true(listed[2 * k - 2] < listed[2 * k] ||
                        (listed[2 * k - 2] == listed[2 * k] && listed[2 * k - 1] < listed[2 * k + 1]));
    }
    free(listed);
    op_graph_free(&graph);
}

/* A rejected edge list fails with a message naming the edge and leaves the graph as it was. */
static void expect_edges_rejected(const int *edges, int edge_count, int bad_edge, const char *reason)
{
    op_graph graph;
    make_chain(&graph, 4);
    int *start_before = graph.adjacency_start, *adjacency_before = graph.adjacency;
    op_ctx ctx;
    op_ctx_init(&ctx);
    int status = op_graph_set_edges(&ctx, &graph, edges, edge_count);
    assert_int_not_equal(status, OP_OK);
    assert_int_equal(ctx.status, status);
    char edge_name[32];
    snprintf(edge_name, sizeof edge_name, "edge %d ", bad_edge);
    if (!strstr(ctx.message, reason) || !strstr(ctx.message, edge_name))
        fail_msg("expected a message with \"%s\" and \"%s\", got \"%s\"", edge_name, reason, ctx.message);
    assert_ptr_equal(graph.adjacency, adjacency_before);
    assert_ptr_equal(graph.adjacency_start, start_before);
    assert_int_equal(graph.edge_count, 3);
    op_ctx_init(&ctx);
    assert_int_equal(op_graph_check(&ctx, &graph, "after rejected edges"), OP_OK);
    op_graph_free(&graph);
}

static void test_set_edges_rejects_self_loop(void **state)
{
    (void)state;
    const int edges[][2] = { { 0, 1 }, { 2, 2 } };
    expect_edges_rejected(&edges[0][0], 2, 1, "self-loop");
}

static void test_set_edges_rejects_out_of_range(void **state)
{
    (void)state;
    const int high[][2] = { { 0, 1 }, { 1, 2 }, { 3, 4 } };
    expect_edges_rejected(&high[0][0], 3, 2, "out of range");
    const int negative[][2] = { { -1, 2 } };
    expect_edges_rejected(&negative[0][0], 1, 0, "out of range");
}

static void test_derive_against_ellipsoid_integrals(void **state)
{
    (void)state;
    op_graph graph;
    make_chain(&graph, 3);
    const double density = 1200.0;
    for (int i = 0; i < 3; ++i) {
        const double *r = &graph.radii[3 * i], *axes = &graph.rest_axes[9 * i], *moment = &graph.rest_moment[9 * i];
        double a = r[0], b = r[1], c = r[2];
        double volume = 4.0 / 3.0 * M_PI * a * b * c;
        assert_close(graph.volume[i], volume, 1e-14);
        assert_close(graph.mass[i], density * volume, 1e-14);
        /* ∫ (x·x) over the ellipsoid = v (a² + b² + c²)/5 is the trace of Ā */
        double scale = volume * a * a;
        assert_close(m3_trace(moment) / scale, volume * (a * a + b * b + c * c) / 5.0 / scale, 1e-13);
        /* each axis is an eigenvector: Ā e_k = (v r_k²/5) e_k */
        for (int k = 0; k < 3; ++k) {
            double e[3] = { axes[k], axes[3 + k], axes[6 + k] }, image[3];
            m3_mul_v(image, moment, e);
            for (int d = 0; d < 3; ++d)
                assert_close(image[d] / scale, volume * r[k] * r[k] / 5.0 * e[d] / scale, 1e-13);
        }
        for (int p = 0; p < 3; ++p)
            for (int q = 0; q < 3; ++q)
                assert_close(moment[3 * p + q] / scale, moment[3 * q + p] / scale, 1e-14);
    }
    /* a second density rescales mass only */
    op_graph_derive(&graph, 500.0);
    assert_close(graph.density, 500.0, 0.0);
    for (int i = 0; i < 3; ++i)
        assert_close(graph.mass[i], 500.0 * graph.volume[i], 1e-14);
    op_graph_free(&graph);
}

/* The sphere: Ā = v r²/5 I whatever the axes. */
static void test_derive_sphere(void **state)
{
    (void)state;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_graph graph;
    assert_int_equal(op_graph_alloc(&ctx, &graph, 1, 0), OP_OK);
    v3_set(graph.radii, 0.5, 0.5, 0.5);
    rotation_about(graph.rest_axes, (const double[3]){ 0.3, 1, -2 }, 2.1);
    op_graph_derive(&graph, 2.0);
    double volume = 4.0 / 3.0 * M_PI * 0.125;
    assert_close(graph.volume[0], 0.5235987755982988, 1e-15);
    assert_close(graph.mass[0], 2.0 * volume, 1e-15);
    for (int p = 0; p < 3; ++p)
        for (int q = 0; q < 3; ++q)
            assert_close(graph.rest_moment[3 * p + q], p == q ? volume * 0.25 / 5.0 : 0.0, 1e-15);
    assert_int_equal(op_graph_check(&ctx, &graph, "sphere"), OP_OK);
    op_graph_free(&graph);
}

/* Builds a valid 4-chain, applies `corrupt`, optionally re-derives (so that only the intended
 * property is wrong) and expects op_graph_check to fail with `reason` in the message. */
typedef void corruption(op_graph *graph);

static void expect_check_rejects(corruption *corrupt, int rederive, const char *reason)
{
    op_graph graph;
    make_chain(&graph, 4);
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_graph_check(&ctx, &graph, "chain"), OP_OK);
    corrupt(&graph);
    if (rederive)
        op_graph_derive(&graph, graph.density);
    int status = op_graph_check(&ctx, &graph, "chain");
    assert_int_equal(status, OP_ERR_INVALID);
    assert_int_equal(ctx.status, OP_ERR_INVALID);
    if (!strstr(ctx.message, "graph chain") || !strstr(ctx.message, reason))
        fail_msg("expected a message naming the graph and \"%s\", got \"%s\"", reason, ctx.message);
    op_graph_free(&graph);
}

static void nan_position(op_graph *g) { g->rest_position[3 * 2 + 1] = NAN; }
static void inf_radius(op_graph *g) { g->radii[3 * 1] = INFINITY; }
static void nan_axis(op_graph *g) { g->rest_axes[9 * 3 + 4] = NAN; }
static void stretched_axes(op_graph *g)
{
    for (int k = 0; k < 9; ++k)
        g->rest_axes[9 * 2 + k] *= 1.001;
}
static void sheared_axes(op_graph *g)
{
    /* second column tilted toward the first by 1e-6 rad: still unit length, not orthogonal */
    double *axes = &g->rest_axes[9 * 1];
    for (int r = 0; r < 3; ++r)
        axes[3 * r + 1] += 1e-6 * axes[3 * r];
}
static void left_handed_axes(op_graph *g)
{
    for (int r = 0; r < 3; ++r)
        g->rest_axes[9 * 3 + 3 * r + 2] = -g->rest_axes[9 * 3 + 3 * r + 2];
}
static void zero_radius(op_graph *g) { g->radii[3 * 1 + 2] = 0.0; }
static void negative_radius(op_graph *g)
{
    for (int d = 0; d < 3; ++d)
        g->radii[3 * 0 + d] = -g->radii[3 * 0 + d];
}
static void unsorted_radii(op_graph *g)
{
    double t = g->radii[3 * 2];
    g->radii[3 * 2] = g->radii[3 * 2 + 1];
    g->radii[3 * 2 + 1] = t;
}
static void unsorted_b_c(op_graph *g) { g->radii[3 * 0 + 2] = g->radii[3 * 0 + 1] * 1.01; }
static void volume_off(op_graph *g) { g->volume[2] *= 1.0 + 1e-9; }
static void mass_off(op_graph *g) { g->mass[1] *= 1.0 - 1e-9; }
static void moment_off(op_graph *g) { g->rest_moment[9 * 3 + 1] += 1e-9 * g->rest_moment[9 * 3]; }
static void bad_density(op_graph *g) { g->density = -1.0; }
/* The chain's CSR is rows 0:[1] 1:[0 2] 2:[1 3] 3:[2]; adjacency[0] is row 0's only entry. */
static void asymmetric(op_graph *g) { g->adjacency[0] = 2; }
static void self_loop(op_graph *g) { g->adjacency[0] = 0; }
static void neighbour_too_high(op_graph *g) { g->adjacency[0] = 4; }
static void neighbour_negative(op_graph *g) { g->adjacency[0] = -1; }
static void unsorted_row(op_graph *g)
{
    g->adjacency[1] = 2; /* row 1 becomes [2 0] */
    g->adjacency[2] = 0;
}
static void wrong_edge_count(op_graph *g) { g->edge_count = 4; }

static void test_check_rejects_non_finite(void **state)
{
    (void)state;
    expect_check_rejects(nan_position, 0, "non-finite");
    expect_check_rejects(inf_radius, 0, "non-finite");
    expect_check_rejects(nan_axis, 0, "non-finite");
}

static void test_check_rejects_non_orthonormal_axes(void **state)
{
    (void)state;
    expect_check_rejects(stretched_axes, 1, "orthonormal");
    expect_check_rejects(sheared_axes, 1, "orthonormal");
}

static void test_check_rejects_left_handed_axes(void **state)
{
    (void)state;
    op_graph graph;
    make_chain(&graph, 4);
    left_handed_axes(&graph);
    assert_close(m3_det(&graph.rest_axes[9 * 3]), -1.0, 1e-12);
    op_graph_free(&graph);
    expect_check_rejects(left_handed_axes, 1, "right-handed");
    expect_check_rejects(left_handed_axes, 0, "right-handed"); /* Ā is unchanged by the flip */
}

static void test_check_rejects_non_positive_radius(void **state)
{
    (void)state;
    expect_check_rejects(zero_radius, 1, "positive and descending");
    expect_check_rejects(negative_radius, 1, "positive and descending");
}

static void test_check_rejects_unsorted_radii(void **state)
{
    (void)state;
    expect_check_rejects(unsorted_radii, 1, "positive and descending");
    expect_check_rejects(unsorted_b_c, 1, "positive and descending");
}

static void test_check_rejects_inconsistent_derived(void **state)
{
    (void)state;
    expect_check_rejects(volume_off, 0, "volume, mass or moment");
    expect_check_rejects(mass_off, 0, "volume, mass or moment");
    expect_check_rejects(moment_off, 0, "volume, mass or moment");
    expect_check_rejects(bad_density, 0, "density");
}

static void test_check_rejects_asymmetric_adjacency(void **state)
{
    (void)state;
    expect_check_rejects(asymmetric, 0, "no reverse");
}

static void test_check_rejects_self_loop(void **state)
{
    (void)state;
    expect_check_rejects(self_loop, 0, "own neighbour");
}

static void test_check_rejects_out_of_range_neighbour(void **state)
{
    (void)state;
    expect_check_rejects(neighbour_too_high, 0, "out of range");
    expect_check_rejects(neighbour_negative, 0, "out of range");
}

static void test_check_rejects_bad_csr_layout(void **state)
{
    (void)state;
    expect_check_rejects(unsorted_row, 0, "ascending");
    expect_check_rejects(wrong_edge_count, 0, "entries for 4 edges");
}

static void test_check_accepts_valid_graph(void **state)
{
    (void)state;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_graph graph;
    make_chain(&graph, 6);
    assert_int_equal(op_graph_check(&ctx, &graph, "chain"), OP_OK);
    assert_int_equal(ctx.status, OP_OK);
    assert_string_equal(ctx.message, "");
    /* the tolerances: a rounding-level change of a derived value still passes */
    graph.volume[1] *= 1.0 + 1e-15;
    assert_int_equal(op_graph_check(&ctx, &graph, "chain"), OP_OK);
    op_graph_free(&graph);

    /* a single particle without edges is a valid graph; an empty one is not */
    assert_int_equal(op_graph_alloc(&ctx, &graph, 1, 0), OP_OK);
    v3_set(graph.radii, 0.3, 0.2, 0.1);
    m3_identity(graph.rest_axes);
    op_graph_derive(&graph, 1000.0);
    assert_int_equal(op_graph_check(&ctx, &graph, "one"), OP_OK);
    op_graph_free(&graph);
    assert_int_equal(op_graph_alloc(&ctx, &graph, 0, 0), OP_OK);
    graph.density = 1000.0;
    assert_int_equal(op_graph_check(&ctx, &graph, "empty"), OP_ERR_INVALID);
    assert_non_null(strstr(ctx.message, "no particles"));
    op_graph_free(&graph);
}

static void test_alloc_rejects_negative_sizes(void **state)
{
    (void)state;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_graph graph;
    assert_int_equal(op_graph_alloc(&ctx, &graph, -1, 0), OP_ERR_INVALID);
    assert_null(graph.rest_position);
    assert_null(graph.adjacency);
    assert_non_null(strstr(ctx.message, "negative"));
}

static void set_edges(op_graph *graph, int n, const int *edges, int edge_count)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_graph_alloc(&ctx, graph, n, 0), OP_OK);
    assert_int_equal(op_graph_set_edges(&ctx, graph, edges, edge_count), OP_OK);
}

static void test_component_count(void **state)
{
    (void)state;
    op_graph graph;
    const int chain[][2] = { { 0, 1 }, { 1, 2 }, { 2, 3 }, { 3, 4 } };
    set_edges(&graph, 5, &chain[0][0], 4);
    assert_int_equal(op_graph_component_count(&graph), 1);
    op_graph_free(&graph);

    /* two chains, interleaved indices: 0-2-4 and 1-3-5 */
    const int two[][2] = { { 0, 2 }, { 4, 2 }, { 1, 3 }, { 5, 3 } };
    set_edges(&graph, 6, &two[0][0], 4);
    assert_int_equal(op_graph_component_count(&graph), 2);
    op_graph_free(&graph);

    /* a chain 0-1 plus isolated 2, 3, 4, 5 */
    const int one[][2] = { { 1, 0 } };
    set_edges(&graph, 6, &one[0][0], 1);
    assert_int_equal(op_graph_component_count(&graph), 5);
    op_graph_free(&graph);

    set_edges(&graph, 7, NULL, 0);
    assert_int_equal(op_graph_component_count(&graph), 7);
    op_graph_free(&graph);

    /* a cycle closing through the last node, and a star */
    const int cycle[][2] = { { 0, 1 }, { 1, 2 }, { 2, 3 }, { 3, 0 }, { 4, 5 }, { 4, 6 }, { 4, 7 } };
    set_edges(&graph, 8, &cycle[0][0], 7);
    assert_int_equal(op_graph_component_count(&graph), 2);
    op_graph_free(&graph);
}

static void test_state_set_rest(void **state)
{
    (void)state;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_graph graph;
    make_chain(&graph, 5);
    op_state body;
    assert_int_equal(op_state_alloc(&ctx, &body, 5), OP_OK);
    assert_int_equal(body.particle_count, 5);
    /* scribble over everything first */
    for (int k = 0; k < 15; ++k)
        body.position[k] = body.velocity[k] = 7.0 + k;
    for (int k = 0; k < 45; ++k)
        body.rotation[k] = body.rotation_rate[k] = -3.0 - k;
    op_state_set_rest(&body, &graph);
    for (int i = 0; i < 5; ++i) {
        for (int d = 0; d < 3; ++d) {
            assert_true(body.position[3 * i + d] == graph.rest_position[3 * i + d]);
            assert_true(body.velocity[3 * i + d] == 0.0);
        }
        for (int k = 0; k < 9; ++k) {
            assert_true(body.rotation[9 * i + k] == (k % 4 == 0 ? 1.0 : 0.0));
            assert_true(body.rotation_rate[9 * i + k] == 0.0);
        }
    }
    assert_ptr_not_equal(body.position, graph.rest_position);
    op_state_free(&body);
    assert_null(body.position);
    assert_null(body.rotation);
    assert_null(body.velocity);
    assert_null(body.rotation_rate);
    assert_int_equal(body.particle_count, 0);
    op_graph_free(&graph);
}

static void test_print(void **state)
{
    (void)state;
    op_graph graph;
    make_chain(&graph, 4);
    char *text = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);
    assert_non_null(out);
    op_graph_print(out, &graph, "chain");
    fclose(out);
    double volume = 0;
    for (int i = 0; i < 4; ++i)
        volume += graph.volume[i];
    char expected[256];
    snprintf(expected, sizeof expected, "graph chain: 4 particles, 3 edges, degree 1..2, volume %.6g m^3", volume);
    if (strncmp(text, expected, strlen(expected)) != 0)
        fail_msg("expected \"%s...\", got \"%s\"", expected, text);
    free(text);
    op_graph_free(&graph);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_edges_merges_and_sorts),
        cmocka_unit_test(test_set_edges_random_multigraph),
        cmocka_unit_test(test_set_edges_rejects_self_loop),
        cmocka_unit_test(test_set_edges_rejects_out_of_range),
        cmocka_unit_test(test_derive_against_ellipsoid_integrals),
        cmocka_unit_test(test_derive_sphere),
        cmocka_unit_test(test_check_rejects_non_finite),
        cmocka_unit_test(test_check_rejects_non_orthonormal_axes),
        cmocka_unit_test(test_check_rejects_left_handed_axes),
        cmocka_unit_test(test_check_rejects_non_positive_radius),
        cmocka_unit_test(test_check_rejects_unsorted_radii),
        cmocka_unit_test(test_check_rejects_inconsistent_derived),
        cmocka_unit_test(test_check_rejects_asymmetric_adjacency),
        cmocka_unit_test(test_check_rejects_self_loop),
        cmocka_unit_test(test_check_rejects_out_of_range_neighbour),
        cmocka_unit_test(test_check_rejects_bad_csr_layout),
        cmocka_unit_test(test_check_accepts_valid_graph),
        cmocka_unit_test(test_alloc_rejects_negative_sizes),
        cmocka_unit_test(test_component_count),
        cmocka_unit_test(test_state_set_rest),
        cmocka_unit_test(test_print),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
