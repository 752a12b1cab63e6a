/* The broad phase between bodies: candidate pairs of particles from a cell-sorted uniform grid
 * (collide.h, "Broad phase", states the method; this file owns the grid, its scan and the pair
 * list, kept between calls). */
#include "contact/broad_phase.h"

#include <limits.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "contact/collide.h"
#include "base/math3.h"
#include "kernels/near_scan.h"

/* SCAN_PADDING: the sorted copies' padding, for a row's last block of SCAN_WIDEST lanes (AVX-512) */
enum { ROWS = 5, GRID_CELLS_MIN = 4096, GRID_CELLS_PER_PARTICLE = 4, SCAN_LANES = 4, SCAN_WIDEST = 8 };

static int broad_reserve(op_ctx *ctx, op_broad_phase *bp, int count, int cells, int threads)
{
    if (count > bp->particle_capacity) {
        size_t n = (size_t)count + (size_t)count / 2;
        bp->particle_capacity = 0;
        /* the sorted copies padded by SCAN_WIDEST − 1: a row's last block of lanes reads past its end */
        size_t padded = n + SCAN_WIDEST - 1;
        if (!OP_RENEW(ctx, bp->key, n) || !OP_RENEW(ctx, bp->order, n) || !OP_RENEW(ctx, bp->sorted_x, padded) ||
            !OP_RENEW(ctx, bp->sorted_y, padded) || !OP_RENEW(ctx, bp->sorted_z, padded) ||
            !OP_RENEW(ctx, bp->sorted_bound, padded) || !OP_RENEW(ctx, bp->sorted_group, padded) ||
            !OP_RENEW(ctx, bp->run_end, n) || !OP_RENEW(ctx, bp->scanning, n) || !OP_RENEW(ctx, bp->pair_start, n + 1))
            return ctx->status;
        bp->particle_capacity = (int)n;
    }
    if (cells + 1 > bp->cell_capacity) {
        bp->cell_capacity = 0;
        if (!OP_RENEW(ctx, bp->cell_start, (size_t)cells + 1))
            return ctx->status;
        bp->cell_capacity = cells + 1;
    }
    if (threads > bp->thread_capacity) {
        for (int t = 0; t < bp->thread_capacity; ++t)
            free(bp->thread_pairs[t]);
        bp->thread_capacity = 0;
        if (!OP_RENEW(ctx, bp->thread_pairs, (size_t)threads) ||
            !OP_RENEW(ctx, bp->thread_pair_capacity, (size_t)threads) ||
            !OP_RENEW(ctx, bp->thread_pair_count, (size_t)threads))
            return ctx->status;
        bp->thread_capacity = threads;
    }
    return OP_OK;
}

/* The threads' pair keys i·2^bits + j into out, sorted by (i, j): two stable counting sorts,
 * by j into `through`, then by i into out. (A counting sort by i and an insertion by j within
 * each i took twice as long on a refresh's pairs: a mover's partners come cell by cell, so its
 * pairs' j arrive in runs, and the insertion's shifts grew with the square of its partners.) */
static void sort_pairs(op_broad_phase *bp, int count, int threads, int bits, op_pair *through, op_pair *out)
{
    int *start = bp->pair_start;
    uint64_t mask = ((uint64_t)1 << bits) - 1;
    memset(start, 0, ((size_t)count + 1) * sizeof *start);
    for (int t = 0; t < threads; ++t)
        for (int k = 0; k < bp->thread_pair_count[t]; ++k)
            start[(bp->thread_pairs[t][k] & mask) + 1]++;
    for (int q = 0; q < count; ++q)
        start[q + 1] += start[q];
    int total = start[count];
    for (int t = 0; t < threads; ++t)
        for (int k = 0; k < bp->thread_pair_count[t]; ++k) {
            uint64_t key = bp->thread_pairs[t][k];
            int j = (int)(key & mask);
            through[start[j]++] = (op_pair){ (int)(key >> bits), j };
        }
    memset(start, 0, ((size_t)count + 1) * sizeof *start);
    for (int k = 0; k < total; ++k)
        start[through[k].i + 1]++;
    for (int q = 0; q < count; ++q)
        start[q + 1] += start[q];
    for (int k = 0; k < total; ++k)
        out[start[through[k].i]++] = through[k];
}

/* Appends a pair key to a thread's buffer, growing it; 0 when out of memory. */
static int push_pair(op_broad_phase *bp, int thread, uint64_t key)
{
    int used = bp->thread_pair_count[thread];
    if (used == bp->thread_pair_capacity[thread]) {
        int capacity = used ? 2 * used : 1024;
        uint64_t *grown = realloc(bp->thread_pairs[thread], (size_t)capacity * sizeof *grown);
        if (!grown)
            return 0;
        bp->thread_pairs[thread] = grown;
        bp->thread_pair_capacity[thread] = capacity;
    }
    bp->thread_pairs[thread][used] = key;
    bp->thread_pair_count[thread] = used + 1;
    return 1;
}

/* The grid over the centres' box [lo, hi]: cells of side at least `cell`, made coarser until
 * there are at most `limit` of them, dims[d] cells along axis d counting a layer of empty
 * cells on each side (so that every cell of a particle has its 26 neighbours in the grid).
 * Returns the side. */
static double grid_size(const double lo[3], const double hi[3], double cell, double limit, int dims[3])
{
    for (;;) {
        double inverse = 1.0 / cell, cells = 1.0;
        for (int d = 0; d < 3; ++d)
            cells *= floor((hi[d] - lo[d]) * inverse) + 3.0;
        if (cells <= limit) {
            for (int d = 0; d < 3; ++d)
                dims[d] = (int)floor((hi[d] - lo[d]) * inverse) + 3;
            return cell;
        }
        cell *= cbrt(cells / limit) * 1.0625;
    }
}

/* Sorts the particles by cell with a counting sort, stable, so by index within a cell: bp->key,
 * bp->order, bp->sorted, bp->sorted_group and bp->run_end by sorted position, and
 * bp->cell_start[cells + 1]. The cells and the sorted copies are formed in parallel, the
 * counting and placing on one thread. */
static void sort_into_cells(op_broad_phase *bp, int count, const double *position, const double *bound,
                            const int *group, const double lo[3], double cell, const int dims[3])
{
    double inverse = 1.0 / cell;
    int cells = dims[0] * dims[1] * dims[2];
    int *start = bp->cell_start;
    int *cell_of = bp->run_end; /* by particle, until the runs are found */
#pragma omp parallel for schedule(static) if (op_collide_on_team())
    for (int i = 0; i < count; ++i) {
        int c[3];
        for (int d = 0; d < 3; ++d) /* from 1: the empty layer below is cell 0 */
            c[d] = (int)((position[3 * i + d] - lo[d]) * inverse) + 1; /* ≥ 0 and < dims: floor */
        cell_of[i] = c[0] + dims[0] * (c[1] + dims[1] * c[2]);
    }
    memset(start, 0, ((size_t)cells + 1) * sizeof *start);
    for (int i = 0; i < count; ++i)
        start[cell_of[i] + 1]++;
    for (int k = 0; k < cells; ++k)
        start[k + 1] += start[k];
    /* placing in index order keeps each cell in index order; the starts shift up by one cell */
    for (int i = 0; i < count; ++i) {
        int key = cell_of[i], s = start[key]++;
        bp->order[s] = i;
        bp->key[s] = key;
    }
    for (int k = cells; k > 0; --k)
        start[k] = start[k - 1];
    start[0] = 0;
    /* each thread its block of sorted positions: the copies, then the runs' ends from the back;
     * the block's last run is followed into the next block by the input's groups */
#pragma omp parallel if (op_collide_on_team())
    {
        int thread = omp_get_thread_num(), team = omp_get_num_threads();
        int first = (int)((int64_t)count * thread / team), last = (int)((int64_t)count * (thread + 1) / team);
        for (int s = first; s < last; ++s) {
            int i = bp->order[s];
            bp->sorted_x[s] = position[3 * i];
            bp->sorted_y[s] = position[3 * i + 1];
            bp->sorted_z[s] = position[3 * i + 2];
            bp->sorted_bound[s] = bound[i];
            bp->sorted_group[s] = group[i];
        }
        if (first < last) {
            int end = last, key = bp->key[last - 1], own = bp->sorted_group[last - 1];
            while (end < count && bp->key[end] == key && group[bp->order[end]] == own)
                ++end;
            bp->run_end[last - 1] = end;
        }
        for (int s = last - 2; s >= first; --s) {
            int same = bp->key[s + 1] == bp->key[s] && bp->sorted_group[s + 1] == bp->sorted_group[s];
            bp->run_end[s] = same ? bp->run_end[s + 1] : s + 1;
        }
    }
}

/* What a search needs beyond the sorted particles: the grid's size, the pair keys' bit split
 * and the team's size. */
typedef struct grid_search {
    int dims[3];
    int bits;    /* a pair's key i·2^bits + j: ordered as (i, j), taken apart without a division */
    int threads;
} grid_search;

/* The input checked, the grid sized and the particles sorted into it (collide.h). Returns
 * OP_OK with *empty set when no pair can exist (fewer than two particles, or every bound and
 * the margin zero with every centre at one point): then the grid is not built. */
static int build_grid(op_ctx *ctx, op_broad_phase *bp, int count, const double *position, const double *bound,
                      const int *group, double margin, grid_search *grid, int *empty)
{
    *empty = 1;
    if (!(isfinite(margin) && margin >= 0))
        return OP_FAIL(ctx, OP_ERR_INVALID, "broad phase: the margin must be finite and not negative");
    double lo[3] = { INFINITY, INFINITY, INFINITY }, hi[3] = { -INFINITY, -INFINITY, -INFINITY }, largest = 0.0;
    int bad = count; /* the first particle with bad input */
#pragma omp parallel for schedule(static) reduction(min : lo[:3], bad) reduction(max : hi[:3], largest) \
    if (op_collide_on_team())
    for (int i = 0; i < count; ++i) {
        const double *x = &position[3 * i];
        if (!v3_isfinite(x) || !(isfinite(bound[i]) && bound[i] >= 0))
            bad = i < bad ? i : bad;
        for (int d = 0; d < 3; ++d) {
            lo[d] = op_min(lo[d], x[d]);
            hi[d] = op_max(hi[d], x[d]);
        }
        largest = op_max(largest, bound[i]);
    }
    if (bad < count)
        return OP_FAIL(ctx, OP_ERR_INVALID,
                       "broad phase: particle %d has a non-finite position or a bad bounding radius", bad);
    if (count < 2)
        return OP_OK;
    double extent = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    double reach = (2.0 * largest + margin) * (1.0 + 0x1p-20);
    if (!(reach > 0) && !(extent > 0))
        return OP_OK;
    grid->threads = omp_get_max_threads();
    double limit = fmax(GRID_CELLS_MIN, (double)GRID_CELLS_PER_PARTICLE * count);
    double cell = grid_size(lo, hi, reach > 0 ? reach : extent, limit, grid->dims);
    const int *dims = grid->dims;
    if (broad_reserve(ctx, bp, count, dims[0] * dims[1] * dims[2], grid->threads) != OP_OK)
        return ctx->status;
    sort_into_cells(bp, count, position, bound, group, lo, cell, dims);
    grid->bits = 1;
    while (((int64_t)1 << grid->bits) < count)
        ++grid->bits;
    *empty = 0;
    return OP_OK;
}

/* Sorted positions s and t of different groups: a candidate pair when their centres are closer
 * than their bounds and the margin; the same arithmetic whichever of the two is s. */
static inline int within_reach(const op_broad_phase *bp, int s, int t, double margin)
{
    const double a[3] = { bp->sorted_x[s], bp->sorted_y[s], bp->sorted_z[s] };
    const double b[3] = { bp->sorted_x[t], bp->sorted_y[t], bp->sorted_z[t] };
    double within = bp->sorted_bound[s] + bp->sorted_bound[t] + margin;
    return v3_dist2(a, b) < within * within;
}

/* The pair of sorted positions s and t into the thread's keys; 0 when out of memory. */
static inline int push_sorted_pair(op_broad_phase *bp, int thread, int bits, int s, int t)
{
    uint64_t i = (uint64_t)bp->order[s], j = (uint64_t)bp->order[t];
    return push_pair(bp, thread, i < j ? i << bits | j : j << bits | i);
}

/* How many pair keys the threads found. */
static int thread_pairs_found(const op_broad_phase *bp, const grid_search *grid)
{
    int pairs = 0;
    for (int t = 0; t < grid->threads; ++t)
        pairs += bp->thread_pair_count[t];
    return pairs;
}

/* *pairs (capacity *capacity) holds at least `count` pairs, its first `keep` kept. */
static int reserve_pairs(op_ctx *ctx, op_pair **pairs, int *capacity, int count, int keep)
{
    if (count <= *capacity)
        return OP_OK;
    size_t grown_capacity = (size_t)count + (size_t)count / 2;
    op_pair *grown = realloc(keep > 0 ? *pairs : NULL, grown_capacity * sizeof *grown);
    if (!grown)
        return OP_FAIL(ctx, OP_ERR_NOMEM, "broad phase: out of memory for %zu candidate pairs", grown_capacity);
    if (keep == 0)
        free(*pairs);
    *pairs = grown;
    *capacity = (int)grown_capacity;
    return OP_OK;
}

/* Candidate t of sorted position s found in a row: into the thread's keys unless it is a pair
 * of two moved particles of a refresh that the one of lower index takes; 0 when out of memory. */
static inline int take_candidate(op_broad_phase *bp, int thread, int bits, const unsigned char *moved, int s, int t)
{
    int p = bp->order[s], q = bp->order[t];
    return (moved && moved[q] && q < p) || push_sorted_pair(bp, thread, bits, s, t);
}

/* Where the rows of cells a particle scans start and end in sorted position: row r is
 * [from[r], end[r]). */
typedef struct scan_rows {
    int count;
    int from[9], end[9];
} scan_rows;

/* Sorted position s's candidates in its rows, one position at a time; a run of s's own group
 * (s itself among them in a refresh) is skipped whole. 0 when out of memory. */
static int scan_scalar(op_broad_phase *bp, int thread, int bits, double margin, const unsigned char *moved, int s,
                       const scan_rows *rows)
{
    int own = bp->sorted_group[s];
    for (int r = 0; r < rows->count; ++r)
        for (int t = rows->from[r]; t < rows->end[r]; ++t) {
            if (bp->sorted_group[t] == own) {
                t = bp->run_end[t] - 1; /* past the rest of the cell's run of s's group */
                continue;
            }
            if (within_reach(bp, s, t, margin) && !take_candidate(bp, thread, bits, moved, s, t))
                return 0;
        }
    return 1;
}

#if OP_SIMD_AVX
/* take_candidate for the hits hit[0 … hits) of a vector scan, in order; 0 when out of memory. */
static int take_hits(op_broad_phase *bp, int thread, int bits, const unsigned char *moved, int s, const int *hit,
                     int hits)
{
    for (int h = 0; h < hits; ++h)
        if (!take_candidate(bp, thread, bits, moved, s, hit[h]))
            return 0;
    return 1;
}

/* The sorted columns a vector scan reads */
static op_near_columns near_columns(const op_broad_phase *bp)
{
    return (op_near_columns){ bp->sorted_x, bp->sorted_y, bp->sorted_z, bp->sorted_bound, bp->sorted_group };
}

OP_SIMD_AVX_BEGIN
/* scan_scalar four positions at a time: four lanes tested (distance and group) without a
 * branch (kernels/near_scan.h: within_reach's arithmetic in each lane, the same bits), and the
 * lanes that hit appended to a list without a branch either (in a frame's search, widened by the
 * skin, about one test in ten hits, too many to predict), then taken in order. A block that
 * starts in a run of s's own group skips the run, as scan_scalar does. On the Fig. 7 piles'
 * frames this took the broad phase's cycles to 0.55–0.58 of the scalar scan's
 * (docs/performance.md). */
static int scan_avx(op_broad_phase *bp, int thread, int bits, double margin, const unsigned char *moved, int s,
                    const scan_rows *rows)
{
    enum { HITS = 64 };
    int hit[HITS + SCAN_LANES], hits = 0;
    const op_near_columns columns = near_columns(bp);
    const op_near4 probe = op_near4_of(&columns, s, margin);
    const int own = bp->sorted_group[s];
    for (int r = 0; r < rows->count; ++r) {
        int t = rows->from[r], end = rows->end[r];
        while (t < end) {
            if (bp->sorted_group[t] == own) {
                t = bp->run_end[t];
                continue;
            }
            int near = op_near4_test(&probe, &columns, t);
            if (end - t < SCAN_LANES)
                near &= (1 << (end - t)) - 1;
            hits += op_near4_append(&hit[hits], t, near);
            t += SCAN_LANES;
            if (hits >= HITS) {
                if (!take_hits(bp, thread, bits, moved, s, hit, hits))
                    return 0;
                hits = 0;
            }
        }
    }
    return take_hits(bp, thread, bits, moved, s, hit, hits);
}
OP_SIMD_AVX_END

OP_SIMD_AVX512_BEGIN
/* scan_avx eight positions at a time in AVX-512 lanes, each lane with the same arithmetic, so
 * the same pairs. */
static int scan_avx512(op_broad_phase *bp, int thread, int bits, double margin, const unsigned char *moved, int s,
                       const scan_rows *rows)
{
    enum { HITS = 64 };
    int hit[HITS + 16], hits = 0;
    const op_near_columns columns = near_columns(bp);
    const op_near8 probe = op_near8_of(&columns, s, margin);
    const int own = bp->sorted_group[s];
    for (int r = 0; r < rows->count; ++r) {
        int t = rows->from[r], end = rows->end[r];
        while (t < end) {
            if (bp->sorted_group[t] == own) {
                t = bp->run_end[t];
                continue;
            }
            unsigned near = op_near8_test(&probe, &columns, t);
            if (end - t < SCAN_WIDEST)
                near &= (1u << (end - t)) - 1;
            hits += op_near8_append(&hit[hits], t, near);
            t += SCAN_WIDEST;
            if (hits >= HITS) {
                if (!take_hits(bp, thread, bits, moved, s, hit, hits))
                    return 0;
                hits = 0;
            }
        }
    }
    return take_hits(bp, thread, bits, moved, s, hit, hits);
}
OP_SIMD_AVX_END
#endif

static int scan(op_broad_phase *bp, int thread, int bits, double margin, const unsigned char *moved, int s,
                const scan_rows *rows)
{
#if OP_SIMD_AVX
    if (op_simd_use_avx512)
        return scan_avx512(bp, thread, bits, margin, moved, s, rows);
    if (op_simd_use_avx)
        return scan_avx(bp, thread, bits, margin, moved, s, rows);
#endif
    return scan_scalar(bp, thread, bits, margin, moved, s, rows);
}

/* The grid's pairs within reach into the threads' keys; 0 when out of memory. Without `moved`
 * (a whole search) every particle scans the rest of its own cell and the cells after it in key
 * order, as rows of consecutive keys: x + 1; x − 1 … x + 1 at (y + 1, z); the three rows at
 * z + 1; a pair is found from the particle that sorts first, once. With it (a refresh) only the
 * moved particles scan, all 27 cells around their own as nine rows of three, and a pair of two
 * moved particles is taken from the one of lower index, once. */
static int query_grid(op_broad_phase *bp, const grid_search *grid, int count, double margin,
                      const unsigned char *moved)
{
    const int *dims = grid->dims;
    int layer = dims[0] * dims[1];
    const int half_first[ROWS] = { 0, dims[0] - 1, layer - dims[0] - 1, layer - 1, layer + dims[0] - 1 };
    const int half_length[ROWS] = { 2, 3, 3, 3, 3 };
    int all_first[9], all_length[9];
    for (int row = 0; row < 9; ++row) {
        all_first[row] = -1 + (row % 3 - 1) * dims[0] + (row / 3 - 1) * layer;
        all_length[row] = 3;
    }
    int rows = moved ? 9 : ROWS;
    const int *row_first = moved ? all_first : half_first, *row_length = moved ? all_length : half_length;
    const int *cell_start = bp->cell_start;
    /* the sorted positions that scan: all, or the moved ones listed first, since they gather
     * where bodies move fast and a static share of all positions would give one thread most */
    int scanning = count;
    if (moved) {
        scanning = 0;
        for (int s = 0; s < count; ++s) {
            bp->scanning[scanning] = s;
            scanning += moved[bp->order[s]] != 0;
        }
    }
    int failed = 0;
    /* every thread's, since a smaller team (a few particles) leaves the others' */
    memset(bp->thread_pair_count, 0, (size_t)grid->threads * sizeof *bp->thread_pair_count);
#pragma omp parallel num_threads(grid->threads) if (op_collide_on_team())
    {
        int thread = omp_get_thread_num();
#pragma omp for schedule(static)
        for (int k = 0; k < scanning; ++k) {
            int s = moved ? bp->scanning[k] : k;
            int key = bp->key[s];
            scan_rows ranges = { 0 };
            for (int r = 0; r < rows; ++r) {
                int from = cell_start[key + row_first[r]], end = cell_start[key + row_first[r] + row_length[r]];
                if (!moved && from <= s)
                    from = s + 1;
                if (from < end) {
                    ranges.from[ranges.count] = from;
                    ranges.end[ranges.count++] = end;
                }
            }
            if (!scan(bp, thread, grid->bits, margin, moved, s, &ranges)) {
#pragma omp atomic write
                failed = 1;
            }
        }
    }
    return !failed;
}

int op_broad_phase_find(op_ctx *ctx, op_broad_phase *bp, int count, const double *position, const double *bound,
                        const int *group, double margin)
{
    bp->pair_count = 0;
    grid_search grid;
    int empty;
    if (build_grid(ctx, bp, count, position, bound, group, margin, &grid, &empty) != OP_OK || empty)
        return ctx->status;
    if (!query_grid(bp, &grid, count, margin, NULL))
        return OP_FAIL(ctx, OP_ERR_NOMEM, "broad phase: out of memory for the candidate pairs");
    int pairs = thread_pairs_found(bp, &grid);
    if (reserve_pairs(ctx, &bp->pairs, &bp->pair_capacity, pairs, 0) != OP_OK ||
        reserve_pairs(ctx, &bp->spare, &bp->spare_capacity, pairs, 0) != OP_OK)
        return ctx->status;
    /* sorted by (i, j): the same list however the threads shared the work */
    sort_pairs(bp, count, grid.threads, grid.bits, bp->spare, bp->pairs);
    bp->pair_count = pairs;
    return OP_OK;
}

/* The first of the n pairs at or after particle i (pairs sorted by i). */
static int first_of(const op_pair *pairs, int n, int i)
{
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (pairs[mid].i < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Where the t-th of `team` ranges of i starts, for an even split of the n pairs (sorted by i);
 * the first starts at 0, and the rest at INT_MAX when there are no pairs. */
static int split_of(const op_pair *pairs, int n, int t, int team)
{
    if (t == 0)
        return 0;
    return t == team || n == 0 ? INT_MAX : pairs[(int64_t)n * t / team].i;
}

/* A refresh's list: the old pairs of two unmoved particles merged with the fresh ones (both
 * sorted) into bp->spare, which then becomes bp->pairs. Each thread takes the pairs of a range
 * of i, the ranges split where the old list splits evenly: it keeps its old pairs (compacted
 * in place), and once every thread's count is known, merges them with its fresh ones to where
 * they go. The same list for any team. */
static void merge_kept_and_fresh(op_broad_phase *bp, int threads, int fresh, const unsigned char *moved)
{
    int old = bp->pair_count, *taken = bp->thread_pair_count; /* each thread's old and fresh pairs */
#pragma omp parallel num_threads(threads) if (op_collide_on_team())
    {
        int thread = omp_get_thread_num(), team = omp_get_num_threads();
        int low = split_of(bp->pairs, old, thread, team), high = split_of(bp->pairs, old, thread + 1, team);
        int first = first_of(bp->pairs, old, low), last = first_of(bp->pairs, old, high);
        int fresh_first = first_of(bp->fresh, fresh, low), fresh_last = first_of(bp->fresh, fresh, high);
#pragma omp barrier /* every range found before any is compacted */
        int kept = first;
        for (int k = first; k < last; ++k) { /* without a branch: a quarter of the pairs have a mover */
            op_pair pair = bp->pairs[k];
            bp->pairs[kept] = pair;
            kept += !(moved[pair.i] | moved[pair.j]);
        }
        taken[thread] = kept - first + fresh_last - fresh_first;
#pragma omp barrier
        int to = 0;
        for (int t = 0; t < thread; ++t)
            to += taken[t];
        int a = first, b = fresh_first;
        while (a < kept && b < fresh_last) {
            const op_pair *x = &bp->pairs[a], *y = &bp->fresh[b];
            bp->spare[to++] = x->i < y->i || (x->i == y->i && x->j < y->j) ? bp->pairs[a++] : bp->fresh[b++];
        }
        while (a < kept)
            bp->spare[to++] = bp->pairs[a++];
        while (b < fresh_last)
            bp->spare[to++] = bp->fresh[b++];
        if (thread == team - 1)
            bp->pair_count = to;
    }
    op_pair *swap = bp->pairs;
    bp->pairs = bp->spare;
    bp->spare = swap;
    int capacity = bp->pair_capacity;
    bp->pair_capacity = bp->spare_capacity;
    bp->spare_capacity = capacity;
}

int op_broad_phase_refresh(op_ctx *ctx, op_broad_phase *bp, int count, const double *position, const double *bound,
                           const int *group, double margin, const unsigned char *moved)
{
    grid_search grid;
    int empty;
    if (build_grid(ctx, bp, count, position, bound, group, margin, &grid, &empty) != OP_OK || empty) {
        bp->pair_count = 0;
        return ctx->status;
    }
    if (!query_grid(bp, &grid, count, margin, moved)) {
        bp->pair_count = 0;
        return OP_FAIL(ctx, OP_ERR_NOMEM, "broad phase: out of memory for the candidate pairs");
    }
    int fresh = thread_pairs_found(bp, &grid);
    /* the spare list is the sort's way-station, then the merge's result */
    if (reserve_pairs(ctx, &bp->fresh, &bp->fresh_capacity, fresh, 0) != OP_OK ||
        reserve_pairs(ctx, &bp->spare, &bp->spare_capacity, bp->pair_count + fresh, 0) != OP_OK) {
        bp->pair_count = 0;
        return ctx->status;
    }
    sort_pairs(bp, count, grid.threads, grid.bits, bp->spare, bp->fresh);
    merge_kept_and_fresh(bp, grid.threads, fresh, moved);
    return OP_OK;
}

void op_broad_phase_free(op_broad_phase *bp)
{
    for (int t = 0; t < bp->thread_capacity; ++t)
        free(bp->thread_pairs[t]);
    OP_FREE(bp->thread_pairs);
    OP_FREE(bp->thread_pair_capacity);
    OP_FREE(bp->thread_pair_count);
    OP_FREE(bp->pairs);
    OP_FREE(bp->fresh);
    OP_FREE(bp->spare);
    OP_FREE(bp->pair_start);
    OP_FREE(bp->key);
    OP_FREE(bp->order);
    OP_FREE(bp->sorted_x);
    OP_FREE(bp->sorted_y);
    OP_FREE(bp->sorted_z);
    OP_FREE(bp->sorted_bound);
    OP_FREE(bp->sorted_group);
    OP_FREE(bp->run_end);
    OP_FREE(bp->scanning);
    OP_FREE(bp->cell_start);
    bp->pair_count = bp->pair_capacity = bp->fresh_capacity = bp->spare_capacity = 0;
    bp->particle_capacity = bp->cell_capacity = bp->thread_capacity = 0;
}
