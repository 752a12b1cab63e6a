/* The graph cache (graph_cache.h): key, entry file, load or build and store. SHA-256 is
 * nettle's. */
#include "geometry/graph_cache.h"

#include <errno.h>
#include <nettle/sha2.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/atomic.h"

static const char magic[] = "opsim-graph-cache";
static const char default_directory[] = "data/cache/graphs";

static void (*notice_hook)(const char *message);

const char *op_graph_cache_directory(void)
{
    const char *directory = getenv("OPSIM_GRAPH_CACHE");
    if (!directory)
        return default_directory;
    return directory[0] == '\0' || strcmp(directory, "off") == 0 ? NULL : directory;
}

void op_graph_cache_set_notice(void (*notice)(const char *message))
{
    notice_hook = notice;
}

static void notify(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void notify(const char *format, ...)
{
    if (!notice_hook)
        return;
    char message[8192];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    notice_hook(message);
}

typedef uint8_t op_digest[SHA256_DIGEST_SIZE];

/* The key: the mesh as the builder reads it, every byte of the build def, the machine layout. */
static void entry_key(const op_mesh *mesh, const op_build_def *def, op_digest key)
{
    op_build_def canonical = *def;
#if defined(__has_builtin)
#if __has_builtin(__builtin_clear_padding)
    /* Padding holds whatever the stack held: cleared, equal defs give equal keys. A compiler
     * without the builtin (clang 14) may only miss the cache, never hit the wrong entry. */
    __builtin_clear_padding(&canonical);
#endif
#endif
    const int32_t layout[] = { (int32_t)sizeof(int), (int32_t)sizeof(double), (int32_t)sizeof canonical, 0x01020304 };
    const double one = 1.0;
    const int32_t counts[3] = { mesh->vertex_count, mesh->face_count, mesh->polygon_count };
    struct sha256_ctx hash;
    sha256_init(&hash);
    sha256_update(&hash, sizeof layout, (const uint8_t *)layout);
    sha256_update(&hash, sizeof one, (const uint8_t *)&one);
    sha256_update(&hash, sizeof counts, (const uint8_t *)counts);
    sha256_update(&hash, 3 * sizeof(double) * (size_t)mesh->vertex_count, (const uint8_t *)mesh->vertices);
    sha256_update(&hash, 3 * sizeof(int) * (size_t)mesh->face_count, (const uint8_t *)mesh->faces);
    sha256_update(&hash, sizeof canonical, (const uint8_t *)&canonical);
    sha256_digest(&hash, sizeof(op_digest), key);
}

static int directory_path(op_ctx *ctx, const char *directory, const op_digest key, char *path, size_t path_size)
{
    char hex[33];
    for (int b = 0; b < 16; ++b)
        snprintf(&hex[2 * b], 3, "%02x", key[b]);
    if ((size_t)snprintf(path, path_size, "%s/%s.graph", directory, hex) >= path_size)
        return OP_FAIL(ctx, OP_ERR_INVALID, "graph cache: the directory name '%s' is too long", directory);
    return OP_OK;
}

int op_graph_cache_path(op_ctx *ctx, const char *directory, const op_mesh *mesh, const op_build_def *def,
                        char *path, size_t path_size)
{
    op_digest key;
    entry_key(mesh, def, key);
    return directory_path(ctx, directory, key, path, path_size);
}

/* mkdir -p, for the cache directory's missing parents. */
static int make_directories(const char *directory)
{
    char partial[4096];
    size_t length = strlen(directory);
    if (length >= sizeof partial)
        return -1;
    for (size_t i = 1; i <= length; ++i)
        if (i == length || directory[i] == '/') {
            memcpy(partial, directory, i);
            partial[i] = '\0';
            if (mkdir(partial, 0777) != 0 && errno != EEXIST)
                return -1;
        }
    return 0;
}

/* The entry's header; the arrays follow in the order of entry_arrays. */
typedef struct entry_header {
    char magic[sizeof magic];
    int32_t version;
    op_digest key;
    int32_t particles, edges, skin_vertices, skin_k;
    op_build_report report;
    double density;
} entry_header;

typedef struct entry_array {
    void *data;
    size_t bytes;
} entry_array;

/* The arrays of a graph and skin allocated for the header's counts. */
static int entry_arrays(const op_graph *g, const op_skin *s, entry_array arrays[10])
{
    size_t n = (size_t)g->particle_count, cells = (size_t)s->vertex_count * (size_t)s->k;
    entry_array list[10] = {
        { g->adjacency_start, (n + 1) * sizeof(int) },
        { g->adjacency, 2 * (size_t)g->edge_count * sizeof(int) },
        { g->rest_position, 3 * n * sizeof(double) },
        { g->rest_axes, 9 * n * sizeof(double) },
        { g->radii, 3 * n * sizeof(double) },
        { g->volume, n * sizeof(double) },
        { g->mass, n * sizeof(double) },
        { g->rest_moment, 9 * n * sizeof(double) },
        { s->index, cells * sizeof(int) },
        { s->weight, cells * sizeof(double) },
    };
    memcpy(arrays, list, sizeof list);
    return 10;
}

typedef enum { ENTRY_LOADED, ENTRY_MISSING, ENTRY_DAMAGED, ENTRY_STALE } entry_state;

/* Reads the entry at `path` into graph and skin. `why` says what is wrong with a damaged or
 * stale one. Reads the whole file first and checks its checksum before trusting any count. */
static entry_state entry_read(const char *path, const op_digest key, op_graph *graph, op_skin *skin,
                              op_build_report *report, char *why, size_t why_size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT)
            return ENTRY_MISSING;
        snprintf(why, why_size, "cannot open it: %s", strerror(errno));
        return ENTRY_DAMAGED;
    }
    struct stat info;
    uint8_t *bytes = NULL;
    size_t size = 0;
    entry_state state = ENTRY_DAMAGED;
    op_ctx inner;
    op_ctx_init(&inner);
    if (fstat(fileno(f), &info) != 0 || info.st_size < (off_t)(sizeof(entry_header) + sizeof(op_digest))) {
        snprintf(why, why_size, "%s", "shorter than its header");
        goto done;
    }
    size = (size_t)info.st_size;
    if (!(bytes = malloc(size)) || fread(bytes, 1, size, f) != size) {
        snprintf(why, why_size, "cannot read it: %s", bytes ? strerror(errno) : "out of memory");
        goto done;
    }
    size_t body = size - sizeof(op_digest);
    op_digest sum;
    struct sha256_ctx hash;
    sha256_init(&hash);
    sha256_update(&hash, body, bytes);
    sha256_digest(&hash, sizeof sum, sum);
    if (memcmp(sum, bytes + body, sizeof sum) != 0) {
        snprintf(why, why_size, "%s", "its checksum does not match its content");
        goto done;
    }
    entry_header header;
    memcpy(&header, bytes, sizeof header);
    if (memcmp(header.magic, magic, sizeof magic) != 0) {
        snprintf(why, why_size, "%s", "not a graph cache entry");
        goto done;
    }
    if (header.version != OP_BUILD_VERSION || memcmp(header.key, key, sizeof(op_digest)) != 0) {
        if (header.version != OP_BUILD_VERSION)
            snprintf(why, why_size, "built by builder version %d, this is %d", header.version, OP_BUILD_VERSION);
        else
            snprintf(why, why_size, "%s", "built for another mesh or build def");
        state = ENTRY_STALE;
        goto done;
    }
    if (header.particles < 1 || header.particles > 100000000 || header.edges < 0 || header.edges > 1000000000 ||
        header.skin_vertices < 0 || header.skin_vertices > 100000000 || header.skin_k < 1 ||
        header.skin_k > OP_SKIN_MAX_K || op_graph_alloc(&inner, graph, header.particles, header.edges) != OP_OK ||
        op_skin_alloc(&inner, skin, header.skin_vertices, header.skin_k) != OP_OK) {
        snprintf(why, why_size, "%s", "counts out of range");
        goto done;
    }
    graph->density = header.density;
    *report = header.report;
    entry_array arrays[10];
    int count = entry_arrays(graph, skin, arrays);
    size_t at = sizeof header;
    for (int a = 0; a < count; ++a) {
        if (arrays[a].bytes > body - at) {
            snprintf(why, why_size, "%s", "shorter than its counts say");
            goto done;
        }
        memcpy(arrays[a].data, bytes + at, arrays[a].bytes);
        at += arrays[a].bytes;
    }
    if (at != body) {
        snprintf(why, why_size, "%s", "longer than its counts say");
        goto done;
    }
    if (op_graph_check(&inner, graph, path) != OP_OK || op_skin_check(&inner, skin, graph->particle_count, path) != OP_OK) {
        snprintf(why, why_size, "%s", inner.message);
        goto done;
    }
    state = ENTRY_LOADED;
done:
    free(bytes);
    fclose(f);
    if (state != ENTRY_LOADED) {
        op_graph_free(graph);
        op_skin_free(skin);
    }
    return state;
}

/* Writes the entry atomically; a failure is returned through ctx and leaves nothing behind. */
static int entry_write(op_ctx *ctx, const char *path, const op_digest key, const op_graph *graph, const op_skin *skin,
                       const op_build_report *report)
{
    entry_header header;
    memset(&header, 0, sizeof header);
    memcpy(header.magic, magic, sizeof magic);
    header.version = OP_BUILD_VERSION;
    memcpy(header.key, key, sizeof(op_digest));
    header.particles = graph->particle_count;
    header.edges = graph->edge_count;
    header.skin_vertices = skin->vertex_count;
    header.skin_k = skin->k;
    header.report = *report;
    header.density = graph->density;
    entry_array arrays[11] = { { &header, sizeof header } };
    int count = 1 + entry_arrays(graph, skin, &arrays[1]);
    op_atomic_file file;
    if (op_atomic_open(ctx, &file, path) != OP_OK)
        return ctx->status;
    struct sha256_ctx hash;
    sha256_init(&hash);
    for (int a = 0; a < count; ++a) {
        sha256_update(&hash, arrays[a].bytes, arrays[a].data);
        fwrite(arrays[a].data, 1, arrays[a].bytes, file.file);
    }
    op_digest sum;
    sha256_digest(&hash, sizeof sum, sum);
    fwrite(sum, 1, sizeof sum, file.file);
    return op_atomic_commit(ctx, &file);
}

int op_build_body_cached(op_ctx *ctx, const char *directory, const char *label, const op_mesh *mesh,
                         const op_build_def *def, op_graph *graph, op_skin *skin, op_build_report *report,
                         op_graph_cache_outcome *outcome)
{
    op_graph_cache_outcome ignored;
    op_build_report unused;
    outcome = outcome ? outcome : &ignored;
    report = report ? report : &unused;
    *outcome = OP_GRAPH_CACHE_OFF;
    memset(graph, 0, sizeof *graph);
    memset(skin, 0, sizeof *skin);
    char path[4096];
    op_digest key;
    if (directory) {
        entry_key(mesh, def, key);
        if (directory_path(ctx, directory, key, path, sizeof path) != OP_OK)
            return ctx->status;
        char why[1024] = "";
        switch (entry_read(path, key, graph, skin, report, why, sizeof why)) {
        case ENTRY_LOADED: *outcome = OP_GRAPH_CACHE_HIT; return OP_OK;
        case ENTRY_MISSING: *outcome = OP_GRAPH_CACHE_MISS; break;
        case ENTRY_DAMAGED:
            *outcome = OP_GRAPH_CACHE_DAMAGED;
            notify("graph cache: %s (%s): damaged entry (%s); building it again", path, label, why);
            break;
        case ENTRY_STALE:
            *outcome = OP_GRAPH_CACHE_STALE;
            notify("graph cache: %s (%s): stale entry (%s); building it again", path, label, why);
            break;
        }
    }
    if (op_build_body_report(ctx, mesh, def, graph, skin, report) != OP_OK || !directory)
        return ctx->status;
    op_ctx inner;
    op_ctx_init(&inner);
    if (make_directories(directory) != 0)
        notify("graph cache: %s: cannot create the directory (%s); %s is not cached", directory, strerror(errno),
               label);
    else if (entry_write(&inner, path, key, graph, skin, report) != OP_OK)
        notify("graph cache: %s is not cached: %s", label, inner.message);
    return OP_OK;
}
