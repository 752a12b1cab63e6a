/* The graph cache (graph_cache.h): key, entry file, load or build and store. SHA-256 is
 * nettle's. */
#include "geometry/graph_cache.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <nettle/hmac.h>
#include <nettle/sha2.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "geometry/mesh_intersect.h"
#include "io/atomic.h"

static const char magic[] = "opsim-graph-cache-2"; /* 2: holds its mesh and def, HMAC trailer */
static const char default_directory[] = "data/cache/graphs";

static void (*notice_hook)(const char *message);
static void (*build_notice_hook)(const char *message);

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

void op_graph_cache_set_build_notice(void (*notice)(const char *message))
{
    build_notice_hook = notice;
}

static void notify_build(const char *label, const op_build_def *def)
{
    if (!build_notice_hook)
        return;
    char message[1024];
    snprintf(message, sizeof message, "building the graph of %s (%d particles)…", label, def->particles);
    build_notice_hook(message);
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

typedef uint8_t op_digest[OP_GRAPH_CACHE_DIGEST_SIZE];

/* The key: the mesh as the builder reads it, every byte of the build def, the machine layout. */
static op_build_def canonical_def(const op_build_def *def)
{
    op_build_def canonical = *def;
#if defined(__has_builtin)
#if __has_builtin(__builtin_clear_padding)
    /* Padding holds whatever the stack held: cleared, equal defs give equal keys. A compiler
     * without the builtin (clang 14) may only miss the cache, never hit the wrong entry. */
    __builtin_clear_padding(&canonical);
#endif
#endif
    return canonical;
}

static void entry_key(const op_mesh *mesh, const op_build_def *def, op_digest key)
{
    op_build_def canonical = canonical_def(def);
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
    int32_t mesh_vertices, mesh_faces, mesh_polygons;
    int32_t crossing[2]; /* the mesh's first pair of crossing triangles (mesh_intersect.h), or -1 -1 */
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

/* What the entry was built from, stored so that it binds itself: its key is recomputed from
 * these bytes on every read, and `opsim cache verify` builds it again from them. */
static int entry_source_arrays(const op_build_def *def, const op_mesh *mesh, entry_array arrays[3])
{
    entry_array list[3] = {
        { (void *)def, sizeof *def },
        { mesh->vertices, 3 * (size_t)mesh->vertex_count * sizeof(double) },
        { mesh->faces, 3 * (size_t)mesh->face_count * sizeof(int) },
    };
    memcpy(arrays, list, sizeof list);
    return 3;
}

/* The cache's secret: 32 random bytes in DIRECTORY/secret (mode 0600), made by the first
 * writer. The trailer is HMAC-SHA256 under it, so an entry edited and given a recomputed plain
 * checksum, or copied from another cache, fails the check. Returns 0 when read. */
static int secret_read(const char *directory, uint8_t secret[OP_GRAPH_CACHE_SECRET_SIZE])
{
    char path[4200];
    if ((size_t)snprintf(path, sizeof path, "%s/secret", directory) >= sizeof path)
        return -1;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat info;
    int ok = fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_size == OP_GRAPH_CACHE_SECRET_SIZE &&
             read(fd, secret, OP_GRAPH_CACHE_SECRET_SIZE) == OP_GRAPH_CACHE_SECRET_SIZE;
    close(fd);
    return ok ? 0 : -1;
}

/* Reads the secret, making it first when there is none: written whole under a temporary name,
 * then linked (not renamed) to its name, so that of two processes making it at once the first
 * wins and both use its bytes. */
static int secret_get(const char *directory, uint8_t secret[OP_GRAPH_CACHE_SECRET_SIZE])
{
    if (secret_read(directory, secret) == 0)
        return 0;
    char temp[4200], path[4200];
    if ((size_t)snprintf(temp, sizeof temp, "%s/secret.%ld.tmp", directory, (long)getpid()) >= sizeof temp ||
        (size_t)snprintf(path, sizeof path, "%s/secret", directory) >= sizeof path)
        return -1;
    uint8_t fresh[OP_GRAPH_CACHE_SECRET_SIZE];
    if (getrandom(fresh, sizeof fresh, 0) != (ssize_t)sizeof fresh)
        return -1;
    unlink(temp);
    int fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    int written = write(fd, fresh, sizeof fresh) == (ssize_t)sizeof fresh && fsync(fd) == 0;
    close(fd);
    if (written && link(temp, path) != 0 && errno != EEXIST)
        written = 0;
    unlink(temp);
    return written ? secret_read(directory, secret) : -1;
}

static void entry_mac(const uint8_t secret[OP_GRAPH_CACHE_SECRET_SIZE], const uint8_t *bytes, size_t size,
                      op_digest mac)
{
    struct hmac_sha256_ctx hmac;
    hmac_sha256_set_key(&hmac, OP_GRAPH_CACHE_SECRET_SIZE, secret);
    hmac_sha256_update(&hmac, size, bytes);
    hmac_sha256_digest(&hmac, sizeof(op_digest), mac);
}

/* The bytes the header's counts need, or 0 when a count is out of range. Computed before any
 * allocation: an entry claiming 1e9 edges in 37 kB is refused without allocating them. */
static size_t entry_expected_size(const entry_header *h)
{
    if (h->particles < 1 || h->particles > OP_GRAPH_CACHE_MAX_PARTICLES || h->edges < 0 ||
        h->edges > OP_GRAPH_CACHE_MAX_EDGES || h->skin_vertices < 0 || h->skin_vertices > OP_GRAPH_CACHE_MAX_PARTICLES ||
        h->skin_k < 1 || h->skin_k > OP_SKIN_MAX_K || h->mesh_vertices < 0 ||
        h->mesh_vertices > OP_GRAPH_CACHE_MAX_PARTICLES || h->mesh_faces < 0 ||
        h->mesh_faces > 2 * OP_GRAPH_CACHE_MAX_PARTICLES || h->mesh_polygons < 0 ||
        h->mesh_polygons > 2 * OP_GRAPH_CACHE_MAX_PARTICLES)
        return 0;
    size_t n = (size_t)h->particles, cells = (size_t)h->skin_vertices * (size_t)h->skin_k;
    return sizeof(entry_header) + sizeof(op_build_def) + 3 * (size_t)h->mesh_vertices * sizeof(double) +
           3 * (size_t)h->mesh_faces * sizeof(int) + (n + 1) * sizeof(int) + 2 * (size_t)h->edges * sizeof(int) +
           (3 + 9 + 3 + 1 + 1 + 9) * n * sizeof(double) + cells * (sizeof(int) + sizeof(double)) +
           sizeof(op_digest);
}

int op_graph_cache_entry_parse(const uint8_t *bytes, size_t size, const op_graph_cache_expect *expect,
                               op_graph *graph, op_skin *skin, op_build_report *report, op_graph_cache_source *source,
                               char *why, size_t why_size)
{
    memset(graph, 0, sizeof *graph);
    memset(skin, 0, sizeof *skin);
    entry_header header;
    if (size < sizeof header + sizeof(op_digest)) {
        snprintf(why, why_size, "%s", "shorter than its header");
        return OP_GRAPH_CACHE_ENTRY_DAMAGED;
    }
    memcpy(&header, bytes, sizeof header);
    if (memcmp(header.magic, magic, sizeof magic) != 0) {
        static const char format_1[] = "opsim-graph-cache"; /* before entries held their source */
        int older = memcmp(bytes, format_1, sizeof format_1) == 0;
        snprintf(why, why_size, "%s", older ? "an entry of an older format" : "not a graph cache entry");
        return older ? OP_GRAPH_CACHE_ENTRY_STALE : OP_GRAPH_CACHE_ENTRY_DAMAGED;
    }
    size_t body = size - sizeof(op_digest);
    op_digest mac;
    entry_mac(expect->secret, bytes, body, mac);
    if (memcmp(mac, bytes + body, sizeof mac) != 0) {
        snprintf(why, why_size, "%s", "its checksum does not match its content and this cache's secret");
        return OP_GRAPH_CACHE_ENTRY_DAMAGED;
    }
    if (header.version != OP_BUILD_VERSION) {
        snprintf(why, why_size, "built by builder version %d, this is %d", header.version, OP_BUILD_VERSION);
        return OP_GRAPH_CACHE_ENTRY_STALE;
    }
    if (!expect->any_key && memcmp(header.key, expect->key, sizeof(op_digest)) != 0) {
        snprintf(why, why_size, "%s", "built for another mesh or build def");
        return OP_GRAPH_CACHE_ENTRY_STALE;
    }
    size_t expected = entry_expected_size(&header);
    if (expected == 0 || expected != size || (!expect->any_key && header.skin_vertices != expect->vertex_count)) {
        if (expected == 0)
            snprintf(why, why_size, "%s", "counts out of range");
        else if (expected != size)
            snprintf(why, why_size, "its counts need %zu bytes, the file has %zu", expected, size);
        else
            snprintf(why, why_size, "its skin has %d vertices, the mesh %d", header.skin_vertices,
                     expect->vertex_count);
        return OP_GRAPH_CACHE_ENTRY_DAMAGED;
    }
    op_ctx inner;
    op_ctx_init(&inner);
    op_mesh mesh;
    op_build_def def;
    memset(&def, 0, sizeof def); /* filled from the entry below, through entry_source_arrays */
    memset(&mesh, 0, sizeof mesh);
    if (op_mesh_alloc(&inner, &mesh, header.mesh_vertices, header.mesh_faces) != OP_OK ||
        op_graph_alloc(&inner, graph, header.particles, header.edges) != OP_OK ||
        op_skin_alloc(&inner, skin, header.skin_vertices, header.skin_k) != OP_OK) {
        snprintf(why, why_size, "%s", inner.message);
        op_mesh_free(&mesh);
        op_graph_free(graph);
        return OP_GRAPH_CACHE_ENTRY_DAMAGED;
    }
    mesh.polygon_count = header.mesh_polygons;
    graph->density = header.density;
    *report = header.report;
    entry_array arrays[13];
    int count = entry_source_arrays(&def, &mesh, arrays);
    count += entry_arrays(graph, skin, &arrays[count]);
    size_t at = sizeof header;
    for (int a = 0; a < count; ++a) {
        memcpy(arrays[a].data, bytes + at, arrays[a].bytes);
        at += arrays[a].bytes;
    }
    op_digest own_key;
    entry_key(&mesh, &def, own_key);
    int state = OP_GRAPH_CACHE_ENTRY_LOADED;
    if (memcmp(own_key, header.key, sizeof own_key) != 0) {
        snprintf(why, why_size, "%s", "its key is not that of the mesh and build def it holds");
        state = OP_GRAPH_CACHE_ENTRY_DAMAGED;
    } else if (op_graph_check(&inner, graph, "entry") != OP_OK ||
               op_skin_check(&inner, skin, graph->particle_count, "entry") != OP_OK) {
        snprintf(why, why_size, "%s", inner.message);
        state = OP_GRAPH_CACHE_ENTRY_DAMAGED;
    } else if (header.skin_vertices != header.mesh_vertices) {
        snprintf(why, why_size, "its skin has %d vertices, its mesh %d", header.skin_vertices, header.mesh_vertices);
        state = OP_GRAPH_CACHE_ENTRY_DAMAGED;
    }
    if (state == OP_GRAPH_CACHE_ENTRY_LOADED && (header.crossing[0] < -1 || header.crossing[0] >= header.mesh_faces ||
                                                 header.crossing[1] < -1 || header.crossing[1] >= header.mesh_faces)) {
        snprintf(why, why_size, "%s", "its crossing triangles are out of range");
        state = OP_GRAPH_CACHE_ENTRY_DAMAGED;
    }
    if (state == OP_GRAPH_CACHE_ENTRY_LOADED && source) {
        source->mesh = mesh;
        source->def = def;
        memcpy(source->crossing, header.crossing, sizeof header.crossing);
    } else
        op_mesh_free(&mesh);
    if (state != OP_GRAPH_CACHE_ENTRY_LOADED) {
        op_graph_free(graph);
        op_skin_free(skin);
    }
    return state;
}

/* Reads the entry at `path` whole (a regular file of at most OP_GRAPH_CACHE_MAX_ENTRY_BYTES,
 * never through a link) and parses it. */
static int entry_read(const char *path, const op_graph_cache_expect *expect, op_graph *graph, op_skin *skin,
                      op_build_report *report, op_graph_cache_source *source, char *why, size_t why_size)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return OP_GRAPH_CACHE_ENTRY_MISSING;
        snprintf(why, why_size, "cannot open it: %s", strerror(errno));
        return OP_GRAPH_CACHE_ENTRY_DAMAGED;
    }
    struct stat info;
    uint8_t *bytes = NULL;
    int state = OP_GRAPH_CACHE_ENTRY_DAMAGED;
    if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) || info.st_size > OP_GRAPH_CACHE_MAX_ENTRY_BYTES) {
        snprintf(why, why_size, "not a regular file of at most %lld bytes", (long long)OP_GRAPH_CACHE_MAX_ENTRY_BYTES);
        goto done;
    }
    size_t size = (size_t)info.st_size, got = 0;
    if (!(bytes = malloc(size ? size : 1))) {
        snprintf(why, why_size, "%s", "cannot read it: out of memory");
        goto done;
    }
    while (got < size) {
        ssize_t r = read(fd, bytes + got, size - got);
        if (r <= 0) {
            snprintf(why, why_size, "cannot read it: %s", r < 0 ? strerror(errno) : "shorter than its size");
            goto done;
        }
        got += (size_t)r;
    }
    state = op_graph_cache_entry_parse(bytes, size, expect, graph, skin, report, source, why, why_size);
done:
    free(bytes);
    close(fd);
    return state;
}

/* Writes the entry atomically; a failure is returned through ctx and leaves nothing behind. */
static int entry_write(op_ctx *ctx, const char *path, const op_graph_cache_expect *expect, const op_mesh *mesh,
                       const op_build_def *def, const op_graph *graph, const op_skin *skin,
                       const op_build_report *report, const int crossing[2])
{
    op_build_def canonical = canonical_def(def);
    entry_header header;
    memset(&header, 0, sizeof header);
    memcpy(header.magic, magic, sizeof magic);
    header.version = OP_BUILD_VERSION;
    memcpy(header.key, expect->key, sizeof(op_digest));
    header.particles = graph->particle_count;
    header.edges = graph->edge_count;
    header.skin_vertices = skin->vertex_count;
    header.skin_k = skin->k;
    header.mesh_vertices = mesh->vertex_count;
    header.mesh_faces = mesh->face_count;
    header.mesh_polygons = mesh->polygon_count;
    header.crossing[0] = crossing[0];
    header.crossing[1] = crossing[1];
    header.report = *report;
    header.density = graph->density;
    entry_array arrays[14] = { { &header, sizeof header } };
    int count = 1 + entry_source_arrays(&canonical, mesh, &arrays[1]);
    count += entry_arrays(graph, skin, &arrays[count]);
    op_atomic_file file;
    if (op_atomic_open(ctx, &file, path) != OP_OK)
        return ctx->status;
    struct hmac_sha256_ctx hmac;
    hmac_sha256_set_key(&hmac, OP_GRAPH_CACHE_SECRET_SIZE, expect->secret);
    for (int a = 0; a < count; ++a) {
        hmac_sha256_update(&hmac, arrays[a].bytes, arrays[a].data);
        fwrite(arrays[a].data, 1, arrays[a].bytes, file.file);
    }
    op_digest sum;
    hmac_sha256_digest(&hmac, sizeof sum, sum);
    fwrite(sum, 1, sizeof sum, file.file);
    return op_atomic_commit(ctx, &file);
}

/* A warning, not a refusal: overlapping parts are sometimes meant (a figure's limbs), and the
 * graph of the union may be what the researcher wants. Said at every load, cached or not. */
static void report_crossing(const char *label, const int crossing[2])
{
    if (crossing[0] >= 0)
        notify("%s: warning: the mesh's surface intersects itself (triangles %d and %d cross, the first pair); "
               "its inside is ambiguous and the graph fills what the voxelizer takes for inside",
               label, crossing[0], crossing[1]);
}

/* Bit for bit: every array, the count and the density. */
static int graphs_identical(const op_graph *a, const op_graph *b, const op_skin *s, const op_skin *t)
{
    if (a->particle_count != b->particle_count || a->edge_count != b->edge_count ||
        memcmp(&a->density, &b->density, sizeof a->density) != 0 || s->vertex_count != t->vertex_count ||
        s->k != t->k)
        return 0;
    entry_array x[10], y[10];
    int count = entry_arrays(a, s, x);
    entry_arrays(b, t, y);
    for (int i = 0; i < count; ++i)
        if (x[i].bytes != y[i].bytes || (x[i].bytes && memcmp(x[i].data, y[i].data, x[i].bytes) != 0))
            return 0;
    return 1;
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
    op_graph_cache_expect expect = { .vertex_count = mesh->vertex_count };
    int invalid = 0, crossing[2] = { -1, -1 };
    if (directory) {
        entry_key(mesh, def, expect.key);
        if (directory_path(ctx, directory, expect.key, path, sizeof path) != OP_OK)
            return ctx->status;
        char why[1024] = "";
        op_graph_cache_source source;
        int state = secret_read(directory, expect.secret) == 0
                        ? entry_read(path, &expect, graph, skin, report, &source, why, sizeof why)
                        : OP_GRAPH_CACHE_ENTRY_MISSING;
        if (state == OP_GRAPH_CACHE_ENTRY_LOADED) {
            op_mesh_free(&source.mesh);
            memcpy(crossing, source.crossing, sizeof crossing);
        }
        if (state == OP_GRAPH_CACHE_ENTRY_MISSING && access(path, F_OK) == 0) {
            state = OP_GRAPH_CACHE_ENTRY_DAMAGED; /* an entry, but no secret to check it with */
            snprintf(why, sizeof why, "%s", "the cache has no secret to check it with");
        }
        switch (state) {
        case OP_GRAPH_CACHE_ENTRY_LOADED:
            *outcome = OP_GRAPH_CACHE_HIT;
            report_crossing(label, crossing);
            return OP_OK;
        case OP_GRAPH_CACHE_ENTRY_MISSING: *outcome = OP_GRAPH_CACHE_MISS; break;
        case OP_GRAPH_CACHE_ENTRY_DAMAGED:
            *outcome = OP_GRAPH_CACHE_DAMAGED;
            invalid = 1;
            notify("graph cache: %s (%s): damaged entry (%s); building it again", path, label, why);
            break;
        default:
            *outcome = OP_GRAPH_CACHE_STALE;
            invalid = 1;
            notify("graph cache: %s (%s): stale entry (%s); building it again", path, label, why);
            break;
        }
    }
    notify_build(label, def);
    if (op_build_body_report(ctx, mesh, def, graph, skin, report) != OP_OK) {
        if (invalid)
            unlink(path); /* never kept, even when the build fails */
        return ctx->status;
    }
    if (op_mesh_self_intersection(mesh, crossing) != 1)
        crossing[0] = crossing[1] = -1;
    report_crossing(label, crossing);
    if (!directory)
        return OP_OK;
    op_ctx inner;
    op_ctx_init(&inner);
    if (make_directories(directory) != 0)
        notify("graph cache: %s: cannot create the directory (%s); %s is not cached", directory, strerror(errno),
               label);
    else if (secret_get(directory, expect.secret) != 0)
        notify("graph cache: %s: cannot read or make its secret; %s is not cached", directory, label);
    else if (entry_write(&inner, path, &expect, mesh, def, graph, skin, report, crossing) != OP_OK)
        notify("graph cache: %s is not cached: %s", label, inner.message);
    else
        invalid = 0;
    if (invalid)
        unlink(path);
    return OP_OK;
}

int op_graph_cache_verify_entry(const char *directory, const char *name, char *why, size_t why_size)
{
    op_graph_cache_expect expect = { .any_key = 1, .vertex_count = -1 };
    char path[4400];
    why[0] = '\0';
    if ((size_t)snprintf(path, sizeof path, "%s/%s", directory, name) >= sizeof path) {
        snprintf(why, why_size, "%s", "path too long");
        return OP_GRAPH_CACHE_VERIFY_INVALID;
    }
    if (secret_read(directory, expect.secret) != 0) {
        snprintf(why, why_size, "%s", "the cache has no secret to check it with");
        return OP_GRAPH_CACHE_VERIFY_INVALID;
    }
    op_graph cached, fresh;
    op_skin cached_skin, fresh_skin;
    op_build_report cached_report, fresh_report;
    op_graph_cache_source source;
    int state = entry_read(path, &expect, &cached, &cached_skin, &cached_report, &source, why, why_size);
    if (state != OP_GRAPH_CACHE_ENTRY_LOADED)
        return state == OP_GRAPH_CACHE_ENTRY_STALE ? OP_GRAPH_CACHE_VERIFY_STALE : OP_GRAPH_CACHE_VERIFY_INVALID;
    char expected_path[4400];
    op_digest key;
    entry_key(&source.mesh, &source.def, key);
    op_ctx inner;
    op_ctx_init(&inner);
    int verdict = OP_GRAPH_CACHE_VERIFY_SAME;
    if (directory_path(&inner, directory, key, expected_path, sizeof expected_path) != OP_OK ||
        strcmp(expected_path, path) != 0) {
        snprintf(why, why_size, "%s", "stored under another key's name");
        verdict = OP_GRAPH_CACHE_VERIFY_INVALID;
    } else if (op_build_body_report(&inner, &source.mesh, &source.def, &fresh, &fresh_skin, &fresh_report) != OP_OK) {
        snprintf(why, why_size, "cannot build it again: %s", inner.message);
        verdict = OP_GRAPH_CACHE_VERIFY_UNBUILDABLE;
    } else {
        if (!graphs_identical(&cached, &fresh, &cached_skin, &fresh_skin) ||
            memcmp(&cached_report, &fresh_report, sizeof cached_report) != 0) {
            snprintf(why, why_size, "%s", "its graph, skin or report differs from a fresh build");
            verdict = OP_GRAPH_CACHE_VERIFY_DIFFERENT;
        }
        op_graph_free(&fresh);
        op_skin_free(&fresh_skin);
    }
    op_mesh_free(&source.mesh);
    op_graph_free(&cached);
    op_skin_free(&cached_skin);
    return verdict;
}

/* "<hex>.graph", or a temporary "<hex>.graph.<pid>.tmp" / "secret.<pid>.tmp": 2, 1, else 0. */
static int cache_file_kind(const char *name, long *pid)
{
    size_t length = strlen(name);
    const char *dot = strstr(name, ".graph");
    if (dot && strcmp(dot, ".graph") == 0 && dot - name == 32)
        return 2;
    if (length > 4 && strcmp(name + length - 4, ".tmp") == 0) {
        const char *end = name + length - 4, *digits = end;
        while (digits > name && digits[-1] >= '0' && digits[-1] <= '9')
            --digits;
        if (digits < end && digits > name && digits[-1] == '.') {
            *pid = atol(digits);
            return 1;
        }
    }
    return 0;
}

int op_graph_cache_is_entry_name(const char *name)
{
    long pid;
    return cache_file_kind(name, &pid) == 2;
}

int op_graph_cache_prune(op_ctx *ctx, const char *directory, int all, void (*report)(const char *path, const char *why),
                         op_graph_cache_prune_count *count)
{
    memset(count, 0, sizeof *count);
    DIR *dir = opendir(directory);
    if (!dir)
        return errno == ENOENT ? OP_OK
                               : OP_FAIL(ctx, OP_ERR_IO, "%s: cannot list the graph cache: %s", directory, strerror(errno));
    op_graph_cache_expect expect = { .any_key = 1, .vertex_count = -1 };
    int have_secret = secret_read(directory, expect.secret) == 0;
    struct dirent *entry;
    while ((entry = readdir(dir))) {
        long pid = 0;
        int kind = cache_file_kind(entry->d_name, &pid);
        char path[4400], why[1024] = "";
        if (!kind || (size_t)snprintf(path, sizeof path, "%s/%s", directory, entry->d_name) >= sizeof path)
            continue;
        if (kind == 1) {
            if (pid > 0 && pid != getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH && unlink(path) == 0) {
                ++count->removed_temporary;
                if (report)
                    report(path, "temporary file of a process that has ended");
            }
            continue;
        }
        op_graph graph;
        op_skin skin;
        op_build_report build_report;
        int state = OP_GRAPH_CACHE_ENTRY_DAMAGED;
        if (!have_secret)
            snprintf(why, sizeof why, "%s", "the cache has no secret to check it with");
        else
            state = entry_read(path, &expect, &graph, &skin, &build_report, NULL, why, sizeof why);
        if (state == OP_GRAPH_CACHE_ENTRY_LOADED) {
            op_graph_free(&graph);
            op_skin_free(&skin);
            if (!all) {
                ++count->kept;
                continue;
            }
            snprintf(why, sizeof why, "%s", "valid (--all)");
        }
        if (unlink(path) != 0)
            continue;
        if (state == OP_GRAPH_CACHE_ENTRY_LOADED)
            ++count->removed_valid;
        else
            ++count->removed_invalid;
        if (report)
            report(path, why);
    }
    closedir(dir);
    return OP_OK;
}
