/* The broad phase between bodies (docs/design.md §4): candidate pairs of particles of different bodies
 * whose bounding spheres come within a margin, for the narrow phase in collide.h.
 *
 * A uniform grid, cell-sorted. Particle i has a bounding sphere of radius ρ_i
 * (its largest semi-axis); a pair (i, j) is a candidate when i and j belong to different groups
 * (bodies) and |x_i − x_j| < ρ_i + ρ_j + margin. The cell size is the largest such threshold,
 * 2 max ρ + margin, enlarged by 2⁻²⁰ of itself so that rounding in the cell coordinates can never
 * put a candidate pair two cells apart; hence every candidate of i lies in the 27 cells around
 * i's. The grid is dense, over the centres' box with a layer of empty cells around it, and
 * coarser cells are taken when it would have more than max(4096, 4 n) cells (a body flung far
 * away makes the cells coarse, not the grid large). Particles are sorted into the cells with a
 * counting sort, stable, so by global index within a cell; a body's particles in a cell are then
 * one run, which a particle skips whole when the run is its own body's. The cells, the sorted
 * copies and each run's end are made in parallel, each thread its block of positions (a run
 * that crosses into the next block followed there), the counting and placing on one thread. Every particle scans the
 * rest of its own cell and the 13 neighbour cells that come after it in key order (its half of
 * the 27, as five rows of consecutive cells), so each pair is seen once, from the particle that
 * sorts first. A row of consecutive cells is one run of sorted positions, and the centres and
 * bounds are sorted into separate arrays, so a row is scanned four candidates at a time in AVX
 * lanes, eight with AVX-512 (distance and group tested without a branch, the lanes that hit
 * appended with one store), each lane with the scalar test's arithmetic, so the same pairs; the
 * scalar scan remains for builds without AVX (tests/test_collide.c holds all three to a brute
 * force). Eight lanes took a refresh's queries on the 180-model pile from 32–33 to 29 ms of a
 * run's 427 refreshes, and the whole searches from 9.0 to 8.3 ms (one thread). The
 * queries run in parallel (OpenMP, static schedule) over the particles, or in a refresh over the
 * moved ones, listed first: they gather where bodies move fast, and a static share of all sorted
 * positions gave the busier of two threads 59 % of the 52-model pile's moved particles. The
 * threads write per-thread lists of keys i·2^b + j (2^b ≥ n), which two stable counting sorts,
 * by j then by i, turn into the pair list sorted by (i, j), the same whatever the thread count
 * or the order the pairs were found in. A refresh merges the old pairs it keeps
 * with its fresh ones out of place, each thread the pairs of a range of i (the ranges split the
 * old list evenly), into a second list that then becomes the list. (Measured and not kept, on
 * the Fig. 7 piles, docs/performance.md: cells of half the reach, a box of cells by where the particle
 * sits in its cell, rows less the own body's runs found once per run, prefetching the rows;
 * each body's box of centres, a particle out of reach of every other body's box not scanning
 * (it spared 55 % and 36 % of the scans, but those were the cheap ones: the queries took no less
 * time and the boxes cost more); the queries on a dynamic schedule; the pairs sorted in
 * parallel by blocks of i.)
 */
#ifndef OPSIM_BROAD_PHASE_H
#define OPSIM_BROAD_PHASE_H

#include <stdint.h>

#include "opsim/ctx.h"

/* A candidate pair by global particle index, i < j. */
typedef struct op_pair {
    int i, j;
} op_pair;

/* The broad phase's result and its workspace, kept between calls. Zero-initialise before the
 * first call. */
typedef struct op_broad_phase {
    int pair_count;
    op_pair *pairs; /* [pair_count], sorted by (i, j) */
    int pair_capacity, particle_capacity, cell_capacity, thread_capacity;
    int *key;                           /* [n] the cell at each sorted position */
    int *order;                         /* [n] the particle at each sorted position */
    double *sorted_x, *sorted_y, *sorted_z; /* [n] its centre, apart for the scan's vector lanes */
    double *sorted_bound;               /* [n] its bounding radius */
    int *sorted_group;                  /* [n] its group */
    int *run_end;                       /* [n] the end of its cell's run of its group */
    int *scanning;                      /* [n] a refresh's moved particles by sorted position */
    int *cell_start;                    /* [cells + 1] first sorted position of each cell */
    int *pair_start;                    /* [n + 1] where each i's pairs start, to sort the pairs */
    op_pair *fresh;                     /* [fresh_capacity] a refresh's new pairs, sorted */
    op_pair *spare;                     /* [spare_capacity] the list a refresh merges into */
    int fresh_capacity, spare_capacity;
    uint64_t **thread_pairs;            /* [threads][capacity] the pair keys each thread found */
    int *thread_pair_capacity, *thread_pair_count; /* [threads] */
} op_broad_phase;

/* The candidate pairs of `count` particles: centres position[count][3], bounding radii
 * bound[count] (not negative), group[count] (pairs within a group are never candidates) and
 * margin (m, not negative), into bp->pairs. Non-finite input is OP_ERR_INVALID. */
int op_broad_phase_find(op_ctx *ctx, op_broad_phase *bp, int count, const double *position, const double *bound,
                        const int *group, double margin);
/* The same search after only the particles with moved[i] != 0 have changed position: bp->pairs
 * holds the last result (of find or refresh, with these bounds, groups and margin, and the
 * other particles where they are now); it keeps the pairs of two unmoved particles and takes
 * the moved ones' afresh, each scanning all 27 cells around it. The result is exactly
 * op_broad_phase_find's at these positions, at a cost that grows with the moved particles. */
int op_broad_phase_refresh(op_ctx *ctx, op_broad_phase *bp, int count, const double *position, const double *bound,
                           const int *group, double margin, const unsigned char *moved);
void op_broad_phase_free(op_broad_phase *bp);

#endif
