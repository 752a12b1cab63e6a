/* The rotation of a 3x3 matrix's polar decomposition, sign-rectified: the R in SO(3) that
 * maximises tr(Rᵀ C), which is the local step of every shape-matching style solver. */
#ifndef OPSIM_POLAR_H
#define OPSIM_POLAR_H

/* Fast closed form for the inner loop. C row-major; R row-major, det R = +1, even for
 * inverted (det C < 0), flat and rank-deficient C. C = 0 gives the identity. */
void op_polar_rotation(const double C[9], double R[9]);

/* Slow reference through LAPACKE_dgesvd: R = U diag(1, 1, det(U Vᵀ)) Vᵀ. Returns 0 on success,
 * the LAPACK info otherwise. For tests and benchmarks. */
int op_polar_rotation_svd(const double C[9], double R[9]);

#endif
