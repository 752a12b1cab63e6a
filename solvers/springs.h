/* springs: a spring on every edge of the particle graph, integrated by implicit Euler with
 * conjugate gradients (Vogiannou, Moustakas, Tzovaras, Strintzis 2010, "A practical approach for
 * applying non-linear dynamics to particle systems"; Baraff & Witkin 1998). solvers/springs.c
 * holds the method's equations and decisions; this header also gives the force laws on their
 * own, for the tests and for `opsim spring-curves` (experiment 1: the paper's Fig. 1 and 2 from
 * the code the solver runs). */
#ifndef OPSIM_SPRINGS_H
#define OPSIM_SPRINGS_H

#include "opsim/solver.h"

typedef enum op_spring_law {
    OP_SPRING_LINEAR, /* g(ℓ) = K (ℓ − L) */
    OP_SPRING_CUBIC2, /* the two-term "StVK" cubic of Kikuuwe et al. 2009 (paper Eq. 1):
                         g(ℓ) = K/(2L²) ℓ³ − K/2 ℓ */
    OP_SPRING_CUBIC   /* the paper's full cubic g(ℓ) = a ℓ³ + b ℓ² + c ℓ + d (Eq. 2), with
                         g(L) = 0, g'(L) = K, g'(a₁L) = K₁, g'(a₂L) = K₂ (Eq. 4–8) */
} op_spring_law;

/* The full cubic's constraint parameters (Eq. 5–7), the stiffnesses as multiples of K:
 * K₁ = k1 K at ℓ = a1 L, K₂ = k2 K at ℓ = a2 L. */
typedef struct op_spring_shape {
    double a1, a2, k1, k2;
} op_spring_shape;

/* One spring: g(ℓ) = A s³ + B s² + C s + D with s = ℓ/L, in newtons; the paper's coefficients
 * are a = A/L³, b = B/L², c = C/L, d = D (op_spring_coefficients). Writing g in s keeps the
 * 4 × 4 system of Eq. 8 free of powers of L, and its closed-form solution exact to rounding. */
typedef struct op_spring {
    double rest_length;
    double A, B, C, D;
} op_spring;

/* The spring of `law` with rest length L > 0 and stiffness K > 0 (N/m); `shape` is read for the
 * full cubic only and must have a2 < 1 < a1 (else OP_ERR_USAGE naming a1/a2). */
int op_spring_make(op_ctx *ctx, op_spring_law law, double rest_length, double stiffness, const op_spring_shape *shape,
                   op_spring *spring);
/* g(ℓ) (N, positive when stretched: the force pulls the ends together), g'(ℓ) (N/m) and the
 * energy W(ℓ) = ∫_L^ℓ g (J), zero at rest. */
double op_spring_magnitude(const op_spring *spring, double length);
double op_spring_slope(const op_spring *spring, double length);
double op_spring_energy(const op_spring *spring, double length);
/* a, b, c, d of Eq. 2 in SI units. */
void op_spring_coefficients(const op_spring *spring, double abcd[4]);
/* The paper's Sec. 4 "damping" of the Jacobian: the spring whose b and d have lost the fraction
 * `damping` of their magnitude (the paper: 0.01, i.e. 99 % of |b| and |d|); used in the Jacobian
 * only, never in the force. */
op_spring op_spring_damped_jacobian(const op_spring *spring, double damping);

/* One edge at positions xi, xj: length ℓ, u = (xi − xj)/ℓ, the force on i f_i = −g(ℓ) u (on j:
 * −f_i), and the edge's stiffness block −∂f_i/∂x_i = along u uᵀ + across (I − u uᵀ) with
 * along = g'(ℓ), across = g(ℓ)/ℓ of `jacobian` (the spring itself, or its damped Jacobian
 * spring). The paper's Eq. 3 and 9 are this block written in a, b, c, d. At ℓ = 0 the direction
 * is undefined: no force, u = 0 and along = across = g'(0). */
typedef struct op_spring_edge {
    double length, direction[3], force[3], along, across;
} op_spring_edge;
void op_spring_edge_eval(const op_spring *spring, const op_spring *jacobian, const double xi[3], const double xj[3],
                         op_spring_edge *edge);
/* The 3 × 3 block along u uᵀ + across (I − u uᵀ), row-major. */
void op_spring_edge_block(const op_spring_edge *edge, double block[9]);

extern const op_solver_type op_solver_springs;

#endif
