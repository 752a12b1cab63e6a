/* Process-wide settings of the libraries opsim links, made once at the start of main() of every
 * program (bin/opsim, the benchmarks). */
#ifndef OPSIM_PLATFORM_H
#define OPSIM_PLATFORM_H

/* OpenBLAS single-threaded, its worker threads stopped. opsim calls LAPACKE only on 3x3
 * problems (graph building, the SVD reference), where a thread pool never pays; OpenBLAS
 * starts its pool when the library loads, and each worker then spins in sched_yield for about
 * 0.1 s of CPU, taking a core away from the simulation on a shared machine. Safe to call more
 * than once. */
void op_platform_init(void);

#endif
