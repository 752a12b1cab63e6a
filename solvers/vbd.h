/* The vbd variant (solvers/vbd.c says what it solves and how). */
#ifndef OPSIM_VBD_H
#define OPSIM_VBD_H

#include "opsim/solver.h"

extern const op_solver_type op_solver_vbd;

#endif
