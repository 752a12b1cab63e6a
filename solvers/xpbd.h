/* The xpbd variant (solvers/xpbd.c says what it solves and how). */
#ifndef OPSIM_XPBD_H
#define OPSIM_XPBD_H

#include "opsim/solver.h"

extern const op_solver_type op_solver_xpbd;

#endif
