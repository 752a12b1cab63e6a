/* The yardstick every solver variant is measured with: the energy of docs/design.md §1,
 * E = E^k + E^e + E^c, evaluated on a body's state against its inertial targets. The harness,
 * never the solver, computes it, so every variant is judged alike.
 *
 *   E^k = Σ_i ρ/(2h²) ‖(R_i − Y_i) Ē_i A_i^½‖²_F + m_i/(2h²) ‖x_i − y_i‖²          (Eq. 9–10)
 *   E^e = k/2 Σ_i Σ_{j∈N_i} ‖(R_i − R_j) Ē_j A_j^½‖²_F + v_j ‖R_i (x̄_j − x̄_i) − (x_j − x_i)‖²   (Eq. 4)
 *   E^c = Σ_position w/2 ‖v(x, R) − v_c‖² + Σ_direction w/2 ‖n(R)/‖n(R)‖ − n_c‖²   (Eq. 13, 15)
 *
 * Eq. 10 as printed drops ρ from the rotational term; Eq. 9 integrates ρ over the ellipsoid,
 * so both kinetic terms carry it (‖M Ē A^½‖²_F = tr(M Ā Mᵀ)). Pins add no energy: a pinned
 * quantity is not a variable. Where the skinned direction n(R) is exactly zero (opposed
 * influences cancel) n/‖n‖ is undefined; it is taken as 0, so the term is w/2 ‖n_c‖² with zero
 * gradient instead of NaN. */
#ifndef OPSIM_ENERGY_H
#define OPSIM_ENERGY_H

#include "opsim/body.h"
#include "opsim/energy.h"

void op_energy_eval(const op_body *body, double h, op_energy *out);

/* ∂E/∂x_i for every particle into gradient[n][3] (pinned particles included: the value is
 * what it would be were they free). Eq. 6 + 12 + 14. */
void op_energy_position_gradient(const op_body *body, double h, double *gradient);

/* E^c alone, and its ∂/∂x_i added into gradient[n][3]: the terms every evaluation of E shares
 * (solvers/arap_energy.c, the arap family's own evaluation, adds them to its E^k + E^e). */
double op_energy_constraints(const op_body *body);
void op_energy_constraints_position_gradient(const op_body *body, double *gradient);

/* ∂E/∂R_i as a 3x3 matrix for every particle into gradient[n][9], treating R_i as an
 * unconstrained matrix (for finite-difference tests of the local step's C_i: on SO(3) the
 * local step maximises tr(R_iᵀ C_i) where −∂E/∂R_i = C_i − R_i S_i with S_i symmetric). */
void op_energy_rotation_gradient(const op_body *body, double h, double *gradient);

/* The kinetic energy of the body's motion (not E^k): ½ Σ m_i ‖v_i‖² + ½ Σ ρ tr(Ṙ_i Ā_i Ṙ_iᵀ). */
double op_energy_motion(const op_body *body);

/* The body's linear momentum Σ m_i v_i and its angular momentum about `centre`, every material
 * point of each ellipsoid counted: Σ m_i (x_i − c) × v_i + vee(Ṙ_i ρĀ_i R_iᵀ − R_i ρĀ_i Ṙ_iᵀ),
 * vee(S) = (S₃₂, S₁₃, S₂₁) (∫ρ (R r̄) × (Ṙ r̄) over the ellipsoid, r̄ from its centre). */
void op_energy_momentum(const op_body *body, const double centre[3], double linear[3], double angular[3]);

#endif
