/* Contact (docs/design.md §4; the paper's Sec. 4 around Fig. 5 and Fig. 6, after Müller & Chentanez
 * 2011): the floor, the broad phase between bodies, the ellipsoid narrow phase and the response
 * with Coulomb friction. One module owns them so that the floor and the pairs share one support
 * distance and one friction model.
 *
 * Support distance. An ellipsoid with centre x, current axes E = R Ē (columns) and semi-axes
 * (a, b, c) reaches h(n) = √(nᵀ E diag(a², b², c²) Eᵀ n) beyond x along a unit direction n
 * (the support function of the ellipsoid: the largest n·(p − x) over its points p).
 *
 * Floor (y = height, normal +y). A particle whose lowest point x_y − h(+y) is below the floor is
 * pushed up to touch it, loses its downward velocity, and Coulomb friction takes up to μ times
 * that normal velocity change off its tangential velocity. Position-pinned particles are left.
 *
 * Broad phase: core/contact/broad_phase.h (a cell-sorted uniform grid over bounding spheres).
 *
 * Narrow phase (pair i, j, bodies A ≠ B): d = x_j − x_i, L = |d|, n = d/L (+y when the centres
 * coincide), penetration p = h_i(n) + h_j(n) − L. This is the separating-axis test along the
 * centre line only, as the paper does ("separating them outward in the inter-center direction"):
 * it can call a pair of long ellipsoids side by side touching when their surfaces are apart,
 * never the reverse.
 *
 * Response, with inverse masses w = 1/m (0 for position-pinned particles; a pair of two such is
 * skipped) and W = w_i + w_j. When p > 0 the pair separates along n, x_i −= (w_i/W) s and
 * x_j += (w_j/W) s with s = p n less static friction: the relative tangential displacement of
 * the two centres over the sub-step (from the positions the sub-step started at) is undone, up
 * to μ p of it. Without that a body resting on a tilted contact slides down it whatever μ, since
 * separating along n turns each sub-step's vertical sink under gravity into tangential motion
 * (Macklin et al. 2014's position-level friction; the floor needs none, its n being vertical).
 * When the centres approach, v_rel·n < 0 with v_rel = v_j − v_i, that normal component is
 * removed (inelastic) and Coulomb friction takes min(|v_t|, μ |Δv_n|) off the relative
 * tangential velocity v_t, split by inverse mass as the separation is: the floor's rule between
 * two moving particles. μ is the world's friction, for both.
 *
 * Resolution: passes over the pairs, in one of two orders (op_contact_def.order, `[world]
 * collision_order`). A particle can touch several particles of other bodies. Both orders keep
 * each pair's correction equal and opposite, so contacts never move a pile's centre of mass or
 * change its momentum (dividing each particle's corrections by its own count, as constraint
 * averaging does, would, and makes resting stacks creep), and both give bitwise the same result
 * for every thread count. After each particle's update the floor, when there is one, bounds it
 * (pushed back on top, downward velocity removed): the floor is immovable, so a pair cannot
 * resolve by pushing a particle into it. Passes stop early once no pair penetrates; in colour
 * order they go on past `passes` while a pair stays deep (below, "Passes").
 *   colours (the default, Gauss–Seidel): every pair is evaluated once, in parallel (four pairs
 *     side by side in AVX lanes where the CPU has them, each lane with the one-pair arithmetic,
 *     so the same bits); when none penetrates nothing moves and the call ends there. Otherwise the pairs are coloured
 *     greedily in pair order, each the lowest colour no earlier pair of either of its particles
 *     has, so no two pairs of one colour share a particle (at most 2D − 1 colours for D pairs at
 *     the busiest particle). A pass takes the colours in order; each pair of a colour is
 *     evaluated from what the earlier colours left and resolved in full at once. A pair is
 *     evaluated again only when it penetrated at its last evaluation or one of its particles has
 *     moved since (a step count per particle and per pair); any other would evaluate to what it
 *     did. What is left is measured after the passes ("Rounds").
 *     Islands carry this order onto threads. The pairs split into islands, the connected
 *     components of the pairs linked through shared particles (a union-find, one thread): in
 *     Fig. 7's piles a contact patch between two bodies, about 40 islands a sub-step for the
 *     52 models and 200 for the 180, the largest holding 14 % and 4 % of the pairs on average.
 *     A pair's colour depends only on the earlier pairs of its particles, all in its island, so
 *     colouring one island alone in pair order gives its pairs their colours in the whole; and
 *     pairs of different islands share no particle, so an island's passes, colour by colour,
 *     read and write nothing of another's. Each island is coloured and taken through its passes
 *     by one thread (each thread takes islands from a run of its own, then what is left of the
 *     others', core/sim/team.h's op_run): the bits of the colour order on
 *     one thread, whichever thread runs which island, with one barrier for all the passes where
 *     the pairs of a colour in parallel took one per colour and pass (7–20 colours, often a
 *     handful of pairs each). An island whose pass resolves nothing stops there: no pair of it
 *     is stale after, so a further pass would leave it as it is; an island none of whose pairs
 *     penetrated at the first evaluation has no stale pair, so it is not even coloured (two
 *     fifths of the 180 models' islands). The passes past `passes`
 *     ("Passes" below) go on for every island that still resolves some pair while any pair of
 *     any island is deep, the rule of the whole; each such pass shares its islands between the
 *     threads, with a barrier a pass for the count of deep pairs.
 *   jacobi: each pass computes every pair's correction from the
 *     positions and velocities the pass starts with (in parallel over pairs); each particle
 *     counts its penetrating pairs, then adds its share of each one's correction in canonical
 *     pair order (a CSR of the pairs incident to each particle), the pair's correction divided
 *     by the larger count of its two particles (in parallel over particles); a pass re-evaluates
 *     only the pairs with a particle the previous pass moved. A particle caught between several
 *     others moves by a fraction of its corrections each pass, so a pile converges slowly.
 * Only the particles of some candidate pair take part in a pass (of the others only the centres
 * are gathered, and nothing is written back). Along a pair's normal, h comes from six numbers per
 * particle formed once per call (op_support_along).
 *
 * Passes: one resolves an isolated pair exactly; a stack needs more. Two tori stacked on the
 * floor (tests/test_collide.c) keep, once settled, at most 1.2 mm of penetration with 1 pass in
 * colour order, 0.20 mm with 2, 39 µm with 4 and 3.3 µm with 8 (Jacobi: 5.6 mm with 1 pass,
 * 3.3 µm with 8; the smallest semi-axis is 90 mm); each pass costs at most one narrow phase.
 * A pinch needs many: a light particle driven between two heavy particles of another body is
 * pushed by each of the two pairs along its centre line into the other heavy one, so the pairs
 * undo most of each other's correction, and the heavy ones, which alone can make room, move by
 * their share w/W of the depth a pass (in Fig. 7's 180-model pile on its first impacts, a dino
 * particle of 0.11 kg 136 mm deep between two armadillo particles of 3.1 and 3.4 kg: its depth
 * fell by 5.5 % a pass, and 8 passes left 53 mm, 308 % of the scene's smallest semi-axis).
 * Hence, in colour order, `passes` (OP_COLLIDE_DEFAULT_PASSES = 8, `[world] collision_passes`)
 * run while any pair penetrates, as before, and further passes, up to max(passes, passes_max)
 * in all (OP_COLLIDE_DEFAULT_PASSES_MAX = 64, `[world] collision_passes_max`), run while some
 * pair penetrated, when a pass evaluated it, deeper than OP_COLLIDE_TOLERANCE = 5 % of the
 * smaller of its two particles' smallest semi-axes. A sub-step whose pairs are all shallower
 * after `passes` costs what it did; a further pass evaluates only the stale pairs (few by then)
 * of the islands still resolving some. The Jacobi order runs `passes` only. Fig. 7's piles at the defaults (make fig7,
 * data/results/fig7/contacts.tsv, one thread): the 180 models keep at most 13 % of the scene's
 * smallest semi-axis during the impacts and 11 % over the last 2 s (8 passes only: 308 % and
 * 15 %; Jacobi order: 334 % and 58 %), the 52 models 11 % and 7 % (8 passes only: 76 % and 9 %),
 * the bunny on the sheet (16 passes) 0 %. Of the 180-model scene's 900 sub-steps 190 went past
 * 8 passes, with 2,026 further passes in all, and 9 of them reached the cap (two pairs still
 * deep); of the 52 models' sub-steps 197, with 1,718; of the bunny's none. (Fixed counts of colour-order passes on the
 * 180 models: 16 passes 159 %, 32 84 %, 64 13 %, 128 0 %.)
 *
 * Rounds. The candidate pairs of the passes are found from the positions before them, and the
 * passes push particles, light ones most, into particles of other bodies that were not
 * candidates (in Fig. 7's 52-model pile, 5.6–7.4 cm: the stored states overlapped by 296 % of
 * the smallest semi-axis where the candidates' log said 11 %). So after the passes the pairs
 * within reach are found again in the state they left and every one of them is measured: that
 * is the call's max_penetration, the overlaps of the state the sub-step stores. While some pair
 * is deeper than OP_COLLIDE_TOLERANCE of the smallest semi-axis of any particle (the yardstick
 * of /collision's smallest_semi_axis; with each pair's own, the passes' tolerance, "Passes",
 * the 180-model pile kept 12 % of the scene's at rest) the passes run again over these pairs,
 * up to `rounds` rounds in all (OP_COLLIDE_DEFAULT_ROUNDS = 8, `[world] collision_rounds`; 1 is
 * the passes once, still measured in the state it leaves). A
 * round costs a search of the pairs (usually the filter of the kept pairs below), a gathering
 * and a narrow phase besides its passes; a sub-step with no deep pair after the first round
 * costs that search and narrow phase more than the passes alone. The overlaps at every
 * sub-step are in docs/method.md, "Contacts that hold in the stored states"; `bin/opsim overlap`
 * recomputes them from a run file's states (core/contact/overlap.h).
 *
 * Reuse between calls (a Verlet list): the grid search is run with its reach widened by a skin
 * (the largest bounding radius) on each particle's reference position, where a search last saw
 * it, and its pairs are kept while no particle has moved more than a little under half the skin
 * from its reference; every pair within reach now was within reach plus skin at the
 * references. Each call filters the kept pairs down to those within reach now, with the same
 * arithmetic as the search, so the candidates, and the result, are bit for bit those of a fresh
 * search; a resting pile skips the grid for most sub-steps. When some particle has gone that
 * far, only the particles that have moved more than REFERENCE_RESET of the skin (core/contact/collide.c)
 * take their current positions as references and their pairs afresh (op_broad_phase_refresh);
 * the others keep theirs. In a pile where a few bodies still fall or slide that re-queries a
 * quarter of the particles, where a whole search would take all of them. A full search runs
 * when more than half would move, and on the first call. (Measured and not kept,
 * docs/performance.md: a skin per particle, from its speed, between an eighth of the largest
 * bounding radius and all of it: on the 180 models the kept list fell from 13 to 3–5 times the
 * pairs within reach, but the refreshes rose from 427 to 463–635 and the broad phase took as
 * long or longer.) */
#ifndef OPSIM_COLLIDE_H
#define OPSIM_COLLIDE_H

#include <omp.h>
#include <stdint.h>

#include "opsim/body.h"
#include "contact/broad_phase.h"
#include "opsim/ctx.h"
#include "sim/team.h"

/* Whether a contact call's parallel regions open a team: whenever OpenMP gives more than one
 * thread, however few the particles or pairs. Whether the team pays for itself is the machine's
 * to say, not a threshold's: `collision_threads = auto` times the whole call on the team and on
 * one thread (below, "AUTO"), and ONE makes the call's regions open no team at all. */
static inline int op_collide_on_team(void)
{
    return omp_get_max_threads() > 1;
}

enum {
    OP_COLLIDE_DEFAULT_PASSES = 8,
    OP_COLLIDE_DEFAULT_PASSES_MAX = 64,
    OP_COLLIDE_DEFAULT_ROUNDS = 8
};
/* Past `passes`, colour-order passes go on while some pair penetrates deeper than this fraction
 * of the smaller of its two particles' smallest semi-axes ("Passes" above). */
#define OP_COLLIDE_TOLERANCE 0.05

/* h(n) = √(nᵀ E diag(r²) Eᵀ n) for axes E (columns, row-major), semi-axes r, unit n. */
double op_support_distance(const double axes[9], const double radii[3], const double n[3]);

/* The same h from six numbers, for many directions against one ellipsoid (the pair passes): the
 * upper triangle (00, 01, 02, 11, 12, 22) of S = E diag(r²) Eᵀ, then h(n) = √(nᵀ S n) at half
 * op_support_distance's cost. Equal to it up to rounding, not bitwise. */
void op_support_matrix(double support[6], const double axes[9], const double radii[3]);
double op_support_along(const double support[6], const double n[3]);

/* How far particle i's ellipsoid reaches below its centre, h(+y), and its lowest point along
 * +y, x_y − h(+y): the floor as the world measures it (the contacts, the floor inside arap's
 * global step, the observables), bitwise one function. */
double op_particle_reach_down(const op_body *body, int i);
double op_particle_lowest_point(const op_body *body, int i);
/* The floor contact of every particle of the body at the end of a sub-step (the paper's,
 * `floor_contact = substep`): a particle reaching below the floor is pushed up to touch it, its
 * downward velocity removed, and Coulomb friction takes up to μ times that change off its
 * tangential velocity. Returns the number of contacts; *deepest_before is how far the deepest
 * position-free particle reached below the floor before the push, *deepest_after how far it
 * still does (rounding only: a particle that did not touch the floor is above it, one that did
 * is pushed to touch), which is op_floor_penetration afterwards at the cost of the contacts
 * alone. */
int op_collide_floor(op_body *body, double height, double friction, double *deepest_before, double *deepest_after);
/* `floor_contact = iteration` (include/opsim/world.h): after every iteration, every position-free particle
 * reaching below the floor is pushed up to touch it, positions only; push[i] receives how far
 * particle i moved (0 when it did not), *deepest_before the deepest reach before. Returns the
 * contacts. */
int op_floor_project(op_body *body, double height, double *push, double *deepest_before);
/* Then, after the velocities are formed from the projected positions, the contacts' velocity
 * response: each particle the last projection pushed loses any downward velocity, and Coulomb
 * friction takes up to μ times its normal velocity change (push/h plus the downward velocity
 * removed) off its tangential velocity, as op_collide_floor's does. Returns the contacts. */
int op_floor_respond(op_body *body, const double *push, double h, double friction);
/* How far the deepest position-free particle reaches below the floor (m), 0 when none does. */
double op_floor_penetration(const op_body *body, double height);

/* The order of the passes (above, "Resolution"): pairs in colours, each resolved from what the
 * pairs before it left (the default), or every pair from what the pass started with. */
enum { OP_CONTACT_ORDER_COLOURS = 0, OP_CONTACT_ORDER_JACOBI = 1 };
/* Which threads a contact call runs on: OpenMP's team (each parallel region below takes
 * omp_get_max_threads()), or the calling thread alone. The results are bitwise the same; what
 * differs is the time, and which is faster depends on how far apart the cores are: a contact call
 * reads what the bodies' stage wrote on every core, and its loops hand their data between
 * threads. On this project's two-core VMs the Fig. 7 piles' contact stage took ×0.4 the time on
 * one thread when a cache line took 210 ns between the cores, ×1.3 when it took 40 ns; on an
 * Intel Xeon VM at 122–134 ns the team was the faster (docs/performance.md, "The contact stage
 * on one thread or on all"). AUTO is the world's (`[world] collision_threads = auto`, the
 * default): it times both, with no threshold (core/base/choice.h). A calibration alternates the
 * two over OP_COLLIDE_CHOICE_TRIALS contact cycles each, a cycle being the time from one
 * contact call's start to the next's: the call itself and the next sub-step's bodies, which read
 * what the call wrote from whichever core wrote it, so that a choice that only moves a cost
 * into the next stage does not win. The option with the least median cycle is then used for
 * OP_COLLIDE_CHOICE_SETTLE cycles, and the next calibration starts (the machine's speeds move
 * while a run goes on). The cycles alternate in an order that gives each option the same places
 * in the frame (op_world_contact_threads). The world's other timed choices (its units' threads,
 * the sweeps') calibrate in turn with this one, never at the same time (include/opsim/world.h).
 * op_collide_bodies itself takes ALL or ONE. */
enum { OP_CONTACT_THREADS_ALL = 0, OP_CONTACT_THREADS_ONE = 1, OP_CONTACT_THREADS_AUTO = 2 };
/* Turns of the hand-over probe auto runs at each frame's start, for the record only. */
enum { OP_COLLIDE_HANDOFFS = 16 };
/* Cycles per option in a calibration; cycles between calibrations (48 frames of the Fig. 7
 * piles' 6 sub-steps: a calibration then spends 6 cycles of 300 on the slower option). */
enum { OP_COLLIDE_CHOICE_TRIALS = 6, OP_COLLIDE_CHOICE_SETTLE = 288 };
typedef struct op_contact_def {
    int passes;      /* passes while any pair penetrates, at least 1 */
    int passes_max;  /* colours: passes while a pair penetrates deeper than the tolerance, at most
                        max(passes, passes_max) in all; not negative ("Passes" above) */
    int rounds;      /* rounds of the passes, each over the pairs within reach as the last left
                        them, while a pair is deeper than the tolerance; at least 1 ("Rounds") */
    int order;       /* OP_CONTACT_ORDER_COLOURS or OP_CONTACT_ORDER_JACOBI */
    int floor;       /* 1: the floor y = floor_height bounds every pass (see above) */
    double floor_height;
    double margin;   /* m, added to the broad phase's threshold */
    double friction; /* Coulomb coefficient μ */
    int threads;     /* OP_CONTACT_THREADS_ALL or OP_CONTACT_THREADS_ONE */
} op_contact_def;

typedef struct op_contact_stats {
    int pairs;              /* candidate pairs of the broad phase at the call's start */
    int contacts;           /* pairs that penetrated in some pass, the most of any round */
    double max_penetration; /* m: the largest p over every pair within reach in the state the
                               call leaves (not only the candidates), 0 when none penetrates */
    int rounds;             /* rounds of passes run ("Rounds"), 0 when no pair was in reach */
    double max_floor_penetration; /* m: how far the deepest position-free particle of some pair
                                     reaches below the floor afterwards, 0 without one; the passes
                                     move no other particle, so with the floor contacts' own
                                     (op_collide_floor before) it is op_floor_penetration after */
    int searched;           /* 1 when the grid ran (a whole search or a refresh), 0 when its last
                               pairs were reused */
    int refreshed;          /* 1 when that was a refresh of the particles that had moved */
} op_contact_stats;

/* An island of the colour order ("Resolution" above): a connected component of the candidate
 * pairs, two pairs linked when they share a particle. */
typedef struct op_contact_island {
    int start;   /* its first pair in op_collider's island_pairs and colour_order */
    int colours; /* its pairs' colours: 0 to colours − 1 */
    int live;    /* its last pass resolved some pair, so a next one may move something */
} op_contact_island;

/* Every particle of every body in one list (global index: body by body, in order), the
 * candidate pairs, and the per-pass workspace; kept between calls. Zero-initialise. */
typedef struct op_collider {
    op_broad_phase broad;
    int capacity, pair_capacity;
    double *position;            /* [n][3] */
    double *bound;               /* [n] largest semi-axis */
    double *least;               /* [n] smallest semi-axis */
    int *group;                  /* [n] body index */
    /* of the particles in some candidate pair (involved) only: the passes read no others */
    double *velocity;            /* [n][3] */
    double *start;               /* [n][3] the position at the sub-step's start */
    struct op_contact_shape *shape; /* [n] what the passes read of each particle's ellipsoid */
    int *touching;               /* [n] penetrating pairs of each particle in the current pass */
    int *incidence_start;        /* [n] where the pairs incident to each involved particle start */
    int *incidence_end;          /* [n] and end, in incidence */
    int *degree;                 /* [n] the count of each particle's pairs while the incidence is
                                    built, 0 between calls */
    int *incidence;              /* [2 · pairs] pair indices, ascending within a particle */
    int involved_count;
    int *involved;               /* [involved_count] the particles in some pair, ascending */
    uint64_t *involved_bits;     /* [n / 64 + 1] a bit a particle while the involved are listed, 0
                                    between calls */
    int body_capacity;
    int *body_start;             /* [bodies + 1] each body's first global index */
    int laid_out_bodies;         /* bodies of the layout (body_start, bound, group); 0: none yet */
    const op_graph **laid_out_graph; /* [bodies] their graphs */
    struct op_contact *contact;  /* [pairs] one pass's correction of each pair */
    /* the colour order's islands and colours (OP_CONTACT_ORDER_COLOURS) */
    int islands;
    op_contact_island *island;   /* [islands + 1] each island; the last one's start is the end */
    int *island_root;            /* [n] the islands' union-find over the involved particles */
    int *island_of;              /* [n] each involved particle's island */
    int *island_pairs;           /* [pairs] the pairs island by island, in pair order within one */
    int *colour;                 /* [pairs] each pair's colour */
    int *colour_order;           /* [pairs] the pairs island by island, colour by colour within
                                    one, in pair order within a colour */
    int colour_capacity, colour_threads;
    unsigned char *colour_taken; /* [colour_threads][colour_capacity] each thread's colouring
                                    workspace, all 0 between pairs */
    int *colour_count;           /* [colour_threads][colour_capacity + 1] and its counting sort's */
    int one_island;              /* tests only: 1 puts every pair in one island, which is the colour
                                    order without islands (the passes then run on one thread) */
    int *moved_at;               /* [n] the step of the passes (colour by colour, from 1) that last
                                    moved each involved particle, 0 when none has */
    int *evaluated_at;           /* [pairs] the step that last evaluated each pair */
    unsigned char *touched;      /* [pairs] penetrated in some pass */
    unsigned char *active;       /* [pairs] penetrating, with a particle free to move, in this
                                    pass: apart from the records so that the counts read 1 byte */
    /* the reuse of a search (above) */
    int searched_count;          /* particles at the last grid search; 0: none yet */
    double searched_margin;      /* its margin */
    double skin;                 /* m, the widening of its reach: the largest bounding radius,
                                    set with the layout */
    double smallest;             /* m, the smallest semi-axis of any particle, set with the layout */
    double *searched_position;   /* [n][3] each particle's reference position: where the last
                                    search or refresh that took it saw it */
    unsigned char *moving;       /* [n] taken afresh by the current refresh */
    int near_count, near_capacity;
    op_pair *near;               /* [near_count] this call's candidates: the kept pairs within reach;
                                    after the call, those of the state it leaves ("Rounds") */
    int passed_count, passed_capacity;
    op_pair *passed;             /* [passed_count] after the call, the pairs of its last round of
                                    passes, which the islands and colours index */
    int within_capacity;
    unsigned char *within;       /* [kept pairs] 1 where a kept pair is within reach now */
    int thread_capacity;
    int *thread_near;            /* [threads] how many of a thread's block of kept pairs are */
    struct pass_tally *tally;    /* [2][threads] each thread's count of a pass's penetrating pairs: two sets,
                                    for the colour order's evaluations and its islands */
    op_run *island_run;          /* [threads] each thread's run of islands (collide.c, colour_passes) */
} op_collider;

/* Collisions between the particles of different bodies (narrow phase and response above),
 * updating positions and velocities. Orientations and rotation rates are left alone. */
int op_collide_bodies(op_ctx *ctx, op_collider *collider, op_body *bodies, int body_count,
                      const op_contact_def *def, op_contact_stats *stats);

/* The first thing a contact call does, gathering every particle's centre into the collider's list
 * and measuring how far each has moved since the search its pairs come from, done by the caller
 * instead, body by body, where each body's sub-step ends, on the thread that has just moved it
 * and has its positions in cache (core/sim/world.c; on the 180-model pile the call's own gathering
 * took 6.6 ms of a run's 900 calls on two threads). Before the bodies move, on one thread,
 * op_collider_lay_out; then op_collider_gather_body once for each body, on any thread, each
 * thread adding into a tally of its own; then op_collide_gathered_bodies with the tallies
 * summed (op_gathered_add), which gives bitwise what op_collide_bodies gives. */
typedef struct op_gathered {
    int moved;  /* 1 when some particle has moved too far for the last search's pairs, or there
                   was no search to compare with */
    int movers; /* the particles that a refresh would search for afresh */
} op_gathered;
int op_collider_lay_out(op_ctx *ctx, op_collider *collider, const op_body *bodies, int body_count);
void op_collider_gather_body(op_collider *collider, const op_body *bodies, int b, op_gathered *tally);
void op_gathered_add(op_gathered *sum, const op_gathered *tally);
int op_collide_gathered_bodies(op_ctx *ctx, op_collider *collider, op_body *bodies, int body_count,
                               const op_contact_def *def, const op_gathered *gathered, op_contact_stats *stats);
void op_collider_free(op_collider *collider);

#endif
