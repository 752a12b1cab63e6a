/* libFuzzer target for the run-file reader (core/io/runfile_read.c, runfile_print.c, runfile_check.c) on what `opsim info`, `opsim export`
 * and `opsim xdmf` read from a damaged or hostile HDF5 file: the listing (info), the check, the
 * body names, every body's graph, mesh and skinning, one series exported as text, the first
 * frame's positions read as a hyperslab, and string and integer attributes. The input is the
 * file. opsim runs these readers in a child process (app/files.c) because libhdf5 1.10
 * has crashes of its own on old-format files; here they run in-process, so any crash, in opsim
 * or in the library, is reported. Each call's refusal must carry a message. The file is a real
 * one in $TMPDIR (tests/fuzz/fuzz_input.h says why). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_input.h"
#include "geometry/skin.h"
#include "opsim/runfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static fuzz_file input = { .real = 1 };
    static FILE *sink;
    static char (*names)[OP_RUNFILE_NAME_SIZE];
    if (!sink && !(sink = fopen("/dev/null", "w")))
        abort();
    if (!names && !(names = calloc(OP_RUNFILE_MAX_BODIES, sizeof *names)))
        abort();
    const char *path = fuzz_file_set(&input, "runfile", data, size);

    op_ctx ctx;
    op_ctx_init(&ctx);
    fuzz_check_outcome(&ctx, op_runfile_info(&ctx, path, sink));
    op_ctx_init(&ctx);
    fuzz_check_outcome(&ctx, op_runfile_check(&ctx, path));
    op_ctx_init(&ctx);
    fuzz_check_outcome(&ctx, op_runfile_export_tsv(&ctx, path, "/particles/position/step", sink));
    op_ctx_init(&ctx);
    char revision[64];
    fuzz_check_outcome(&ctx, op_runfile_read_attribute_string(&ctx, path, "/", "git_revision", revision,
                                                              sizeof revision));
    op_ctx_init(&ctx);
    int rank;
    int64_t dims[OP_RUNFILE_MAX_RANK];
    int status = op_runfile_dataset_shape(&ctx, path, "/particles/position/value", &rank, dims);
    fuzz_check_outcome(&ctx, status);
    if (status == OP_OK && rank == 3 && dims[0] > 0 && dims[1] > 0 && dims[1] <= 4096 && dims[2] == 3) {
        double *frame = malloc((size_t)dims[1] * 3 * sizeof *frame);
        if (!frame)
            abort();
        op_ctx_init(&ctx);
        fuzz_check_outcome(&ctx, op_runfile_read_rows(&ctx, path, "/particles/position/value", 0, 1, frame,
                                                      (long)dims[1] * 3));
        free(frame);
    }

    int body_count = 0;
    op_ctx_init(&ctx);
    status = op_runfile_body_names(&ctx, path, names, OP_RUNFILE_MAX_BODIES, &body_count);
    fuzz_check_outcome(&ctx, status);
    for (int b = 0; status == OP_OK && b < body_count && b < 4; ++b) {
        op_graph graph = { 0 };
        op_mesh mesh = { 0 };
        op_skin skin = { 0 };
        op_ctx_init(&ctx);
        fuzz_check_outcome(&ctx, op_runfile_read_body(&ctx, path, names[b], &graph, &mesh, &skin));
        op_graph_free(&graph);
        op_mesh_free(&mesh);
        op_skin_free(&skin);
        char object[96];
        snprintf(object, sizeof object, "/parameters/%s", names[b]);
        int64_t offset;
        op_ctx_init(&ctx);
        fuzz_check_outcome(&ctx, op_runfile_read_attribute_int(&ctx, path, object, "particle_offset", &offset));
    }
    return 0;
}
