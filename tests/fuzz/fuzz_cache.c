/* libFuzzer target for the graph cache's entry reader (op_graph_cache_entry_parse,
 * core/geometry/graph_cache.h). The input is an entry without its trailer; the target seals it
 * with the HMAC under a fixed secret, so that the fuzzer explores what lies behind the
 * checksum (counts, sizes, offsets, the stored mesh and def, the graph and skin checks), not
 * the checksum itself. An entry accepted must pass op_graph_check and op_skin_check again and
 * hold a skin of its mesh's vertex count; a refusal must say why. The seeds (tests/fuzz/cache/)
 * are a valid entry and the crafted entries of issue 42 (tests/test_graph_cache.c writes
 * them). */
#define _GNU_SOURCE
#include <nettle/hmac.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geometry/graph_cache.h"
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t fuzz_secret[OP_GRAPH_CACHE_SECRET_SIZE] = "opsim fuzz secret, fixed.......";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *entry = malloc(size + OP_GRAPH_CACHE_DIGEST_SIZE);
    if (!entry)
        return 0;
    if (size)
        memcpy(entry, data, size);
    struct hmac_sha256_ctx hmac;
    hmac_sha256_set_key(&hmac, sizeof fuzz_secret, fuzz_secret);
    hmac_sha256_update(&hmac, size, entry);
    hmac_sha256_digest(&hmac, OP_GRAPH_CACHE_DIGEST_SIZE, entry + size);
    op_graph_cache_expect expect = { .any_key = 1, .vertex_count = -1 };
    memcpy(expect.secret, fuzz_secret, sizeof fuzz_secret);
    op_graph graph;
    op_skin skin;
    op_build_report report;
    op_graph_cache_source source;
    char why[1024] = "";
    int state = op_graph_cache_entry_parse(entry, size + OP_GRAPH_CACHE_DIGEST_SIZE, &expect, &graph, &skin, &report,
                                           &source, why, sizeof why);
    if (state == OP_GRAPH_CACHE_ENTRY_LOADED) {
        op_ctx ctx;
        op_ctx_init(&ctx);
        if (op_graph_check(&ctx, &graph, "fuzz") != OP_OK ||
            op_skin_check(&ctx, &skin, graph.particle_count, "fuzz") != OP_OK ||
            skin.vertex_count != source.mesh.vertex_count) {
            fprintf(stderr, "fuzz: an accepted entry fails a check: %s\n", ctx.message);
            abort();
        }
        op_graph_free(&graph);
        op_skin_free(&skin);
        op_mesh_free(&source.mesh);
    } else if (why[0] == '\0') {
        fprintf(stderr, "fuzz: entry refused (state %d) without a reason\n", state);
        abort();
    }
    free(entry);
    return 0;
}
