/* Tests of opsim-report stability (reports/report_stability.c): two runs of a matrix in the
 * variants matrix's shape compared whole, byte for byte: a cell within ±10 %, one just outside,
 * one outside but noisy in both runs (and one noisy in one run only), an own_ms cell outside,
 * empty cells in both, a number against text, a row missing from the second run, a later row
 * replacing an earlier one (written where the later stands); an interval's end
 * (ms_per_frame_lo, own_ms_1e-4_hi), not compared; each scene's ranking by ms_1e-4, the same on
 * one scene and swapped on the other, in the ranks table; the totals on stdout; and the exit
 * status: 0 when everything holds, 1 when not, 65 for a table without the ranking column. */
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
    assert_string_equal(text, "scene\trank_by\tfirst_order\tsecond_order\tverdict\n"
                              "bar\tms_1e-4\ta < b\ta < b\tsame\n"
                              "fall\tms_1e-4\ta < b\tb < a\tdiffers\n");
    free(text);
    text = test_read_file(in_dir("totals.txt"));
    assert_non_null(text);
    assert_string_equal(text, "6 of 18 ms cells outside ±10 % and not noisy in both; 1 of 2 scenes ranked "
                              "otherwise by ms_1e-4\n");
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_runs_compared_cell_by_cell_and_by_ranking),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
