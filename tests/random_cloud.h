/* A seeded cloud of random ellipsoids in several bodies, for the contact tests and
 * bench/bench_collide.c: each body has its own model, a graph of particles without edges
 * (random semi-axes and rest axes, density 1000), and every particle is placed at a random point
 * of a cube with a random rotation and velocity. Nothing in it is a solid: it exercises the
 * broad and narrow phases, not the solver. */
#ifndef OPSIM_RANDOM_CLOUD_H
#define OPSIM_RANDOM_CLOUD_H

#include <stdio.h>
#include <stdlib.h>

#include "opsim/body.h"
#include "base/math3.h"
#include "base/rng.h"
#include "geometry/model.h"
#include "sim/script.h"

typedef struct random_cloud {
    int body_count;
    op_model *models; /* [body_count] */
    op_body *bodies;  /* [body_count] */
} random_cloud;

static inline void random_cloud_rotation(op_rng *rng, double rotation[9])
{
    double axis[3] = { op_rng_uniform(rng) - 0.5, op_rng_uniform(rng) - 0.5, op_rng_uniform(rng) - 0.5 };
    v3_scale(axis, axis, 1.0 / v3_norm(axis));
    op_axis_angle_matrix(axis, 3.141592653589793 * op_rng_uniform(rng), rotation);
}

static inline void random_cloud_free(random_cloud *cloud)
{
    for (int b = 0; b < cloud->body_count; ++b) {
        op_body_free(&cloud->bodies[b]);
        op_graph_free(&cloud->models[b].graph);
    }
    OP_FREE(cloud->bodies);
    OP_FREE(cloud->models);
    cloud->body_count = 0;
}

/* Semi-axes uniform in [r_min, r_max] (sorted a >= b >= c), centres uniform in [0, side)³,
 * velocities uniform in [−1, 1)³ m/s. Returns the context's status. */
static inline int random_cloud_make(op_ctx *ctx, random_cloud *cloud, uint64_t seed, int bodies, int per_body,
                                    double side, double r_min, double r_max)
{
    op_rng rng = op_rng_seeded(seed);
    cloud->body_count = 0;
    cloud->models = op_calloc(ctx, (size_t)bodies, sizeof *cloud->models);
    cloud->bodies = op_calloc(ctx, (size_t)bodies, sizeof *cloud->bodies);
    if (ctx->status != OP_OK)
        return ctx->status;
    double identity[9], origin[3] = { 0, 0, 0 };
    m3_identity(identity);
    for (int b = 0; b < bodies; ++b) {
        op_model *model = &cloud->models[b];
        snprintf(model->name, sizeof model->name, "cloud%d", b);
        if (op_graph_alloc(ctx, &model->graph, per_body, 0) != OP_OK)
            return ctx->status;
        cloud->body_count = b + 1; /* freed from here on, whatever fails */
        for (int i = 0; i < per_body; ++i) {
            double *r = &model->graph.radii[3 * i];
            for (int a = 0; a < 3; ++a)
                r[a] = r_min + (r_max - r_min) * op_rng_uniform(&rng);
            for (int a = 0; a < 2; ++a) /* sorted, as a graph's radii are */
                for (int k = 0; k < 2 - a; ++k)
                    if (r[k] < r[k + 1]) {
                        double swap = r[k];
                        r[k] = r[k + 1];
                        r[k + 1] = swap;
                    }
            random_cloud_rotation(&rng, &model->graph.rest_axes[9 * i]);
        }
        op_graph_derive(&model->graph, 1000.0);
        char name[32];
        snprintf(name, sizeof name, "body%d", b);
        if (op_body_init(ctx, &cloud->bodies[b], name, model, 0.0, identity, origin) != OP_OK)
            return ctx->status;
        op_state *s = &cloud->bodies[b].state;
        for (int i = 0; i < per_body; ++i) {
            for (int d = 0; d < 3; ++d) {
                s->position[3 * i + d] = side * op_rng_uniform(&rng);
                s->velocity[3 * i + d] = 2.0 * op_rng_uniform(&rng) - 1.0;
            }
            random_cloud_rotation(&rng, &s->rotation[9 * i]);
        }
    }
    return OP_OK;
}

#endif
