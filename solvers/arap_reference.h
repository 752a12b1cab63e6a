/* arap-reference (solvers/arap_reference.c): the paper's local/global solver in plain scalar C,
 * the reference the fast arap is tested against bit for bit. */
#ifndef OPSIM_ARAP_REFERENCE_H
#define OPSIM_ARAP_REFERENCE_H

#include "opsim/solver.h"

extern const op_solver_type op_solver_arap_reference;

#endif
