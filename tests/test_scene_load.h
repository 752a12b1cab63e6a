/* Loading an experiment config in a test: a failure fails the test with the loader's message. */
#ifndef OPSIM_TEST_SCENE_LOAD_H
#define OPSIM_TEST_SCENE_LOAD_H

#include "scene.h"
#include "test_util.h"

/* overrides: NULL or a NULL-terminated list of "section.key=value" */
static inline void test_load_scene(op_scene *scene, const char *config, const char *const *overrides)
{
    int count = 0;
    while (overrides && overrides[count])
        ++count;
    op_ctx ctx;
    op_ctx_init(&ctx);
    if (op_scene_load(&ctx, config, count, overrides, scene) != OP_OK)
        fail_msg("%s", ctx.message);
}

#endif
