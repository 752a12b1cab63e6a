/* Golden hashes: Fig. 1, 4, 5, Fig. 5 with the floor in the solve and the 52 models, each run for a fixed number of frames with every
 * frame stored, their stored states (/particles/position/value and /particles/orientation/value,
 * read back from the run file as float64 bit patterns, little-endian) hashed with SHA-256. The
 * hash must be the same on one thread and on two, and equal to the one committed in
 * tests/golden/states.tsv. `make test` runs this test in the vector build and again in the plain-C
 * build (-DOPSIM_NO_SIMD, build/scalar), so the two builds and both thread counts are held to
 * one set of bits.
 *
 * The graphs are built through OpenBLAS, which picks its kernels for the CPU when it loads, and
 * kernels for other CPUs round differently (the 52 models' graphs change under
 * OPENBLAS_CORETYPE=Haswell). So that the hash is the same on every x86-64 machine, the test
 * runs itself under OPENBLAS_CORETYPE=Prescott, the plain kernels every x86-64 CPU has, and
 * keeps the graphs it builds in a cache of its own (GRAPH_CACHE), apart from data/cache's.
 *
 * A change that alters results on purpose updates the file: `make golden` (which runs this test
 * with OPSIM_GOLDEN_UPDATE=1) rewrites it, and the commit says why the bits moved. */
#include <inttypes.h>
#include <nettle/sha2.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opsim/runfile.h"
#include "test_scene_load.h"
#include "test_util.h"

#define GOLDEN_PATH "tests/golden/states.tsv"
#define GRAPH_CACHE "build/test-golden-graphs"
#define BLAS_CORE "Prescott"

typedef struct golden_scene {
    const char *name, *config;
    int frames;
    const char *extra; /* one more override, or NULL */
} golden_scene;

static const golden_scene scenes[] = {
    { "fig1", "experiments/fig1.ini", 40, NULL },
    { "fig4", "experiments/fig4.ini", 40, NULL },
    { "fig5", "experiments/fig5.ini", 40, NULL },
    { "fig5-floor-solve", "experiments/fig5.ini", 40, "world.floor_contact=solve" },
    { "fig7-52", "experiments/fig7-52.ini", 30, NULL },
};
enum { SCENE_COUNT = sizeof scenes / sizeof scenes[0] };

/* the dataset's values bit for bit into the hash, as little-endian bytes */
static void hash_dataset(struct sha256_ctx *hash, const char *path, const char *dataset)
{
    op_ctx ctx;
    op_ctx_init(&ctx);
    int rank;
    int64_t dims[OP_RUNFILE_MAX_RANK];
    if (op_runfile_dataset_shape(&ctx, path, dataset, &rank, dims) != OP_OK)
        fail_msg("%s", ctx.message);
    long count = 1;
    for (int d = 0; d < rank; ++d)
        count *= (long)dims[d];
    double *values = malloc((size_t)count * sizeof *values);
    assert_non_null(values);
    if (op_runfile_read_rows(&ctx, path, dataset, 0, (long)dims[0], values, count) != OP_OK)
        fail_msg("%s", ctx.message);
    for (long k = 0; k < count; ++k) {
        uint64_t bits;
        uint8_t bytes[8];
        memcpy(&bits, &values[k], sizeof bits);
        for (int b = 0; b < 8; ++b)
            bytes[b] = (uint8_t)(bits >> (8 * b));
        sha256_update(hash, sizeof bytes, bytes);
    }
    free(values);
}

/* The scene run on `threads` threads into a run file; the SHA-256 of its stored states in hex. */
static void stored_state_hash(const golden_scene *scene, int threads, char hex[2 * SHA256_DIGEST_SIZE + 1])
{
    char frames[64];
    snprintf(frames, sizeof frames, "run.frames=%d", scene->frames);
    const char *overrides[] = { frames, "run.output_every=1", scene->extra, NULL };
    op_scene loaded;
    test_load_scene(&loaded, scene->config, overrides);
    omp_set_num_threads(threads);
    const char *path = test_record_scene(&loaded);
    omp_set_num_threads(1);
    struct sha256_ctx hash;
    sha256_init(&hash);
    hash_dataset(&hash, path, "/particles/position/value");
    hash_dataset(&hash, path, "/particles/orientation/value");
    uint8_t digest[SHA256_DIGEST_SIZE];
    sha256_digest(&hash, sizeof digest, digest);
    for (int b = 0; b < SHA256_DIGEST_SIZE; ++b)
        snprintf(&hex[2 * b], 3, "%02x", digest[b]);
    remove(path);
}

/* The committed hash of `name` at `frames` frames, or fails naming the line to add. */
static void golden_hash(const char *name, int frames, char hex[2 * SHA256_DIGEST_SIZE + 1])
{
    FILE *file = fopen(GOLDEN_PATH, "r");
    if (!file)
        fail_msg("%s: cannot be read (make golden writes it)", GOLDEN_PATH);
    char line[512];
    int found = 0;
    while (!found && fgets(line, sizeof line, file)) {
        char scene[64], digest[2 * SHA256_DIGEST_SIZE + 1];
        int at;
        if (line[0] == '#' || sscanf(line, "%63s %d %64s", scene, &at, digest) != 3)
            continue;
        if (strcmp(scene, name) == 0 && at == frames) {
            memcpy(hex, digest, sizeof digest);
            found = 1;
        }
    }
    fclose(file);
    if (!found)
        fail_msg("%s has no line for %s at %d frames (make golden writes it)", GOLDEN_PATH, name, frames);
}

static void test_stored_states_match_golden(void **state)
{
    (void)state;
    char hashes[SCENE_COUNT][2 * SHA256_DIGEST_SIZE + 1];
    for (int s = 0; s < SCENE_COUNT; ++s) {
        char two[2 * SHA256_DIGEST_SIZE + 1];
        stored_state_hash(&scenes[s], 1, hashes[s]);
        stored_state_hash(&scenes[s], 2, two);
        print_message("%s\t%d\t%s\n", scenes[s].name, scenes[s].frames, hashes[s]);
        if (strcmp(hashes[s], two) != 0)
            fail_msg("%s: one thread %s, two threads %s", scenes[s].name, hashes[s], two);
    }
    const char *update = getenv("OPSIM_GOLDEN_UPDATE");
    if (update && strcmp(update, "1") == 0) {
        const char *temporary = GOLDEN_PATH ".tmp";
        FILE *file = fopen(temporary, "w");
        assert_non_null(file);
        fprintf(file, "# scene\tframes\tsha256 of the stored states (tests/test_golden.c; make golden)\n");
        for (int s = 0; s < SCENE_COUNT; ++s)
            fprintf(file, "%s\t%d\t%s\n", scenes[s].name, scenes[s].frames, hashes[s]);
        assert_int_equal(fclose(file), 0);
        assert_int_equal(rename(temporary, GOLDEN_PATH), 0);
        return;
    }
    for (int s = 0; s < SCENE_COUNT; ++s) {
        char golden[2 * SHA256_DIGEST_SIZE + 1];
        golden_hash(scenes[s].name, scenes[s].frames, golden);
        if (strcmp(hashes[s], golden) != 0)
            fail_msg("%s: stored states hash to %s, %s says %s (results changed: if on purpose, make golden)",
                     scenes[s].name, hashes[s], GOLDEN_PATH, golden);
    }
}

/* This process again under OPENBLAS_CORETYPE=BLAS_CORE, unless it runs so already: OpenBLAS
 * reads the variable only when it loads. */
static void use_generic_blas_kernels(char **argv)
{
    const char *core = getenv("OPENBLAS_CORETYPE");
    if (core && strcmp(core, BLAS_CORE) == 0)
        return;
    setenv("OPENBLAS_CORETYPE", BLAS_CORE, 1);
    execv("/proc/self/exe", argv);
    perror("test_golden: running again with OPENBLAS_CORETYPE=" BLAS_CORE);
    exit(1);
}

int main(int argc, char **argv)
{
    (void)argc;
    use_generic_blas_kernels(argv);
    setenv("OPSIM_GRAPH_CACHE", GRAPH_CACHE, 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stored_states_match_golden),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
