/* Tests of core/sim/body.c: placement at rest, pins, constraints through the skinning (influences,
 * anchors, skinned points and directions), the nearest vertex, the body check, and the inputs
 * each call must refuse. */
#include <stdlib.h>

#include "opsim/body.h"
#include "geometry/build.h"
#include "base/math3.h"
#include "base/rng.h"
#include "sim/script.h"
#include "geometry/shapes.h"
#include "test_models.h"
#include "test_util.h"

static const double IDENTITY[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };


/* A placement: rotation about a tilted axis, translation off the origin. */
static void placement(double p[9], double t[3])
{
    double axis[3] = { 1.0, -2.0, 0.5 };
    v3_scale(axis, axis, 1.0 / v3_norm(axis));
    op_axis_angle_matrix(axis, 2.3, p);
    v3_set(t, 0.4, 1.5, -3.0);
}

static void test_init_places_at_rest(void **state)
{
    test_models *m = *state;
    const op_model *model = &m->torus;
    op_ctx ctx;
    op_ctx_init(&ctx);
    double p[9], t[3];
    placement(p, t);
    op_body body;
    assert_int_equal(op_body_init(&ctx, &body, "torus-1", model, 2.5e4, p, t), OP_OK);
    assert_string_equal(body.name, "torus-1");
    assert_ptr_equal(body.model, model);
    assert_ptr_equal(body.graph, &model->graph);
    assert_true(body.stiffness == 2.5e4);
    assert_memory_equal(body.placement_rotation, p, sizeof p);
    assert_memory_equal(body.placement_translation, t, sizeof t);
    int n = model->graph.particle_count;
    assert_int_equal(body.state.particle_count, n);
    double worst = 0.0;
    for (int i = 0; i < n; ++i) {
        double expected[3];
        m3_mul_v(expected, p, &model->graph.rest_position[3 * i]);
        v3_add(expected, expected, t);
        worst = fmax(worst, sqrt(v3_dist2(expected, &body.state.position[3 * i])));
        assert_memory_equal(&body.state.rotation[9 * i], p, sizeof p);
        for (int d = 0; d < 3; ++d)
            assert_true(body.state.velocity[3 * i + d] == 0.0);
        for (int d = 0; d < 9; ++d)
            assert_true(body.state.rotation_rate[9 * i + d] == 0.0);
        assert_int_equal(body.position_pinned[i], 0);
        assert_int_equal(body.rotation_pinned[i], 0);
    }
    assert_le(worst, 1e-15);
    assert_memory_equal(body.start_position, body.state.position, 3 * (size_t)n * sizeof(double));
    assert_memory_equal(body.inertial_position, body.state.position, 3 * (size_t)n * sizeof(double));
    assert_memory_equal(body.start_rotation, body.state.rotation, 9 * (size_t)n * sizeof(double));
    assert_memory_equal(body.inertial_rotation, body.state.rotation, 9 * (size_t)n * sizeof(double));
    assert_int_equal(body.pin_count, 0);
    assert_int_equal(body.constraint_count, 0);
    assert_int_equal(op_body_check(&ctx, &body), OP_OK);
    op_body_free(&body);
    op_body_free(&body); /* freeing twice is harmless */

    /* a 63-character name is the longest */
    char name[64];
    memset(name, 'a', 63);
    name[63] = '\0';
    assert_int_equal(op_body_init(&ctx, &body, name, model, 1.0, IDENTITY, t), OP_OK);
    assert_string_equal(body.name, name);
    op_body_free(&body);
}

static void test_pins(void **state)
{
    test_models *m = *state;
    op_ctx ctx;
    op_ctx_init(&ctx);
    double p[9], t[3];
    placement(p, t);
    op_body body;
    assert_int_equal(op_body_init(&ctx, &body, "bar", &m->bar, 1e4, p, t), OP_OK);
    int n = body.state.particle_count;
    assert_int_equal(op_body_add_pin(&ctx, &body, 0, 1, 0), OP_OK);
    assert_int_equal(op_body_add_pin(&ctx, &body, 3, 0, 1), OP_OK);
    /* pins hold the values at the time they are added */
    body.state.position[3 * 7 + 1] += 0.25;
    double turn[9];
    op_axis_angle_matrix((const double[3]){ 0, 1, 0 }, 0.5, turn);
    m3_mul(&body.state.rotation[9 * 7], turn, &body.state.rotation[9 * 7]);
    assert_int_equal(op_body_add_pin(&ctx, &body, 7, 2, 5), OP_OK);
    assert_int_equal(body.pin_count, 3);
    const int particle[3] = { 0, 3, 7 }, hold_x[3] = { 1, 0, 1 }, hold_r[3] = { 0, 1, 1 };
    for (int k = 0; k < 3; ++k) {
        const op_pin *pin = &body.pins[k];
        int i = particle[k];
        assert_int_equal(pin->particle, i);
        assert_int_equal(pin->hold_position, hold_x[k]);
        assert_int_equal(pin->hold_rotation, hold_r[k]);
        assert_memory_equal(pin->position, &body.state.position[3 * i], sizeof pin->position);
        assert_memory_equal(pin->rotation, &body.state.rotation[9 * i], sizeof pin->rotation);
    }
    for (int i = 0; i < n; ++i) {
        assert_int_equal(body.position_pinned[i], i == 0 || i == 7);
        assert_int_equal(body.rotation_pinned[i], i == 3 || i == 7);
    }
    assert_int_equal(op_body_check(&ctx, &body), OP_OK);

    const int bad[3] = { -1, n, 1 << 30 };
    for (int k = 0; k < 3; ++k) {
        op_ctx_init(&ctx);
        assert_int_equal(op_body_add_pin(&ctx, &body, bad[k], 1, 1), OP_ERR_INVALID);
    }
    print_message("  %s\n", ctx.message);
    op_ctx_init(&ctx);
    assert_int_equal(op_body_add_pin(&ctx, &body, 2, 0, 0), OP_ERR_INVALID);
    assert_int_equal(body.pin_count, 3);
    op_body_free(&body);
}

static void test_constraints_copy_skinning(void **state)
{
    test_models *m = *state;
    const op_model *model = &m->torus;
    op_ctx ctx;
    op_ctx_init(&ctx);
    double p[9], t[3];
    placement(p, t);
    op_body body;
    assert_int_equal(op_body_init(&ctx, &body, "torus", model, 1e4, p, t), OP_OK);
    const op_skin *skin = &model->skin;
    int zero_weights = 0;
    for (int v = 0; v < model->mesh.vertex_count; v += 7) {
        assert_int_equal(op_body_add_constraint(&ctx, &body, OP_CONSTRAINT_POSITION, v, NULL, 50.0, 3), OP_OK);
        const op_constraint *c = &body.constraints[body.constraint_count - 1];
        assert_int_equal(c->kind, OP_CONSTRAINT_POSITION);
        assert_int_equal(c->vertex, v);
        assert_int_equal(c->script, 3);
        assert_true(c->weight == 50.0);
        int q = 0;
        double sum = 0.0;
        for (int s = 0; s < skin->k; ++s) {
            double w = skin->weight[v * skin->k + s];
            if (w == 0.0) {
                ++zero_weights;
                continue;
            }
            assert_int_equal(c->particle[q], skin->index[v * skin->k + s]);
            assert_true(c->influence[q] == w);
            ++q;
        }
        assert_int_equal(c->influence_count, q);
        for (int s = 0; s < c->influence_count; ++s) {
            assert_true(c->influence[s] > 0.0);
            sum += c->influence[s];
        }
        assert_close(sum, 1.0, 1e-12);
        assert_memory_equal(c->rest_point, &model->mesh.vertices[3 * v], sizeof c->rest_point);
        double anchor[3];
        m3_mul_v(anchor, p, c->rest_point);
        v3_add(anchor, anchor, t);
        assert_le(sqrt(v3_dist2(anchor, c->anchor)), 1e-15);
        assert_memory_equal(c->target, c->anchor, sizeof c->target);
    }
    print_message("  %d constraints, %d zero-weight skin slots skipped\n", body.constraint_count, zero_weights);

    /* a zero-weight slot between two others is skipped and the order kept (the model's skin
     * is changed for this one call and restored) */
    op_skin *shared = &m->torus.skin;
    int v = 11, k = shared->k;
    double saved[OP_SKIN_MAX_K];
    memcpy(saved, &shared->weight[v * k], (size_t)k * sizeof(double));
    shared->weight[v * k] += shared->weight[v * k + 1];
    shared->weight[v * k + 1] = 0.0;
    int status = op_body_add_constraint(&ctx, &body, OP_CONSTRAINT_POSITION, v, NULL, 1.0, -1);
    memcpy(&shared->weight[v * k], saved, (size_t)k * sizeof(double));
    assert_int_equal(status, OP_OK);
    const op_constraint *skipped = &body.constraints[body.constraint_count - 1];
    assert_int_equal(skipped->influence_count, k - 1);
    assert_int_equal(skipped->particle[0], shared->index[v * k]);
    assert_true(skipped->influence[0] == saved[0] + saved[1]);
    for (int s = 2; s < k; ++s) {
        assert_int_equal(skipped->particle[s - 1], shared->index[v * k + s]);
        assert_true(skipped->influence[s - 1] == saved[s]);
    }

    const double direction[3] = { 0.0, 3.0, 4.0 };
    assert_int_equal(op_body_add_constraint(&ctx, &body, OP_CONSTRAINT_DIRECTION, 5, direction, 2.0, -1), OP_OK);
    const op_constraint *c = &body.constraints[body.constraint_count - 1];
    assert_int_equal(c->kind, OP_CONSTRAINT_DIRECTION);
    assert_int_equal(c->script, -1);
    assert_close(c->rest_direction[0], 0.0, 1e-15);
    assert_close(c->rest_direction[1], 0.6, 1e-15);
    assert_close(c->rest_direction[2], 0.8, 1e-15);
    double anchor[3];
    m3_mul_v(anchor, p, c->rest_direction);
    assert_le(sqrt(v3_dist2(anchor, c->anchor)), 1e-15);
    assert_memory_equal(c->target, c->anchor, sizeof c->target);
    assert_int_equal(op_body_check(&ctx, &body), OP_OK);
    op_body_free(&body);
}

/* At rest every skinned point is the placed vertex and every skinned direction the placed
 * direction; in any state the skinned point is what op_skin_apply gives. */
static void check_skinned(const op_model *model, uint64_t seed, double *worst_rest, double *worst_apply)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    double p[9], t[3];
    placement(p, t);
    op_body body;
    assert_int_equal(op_body_init(&ctx, &body, "skinned", model, 1e4, p, t), OP_OK);
    int vertices = model->mesh.vertex_count;
    const double direction[3] = { 0.3, -0.2, 0.9 };
    for (int v = 0; v < vertices; ++v) {
        assert_int_equal(op_body_add_constraint(&ctx, &body, OP_CONSTRAINT_POSITION, v, NULL, 1.0, -1), OP_OK);
        assert_int_equal(op_body_add_constraint(&ctx, &body, OP_CONSTRAINT_DIRECTION, v, direction, 1.0, -1), OP_OK);
    }
    for (int v = 0; v < vertices; ++v) {
        const op_constraint *cp = &body.constraints[2 * v], *cd = &body.constraints[2 * v + 1];
        double point[3], n[3];
        op_constraint_skinned_point(&body, cp, point);
        *worst_rest = fmax(*worst_rest, sqrt(v3_dist2(point, cp->anchor)));
        op_constraint_skinned_direction(&body, cd, n);
        *worst_rest = fmax(*worst_rest, sqrt(v3_dist2(n, cd->anchor)));
    }
    op_rng rng = op_rng_seeded(seed);
    for (int i = 0; i < body.state.particle_count; ++i) {
        double axis[3] = { op_rng_uniform(&rng) - 0.5, op_rng_uniform(&rng) - 0.5, op_rng_uniform(&rng) - 0.5 };
        v3_scale(axis, axis, 1.0 / v3_norm(axis));
        op_axis_angle_matrix(axis, 3.0 * op_rng_uniform(&rng), &body.state.rotation[9 * i]);
        for (int d = 0; d < 3; ++d)
            body.state.position[3 * i + d] += op_rng_uniform(&rng) - 0.5;
    }
    double *skinned = calloc(3 * (size_t)vertices, sizeof(double));
    assert_non_null(skinned);
    op_skin_apply(&model->skin, &model->graph, &body.state, model->mesh.vertices, skinned);
    for (int v = 0; v < vertices; ++v) {
        double point[3];
        op_constraint_skinned_point(&body, &body.constraints[2 * v], point);
        *worst_apply = fmax(*worst_apply, sqrt(v3_dist2(point, &skinned[3 * v])));
    }
    free(skinned);
    op_body_free(&body);
}

static void test_skinned_point_at_rest(void **state)
{
    test_models *m = *state;
    double worst_rest = 0.0, worst_apply = 0.0;
    check_skinned(&m->torus, 1, &worst_rest, &worst_apply);
    check_skinned(&m->bar, 2, &worst_rest, &worst_apply);
    print_message("  every vertex: |skinned − placed| at rest %.2e, |skinned − op_skin_apply| %.2e\n", worst_rest,
                  worst_apply);
    assert_le(worst_rest, 1e-12);
    assert_le(worst_apply, 1e-14);
}

static void test_nearest_vertex(void **state)
{
    test_models *m = *state;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_body body;
    assert_int_equal(op_body_init(&ctx, &body, "near", &m->torus, 1e4, IDENTITY, (const double[3]){ 5, 5, 5 }), OP_OK);
    const op_mesh *mesh = &m->torus.mesh;
    op_rng rng = op_rng_seeded(3);
    for (int trial = 0; trial < 200; ++trial) {
        double q[3];
        for (int d = 0; d < 3; ++d)
            q[d] = 0.8 * (op_rng_uniform(&rng) - 0.5);
        int best = 0;
        for (int v = 1; v < mesh->vertex_count; ++v)
            if (v3_dist2(&mesh->vertices[3 * v], q) < v3_dist2(&mesh->vertices[3 * best], q))
                best = v;
        assert_int_equal(op_body_nearest_vertex(&body, q), best);
    }
    assert_int_equal(op_body_nearest_vertex(&body, &mesh->vertices[3 * 100]), 100);
    op_body_free(&body);

    /* ties go to the lower index */
    op_model tiny;
    memset(&tiny, 0, sizeof tiny);
    assert_int_equal(op_mesh_alloc(&ctx, &tiny.mesh, 3, 0), OP_OK);
    const double vertices[9] = { 2, 0, 0, 0, 0, 0, 1, 5, 0 };
    memcpy(tiny.mesh.vertices, vertices, sizeof vertices);
    op_body shell;
    memset(&shell, 0, sizeof shell);
    shell.model = &tiny;
    assert_int_equal(op_body_nearest_vertex(&shell, (const double[3]){ 1, 0, 0 }), 0);
    assert_int_equal(op_body_nearest_vertex(&shell, (const double[3]){ 1, 0, 7 }), 0);
    assert_int_equal(op_body_nearest_vertex(&shell, (const double[3]){ 1, 4, 0 }), 2);
    op_mesh_free(&tiny.mesh);
}

static void test_check_rejects_corruption(void **state)
{
    test_models *m = *state;
    op_ctx ctx;
    op_ctx_init(&ctx);
    double p[9], t[3];
    placement(p, t);
    op_body body;
    assert_int_equal(op_body_init(&ctx, &body, "checked", &m->bar, 1e4, p, t), OP_OK);
    assert_int_equal(op_body_add_pin(&ctx, &body, 2, 1, 1), OP_OK);
    assert_int_equal(op_body_add_constraint(&ctx, &body, OP_CONSTRAINT_POSITION, 10, NULL, 1.0, -1), OP_OK);
    assert_int_equal(op_body_check(&ctx, &body), OP_OK);
    int n = body.state.particle_count;

    /* each corruption, applied to a copy of the state and undone after */
    enum { SCALED, REFLECTED, SHEARED, NAN_POSITION, INF_VELOCITY, NAN_RATE, PIN_RANGE, INFLUENCE_RANGE,
           CORRUPTIONS };
    const char *names[CORRUPTIONS] = { "rotation scaled by 1 + 1e-8", "reflected rotation", "sheared rotation",
                                       "NaN position", "infinite velocity", "NaN rotation rate",
                                       "pin out of range", "influence out of range" };
    for (int k = 0; k < CORRUPTIONS; ++k) {
        double saved_rotation[9], saved_position[3], saved_velocity[3], saved_rate[9];
        int i = 5;
        m3_copy(saved_rotation, &body.state.rotation[9 * i]);
        v3_copy(saved_position, &body.state.position[3 * i]);
        v3_copy(saved_velocity, &body.state.velocity[3 * i]);
        m3_copy(saved_rate, &body.state.rotation_rate[9 * i]);
        int saved_pin = body.pins[0].particle, saved_influence = body.constraints[0].particle[0];
        double *r = &body.state.rotation[9 * i];
        switch (k) {
        case SCALED: m3_scale(r, r, 1.0 + 1e-8); break;
        case REFLECTED: for (int c = 0; c < 3; ++c) r[3 * c] = -r[3 * c]; break;
        case SHEARED: r[1] += 1e-6; break;
        case NAN_POSITION: body.state.position[3 * i + 2] = NAN; break;
        case INF_VELOCITY: body.state.velocity[3 * i] = INFINITY; break;
        case NAN_RATE: body.state.rotation_rate[9 * i + 4] = NAN; break;
        case PIN_RANGE: body.pins[0].particle = n; break;
        case INFLUENCE_RANGE: body.constraints[0].particle[0] = -1; break;
        }
        op_ctx_init(&ctx);
        if (op_body_check(&ctx, &body) != OP_ERR_INVALID)
            fail_msg("op_body_check accepted a %s", names[k]);
        assert_non_null(strstr(ctx.message, "checked"));
        print_message("  %-30s %s\n", names[k], ctx.message);
        m3_copy(r, saved_rotation);
        v3_copy(&body.state.position[3 * i], saved_position);
        v3_copy(&body.state.velocity[3 * i], saved_velocity);
        m3_copy(&body.state.rotation_rate[9 * i], saved_rate);
        body.pins[0].particle = saved_pin;
        body.constraints[0].particle[0] = saved_influence;
        op_ctx_init(&ctx);
        assert_int_equal(op_body_check(&ctx, &body), OP_OK);
    }
    /* rounding-level drift is accepted */
    m3_scale(&body.state.rotation[9 * 4], &body.state.rotation[9 * 4], 1.0 + 1e-13);
    assert_int_equal(op_body_check(&ctx, &body), OP_OK);
    op_body_free(&body);
}

static void test_bad_inputs(void **state)
{
    test_models *m = *state;
    const op_model *model = &m->bar;
    op_ctx ctx;
    double p[9], t[3];
    placement(p, t);
    op_body body;

    double scaled[9], reflected[9], nan_rotation[9];
    m3_scale(scaled, p, 1.001);
    m3_scale(reflected, p, -1.0);
    m3_copy(nan_rotation, p);
    nan_rotation[4] = NAN;
    const double *bad_rotation[3] = { scaled, reflected, nan_rotation };
    for (int k = 0; k < 3; ++k) {
        op_ctx_init(&ctx);
        assert_int_equal(op_body_init(&ctx, &body, "bad", model, 1e4, bad_rotation[k], t), OP_ERR_INVALID);
        assert_null(body.state.position);
        op_body_free(&body);
    }
    print_message("  %s\n", ctx.message);
    const double bad_stiffness[3] = { NAN, -1.0, INFINITY };
    for (int k = 0; k < 3; ++k) {
        op_ctx_init(&ctx);
        assert_int_equal(op_body_init(&ctx, &body, "bad", model, bad_stiffness[k], p, t), OP_ERR_INVALID);
    }
    print_message("  %s\n", ctx.message);
    op_ctx_init(&ctx);
    assert_int_equal(op_body_init(&ctx, &body, "bad", model, 1e4, p, (const double[3]){ 0, NAN, 0 }),
                     OP_ERR_INVALID);
    char long_name[65];
    memset(long_name, 'b', 64);
    long_name[64] = '\0';
    op_ctx_init(&ctx);
    assert_int_equal(op_body_init(&ctx, &body, long_name, model, 1e4, p, t), OP_ERR_INVALID);
    print_message("  %s\n", ctx.message);
    op_ctx_init(&ctx);
    assert_int_equal(op_body_init(&ctx, &body, NULL, model, 1e4, p, t), OP_ERR_INVALID);
    op_ctx_init(&ctx);
    assert_int_equal(op_body_init(&ctx, &body, "zero-stiffness", model, 0.0, p, t), OP_OK);

    const double up[3] = { 0, 1, 0 }, zero[3] = { 0, 0, 0 }, nan_direction[3] = { NAN, 1, 0 };
    const int bad_vertex[2] = { -1, model->mesh.vertex_count };
    for (int k = 0; k < 2; ++k) {
        op_ctx_init(&ctx);
        assert_int_equal(op_body_add_constraint(&ctx, &body, OP_CONSTRAINT_POSITION, bad_vertex[k], NULL, 1.0, -1),
                         OP_ERR_INVALID);
        op_ctx_init(&ctx);
        assert_int_equal(op_body_add_constraint(&ctx, &body, OP_CONSTRAINT_DIRECTION, bad_vertex[k], up, 1.0, -1),
                         OP_ERR_INVALID);
    }
    print_message("  %s\n", ctx.message);
    const double *bad_direction[3] = { zero, nan_direction, NULL };
    for (int k = 0; k < 3; ++k) {
        op_ctx_init(&ctx);
        assert_int_equal(op_body_add_constraint(&ctx, &body, OP_CONSTRAINT_DIRECTION, 3, bad_direction[k], 1.0, -1),
                         OP_ERR_INVALID);
    }
    print_message("  %s\n", ctx.message);
    const double bad_weight[4] = { 0.0, -1.0, NAN, INFINITY };
    for (int k = 0; k < 4; ++k) {
        op_ctx_init(&ctx);
        assert_int_equal(op_body_add_constraint(&ctx, &body, OP_CONSTRAINT_POSITION, 3, NULL, bad_weight[k], -1),
                         OP_ERR_INVALID);
    }
    op_ctx_init(&ctx);
    assert_int_equal(op_body_add_constraint(&ctx, &body, OP_CONSTRAINT_POSITION, 3, NULL, 1.0, -2), OP_ERR_INVALID);
    op_ctx_init(&ctx);
    assert_int_equal(op_body_add_constraint(&ctx, &body, (op_constraint_kind)7, 3, up, 1.0, -1), OP_ERR_INVALID);
    assert_int_equal(body.constraint_count, 0);
    op_body_free(&body);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_init_places_at_rest),
        cmocka_unit_test(test_pins),
        cmocka_unit_test(test_constraints_copy_skinning),
        cmocka_unit_test(test_skinned_point_at_rest),
        cmocka_unit_test(test_nearest_vertex),
        cmocka_unit_test(test_check_rejects_corruption),
        cmocka_unit_test(test_bad_inputs),
    };
    return cmocka_run_group_tests(tests, test_models_setup, test_models_teardown);
}
