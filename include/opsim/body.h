/* A body: one instance of a model in the world, with its own stiffness, state, inertial
 * targets, pins and constraints (docs/design.md §1). Every solver variant works on this struct; the
 * harness evaluates the same energy (core/sim/energy.h) on it whatever the variant. */
#ifndef OPSIM_BODY_H
#define OPSIM_BODY_H

#include "opsim/ctx.h"
#include "opsim/graph.h"

typedef struct op_model op_model; /* core/geometry/model.h: a body's model, shared and read-only */

/* A particle held fixed: its position, its orientation, or both, at the values it had when
 * the run started (Fig. 4 pins the dinosaur's centre particle). */
typedef struct op_pin {
    int particle;
    int hold_position, hold_rotation;
    double position[3];
    double rotation[9];
} op_pin;

typedef enum op_constraint_kind {
    OP_CONSTRAINT_POSITION, /* Eq. 13: a skinned visual vertex pulled to a target point */
    OP_CONSTRAINT_DIRECTION /* Eq. 15: a skinned direction at a vertex turned to a target */
} op_constraint_kind;

/* The most skinning influences of a visual vertex (core/geometry/skin.h binds each to its K
 * nearest particles, K ≤ this) */
enum { OP_SKIN_MAX_K = 8 };

/* A constraint acts through one visual vertex: its skinning influences (particle, weight)
 * define v(x, R) = Σ w_j (R_j (v̄ − x̄_j) + x_j) and n(R) = Σ w_j R_j n̄. */
typedef struct op_constraint {
    op_constraint_kind kind;
    double weight;                    /* w_p^c or w_d^c */
    int vertex;                       /* the visual vertex, for reports */
    int influence_count;
    int particle[OP_SKIN_MAX_K];
    double influence[OP_SKIN_MAX_K];
    double rest_point[3];             /* v̄_c, model frame */
    double rest_direction[3];         /* n̄_c, model frame, unit (direction constraints) */
    double anchor[3];                 /* the target at time 0, world frame: the placed rest
                                         point or direction */
    int script;                       /* index into the world's scripts, or -1 for a fixed target */
    double target[3];                 /* v_c or n_c now: the anchor moved by the script */
} op_constraint;

typedef struct op_body {
    char name[64];
    const op_model *model;    /* shared, read-only */
    const op_graph *graph;    /* &model->graph */
    double stiffness;         /* k of Eq. 4, N/m per m³ of ellipsoid volume (kg/(m³ s²)) */
    double placement_rotation[9];    /* the model frame's rotation in the world at rest */
    double placement_translation[3];
    op_state state;           /* x, R, v, Ṙ now */
    double *start_position;   /* [n][3] x at the start of the sub-step */
    double *start_rotation;   /* [n][9] R at the start of the sub-step */
    double *inertial_position; /* [n][3] y = x + h v + h² g */
    double *inertial_rotation; /* [n][9] Y = R + h Ṙ */
    int pin_count;
    op_pin *pins;
    int constraint_count;
    op_constraint *constraints;
    unsigned char *position_pinned; /* [n] 1 where a pin holds the position */
    unsigned char *rotation_pinned; /* [n] 1 where a pin holds the orientation */
    double *floor_push;       /* [n] how far the world's last floor projection pushed each
                                 particle up (m), for the contacts' velocity response
                                 (floor_contact = iteration, include/opsim/world.h); with
                                 floor_contact = solve, μ h²/m from the solver's last global
                                 step, μ the floor's force on the particle (N) */
    int floor_held;           /* 1: the solver's global step keeps the particles above
                                 floor_height, with Coulomb friction floor_friction on the floor
                                 (floor_contact = solve; both set by op_world_start) */
    double floor_height;      /* m */
    double floor_friction;
    int sweep_team;           /* 1: a variant's sweep_threads = auto (arap, vbd) shares this
                                 sub-step's sweeps with a thread team; the world's timed choice
                                 (include/opsim/world.h), set before each sub-step */
} op_body;

/* Allocates the state and work arrays of a body of `model` and places it at rest:
 * x_i = P x̄_i + t, R_i = P, zero velocities. No pins or constraints yet. */
int op_body_init(op_ctx *ctx, op_body *body, const char *name, const op_model *model, double stiffness,
                 const double placement_rotation[9], const double placement_translation[3]);
void op_body_free(op_body *body);

/* Adds a pin holding the particle's current position and/or rotation. */
int op_body_add_pin(op_ctx *ctx, op_body *body, int particle, int hold_position, int hold_rotation);
/* Adds a constraint through visual vertex `vertex` (its model skinning); the anchor is the
 * placed rest point (position) or the placed rest direction `rest_direction` (direction). */
int op_body_add_constraint(op_ctx *ctx, op_body *body, op_constraint_kind kind, int vertex,
                           const double rest_direction[3], double weight, int script);

/* v(x, R) of a constraint's vertex, and its skinned direction n(R) (not normalised). */
void op_constraint_skinned_point(const op_body *body, const op_constraint *c, double out[3]);
/* v of the positions and rotations given ([n][3], [n][9]) instead of the body's state: the
 * skinned point at the sub-step's start (start_position, start_rotation), for forces. */
void op_constraint_skinned_point_of(const op_body *body, const op_constraint *c, const double *position,
                                    const double *rotation, double out[3]);
void op_constraint_skinned_direction(const op_body *body, const op_constraint *c, double out[3]);

/* The mass-weighted centre of the particle centres x_i. */
void op_body_mass_centre(const op_body *body, double centre[3]);
/* Every particle moves with one rigid motion: v_i = v + ω × (x_i − c) about the body's centre
 * of mass c, Ṙ_i = [ω]× R_i (ω in rad/s, world frame). */
void op_body_set_rigid_velocity(op_body *body, const double velocity[3], const double angular_velocity[3]);

/* The vertex of the model's mesh nearest to p (model frame); ties to the lower index. */
int op_body_nearest_vertex(const op_body *body, const double p[3]);
/* The particle nearest the rest centre of mass (Fig. 4's pinned centre); ties to the lower index. */
int op_body_centre_particle(const op_body *body);

/* Rejects non-finite state, rotations that are not rotations (1e-9), constraints whose
 * influences are out of range, pins out of range. */
int op_body_check(op_ctx *ctx, const op_body *body);

#endif
