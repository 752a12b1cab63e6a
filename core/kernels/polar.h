/* The rotation of a 3x3 matrix's polar decomposition, sign-rectified: the R in SO(3) that
 * maximises tr(Rᵀ C), which is the local step of every shape-matching style solver. */
#ifndef OPSIM_POLAR_H
#define OPSIM_POLAR_H

/* Fast closed form for the inner loop. C row-major; R row-major, det R = +1, even for
 * inverted (det C < 0), flat and rank-deficient C. C = 0 gives the identity. */
void op_polar_rotation(const double C[9], double R[9]);

/* Four op_polar_rotation at once, C[m] to R[m] (the world's rigid turns of a group's four
 * bodies): the closed form's latency chains side by side in AVX lanes where the CPU has them,
 * bitwise four calls (a matrix the closed form sends to its rarer paths, a scaled reflection, a
 * nearly repeated eigenvalue or a norm out of range, goes through op_polar_rotation alone). */
void op_polar_rotation4(const double *const C[4], double *const R[4]);

/* The same rotation, warm-started from a nearby one (the solver's previous iterate): q is a
 * quaternion (w, x, y, z) of that rotation on entry, any nonzero length, and the unit quaternion
 * of R on return. Newton's method on the secular equation of the quaternion eigenproblem,
 * accepted only with a certificate that the result is the dominant eigenvector to rounding level
 * (about twice as fast as the closed form when the rotation moved by less than a few degrees);
 * otherwise the closed form. Either way R is polar(C) to rounding, whatever q was. */
void op_polar_rotation_warm(const double C[9], double q[4], double R[9]);

/* Two op_polar_rotation_warm at once, the matrices interleaved as they sit in SSE2 registers:
 * entry k of matrix m at C[2k + m], rotation m likewise in R, quaternion m at q[m]. Bitwise the
 * results of two calls, in little more than the time of one (the two latency chains run side by
 * side in the lanes; two plain calls without SSE2). The quaternions must not overlap.
 * Four at once: two such pairs side by side, entry k of matrix m at C[18 (m / 2) + 2k + m % 2],
 * in one group of AVX lanes where the CPU has AVX (core/kernels/simd.h). */
void op_polar_rotation_warm2_lanes(const double C[18], double *const q[2], double R[18]);
void op_polar_rotation_warm4_lanes(const double C[36], double *const q[4], double R[36]);
/* Eight at once: two fours of that layout (matrix m at C[36 (m / 4) + 18 (m % 4 / 2) + 2k + m % 2]),
 * in two groups of AVX registers, their latency chains side by side. */
void op_polar_rotation_warm8_lanes(const double C[72], double *const q[8], double R[72]);
/* Sixteen: two eights of that layout (matrix m at C[72 (m / 8) + …] as above for m % 8), in two
 * groups of AVX-512 registers where the CPU has them, else as two eights. */
void op_polar_rotation_warm16_lanes(const double C[144], double *const q[16], double R[144]);

/* Four at once, interleaved as they sit in AVX registers: entry k of matrix m at C[4k + m],
 * rotation m likewise in R, component k of quaternion m at q[4k + m] (in and out). For four
 * twin bodies stepped side by side (solvers/arap.c), whose data is kept in this layout. Bitwise
 * four op_polar_rotation_warm calls, on AVX lanes, SSE2 pairs or plain calls. */
void op_polar_rotation_warm4_interleaved(const double C[36], double q[16], double R[36]);
/* Two such fours (C[36 h + 4k + m], R likewise, q[h][4k + m]) side by side: in AVX, their
 * latency chains in two groups of registers at once. */
void op_polar_rotation_warm8_interleaved(const double C[72], double *const q[2], double R[72]);
/* Four such fours (C[36 h + 4k + m], q[h][4k + m], h < 4): in two groups of AVX-512 registers
 * where the CPU has them, else as two eights. */
void op_polar_rotation_warm16_interleaved(const double C[144], double *const q[4], double R[144]);

/* polar(Y) for the world's inertial prediction Y = R + h Ṙ of a rotation R, in a quarter of the
 * closed form's time. M = Rᵀ Y is taken as axially symmetric, M = α I + β [a]× + γ a aᵀ with the
 * axis entry and α positive, which is what every Ṙ the world makes gives: the difference of two
 * rotations (Y = 2R − R_start, the paper's 2R^c − R^p) and a spin (Ṙ = [ω]× R). Then polar(M) is
 * a turn about a, and R polar(M) is polar(Y) to rounding. For any other Y the result is still
 * a rotation, one that agrees with polar(Y) to first order in h Ṙ. A Y outside the fast form's
 * range (a turn of more than about 120° a sub-step) gets the closed form. */
void op_polar_rotation_predicted(const double R[9], const double Y[9], double out[9]);

/* The unit quaternion of a rotation matrix (of its polar rotation, if it is not quite one): the
 * starting q for op_polar_rotation_warm. */
void op_rotation_quaternion(const double R[9], double q[4]);

/* Slow reference through LAPACKE_dgesvd: R = U diag(1, 1, det(U Vᵀ)) Vᵀ. Returns 0 on success,
 * the LAPACK info otherwise. For tests and benchmarks. */
int op_polar_rotation_svd(const double C[9], double R[9]);

#endif
