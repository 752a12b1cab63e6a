/* The quasi-Newton variant (Liu, Bouaziz & Kavan 2017): L-BFGS over the free positions on the
 * energy of Choi & Lee 2017, rotations from arap's local step, arap's global matrix as the
 * initial Hessian (arap_lbfgs.c says exactly what is minimised and what the gradient is). */
#ifndef OPSIM_ARAP_LBFGS_H
#define OPSIM_ARAP_LBFGS_H

#include "opsim/solver.h"

extern const op_solver_type op_solver_arap_lbfgs;

#endif
