/* Tests of the floor contacts as the world runs them (include/opsim/world.h, core/contact/collide.h): what the
 * record of a sub-step says about them (the reach below the floor before the push-back, the
 * energy after contacts) and the three places the floor can act (floor_contact = substep, the
 * paper's, iteration, or solve: inside the global step, solvers/arap_floor.c). */
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

/* How far the body's stored state reaches below the floor (m, 0 when it does not), from the
 * state alone. */
static double stored_sink(const op_body *body)
{
    return op_max(0.0, op_floor_penetration(body, 0.0));
}

/* floor_contact = solve: the global step holds the feet on the floor, so at rest (the last two
 * seconds of Fig. 5's five, its own three sub-steps a frame) no stored state sinks below it by
 * more than rounding, where the paper's handling lets every sub-step's solve sink 21 mm; and
 * the energy the log ends each sub-step with is the stored state's, bit for bit, every frame
 * (one sub-step a frame). */
static void test_solve_holds_the_feet_on_the_floor(void **state)
{
    (void)state;
    op_scene held, paper;
    const char *held_overrides[] = { "world.floor_contact=solve", NULL };
    const char *paper_overrides[] = { "world.floor_contact=substep", NULL };
    test_load_scene(&held, "experiments/fig5.ini", held_overrides);
    test_load_scene(&paper, "experiments/fig5.ini", paper_overrides);
    double resting_sink = 0.0, paper_reach = 0.0;
    for (int frame = 0; frame < 150; ++frame) {
        op_energy energy[MAX_CELLS], after[MAX_CELLS];
        double reach[MAX_CELLS], paper_reaches[MAX_CELLS];
        step(&held, energy, after, reach);
        step(&paper, energy, after, paper_reaches);
        if (frame >= 90) {
            resting_sink = op_max(resting_sink, stored_sink(&held.world.bodies[0]));
            for (int s = 0; s < paper.world.def.substeps; ++s)
                paper_reach = op_max(paper_reach, paper_reaches[s]);
        }
    }
    print_message("  at rest: deepest stored sink %.3g m held in the solve; the paper's solve reached %.3g m\n",
                  resting_sink, paper_reach);
    assert_true(resting_sink < 1e-12);
    assert_true(paper_reach > 0.01);
    op_scene_free(&held);
    op_scene_free(&paper);

    op_scene one;
    load_fig5(&one, "world.floor_contact=solve");
    int columns = one.world.def.iterations + 1, held_frames = 0;
    for (int frame = 0; frame < 150; ++frame) {
        op_energy energy[MAX_CELLS], after, now;
        double reach;
        step(&one, energy, &after, &reach);
        op_world_energy(&one.world, one.world.def.frame_time, &now);
        assert_true(energy[columns - 1].total == now.total && energy[columns - 1].elastic == now.elastic);
        assert_true(after.total == now.total);
        assert_true(stored_sink(&one.world.bodies[0]) < 1e-12 && reach < 1e-12);
        int pushed = 0;
        for (int i = 0; i < one.world.bodies[0].graph->particle_count; ++i)
            pushed += one.world.bodies[0].floor_push[i] > 0;
        held_frames += pushed > 0;
    }
    assert_true(held_frames > 100);
    op_scene_free(&one);
}

/* The kinetic energy of the body's stored velocities (translational, J) */
static double kinetic(const op_body *body)
{
    double sum = 0.0;
    for (int i = 0; i < body->graph->particle_count; ++i)
        sum += 0.5 * body->graph->mass[i] * v3_dot(&body->state.velocity[3 * i], &body->state.velocity[3 * i]);
    return sum;
}

/* floor_contact = solve comes to rest: Fig. 5's dinosaur, 15 s after it was dropped, moves with
 * less than 1e-6 J (the paper's handling keeps 6.9e-6 J for good: every push-back deforms it
 * again), and the floor's forces the solve holds it with (floor_push = μ h²/m) carry its weight
 * to 0.1 %. */
static void test_solve_comes_to_rest_on_its_weight(void **state)
{
    (void)state;
    op_scene scene;
    const char *overrides[] = { "world.floor_contact=solve", "run.frames=450", NULL };
    test_load_scene(&scene, "experiments/fig5.ini", overrides);
    op_energy energy[MAX_CELLS], after[MAX_CELLS];
    double reach[MAX_CELLS];
    for (int frame = 0; frame < 450; ++frame)
        step(&scene, energy, after, reach);
    const op_body *body = &scene.world.bodies[0];
    double h = scene.world.def.frame_time / scene.world.def.substeps, weight = 0.0, held = 0.0;
    for (int i = 0; i < body->graph->particle_count; ++i) {
        weight += body->graph->mass[i] * 9.81;
        held += body->floor_push[i] * body->graph->mass[i] / (h * h);
    }
    print_message("  after 15 s: kinetic energy %.3g J; the floor holds %.4g N of %.4g N\n", kinetic(body), held,
                  weight);
    assert_true(kinetic(body) < 1e-6);
    assert_true(fabs(held - weight) < 1e-3 * weight);
    assert_true(stored_sink(body) < 1e-12);
    op_scene_free(&scene);
}

/* Only arap and arap-reference hold the floor in their solve: the other variants, and an
 * accelerator that moves the positions after the solve, are refused by name. */
static void test_solve_is_refused_where_it_cannot_hold(void **state)
{
    (void)state;
    static const char *const others[] = { "solver.name=shape-matching", "solver.name=meshless",
                                          "solver.name=springs", "solver.name=rigid", "solver.name=arap-lbfgs" };
    for (size_t v = 0; v < sizeof others / sizeof *others; ++v) {
        const char *message =
            load_fails("experiments/fig5.ini", (const char *const[]){ "world.floor_contact=solve", others[v], NULL });
        assert_non_null(strstr(message, "floor_contact = solve"));
        assert_non_null(strstr(message, others[v] + strlen("solver.name=")));
    }
    const char *message = load_fails("experiments/fig5.ini", (const char *const[]){ "world.floor_contact=solve",
                                                                                  "solver.chebyshev=on",
                                                                                  "solver.chebyshev_rho=0.5", NULL });
    assert_non_null(strstr(message, "chebyshev"));
}

/* Friction acts in every place: the dinosaur at rest on the floor, thrown sideways at 1 m/s,
 * keeps less than a fifth of its horizontal momentum (either way: its feet stop and the body
 * swings back) half a second later (μ = 0.5, g = 9.81: a rigid block would stop in 0.2 s), and
 * without friction it keeps nearly all of it. */
static void test_friction_stops_a_sliding_body_in_every_place(void **state)
{
    (void)state;
    static const char *const places[] = { "world.floor_contact=substep", "world.floor_contact=iteration",
                                          "world.floor_contact=solve" };
    for (int p = 0; p < 3; ++p)
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
        cmocka_unit_test(test_solve_holds_the_feet_on_the_floor),
        cmocka_unit_test(test_solve_comes_to_rest_on_its_weight),
        cmocka_unit_test(test_solve_is_refused_where_it_cannot_hold),
        cmocka_unit_test(test_friction_stops_a_sliding_body_in_every_place),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
