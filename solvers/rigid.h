/* The rigid reference (solvers/rigid.c): each body one rigid body under the implicit Euler step
 * every variant takes, the limit k → ∞ of arap. */
#ifndef OPSIM_RIGID_H
#define OPSIM_RIGID_H

#include "opsim/solver.h"

extern const op_solver_type op_solver_rigid;

#endif
