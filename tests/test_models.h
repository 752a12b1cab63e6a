/* A shared fixture for tests that need small built models but no catalogue: a solid torus of
 * 20 particles and the 20-particle bar, made once per test group. */
#ifndef OPSIM_TEST_MODELS_H
#define OPSIM_TEST_MODELS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geometry/build.h"
#include "geometry/model.h"
#include "geometry/shapes.h"
#include "test_util.h"

typedef struct test_models {
    op_model torus, bar;
} test_models;

static inline int test_build_shape_model(const char *shape, op_body_kind kind, int particles, op_model *model)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    memset(model, 0, sizeof *model);
    snprintf(model->name, sizeof model->name, "%s%d", shape, particles);
    op_build_def def = op_default_build_def();
    def.kind = kind;
    def.particles = particles;
    model->build = def;
    if (op_shape_mesh(&ctx, shape, &model->mesh) != OP_OK ||
        op_build_body(&ctx, &model->mesh, &def, &model->graph, &model->skin) != OP_OK) {
        print_error("%s: %s\n", model->name, ctx.message);
        return -1;
    }
    return 0;
}

/* cmocka group setup and teardown: *state is a test_models. */
static inline int test_models_setup(void **state)
{
    test_models *m = calloc(1, sizeof *m);
    if (!m || test_build_shape_model("torus", OP_BODY_SOLID, 20, &m->torus) ||
        test_build_shape_model("bar", OP_BODY_ROD, 20, &m->bar))
        return -1;
    *state = m;
    return 0;
}

static inline int test_models_teardown(void **state)
{
    test_models *m = *state;
    op_model_free(&m->torus);
    op_model_free(&m->bar);
    free(m);
    return 0;
}

#endif
