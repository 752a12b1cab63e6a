/* The one table of solver variants. Add a variant: one file in solvers/, one line here. */
#include "arap.h"
#include "arap_reference.h"
#include "arap_lbfgs.h"
#include "meshless.h"
#include "rigid.h"
#include "shape_matching.h"
#include "opsim/solver.h"
#include "springs.h"
#include "vbd.h"
#include "xpbd.h"

const op_solver_type *const op_solver_registry[] = {
    &op_solver_arap,
    &op_solver_arap_reference,
    &op_solver_shape_matching,
    &op_solver_rigid,
    &op_solver_meshless,
    &op_solver_springs,
    &op_solver_arap_lbfgs,
    &op_solver_xpbd,
    &op_solver_vbd,
    NULL,
};
