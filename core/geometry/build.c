/* Graph builders: interior voxels → cells → particles, edges and skinning. See build.h. */
#include "geometry/build.h"

#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/math3.h"
#include "base/rng.h"
#include "geometry/voxel.h"

op_build_def op_default_build_def(void)
{
    return (op_build_def){ .kind = OP_BODY_SOLID,
                           .particles = 100,
                           .seed = 1,
                           .voxel_resolution = 96,
                           .lloyd_iterations = 30,
                           .contact_fraction = 0.3,
                           .overlap_scale = 0.0,
                           .density = 1000.0,
                           .skin_k = 4 };
}

int op_edge_rule_parse(const char *text, double *overlap_scale)
{
    if (strcmp(text, "faces") == 0) {
        *overlap_scale = 0.0;
        return 0;
    }
    if (strncmp(text, "overlap:", 8) != 0)
        return -1;
    char *end;
    double scale = strtod(text + 8, &end);
    if (end == text + 8 || *end || !(scale > 0.0 && scale <= 10.0))
        return -1;
    *overlap_scale = scale;
    return 0;
}

void op_edge_rule_format(double overlap_scale, char *out, size_t size)
{
    if (overlap_scale > 0.0)
        snprintf(out, size, "overlap:%g", overlap_scale);
    else
        snprintf(out, size, "faces");
}

const char *op_body_kind_name(op_body_kind kind)
{
    switch (kind) {
    case OP_BODY_SOLID: return "solid";
    case OP_BODY_ROD: return "rod";
    case OP_BODY_SHELL: return "shell";
    case OP_BODY_LATTICE: return "lattice";
    case OP_BODY_JOINED: return "joined";
    }
    return "unknown";
}

int op_body_kind_parse(const char *name, op_body_kind *kind)
{
    for (op_body_kind k = OP_BODY_SOLID; k <= OP_BODY_JOINED; ++k)
        if (strcmp(name, op_body_kind_name(k)) == 0) {
            *kind = k;
            return 0;
        }
    return -1;
}

/* The interior voxels as a compact list, with their centres. */
typedef struct interior {
    const op_voxels *voxels;
    int count;
    int *cell;       /* [count] grid index of each interior voxel, ascending */
    int *compact_of; /* [grid cells] compact id, or -1 outside */
    double *center;  /* [count][3] */
} interior;

static int interior_make(op_ctx *ctx, const op_voxels *voxels, interior *in)
{
    size_t cells = (size_t)voxels->dims[0] * voxels->dims[1] * voxels->dims[2];
    in->voxels = voxels;
    in->count = voxels->inside_count;
    in->cell = op_calloc(ctx, (size_t)in->count, sizeof(int));
    in->compact_of = op_calloc(ctx, cells, sizeof(int));
    in->center = op_calloc(ctx, 3 * (size_t)in->count, sizeof(double));
    if (ctx->status != OP_OK)
        return ctx->status;
    int next = 0;
    for (size_t c = 0; c < cells; ++c) {
        in->compact_of[c] = voxels->inside[c] ? next : -1;
        if (voxels->inside[c]) {
            in->cell[next] = (int)c;
            op_voxel_center(voxels, (int)c, &in->center[3 * next]);
            ++next;
        }
    }
    return OP_OK;
}

static void interior_free(interior *in)
{
    OP_FREE(in->cell);
    OP_FREE(in->compact_of);
    OP_FREE(in->center);
}

/* Calls visit(neighbour compact id, step length) for the interior 26-neighbours of voxel v. */
#define FOR_EACH_NEIGHBOUR(in, v, body)                                                            \
    do {                                                                                           \
        const op_voxels *vx_ = (in)->voxels;                                                       \
        int g_ = (in)->cell[v], nx_ = vx_->dims[0], ny_ = vx_->dims[1], nz_ = vx_->dims[2];        \
        int x_ = g_ % nx_, y_ = g_ / nx_ % ny_, z_ = g_ / nx_ / ny_;                                \
        for (int dz_ = -1; dz_ <= 1; ++dz_)                                                        \
            for (int dy_ = -1; dy_ <= 1; ++dy_)                                                    \
                for (int dx_ = -1; dx_ <= 1; ++dx_) {                                              \
                    int X_ = x_ + dx_, Y_ = y_ + dy_, Z_ = z_ + dz_;                               \
                    if ((dx_ | dy_ | dz_) == 0 || X_ < 0 || Y_ < 0 || Z_ < 0 || X_ >= nx_ ||       \
                        Y_ >= ny_ || Z_ >= nz_)                                                    \
                        continue;                                                                  \
                    int neighbour = (in)->compact_of[op_voxel_index(vx_, X_, Y_, Z_)];             \
                    if (neighbour < 0)                                                             \
                        continue;                                                                  \
                    double step = step_length[dx_ * dx_ + dy_ * dy_ + dz_ * dz_] * vx_->size;      \
                    body;                                                                          \
                }                                                                                  \
    } while (0)

static const double step_length[4] = { 0.0, 1.0, 1.4142135623730951, 1.7320508075688772 };

/* Binary min-heap of (distance, voxel) with ties broken by voxel id, so Dijkstra visits in a
 * fixed order and the partition is deterministic. Lazy deletion: stale entries are skipped. */
typedef struct heap_entry {
    double distance;
    int voxel;
} heap_entry;

typedef struct heap {
    heap_entry *entries;
    size_t size, capacity;
} heap;

static int heap_less(heap_entry a, heap_entry b)
{
    return a.distance < b.distance || (a.distance == b.distance && a.voxel < b.voxel);
}

static int heap_push(op_ctx *ctx, heap *h, double distance, int voxel)
{
    if (h->size == h->capacity) {
        size_t capacity = h->capacity ? 2 * h->capacity : 1024;
        heap_entry *grown = realloc(h->entries, capacity * sizeof *grown);
        if (!grown)
            return OP_FAIL(ctx, OP_ERR_NOMEM, "out of memory in the voxel distance search");
        h->entries = grown;
        h->capacity = capacity;
    }
    size_t i = h->size++;
    heap_entry e = { distance, voxel };
    while (i > 0 && heap_less(e, h->entries[(i - 1) / 2])) {
        h->entries[i] = h->entries[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->entries[i] = e;
    return OP_OK;
}

static heap_entry heap_pop(heap *h)
{
    heap_entry top = h->entries[0], last = h->entries[--h->size];
    size_t i = 0;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= h->size)
            break;
        if (child + 1 < h->size && heap_less(h->entries[child + 1], h->entries[child]))
            ++child;
        if (!heap_less(h->entries[child], last))
            break;
        h->entries[i] = h->entries[child];
        i = child;
    }
    if (h->size)
        h->entries[i] = last;
    return top;
}

/* The farthest voxel, kept as distances fall: a tournament tree over the voxels whose every node
 * holds the winner of its two children, the larger distance, the lower index on a tie. The root
 * is then what a scan for the first voxel of largest distance finds, in O(log count) a change
 * instead of a scan of every voxel per seed (which made seeding grow as particles × voxels). */
typedef struct farthest_tree {
    const double *distance;
    int leaves; /* a power of two >= count */
    int *node;  /* [2 leaves]: node[1] the root, node[leaves + v] voxel v (-1 past the end) */
} farthest_tree;

static int farther(const farthest_tree *t, int a, int b)
{
    if (b < 0)
        return a;
    if (a < 0)
        return b;
    double da = t->distance[a], db = t->distance[b];
    return da > db || (da == db && a < b) ? a : b;
}

static int farthest_make(op_ctx *ctx, farthest_tree *t, const double *distance, int count)
{
    t->distance = distance;
    for (t->leaves = 1; t->leaves < count; t->leaves *= 2) {
    }
    if (!(t->node = op_calloc(ctx, 2 * (size_t)t->leaves, sizeof *t->node)))
        return ctx->status;
    for (int v = 0; v < t->leaves; ++v)
        t->node[t->leaves + v] = v < count ? v : -1;
    for (int k = t->leaves - 1; k >= 1; --k)
        t->node[k] = farther(t, t->node[2 * k], t->node[2 * k + 1]);
    return OP_OK;
}

/* Voxel v's distance fell: the nodes it won are replayed, from its leaf up. A distance only
 * falls, so where v did not win nothing above changes. */
static void farthest_changed(farthest_tree *t, int v)
{
    for (int k = (t->leaves + v) / 2; k >= 1 && t->node[k] == v; k /= 2)
        t->node[k] = farther(t, t->node[2 * k], t->node[2 * k + 1]);
}

/* Dijkstra through the interior voxels from `source_count` sources, lowering distance[] and
 * relabelling where a source is nearer than before. Sources get label source_label[s]. Each
 * lowered distance is replayed into `farthest` unless it is NULL. */
static int geodesic_relax(op_ctx *ctx, const interior *in, const int *sources, const int *source_label,
                          int source_count, double *distance, int *label, heap *h, farthest_tree *farthest)
{
    h->size = 0;
    for (int s = 0; s < source_count; ++s) {
        distance[sources[s]] = 0.0;
        label[sources[s]] = source_label[s];
        if (farthest)
            farthest_changed(farthest, sources[s]);
        if (heap_push(ctx, h, 0.0, sources[s]) != OP_OK)
            return ctx->status;
    }
    while (h->size) {
        heap_entry e = heap_pop(h);
        if (e.distance > distance[e.voxel])
            continue;
        int v = e.voxel;
        FOR_EACH_NEIGHBOUR(in, v, {
            double d = e.distance + step;
            if (d < distance[neighbour]) {
                distance[neighbour] = d;
                label[neighbour] = label[v];
                if (farthest)
                    farthest_changed(farthest, neighbour);
                if (heap_push(ctx, h, d, neighbour) != OP_OK)
                    return ctx->status;
            }
        });
    }
    return OP_OK;
}

/* Geodesic farthest-point seeding, then Lloyd: each cell's generator moves to the cell voxel
 * nearest the cell's centroid, and the cells are recomputed, until nothing moves. */
static int partition_solid(op_ctx *ctx, const interior *in, const op_build_def *def, int *label)
{
    int n = def->particles, count = in->count;
    if (n > count)
        return OP_FAIL(ctx, OP_ERR_INVALID,
                       "build: %d particles but only %d interior voxels; raise the voxel resolution", n, count);
    int *seeds = op_calloc(ctx, (size_t)n, sizeof(int));
    int *ids = op_calloc(ctx, (size_t)n, sizeof(int));
    int *next_seed = op_calloc(ctx, (size_t)n, sizeof(int));
    double *distance = op_calloc(ctx, (size_t)count, sizeof(double));
    double *centroid = op_calloc(ctx, 3 * (size_t)n, sizeof(double));
    double *best = op_calloc(ctx, (size_t)n, sizeof(double));
    int *members = op_calloc(ctx, (size_t)n, sizeof(int));
    heap h = { 0 };
    farthest_tree farthest = { 0 };
    if (ctx->status != OP_OK)
        goto done;
    for (int v = 0; v < count; ++v)
        distance[v] = INFINITY;
    if (farthest_make(ctx, &farthest, distance, count) != OP_OK)
        goto done;
    op_rng rng = op_rng_seeded(def->seed);
    seeds[0] = op_rng_below(&rng, count);
    for (int s = 0; s < n; ++s) {
        ids[s] = s;
        if (s > 0)
            seeds[s] = farthest.node[1];
        if (geodesic_relax(ctx, in, &seeds[s], &ids[s], 1, distance, label, &h, &farthest) != OP_OK)
            goto done;
    }
    for (int iteration = 0; iteration < def->lloyd_iterations; ++iteration) {
        memset(centroid, 0, 3 * (size_t)n * sizeof(double));
        memset(members, 0, (size_t)n * sizeof(int));
        for (int v = 0; v < count; ++v) {
            v3_add(&centroid[3 * label[v]], &centroid[3 * label[v]], &in->center[3 * v]);
            members[label[v]]++;
        }
        for (int s = 0; s < n; ++s) {
            v3_scale(&centroid[3 * s], &centroid[3 * s], 1.0 / members[s]);
            best[s] = INFINITY;
        }
        for (int v = 0; v < count; ++v) {
            int s = label[v];
            double d = v3_dist2(&in->center[3 * v], &centroid[3 * s]);
            if (d < best[s]) {
                best[s] = d;
                next_seed[s] = v;
            }
        }
        int moved = 0;
        for (int s = 0; s < n; ++s) {
            moved |= next_seed[s] != seeds[s];
            seeds[s] = next_seed[s];
        }
        if (!moved)
            break;
        for (int v = 0; v < count; ++v)
            distance[v] = INFINITY;
        if (geodesic_relax(ctx, in, seeds, ids, n, distance, label, &h, NULL) != OP_OK)
            goto done;
    }
done:
    free(farthest.node);
    free(seeds);
    free(ids);
    free(next_seed);
    free(distance);
    free(centroid);
    free(best);
    free(members);
    free(h.entries);
    return ctx->status;
}

/* Bounding-box axes of the interior voxels, longest first. */
static void axes_by_extent(const interior *in, int order[3], double lo[3], double hi[3])
{
    for (int d = 0; d < 3; ++d) {
        lo[d] = INFINITY;
        hi[d] = -INFINITY;
    }
    for (int v = 0; v < in->count; ++v)
        for (int d = 0; d < 3; ++d) {
            lo[d] = fmin(lo[d], in->center[3 * v + d]);
            hi[d] = fmax(hi[d], in->center[3 * v + d]);
        }
    order[0] = 0, order[1] = 1, order[2] = 2;
    for (int a = 0; a < 3; ++a)
        for (int b = a + 1; b < 3; ++b)
            if (hi[order[b]] - lo[order[b]] > hi[order[a]] - lo[order[a]]) {
                int t = order[a];
                order[a] = order[b];
                order[b] = t;
            }
}

static int grid_slot(double value, double lo, double hi, int slots)
{
    int s = (int)floor((value - lo) / (hi - lo) * slots);
    return s < 0 ? 0 : s >= slots ? slots - 1 : s;
}

/* Rods: slabs along the longest axis. Shells: a u x v grid over the two longest axes, with
 * u/v in proportion to their extents. Lattices: u x v x w over all three, likewise. Empty slots
 * are dropped later. Returns the slot count; slots[] the slots along the axes by extent. */
static int partition_grid(const interior *in, const op_build_def *def, int *label, int slots[3])
{
    int order[3];
    double lo[3], hi[3], extent[3];
    axes_by_extent(in, order, lo, hi);
    for (int d = 0; d < 3; ++d)
        extent[d] = hi[order[d]] - lo[order[d]];
    slots[0] = def->particles, slots[1] = slots[2] = 1;
    if (def->kind == OP_BODY_SHELL) {
        slots[0] = (int)lround(sqrt(def->particles * extent[0] / extent[1]));
        slots[0] = slots[0] < 1 ? 1 : slots[0];
        slots[1] = (int)lround((double)def->particles / slots[0]);
        slots[1] = slots[1] < 1 ? 1 : slots[1];
    } else if (def->kind == OP_BODY_LATTICE) {
        /* slots in proportion to the extents (the voxel size stands in for a flat axis) */
        double size = in->voxels->size, volume = 1.0;
        for (int d = 0; d < 3; ++d)
            volume *= fmax(extent[d], size);
        double spacing = cbrt(volume / def->particles);
        for (int d = 0; d < 3; ++d) {
            slots[d] = (int)lround(fmax(extent[d], size) / spacing);
            slots[d] = slots[d] < 1 ? 1 : slots[d];
        }
    }
    /* widen by half a voxel so the outermost voxels' cells are as wide as the others */
    double half = 0.5 * in->voxels->size;
    for (int v = 0; v < in->count; ++v) {
        const double *c = &in->center[3 * v];
        int s[3];
        for (int d = 0; d < 3; ++d)
            s[d] = grid_slot(c[order[d]], lo[order[d]] - half, hi[order[d]] + half, slots[d]);
        label[v] = s[0] + slots[0] * (s[1] + slots[1] * s[2]);
    }
    return slots[0] * slots[1] * slots[2];
}

/* A lattice's edges: cells whose slots (slot_of[cell], numbered as partition_grid numbers them)
 * differ by at most one along every axis. */
static int lattice_edges(op_ctx *ctx, const int *slot_of, const int slots[3], op_graph *graph)
{
    int n = graph->particle_count, slot_count = slots[0] * slots[1] * slots[2], edge_count = 0;
    int *cell_of = op_calloc(ctx, (size_t)slot_count, sizeof(int));
    int *edges = op_calloc(ctx, 2 * 13 * (size_t)n, sizeof(int));
    if (ctx->status != OP_OK)
        goto done;
    for (int s = 0; s < slot_count; ++s)
        cell_of[s] = -1;
    for (int i = 0; i < n; ++i)
        cell_of[slot_of[i]] = i;
    for (int i = 0; i < n; ++i) {
        int s[3] = { slot_of[i] % slots[0], slot_of[i] / slots[0] % slots[1], slot_of[i] / slots[0] / slots[1] };
        for (int dz = -1; dz <= 1; ++dz)
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    int t[3] = { s[0] + dx, s[1] + dy, s[2] + dz };
                    if (t[0] < 0 || t[1] < 0 || t[2] < 0 || t[0] >= slots[0] || t[1] >= slots[1] || t[2] >= slots[2])
                        continue;
                    int j = cell_of[t[0] + slots[0] * (t[1] + slots[1] * t[2])];
                    if (j > i) { /* each pair once */
                        edges[2 * edge_count] = i;
                        edges[2 * edge_count + 1] = j;
                        ++edge_count;
                    }
                }
    }
    op_graph_set_edges(ctx, graph, edges, edge_count);
done:
    free(cell_of);
    free(edges);
    return ctx->status;
}

/* Renumbers labels 0..slots-1 to drop empty slots, preserving order; returns the cell count. */
static int compact_labels(op_ctx *ctx, int *label, int count, int slots)
{
    int *renumber = op_calloc(ctx, (size_t)slots, sizeof(int));
    if (!renumber)
        return -1;
    for (int v = 0; v < count; ++v)
        renumber[label[v]] = 1;
    int cells = 0;
    for (int s = 0; s < slots; ++s)
        renumber[s] = renumber[s] ? cells++ : -1;
    for (int v = 0; v < count; ++v)
        label[v] = renumber[label[v]];
    free(renumber);
    return cells;
}

/* Symmetric eigenvectors sorted by decreasing eigenvalue, each with its largest component
 * positive (a fixed sign so builds repeat), the third axis a × b so the frame is right-handed. */
static int principal_frame(op_ctx *ctx, const double covariance[9], double axes[9], double eigenvalues[3])
{
    double a[9], w[3];
    m3_copy(a, covariance);
    lapack_int info = LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'V', 'U', 3, a, 3, w);
    if (info != 0)
        return OP_FAIL(ctx, OP_ERR_LIBRARY, "build: LAPACKE_dsyev failed (info %d)", (int)info);
    for (int c = 0; c < 3; ++c) {
        int src = 2 - c; /* dsyev sorts ascending */
        eigenvalues[c] = w[src];
        int big = 0;
        for (int r = 1; r < 3; ++r)
            if (fabs(a[3 * r + src]) > fabs(a[3 * big + src]))
                big = r;
        double sign = a[3 * big + src] < 0 ? -1.0 : 1.0;
        for (int r = 0; r < 3; ++r)
            axes[3 * r + c] = sign * a[3 * r + src];
    }
    double ea[3] = { axes[0], axes[3], axes[6] }, eb[3] = { axes[1], axes[4], axes[7] }, ec[3];
    v3_cross(ec, ea, eb);
    for (int r = 0; r < 3; ++r)
        axes[3 * r + 2] = ec[r];
    return OP_OK;
}

/* Centroid, axes and radii of every cell. A centroid outside the solid (a bent cell) is
 * replaced by the cell's voxel nearest to it, so every particle centre lies in the body. */
static int fit_ellipsoids(op_ctx *ctx, const interior *in, const int *label, op_graph *graph)
{
    int n = graph->particle_count;
    double *sum = op_calloc(ctx, 3 * (size_t)n, sizeof(double));
    double *second = op_calloc(ctx, 9 * (size_t)n, sizeof(double));
    int *members = op_calloc(ctx, (size_t)n, sizeof(int));
    double *nearest = op_calloc(ctx, (size_t)n, sizeof(double));
    double *replacement = op_calloc(ctx, 3 * (size_t)n, sizeof(double));
    if (ctx->status != OP_OK)
        goto done;
    for (int v = 0; v < in->count; ++v) {
        v3_add(&sum[3 * label[v]], &sum[3 * label[v]], &in->center[3 * v]);
        members[label[v]]++;
    }
    for (int i = 0; i < n; ++i)
        v3_scale(&graph->rest_position[3 * i], &sum[3 * i], 1.0 / members[i]);
    for (int v = 0; v < in->count; ++v) {
        double d[3];
        v3_sub(d, &in->center[3 * v], &graph->rest_position[3 * label[v]]);
        m3_add_outer(&second[9 * label[v]], 1.0, d, d);
    }
    /* a voxel is a cube, not a point: its own second moment size²/12 adds to the diagonal */
    double voxel_moment = in->voxels->size * in->voxels->size / 12.0;
    for (int i = 0; i < n; ++i) {
        /* eigenvalues are principal_frame's, set when it succeeds; zeros only for GCC, which with
         * -fno-math-errno inlines differently and cannot always see that */
        double covariance[9], eigenvalues[3] = { 0.0, 0.0, 0.0 };
        m3_scale(covariance, &second[9 * i], 1.0 / members[i]);
        for (int d = 0; d < 3; ++d)
            covariance[4 * d] += voxel_moment;
        if (principal_frame(ctx, covariance, &graph->rest_axes[9 * i], eigenvalues) != OP_OK)
            goto done;
        for (int d = 0; d < 3; ++d)
            graph->radii[3 * i + d] = sqrt(5.0 * fmax(eigenvalues[d], voxel_moment));
    }
    for (int i = 0; i < n; ++i)
        nearest[i] = INFINITY;
    for (int i = 0; i < n; ++i) {
        int at = op_voxel_at(in->voxels, &graph->rest_position[3 * i]);
        if (at >= 0 && in->voxels->inside[at])
            nearest[i] = -1.0; /* centroid is inside: keep it */
    }
    for (int v = 0; v < in->count; ++v) {
        int i = label[v];
        if (nearest[i] < 0)
            continue;
        double d = v3_dist2(&in->center[3 * v], &graph->rest_position[3 * i]);
        if (d < nearest[i]) {
            nearest[i] = d;
            v3_copy(&replacement[3 * i], &in->center[3 * v]);
        }
    }
    for (int i = 0; i < n; ++i)
        if (nearest[i] >= 0)
            v3_copy(&graph->rest_position[3 * i], &replacement[3 * i]);
done:
    free(sum);
    free(replacement);
    free(second);
    free(members);
    free(nearest);
    return ctx->status;
}

/* One shared voxel face between two cells, a < b, at `where` (the face centre). */
typedef struct face_contact {
    int a, b;
    double where[3];
} face_contact;

static int compare_face_contact(const void *x, const void *y)
{
    const face_contact *p = x, *q = y;
    return p->a != q->a ? (p->a < q->a ? -1 : 1) : (p->b < q->b ? -1 : p->b > q->b);
}

typedef struct contact {
    int a, b;          /* cells, a < b */
    int faces;         /* voxel faces they share */
    double center[3];  /* centroid of the shared faces: inside the solid */
    int strong;        /* enough faces for an edge on its own, and the midpoint is inside */
} contact;

/* Strongest contact first; ties in cell order so the result repeats. */
static int compare_contact_strength(const void *x, const void *y)
{
    const contact *p = x, *q = y;
    if (p->faces != q->faces)
        return p->faces > q->faces ? -1 : 1;
    return p->a != q->a ? (p->a < q->a ? -1 : 1) : (p->b < q->b ? -1 : p->b > q->b);
}

static int union_find_root(int *parent, int i)
{
    while (parent[i] != i)
        i = parent[i] = parent[parent[i]];
    return i;
}

static int midpoint_inside(const op_mesh_locator *solid, const double a[3], const double b[3])
{
    double mid[3];
    v3_add(mid, a, b);
    v3_scale(mid, mid, 0.5);
    return op_mesh_locator_contains(solid, mid);
}

/* A bridging edge a–b whose centre-to-centre segment cuts a corner (a limb bent between two
 * large cells) is made to stay inside by sliding one centre toward the cells' shared faces,
 * the smaller cell's first, in quarter steps. The move must keep the centre inside and every
 * edge already attached to it inside too. Returns 1 when the edge can be kept. */
static int slide_into_solid(const op_mesh_locator *solid, op_graph *graph, const contact *c, const int *members,
                            const int *edges, int edge_count)
{
    int order[2] = { c->a, c->b };
    if (members[c->b] <= members[c->a])
        order[0] = c->b, order[1] = c->a;
    for (int k = 0; k < 2; ++k) {
        int moving = order[k], other = order[1 - k];
        double *x = &graph->rest_position[3 * moving], original[3];
        v3_copy(original, x);
        for (int step = 1; step <= 4; ++step) {
            double delta[3];
            v3_sub(delta, c->center, original);
            v3_copy(x, original);
            v3_axpy(x, 0.25 * step, delta);
            int ok = op_mesh_locator_contains(solid, x) && midpoint_inside(solid, x, &graph->rest_position[3 * other]);
            for (int e = 0; e < edge_count && ok; ++e) {
                int i = edges[2 * e], j = edges[2 * e + 1];
                if (i == moving || j == moving)
                    ok = midpoint_inside(solid, &graph->rest_position[3 * i], &graph->rest_position[3 * j]);
            }
            if (ok)
                return 1;
        }
        v3_copy(x, original);
    }
    return 0;
}

/* The radius of particle i's ellipsoid in unit direction u: 1 / |diag(1/a, 1/b, 1/c) Ēᵀ u|. */
static double radius_along(const op_graph *graph, int i, const double u[3])
{
    double local[3];
    m3_mul_tv(local, &graph->rest_axes[9 * i], u);
    double sum = 0.0;
    for (int k = 0; k < 3; ++k) {
        double t = local[k] / graph->radii[3 * i + k];
        sum += t * t;
    }
    return 1.0 / sqrt(sum);
}

/* Whether the segment a–b stays in the solid: its midpoint inside the mesh (the face rule's
 * test) and every point sampled along it at most half a voxel apart, both ends included, in an
 * interior voxel. A long edge can leave a bent limb and come back with its midpoint inside;
 * the walk catches that at the voxels' resolution. */
static int segment_inside(const interior *in, const op_mesh_locator *solid, const double a[3], const double b[3])
{
    double d[3];
    v3_sub(d, b, a);
    int steps = (int)ceil(2.0 * v3_norm(d) / in->voxels->size);
    for (int k = 0; k <= steps; ++k) {
        double p[3];
        v3_copy(p, a);
        v3_axpy(p, steps ? (double)k / steps : 0.0, d);
        int cell = op_voxel_at(in->voxels, p);
        if (cell < 0 || in->compact_of[cell] < 0)
            return 0;
    }
    return midpoint_inside(solid, a, b);
}

/* The overlap rule's extra edges, appended to edges[2 * *edge_count]: every pair i < j whose
 * ellipsoids, scaled by def->overlap_scale, meet on the line of centres, |x̄_j − x̄_i| ≤
 * S (r_i(u) + r_j(u)) with u the unit direction between them, and whose segment stays in the
 * solid (segment_inside). Pairs in index order, so the result repeats; the graph's edge setter
 * merges the pairs the face rule already joined. *edges grows as needed. */
static int overlap_edges(op_ctx *ctx, const interior *in, const op_mesh_locator *solid, const op_build_def *def,
                         const op_graph *graph, int **edges, int *edge_count, size_t *capacity)
{
    int n = graph->particle_count;
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
            const double *xi = &graph->rest_position[3 * i], *xj = &graph->rest_position[3 * j];
            double u[3];
            v3_sub(u, xj, xi);
            double distance = v3_norm(u);
            if (!(distance > 0.0))
                continue;
            v3_scale(u, u, 1.0 / distance);
            if (distance > def->overlap_scale * (radius_along(graph, i, u) + radius_along(graph, j, u)) ||
                !segment_inside(in, solid, xi, xj))
                continue;
            if ((size_t)*edge_count == *capacity) {
                int *grown = realloc(*edges, 4 * *capacity * sizeof(int));
                if (!grown)
                    return OP_FAIL(ctx, OP_ERR_NOMEM, "build: out of memory for the overlap edges");
                *edges = grown;
                *capacity *= 2;
            }
            (*edges)[2 * *edge_count] = i;
            (*edges)[2 * *edge_count + 1] = j;
            ++*edge_count;
        }
    return OP_OK;
}

/* Edges between cells whose shared voxel faces reach def->contact_fraction of the smaller
 * cell's typical face area (a weak corner contact is not a joint), and whose centres' midpoint
 * lies inside the mesh (an edge never leaves the solid). Weaker contacts are then added,
 * strongest first, only where they join otherwise separate parts, so pruning never splits the
 * body; where such a bridge would leave the solid, slide_into_solid moves a centre. */
static int cell_edges(op_ctx *ctx, const interior *in, const int *label, const op_mesh_locator *solid,
                      const op_build_def *def, op_graph *graph)
{
    const op_voxels *vx = in->voxels;
    int n = graph->particle_count, contact_count = 0, edge_count = 0;
    size_t capacity = 3 * (size_t)in->count, faces = 0;
    face_contact *face = op_calloc(ctx, capacity, sizeof(face_contact));
    contact *contacts = op_calloc(ctx, capacity, sizeof(contact));
    int *edges = op_calloc(ctx, 2 * capacity, sizeof(int));
    int *members = op_calloc(ctx, (size_t)n, sizeof(int));
    int *parent = op_calloc(ctx, (size_t)n, sizeof(int));
    if (ctx->status != OP_OK)
        goto done;
    for (int v = 0; v < in->count; ++v)
        members[label[v]]++;
    for (int v = 0; v < in->count; ++v) {
        int g = in->cell[v], x = g % vx->dims[0], y = g / vx->dims[0] % vx->dims[1], z = g / vx->dims[0] / vx->dims[1];
        int next[3][3] = { { x + 1, y, z }, { x, y + 1, z }, { x, y, z + 1 } };
        for (int d = 0; d < 3; ++d) {
            if (next[d][0] >= vx->dims[0] || next[d][1] >= vx->dims[1] || next[d][2] >= vx->dims[2])
                continue;
            int w = in->compact_of[op_voxel_index(vx, next[d][0], next[d][1], next[d][2])];
            if (w < 0 || label[w] == label[v])
                continue;
            face_contact *f = &face[faces++];
            f->a = label[v] < label[w] ? label[v] : label[w];
            f->b = label[v] ^ label[w] ^ f->a;
            v3_add(f->where, &in->center[3 * v], &in->center[3 * w]);
            v3_scale(f->where, f->where, 0.5);
        }
    }
    qsort(face, faces, sizeof(face_contact), compare_face_contact);
    for (size_t p = 0; p < faces;) {
        contact *c = &contacts[contact_count++];
        *c = (contact){ .a = face[p].a, .b = face[p].b };
        for (; p < faces && face[p].a == c->a && face[p].b == c->b; ++p, ++c->faces)
            v3_add(c->center, c->center, face[p].where);
        v3_scale(c->center, c->center, 1.0 / c->faces);
        int smaller = members[c->a] < members[c->b] ? members[c->a] : members[c->b];
        c->strong = c->faces >= def->contact_fraction * pow((double)smaller, 2.0 / 3.0) &&
                    midpoint_inside(solid, &graph->rest_position[3 * c->a], &graph->rest_position[3 * c->b]);
    }
    qsort(contacts, (size_t)contact_count, sizeof(contact), compare_contact_strength);
    for (int i = 0; i < n; ++i)
        parent[i] = i;
    for (int pass = 0; pass < 2; ++pass)
        for (int k = 0; k < contact_count; ++k) {
            const contact *c = &contacts[k];
            int ra = union_find_root(parent, c->a), rb = union_find_root(parent, c->b);
            if (pass == 0 ? !c->strong : c->strong || ra == rb)
                continue;
            if (pass == 1 && !midpoint_inside(solid, &graph->rest_position[3 * c->a], &graph->rest_position[3 * c->b]) &&
                !slide_into_solid(solid, graph, c, members, edges, edge_count))
                continue;
            parent[ra] = rb;
            edges[2 * edge_count] = c->a;
            edges[2 * edge_count + 1] = c->b;
            ++edge_count;
        }
    if (def->overlap_scale > 0.0 && overlap_edges(ctx, in, solid, def, graph, &edges, &edge_count, &capacity) != OP_OK)
        goto done;
    op_graph_set_edges(ctx, graph, edges, edge_count);
done:
    free(face);
    free(contacts);
    free(edges);
    free(members);
    free(parent);
    return ctx->status;
}

/* The cell owning each mesh vertex: that of the nearest interior voxel, searched in growing
 * cubic shells around the vertex (one shell beyond the first hit, since a nearer voxel can sit
 * in the next shell's corner). */
/* The cells of the cube shell at Chebyshev radius r around c that lie in the grid: whole x rows
 * where |dy| or |dz| is r, else only the rows' two ends. Visiting the shell alone, clipped to the
 * grid, keeps the search proportional to the cells it can find: scanning the whole (2r+1)^3 cube
 * at every radius took 335 s for a 1 x 1 x 500 m tetrahedron, whose thin tip lies thousands of
 * cells from the nearest interior cell. */
static void nearest_on_shell(const interior *in, const double p[3], const int c[3], int r, double *best,
                             int *best_voxel)
{
    const op_voxels *vx = in->voxels;
    int z0 = c[2] - r < 0 ? 0 : c[2] - r, z1 = c[2] + r >= vx->dims[2] ? vx->dims[2] - 1 : c[2] + r;
    int y0 = c[1] - r < 0 ? 0 : c[1] - r, y1 = c[1] + r >= vx->dims[1] ? vx->dims[1] - 1 : c[1] + r;
    int x0 = c[0] - r < 0 ? 0 : c[0] - r, x1 = c[0] + r >= vx->dims[0] ? vx->dims[0] - 1 : c[0] + r;
    for (int Z = z0; Z <= z1; ++Z)
        for (int Y = y0; Y <= y1; ++Y) {
            int whole_row = abs(Z - c[2]) == r || abs(Y - c[1]) == r;
            int step = whole_row || r == 0 ? 1 : 2 * r;
            for (int X = whole_row ? x0 : c[0] - r; X <= (whole_row ? x1 : c[0] + r); X += step) {
                if (X < 0 || X >= vx->dims[0])
                    continue;
                int w = in->compact_of[op_voxel_index(vx, X, Y, Z)];
                if (w < 0)
                    continue;
                double d = v3_dist2(p, &in->center[3 * w]);
                if (d < *best || (d == *best && w < *best_voxel)) {
                    *best = d;
                    *best_voxel = w;
                }
            }
        }
}

static int vertex_owners(op_ctx *ctx, const interior *in, const int *label, const op_mesh *mesh, int *owner)
{
    const op_voxels *vx = in->voxels;
    int max_radius = vx->dims[0] + vx->dims[1] + vx->dims[2];
    for (int v = 0; v < mesh->vertex_count; ++v) {
        const double *p = &mesh->vertices[3 * v];
        int c[3];
        for (int d = 0; d < 3; ++d)
            c[d] = (int)floor((p[d] - vx->origin[d]) / vx->size + 0.5);
        double best = INFINITY;
        int best_voxel = -1, stop_radius = max_radius;
        for (int r = 0; r <= stop_radius; ++r) {
            nearest_on_shell(in, p, c, r, &best, &best_voxel);
            if (best_voxel >= 0 && stop_radius == max_radius)
                stop_radius = r + 1;
        }
        if (best_voxel < 0)
            return OP_FAIL(ctx, OP_ERR_INVALID, "build: mesh vertex %d is far from every interior voxel", v);
        owner[v] = label[best_voxel];
    }
    return OP_OK;
}

/* The 26-connected components of the interior voxels (the neighbourhood the solid partition's
 * distances run through): component[v] for each voxel, their sizes; returns the count. */
static int interior_components(op_ctx *ctx, const interior *in, int *component, int **sizes)
{
    int *queue = op_calloc(ctx, (size_t)in->count, sizeof(int)), count = 0;
    *sizes = op_calloc(ctx, (size_t)in->count, sizeof(int));
    if (ctx->status != OP_OK) {
        free(queue);
        return -1;
    }
    for (int v = 0; v < in->count; ++v)
        component[v] = -1;
    for (int start = 0; start < in->count; ++start) {
        if (component[start] >= 0)
            continue;
        int head = 0, tail = 0;
        queue[tail++] = start;
        component[start] = count;
        while (head < tail) {
            int v = queue[head++];
            FOR_EACH_NEIGHBOUR(in, v, {
                (void)step;
                if (component[neighbour] < 0) {
                    component[neighbour] = count;
                    queue[tail++] = neighbour;
                }
            });
        }
        (*sizes)[count++] = tail;
    }
    free(queue);
    return count;
}

/* Leaves the largest component and those of more than OP_BUILD_ISLAND_VOXELS voxels inside;
 * the others (stray islands) are cleared from voxels->inside and counted in the report.
 * Returns the components left (-1 on failure). */
static int drop_islands(op_ctx *ctx, const interior *in, op_voxels *voxels, op_build_report *report)
{
    int *component = op_calloc(ctx, (size_t)in->count, sizeof(int)), *sizes = NULL;
    int count = component ? interior_components(ctx, in, component, &sizes) : -1, left = count, largest = 0;
    for (int c = 1; c < count; ++c)
        if (sizes[c] > sizes[largest])
            largest = c;
    for (int c = 0; c < count; ++c)
        if (c != largest && sizes[c] <= OP_BUILD_ISLAND_VOXELS) {
            --left;
            report->islands_dropped++;
            report->island_voxels += sizes[c];
        }
    for (int v = 0; v < in->count && left < count; ++v)
        if (component[v] != largest && sizes[component[v]] <= OP_BUILD_ISLAND_VOXELS) {
            voxels->inside[in->cell[v]] = 0;
            voxels->inside_count--;
        }
    free(component);
    free(sizes);
    return left;
}

/* One build at one voxel resolution. An interior in several 26-connected pieces once its stray
 * islands are dropped, or a graph in several pieces, is no failure here: *pieces says how many,
 * for op_build_body_report to try a finer grid. *cells: the grid's cell count. */
static int build_at(op_ctx *ctx, const op_mesh *mesh, const op_build_def *def, int resolution, op_graph *graph,
                    op_skin *skin, op_build_report *report, int *pieces, double *cells)
{
    *report = (op_build_report){ .voxel_resolution = resolution };
    *pieces = 1;
    op_voxels voxels;
    if (op_voxelize(ctx, mesh, resolution, &voxels) != OP_OK)
        return ctx->status;
    *cells = (double)voxels.dims[0] * voxels.dims[1] * voxels.dims[2];
    interior in = { 0 };
    op_mesh_locator solid = { 0 };
    int *label = NULL, *owner = NULL, *slot_label = NULL, *slot_of = NULL, grid[3] = { 1, 1, 1 };
    if (interior_make(ctx, &voxels, &in) != OP_OK)
        goto done;
    int *component = op_calloc(ctx, (size_t)in.count, sizeof(int)), *sizes = NULL;
    int components = component ? interior_components(ctx, &in, component, &sizes) : -1;
    free(component);
    free(sizes);
    if (components > 1) {
        components = drop_islands(ctx, &in, &voxels, report);
        interior_free(&in);
        if (components < 0 || interior_make(ctx, &voxels, &in) != OP_OK)
            goto done;
    }
    if (components != 1) {
        *pieces = components;
        goto done;
    }
    label = op_calloc(ctx, (size_t)in.count, sizeof(int));
    slot_label = op_calloc(ctx, (size_t)in.count, sizeof(int));
    owner = op_calloc(ctx, (size_t)mesh->vertex_count, sizeof(int));
    if (ctx->status != OP_OK)
        goto done;
    int slots = def->particles;
    if (def->kind == OP_BODY_SOLID) {
        if (partition_solid(ctx, &in, def, label) != OP_OK)
            goto done;
    } else {
        slots = partition_grid(&in, def, label, grid);
    }
    memcpy(slot_label, label, (size_t)in.count * sizeof(int));
    int cell_count = compact_labels(ctx, label, in.count, slots);
    if (cell_count < 0)
        goto done;
    /* A rod promises exactly def->particles: slabs thinner than a voxel layer come out empty
     * and would silently be dropped. (A shell may drop the empty slots of a non-rectangular
     * outline: its grid is only the nearest u x v.) */
    if (def->kind == OP_BODY_ROD && cell_count != def->particles) {
        OP_FAIL(ctx, OP_ERR_INVALID,
                "build: a rod of %d particles needs as many voxel layers along its length, but only %d "
                "slabs hold voxels; raise the voxel resolution or lower --particles", def->particles, cell_count);
        goto done;
    }
    if (op_graph_alloc(ctx, graph, cell_count, 0) != OP_OK)
        goto done;
    if (fit_ellipsoids(ctx, &in, label, graph) != OP_OK)
        goto done;
    op_graph_derive(graph, def->density);
    if (def->kind == OP_BODY_LATTICE) {
        if (!(slot_of = op_calloc(ctx, (size_t)cell_count, sizeof(int))))
            goto done;
        for (int v = 0; v < in.count; ++v)
            slot_of[label[v]] = slot_label[v];
        if (lattice_edges(ctx, slot_of, grid, graph) != OP_OK)
            goto done;
    } else if (op_mesh_locator_make(ctx, mesh, &solid) != OP_OK ||
               cell_edges(ctx, &in, label, &solid, def, graph) != OP_OK) {
        goto done;
    }
    if (op_graph_check(ctx, graph, "built") != OP_OK)
        goto done;
    if ((*pieces = op_graph_component_count(graph)) != 1)
        goto done;
    if (vertex_owners(ctx, &in, label, mesh, owner) != OP_OK)
        goto done;
    op_skin_bind(ctx, graph, mesh, owner, def->skin_k, skin);
done:
    op_mesh_locator_free(&solid);
    free(label);
    free(slot_label);
    free(slot_of);
    free(owner);
    interior_free(&in);
    op_voxels_free(&voxels);
    if (ctx->status != OP_OK || *pieces != 1) {
        op_graph_free(graph);
        op_skin_free(skin);
    }
    return ctx->status;
}

/* The resolution at which the interior holds OP_BUILD_VOXELS_PER_PARTICLE voxels a particle
 * (build.h): def's when it does, else the finer one its voxel count, growing as the cube of the
 * resolution, says; then one more step while the estimate falls short. */
static int resolution_for_particles(op_ctx *ctx, const op_mesh *mesh, const op_build_def *def, int *resolution)
{
    double wanted = (double)OP_BUILD_VOXELS_PER_PARTICLE * def->particles;
    for (int attempt = 0; attempt < 4; ++attempt) {
        op_voxels voxels;
        if (op_voxelize(ctx, mesh, *resolution, &voxels) != OP_OK)
            return ctx->status;
        double inside = voxels.inside_count, cells = (double)voxels.dims[0] * voxels.dims[1] * voxels.dims[2];
        op_voxels_free(&voxels);
        if (inside >= wanted || inside == 0.0)
            return OP_OK;
        double scale = cbrt(wanted / inside);
        int finer = (int)ceil(*resolution * scale);
        if (cells * scale * scale * scale > OP_BUILD_MAX_CELLS_FOR_PARTICLES)
            return OP_FAIL(ctx, OP_ERR_INVALID,
                           "build: %d particles need about %.0f interior voxels (%d each), a grid of %.0f cells at "
                           "resolution %d, beyond the bound of %d cells",
                           def->particles, wanted, OP_BUILD_VOXELS_PER_PARTICLE, cells * scale * scale * scale, finer,
                           OP_BUILD_MAX_CELLS_FOR_PARTICLES);
        *resolution = finer > *resolution ? finer : *resolution + 1;
    }
    return OP_OK;
}

int op_build_body_report(op_ctx *ctx, const op_mesh *mesh, const op_build_def *def, op_graph *graph, op_skin *skin,
                         op_build_report *report)
{
    memset(graph, 0, sizeof *graph);
    memset(skin, 0, sizeof *skin);
    op_build_report ignored;
    report = report ? report : &ignored;
    if (def->kind == OP_BODY_JOINED)
        return OP_FAIL(ctx, OP_ERR_INVALID, "build: a joined model is made of two catalogue models "
                                            "(data/models.tsv), not built from a mesh");
    if (def->particles < 1)
        return OP_FAIL(ctx, OP_ERR_INVALID, "build: --particles must be at least 1 (got %d)", def->particles);
    if (!(isfinite(def->density) && def->density > 0))
        return OP_FAIL(ctx, OP_ERR_INVALID, "build: density %g must be positive", def->density);
    if (!(def->contact_fraction >= 0) || def->lloyd_iterations < 0)
        return OP_FAIL(ctx, OP_ERR_INVALID, "build: contact_fraction and lloyd_iterations must not be negative");
    if (!(def->overlap_scale >= 0.0 && def->overlap_scale <= 10.0))
        return OP_FAIL(ctx, OP_ERR_INVALID, "build: overlap_scale %g must be 0 (the face rule) or in (0, 10]",
                       def->overlap_scale);
    if (op_mesh_check(ctx, mesh, "input") != OP_OK)
        return ctx->status;
    /* stray islands dropped, then finer grids while the interior or the graph is in pieces (a
     * thin limb that the grid cuts into fragments joins up once its voxels are thinner than it),
     * within the bound */
    int resolution = def->voxel_resolution, pieces = 0;
    if (def->kind == OP_BODY_SOLID && resolution_for_particles(ctx, mesh, def, &resolution) != OP_OK)
        return ctx->status;
    int start = resolution;
    double cells = 0.0;
    for (;;) {
        if (build_at(ctx, mesh, def, resolution, graph, skin, report, &pieces, &cells) != OP_OK || pieces == 1)
            return ctx->status;
        int finer = (resolution * OP_BUILD_REFINE_NUMERATOR + OP_BUILD_REFINE_DENOMINATOR - 1) /
                    OP_BUILD_REFINE_DENOMINATOR;
        double ratio = (double)finer / resolution;
        double bound = start > def->voxel_resolution ? OP_BUILD_MAX_CELLS_FOR_PARTICLES : OP_BUILD_MAX_CELLS;
        if (finer > OP_BUILD_REFINE_LIMIT * start || cells * ratio * ratio * ratio > bound)
            break;
        resolution = finer;
    }
    return OP_FAIL(ctx, OP_ERR_INVALID,
                   "build: the body falls into %d pieces at every voxel resolution from %d to %d, stray islands of "
                   "at most %d voxels dropped (the bound: %dx the resolution asked for, %d grid cells); try a "
                   "larger --voxels",
                   pieces, start, resolution, OP_BUILD_ISLAND_VOXELS, OP_BUILD_REFINE_LIMIT, OP_BUILD_MAX_CELLS);
}

int op_build_body(op_ctx *ctx, const op_mesh *mesh, const op_build_def *def, op_graph *graph, op_skin *skin)
{
    return op_build_body_report(ctx, mesh, def, graph, skin, NULL);
}
