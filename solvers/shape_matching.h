/* Oriented-particle shape matching (Müller & Chentanez 2011), the method Choi & Lee 2017
 * compare against in Fig. 3: one shape-matching group per particle (itself and its one ring),
 * PBD-style projection towards the groups' goal positions with stiffness α. */
#ifndef OPSIM_SHAPE_MATCHING_H
#define OPSIM_SHAPE_MATCHING_H

#include "opsim/solver.h"

extern const op_solver_type op_solver_shape_matching;

#endif
