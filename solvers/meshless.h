/* Meshless deformations based on shape matching (Müller, Heidelberger, Teschner, Gross 2005):
 * the particles' centres matched, cluster by cluster, to their rest shape by the best rigid,
 * linear or quadratic transformation, and pulled towards the matched goals by the paper's
 * integration scheme (Eq. 9); overlapping clusters and plasticity (Sec. 4.4, 4.5). */
#ifndef OPSIM_MESHLESS_H
#define OPSIM_MESHLESS_H

#include "opsim/solver.h"

extern const op_solver_type op_solver_meshless;

/* For tests and studies: a meshless state's cluster count, and cluster c's plastic state S_p
 * (row-major, I until plasticity acts). */
int op_meshless_cluster_count(const void *solver);
void op_meshless_plastic_state(const void *solver, int cluster, double S[9]);

#endif
