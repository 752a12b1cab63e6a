/* libFuzzer target for the INI config reader with --set overrides (core/io/scene.c) as
 * `opsim run CONFIG --set A --set B ...` loads a scene: parse, overrides, models built, bodies,
 * pins, constraints, scripts, observables and the solver states set up. The input is the config
 * text, then each override after a '\0' byte (so `printf 'TEXT\0world.iterations=3'` is a seed).
 *
 * Three things keep an execution in milliseconds, so that the fuzzer explores the reader rather
 * than big builds: the model catalogue is this target's own (FUZZ_MODELS below: tiny models),
 * imposed by a last override of run.models; each of its models whose name the input mentions is
 * built with 12 voxels along its longest extent (an override "model NAME.voxels=12": at the
 * default 96 the torus alone took 1.6 s; an input that names a model no body uses is then
 * refused, a small loss); and inputs that spell a whole number of three digits or more (a
 * particle, voxel or copy count of 100 and up) are skipped. Digits after a '.', an exponent's
 * 'e' or a minus sign are allowed, so fractions and exponents are still explored.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "opsim/scene.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { FUZZ_MAX_OVERRIDES = 16 };

/* One model of each kind (the shell on the bar: the thin sheet needs thousands of voxels). */
static const struct {
    const char *name, *line;
} FUZZ_MODELS[] = {
    { "bar", "bar\tshape:bar\trod\t4\n" },       { "plate", "plate\tshape:bar\tshell\t4\n" },
    { "column", "column\tshape:column\trod\t3\n" }, { "torus", "torus\tshape:torus\tsolid\t4\n" },
    { "cube", "cube\tshape:cube18\tlattice\t8\n" },
};
enum { FUZZ_MODEL_COUNT = sizeof FUZZ_MODELS / sizeof FUZZ_MODELS[0] };

static int spells_a_large_count(const uint8_t *data, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        if (!isdigit(data[i]))
            continue;
        size_t digits = 1;
        while (i + digits < size && isdigit(data[i + digits]))
            ++digits;
        /* a fraction, an exponent ("1e300", "1e+300") or a negative number */
        uint8_t before = i > 0 ? data[i - 1] : ' ';
        int in_a_number = (before != '\0' && strchr(".eE-", before)) ||
                          (before == '+' && i > 1 && (data[i - 2] == 'e' || data[i - 2] == 'E'));
        if (digits >= 3 && !in_a_number)
            return 1;
        i += digits;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (spells_a_large_count(data, size))
        return 0;
    static fuzz_file config, catalogue;
    static char models_override[sizeof "run.models=" + sizeof catalogue.path], voxel_overrides[FUZZ_MODEL_COUNT][64];
    if (!catalogue.path[0]) {
        char text[512] = "";
        for (int m = 0; m < FUZZ_MODEL_COUNT; ++m) {
            strcat(text, FUZZ_MODELS[m].line);
            snprintf(voxel_overrides[m], sizeof voxel_overrides[m], "model %s.voxels=12", FUZZ_MODELS[m].name);
        }
        fuzz_file_set(&catalogue, "fuzz-catalogue", (const uint8_t *)text, strlen(text));
        snprintf(models_override, sizeof models_override, "run.models=%s", catalogue.path);
    }
    /* a private copy ending in '\0', so that each override is a string */
    char *copy = malloc(size + 1);
    if (!copy)
        abort();
    memcpy(copy, data, size);
    copy[size] = '\0';
    size_t config_size = strlen(copy);
    const char *overrides[FUZZ_MAX_OVERRIDES + FUZZ_MODEL_COUNT + 1];
    int override_count = 0;
    for (size_t at = config_size + 1; at <= size && override_count < FUZZ_MAX_OVERRIDES; at += strlen(copy + at) + 1)
        overrides[override_count++] = copy + at;
    for (int m = 0; m < FUZZ_MODEL_COUNT; ++m)
        if (memmem(data, size, FUZZ_MODELS[m].name, strlen(FUZZ_MODELS[m].name)))
            overrides[override_count++] = voxel_overrides[m];
    overrides[override_count++] = models_override;

    const char *path = fuzz_file_set(&config, "fuzz-config", (const uint8_t *)copy, config_size);
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_scene scene;
    int status = op_scene_load(&ctx, path, override_count, overrides, &scene);
    fuzz_check_outcome(&ctx, status);
    op_scene_free(&scene);
    free(copy);
    return 0;
}
