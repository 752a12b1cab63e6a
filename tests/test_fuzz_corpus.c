/* The fuzz targets' saved inputs (tests/fuzz/<target>/: the seeds and every input a fuzzing run
 * found a crash or hang with, kept as a regression) replayed through each target, built with the
 * normal compiler as bin/fuzz-replay/<target> (tests/fuzz/replay.c). A target aborts when a
 * reader accepts what fails its own check or refuses without a message, and under `make test
 * SANITIZE=1` on any memory error; the replay must also visit every file of the directory. */
#include <dirent.h>
#include <string.h>

#include "test_util.h"

static int regular_files_in(const char *path)
{
    DIR *dir = opendir(path);
    assert_non_null(dir);
    int count = 0;
    for (struct dirent *entry; (entry = readdir(dir));)
        count += entry->d_name[0] != '.';
    closedir(dir);
    return count;
}

static void replay(const char *target)
{
    char inputs[256], log[512];
    snprintf(inputs, sizeof inputs, "tests/fuzz/%s", target);
    snprintf(log, sizeof log, "%s", test_tmp_path(".log"));
    int expected = regular_files_in(inputs);
    assert_true(expected >= 3);
    int status = test_shell("bin/fuzz-replay/%s %s > '%s' 2>&1", target, inputs, log);
    char *output = test_read_file(log);
    assert_non_null(output);
    char line[64];
    snprintf(line, sizeof line, "replayed %d inputs", expected);
    if (status != 0 || !strstr(output, line))
        fail_msg("bin/fuzz-replay/%s %s: exit %d, expected '%s':\n%s", target, inputs, status, line, output);
    free(output);
}

static void test_off_inputs(void **state)
{
    (void)state;
    replay("off");
}

static void test_obj_inputs(void **state)
{
    (void)state;
    replay("obj");
}

static void test_build_inputs(void **state)
{
    (void)state;
    replay("build");
}

static void test_config_inputs(void **state)
{
    (void)state;
    replay("config");
}

static void test_catalogue_inputs(void **state)
{
    (void)state;
    replay("catalogue");
}

static void test_runfile_inputs(void **state)
{
    (void)state;
    replay("runfile");
}

static void test_cache_inputs(void **state)
{
    (void)state;
    replay("cache");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_off_inputs),    cmocka_unit_test(test_obj_inputs),
        cmocka_unit_test(test_build_inputs),  cmocka_unit_test(test_config_inputs),
        cmocka_unit_test(test_catalogue_inputs), cmocka_unit_test(test_runfile_inputs),
        cmocka_unit_test(test_cache_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
