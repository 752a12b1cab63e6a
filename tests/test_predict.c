/* Tests of the per-particle loops outside the solver run four particles at a time in AVX lanes
 * (core/sim/predict.c: the prediction, its rigid fit's sums, the turn, the velocities' update; and
 * arap's begin_substep, solvers/arap.c): they give the one-at-a-time code's bits, on bodies whose
 * particle counts are not multiples of four (the last one to three particles go alone) and with
 * pinned particles inside a quad (which then goes one at a time, in its place in the sums). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/math3.h"
#include "kernels/polar.h"
#include "sim/predict.h"
#include "kernels/simd.h"
#include "test_scene_load.h"
#include "sim/schedule.h"

enum { MAX_OVERRIDES = 16 };

/* Bodies of `particles` particles (experiments/freeflight.ini's spinning dinosaur, rebuilt),
 * `copies` of them in a row, under a gravity with every component nonzero; with pins, particle 5
 * holds its position and the last particle its orientation, in every copy. */
static void load_bodies(op_scene *scene, int particles, int copies, int pins)
{
    char model[64], copies_set[64], last[64];
    snprintf(model, sizeof model, "model dino100.particles=%d", particles);
    snprintf(copies_set, sizeof copies_set, "body dino.copies=%d", copies);
    snprintf(last, sizeof last, "pin b.particle=%d", particles - 1);
    const char *overrides[MAX_OVERRIDES] = { model, "world.gravity=0.3 -9.81 0.2" };
    int count = 2;
    if (copies > 1) {
        overrides[count++] = copies_set;
        overrides[count++] = "body dino.spacing=1 0 0";
        overrides[count++] = "observable shape_error.body=dino-0";
    }
    if (pins) {
        const char *pin_sets[] = { "pin a.body=dino", "pin a.particle=5", "pin a.hold=position",
                                   "pin b.body=dino", last,                "pin b.hold=orientation" };
        for (int k = 0; k < 6; ++k)
            overrides[count++] = pin_sets[k];
    }
    overrides[count] = NULL;
    test_load_scene(scene, "experiments/freeflight.ini", overrides);
    scene->world.def.log_energy = 0;
}

static void step(op_scene *scene, int frames)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    for (int f = 0; f < frames; ++f) {
        op_frame_stats stats = { 0 };
        if (op_world_step(&ctx, &scene->world, &stats) != OP_OK)
            fail_msg("%s", ctx.message);
    }
}

/* a and b bitwise the same in every array the prediction writes */
static void assert_predictions_equal(const op_body *a, const op_body *b, const char *what)
{
    size_t n = (size_t)a->graph->particle_count;
    if (memcmp(a->state.position, b->state.position, 3 * n * sizeof(double)) ||
        memcmp(a->inertial_position, b->inertial_position, 3 * n * sizeof(double)) ||
        memcmp(a->inertial_rotation, b->inertial_rotation, 9 * n * sizeof(double)) ||
        memcmp(a->state.rotation, b->state.rotation, 9 * n * sizeof(double)) ||
        memcmp(a->state.velocity, b->state.velocity, 3 * n * sizeof(double)) ||
        memcmp(a->state.rotation_rate, b->state.rotation_rate, 9 * n * sizeof(double)))
        fail_msg("%d particles: %s differ", (int)n, what);
}

/* The three loops of core/sim/predict.c called directly, on twin bodies one stepped before with the
 * AVX paths on: one at a time (op_simd_avx(0)) and four at a time give the same bits, the sums
 * included, with particles pinned inside a quad and in the tail. */
static void test_predict_lanes_give_one_at_a_time_bits(void **state)
{
    (void)state;
    if (!op_simd_avx(1)) {
        print_message("no AVX paths here: nothing to compare\n");
        skip();
    }
    static const int counts[] = { 13, 37, 62, 63, 64 };
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
        op_scene scene[2];
        for (int s = 0; s < 2; ++s) {
            load_bodies(&scene[s], counts[c], 1, 0);
            step(&scene[s], 3);
            op_body *body = &scene[s].world.bodies[0];
            body->position_pinned[5] = body->rotation_pinned[6] = 1;
            body->position_pinned[counts[c] - 1] = body->rotation_pinned[counts[c] - 2] = 1;
        }
        double h = scene[0].world.def.frame_time / scene[0].world.def.substeps;
        const double *gravity = scene[0].world.def.gravity;
        op_rigid_fit_sums sums[2];
        memset(sums, 0, sizeof sums);
        int turning[2];
        double Q[9];
        op_polar_rotation((const double[9]){ 0.9, -0.3, 0.1, 0.35, 0.95, -0.2, -0.05, 0.25, 1.0 }, Q);
        for (int s = 0; s < 2; ++s) {
            op_simd_avx(s);
            op_body *body = &scene[s].world.bodies[0];
            turning[s] = op_predict_particles(body, h, gravity, body->start_position, &sums[s]);
            op_predict_turn(body, Q);
            op_predict_update_velocity(body, h);
        }
        op_simd_avx(1);
        assert_int_equal(turning[0], 1);
        assert_int_equal(turning[1], 1);
        assert_memory_equal(&sums[0], &sums[1], sizeof sums[0]);
        assert_true(sums[0].mass > 0.0 && sums[0].spin[0] != 0.0 && sums[0].spread[8] != 0.0);
        assert_predictions_equal(&scene[0].world.bodies[0], &scene[1].world.bodies[0], "predicted states");
        /* and without the fit */
        for (int s = 0; s < 2; ++s) {
            op_simd_avx(s);
            op_body *body = &scene[s].world.bodies[0];
            turning[s] = op_predict_particles(body, h, gravity, body->start_position, NULL);
        }
        op_simd_avx(1);
        assert_int_equal(turning[0], turning[1]);
        assert_predictions_equal(&scene[0].world.bodies[0], &scene[1].world.bodies[0], "unfitted predictions");
        for (int s = 0; s < 2; ++s)
            op_scene_free(&scene[s]);
    }
}

/* Whether anything turns, when one particle's velocity or one entry of its Ṙ differs from a
 * rigid translation, in each lane of each quad and in the tail: both paths see it. */
static void test_predict_sees_any_particle_turn(void **state)
{
    (void)state;
    int avx = op_simd_avx(1);
    op_scene scene;
    load_bodies(&scene, 23, 1, 0);
    op_body *body = &scene.world.bodies[0];
    int n = body->graph->particle_count;
    double h = scene.world.def.frame_time, anchor[3] = { 0, 0, 0 };
    for (int width = 0; width <= avx; ++width) {
        op_simd_avx(width);
        for (int p = -1; p < n; ++p)
            for (int entry = 0; entry < 2; ++entry) {
                for (int i = 0; i < n; ++i) {
                    v3_set(&body->state.velocity[3 * i], 0.5, -1.0, 0.25);
                    m3_zero(&body->state.rotation_rate[9 * i]);
                }
                if (p >= 0 && entry == 0)
                    body->state.velocity[3 * p + 2] = 0.5;
                else if (p >= 0)
                    body->state.rotation_rate[9 * p + 7] = -1e-300;
                int turning = op_predict_particles(body, h, scene.world.def.gravity, anchor, NULL);
                if (turning != (p >= 0))
                    fail_msg("%s path, particle %d of %d, %s: turning %d", width ? "AVX" : "plain", p, n,
                             entry ? "rotation rate" : "velocity", turning);
            }
    }
    op_simd_avx(1);
    op_scene_free(&scene);
}

/* Four twin bodies side by side, one a lane (op_predict_particles4, op_predict_turn4, where a
 * group's bodies have no pins), against each body's own calls: the same sums, the same turning
 * flags (body 2 moves as a rigid translation and does not turn), the same states; a body given no
 * turn keeps its rotations' bits, a −0 entry included. */
static void test_four_bodies_side_by_side_give_each_ones_bits(void **state)
{
    (void)state;
    op_simd_avx(1); /* without AVX, the four bodies' calls are each one's: the test still runs */
    op_scene scene[2];
    for (int s = 0; s < 2; ++s) {
        load_bodies(&scene[s], 38, 4, 0);
        step(&scene[s], 3);
        op_body *still = &scene[s].world.bodies[2];
        for (int i = 0; i < still->graph->particle_count; ++i) {
            v3_set(&still->state.velocity[3 * i], 0.5, -1.0, 0.25);
            m3_zero(&still->state.rotation_rate[9 * i]);
        }
        scene[s].world.bodies[3].state.rotation[9 * 7 + 5] = -0.0;
    }
    double h = scene[0].world.def.frame_time / scene[0].world.def.substeps, Q[9];
    const double *gravity = scene[0].world.def.gravity;
    op_polar_rotation((const double[9]){ 0.9, -0.3, 0.1, 0.35, 0.95, -0.2, -0.05, 0.25, 1.0 }, Q);
    const double *turn[4] = { Q, Q, NULL, NULL };
    op_rigid_fit_sums sums[2][4];
    memset(sums, 0, sizeof sums);
    int turning[2][4];
    for (int s = 0; s < 2; ++s) {
        op_body *bodies[4];
        const double *anchor[4];
        op_rigid_fit_sums *fits[4];
        for (int b = 0; b < 4; ++b) {
            bodies[b] = &scene[s].world.bodies[b];
            anchor[b] = bodies[b]->start_position;
            fits[b] = &sums[s][b];
        }
        assert_true(op_predict_bodies_unpinned(bodies));
        if (s == 0) {
            for (int b = 0; b < 4; ++b) {
                turning[s][b] = op_predict_particles(bodies[b], h, gravity, anchor[b], fits[b]);
                if (turn[b])
                    op_predict_turn(bodies[b], turn[b]);
            }
        } else {
            op_predict_particles4(bodies, h, gravity, anchor, fits, turning[s]);
            op_predict_turn4(bodies, turn);
        }
    }
    for (int b = 0; b < 4; ++b) {
        assert_int_equal(turning[0][b], b != 2);
        assert_int_equal(turning[1][b], b != 2);
        assert_memory_equal(&sums[0][b], &sums[1][b], sizeof sums[0][b]);
        assert_true(sums[0][b].mass > 0.0 && sums[0][b].spin[0] != 0.0 && sums[0][b].spread[8] != 0.0);
        assert_predictions_equal(&scene[0].world.bodies[b], &scene[1].world.bodies[b], "four bodies' predictions");
    }
    assert_true(signbit(scene[1].world.bodies[3].state.rotation[9 * 7 + 5]));
    /* a pin anywhere, or another graph, and the four are not taken */
    op_body *bodies[4] = { &scene[1].world.bodies[0], &scene[1].world.bodies[1], &scene[1].world.bodies[2],
                           &scene[1].world.bodies[3] };
    bodies[3]->pin_count = 1;
    assert_false(op_predict_bodies_unpinned(bodies));
    bodies[3]->pin_count = 0;
    bodies[3] = &scene[0].world.bodies[3];
    assert_false(op_predict_bodies_unpinned(bodies));
    for (int s = 0; s < 2; ++s)
        op_scene_free(&scene[s]);
}

/* Whole frames, where arap's begin_substep also runs in lanes: one world stepped one particle at
 * a time and its twin four at a time move bit for bit alike, for a lone body and for four copies
 * (iterated as one group, their sweep data interleaved: solvers/arap.c) of 37 particles with
 * pins. */
static void test_frames_in_lanes_give_one_at_a_time_bits(void **state)
{
    (void)state;
    if (!op_simd_avx(1)) {
        print_message("no AVX paths here: nothing to compare\n");
        skip();
    }
    static const struct {
        int particles, copies, pins;
    } cases[] = { { 37, 1, 0 }, { 37, 1, 1 }, { 37, 4, 1 }, { 38, 4, 0 } };
    omp_set_num_threads(1);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        op_scene plain, lanes;
        op_simd_avx(0);
        load_bodies(&plain, cases[c].particles, cases[c].copies, cases[c].pins);
        op_simd_avx(1);
        load_bodies(&lanes, cases[c].particles, cases[c].copies, cases[c].pins);
        if (cases[c].copies == 4)
            assert_int_equal(lanes.world.schedule->unit_count, 1); /* the four are one group */
        for (int frame = 1; frame <= 12; ++frame) {
            op_simd_avx(0);
            step(&plain, 1);
            op_simd_avx(1);
            step(&lanes, 1);
            assert_states_bitwise_equal(&plain.world, &lanes.world, frame);
        }
        op_scene_free(&plain);
        op_scene_free(&lanes);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_predict_lanes_give_one_at_a_time_bits),
        cmocka_unit_test(test_predict_sees_any_particle_turn),
        cmocka_unit_test(test_four_bodies_side_by_side_give_each_ones_bits),
        cmocka_unit_test(test_frames_in_lanes_give_one_at_a_time_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
