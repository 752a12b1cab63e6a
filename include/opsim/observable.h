/* What a scene observes over a run (its [observe] entries, opsim/scene.h): the kinds and one
 * observable's description. Evaluating them is core/sim/observe.h's. */
#ifndef OPSIM_OBSERVABLE_H
#define OPSIM_OBSERVABLE_H

typedef enum op_observable_kind {
    OP_OBSERVE_DEFLECTION,       /* m: downward displacement −(v_y − v̄_y) of a skinned vertex (bar tip) */
    OP_OBSERVE_REST_SHAPE_ERROR, /* 1: mass-weighted RMS distance of the particle centres to the best
                                    rigid fit of the rest shape, over the rest bounding-box diagonal */
    OP_OBSERVE_LOWEST_POINT,     /* m: lowest ellipsoid point above the floor plane (world or one body) */
    OP_OBSERVE_KINETIC_ENERGY,   /* J: op_energy_motion summed over the bodies (or one body) */
    OP_OBSERVE_POSITION_ERROR,   /* m: distance of a constraint's skinned vertex to its target */
    OP_OBSERVE_ANGULAR_MOMENTUM, /* kg m²/s: |L| about the centre of mass (world or one body),
                                    op_energy_momentum */
    /* Edge metrics of one body (the springs experiments: cloth elongation, a crushed cube); the
       stretch of a body without edges is refused at load, not written as ±inf: */
    OP_OBSERVE_STRETCH_MAX,      /* 1: largest edge length over its rest length, ‖x_i − x_j‖ / ‖x̄_i − x̄_j‖ */
    OP_OBSERVE_STRETCH_MIN,      /* 1: smallest such ratio */
    OP_OBSERVE_INVERTED_EDGES,   /* count: edges whose current vector points against the rest vector
                                    turned by the best rigid fit, (x_i − x_j)·R(x̄_i − x̄_j) < 0 */
    OP_OBSERVE_HEIGHT            /* m: extent of the body's particle centres along y (max − min) */
} op_observable_kind;

typedef struct op_observable {
    char name[64];
    op_observable_kind kind;
    int body;          /* index, or -1 for the whole world */
    int vertex;        /* deflection: visual vertex of the body's model */
    int constraint;    /* position_error: index in the body's constraints */
} op_observable;

#endif
