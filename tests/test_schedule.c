/* Tests of core/sim/schedule.c: the units a variant's group hook forms (twins of one model, in
 * body order, none with an accelerator on), that the units' loop steps every unit exactly once
 * on one thread and on a team, in both directions of the runs, with each unit's cost the mean
 * of its last two times, and the apportioning of a loop's wall time to its stages. */
#include <math.h>
#include <omp.h>
#include <string.h>

#include "sim/schedule.h"
#include "test_util.h"
#include "geometry/model.h"

enum { BODIES = 7 };

/* Bodies 0, 2, 3, 5, 6 instance model a; 1 and 4 model b; body b has 10·(b + 1) particles */
typedef struct fixture {
    op_model models[2];
    op_graph graphs[BODIES];
    op_body bodies[BODIES];
    void *states[BODIES];
} fixture;

static void make_bodies(fixture *f)
{
    memset(f, 0, sizeof *f);
    static const int model_of[BODIES] = { 0, 1, 0, 0, 1, 0, 0 };
    for (int b = 0; b < BODIES; ++b) {
        f->graphs[b].particle_count = 10 * (b + 1);
        f->bodies[b].graph = &f->graphs[b];
        f->bodies[b].model = &f->models[model_of[b]];
    }
}

/* Groups the first two bodies offered (a variant pairing its twins) */
static int group_pairs(op_ctx *ctx, void *const *solvers, op_body *const *bodies, int count, int *grouped)
{
    (void)ctx, (void)solvers, (void)bodies;
    *grouped = count >= 2 ? 2 : 1;
    return OP_OK;
}

static void test_units_pair_twins_in_body_order(void **state)
{
    (void)state;
    fixture f;
    make_bodies(&f);
    op_solver_type pairing = { .name = "pairing", .group = group_pairs };
    op_schedule s = { 0 };
    op_ctx ctx;
    op_ctx_init(&ctx);
    assert_int_equal(op_schedule_form_units(&ctx, &s, f.bodies, BODIES, &pairing, f.states, 1), OP_OK);
    /* a: (0 2) (3 5) (6); b: (1 4) */
    static const int start[] = { 0, 2, 4, 6, 7 }, body[] = { 0, 2, 1, 4, 3, 5, 6 };
    assert_int_equal(s.unit_count, 4);
    for (int u = 0; u <= 4; ++u)
        assert_int_equal(s.unit_start[u], start[u]);
    for (int m = 0; m < BODIES; ++m)
        assert_int_equal(s.unit_body[m], body[m]);
    /* no groups (an accelerator on): every body a unit alone, in body order */
    assert_int_equal(op_schedule_form_units(&ctx, &s, f.bodies, BODIES, &pairing, f.states, 0), OP_OK);
    assert_int_equal(s.unit_count, BODIES);
    for (int m = 0; m < BODIES; ++m)
        assert_int_equal(s.unit_body[m], m);
    op_schedule_free(&s);
    assert_null(s.unit_start);
}

typedef struct counting {
    int calls[BODIES];
    int wrong_thread;
    double took; /* what each call says it took */
} counting;

static double count_call(void *context, int thread, int unit)
{
    counting *c = context;
#pragma omp atomic
    c->calls[unit]++;
    if (thread != omp_get_thread_num() || thread >= omp_get_max_threads())
#pragma omp atomic
        c->wrong_thread++;
    return c->took;
}

/* Every unit once a sub-step, whatever the parity and the team; the summed time is the calls';
 * a unit's cost is its first time, then the mean with the one before */
static void check_units_loop(int threads)
{
    fixture f;
    make_bodies(&f);
    op_solver_type alone = { .name = "alone" };
    op_schedule s = { 0 };
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_schedule_start(&s, BODIES);
    assert_true(s.parallel); /* 7 bodies */
    assert_int_equal(op_schedule_form_units(&ctx, &s, f.bodies, BODIES, &alone, f.states, 1), OP_OK);
    omp_set_num_threads(threads);
    assert_int_equal(op_schedule_threads(&s), threads);
    counting c = { .took = 0.004 };
    for (long substep = 0; substep < 2; ++substep) {
        double wall, all = op_schedule_units(&ctx, &s, f.bodies, substep, count_call, &c, &wall);
        assert_int_equal(ctx.status, OP_OK);
        assert_close(all, BODIES * c.took, 1e-15);
        assert_true(wall >= 0.0);
        c.took = 0.002;
    }
    for (int u = 0; u < BODIES; ++u) {
        assert_int_equal(c.calls[u], 2);
        assert_close(s.unit_cost[u], 0.003, 1e-15);
    }
    assert_int_equal(c.wrong_thread, 0);
    op_schedule_free(&s);
}

static void test_units_loop_steps_every_unit_once(void **state)
{
    (void)state;
    int threads = omp_get_max_threads();
    check_units_loop(1);
    check_units_loop(2);
    check_units_loop(3);
    omp_set_num_threads(threads);
}

/* Two bodies share out however few their particles (the world times whether they should); one
 * body stays on one thread */
static void test_one_body_stays_on_one_thread(void **state)
{
    (void)state;
    op_schedule s = { 0 };
    op_schedule_start(&s, 2);
    assert_true(s.parallel);
    op_schedule_start(&s, 1);
    assert_false(s.parallel);
    assert_int_equal(op_schedule_threads(&s), 1);
}

/* The wall time shared out as the stages' shares of the summed times; counts summed */
static void test_apportion_shares_the_wall_time(void **state)
{
    (void)state;
    op_stage_times times = { .local = 1.0, .count = { 5 } };
    op_stage_times spent = { .local = 0.3, .global = 0.1, .accel = 0.1, .count = { 7, 2 } };
    op_schedule_apportion(&times, 2.0, &spent, 0.5);
    assert_close(times.local, 1.0 + 1.2, 1e-15);
    assert_close(times.global, 0.4, 1e-15);
    assert_close(times.accel, 0.4, 1e-15);
    assert_int_equal(times.count[0], 12);
    assert_int_equal(times.count[1], 2);
    /* nothing summed: the seconds stay, the counts still add */
    op_schedule_apportion(&times, 2.0, &spent, 0.0);
    assert_close(times.global, 0.4, 1e-15);
    assert_int_equal(times.count[0], 19);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_units_pair_twins_in_body_order),
        cmocka_unit_test(test_units_loop_steps_every_unit_once),
        cmocka_unit_test(test_one_body_stays_on_one_thread),
        cmocka_unit_test(test_apportion_shares_the_wall_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
