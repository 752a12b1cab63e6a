/* libFuzzer target for the mesh-to-graph build (core/geometry/build.c, core/geometry/voxel.c, core/geometry/skin.c) as
 * `opsim graph --mesh FILE.off` runs it: read, then build. The input's first line is
 * "KIND PARTICLES VOXELS SEED" (any of them missing or unreadable: 0), the rest is the OFF file.
 * The values are folded into small ranges (kind any of the four, 1 to 16 particles, 4 to 24
 * voxels along the longest extent) so one execution takes milliseconds: the fuzzer explores
 * shapes, not sizes (the long-thin-mesh hang of issue 23 was a shape). The grid's cells can
 * still be many: they are at most a quarter of the thinnest extent (core/geometry/voxel.c), so a cube
 * with one vertex pulled 7 km away needed 55 million, 1.3 s natively but over the 60 s limit
 * under the sanitizers on a loaded machine. Meshes whose grid (computed here as voxel.c does)
 * would exceed a million cells are therefore not built; voxel.c's own bound (2e8 cells) is
 * tested in tests/test_hardening.c. A build that succeeds must pass op_graph_check and
 * op_skin_check; a refusal must carry a message. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geometry/build.h"
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { FUZZ_MAX_CELLS = 1000000 };

/* The cell count of voxel.c's grid for `mesh` at `resolution` cells along the longest extent
 * (NaN or infinite where voxel.c refuses the mesh). */
static double grid_cells(const op_mesh *mesh, int resolution)
{
    double lo[3], hi[3], extent[3];
    op_mesh_bounds(mesh, lo, hi);
    for (int d = 0; d < 3; ++d)
        extent[d] = hi[d] - lo[d];
    double longest = fmax(extent[0], fmax(extent[1], extent[2]));
    double size = fmin(longest / resolution, fmin(extent[0], fmin(extent[1], extent[2])) / 4.0);
    double cells = 1;
    for (int d = 0; d < 3; ++d)
        cells *= ceil(extent[d] / size) + 2;
    return cells;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *newline = memchr(data, '\n', size);
    size_t first_line = newline ? (size_t)(newline - data) : size;
    char header[64] = "";
    memcpy(header, data, first_line < sizeof header - 1 ? first_line : sizeof header - 1);
    unsigned kind = 0, particles = 0, voxels = 0;
    unsigned long long seed = 0;
    sscanf(header, "%u %u %u %llu", &kind, &particles, &voxels, &seed);

    op_build_def def = op_default_build_def();
    def.kind = (op_body_kind)(kind % 4);
    def.particles = 1 + (int)(particles % 16);
    def.voxel_resolution = 4 + (int)(voxels % 21);
    def.seed = seed;

    static fuzz_file input;
    size_t skip = newline ? first_line + 1 : size;
    const char *path = fuzz_file_set(&input, "fuzz-build", data + skip, size - skip);
    op_ctx ctx;
    op_ctx_init(&ctx);
    op_mesh mesh;
    op_graph graph = { 0 };
    op_skin skin = { 0 };
    int status = op_mesh_read_off(&ctx, path, &mesh);
    if (status == OP_OK && grid_cells(&mesh, def.voxel_resolution) > FUZZ_MAX_CELLS) {
        op_mesh_free(&mesh);
        return 0;
    }
    if (status == OP_OK)
        status = op_build_body(&ctx, &mesh, &def, &graph, &skin);
    fuzz_check_outcome(&ctx, status);
    if (status == OP_OK) {
        op_ctx check;
        op_ctx_init(&check);
        if (op_graph_check(&check, &graph, "fuzz") != OP_OK ||
            op_skin_check(&check, &skin, graph.particle_count, "fuzz") != OP_OK ||
            skin.vertex_count != mesh.vertex_count) {
            fprintf(stderr, "fuzz: a built graph fails its check: %s\n", check.message);
            abort();
        }
    }
    op_graph_free(&graph);
    op_skin_free(&skin);
    op_mesh_free(&mesh);
    return 0;
}
