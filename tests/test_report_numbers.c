/* Tests for the sections of opsim-report that the make recipes compute table cells with
 * instead of awk: calc (reports/report_calc.h), series (report_series.h), lookup
 * (report_lookup.h), explicit-spring (report_spring.h), scale-key (report_ini.h) and the
 * convergence study's row and report (report_convergence.h). Each runs bin/opsim-report on
 * small inputs and compares its whole output, byte for byte, with numbers worked out by hand
 * (or, for explicit-spring, with what the awk program it replaces printed); each error case
 * checks the exit status and that nothing was printed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

static char dir[512];

static const char *in_dir(const char *name)
{
    return test_join(dir, name);
}

static int write_file(const char *name, const char *text)
{
    return test_write_text(in_dir(name), text);
}

/* Reference E* = 1 (its last row); the run falls to r = 0.5/9, 0.05/9 ... of E_0 - E* = 9. As
 * opsim converge writes them: a plain header line, the settings in FILE.tsv.meta. */
static const char REFERENCE[] = "k\tseconds\tenergy\n0\t0\t10\n1\t0.1\t2\n2\t0.2\t1\n";
static const char RUN_GOOD[] = "k\tseconds\tenergy\n"
                               "0\t0\t10\n1\t0.001\t1.5\n2\t0.002\t1.05\n3\t0.003\t1.0005\n4\t0.004\t1.000005\n";
static const char RUN_GOOD_META[] = "config = experiments/fig5.ini\nframe = 15 (frames run before)\n"
                                    "h = 0.0111 s (frame_time 0.0333 / substeps 3)\n";
/* RUN_GOOD as `opsim converge --repeats` writes it: each k's time with its interval and noisy
 * flag, its settings in s-timed.tsv.meta (RUN_GOOD_META) */
static const char RUN_TIMED[] = "k\tseconds\tenergy\tseconds_lo\tseconds_hi\tnoisy\n"
                                "0\t0\t10\t0\t0\t0\n1\t0.001\t1.5\t0.0009\t0.0011\t1\n"
                                "2\t0.002\t1.05\t0.0019\t0.00205\t0\n3\t0.003\t1.0005\t0.0029\t0.0031\t0\n"
                                "4\t0.004\t1.000005\t0.0039\t0.0042\t1\n";
/* below 1e-2 at k = 2, then above it again at k = 4: never "stays" below. In the format of
 * before the sidecar ('#' settings above the rows), which is still read. */
/* RUN_TIMED's settings with the own cells of `opsim converge --fixed-point`: 1e-2 of its own x*
 * reached at k = 3 (whose interval is 2.9–3.1 ms), 1e-4 with x* unsettled, 1e-6 never */
static const char RUN_OWN_META[] = "config = experiments/fig5.ini\nframe = 15 (frames run before)\n"
                                   "h = 0.0111 s (frame_time 0.0333 / substeps 3)\n"
                                   "own_fields = 3\t3.000\tx* unsettled\tx* unsettled\t–\t–\n";
static const char RUN_BOUNCE[] = "# config = c.ini\n# frame = 1\n# h = 0.5\n"
                                 "0\t0\t10\n1\t0.001\t1.5\n2\t0.002\t1.05\n3\t0.003\t1.5\n";

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s", test_tmp_path("-report-numbers"));
    if (test_shell("mkdir -p '%s'", dir) != 0)
        return -1;
    return write_file("bad.txt", "1\n1 x\n") || write_file("series.txt", "# a comment\n3 10\n1 20\n\n4 30\n2 40\n") ||
           write_file("bench.csv", "scene,place,per,total_ms\nfig5,substep,scene,1.5\nfig5,substep,body,0.5\n"
                                   "fig5,iteration,scene,2.5\nfig5,iteration,scene,3.5\n") ||
           write_file("config.ini", "; a scene\n[world]\nstiffness = 7\n[body a]\nstiffness = 5e8 ; soft\n"
                                    "[body b]\nmass = 1\n[body c]\nstiffness = 2\n[bodyless]\nstiffness = 3\n") ||
           write_file("s-reference.tsv", REFERENCE) || write_file("s-gs.tsv", RUN_GOOD) ||
           write_file("s-gs.tsv.meta", RUN_GOOD_META) || write_file("s-timed.tsv", RUN_TIMED) ||
           write_file("s-timed.tsv.meta", RUN_GOOD_META) || write_file("s-own.tsv", RUN_TIMED) ||
           write_file("s-own.tsv.meta", RUN_OWN_META) ||
           write_file("s-jacobi.tsv", RUN_BOUNCE) || write_file("s-wrong.tsv", "0\t0\t9\n1\t0\t1.5\n") ||
           write_file("s-rho-gs.txt", "chebyshev_rho = 0.9\nchebyshev_rho_source = power | 20 steps\n");
}

/* Runs `opsim-report ARGS` with its standard output in a file; checks exit status and output. */
static void assert_prints(int status, const char *args, const char *expected)
{
    char out[600];
    snprintf(out, sizeof out, "%s", in_dir("stdout"));
    assert_int_equal(test_shell("bin/opsim-report %s > '%s' 2> /dev/null", args, out), status);
    char *text = test_read_file(out);
    assert_non_null(text);
    assert_string_equal(text, expected);
    free(text);
    remove(out);
}

static void test_calc_computes_as_awk_does(void **state)
{
    (void)state;
    assert_prints(0, "calc '1 / 30'", "0.033333333333333333\n");
    assert_prints(0, "calc '-2^2'", "-4\n");   /* ^ binds tighter than a leading minus */
    assert_prints(0, "calc '2^3^2'", "512\n"); /* and to the right */
    assert_prints(0, "calc --format %.3f '100 * 1 / 8 - 1.5'", "11.000\n");
    assert_prints(0, "calc --format %.4g 'min(2 * pi, 7) + max(-1, abs(-2))'", "8.283\n");
    assert_prints(0, "calc --format %.2f '1e3 * -0.00125'", "-1.25\n");
    assert_prints(0, "calc 'le(10, 10) + 2 * le(10.5, 10) + 4 * le(nan, 10) + 8 * le(-inf, 10)'", "9\n");
    assert_prints(65, "calc '1 / (2 - 2)'", "");
    assert_prints(65, "calc '1 +'", "");
    assert_prints(65, "calc 'foo(1)'", "");
    assert_prints(64, "calc --format %d 1", "");
}

static void test_series_reduces_a_column(void **state)
{
    (void)state;
    char args[1024];
    /* column 1 is 3 1 4 2: the lower median of an even count is the 2nd smallest, 2 */
    snprintf(args, sizeof args, "series --in '%s' --of median --of mean --of spread --of first --of last",
             in_dir("series.txt"));
    assert_prints(0, args, "2\t2.5\t3\t3\t2\n");
    snprintf(args, sizeof args, "series --in '%s' --rows -3: --of median --of min --of at:1 --of at:-1",
             in_dir("series.txt"));
    assert_prints(0, args, "2\t1\t3\t2\n");
    snprintf(args, sizeof args, "series --in '%s' --rows -10: --of sum --rows 2:3", in_dir("series.txt"));
    assert_prints(0, args, "5\n"); /* the last --rows wins: rows 2 and 3, 1 + 4 */
    snprintf(args, sizeof args, "series --in '%s' --column 1+2 --of max --format %%.1f", in_dir("series.txt"));
    assert_prints(0, args, "42.0\n");
    snprintf(args, sizeof args, "series --in '%s' --column last --from-first --rows 2: --of absmax --of sum",
             in_dir("series.txt"));
    assert_prints(0, args, "30\t60\n"); /* 10 20 30 40 less 10: 10 20 30 */
    /* 3 1 4 2: below 3.5 from row 4 on (row 3's 4 is not), below 5 from the first, never below 2 */
    snprintf(args, sizeof args,
             "series --in '%s' --of absmin --of settles-below:3.5 --of settles-below:5 --of settles-below:2",
             in_dir("series.txt"));
    assert_prints(0, args, "1\t4\t1\t0\n");
    snprintf(args, sizeof args, "series --in '%s' --of settles-below:x", in_dir("series.txt"));
    assert_prints(64, args, "");
    snprintf(args, sizeof args, "series --in '%s' --column 3 --of max", in_dir("series.txt"));
    assert_prints(65, args, "");
    snprintf(args, sizeof args, "series --in '%s' --rows 9: --of max", in_dir("series.txt"));
    assert_prints(65, args, "");
    snprintf(args, sizeof args, "series --in '%s' --of mode", in_dir("series.txt"));
    assert_prints(64, args, "");
    assert_prints(65, "series --of max < /dev/null", "");
    snprintf(args, sizeof args, "series --in '%s' --of max", in_dir("bad.txt"));
    assert_prints(65, args, ""); /* bad.txt:2: 'x' is not a number */
}

static void test_lookup_finds_one_row_by_names(void **state)
{
    (void)state;
    char args[1024];
    snprintf(args, sizeof args,
             "lookup --in '%s' --separator , --where scene=fig5 --where place=substep --where per=scene "
             "--column total_ms",
             in_dir("bench.csv"));
    assert_prints(0, args, "1.5\n");
    snprintf(args, sizeof args, "lookup --in '%s' --separator , --where place=iteration --column total_ms",
             in_dir("bench.csv"));
    assert_prints(65, args, ""); /* two rows match */
    snprintf(args, sizeof args, "lookup --in '%s' --separator , --where place=none --column total_ms",
             in_dir("bench.csv"));
    assert_prints(65, args, "");
    snprintf(args, sizeof args, "lookup --in '%s' --separator , --where colour=red --column total_ms",
             in_dir("bench.csv"));
    assert_prints(65, args, "");
    assert_prints(0, "lookup --in data/meshes.tsv --where name=bunny --column up", "y\n");
}

static void test_explicit_spring_matches_the_awk_table(void **state)
{
    (void)state;
    /* the numbers experiments/meshless.mk's awk program printed for these factors */
    assert_prints(0, "explicit-spring --factor 0.1 --steps 60", "0.1\t0.031831\t0.04\t1.00025\n");
    assert_prints(0, "explicit-spring --factor 0.9 --steps 60", "0.9\t0.286479\t1\t1.00973\n");
    assert_prints(0, "explicit-spring --factor 1.1 --steps 60", "1.1\t0.350141\t1\t2.57715e+15\n");
    assert_prints(64, "explicit-spring --factor -1 --steps 60", "");
}

static void test_scale_key_scales_each_typed_section(void **state)
{
    (void)state;
    char args[1024];
    snprintf(args, sizeof args, "scale-key --in '%s' --section body --key stiffness --factor 0.5",
             in_dir("config.ini"));
    assert_prints(0, args, "body a.stiffness=250000000\nbody c.stiffness=1\n");
    snprintf(args, sizeof args, "scale-key --in '%s' --section pin --key stiffness --factor 2", in_dir("config.ini"));
    assert_prints(65, args, "");
}

static void test_convergence_row_finds_where_r_stays_below(void **state)
{
    (void)state;
    char args[1024];
    snprintf(args, sizeof args, "convergence-row --scene s --variant gs --rho - --reference '%s' --run '%s'",
             in_dir("s-reference.tsv"), in_dir("s-gs.tsv"));
    /* r = 0.5/9, 0.05/9 = 5.6e-3, 5.6e-5, 5.6e-7: 1e-2 from k = 2, 1e-4 from 3, 1e-6 from 4 */
    assert_prints(0, args,
                  "s\tgs\t2\t2.000\t3\t3.000\t4\t4.000\t\t5.556e-07\t10\t1\t4\t15\t0.0111\texperiments/fig5.ini"
                  "\t\t\t\t\t\t\t\t\t\n");
    /* with --repeats' interval: each tolerance's ms interval and noisy flag after the config */
    snprintf(args, sizeof args, "convergence-row --scene s --variant gs --rho - --reference '%s' --run '%s'",
             in_dir("s-reference.tsv"), in_dir("s-timed.tsv"));
    assert_prints(0, args,
                  "s\tgs\t2\t2.000\t3\t3.000\t4\t4.000\t\t5.556e-07\t10\t1\t4\t15\t0.0111\texperiments/fig5.ini"
                  "\t1.900\t2.050\t0\t2.900\t3.100\t0\t3.900\t4.200\t1\n");
    snprintf(args, sizeof args, "convergence-row --scene s --variant jacobi --rho 0.9 --reference '%s' --run '%s'",
             in_dir("s-reference.tsv"), in_dir("s-jacobi.tsv"));
    assert_prints(0, args, "s\tjacobi\t\t\t\t\t\t\t0.9\t5.556e-02\t10\t1\t3\t1\t0.5\tc.ini"
                           "\t\t\t\t\t\t\t\t\t\n");
    snprintf(args, sizeof args, "convergence-row --scene s --variant x --rho - --reference '%s' --run '%s'",
             in_dir("s-reference.tsv"), in_dir("s-wrong.tsv"));
    assert_prints(65, args, ""); /* E_0 9 is not the reference's 10 */
}

static void test_convergence_cells_give_the_matrix_its_cells(void **state)
{
    (void)state;
    char args[1024];
    /* the row above, one line, "–" for never, r at --at, and each tolerance's ms interval; no
     * own_fields in the meta: the own intervals "–" */
    snprintf(args, sizeof args, "convergence-cells --reference '%s' --run '%s' --at 1", in_dir("s-reference.tsv"),
             in_dir("s-timed.tsv"));
    assert_prints(0, args,
                  "2\t2.000\t3\t3.000\t4\t4.000\t5.56e-07\t5.56e-02"
                  "\t1.900\t2.050\t0\t2.900\t3.100\t0\t3.900\t4.200\t1\t–\t–\t–\t–\t–\t–\t–\t–\t–\n");
    /* own_ms's interval: row 3's (own_fields' k), not row 2's where r reaches 1e-2; the words kept */
    snprintf(args, sizeof args, "convergence-cells --reference '%s' --run '%s' --at 1", in_dir("s-reference.tsv"),
             in_dir("s-own.tsv"));
    assert_prints(0, args,
                  "2\t2.000\t3\t3.000\t4\t4.000\t5.56e-07\t5.56e-02"
                  "\t1.900\t2.050\t0\t2.900\t3.100\t0\t3.900\t4.200\t1"
                  "\t2.900\t3.100\t0\tx* unsettled\tx* unsettled\tx* unsettled\t–\t–\t–\n");
    snprintf(args, sizeof args, "convergence-cells --reference '%s' --run '%s' --at 1", in_dir("s-reference.tsv"),
             in_dir("s-jacobi.tsv"));
    assert_prints(0, args,
                  "–\t–\t–\t–\t–\t–\t5.56e-02\t5.56e-02\t–\t–\t–\t–\t–\t–\t–\t–\t–"
                  "\t–\t–\t–\t–\t–\t–\t–\t–\t–\n");
    snprintf(args, sizeof args, "convergence-cells --reference '%s' --run '%s' --at 9", in_dir("s-reference.tsv"),
             in_dir("s-jacobi.tsv"));
    assert_prints(64, args, ""); /* no row 9 */
}

static void test_convergence_report_compares_plain_and_chebyshev(void **state)
{
    (void)state;
    const char *table = in_dir("table.tsv");
    assert_int_equal(write_file("table.tsv", "scene\tvariant\n"
                                             "s\tgs\t40\t4.000\t80\t8.000\t\t\t\t1e-05\t10\t1\t300\t15\t0.0111\tf.ini\n"
                                             "s\tgs-chebyshev\t20\t1.000\t40\t4.000\t\t\t0.9\t1e-07\t10\t1\t300\t15\t"
                                             "0.0111\tf.ini\t0.900\t1.100\t1\t3.900\t4.100\t0\t\t\t\n"
                                             "s\tjacobi\t\t\t\t\t\t\t\t0.5\t10\t1\t300\t15\t0.0111\tf.ini\n"),
                     0);
    char out[600], args[2048];
    snprintf(out, sizeof out, "%s", in_dir("convergence.md"));
    snprintf(args, sizeof args,
             "bin/opsim-report convergence-report --table '%s' --reference-iterations 5000 --figure f.png "
             "--rho '%s' --out '%s'",
             table, in_dir("s-rho-gs.txt"), out);
    assert_int_equal(test_shell("%s", args), 0);
    char *text = test_read_file(out);
    assert_non_null(text);
    assert_non_null(strstr(text, "| s | `f.ini` | 15 | 0.0111 | 10 | 1 | 300 |\n"));
    assert_non_null(strstr(text, "| s | Gauss–Seidel | – | 40 | 4.000 | 80 | 8.000 | – | – | 1e-05 |\n"));
    /* a row with the interval columns: each ms with its interval, † when noisy */
    assert_non_null(strstr(text, "| s | Gauss–Seidel + Chebyshev | 0.9 | 20 | 1.000 (0.900–1.100)† | 40 | "
                                 "4.000 (3.900–4.100) | – | – | 1e-07 |\n"));
    assert_non_null(strstr(text, "| s | Gauss–Seidel | 2.00× | 4.00× | 2.00× | 2.00× | – | – |\n"));
    assert_non_null(strstr(text, "| s | Gauss–Seidel | 0.9 | power \\| 20 steps |\n"));
    assert_non_null(strstr(text, "- s, Jacobi: does not reach 1e-2 within 300 iterations; r at the end 0.5.\n"));
    assert_non_null(strstr(text, "E\\* the energy after 5000 Gauss–Seidel iterations"));
    free(text);
}

static void test_convergence_long_has_one_row_per_measure(void **state)
{
    (void)state;
    char args[2048];
    const char *out = in_dir("long.tsv");
    snprintf(args, sizeof args, "convergence-long --reference s='%s' --run s:gs='%s' --out '%s' && cat '%s'",
             in_dir("s-reference.tsv"), in_dir("s-gs.tsv"), out, out);
    /* E* = 1, E_0 = 10: r = (E - 1) / 9 */
    assert_prints(0, args,
                  "variant\tscene\trepetition\titeration\tseconds\tmeasure\tvalue\n"
                  "gs\ts\t1\t0\t0\tenergy_J\t10\n"
                  "gs\ts\t1\t0\t0\trelative_error\t1\n"
                  "gs\ts\t1\t1\t0.001\tenergy_J\t1.5\n"
                  "gs\ts\t1\t1\t0.001\trelative_error\t0.055555555555555552\n"
                  "gs\ts\t1\t2\t0.002\tenergy_J\t1.05\n"
                  "gs\ts\t1\t2\t0.002\trelative_error\t0.0055555555555555601\n"
                  "gs\ts\t1\t3\t0.0030000000000000001\tenergy_J\t1.0004999999999999\n"
                  "gs\ts\t1\t3\t0.0030000000000000001\trelative_error\t5.5555555555549439e-05\n"
                  "gs\ts\t1\t4\t0.0040000000000000001\tenergy_J\t1.000005\n"
                  "gs\ts\t1\t4\t0.0040000000000000001\trelative_error\t5.5555555555919511e-07\n");
    snprintf(args, sizeof args, "convergence-long --run t:gs='%s' --out '%s'", in_dir("s-gs.tsv"), in_dir("none.tsv"));
    assert_prints(64, args, ""); /* no reference for scene t: and no file */
    assert_null(test_read_file(in_dir("none.tsv")));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_calc_computes_as_awk_does),
        cmocka_unit_test(test_series_reduces_a_column),
        cmocka_unit_test(test_lookup_finds_one_row_by_names),
        cmocka_unit_test(test_explicit_spring_matches_the_awk_table),
        cmocka_unit_test(test_scale_key_scales_each_typed_section),
        cmocka_unit_test(test_convergence_row_finds_where_r_stays_below),
        cmocka_unit_test(test_convergence_cells_give_the_matrix_its_cells),
        cmocka_unit_test(test_convergence_report_compares_plain_and_chebyshev),
        cmocka_unit_test(test_convergence_long_has_one_row_per_measure),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
