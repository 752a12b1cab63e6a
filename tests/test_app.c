/* The command line as a whole (app/): `opsim --help` printed from the command table lists every
 * command, each command answers --help with its own usage and exit 0, unknown commands and
 * options exit 64, and the options the commands share (--set kept in order, converge's --solver)
 * reach the run as given. The commands' own outputs are tested beside their core code
 * (test_export, test_sweep, test_convergence, test_hardening, ...). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

static const char *const command_names[] = { "run",   "solvers", "spring-curves", "estimate-rho",
                                             "converge", "graph", "mesh",         "sweep",
                                             "info",  "export",  "xdmf",          "overlap",
                                             "verify", "cache" };
enum { COMMAND_COUNT = sizeof command_names / sizeof command_names[0] };

/* A command's standard output (a new string) and, in *status, its exit status. */
static char *output_of(const char *command, int *status)
{
    const char *path = test_tmp_path(".out");
    char saved[512];
    snprintf(saved, sizeof saved, "%s", path);
    *status = test_shell("%s > '%s' 2>&1", command, saved);
    char *text = test_read_file(saved);
    assert_non_null(text);
    remove(saved);
    return text;
}

/* The command names `opsim --help` lists, in its order: a line "  NAME  summary" or, for a long
 * name, "  NAME" alone; the summary lines below a long name are indented further. */
static int listed_commands(const char *help, char names[][32], int most)
{
    const char *list = strstr(help, "commands:\n");
    assert_non_null(list);
    int count = 0;
    for (const char *line = strchr(list, '\n') + 1; *line == ' ' && line[2] != ' ' && count < most;) {
        size_t length = strcspn(line + 2, " \n");
        snprintf(names[count++], 32, "%.*s", (int)length, line + 2);
        line = strchr(line, '\n') + 1;
        while (strncmp(line, "           ", 11) == 0)
            line = strchr(line, '\n') + 1;
    }
    return count;
}

static void test_help_lists_every_command(void **state)
{
    (void)state;
    int status;
    char *help = output_of("bin/opsim --help", &status);
    assert_int_equal(status, 0);
    char names[32][32];
    int count = listed_commands(help, names, 32);
    assert_int_equal(count, COMMAND_COUNT);
    for (int c = 0; c < COMMAND_COUNT; ++c)
        assert_string_equal(names[c], command_names[c]);
    assert_non_null(strstr(help, "  spring-curves\n           the springs variant's force laws"));
    assert_non_null(strstr(help, "  converge energy against iteration"));
    free(help);
}

static void test_each_command_has_its_usage(void **state)
{
    (void)state;
    for (int c = 0; c < COMMAND_COUNT; ++c) {
        char command[128], expected[64];
        int status;
        snprintf(command, sizeof command, "bin/opsim %s --help", command_names[c]);
        snprintf(expected, sizeof expected, "usage: opsim %s", command_names[c]);
        char *usage = output_of(command, &status);
        assert_int_equal(status, 0);
        if (strncmp(usage, expected, strlen(expected)) != 0)
            fail_msg("'%s' printed: %.80s", command, usage);
        free(usage);
    }
}

/* A mistyped key, body or command names the nearest right one; a body the config lacks is not
 * made silently by a --set of one of its keys. */
static void test_typos_name_the_nearest(void **state)
{
    (void)state;
    static const struct {
        const char *set, *expected;
    } cases[] = {
        { "world.iteratoins=3", "--set world.iteratoins=3: [world] has no key 'iteratoins'; did you mean 'iterations'?" },
        { "body dino.stifness=3", "[body dino] has no key 'stifness'; did you mean 'stiffness'?" },
        { "body dnio.stiffness=3", "--set body dnio.stiffness=3: the config has no [body dnio]; did you mean 'dino'?" },
        { "body zebra.stiffness=3", "the config has no [body zebra] (bodies: dino;" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        char command[256];
        snprintf(command, sizeof command, "bin/opsim run experiments/fig5.ini --set '%s' --out never.h5", cases[k].set);
        int status;
        char *text = output_of(command, &status);
        print_message("%s", text);
        assert_int_not_equal(status, 0);
        assert_non_null(strstr(text, cases[k].expected));
        free(text);
    }
}

static void test_usage_errors_exit_64(void **state)
{
    (void)state;
    int status;
    char *text = output_of("bin/opsim bogus", &status);
    assert_int_equal(status, 64);
    assert_string_equal(text, "opsim: unknown command 'bogus'\nTry 'opsim --help'.\n");
    free(text);
    text = output_of("bin/opsim rnu", &status);
    assert_int_equal(status, 64);
    assert_string_equal(text, "opsim: unknown command 'rnu'; did you mean 'run'?\nTry 'opsim --help'.\n");
    free(text);
    /* No command: the usage, on stderr (stdout stays empty), exit 64. */
    text = output_of("(bin/opsim 2>/dev/null)", &status);
    assert_int_equal(status, 64);
    assert_string_equal(text, "");
    free(text);
    text = output_of("bin/opsim", &status);
    assert_int_equal(status, 64);
    assert_non_null(strstr(text, "usage: opsim COMMAND [OPTIONS]"));
    assert_non_null(strstr(text, "  run      run an experiment config"));
    free(text);
    text = output_of("bin/opsim mesh --shape cube --fit -2 --out x.obj", &status);
    assert_int_equal(status, 64);
    assert_string_equal(text, "opsim mesh: --fit needs a positive size in metres, not '-2'\nTry 'opsim mesh --help'.\n");
    free(text);
    text = output_of("bin/opsim info a.h5 b.h5", &status);
    assert_int_equal(status, 64);
    assert_string_equal(text, "opsim info: give exactly one run file\nTry 'opsim info --help'.\n");
    free(text);
    text = output_of("bin/opsim converge experiments/fig1.ini --frame 1 --iterations 0 --out x.tsv", &status);
    assert_int_equal(status, 64);
    assert_non_null(strstr(text, "--iterations needs a whole number from 1 to 10000000, not '0'"));
    free(text);
    assert_int_equal(test_shell("bin/opsim solvers --bogus > /dev/null 2>&1"), 64);
}

static void test_missing_input_exits_74(void **state)
{
    (void)state;
    int status;
    char *text = output_of("bin/opsim info build/test-tmp/no-such-run.h5", &status);
    assert_int_equal(status, 74);
    free(text);
}

/* converge's provenance (FILE.tsv.meta) names every --set and every --solver in the order given. */
static void test_overrides_reach_the_run_in_order(void **state)
{
    (void)state;
    char out[512];
    snprintf(out, sizeof out, "%s", test_tmp_path(".tsv"));
    assert_int_equal(test_shell("bin/opsim converge experiments/fig1.ini --set world.iterations=3 --frame 1 "
                                "--solver rotations=jacobi --iterations 4 --set run.frames=5 --out '%s' 2>&1",
                                out),
                     0);
    char *table = test_read_file(out), meta_path[600];
    snprintf(meta_path, sizeof meta_path, "%s.meta", out);
    char *meta = test_read_file(meta_path);
    assert_non_null(table);
    assert_non_null(meta);
    const char *first = strstr(meta, "\nset = world.iterations=3\n");
    const char *second = strstr(meta, "\nset = run.frames=5\n");
    assert_non_null(first);
    assert_non_null(second);
    assert_true(first < second);
    assert_non_null(strstr(meta, "\nstudy set = solver.rotations=jacobi\n"));
    assert_non_null(strstr(meta, "rotations=jacobi"));
    int rows = 0;
    for (const char *line = table; (line = strchr(line, '\n')); ++line)
        rows += line[1] >= '0' && line[1] <= '9';
    assert_int_equal(rows, 5); /* k = 0 ... 4 */
    free(table);
    free(meta);
    remove(out);
    remove(meta_path);
}

/* estimate-rho --out writes its [solver] snippet whole (core/io/atomic.h): the snippet when it
 * can, and nothing at all, not even a temporary file, when it cannot. */
static void test_estimate_rho_writes_whole_or_nothing(void **state)
{
    (void)state;
    char out[512];
    snprintf(out, sizeof out, "%s", test_tmp_path(".ini"));
    assert_int_equal(test_shell("bin/opsim estimate-rho experiments/fig5.ini --iterations 12 --out '%s' > /dev/null", out),
                     0);
    char *snippet = test_read_file(out);
    assert_non_null(snippet);
    assert_non_null(strstr(snippet, "[solver]\nchebyshev = on\nchebyshev_rho = 0."));
    free(snippet);
    remove(out);
    char missing[600];
    snprintf(missing, sizeof missing, "%s.no-such-dir/rho.ini", out);
    assert_int_equal(test_shell("bin/opsim estimate-rho experiments/fig5.ini --iterations 12 --out '%s' > /dev/null 2>&1",
                                missing),
                     74);
    FILE *f = fopen(missing, "r");
    assert_null(f);
}

/* On a terminal (script(1) gives the command one), `opsim run` says before a graph is built
 * rather than loaded (a fresh cache), and its last line names the run file and both sidecar
 * files, which exist; the second run loads the graph and says nothing of a build. Without a
 * terminal neither line is printed. */
static void test_run_on_a_terminal_names_builds_and_files(void **state)
{
    (void)state;
    char dir[512], command[2048];
    snprintf(dir, sizeof dir, "%s", test_tmp_path("-terminal"));
    assert_int_equal(test_shell("rm -rf '%s' && mkdir -p '%s'", dir, dir), 0);
    snprintf(command, sizeof command,
             "script -qec \"OPSIM_GRAPH_CACHE='%s/cache' bin/opsim run experiments/fig1.ini --set run.frames=2 "
             "--no-surface --out '%s/bar.h5'\" /dev/null",
             dir, dir);
    int status;
    char *text = output_of(command, &status);
    assert_int_equal(status, 0);
    assert_non_null(strstr(text, "opsim: building the graph of bar20 (20 particles)…"));
    char last[2048];
    snprintf(last, sizeof last, "wrote %s/bar.h5 (2 frames, 1 body), %s/bar.xmf (open it in ParaView) and %s/bar.views.h5",
             dir, dir, dir);
    assert_non_null(strstr(text, last));
    assert_true(strstr(text, "building") < strstr(text, "wrote"));
    free(text);
    assert_int_equal(test_shell("test -s '%s/bar.h5' && test -s '%s/bar.xmf' && test -s '%s/bar.views.h5'", dir, dir, dir),
                     0);
    text = output_of(command, &status); /* the cache holds the graph now */
    assert_int_equal(status, 0);
    assert_null(strstr(text, "building the graph"));
    assert_non_null(strstr(text, last));
    free(text);
    snprintf(command, sizeof command,
             "OPSIM_GRAPH_CACHE='%s/cache2' bin/opsim run experiments/fig1.ini --set run.frames=2 --no-surface "
             "--out '%s/quiet.h5'",
             dir, dir);
    text = output_of(command, &status);
    assert_int_equal(status, 0);
    assert_string_equal(text, "");
    free(text);
    assert_int_equal(test_shell("rm -rf '%s'", dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_lists_every_command),
        cmocka_unit_test(test_each_command_has_its_usage),
        cmocka_unit_test(test_usage_errors_exit_64),
        cmocka_unit_test(test_typos_name_the_nearest),
        cmocka_unit_test(test_missing_input_exits_74),
        cmocka_unit_test(test_overrides_reach_the_run_in_order),
        cmocka_unit_test(test_estimate_rho_writes_whole_or_nothing),
        cmocka_unit_test(test_run_on_a_terminal_names_builds_and_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
