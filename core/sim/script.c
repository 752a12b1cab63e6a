/* Scripted rigid motions: Rodrigues' formula, keyframe interpolation and the script check. */
#include "sim/script.h"

#include <math.h>

#include "base/math3.h"

void op_axis_angle_matrix(const double axis[3], double angle, double rotation[9])
{
    double c = cos(angle), s = sin(angle), t = 1.0 - c;
    double x = axis[0], y = axis[1], z = axis[2];
    rotation[0] = c + t * x * x;
    rotation[1] = t * x * y - s * z;
    rotation[2] = t * x * z + s * y;
    rotation[3] = t * x * y + s * z;
    rotation[4] = c + t * y * y;
    rotation[5] = t * y * z - s * x;
    rotation[6] = t * x * z - s * y;
    rotation[7] = t * y * z + s * x;
    rotation[8] = c + t * z * z;
}

/* axis·angle of key k; the axis is normalised here because the check accepts any non-zero
 * axis, and a zero axis only ever comes with a zero angle. */
static void key_rotation_vector(const op_script *script, int k, double out[3])
{
    double norm = v3_norm(script->axis[k]);
    if (norm > 0.0)
        v3_scale(out, script->axis[k], script->angle[k] / norm);
    else
        v3_set(out, 0.0, 0.0, 0.0);
}

void op_script_eval(const op_script *script, double t, double rotation[9], double translation[3])
{
    int n = script->key_count;
    if (n < 1) {
        m3_identity(rotation);
        v3_set(translation, 0.0, 0.0, 0.0);
        return;
    }
    /* Keys a and b bracket t, with weight s on b; outside the range one key holds. */
    int a = 0, b = 0;
    double s = 0.0;
    if (t >= script->time[n - 1]) {
        a = b = n - 1;
    } else if (t > script->time[0]) {
        while (script->time[b] <= t)
            ++b;
        a = b - 1;
        s = (t - script->time[a]) / (script->time[b] - script->time[a]);
    }
    /* (1 − s) p + s q rather than p + s (q − p): the key values are reproduced exactly at the keys */
    double ra[3], rb[3], r[3];
    key_rotation_vector(script, a, ra);
    key_rotation_vector(script, b, rb);
    for (int d = 0; d < 3; ++d) {
        translation[d] = (1.0 - s) * script->translation[a][d] + s * script->translation[b][d];
        r[d] = (1.0 - s) * ra[d] + s * rb[d];
    }
    double angle = v3_norm(r);
    if (angle > 0.0) {
        double axis[3];
        v3_scale(axis, r, 1.0 / angle);
        op_axis_angle_matrix(axis, angle, rotation);
    } else {
        m3_identity(rotation);
    }
}

void op_script_move_point(const op_script *script, double t, const double p[3], double out[3])
{
    double rotation[9], translation[3], offset[3];
    op_script_eval(script, t, rotation, translation);
    v3_sub(offset, p, script->pivot);
    m3_mul_v(offset, rotation, offset);
    v3_add(offset, offset, script->pivot);
    v3_add(out, offset, translation);
}

void op_script_move_direction(const op_script *script, double t, const double d[3], double out[3])
{
    double rotation[9], translation[3];
    op_script_eval(script, t, rotation, translation);
    m3_mul_v(out, rotation, d);
}

int op_script_check(op_ctx *ctx, const op_script *script)
{
    const char *name = script->name;
    if (script->key_count < 1 || script->key_count > OP_SCRIPT_MAX_KEYS)
        return OP_FAIL(ctx, OP_ERR_INVALID, "script %s: %d keys (needs 1..%d)", name, script->key_count,
                       OP_SCRIPT_MAX_KEYS);
    if (!v3_isfinite(script->pivot))
        return OP_FAIL(ctx, OP_ERR_INVALID, "script %s: non-finite pivot", name);
    for (int k = 0; k < script->key_count; ++k) {
        if (!isfinite(script->time[k]) || !v3_isfinite(script->translation[k]) || !v3_isfinite(script->axis[k]) ||
            !isfinite(script->angle[k]))
            return OP_FAIL(ctx, OP_ERR_INVALID, "script %s: key %d has a non-finite value", name, k);
        if (k > 0 && !(script->time[k] > script->time[k - 1]))
            return OP_FAIL(ctx, OP_ERR_INVALID, "script %s: key %d at t = %g s does not follow t = %g s", name, k,
                           script->time[k], script->time[k - 1]);
        if (script->angle[k] != 0.0 && v3_norm(script->axis[k]) == 0.0)
            return OP_FAIL(ctx, OP_ERR_INVALID, "script %s: key %d turns %g rad about a zero axis", name, k,
                           script->angle[k]);
    }
    return OP_OK;
}
