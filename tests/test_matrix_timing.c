/* Tests of the variants matrix's timing under the timing protocol (docs/timing.md): the run order
 * of bench_scenes' repetitions (listed by -n, and as run, by -v) and of the matrix's
 * (experiments/variants.sh --list) goes round the variants, A B A B A B, never one variant's
 * repetitions back to back; a plan (-P) gives each line its own scene, warm-up and frames, and
 * the matrix's rounds go round every scene's variants (round r: every scene, every variant), so
 * that a scene's repetitions spread over the timed phase; and a tiny
 * matrix (the bar, two variants, six repetitions: the fewest with a 95 % interval) made for real
 * carries ms per frame as a median inside its interval with a noisy flag that agrees with the
 * interval's width, its words in status columns (no '–'), and so the ms to 1e-2 of each
 * variant's own solution (own_ms, from one converge run of the scene holding both variants),
 * and the report's pivot prints that interval; the matrix made in phases (the Slurm route's)
 * equals one made in one go but for the timings. Nothing here asserts a speed.
 * Needs bin/opsim, bin/opsim-report and bin/bench/bench_scenes (make test builds them). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

static char dir[512];

static const char *in_dir(const char *name)
{
    return test_join(dir, name);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s", test_tmp_path("-matrix-timing"));
    return test_shell("mkdir -p '%s'", dir) == 0 ? 0 : -1;
}

static void test_bench_rounds_go_round_the_variants(void **state)
{
    (void)state;
    assert_int_equal(test_shell("bin/bench/bench_scenes -n -r 3 -i experiments/fig3.ini "
                                "-V 'A:solver.rotations=gs' -V 'B:solver.rotations=jacobi;solver.chebyshev=off' "
                                "> '%s'",
                                in_dir("order.txt")),
                     0);
    char *text = test_read_file(in_dir("order.txt"));
    assert_non_null(text);
    assert_string_equal(text, "1\texperiments/fig3.ini\tA\n"
                              "1\texperiments/fig3.ini\tB\n"
                              "2\texperiments/fig3.ini\tA\n"
                              "2\texperiments/fig3.ini\tB\n"
                              "3\texperiments/fig3.ini\tA\n"
                              "3\texperiments/fig3.ini\tB\n");
    free(text);
    /* and the timing loop itself takes them so: -v names each repetition as it ends */
    assert_int_equal(test_shell("OMP_NUM_THREADS=1 bin/bench/bench_scenes -v -w 0 -f 1 -r 3 -i experiments/fig3.ini "
                                "-V 'A:solver.rotations=gs' -V 'B:solver.rotations=jacobi' -o /dev/null "
                                "2>&1 > /dev/null | cut -d' ' -f2,4 > '%s'",
                                in_dir("timed.txt")),
                     0);
    text = test_read_file(in_dir("timed.txt"));
    assert_non_null(text);
    assert_string_equal(text, "A 0:\nB 0:\nA 1:\nB 1:\nA 2:\nB 2:\n");
    free(text);
    /* -c and -V do not mix; a -V without a label, or with a comma in it (a CSV cell), is refused */
    assert_int_equal(test_shell("bin/bench/bench_scenes -n -i experiments/fig3.ini -c world.iterations=1,2 "
                                "-V 'A:solver.rotations=gs' 2> /dev/null"),
                     64);
    assert_int_equal(test_shell("bin/bench/bench_scenes -n -i experiments/fig3.ini -V 'solver.rotations=gs' "
                                "2> /dev/null"),
                     64);
    assert_int_equal(test_shell("bin/bench/bench_scenes -n -i experiments/fig3.ini -V 'A,B:solver.rotations=gs' "
                                "2> /dev/null"),
                     64);
}

/* -P: a line per run, each with its scene, warm-up and timed frames; the rounds go round every
 * line; the CSV names each row's config, setting, warm-up and frames; -p writes the probe of
 * each round. A plan with -V, or a malformed line, is refused. */
static void test_bench_plan_goes_round_every_line(void **state)
{
    (void)state;
    assert_int_equal(test_write_text(in_dir("plan.tsv"), "# scene\twarm-up\tframes\tvariant\n"
                                                         "experiments/fig3.ini\t1\t2\tA:solver.rotations=gs\n"
                                                         "\n"
                                                         "experiments/fig5.ini\t0\t1\tA:solver.rotations=gs\n"
                                                         "experiments/fig3.ini\t2\t3\tB:solver.rotations=jacobi\n"),
                     0);
    assert_int_equal(test_shell("bin/bench/bench_scenes -n -r 2 -P '%s/plan.tsv' > '%s/plan-order.txt'", dir, dir), 0);
    char *text = test_read_file(in_dir("plan-order.txt"));
    assert_non_null(text);
    assert_string_equal(text, "1\texperiments/fig3.ini\tA\n1\texperiments/fig5.ini\tA\n1\texperiments/fig3.ini\tB\n"
                              "2\texperiments/fig3.ini\tA\n2\texperiments/fig5.ini\tA\n2\texperiments/fig3.ini\tB\n");
    free(text);
    assert_int_equal(test_shell("OMP_NUM_THREADS=1 bin/bench/bench_scenes -r 2 -P '%s/plan.tsv' -p '%s/probe.tsv' "
                                "-o '%s/plan.csv' > /dev/null && cut -d, -f3,12-14,46 '%s/plan.csv' > '%s/plan-rows.txt'",
                                dir, dir, dir, dir, dir),
                     0);
    text = test_read_file(in_dir("plan-rows.txt"));
    assert_non_null(text);
    /* config, warmup, repeats, frames (repeats × the line's frames), setting */
    assert_string_equal(text, "config,warmup,repeats,frames,setting\n"
                              "experiments/fig3.ini,1,2,4,A\n"
                              "experiments/fig5.ini,0,2,2,A\n"
                              "experiments/fig3.ini,2,2,6,B\n");
    free(text);
    text = test_read_file(in_dir("probe.tsv"));
    assert_non_null(text);
    assert_int_equal(strncmp(text, "phase\tround\tstarted_s\tprobe_ms\nbench_scenes\t1\t", 42), 0);
    assert_non_null(strstr(text, "\nbench_scenes\t2\t"));
    assert_null(strstr(text, "\nbench_scenes\t3\t"));
    free(text);
    assert_int_equal(test_shell("bin/bench/bench_scenes -n -P '%s/plan.tsv' -V 'A:solver.rotations=gs' 2> /dev/null",
                                dir),
                     64);
    assert_int_equal(test_write_text(in_dir("bad-plan.tsv"), "experiments/fig3.ini\t1\tA:solver.rotations=gs\n"), 0);
    assert_int_equal(test_shell("bin/bench/bench_scenes -n -P '%s/bad-plan.tsv' 2> '%s/bad-plan.err'", dir, dir), 64);
    text = test_read_file(in_dir("bad-plan.err"));
    assert_non_null(text);
    assert_non_null(strstr(text, "bad-plan.tsv:1: give CONFIG, WARMUP, FRAMES and LABEL"));
    free(text);
}

static void test_matrix_lists_its_timing_rounds(void **state)
{
    (void)state;
    assert_int_equal(test_shell("VARIANTS_SCENES='bar fall' VARIANTS_ONLY='arap-gs arap-jacobi' "
                                "VARIANTS_TIMING_REPEATS=3 experiments/variants.sh --list '%s' 2 > '%s'",
                                in_dir("unused"), in_dir("list.txt")),
                     0);
    char *text = test_read_file(in_dir("list.txt"));
    assert_non_null(text);
    assert_string_equal(text, "bar\t1\tarap-gs\nbar\t1\tarap-jacobi\n"
                              "fall\t1\tarap-gs\nfall\t1\tarap-jacobi\n"
                              "bar\t2\tarap-gs\nbar\t2\tarap-jacobi\n"
                              "fall\t2\tarap-gs\nfall\t2\tarap-jacobi\n"
                              "bar\t3\tarap-gs\nbar\t3\tarap-jacobi\n"
                              "fall\t3\tarap-gs\nfall\t3\tarap-jacobi\n");
    free(text);
    /* listing runs nothing */
    assert_int_not_equal(test_shell("test -e '%s'", in_dir("unused")), 0);
}

/* The index of `name` among the tab-separated names of a "# a\tb…" header, −1 if absent. */
static int column_index(const char *header, const char *name)
{
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", header + 2);
    int index = 0;
    for (char *save = NULL, *f = strtok_r(copy, "\t\n", &save); f; f = strtok_r(NULL, "\t\n", &save), ++index)
        if (strcmp(f, name) == 0)
            return index;
    return -1;
}

/* The tabs in a line (up to its newline). */
static int tabs_in_line(const char *line)
{
    int tabs = 0;
    for (; *line && *line != '\n'; ++line)
        tabs += *line == '\t';
    return tabs;
}

/* Cell `index` of a tab-separated line as a number; fails unless the whole cell is one. */
static double number_at(const char *line, int index)
{
    for (int c = 0; c < index; ++c) {
        line = strchr(line, '\t');
        assert_non_null(line);
        ++line;
    }
    char *end;
    double value = strtod(line, &end);
    if (end == line || (*end != '\t' && *end != '\n' && *end))
        fail_msg("cell %d of '%.80s' is not a number", index, line);
    return value;
}

static void test_tiny_matrix_has_its_intervals(void **state)
{
    (void)state;
    /* IDLE_WAIT=0: the timing starts at once, however busy the machine (no speed is asserted) */
    assert_int_equal(test_shell("VARIANTS_SCENES=bar VARIANTS_ONLY='arap-gs arap-jacobi' VARIANTS_TIMING_REPEATS=6 "
                                "IDLE_WAIT=0 experiments/variants.sh '%s' 2",
                                dir),
                     0);
    char *text = test_read_file(in_dir("matrix.tsv"));
    assert_non_null(text);
    int ms = column_index(text, "ms_per_frame"), lo = column_index(text, "ms_per_frame_lo"),
        hi = column_index(text, "ms_per_frame_hi"), noisy = column_index(text, "ms_per_frame_noisy");
    assert_int_equal(ms, 2);
    assert_int_equal(lo, 3);
    assert_int_equal(hi, 4);
    assert_int_equal(noisy, 5);
    /* the words of the gathered cells in status and bound columns, before note, which is last */
    assert_non_null(strstr(text, "\ttiming_status\tconvergence_status\town_status_1e-2\t"));
    assert_non_null(strstr(text, "\tmax_k_status\tmax_k_bound\tnote\n"));
    assert_null(strstr(text, "–"));
    int rows = 0;
    for (const char *line = strchr(text, '\n') + 1; *line; line = strchr(line, '\n') + 1, ++rows) {
        assert_int_equal(tabs_in_line(line), tabs_in_line(text)); /* as many cells as the header names */
        double median = number_at(line, ms), low = number_at(line, lo), high = number_at(line, hi);
        double flag = number_at(line, noisy);
        assert_true(median > 0);
        assert_le(low, median);
        assert_le(median, high);
        assert_true(flag == 0 || flag == 1);
        /* the flag says whether the half-width is over 5 % of the median (cells rounded to 1e-4) */
        if ((high - low) / 2 > 0.05 * median + 1e-4)
            assert_true(flag == 1);
        if ((high - low) / 2 < 0.05 * median - 1e-4)
            assert_true(flag == 0);
    }
    assert_int_equal(rows, 2);
    /* the ms to 1e-2 of each variant's own x* (both reach it on the bar) with its interval and
       flag, side by side; from one converge run of the scene, both variants in it */
    int own = column_index(text, "own_ms_1e-2"), own_lo = column_index(text, "own_ms_1e-2_lo"),
        own_hi = column_index(text, "own_ms_1e-2_hi"), own_noisy = column_index(text, "own_ms_1e-2_noisy");
    assert_true(own_lo > 0);
    assert_int_equal(own_hi, own_lo + 1);
    assert_int_equal(own_noisy, own_lo + 2);
    assert_true(column_index(text, "own_ms_1e-6_noisy") > 0);
    assert_int_equal(column_index(text, "note"), tabs_in_line(text));
    for (const char *line = strchr(text, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
        double median = number_at(line, own), low = number_at(line, own_lo), high = number_at(line, own_hi);
        double flag = number_at(line, own_noisy);
        assert_true(0 < low && low <= median && median <= high);
        if ((high - low) / 2 > 0.05 * median + 1e-3)
            assert_true(flag == 1);
        if ((high - low) / 2 < 0.05 * median - 1e-3)
            assert_true(flag == 0);
    }
    free(text);
    const char *metas[] = { "runs/converge-bar/arap-gs.tsv.meta", "runs/converge-bar/arap-jacobi.tsv.meta" };
    for (int v = 0; v < 2; ++v) {
        char *meta = test_read_file(in_dir(metas[v]));
        assert_non_null(meta);
        assert_non_null(strstr(meta, "\nstudies = arap-gs arap-jacobi ("));
        assert_non_null(strstr(meta, "\nrepeat 7 = wall "));
        free(meta);
    }
    /* the timing behind it: one bench_scenes call for every scene, six repetitions of 30 timed
       frames each after 10 warm-up frames */
    char *csv = test_read_file(in_dir("runs/timing.csv"));
    assert_non_null(csv);
    assert_non_null(strstr(csv, ",1,10,10,6,180,1,"));
    free(csv);
    /* the machine probe: one row per timed round of the converge batch (7) and of bench_scenes (6) */
    assert_int_equal(test_shell("test \"$(grep -c '^converge\t' '%s/runs/probe.tsv')\" = 7 && "
                                "test \"$(grep -c '^bench_scenes\t' '%s/runs/probe.tsv')\" = 6 && "
                                "head -1 '%s/runs/probe.tsv' | grep -qx 'phase.round.started_s.probe_ms'",
                                dir, dir, dir),
                     0);
    /* the report's table: "MEDIAN (LO–HI)", a dagger when noisy */
    assert_int_equal(test_shell("bin/opsim-report pivot-interval --in '%s' --column ms_per_frame --keys bar --out '%s'",
                                in_dir("matrix.tsv"), in_dir("pivot.tsv")),
                     0);
    char *pivot = test_read_file(in_dir("pivot.tsv"));
    assert_non_null(pivot);
    assert_int_equal(strncmp(pivot, "variant\tbar\narap-gs\t", 20), 0);
    assert_non_null(strstr(pivot, " ("));
    assert_non_null(strstr(pivot, "–"));
    free(pivot);
}

/* The matrix in phases (the Slurm route's tasks, tools/variants-slurm.sh, run here one after
   another): prepare per scene, runs per cell, timed per scene, then gather, equal to the matrix
   made in one go in every column but the timings (tools/compare-matrix.sh), a refused variant's
   rows too; a phase whose inputs are missing says which phase makes them. */
static void test_matrix_in_phases_equals_one_go(void **state)
{
    (void)state;
    const char *env = "VARIANTS_SCENES=bar VARIANTS_ONLY='arap-gs rigid' VARIANTS_TIMING_REPEATS=2 IDLE_WAIT=0";
    char plain[600], split[600];
    snprintf(plain, sizeof plain, "%s/one-go", dir);
    snprintf(split, sizeof split, "%s/phases", dir);
    assert_int_equal(test_shell("%s experiments/variants.sh '%s' 2 2> /dev/null", env, plain), 0);
    /* the cells, a line each */
    assert_int_equal(test_shell("%s experiments/variants.sh --cells > '%s'", env, in_dir("cells.txt")), 0);
    char *cells = test_read_file(in_dir("cells.txt"));
    assert_non_null(cells);
    assert_string_equal(cells, "bar\tarap-gs\nbar\trigid\n");
    free(cells);
    /* a phase before its inputs exist stops, naming the phase that makes them; a bad phase is refused */
    assert_int_equal(test_shell("%s experiments/variants.sh --phase runs '%s' 1 2> '%s'", env, split,
                                in_dir("early.err")),
                     1);
    char *early = test_read_file(in_dir("early.err"));
    assert_non_null(early);
    assert_non_null(strstr(early, "reference-bar.tsv: missing (variants.sh --phase prepare makes it)"));
    free(early);
    assert_int_equal(test_shell("experiments/variants.sh --phase everything '%s' 1 2> /dev/null", split), 64);
    assert_int_equal(test_shell("%s experiments/variants.sh --phase prepare '%s' 2", env, split), 0);
    assert_int_equal(test_shell("%s experiments/variants.sh --phase gather '%s' 1 2> /dev/null", env, split), 1);
    const char *labels[] = { "arap-gs", "rigid" };
    for (int v = 0; v < 2; ++v)
        assert_int_equal(test_shell("VARIANTS_SCENES=bar VARIANTS_ONLY=%s VARIANTS_TIMING_REPEATS=2 IDLE_WAIT=0 "
                                    "experiments/variants.sh --phase runs '%s' 1 2> /dev/null",
                                    labels[v], split),
                         0);
    assert_false(test_shell("test -e '%s/matrix.tsv'", split) == 0); /* no row before gather */
    assert_int_equal(test_shell("%s experiments/variants.sh --phase timed '%s' 1 2> /dev/null", env, split), 0);
    /* the gather runs nothing again: a stopped run kept its message, a finished one its file */
    assert_int_equal(test_shell("ls '%s/runs' | grep -c '^bar-rigid-.*\\.failed$' > '%s'", split,
                                in_dir("failed.txt")),
                     0);
    char *failed = test_read_file(in_dir("failed.txt"));
    assert_non_null(failed);
    assert_true(atoi(failed) >= 1);
    free(failed);
    assert_int_equal(test_shell("%s experiments/variants.sh --phase gather '%s' 2", env, split), 0);
    assert_int_equal(test_shell("tools/compare-matrix.sh '%s/matrix.tsv' '%s/matrix.tsv' > /dev/null", plain, split),
                     0);
    /* and the comparison sees a changed cell: arap-gs's iterations to 1e-2 on the bar */
    assert_int_equal(test_shell("awk -F'\\t' -v OFS='\\t' 'NR == 2 { $7 = $7 + 1 } { print }' '%s/matrix.tsv' > '%s'",
                                split, in_dir("changed.tsv")),
                     0);
    assert_int_equal(test_shell("tools/compare-matrix.sh '%s/matrix.tsv' '%s' > /dev/null 2>&1", plain,
                                in_dir("changed.tsv")),
                     1);
    char path[700];
    snprintf(path, sizeof path, "%s/matrix.tsv", split);
    char *matrix = test_read_file(path);
    assert_non_null(matrix);
    assert_non_null(strstr(matrix, "\nrigid\tbar\t"));
    assert_non_null(strstr(matrix, "\trefused\t"));
    free(matrix);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bench_rounds_go_round_the_variants),
        cmocka_unit_test(test_bench_plan_goes_round_every_line),
        cmocka_unit_test(test_matrix_lists_its_timing_rounds),
        cmocka_unit_test(test_tiny_matrix_has_its_intervals),
        cmocka_unit_test(test_matrix_in_phases_equals_one_go),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
