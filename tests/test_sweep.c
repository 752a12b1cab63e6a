/* Tests for parameter sweeps (core/io/sweep.c, `opsim sweep`, tools/sweep-slurm.sh): the order of
 * the combinations and the run names, the grids refused, the quoting of make recipes, and a
 * 2 x 2 sweep of Fig. 2 run through its Makefile (two at a time), through the Slurm script and
 * in process, each run file recording its own parameters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opsim/runfile.h"
#include "io/sweep.h"
#include "test_util.h"

static void test_combinations_in_nested_loop_order(void **state)
{
    (void)state;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_sweep sweep;
    const char *sets[] = { "run.frames=3" };
    assert_int_equal(op_sweep_init(&ctx, &sweep, "experiments/fig2.ini", "out", 1, sets), OP_OK);
    assert_int_equal(op_sweep_add_grid(&ctx, &sweep, "world.iterations=10, 100 ,1000"), OP_OK);
    assert_int_equal(op_sweep_add_grid(&ctx, &sweep, "body bar_k.stiffness=5e8,1e9"), OP_OK);
    assert_int_equal(sweep.run_count, 6);
    static const char *const expected[6][2] = { { "10", "5e8" },   { "10", "1e9" },   { "100", "5e8" },
                                                { "100", "1e9" },  { "1000", "5e8" }, { "1000", "1e9" } };
    for (long r = 0; r < 6; ++r) {
        assert_string_equal(op_sweep_value(&sweep, r, 0), expected[r][0]);
        assert_string_equal(op_sweep_value(&sweep, r, 1), expected[r][1]);
    }
    char **overrides;
    int count;
    assert_int_equal(op_sweep_overrides(&ctx, &sweep, 3, &overrides, &count), OP_OK);
    assert_int_equal(count, 3);
    assert_string_equal(overrides[0], "run.frames=3");
    assert_string_equal(overrides[1], "world.iterations=100");
    assert_string_equal(overrides[2], "body bar_k.stiffness=1e9");
    op_sweep_free_strings(overrides, count);
    char path[64];
    assert_int_equal(op_sweep_run_path(&ctx, &sweep, 5, path, sizeof path), OP_OK);
    assert_string_equal(path, "out/run-005.h5");
    char *command = op_sweep_command(&ctx, &sweep, "bin/opsim", 1, OP_SWEEP_WORDS);
    assert_string_equal(command, "bin/opsim run experiments/fig2.ini --set run.frames=3 --set world.iterations=10 "
                                 "--set body bar_k.stiffness=1e9 --out out/run-001.h5");
    free(command);
    op_sweep_free(&sweep);
}

/* One width for every name of a sweep, wide enough for the last. */
static void test_run_names_sort(void **state)
{
    (void)state;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_sweep sweep;
    char grid[8000] = "world.iterations=1", path[64];
    for (int v = 2; v <= 1001; ++v)
        snprintf(grid + strlen(grid), sizeof grid - strlen(grid), ",%d", v);
    assert_int_equal(op_sweep_init(&ctx, &sweep, "c.ini", "d", 0, NULL), OP_OK);
    assert_int_equal(op_sweep_add_grid(&ctx, &sweep, grid), OP_OK);
    assert_int_equal(sweep.run_count, 1001);
    assert_int_equal(op_sweep_run_path(&ctx, &sweep, 7, path, sizeof path), OP_OK);
    assert_string_equal(path, "d/run-0007.h5");
    assert_int_equal(op_sweep_run_path(&ctx, &sweep, 1000, path, sizeof path), OP_OK);
    assert_string_equal(path, "d/run-1000.h5");
    op_sweep_free(&sweep);
}

static void test_bad_grids_are_usage_errors(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "world.iterations",       /* no values */
        "iterations=1,2",         /* no section */
        ".iterations=1",          /* empty section */
        "world.=1",               /* empty key */
        "world.iterations=1,,2",  /* an empty value */
        "world.iterations=1, ",   /* a blank value */
        "run.frames=1,2",         /* a shared override already sets it */
        "world.substeps=1\t2",    /* a tab cannot go into sweep.tsv */
    };
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; ++b) {
        op_ctx ctx;
        op_ctx_init(&ctx);
        op_sweep sweep;
        const char *sets[] = { "run.frames=3" };
        assert_int_equal(op_sweep_init(&ctx, &sweep, "c.ini", "d", 1, sets), OP_OK);
        if (op_sweep_add_grid(&ctx, &sweep, bad[b]) != OP_ERR_USAGE)
            fail_msg("--grid '%s' was accepted", bad[b]);
        assert_non_null(strstr(ctx.message, "--grid"));
        assert_int_equal(sweep.grid_count, 0);
        op_sweep_free(&sweep);
    }
    /* the same key twice, and more runs than a sweep may have */
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_sweep sweep;
    assert_int_equal(op_sweep_init(&ctx, &sweep, "c.ini", "d", 0, NULL), OP_OK);
    char grid[4000] = "world.iterations=1";
    for (int v = 2; v <= 400; ++v)
        snprintf(grid + strlen(grid), sizeof grid - strlen(grid), ",%d", v);
    assert_int_equal(op_sweep_add_grid(&ctx, &sweep, grid), OP_OK);
    assert_int_equal(op_sweep_add_grid(&ctx, &sweep, "world.iterations=5"), OP_ERR_USAGE);
    op_ctx_init(&ctx);
    grid[0] = 'W'; /* another key, 400 more values: 160,000 runs */
    assert_int_equal(op_sweep_add_grid(&ctx, &sweep, grid), OP_ERR_USAGE);
    assert_non_null(strstr(ctx.message, "100000"));
    op_sweep_free(&sweep);
    op_ctx_init(&ctx);
    const char *no_value[] = { "run.frames" };
    assert_int_equal(op_sweep_init(&ctx, &sweep, "c.ini", "d", 1, no_value), OP_ERR_USAGE);
}

/* A recipe passes any value to opsim unchanged: quotes and '$' survive the shell and make. */
static void test_make_recipes_quote_values(void **state)
{
    (void)state;
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_sweep sweep;
    assert_int_equal(op_sweep_init(&ctx, &sweep, "c.ini", "d", 0, NULL), OP_OK);
    assert_int_equal(op_sweep_add_grid(&ctx, &sweep, "solver.chebyshev_rho_source=it's $HOME"), OP_OK);
    char *command = op_sweep_command(&ctx, &sweep, "$(OPSIM)", 0, OP_SWEEP_MAKE);
    assert_string_equal(command, "$(OPSIM) run 'c.ini' --set 'solver.chebyshev_rho_source=it'\\''s $$HOME' "
                                 "--out 'd/run-000.h5'");
    free(command);
    op_sweep_free(&sweep);
}

/* The data lines of DIR/sweep.tsv: run file, iterations, stiffness. */
typedef struct sweep_row {
    char run[600];
    int64_t iterations;
    double stiffness;
} sweep_row;

static int read_table(const char *dir, sweep_row *rows, int capacity)
{
    char path[700];
    snprintf(path, sizeof path, "%s/sweep.tsv", dir);
    char *text = test_read_file(path);
    assert_non_null(text);
    assert_non_null(strstr(text, "# config\texperiments/fig2.ini\n"));
    assert_non_null(strstr(text, "# set\trun.frames=3\n"));
    assert_non_null(strstr(text, "# run\tworld.iterations\tbody bar_k.stiffness\n"));
    int count = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#')
            continue;
        assert_true(count < capacity);
        long long iterations;
        assert_int_equal(sscanf(line, "%599[^\t]\t%lld\t%lf", rows[count].run, &iterations, &rows[count].stiffness), 3);
        rows[count++].iterations = iterations;
    }
    free(text);
    return count;
}

/* Each run file holds the parameters of its line, and the four are distinct. */
static void check_runs(const sweep_row *rows, int count)
{
    for (int r = 0; r < count; ++r) {
        op_ctx ctx;
        op_ctx_init(&ctx);
        int64_t iterations = 0, frames = 0;
        double stiffness = 0;
        if (op_runfile_read_attribute_int(&ctx, rows[r].run, "/parameters", "iterations", &iterations) != OP_OK ||
            op_runfile_read_attribute_int(&ctx, rows[r].run, "/parameters", "frames", &frames) != OP_OK ||
            op_runfile_read_attribute_double(&ctx, rows[r].run, "/parameters/bar_k", "stiffness", &stiffness) != OP_OK)
            fail_msg("%s", ctx.message);
        assert_int_equal(iterations, rows[r].iterations);
        assert_true(stiffness == rows[r].stiffness);
        assert_int_equal(frames, 3);
        for (int q = 0; q < r; ++q) {
            assert_string_not_equal(rows[q].run, rows[r].run);
            assert_false(rows[q].iterations == rows[r].iterations && rows[q].stiffness == rows[r].stiffness);
        }
    }
}

static const char *const GRIDS = "--set run.frames=3 --grid world.iterations=10,20 --grid 'body bar_k.stiffness=5e8,1e9'";

static void test_two_by_two_sweep_through_make_and_slurm(void **state)
{
    (void)state;
    char dir[600];
    snprintf(dir, sizeof dir, "%s", test_tmp_path("-sweep"));
    assert_int_equal(test_shell("bin/opsim sweep experiments/fig2.ini %s --out '%s' > /dev/null", GRIDS, dir), 0);
    sweep_row rows[8];
    int count = read_table(dir, rows, 8);
    assert_int_equal(count, 4);
    for (int r = 0; r < count; ++r)
        assert_int_not_equal(access(rows[r].run, F_OK), 0); /* nothing has run yet */
    assert_int_equal(test_shell("make -s -f '%s/sweep.mk' -j2 > /dev/null 2>&1", dir), 0);
    check_runs(rows, count);
    /* Slurm's task 2 makes the third run again, with the same parameters */
    assert_int_equal(remove(rows[2].run), 0);
    assert_int_equal(test_shell("SLURM_ARRAY_TASK_ID=2 tools/sweep-slurm.sh '%s' 2>/dev/null", dir), 0);
    check_runs(rows, count);
    assert_int_equal(test_shell("SLURM_ARRAY_TASK_ID=4 tools/sweep-slurm.sh '%s' 2>/dev/null", dir), 64);
}

static void test_sweep_run_in_process(void **state)
{
    (void)state;
    char dir[600], makefile[700];
    snprintf(dir, sizeof dir, "%s", test_tmp_path("-sweep"));
    assert_int_equal(test_shell("bin/opsim sweep experiments/fig2.ini %s --out '%s' --run > /dev/null 2>&1", GRIDS, dir), 0);
    sweep_row rows[8];
    int count = read_table(dir, rows, 8);
    assert_int_equal(count, 4);
    check_runs(rows, count);
    snprintf(makefile, sizeof makefile, "%s/sweep.mk", dir);
    assert_int_not_equal(access(makefile, F_OK), 0);
}

/* A misspelt key fails before anything is written; bad options are usage errors. */
static void test_sweep_errors(void **state)
{
    (void)state;
    char dir[600], table[700];
    snprintf(dir, sizeof dir, "%s", test_tmp_path("-sweep"));
    snprintf(table, sizeof table, "%s/sweep.tsv", dir);
    struct {
        const char *arguments;
        int status;
    } bad[] = {
        { "--grid world.iteratons=10,20", 65 },
        { "--grid world.iterations=x,10", 65 }, /* the first run's values are checked */
        { "", 64 },
        { "--grid world.iterations=10,20 --run --print-make", 64 },
        { "--grid world.iterations", 64 },
    };
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; ++b) {
        int status = test_shell("bin/opsim sweep experiments/fig2.ini %s --out '%s' > /dev/null 2>&1", bad[b].arguments,
                                dir);
        if (status != bad[b].status)
            fail_msg("opsim sweep %s: exit %d, expected %d", bad[b].arguments, status, bad[b].status);
        assert_int_not_equal(access(table, F_OK), 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_combinations_in_nested_loop_order),
        cmocka_unit_test(test_run_names_sort),
        cmocka_unit_test(test_bad_grids_are_usage_errors),
        cmocka_unit_test(test_make_recipes_quote_values),
        cmocka_unit_test(test_two_by_two_sweep_through_make_and_slurm),
        cmocka_unit_test(test_sweep_run_in_process),
        cmocka_unit_test(test_sweep_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
