/* Tests of opsim-report stability (reports/report_stability.c): two runs of a matrix in the
 * variants matrix's shape compared whole, byte for byte: a cell within ±10 %, one just outside,
 * one outside but noisy in both runs (and one noisy in one run only), an own_ms cell outside,
 * empty cells in both, a number against text, a row missing from the second run, a later row
 * replacing an earlier one (written where the later stands); an interval's end
 * (ms_per_frame_lo, own_ms_1e-4_hi), not compared; each scene's ranking by ms_1e-4, the same on
 * one scene and swapped on the other, in the ranks table; the totals on stdout; and the exit
 * status: 0 when everything holds, 1 when not, 65 for a table without the ranking column.
 * Then the rankings by their intervals (ms_1e-4_lo, ms_1e-4_hi): a pair reversed while its
 * intervals overlap in one run (not significant), one reversed with disjoint intervals in both
 * (significant), one disjoint in the first run only; a scene whose strict order differs only
 * within intervals passes; and the machine probe's median ratio printed beside the scenes'. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

static const char FIRST[] = "variant\tscene\tms_per_frame\tms_per_frame_lo\tms_1e-4\tms_1e-4_noisy\titerations_1e-4\t"
                            "own_ms_1e-4\town_ms_1e-4_hi\n"
                            "a\tbar\t1.00\t0.50\t10\t0\t5\t20\t21\n"
                            "b\tbar\t2.00\t0.50\t20\t1\t6\t40\t41\n"
                            "c\tbar\t3.00\t0.50\t\t0\t\t\t\n"
                            "a\tfall\t1.00\t0.50\t10\t1\t7\t20\t21\n"
                            "b\tfall\t9.00\t0.50\t11\t0\t8\t20\t21\n"
                            "b\tfall\t1.00\t0.50\t11\t0\t8\t20\t21\n"
                            "d\tfall\t1.00\t0.50\t12\t0\t9\t20\t21\n";
/* a:bar +10 % (in), own_ms +15 % (out), b:bar +50 % noisy in both, c:bar empty in both; a:fall −20 % noisy in the first
 * run only, b:fall 1 → failed, d:fall missing; bar's order a < b both times, fall's a < b in the
 * first and b < a in the second. FIRST has the tidy format's plain header, SECOND the "# " of
 * before it. */
static const char SECOND[] = "# variant\tscene\tms_per_frame\tms_per_frame_lo\tms_1e-4\tms_1e-4_noisy\titerations_1e-4\t"
                             "own_ms_1e-4\town_ms_1e-4_hi\n"
                             "a\tbar\t1.10\t9.00\t10.5\t0\t5\t23\t99\n"
                             "b\tbar\t2.00\t9.00\t30\t1\t6\t40\t99\n"
                             "c\tbar\t3.30\t9.00\t\t0\t\t\t99\n"
                             "a\tfall\t1.00\t9.00\t12\t0\t7\t20\t99\n"
                             "b\tfall\tfailed\t9.00\t11.5\t0\t8\t20\t99\n";

static char dir[512];

static const char *in_dir(const char *name)
{
    return test_join(dir, name);
}

static int write_text(const char *name, const char *text)
{
    return test_write_text(in_dir(name), text);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s", test_tmp_path("-report-stability"));
    if (test_shell("mkdir -p '%s'", dir) != 0)
        return -1;
    return write_text("first.tsv", FIRST) || write_text("second.tsv", SECOND) ||
           write_text("ranked.tsv", "# variant\tscene\tms_per_frame\n");
}

static void test_two_runs_compared_cell_by_cell_and_by_ranking(void **state)
{
    (void)state;
    assert_int_equal(test_shell("bin/opsim-report stability --in '%s' --against '%s' --out '%s' > '%s'",
                                in_dir("first.tsv"), in_dir("second.tsv"), in_dir("out.tsv"), in_dir("totals.txt")),
                     1);
    char *text = test_read_file(in_dir("out.tsv"));
    assert_non_null(text);
    assert_string_equal(text, "variant\tscene\tcolumn\tfirst\tsecond\tchange_pct\tverdict\n"
                              "a\tbar\tms_per_frame\t1.00\t1.10\t10.0\tstable\n"
                              "a\tbar\tms_1e-4\t10\t10.5\t5.0\tstable\n"
                              "a\tbar\town_ms_1e-4\t20\t23\t15.0\tdiffers\n"
                              "b\tbar\tms_per_frame\t2.00\t2.00\t0.0\tstable\n"
                              "b\tbar\tms_1e-4\t20\t30\t50.0\tnoisy\n"
                              "b\tbar\town_ms_1e-4\t40\t40\t0.0\tstable\n"
                              "c\tbar\tms_per_frame\t3.00\t3.30\t10.0\tstable\n"
                              "c\tbar\tms_1e-4\t\t\t\tstable\n"
                              "c\tbar\town_ms_1e-4\t\t\t\tstable\n"
                              "a\tfall\tms_per_frame\t1.00\t1.00\t0.0\tstable\n"
                              "a\tfall\tms_1e-4\t10\t12\t20.0\tdiffers\n"
                              "a\tfall\town_ms_1e-4\t20\t20\t0.0\tstable\n"
                              "b\tfall\tms_per_frame\t1.00\t\t\tdiffers\n"
                              "b\tfall\tms_1e-4\t11\t11.5\t4.5\tstable\n"
                              "b\tfall\town_ms_1e-4\t20\t20\t0.0\tstable\n"
                              "d\tfall\tms_per_frame\t1.00\t\t\tmissing\n"
                              "d\tfall\tms_1e-4\t12\t\t\tmissing\n"
                              "d\tfall\town_ms_1e-4\t20\t\t\tmissing\n");
    free(text);
    text = test_read_file(in_dir("out-ranks.tsv"));
    assert_non_null(text);
    /* no interval columns: each value is its own interval, so any reversal is significant; bar's
     * ratios 1.1 1.05 1.15 1.0 1.5 1.0 1.1 have the median 1.1, fall's 1.0 1.2 1.0 1.045 1.0 1.0 */
    assert_string_equal(text, "scene\trank_by\tfirst_order\tsecond_order\torder\tcells_ratio\treversals\t"
                              "significant_reversals\tverdict\tsignificant_pairs\n"
                              "bar\tms_1e-4\ta < b\ta < b\tsame\t1.100\t0\t0\tsame\t\n"
                              "fall\tms_1e-4\ta < b\tb < a\tdiffers\t1.000\t1\t1\treversed\ta/b\n");
    free(text);
    text = test_read_file(in_dir("totals.txt"));
    assert_non_null(text);
    assert_string_equal(text, "6 of 18 ms cells outside ±10 % and not noisy in both; 1 of 2 scenes ranked "
                              "otherwise by ms_1e-4, 1 significant reversal of 1 reversed pair, on 1 scene\n"
                              "second / first, the median over each scene's ms cells: bar 1.100, fall 1.000\n");
    free(text);
    /* a run against itself: stable */
    assert_int_equal(test_shell("bin/opsim-report stability --in '%s' --against '%s' --out '%s' > /dev/null",
                                in_dir("first.tsv"), in_dir("first.tsv"), in_dir("self.tsv")),
                     0);
    /* no column to rank by: an error naming it, nothing written */
    assert_int_equal(test_shell("bin/opsim-report stability --in '%s' --against '%s' --out '%s' 2> /dev/null",
                                in_dir("ranked.tsv"), in_dir("first.tsv"), in_dir("bad.tsv")),
                     65);
    assert_int_not_equal(test_shell("test -e '%s'", in_dir("bad.tsv")), 0);
    assert_int_not_equal(test_shell("test -e '%s'", in_dir("bad-ranks.tsv")), 0);
}

/* fall: p/q reversed, their intervals overlapping in the first run; r/s reversed, disjoint in
 * both; r/t reversed, disjoint in the first and overlapping in the second; t/s kept. bar: u/v
 * reversed within overlapping intervals in both runs. */
static const char INTERVALS_FIRST[] = "variant\tscene\tms_1e-4\tms_1e-4_lo\tms_1e-4_hi\n"
                                      "u\tbar\t1.0\t0.9\t1.1\n"
                                      "v\tbar\t1.05\t0.95\t1.2\n"
                                      "p\tfall\t10\t9\t11\n"
                                      "q\tfall\t12\t10.5\t13\n"
                                      "r\tfall\t20\t19\t21\n"
                                      "s\tfall\t30\t29\t31\n"
                                      "t\tfall\t40\t39\t41\n";
static const char INTERVALS_SECOND[] = "variant\tscene\tms_1e-4\tms_1e-4_lo\tms_1e-4_hi\n"
                                       "u\tbar\t1.02\t0.97\t1.1\n"
                                       "v\tbar\t1.0\t0.9\t1.1\n"
                                       "p\tfall\t11\t10.8\t12\n"
                                       "q\tfall\t10\t9.5\t10.5\n"
                                       "r\tfall\t25\t24\t26\n"
                                       "s\tfall\t18\t17\t19\n"
                                       "t\tfall\t24\t23.5\t25.5\n";

static void test_rankings_judged_by_their_intervals_beside_the_probe(void **state)
{
    (void)state;
    assert_int_equal(write_text("i1.tsv", INTERVALS_FIRST), 0);
    assert_int_equal(write_text("i2.tsv", INTERVALS_SECOND), 0);
    assert_int_equal(write_text("probe1.tsv", "phase\tround\tprobe_ms\nframes\t1\t0.50\nframes\t2\t0.70\n"
                                              "frames\t3\t0.52\n"),
                     0);
    assert_int_equal(write_text("probe2.tsv", "phase\tround\tprobe_ms\nframes\t1\t0.60\nframes\t2\t0.61\n"
                                              "converge\t1\t0.90\nconverge\t2\t0.62\n"),
                     0);
    /* (test_join's paths last four calls: the longer commands name the directory instead) */
    assert_int_equal(test_shell("bin/opsim-report stability --in '%s/i1.tsv' --against '%s/i2.tsv' --probe "
                                "'%s/probe1.tsv' --probe-against '%s/probe2.tsv' --out '%s/i.tsv' > '%s/i-totals.txt'",
                                dir, dir, dir, dir, dir, dir),
                     1);
    char *text = test_read_file(in_dir("i-ranks.tsv"));
    assert_non_null(text);
    /* bar's ratios 1.02 and 0.952: median 0.986; fall's 1.1 0.833 1.25 0.6 0.6: 0.833 */
    assert_string_equal(text, "scene\trank_by\tfirst_order\tsecond_order\torder\tcells_ratio\treversals\t"
                              "significant_reversals\tverdict\tsignificant_pairs\n"
                              "bar\tms_1e-4\tu < v\tv < u\tdiffers\t0.986\t1\t0\tsame within intervals\t\n"
                              "fall\tms_1e-4\tp < q < r < s < t\tq < p < s < t < r\tdiffers\t0.833\t3\t1\treversed\t"
                              "r/s\n");
    free(text);
    /* the probes' medians 0.52 and 0.615 (an even count: the middle two's mean) */
    text = test_read_file(in_dir("i-totals.txt"));
    assert_non_null(text);
    assert_string_equal(text, "4 of 7 ms cells outside ±10 % and not noisy in both; 2 of 2 scenes ranked otherwise "
                              "by ms_1e-4, 1 significant reversal of 4 reversed pairs, on 1 scene\n"
                              "second / first, the median over each scene's ms cells: bar 0.986, fall 0.833; the "
                              "machine probe 1.183 (median 0.5200 ms, then 0.6150 ms)\n");
    free(text);
    /* bar alone: its strict order differs, but only within the intervals: stable */
    assert_int_equal(test_shell("head -3 '%s' > '%s' && head -3 '%s' > '%s'", in_dir("i1.tsv"), in_dir("b1.tsv"),
                                in_dir("i2.tsv"), in_dir("b2.tsv")),
                     0);
    assert_int_equal(test_shell("bin/opsim-report stability --in '%s' --against '%s' --out '%s' > /dev/null",
                                in_dir("b1.tsv"), in_dir("b2.tsv"), in_dir("b.tsv")),
                     0);
    /* a probe table without probe_ms: an error naming it, nothing written */
    assert_int_equal(test_shell("bin/opsim-report stability --in '%s/b1.tsv' --against '%s/b2.tsv' --probe "
                                "'%s/probe1.tsv' --probe-against '%s/b1.tsv' --out '%s/nop.tsv' 2> /dev/null",
                                dir, dir, dir, dir, dir),
                     65);
    assert_int_not_equal(test_shell("test -e '%s'", in_dir("nop.tsv")), 0);
    /* one probe without the other: a usage error */
    assert_int_equal(test_shell("bin/opsim-report stability --in '%s' --against '%s' --probe '%s' --out '%s' "
                                "2> /dev/null",
                                in_dir("b1.tsv"), in_dir("b2.tsv"), in_dir("probe1.tsv"), in_dir("nop.tsv")),
                     64);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_runs_compared_cell_by_cell_and_by_ranking),
        cmocka_unit_test(test_rankings_judged_by_their_intervals_beside_the_probe),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
