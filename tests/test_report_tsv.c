/* Tests for the tables opsim-report derives from an experiment TSV (`pivot`, `pick`, `keyed`,
 * `targets`, `tex`, `stiffness`, `long`; reports/report_tsv.c), which experiments/variants.mk and
 * stiffness.mk build their tables with. Small matrices in the variants matrix's shape, with missing cells, a repeated
 * (variant, scene) pair whose later row wins, cells no ratio can be taken of, and the
 * characters LaTeX reserves, and a small stiffness table; each table is compared whole, byte
 * for byte. The expected pivot, keyed, targets and stiffness tables are what the awk
 * programs of the make recipes that these sections replace wrote for the same inputs; the tex
 * table is the paper form of report_tsv.h (tools/test-tex.sh compiles such tables). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

static const char MATRIX[] = "variant\tscene\tms_per_frame\tmax_k\trecovery_s\tnote\n"
                             "arap-gs\tbar\t1.5\t≥1e9\t–\tx_y 5%\n"
                             "arap-gs\tcollapse\t2.5\t\t1.25\tnever & so\n"
                             "arap-jacobi\tfall\t3\t\t\t#1 × 2\n"
                             "arap-jacobi\tbar\t5\t1e8\t–\ta\\b\n"
                             "arap-jacobi\tbar\t6\t2e8\t–\tlater wins\n"
                             "meshless\tbunny\t7\t15\t12\n";

/* Plain and accelerated rows for `targets`: ratios of plain numbers, and an empty ratio where a
 * cell is '–', empty, negative or the divisor 0. Its header in the format of before the tidy tables
 * ("# " first), which every reader still takes. */
static const char TARGETS_MATRIX[] = "# variant\tscene\titerations_1e-4\tms_1e-4\titerations_1e-6\tms_1e-6\n"
                                     "arap-gs\tfall\t40\t12.5\t90\t30.25\n"
                                     "arap-gs-anderson\tfall\t13\t5.0\t–\t–\n"
                                     "arap-jacobi\tfall\t–\t–\t1e3\t3\n"
                                     "arap-jacobi-anderson\tfall\t7\t0\t\t\n"
                                     "arap-gs\tbar\t4\t1.5\t17\t2.333\n"
                                     "arap-lbfgs\tbar\t4\t1.5\t3\t0.7\n"
                                     "arap-lbfgs\tfall\t4\t1.5\t30\t0\n"
                                     "arap-gs\tcollapse\t4\t1.5\t5\t1.\n"
                                     "arap-lbfgs\tcollapse\t4\t1.5\t-2\t.5\n"
                                     "arap-lbfgs\tbunny\t4\t1.5\t8\t2\n";

/* The variants matrix as opsim-report matrix writes it: numbers or empty cells, each word in its
 * status column (convergence_status shared by iterations_1e-4 and r_at_ni, max_k_status) and
 * max_k's bound in max_k_bound. */
static const char STATUS_MATRIX[] =
    "variant\tscene\titerations_1e-4\tr_at_ni\tmax_k\tconvergence_status\tmax_k_status\tmax_k_bound\tnote\n"
    "arap-gs\tbar\t40\t5e-4\t1e11\tok\tok\tge\t\n"
    "arap-gs\tfall\t\t0.02\t\tok\t\t\t\n"
    "rigid\tbar\t\t\t\trefused\trefused\t\trefused: no pins\n"
    "meshless\tfall\t\t2.5\t\tsingle update\t\t\t\n"
    "vbd\tbar\t291\t0.6\t1e9\tok\tok\t\t\n";

/* Two stiffness factors of experiments/stiffness.mk's table.tsv: factor 1's grid deflections
 * 0.25, 0.21, 0.22, 0.2 (mean 0.22, spread 0.05 / 0.22 = 22.7 %), factor 2 without a run at
 * 20 iterations and h = 1/30 s. */
static const char STIFFNESS_TABLE[] =
    "factor\tstiffness\titerations\tframe_time\tsteady_m\tswing_m\tstatic_m\tsteady_over_static\n"
    "1\t500000000\t5\t0.033333333333333333\t0.25\t0.001\t0.2\t1.250000\n"
    "1\t500000000\t20\t0.033333333333333333\t0.21\t0\t0.2\t1.050000\n"
    "1\t500000000\t5\t0.016666666666666666\t0.22\t0.0025\t0.2\t1.100000\n"
    "1\t500000000\t20\t0.016666666666666666\t0.2\t0\t0.2\t1.000000\n"
    "2\t1000000000\t5\t0.033333333333333333\t0.15\t0.0001\t0.1\t1.500000\n"
    "2\t1000000000\t20\t0.016666666666666666\t0.1\t0\t0.1\t1.000000\n";

static char dir[512];

/* DIR/NAME; four calls may be used in one expression. */
static const char *in_dir(const char *name)
{
    return test_join(dir, name);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s", test_tmp_path("-report-tsv"));
    if (test_shell("mkdir -p '%s'", dir) != 0)
        return -1;
    static const char *const files[][2] = { { "matrix.tsv", MATRIX }, { "targets-matrix.tsv", TARGETS_MATRIX },
                                            { "stiffness.tsv", STIFFNESS_TABLE },
                                            { "pull.tsv", "mode\terror\tspread\nrigid\t0.004\t0.002\nlinear\t\tlarge\n" },
                                            { "stick.tsv", "clusters\ttip\n1\t0.05\n2\t0.27\n" },
                                            { "status-matrix.tsv", STATUS_MATRIX } };
    for (int i = 0; i < 6; ++i) {
        FILE *f = fopen(in_dir(files[i][0]), "w");
        if (!f)
            return -1;
        fputs(files[i][1], f);
        if (fclose(f) != 0)
            return -1;
    }
    return 0;
}

/* Runs `opsim-report ARGS --out DIR/out` and checks the file it wrote. */
static void assert_writes(const char *args, const char *expected)
{
    char out[600];
    snprintf(out, sizeof out, "%s", in_dir("out"));
    assert_int_equal(test_shell("bin/opsim-report %s --out '%s'", args, out), 0);
    char *text = test_read_file(out);
    assert_non_null(text);
    assert_string_equal(text, expected);
    free(text);
    remove(out);
}

static void test_pivot_puts_each_scene_in_a_column(void **state)
{
    (void)state;
    char args[2048];
    snprintf(args, sizeof args, "pivot --in '%s' --column ms_per_frame --keys 'bar collapse fall bunny'",
             in_dir("matrix.tsv"));
    assert_writes(args, "variant\tbar\tcollapse\tfall\tbunny\n"
                        "arap-gs\t1.5\t2.5\t\t\n"
                        "arap-jacobi\t6\t\t3\t\n"
                        "meshless\t\t\t\t7\n");
}

static void test_pick_joins_cells_of_two_scenes(void **state)
{
    (void)state;
    char args[2048];
    snprintf(args, sizeof args, "pick --in '%s' --column bar:max_k --column collapse:recovery_s --column bunny:note",
             in_dir("matrix.tsv"));
    assert_writes(args, "variant\tmax_k\trecovery_s\tnote\n"
                        "arap-gs\t≥1e9\t1.25\t\n"
                        "arap-jacobi\t2e8\t\t\n"
                        "meshless\t\t\t\n");
}

static void test_keyed_names_each_row_by_both_keys(void **state)
{
    (void)state;
    char args[2048];
    snprintf(args, sizeof args, "keyed --in '%s'", in_dir("matrix.tsv"));
    assert_writes(args, "case\tvariant\tscene\tms_per_frame\tmax_k\trecovery_s\tnote\n"
                        "arap-gs:bar\tarap-gs\tbar\t1.5\t≥1e9\t–\tx_y 5%\n"
                        "arap-gs:collapse\tarap-gs\tcollapse\t2.5\t\t1.25\tnever & so\n"
                        "arap-jacobi:fall\tarap-jacobi\tfall\t3\t\t\t#1 × 2\n"
                        "arap-jacobi:bar\tarap-jacobi\tbar\t5\t1e8\t–\ta\\b\n"
                        "arap-jacobi:bar\tarap-jacobi\tbar\t6\t2e8\t–\tlater wins\n"
                        "meshless:bunny\tmeshless\tbunny\t7\t15\t12\n");
}

static void test_targets_compare_plain_with_accelerated(void **state)
{
    (void)state;
    char args[2048];
    snprintf(args, sizeof args,
             "targets --in '%s' --target anderson-gs-fall-1e-4:arap-gs:arap-gs-anderson:fall:1e-4 "
             "--target anderson-jacobi-fall-1e-4:arap-jacobi:arap-jacobi-anderson:fall:1e-4 "
             "--target lbfgs-bar-1e-6:arap-gs:arap-lbfgs:bar:1e-6 --target lbfgs-collapse-1e-6:arap-gs:arap-lbfgs:collapse:1e-6 "
             "--target lbfgs-fall-1e-6:arap-gs:arap-lbfgs:fall:1e-6 --target lbfgs-bunny-1e-6:arap-gs:arap-lbfgs:bunny:1e-6",
             in_dir("targets-matrix.tsv"));
    assert_writes(args, "target\tplain_iterations\taccelerated_iterations\titeration_ratio\tplain_ms\t"
                        "accelerated_ms\tms_ratio\n"
                        "anderson-gs-fall-1e-4\t40\t13\t3.08\t12.5\t5.0\t2.50\n"
                        "anderson-jacobi-fall-1e-4\t–\t7\t\t–\t0\t\n"
                        "lbfgs-bar-1e-6\t17\t3\t5.67\t2.333\t0.7\t3.33\n"
                        "lbfgs-collapse-1e-6\t5\t-2\t\t1.\t.5\t2.00\n"
                        "lbfgs-fall-1e-6\t90\t30\t3.00\t30.25\t0\t\n"
                        "lbfgs-bunny-1e-6\t\t8\t\t\t2\t\n");
}

static void test_tex_aligns_numbers_and_escapes_words(void **state)
{
    (void)state;
    char args[2048];
    snprintf(args, sizeof args, "tex --in '%s' --source data/results/variants/m.tsv", in_dir("matrix.tsv"));
    /* ms_per_frame and recovery_s are numbers (S columns, sized from their cells), max_k has
     * more numbers than words ("≥1e9" a bound, set as \num), scene and note are words; no word
     * in a number column, so no key under the table */
    assert_writes(args, "% generated by make variants from data/results/variants/m.tsv; do not edit\n"
                        "% needs \\usepackage{booktabs,siunitx}; about 316 pt wide: wider than a column, set it "
                        "in a table* (both columns)\n"
                        "\\begingroup\\setlength{\\tabcolsep}{3.5pt}\n"
                        "\\begin{tabular}{@{}llS[table-format=1.1]S[table-format=2e1]S[table-format=2.2]l@{}}\n"
                        "\\toprule\n"
                        "variant & scene & {ms per frame} & {max k} & {recovery (s)} & note \\\\\n"
                        "\\midrule\n"
                        "arap-gs & bar & 1.5 & {$\\geq$\\num{1e9}} & {--} & x\\_y 5\\% \\\\\n"
                        "arap-gs & collapse & 2.5 &  & 1.25 & never \\& so \\\\\n"
                        "arap-jacobi & fall & 3 &  &  & \\#1 $\\times$ 2 \\\\\n"
                        "arap-jacobi & bar & 5 & 1e8 & {--} & a\\textbackslash{}b \\\\\n"
                        "arap-jacobi & bar & 6 & 2e8 & {--} & later wins \\\\\n"
                        "meshless & bunny & 7 & 15 & 12 &  \\\\\n"
                        "\\bottomrule\n"
                        "\\end{tabular}\n"
                        "\\endgroup\n");
}

/* Words in number columns become letters, the same word the same letter in every column, in
 * order of first appearance, and the key under the table names them; a table this narrow is
 * marked for one column. */
static void test_tex_sets_words_in_number_columns_as_keyed_letters(void **state)
{
    (void)state;
    FILE *f = fopen(in_dir("words.tsv"), "w");
    assert_non_null(f);
    fputs("# variant\tbar\tfall\n"
          "rigid\trefused\t0.5\n"
          "meshless\tsingle update\tsingle update\n"
          "arap\t12.25\trefused\n"
          "vbd\t–\t≤3\n"
          "xpbd\t3.5\t1.25\n"
          "springs\t4\t2\n",
          f);
    assert_int_equal(fclose(f), 0);
    char args[2048];
    snprintf(args, sizeof args, "tex --in '%s' --source w.tsv", in_dir("words.tsv"));
    assert_writes(args, "% generated by make variants from w.tsv; do not edit\n"
                        "% needs \\usepackage{booktabs,siunitx}; about 91 pt wide: fits one column of a two-column page\n"
                        "\\begingroup\\setlength{\\tabcolsep}{3.5pt}\n"
                        "\\begin{tabular}{@{}lS[table-format=2.2]S[table-format=1.2]@{}}\n"
                        "\\toprule\n"
                        "variant & {bar} & {fall} \\\\\n"
                        "\\midrule\n"
                        "rigid & {\\emph{a}} & 0.5 \\\\\n"
                        "meshless & {\\emph{b}} & {\\emph{b}} \\\\\n"
                        "arap & 12.25 & {\\emph{a}} \\\\\n"
                        "vbd & {--} & {$\\leq$\\num{3}} \\\\\n"
                        "xpbd & 3.5 & 1.25 \\\\\n"
                        "springs & 4 & 2 \\\\\n"
                        "\\bottomrule\n"
                        "\\multicolumn{3}{@{}l}{\\footnotesize \\emph{a}: refused} \\\\\n"
                        "\\multicolumn{3}{@{}l}{\\footnotesize \\emph{b}: single update} \\\\\n"
                        "\\end{tabular}\n"
                        "\\endgroup\n");
}

/* long: a row per number cell, keyed; words and empty cells make none, a replaced row neither */
static void test_long_has_one_row_per_number(void **state)
{
    (void)state;
    char args[2048];
    snprintf(args, sizeof args, "long --in '%s' --keys 'variant scene'", in_dir("matrix.tsv"));
    assert_writes(args, "variant\tscene\tmeasure\tvalue\n"
                        "arap-gs\tbar\tms_per_frame\t1.5\n"
                        "arap-gs\tcollapse\tms_per_frame\t2.5\n"
                        "arap-gs\tcollapse\trecovery_s\t1.25\n"
                        "arap-jacobi\tfall\tms_per_frame\t3\n"
                        "arap-jacobi\tbar\tms_per_frame\t6\n"
                        "arap-jacobi\tbar\tmax_k\t2e8\n"
                        "meshless\tbunny\tms_per_frame\t7\n"
                        "meshless\tbunny\tmax_k\t15\n"
                        "meshless\tbunny\trecovery_s\t12\n");
    /* several tables: keyed by the table and its first column's name and cell */
    snprintf(args, sizeof args, "long --in '%s' --in '%s'", in_dir("pull.tsv"), in_dir("stick.tsv"));
    assert_writes(args, "table\tcase\tmeasure\tvalue\n"
                        "pull\tmode=rigid\terror\t0.004\n"
                        "pull\tmode=rigid\tspread\t0.002\n"
                        "stick\tclusters=1\ttip\t0.05\n"
                        "stick\tclusters=2\ttip\t0.27\n");
}

/* A column's status and bound columns go with it: pivot writes KEY_status (and KEY_bound) after
 * the keys' cells, pick COLUMN_status and COLUMN_bound after the picks, pivot-interval the
 * status word itself (a text table for the report). */
static void test_pivot_and_pick_carry_status_and_bound(void **state)
{
    (void)state;
    char args[2048];
    snprintf(args, sizeof args, "pivot --in '%s' --column iterations_1e-4 --keys 'bar fall'",
             in_dir("status-matrix.tsv"));
    assert_writes(args, "variant\tbar\tfall\tbar_status\tfall_status\n"
                        "arap-gs\t40\t\tok\tok\n"
                        "rigid\t\t\trefused\t\n"
                        "meshless\t\t\t\tsingle update\n"
                        "vbd\t291\t\tok\t\n");
    snprintf(args, sizeof args, "pivot --in '%s' --column max_k --keys bar", in_dir("status-matrix.tsv"));
    assert_writes(args, "variant\tbar\tbar_status\tbar_bound\n"
                        "arap-gs\t1e11\tok\tge\n"
                        "rigid\t\trefused\t\n"
                        "meshless\t\t\t\n"
                        "vbd\t1e9\tok\t\n");
    snprintf(args, sizeof args, "pick --in '%s' --column bar:max_k --column fall:r_at_ni --column bar:note",
             in_dir("status-matrix.tsv"));
    assert_writes(args, "variant\tmax_k\tr_at_ni\tnote\tmax_k_status\tmax_k_bound\tr_at_ni_status\n"
                        "arap-gs\t1e11\t0.02\t\tok\tge\tok\n"
                        "rigid\t\t\trefused: no pins\trefused\t\t\n"
                        "meshless\t\t2.5\t\t\t\tsingle update\n"
                        "vbd\t1e9\t\t\tok\t\t\n");
    FILE *f = fopen(in_dir("timed.tsv"), "w");
    assert_non_null(f);
    fputs("variant\tscene\tms_per_frame\tms_per_frame_lo\tms_per_frame_hi\tms_per_frame_noisy\ttiming_status\n"
          "arap-gs\tbar\t1.5\t1.4\t1.6\t0\tok\n"
          "rigid\tbar\t\t\t\t\trefused\n",
          f);
    assert_int_equal(fclose(f), 0);
    snprintf(args, sizeof args, "pivot-interval --in '%s' --column ms_per_frame --keys 'bar fall'",
             in_dir("timed.tsv"));
    assert_writes(args, "variant\tbar\tfall\n"
                        "arap-gs\t1.5 (1.4–1.6)\t\n"
                        "rigid\trefused\t\n");
}

/* tex reads a table as a person would: the status words in the cells they explain (as letters
 * keyed under the table), '–' where a tolerance was never reached ("ok"), the bound's sign before
 * its number, and no status or bound column of its own. */
static void test_tex_folds_status_and_bound_columns_into_cells(void **state)
{
    (void)state;
    FILE *f = fopen(in_dir("pivot-status.tsv"), "w");
    assert_non_null(f);
    fputs("variant\tbar\tfall\tbar_status\tfall_status\tbar_bound\tfall_bound\n"
          "arap-gs\t40\t\tok\tok\tge\t\n"
          "rigid\t\t\trefused\t\t\t\n"
          "meshless\t\t12\t\tsingle update\t\t\n",
          f);
    assert_int_equal(fclose(f), 0);
    char args[2048];
    snprintf(args, sizeof args, "tex --in '%s' --source p.tsv", in_dir("pivot-status.tsv"));
    assert_writes(args, "% generated by make variants from p.tsv; do not edit\n"
                        "% needs \\usepackage{booktabs,siunitx}; about 87 pt wide: fits one column of a "
                        "two-column page\n"
                        "\\begingroup\\setlength{\\tabcolsep}{3.5pt}\n"
                        "\\begin{tabular}{@{}lS[table-format=2]S[table-format=2]@{}}\n"
                        "\\toprule\n"
                        "variant & {bar} & {fall} \\\\\n"
                        "\\midrule\n"
                        "arap-gs & {$\\geq$\\num{40}} & {--} \\\\\n"
                        "rigid & {\\emph{a}} & {--} \\\\\n"
                        "meshless & {--} & 12 \\\\\n"
                        "\\bottomrule\n"
                        "\\multicolumn{3}{@{}l}{\\footnotesize \\emph{a}: refused} \\\\\n"
                        "\\end{tabular}\n"
                        "\\endgroup\n");
}

static void test_stiffness_summarises_each_factor(void **state)
{
    (void)state;
    char args[2048];
    snprintf(args, sizeof args, "stiffness --in '%s' --iterations '5 20 50' --grid '5 20'", in_dir("stiffness.tsv"));
    assert_writes(args, "factor\tk\tit_5\tit_20\tit_50\tgrid_spread_pct\tgrid_min\tgrid_max\tlargest_swing_mm\n"
                        "1\t5e+08\t1.250\t1.050\t0.000\t22.7\t1.000\t1.250\t2.5\n"
                        "2\t1e+09\t1.500\t0.000\t0.000\t40.0\t1.000\t1.500\t0.1\n");
}

static void test_unknown_column_fails_naming_file_and_writes_nothing(void **state)
{
    (void)state;
    char command[4096];
    snprintf(command, sizeof command,
             "bin/opsim-report pivot --in '%s' --column ms_per_second --keys bar --out '%s' 2> '%s'",
             in_dir("matrix.tsv"), in_dir("out"), in_dir("err"));
    assert_int_equal(test_shell("%s", command), 65);
    char *err = test_read_file(in_dir("err"));
    assert_non_null(err);
    char expected[2048];
    snprintf(expected, sizeof expected, "opsim-report: %s:1: no column 'ms_per_second' in the header\n",
             in_dir("matrix.tsv"));
    assert_string_equal(err, expected);
    free(err);
    assert_null(test_read_file(in_dir("out")));
}

static void test_missing_option_is_usage(void **state)
{
    (void)state;
    assert_int_equal(test_shell("bin/opsim-report pivot --in '%s' --keys bar --out '%s' 2> /dev/null",
                                in_dir("matrix.tsv"), in_dir("out")),
                     64);
    assert_int_equal(test_shell("bin/opsim-report tex --in '%s' --out '%s' 2> /dev/null", in_dir("matrix.tsv"),
                                in_dir("out")),
                     64);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pivot_puts_each_scene_in_a_column),
        cmocka_unit_test(test_pick_joins_cells_of_two_scenes),
        cmocka_unit_test(test_keyed_names_each_row_by_both_keys),
        cmocka_unit_test(test_targets_compare_plain_with_accelerated),
        cmocka_unit_test(test_tex_aligns_numbers_and_escapes_words),
        cmocka_unit_test(test_long_has_one_row_per_number),
        cmocka_unit_test(test_tex_sets_words_in_number_columns_as_keyed_letters),
        cmocka_unit_test(test_pivot_and_pick_carry_status_and_bound),
        cmocka_unit_test(test_tex_folds_status_and_bound_columns_into_cells),
        cmocka_unit_test(test_stiffness_summarises_each_factor),
        cmocka_unit_test(test_unknown_column_fails_naming_file_and_writes_nothing),
        cmocka_unit_test(test_missing_option_is_usage),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
