/* The tidy table format (docs/results.md) of what the table writers write: `opsim converge`
 * (and its FILE.tsv.meta), `opsim spring-curves`, opsim-report's convergence-row,
 * convergence-long, pivot, pick, keyed, targets, stiffness and long on small inputs, and the
 * repository's reports/paper_table1.tsv, and the variants matrix made from its gathered cells
 * (opsim-report matrix) with what is derived from it. Each table is parsed here as pandas' read_csv(sep='\t')
 * would with its defaults (CI has no pandas): one plain header line naming distinct columns,
 * every row as many cells, no '#' line, a missing value an empty cell (or NA), never '-', '–'
 * or '—', and a column with a number in it holding only numbers and missing values. The check
 * itself is shown to catch each broken rule, and no make recipe may write a '# ' header. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

enum { MAX_COLUMNS = 64 };

static char dir[512];

static const char *in_dir(const char *name)
{
    return test_join(dir, name);
}

static int write_text(const char *name, const char *text)
{
    return test_write_text(in_dir(name), text);
}

static int is_number(const char *cell)
{
    char *end;
    strtod(cell, &end);
    return *cell && *end == '\0';
}

static int is_missing(const char *cell)
{
    return !*cell || strcmp(cell, "NA") == 0;
}

static int is_dash(const char *cell)
{
    return strcmp(cell, "-") == 0 || strcmp(cell, "–") == 0 || strcmp(cell, "—") == 0;
}

/* Splits `line` in place at its tabs into cell[]; returns the count (MAX_COLUMNS + 1: too many). */
static int split(char *line, char **cell)
{
    int count = 0;
    for (char *c = line; c; ++count) {
        if (count == MAX_COLUMNS)
            return MAX_COLUMNS + 1;
        cell[count] = c;
        c = strchr(c, '\t');
        if (c)
            *c++ = '\0';
    }
    return count;
}

/* NULL when the table at `path` follows the format; else the first broken rule, with its line. */
static const char *table_problem(const char *path)
{
    static char problem[512];
    char *text = test_read_file(path);
    if (!text)
        return snprintf(problem, sizeof problem, "%s: cannot read", path), problem;
    char *names[MAX_COLUMNS], *cells[MAX_COLUMNS];
    int numbers[MAX_COLUMNS] = { 0 }, words[MAX_COLUMNS] = { 0 }, rows = 0, columns = 0;
    *problem = '\0';
    char *line = text;
    for (int number = 1; line && *line && !*problem; ++number) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (*line == '#')
            snprintf(problem, sizeof problem, "%s:%d: a '#' line", path, number);
        else if (number == 1) {
            columns = split(line, names);
            for (int c = 0; c < columns && !*problem; ++c)
                for (int d = 0; d < c; ++d)
                    if (!*names[c] || strcmp(names[c], names[d]) == 0)
                        snprintf(problem, sizeof problem, "%s:1: column %d unnamed or named twice", path, c + 1);
        } else if (split(line, cells) != columns)
            snprintf(problem, sizeof problem, "%s:%d: not %d cells", path, number, columns);
        else {
            for (int c = 0; c < columns; ++c) {
                numbers[c] += is_number(cells[c]);
                words[c] += !is_number(cells[c]) && !is_missing(cells[c]);
                if (is_dash(cells[c]))
                    snprintf(problem, sizeof problem, "%s:%d: '%s' for a missing value", path, number, cells[c]);
            }
            rows++;
        }
        line = next;
    }
    for (int c = 0; c < columns && !*problem; ++c)
        if (numbers[c] > 0 && words[c] > 0)
            snprintf(problem, sizeof problem, "%s: column '%s' holds numbers and %d words", path, names[c], words[c]);
    if (!*problem && (columns == 0 || rows == 0))
        snprintf(problem, sizeof problem, "%s: no header or no rows", path);
    free(text);
    return *problem ? problem : NULL;
}

static void assert_tidy(const char *path)
{
    const char *problem = table_problem(path);
    if (problem)
        fail_msg("%s", problem);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s", test_tmp_path("-tables"));
    return test_shell("mkdir -p '%s'", dir);
}

static int teardown(void **state)
{
    (void)state;
    return test_shell("rm -rf '%s'", dir);
}

/* The check catches each broken rule of the tables of before the tidy format. */
static void test_check_catches_each_broken_rule(void **state)
{
    (void)state;
    static const char *const broken[] = {
        "# variant\tms\na\t1\n",              /* a commented header */
        "variant\tms\n# made by x\na\t1\n",   /* a '#' line below it */
        "variant\tms\na\t1\t2\n",             /* a row longer than the header */
        "variant\tms\na\t1\nb\t–\n",          /* a dash for a missing value */
        "variant\tms\na\t1\nb\trefused\n",    /* a word in a number column */
        "variant\tvariant\na\tb\n",           /* a name twice */
    };
    for (size_t b = 0; b < sizeof broken / sizeof broken[0]; ++b) {
        assert_int_equal(write_text("broken.tsv", broken[b]), 0);
        if (!table_problem(in_dir("broken.tsv")))
            fail_msg("no problem found in \"%s\"", broken[b]);
    }
    assert_int_equal(write_text("fine.tsv", "variant\tms\tnote\na\t1\t\nb\t\trefused: no\nc\tNA\tx\n"), 0);
    assert_tidy(in_dir("fine.tsv"));
}

/* opsim converge: a table with a plain header and numbers only, the settings in FILE.tsv.meta;
 * convergence-row's cells (never reached: empty) and convergence-long's long form. */
static void test_convergence_tables_are_tidy(void **state)
{
    (void)state;
    assert_int_equal(test_shell("bin/opsim converge experiments/fig5.ini --frame 1 --iterations 30 --solver rotations=gs "
                                "--out '%s' 2> /dev/null",
                                in_dir("s-reference.tsv")),
                     0);
    assert_int_equal(test_shell("bin/opsim converge experiments/fig5.ini --frame 1 --iterations 3 "
                                "--solver rotations=jacobi --fixed-point 3 --repeats 2 --out '%s' 2> /dev/null",
                                in_dir("s-jacobi.tsv")),
                     0);
    assert_tidy(in_dir("s-reference.tsv"));
    assert_tidy(in_dir("s-jacobi.tsv"));
    char *meta = test_read_file(in_dir("s-jacobi.tsv.meta"));
    assert_non_null(meta);
    assert_non_null(strstr(meta, "\nconfig = experiments/fig5.ini\n"));
    assert_non_null(strstr(meta, "\nrepeat 2 = wall "));
    assert_null(strchr(meta, '#'));
    free(meta);
    /* the header of experiments/convergence.mk's table, then the row */
    assert_int_equal(write_text("table.tsv", "scene\tvariant\titerations_1e-2\tms_1e-2\titerations_1e-4\tms_1e-4\t"
                                             "iterations_1e-6\tms_1e-6\trho\tfinal_relative_error\tE0_J\tEstar_J\t"
                                             "iterations\tframe\th_s\tconfig\tms_1e-2_lo\tms_1e-2_hi\tms_1e-2_noisy\t"
                                             "ms_1e-4_lo\tms_1e-4_hi\tms_1e-4_noisy\tms_1e-6_lo\tms_1e-6_hi\t"
                                             "ms_1e-6_noisy\n"),
                     0);
    assert_int_equal(test_shell("bin/opsim-report convergence-row --scene s --variant jacobi --rho - --reference '%s' "
                                "--run '%s' >> '%s'",
                                in_dir("s-reference.tsv"), in_dir("s-jacobi.tsv"), in_dir("table.tsv")),
                     0);
    assert_tidy(in_dir("table.tsv"));
    assert_int_equal(test_shell("bin/opsim-report convergence-long --reference s='%s' --run s:jacobi='%s' --out '%s'",
                                in_dir("s-reference.tsv"), in_dir("s-jacobi.tsv"), in_dir("long.tsv")),
                     0);
    assert_tidy(in_dir("long.tsv"));
}

/* opsim-report's derived tables from a tidy matrix, and opsim spring-curves. */
static void test_derived_tables_are_tidy(void **state)
{
    (void)state;
    assert_int_equal(write_text("matrix.tsv", "variant\tscene\tms_per_frame\titerations_1e-4\tms_1e-4\tnote\n"
                                              "arap-gs\tbar\t1.5\t40\t12.5\t\n"
                                              "arap-gs\tfall\t2.5\t90\t30.25\tslow\n"
                                              "arap-gs-anderson\tfall\t3\t13\t5.0\t\n"
                                              "vbd\tbar\t\t\t\trefused: no\n"),
                     0);
    assert_int_equal(write_text("stiffness.tsv", "factor\tstiffness\titerations\tframe_time\tsteady_m\tswing_m\tstatic_m\t"
                                                 "steady_over_static\n"
                                                 "1\t500000000\t5\t0.033333333333333333\t0.25\t0.001\t0.2\t1.25\n"
                                                 "1\t500000000\t5\t0.016666666666666666\t0.22\t0.002\t0.2\t1.1\n"),
                     0);
    static const struct {
        const char *section, *in, *options, *out;
    } derived[] = {
        { "pivot", "matrix.tsv", "--column ms_per_frame --keys 'bar fall'", "pivot.tsv" },
        { "pick", "matrix.tsv", "--column bar:ms_per_frame --column fall:iterations_1e-4 --column fall:note", "pick.tsv" },
        { "keyed", "matrix.tsv", "", "keyed.tsv" },
        { "targets", "matrix.tsv", "--target anderson-fall:arap-gs:arap-gs-anderson:fall:1e-4", "targets.tsv" },
        { "stiffness", "stiffness.tsv", "--iterations 5 --grid 5", "summary.tsv" },
        { "long", "matrix.tsv", "--keys 'variant scene'", "long-matrix.tsv" },
        { "long", "stiffness.tsv", "--keys 'factor stiffness iterations frame_time'", "long-stiffness.tsv" },
        { "long", "stiffness.tsv", "--in 'reports/paper_table1.tsv'", "long-tables.tsv" },
    };
    for (size_t d = 0; d < sizeof derived / sizeof derived[0]; ++d) {
        assert_int_equal(test_shell("bin/opsim-report %s --in '%s' %s --out '%s'", derived[d].section,
                                    in_dir(derived[d].in), derived[d].options, in_dir(derived[d].out)),
                         0);
        assert_tidy(in_dir(derived[d].out));
    }
    assert_int_equal(test_shell("bin/opsim spring-curves --samples 5 > '%s'", in_dir("curves.tsv")), 0);
    assert_tidy(in_dir("curves.tsv"));
}

/* The variants matrix: its cells as experiments/variants.sh gathers them, words and all, made a
 * table of numbers by opsim-report matrix. A refused variant's row has empty number cells and
 * "refused" in every status of the run that did not run (its own_* groups too), a bound cell
 * its number with "ge" beside it ("≥1/10" 0.1), "x* unsettled", "single update", "never in
 * 5 s" and "none" each in its status column, a measure that does not apply to the scene an
 * empty status; the status columns come before note, which stays last. Every table derived from
 * it is tidy too. */
static void test_matrix_words_move_to_status_columns(void **state)
{
    (void)state;
    assert_int_equal(
        write_text("cells.txt",
                   "variant\tscene\tms_per_frame\tms_per_frame_noisy\titerations_1e-4\tms_1e-4\tr_at_ni\t"
                   "own_iterations_1e-4\town_ms_1e-4\town_iterations_1e-6\town_last_step\trecovery_s\tmax_h_s\t"
                   "max_k\tnote\n"
                   "arap-gs\tbar\t1.5\t0\t40\t0.5\t5e-4\t80\t0.3\t–\t1e-15\t–\t≥1/10\t≥1e11\t\n"
                   "rigid\tbar\trefused\t–\trefused\t–\t–\trefused\t–\t–\t–\t–\trefused\trefused\t"
                   "refused: experiments/fig3.ini:16: [solver]: body bar has pins\n"
                   "shape-matching\tcollapse\t2.5\t1\t–\t–\t0.2\tx* unsettled\tx* unsettled\tx* unsettled\t5e-5\t"
                   "never in 5 s\t–\t–\t\n"
                   "meshless\tbunny\tfailed\t–\tsingle update\tsingle update\t1.3\tsingle update\t"
                   "single update\tsingle update\t0\t–\t"
                   "–\t–\trun failed: broad phase\n"
                   "vbd\tbar\t3\t1\t291\t2.5\t0.6\t–\t–\t–\t3e-5\t–\t1/60\tnone\t\n"),
        0);
    assert_int_equal(test_shell("bin/opsim-report matrix --in '%s' --out '%s'", in_dir("cells.txt"), in_dir("m.tsv")),
                     0);
    char *text = test_read_file(in_dir("m.tsv"));
    assert_non_null(text);
    assert_string_equal(
        text,
        "variant\tscene\tms_per_frame\tms_per_frame_noisy\titerations_1e-4\tms_1e-4\tr_at_ni\town_iterations_1e-4\t"
        "own_ms_1e-4\town_iterations_1e-6\town_last_step\trecovery_s\tmax_h_s\tmax_k\ttiming_status\t"
        "convergence_status\t"
        "own_status_1e-4\town_status_1e-6\trecovery_s_status\tmax_h_s_status\tmax_h_s_bound\tmax_k_status\t"
        "max_k_bound\t"
        "note\n"
        "arap-gs\tbar\t1.5\t0\t40\t0.5\t5e-4\t80\t0.3\t\t1e-15\t\t0.1\t1e11\tok\tok\tok\tok\t\tok\tge\tok\tge\t\n"
        "rigid\tbar\t\t\t\t\t\t\t\t\t\t\t\t\trefused\trefused\trefused\trefused\t\trefused\t\trefused\t\t"
        "refused: experiments/fig3.ini:16: [solver]: body bar has pins\n"
        "shape-matching\tcollapse\t2.5\t1\t\t\t0.2\t\t\t\t5e-5\t\t\t\tok\tok\tx* unsettled\tx* unsettled\t"
        "never in 5 s\t\t\t\t\t\n"
        "meshless\tbunny\t\t\t\t\t1.3\t\t\t\t0\t\t\t\tfailed\tsingle update\tsingle update\tsingle update\t\t\t\t\t\t"
        "run failed: broad phase\n"
        "vbd\tbar\t3\t1\t291\t2.5\t0.6\t\t\t\t3e-5\t\t0.016666666666666666\t\tok\tok\tok\tok\t\tok\t\tnone\t\t\n");
    free(text);
    assert_tidy(in_dir("m.tsv"));
    /* made once: a table with status columns already is refused, nothing written */
    assert_int_equal(test_shell("bin/opsim-report matrix --in '%s' --out '%s' 2> /dev/null", in_dir("m.tsv"),
                                in_dir("again.tsv")),
                     65);
    assert_null(test_read_file(in_dir("again.tsv")));
    static const char *const derived[][2] = {
        { "pivot --column iterations_1e-4 --keys 'bar collapse bunny'", "p-iterations.tsv" },
        { "pivot --column max_h_s --keys 'bar'", "p-h.tsv" },
        { "pivot --column own_ms_1e-4 --keys 'bar collapse bunny'", "p-own.tsv" },
        { "pick --column bar:max_h_s --column bar:max_k --column collapse:recovery_s", "pick.tsv" },
        { "keyed", "keyed.tsv" },
        { "targets --target t:arap-gs:vbd:bar:1e-4 --target u:arap-gs:rigid:bar:1e-4", "targets.tsv" },
        { "long --keys 'variant scene'", "long.tsv" },
    };
    for (size_t d = 0; d < sizeof derived / sizeof derived[0]; ++d) {
        assert_int_equal(test_shell("bin/opsim-report %.*s --in '%s' %s --out '%s'", (int)strcspn(derived[d][0], " "),
                                    derived[d][0], in_dir("m.tsv"), derived[d][0] + strcspn(derived[d][0], " "),
                                    in_dir(derived[d][1])),
                         0);
        assert_tidy(in_dir(derived[d][1]));
    }
    text = test_read_file(in_dir("targets.tsv"));
    assert_non_null(text);
    assert_non_null(strstr(text, "\nu\t40\t\t\t0.5\t\t\n")); /* refused: no number, no ratio, no dash */
    free(text);
}

/* The repository's own table, and the recipes' headers. */
static void test_repository_tables_and_recipes(void **state)
{
    (void)state;
    assert_tidy("reports/paper_table1.tsv");
    /* grep exits 1 when no line matches */
    assert_int_equal(test_shell("grep -n \"printf '#\" experiments/*.mk experiments/*.sh reports/*.mk"), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_check_catches_each_broken_rule),
        cmocka_unit_test(test_convergence_tables_are_tidy),
        cmocka_unit_test(test_derived_tables_are_tidy),
        cmocka_unit_test(test_matrix_words_move_to_status_columns),
        cmocka_unit_test(test_repository_tables_and_recipes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
