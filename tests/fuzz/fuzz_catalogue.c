/* libFuzzer target for the model catalogue reader (core/geometry/model.c, data/models.tsv's format) as a
 * config's [body] model = NAME looks a model up: find the line, check its fields, build it. The
 * input's first line is the NAME looked up, the rest is the catalogue. The build is overridden
 * to 6 particles and 12 voxels along the longest extent (op_model_load keeps the catalogue's
 * count only when the build gives none), so that a found model builds in milliseconds while
 * the catalogue's own count is still parsed and range-checked. A model that loads must pass
 * op_graph_check; a refusal must carry a message. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "geometry/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *newline = memchr(data, '\n', size);
    size_t name_size = newline ? (size_t)(newline - data) : size;
    char name[128];
    if (name_size >= sizeof name || memchr(data, '\0', name_size))
        return 0;
    memcpy(name, data, name_size);
    name[name_size] = '\0';

    op_build_def build = op_default_build_def();
    build.particles = 6;
    build.voxel_resolution = 12;
    static fuzz_file catalogue;
    size_t skip = newline ? name_size + 1 : size;
    const char *path = fuzz_file_set(&catalogue, "fuzz-catalogue", data + skip, size - skip);
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_model model;
    int status = op_model_load(&ctx, path, name, &build, &model);
    fuzz_check_outcome(&ctx, status);
    if (status == OP_OK) {
        op_ctx check;
        op_ctx_init(&check);
        if (op_graph_check(&check, &model.graph, model.name) != OP_OK) {
            fprintf(stderr, "fuzz: a loaded model fails its check: %s\n", check.message);
            abort();
        }
        op_model_free(&model);
    }
    return 0;
}
