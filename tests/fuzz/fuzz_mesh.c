/* libFuzzer target for the OFF or the OBJ reader alone (core/geometry/mesh.c), chosen at compile time by
 * FUZZ_MESH_OBJ: the input is the file. A mesh the reader accepts must pass op_mesh_check
 * (finite coordinates, indices in range, no triangle repeating a vertex), the promise every
 * later stage relies on; a refusal must carry a message. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_input.h"
#include "opsim/mesh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static fuzz_file input;
    const char *path = fuzz_file_set(&input, "fuzz-mesh", data, size);
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_mesh mesh;
#ifdef FUZZ_MESH_OBJ
    int status = op_mesh_read_obj(&ctx, path, &mesh);
#else
    int status = op_mesh_read_off(&ctx, path, &mesh);
#endif
    fuzz_check_outcome(&ctx, status);
    if (status == OP_OK) {
        op_ctx check;
        op_ctx_init(&check);
        if (mesh.face_count < 1 || mesh.polygon_count < 1 || op_mesh_check(&check, &mesh, "fuzz") != OP_OK) {
            fprintf(stderr, "fuzz: the reader accepted a mesh that fails its check: %s\n", check.message);
            abort();
        }
    }
    op_mesh_free(&mesh);
    return 0;
}
