/* Tests of the floor contacts as the world runs them (include/opsim/world.h, core/contact/collide.h): what the
 * record of a sub-step says about them (the reach below the floor before the push-back, the
 * energy after contacts) and the two places the floor can act (floor_contact = substep, the
 * paper's, or iteration). */
#include <string.h>

#include "contact/collide.h"
#include "base/math3.h"
#include "test_scene_load.h"
#include "sim/energy.h"

enum { MAX_CELLS = 64 };

/* One frame of the scene, its energies and per-sub-step records into the arrays given. */
static void step(op_scene *scene, op_energy *energy, op_energy *after, double *reach)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_frame_stats stats = { .energy = energy, .energy_after_contacts = after, .floor_reach = reach };
    if (op_world_step(&ctx, &scene->world, &stats) != OP_OK)
        fail_msg("%s", ctx.message);
}

/* Fig. 5's dinosaur, one sub-step a frame so that a frame's records are one sub-step's. */
static void load_fig5(op_scene *scene, const char *floor_contact)
{
    const char *overrides[] = { "world.substeps=1", floor_contact, NULL };
    test_load_scene(scene, "experiments/fig5.ini", overrides);
}

/* What the iterations of frame `frame` (0-based) leave before the floor acts: a fresh world
 * stepped `frame` frames, then the frame's sub-step in stages (op_world_begin_substep and
 * op_world_iterate, which op_world_step's sub-step is, bitwise, before its floor stage). */
static void before_the_floor(int frame, double *reach, op_energy *energy)
{
    op_scene probe;
    load_fig5(&probe, "world.floor_contact=substep");
    op_energy ignored[MAX_CELLS], after;
    double ignored_reach;
    for (int f = 0; f < frame; ++f)
        step(&probe, ignored, &after, &ignored_reach);
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_stage_times times = { 0 };
    double h = probe.world.def.frame_time;
    assert_int_equal(op_world_begin_substep(&ctx, &probe.world, h), OP_OK);
    for (int k = 0; k < probe.world.def.iterations; ++k)
        assert_int_equal(op_world_iterate(&ctx, &probe.world, h, k, &times), OP_OK);
    *reach = op_max(0.0, op_floor_penetration(&probe.world.bodies[0], 0.0));
    op_world_energy(&probe.world, h, energy);
    op_scene_free(&probe);
}

/* The reach below the floor before the push-back is the deepest reach of the iterations'
 * result, and the energy after contacts is the energy of the state the frame ends in; without
 * a contact it is the last logged energy, bit for bit (the dinosaur lands in frame 13). */
static void test_records_see_the_contacts(void **state)
{
    (void)state;
    op_scene scene;
    load_fig5(&scene, "world.floor_contact=substep");
    int columns = scene.world.def.iterations + 1, contacts_seen = 0;
    for (int frame = 0; frame < 30; ++frame) {
        op_energy energy[MAX_CELLS], after, iterated, now;
        double reach, expected;
        before_the_floor(frame, &expected, &iterated);
        step(&scene, energy, &after, &reach);
        assert_true(reach == expected);
        assert_true(energy[columns - 1].total == iterated.total);
        op_world_energy(&scene.world, scene.world.def.frame_time, &now);
        assert_true(after.total == now.total && after.elastic == now.elastic && after.kinetic == now.kinetic);
        if (reach > 0) {
            ++contacts_seen;
            assert_true(after.total != energy[columns - 1].total);
        } else {
            assert_true(after.total == energy[columns - 1].total);
        }
    }
    assert_true(contacts_seen > 10);
    op_scene_free(&scene);
}

/* floor_contact = iteration: no stored state reaches below the floor, so the energy after
 * contacts is the last logged one bit for bit; before the first contact the two places give the
 * same bits (the projection has nothing to do), so the iterations' descent is untouched there. */
static void test_iteration_contacts_keep_every_logged_state_above_the_floor(void **state)
{
    (void)state;
    op_scene inside, end;
    load_fig5(&inside, "world.floor_contact=iteration");
    load_fig5(&end, "world.floor_contact=substep");
    int columns = inside.world.def.iterations + 1, touched = 0;
    for (int frame = 0; frame < 90; ++frame) {
        op_energy energy[MAX_CELLS], after, energy_end[MAX_CELLS], after_end;
        double reach, reach_end;
        step(&inside, energy, &after, &reach);
        step(&end, energy_end, &after_end, &reach_end);
        assert_le(op_floor_penetration(&inside.world.bodies[0], 0.0), 1e-15);
        assert_true(after.total == energy[columns - 1].total);
        if (reach_end > 0 || reach > 0)
            touched = 1;
        if (!touched)
            for (int k = 0; k < columns; ++k)
                assert_true(energy[k].total == energy_end[k].total);
    }
    assert_true(touched);
    op_scene_free(&inside);
    op_scene_free(&end);
}

/* Friction acts in both places: the dinosaur at rest on the floor, thrown sideways at 1 m/s,
 * keeps less than a fifth of its horizontal momentum (either way: its feet stop and the body
 * swings back) half a second later (μ = 0.5, g = 9.81: a rigid block would stop in 0.2 s), and
 * without friction it keeps nearly all of it. */
static void test_friction_stops_a_sliding_body_in_both_places(void **state)
{
    (void)state;
    static const char *const places[] = { "world.floor_contact=substep", "world.floor_contact=iteration" };
    for (int p = 0; p < 2; ++p)
        for (int with_friction = 0; with_friction < 2; ++with_friction) {
            const char *overrides[] = { places[p], with_friction ? "world.friction=0.5" : "world.friction=0", NULL };
            op_scene scene;
            test_load_scene(&scene, "experiments/fig5.ini", overrides);
            /* fig5.ini has three sub-steps a frame: a record each */
            op_energy energy[MAX_CELLS], after[MAX_CELLS];
            double reach[MAX_CELLS];
            for (int frame = 0; frame < 100; ++frame)
                step(&scene, energy, after, reach);
            op_body *body = &scene.world.bodies[0];
            double mass = 0.0, start = 0.0, end = 0.0;
            for (int i = 0; i < body->graph->particle_count; ++i) {
                body->state.velocity[3 * i] += 1.0;
                mass += body->graph->mass[i];
                start += body->graph->mass[i] * body->state.velocity[3 * i];
            }
            for (int frame = 0; frame < 15; ++frame)
                step(&scene, energy, after, reach);
            for (int i = 0; i < body->graph->particle_count; ++i)
                end += body->graph->mass[i] * body->state.velocity[3 * i];
            print_message("  %s, friction %s: horizontal momentum %.3g -> %.3g kg m/s\n", places[p],
                          with_friction ? "0.5" : "0", start, end);
            if (with_friction)
                assert_le(fabs(end), 0.2 * start);
            else
                assert_le(0.9 * start, end);
            op_scene_free(&scene);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_records_see_the_contacts),
        cmocka_unit_test(test_iteration_contacts_keep_every_logged_state_above_the_floor),
        cmocka_unit_test(test_friction_stops_a_sliding_body_in_both_places),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
