/* Timing of the contacts between bodies (core/contact/collide.h) on a random cloud of ellipsoids
 * (tests/random_cloud.h): the broad phase alone (op_broad_phase_find on the gathered centres)
 * and the whole of op_collide_bodies (gather, broad phase, Jacobi passes, scatter), each the
 * median over R repeats from the same state, on one thread and on every thread OpenMP offers.
 * The run with more threads must give bitwise the one-thread state; the bench fails otherwise.
 *
 * Options: -b BODIES (100), -p PARTICLES per body (40), -s SIDE of the cube in m (1.6), -r
 * REPEATS (21), -P PASSES (OP_COLLIDE_DEFAULT_PASSES). The default cloud, 4,000 ellipsoids of
 * semi-axes 2 to 6 cm, gives each particle a few candidates, as a pile of bodies does. */
#include <getopt.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/random_cloud.h"
#include "bench_median.h"
#include "contact/collide.h"
#include "opsim/platform.h"
#include "base/timer.h"

typedef struct timing {
    double broad_ms, collide_ms;
    op_contact_stats stats;
} timing;

/* Every body's positions then velocities, body after body: where body b's block starts. */
static double *block(double *saved, const random_cloud *cloud, int b)
{
    int g = 0;
    for (int k = 0; k < b; ++k)
        g += cloud->bodies[k].graph->particle_count;
    return &saved[6 * g];
}

static void save_state(const random_cloud *cloud, double *saved)
{
    for (int b = 0; b < cloud->body_count; ++b) {
        const op_state *s = &cloud->bodies[b].state;
        double *x = block(saved, cloud, b);
        memcpy(x, s->position, 3 * (size_t)s->particle_count * sizeof(double));
        memcpy(x + 3 * s->particle_count, s->velocity, 3 * (size_t)s->particle_count * sizeof(double));
    }
}

static void restore_state(random_cloud *cloud, double *saved)
{
    for (int b = 0; b < cloud->body_count; ++b) {
        op_state *s = &cloud->bodies[b].state;
        const double *x = block(saved, cloud, b);
        memcpy(s->position, x, 3 * (size_t)s->particle_count * sizeof(double));
        memcpy(s->velocity, x + 3 * s->particle_count, 3 * (size_t)s->particle_count * sizeof(double));
    }
}

static int measure(random_cloud *cloud, double *start, double *result, int threads, int repeats,
                   const op_contact_def *def, timing *out)
{
    omp_set_num_threads(threads);
    int n = 0;
    for (int b = 0; b < cloud->body_count; ++b)
        n += cloud->bodies[b].graph->particle_count;
    double *position = calloc(3 * (size_t)n, sizeof(double)), *bound = calloc((size_t)n, sizeof(double));
    int *group = calloc((size_t)n, sizeof(int));
    double *broad = calloc((size_t)repeats, sizeof(double)), *full = calloc((size_t)repeats, sizeof(double));
    op_broad_phase bp = { 0 };
    op_collider collider = { 0 };
    op_ctx ctx;
    op_ctx_init(&ctx);
    int status = position && bound && group && broad && full ? 0 : -1;
    restore_state(cloud, start);
    for (int b = 0, g = 0; b < cloud->body_count && status == 0; ++b) {
        const op_body *body = &cloud->bodies[b];
        for (int i = 0; i < body->graph->particle_count; ++i, ++g) {
            const double *r = &body->graph->radii[3 * i];
            v3_copy(&position[3 * g], &body->state.position[3 * i]);
            bound[g] = fmax(r[0], fmax(r[1], r[2]));
            group[g] = b;
        }
    }
    for (int r = 0; r < repeats && status == 0; ++r) {
        double t0 = op_now();
        if (op_broad_phase_find(&ctx, &bp, n, position, bound, group, def->margin) != OP_OK)
            status = -1;
        broad[r] = 1e3 * (op_now() - t0);
        restore_state(cloud, start);
        t0 = op_now();
        if (status == 0 && op_collide_bodies(&ctx, &collider, cloud->bodies, cloud->body_count, def, &out->stats))
            status = -1;
        full[r] = 1e3 * (op_now() - t0);
    }
    if (status == 0) {
        save_state(cloud, result);
        out->broad_ms = bench_median(broad, repeats);
        out->collide_ms = bench_median(full, repeats);
    } else {
        fprintf(stderr, "bench_collide: %s\n", ctx.status ? ctx.message : "out of memory");
    }
    op_broad_phase_free(&bp);
    op_collider_free(&collider);
    free(position);
    free(bound);
    free(group);
    free(broad);
    free(full);
    return status;
}

static int usage(void)
{
    fprintf(stderr, "usage: bench_collide [-b BODIES] [-p PARTICLES] [-s SIDE] [-r REPEATS] [-P PASSES]\n");
    return 64;
}

static int parse(const char *text, double lo, double *out)
{
    char *end;
    double value = strtod(text, &end);
    if (end == text || *end || !(value >= lo) || value > 1e7)
        return -1;
    *out = value;
    return 0;
}

int main(int argc, char **argv)
{
    op_platform_init();
    double bodies = 100, per_body = 40, side = 1.6, repeats = 21, passes = OP_COLLIDE_DEFAULT_PASSES;
    int opt;
    while ((opt = getopt(argc, argv, "b:p:s:r:P:h")) != -1) {
        int bad = 0;
        switch (opt) {
        case 'b': bad = parse(optarg, 1, &bodies); break;
        case 'p': bad = parse(optarg, 1, &per_body); break;
        case 's': bad = parse(optarg, 1e-3, &side); break;
        case 'r': bad = parse(optarg, 1, &repeats); break;
        case 'P': bad = parse(optarg, 1, &passes); break;
        default: bad = 1;
        }
        if (bad)
            return usage();
    }
    if (optind != argc)
        return usage();
    op_ctx ctx;
    op_ctx_init(&ctx);
    random_cloud cloud = { 0 };
    if (random_cloud_make(&ctx, &cloud, 20170601, (int)bodies, (int)per_body, side, 0.02, 0.06) != OP_OK) {
        fprintf(stderr, "bench_collide: %s\n", ctx.message);
        random_cloud_free(&cloud);
        return 1;
    }
    int n = (int)bodies * (int)per_body, most = omp_get_max_threads();
    double *start = calloc(6 * (size_t)n, sizeof(double)), *one = calloc(6 * (size_t)n, sizeof(double)),
           *many = calloc(6 * (size_t)n, sizeof(double));
    op_contact_def def = { .passes = (int)passes, .rounds = OP_COLLIDE_DEFAULT_ROUNDS, .margin = 0.0, .friction = 0.5 };
    timing t[2];
    int status = start && one && many ? 0 : 1;
    if (status == 0) {
        save_state(&cloud, start);
        status = measure(&cloud, start, one, 1, (int)repeats, &def, &t[0]) ||
                 measure(&cloud, start, many, most, (int)repeats, &def, &t[1]);
    }
    if (status == 0 && memcmp(one, many, 6 * (size_t)n * sizeof(double)) != 0) {
        fprintf(stderr, "bench_collide: %d threads give another state than one\n", most);
        status = 1;
    }
    if (status == 0) {
        printf("Contacts between bodies: %d ellipsoids in %d bodies, semi-axes 0.02-0.06 m, cube %.2f m, %d passes; "
               "median ms over %d repeats\n",
               n, (int)bodies, side, (int)passes, (int)repeats);
        printf("%8s %10s %10s %8s %9s %16s\n", "threads", "broad", "collide", "pairs", "contacts", "max penetration");
        for (int k = 0; k < 2; ++k)
            printf("%8d %10.3f %10.3f %8d %9d %16.3g\n", k ? most : 1, t[k].broad_ms, t[k].collide_ms,
                   t[k].stats.pairs, t[k].stats.contacts, t[k].stats.max_penetration);
        for (int k = 0; k < 2; ++k)
            printf("csv,collide,particles=%d,bodies=%d,side=%.3f,passes=%d,repeats=%d,threads=%d,broad_ms=%.4f,"
                   "collide_ms=%.4f,pairs=%d,contacts=%d\n",
                   n, (int)bodies, side, (int)passes, (int)repeats, k ? most : 1, t[k].broad_ms, t[k].collide_ms,
                   t[k].stats.pairs, t[k].stats.contacts);
    }
    free(start);
    free(one);
    free(many);
    random_cloud_free(&cloud);
    return status;
}
