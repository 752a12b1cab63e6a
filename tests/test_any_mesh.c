/* Any closed mesh builds (issue 23, core/geometry/build.h): stray voxel islands are dropped and a body in
 * pieces is built on a finer grid, the resolution used recorded in /graph/BODY/voxel_resolution
 * and said on stderr. Both fixtures failed before ("the graph falls into 45 / 7 pieces"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "opsim/runfile.h"
#include "test_util.h"

/* `opsim graph` of a fixture (cache off); its stderr in *message (free it); the run file's path. */
static const char *build(const char *mesh, const char *options, char **message)
{
    static char out[512];
    char log[512];
    snprintf(out, sizeof out, "%s", test_tmp_path(".h5"));
    snprintf(log, sizeof log, "%s", test_tmp_path(".log"));
    if (test_shell("OPSIM_GRAPH_CACHE=off bin/opsim graph --mesh %s --kind solid %s --out '%s' > /dev/null 2> '%s'",
                   mesh, options, out, log) != 0)
        fail_msg("%s", test_read_file(log));
    *message = test_read_file(log);
    assert_non_null(*message);
    return out;
}

static int64_t voxel_resolution(const char *run, const char *body)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    char object[128];
    snprintf(object, sizeof object, "/graph/%s", body);
    int64_t resolution = 0;
    if (op_runfile_read_attribute_int(&ctx, run, object, "voxel_resolution", &resolution) != OP_OK)
        fail_msg("%s", ctx.message);
    return resolution;
}

/* tests/data/camel.off with no flags: its slanted 2 cm legs fall into 44 fragments of at most 8
 * voxels at 96 voxels; they are dropped and the body builds at 96. */
static void test_camel_builds_with_no_flags(void **state)
{
    (void)state;
    char *message;
    const char *run = build("tests/data/camel.off", "--particles 100", &message);
    if (!strstr(message, "44 stray voxel islands (200 voxels) dropped"))
        fail_msg("stderr: %s", message);
    assert_int_equal(voxel_resolution(run, "camel"), 96);
    free(message);
}

/* tests/data/dumbbell.off at 32 voxels: its rod is in fragments bigger than islands; at 48 (3/2)
 * it is whole, and the body is built there. */
static void test_pieces_refine_the_grid(void **state)
{
    (void)state;
    char *message;
    const char *run = build("tests/data/dumbbell.off", "--particles 20 --voxels 32", &message);
    if (!strstr(message, "built at 48 voxels, not 32: the interior there was in pieces"))
        fail_msg("stderr: %s", message);
    assert_int_equal(voxel_resolution(run, "dumbbell"), 48);
    free(message);
    run = build("tests/data/dumbbell.off", "--particles 20 --voxels 48", &message);
    assert_string_equal(message, "");
    assert_int_equal(voxel_resolution(run, "dumbbell"), 48);
    free(message);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_camel_builds_with_no_flags),
        cmocka_unit_test(test_pieces_refine_the_grid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
