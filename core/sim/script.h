/* Scripted rigid motions: keyframes of a translation and a rotation about a pivot, which move
 * constraint targets (the grabbed end of the Fig. 1 bar, the rod of Fig. 6) over time. */
#ifndef OPSIM_SCRIPT_H
#define OPSIM_SCRIPT_H

#include "opsim/ctx.h"

enum { OP_SCRIPT_MAX_KEYS = 64 };

typedef struct op_script {
    char name[64];
    double pivot[3];                        /* world frame, m */
    int key_count;
    double time[OP_SCRIPT_MAX_KEYS];        /* s, strictly increasing */
    double translation[OP_SCRIPT_MAX_KEYS][3];
    double axis[OP_SCRIPT_MAX_KEYS][3];     /* unit rotation axis */
    double angle[OP_SCRIPT_MAX_KEYS];       /* radians about axis, may exceed 2π (turns) */
} op_script;

/* The motion at time t as x ↦ R (x − pivot) + pivot + translation. Between keys the
 * translation is interpolated linearly and the rotation is exp(lerp of the rotation vectors
 * axis·angle), so several turns about one axis play out as written; before the first key the
 * first key holds, after the last the last. */
void op_script_eval(const op_script *script, double t, double rotation[9], double translation[3]);
/* Applies the motion at time t to a point and to a direction. */
void op_script_move_point(const op_script *script, double t, const double p[3], double out[3]);
void op_script_move_direction(const op_script *script, double t, const double d[3], double out[3]);

/* Rejects no keys, non-increasing times, non-finite values, zero axes (angle ≠ 0). */
int op_script_check(op_ctx *ctx, const op_script *script);

/* Rotation matrix of angle θ about a unit axis (Rodrigues). */
void op_axis_angle_matrix(const double axis[3], double angle, double rotation[9]);

#endif
