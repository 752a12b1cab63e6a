/* Tests of core/base/paths.c and of running from any directory: paths inside a file are read
 * from that file's folder, tidied lexically; the default catalogue is $OPSIM_DATA's, else the
 * nearest data/models.tsv above the config, else above the working directory, else beside the
 * program; and `opsim run` and `opsim graph --model` work from a folder outside the checkout,
 * writing the same stored state as from the root. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/paths.h"
#include "test_util.h"

static void expect_beside(const char *file, const char *relative, const char *expected)
{
    op_ctx ctx = { 0 };
    char out[PATH_MAX];
    assert_int_equal(op_path_beside(&ctx, file, relative, out, sizeof out), OP_OK);
    assert_string_equal(out, expected);
}

static void test_paths_are_read_beside_their_file(void **state)
{
    (void)state;
    expect_beside("experiments/fig5.ini", "../data/models.tsv", "data/models.tsv");
    expect_beside("data/models.tsv", "meshes/dino.obj", "data/meshes/dino.obj");
    expect_beside("/abs/data/models.tsv", "./meshes/../meshes/bunny.obj", "/abs/data/meshes/bunny.obj");
    expect_beside("models.tsv", "meshes/dino.obj", "meshes/dino.obj");
    expect_beside("a/b.ini", "/etc/x.tsv", "/etc/x.tsv");
    expect_beside("a/b.ini", "../../x.tsv", "../x.tsv");
    expect_beside("/a.ini", "../x", "/x");
    op_ctx ctx = { 0 };
    char small[8];
    assert_int_equal(op_path_beside(&ctx, "folder/file", "a-long-name", small, sizeof small), OP_ERR_INVALID);
}

static void test_the_default_catalogue_is_found_in_order(void **state)
{
    (void)state;
    char out[PATH_MAX];
    op_ctx ctx = { 0 };
    unsetenv("OPSIM_DATA");
    /* From the root: a config in experiments/ finds the checkout's data/. */
    assert_int_equal(op_default_catalogue(&ctx, "experiments/fig5.ini", out, sizeof out), OP_OK);
    assert_string_equal(out, "data/models.tsv");
    /* A config in a folder with its own data/models.tsv two levels up takes that one. */
    const char *root = test_tmp_path("-paths");
    char own[PATH_MAX], config[PATH_MAX + 32];
    snprintf(own, sizeof own, "%s", root);
    assert_int_equal(test_shell("mkdir -p '%s/data' '%s/runs/deep' && touch '%s/data/models.tsv'", own, own, own), 0);
    snprintf(config, sizeof config, "%s/runs/deep/x.ini", own);
    assert_int_equal(op_default_catalogue(&ctx, config, out, sizeof out), OP_OK);
    char expected[PATH_MAX + 32];
    snprintf(expected, sizeof expected, "%s/data/models.tsv", own);
    assert_string_equal(out, expected);
    /* OPSIM_DATA wins over everything. */
    setenv("OPSIM_DATA", "/some/where/", 1);
    assert_int_equal(op_default_catalogue(&ctx, config, out, sizeof out), OP_OK);
    assert_string_equal(out, "/some/where/models.tsv");
    unsetenv("OPSIM_DATA");
    /* The graph cache sits beside the catalogue unless OPSIM_GRAPH_CACHE says otherwise. */
    char *saved = getenv("OPSIM_GRAPH_CACHE") ? strdup(getenv("OPSIM_GRAPH_CACHE")) : NULL;
    unsetenv("OPSIM_GRAPH_CACHE");
    assert_int_equal(op_graph_cache_beside(&ctx, "/x/data/models.tsv", out, sizeof out), OP_OK);
    assert_string_equal(out, "/x/data/cache/graphs");
    setenv("OPSIM_GRAPH_CACHE", "off", 1);
    assert_int_equal(op_graph_cache_beside(&ctx, "/x/data/models.tsv", out, sizeof out), OP_OK);
    assert_string_equal(out, "");
    if (saved)
        setenv("OPSIM_GRAPH_CACHE", saved, 1);
    else
        unsetenv("OPSIM_GRAPH_CACHE");
    free(saved);
    test_shell("rm -rf '%s'", own);
}

/* `opsim run` from a folder outside the checkout, the config copied there: the same stored
 * positions as the run from the root; and `opsim graph --model` finds the catalogue beside the
 * program. A folder with no catalogue in reach and OPSIM_DATA pointing nowhere is refused,
 * naming the place it tried. */
static void test_commands_run_from_any_directory(void **state)
{
    (void)state;
    char cwd[PATH_MAX], away[PATH_MAX];
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(away, sizeof away, "%s", test_tmp_path("-away"));
    assert_int_equal(test_shell("mkdir -p '%s' && cp experiments/fig2.ini '%s/'", away, away), 0);
    assert_int_equal(test_shell("bin/opsim run experiments/fig2.ini --set run.frames=3 --out '%s/root.h5' "
                                "> /dev/null 2>&1", away), 0);
    assert_int_equal(test_shell("cd '%s' && '%s/bin/opsim' run fig2.ini --set run.frames=3 --out away.h5 "
                                "> /dev/null 2>&1", away, cwd), 0);
    assert_int_equal(test_shell("h5diff -q '%s/root.h5' '%s/away.h5' /particles /particles", away, away), 0);
    assert_int_equal(test_shell("h5diff -q '%s/root.h5' '%s/away.h5' /states /states", away, away), 0);
    assert_int_equal(test_shell("cd '%s' && '%s/bin/opsim' graph --model bar20 --out g.h5 > /dev/null 2>&1", away,
                                cwd), 0);
    assert_int_equal(test_shell("cd '%s' && OPSIM_DATA='%s/nowhere' '%s/bin/opsim' run fig2.ini --set run.frames=1 "
                                "--out never.h5 2> err.txt; test $? -ne 0 && grep -q 'nowhere/models.tsv' err.txt && "
                                "test ! -e never.h5", away, away, cwd), 0);
    test_shell("rm -rf '%s'", away);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paths_are_read_beside_their_file),
        cmocka_unit_test(test_the_default_catalogue_is_found_in_order),
        cmocka_unit_test(test_commands_run_from_any_directory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
