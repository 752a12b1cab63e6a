/* The machine-speed probe: a fixed, tiny, deterministic workload timed beside the timings of a
 * long timed phase (the variants matrix: at the start of every round, docs/timing.md), so that a
 * change of speed between two runs, or between the minutes of one, can be told to be the
 * machine's and not the code's. The workload is the kind of arithmetic the solvers do: Newton's
 * iteration for the polar decomposition, X ← (X + X⁻ᵀ)/2, eight steps on each of 4,096 fixed
 * 3×3 matrices (about 300 kB, the size of a small body's rotations and the caches they sit in),
 * built from one seed. A probe times five passes of it and gives the median pass, so that one
 * interrupted pass moves nothing; a pass takes about a millisecond. */
#ifndef OPSIM_PROBE_H
#define OPSIM_PROBE_H

/* The median pass's milliseconds (NAN when out of memory); *checksum (NULL: not wanted) the
 * sum of the matrices' traces after a pass, the same on every call and build (the work done
 * is fixed: tests/test_timer.c). */
double op_probe_ms(double *checksum);

#endif
