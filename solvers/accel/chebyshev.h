/* Chebyshev semi-iterative acceleration (Wang 2015, "A Chebyshev semi-iterative approach for
 * accelerating projective and position-based dynamics"), applied by the world after every
 * iteration of any iterative variant, so no variant's file knows about it.
 *
 * Within one sub-step, x^0 is the state the iterations start from (after PREDICT) and x̂^{k+1}
 * the variant's iterate from x^k. The accelerated iterate is
 *   x^{k+1} = ω_{k+1} (γ (x̂^{k+1} − x^k) + x^k − x^{k−1}) + x^{k−1}
 * with k = 0, 1, … the iteration index within the sub-step and
 *   ω_{k+1} = 1                    for k < S (the delay; x^{k−1} is then not read),
 *   ω_{S+1} = 2 / (2 − ρ²),
 *   ω_{k+1} = 4 / (4 − ρ² ω_k)     for k > S,
 * ρ the spectral radius of the plain iteration (estimated per scene: opsim estimate-rho), γ an
 * under-relaxation in (0, 1]. With S = 1 this is docs/design.md §2's ω₁ = 1, ω₂ = 2/(2 − ρ²). The
 * state is reset at the start of every sub-step, so the first iterate of a sub-step is always
 * plain (up to γ).
 *
 * Positions are extrapolated for every particle whose position is not pinned; with
 * rotations = on, the rotation matrices too (element-wise, by the same formula), each then
 * re-projected onto SO(3) as op_polar_rotation of the extrapolated matrix; pinned rotations are
 * never touched.
 *
 * The plain case is exact. When ω_{k+1} = 1 and γ = 1 (every iteration when ρ = 0 and γ = 1,
 * and the first S iterations whenever γ = 1) the iterate is left as the variant made it. The
 * formula, evaluated in floating point, would give (x̂ − x^k) + x^k, which differs from x̂ in
 * the last bit whenever the subtraction or the addition rounds; and the re-projection of a
 * rotation the variant just produced would change it by rounding too. Leaving it alone makes
 * chebyshev = on with ρ = 0, γ = 1 bitwise the plain run (tests/test_chebyshev.c). */
#ifndef OPSIM_CHEBYSHEV_H
#define OPSIM_CHEBYSHEV_H

#include "opsim/body.h"
#include "opsim/solver.h"
#include "accel/accel.h"

typedef struct op_chebyshev_def {
    int enabled;              /* chebyshev = on */
    double rho;               /* ρ in [0, 1) */
    int rho_given;            /* chebyshev_rho was set */
    char rho_source[256];     /* chebyshev_rho_source, or "given" when ρ was set without one */
    int delay;                /* S ≥ 1 */
    double gamma;             /* γ in (0, 1] */
    int rotations;            /* chebyshev_rotations = on */
} op_chebyshev_def;

/* The common options of validated settings (op_solver_settings_validate). chebyshev = on
 * without chebyshev_rho is an OP_ERR_USAGE naming chebyshev_rho. */
int op_chebyshev_def_from_settings(op_ctx *ctx, const op_solver_settings *settings, op_chebyshev_def *def);

/* ω_{k+1} for iteration k, given ω_k (the previous call's result; anything for k ≤ S). */
double op_chebyshev_omega(const op_chebyshev_def *def, int k, double omega_previous);

/* Per-body state: x^{k−1}, x^k and, with rotations, R^{k−1}, R^k. */
typedef struct op_chebyshev {
    int n;
    int rotations;
    double omega;          /* ω of the last iteration applied */
    double *position_prev; /* [n][3] x^{k−1} */
    double *position;      /* [n][3] x^k */
    double *rotation_prev; /* [n][9] R^{k−1} (rotations only) */
    double *rotation;      /* [n][9] R^k (rotations only) */
} op_chebyshev;

int op_chebyshev_init(op_ctx *ctx, op_chebyshev *state, const op_chebyshev_def *def, int particle_count);
void op_chebyshev_free(op_chebyshev *state);

/* Start of a sub-step: x^0 (and R^0) are the body's current state. */
void op_chebyshev_reset(op_chebyshev *state, const op_body *body);

/* After iteration k (0-based) of the sub-step: the body holds x̂^{k+1}; replaces it by x^{k+1}
 * and remembers x^k and x^{k+1}. Returns 1 when it changed the body's rotations (the variant's
 * resync is then due), 0 otherwise. */
int op_chebyshev_apply(op_chebyshev *state, const op_chebyshev_def *def, op_body *body, int k);

/* Estimating ρ from a run of plain iterations (opsim estimate-rho): with
 * d_k = ‖x^{k+1} − x^k‖ for k = 0 … count − 1 (all particle centres, one Euclidean norm), the
 * median of the ratios d_k / d_{k−1} over the last half, k ≥ count/2, leaving out ratios whose
 * d_{k−1} is not above floor_level (rounding level: the ratio is noise there). For a linear
 * iteration those ratios tend to the spectral radius; the median, not a mean, so a few ratios
 * disturbed by a rotation flip or by rounding do not move it. */
typedef struct op_rho_estimate {
    double rho;                /* the median, capped at 0.999999 */
    int used;                  /* ratios used */
    int first, last;           /* the k range considered */
    double min, lower_quartile, median, upper_quartile, max;
} op_rho_estimate;

/* OP_ERR_INVALID when no ratio is usable (the iteration reached rounding level too early). */
int op_chebyshev_estimate_rho(op_ctx *ctx, const double *change, int count, double floor_level,
                              op_rho_estimate *out);

/* Behind the accelerators' interface (accel.h): "chebyshev", on with chebyshev = on. */
extern const op_accel_type op_chebyshev_accel;
/* The options of a world's accelerator when it is Chebyshev, else NULL (tests change ρ). */
op_chebyshev_def *op_chebyshev_accel_def(op_accel *accel);

#endif
