/* Process-wide settings of the libraries opsim links, made once at the start of main() of every
 * program (bin/opsim, the benchmarks), and of a program linking libopsim. */
#ifndef OPSIM_PLATFORM_H
#define OPSIM_PLATFORM_H

/* OpenBLAS single-threaded, its worker threads stopped. opsim calls LAPACKE only on 3x3
 * problems (graph building, the SVD reference), where a thread pool never pays; OpenBLAS
 * starts its pool when the library loads, and each worker then spins in sched_yield for about
 * 0.1 s of CPU, taking a core away from the simulation on a shared machine. It is also what
 * makes the graphs the same on every machine: with OpenBLAS on two threads instead of one,
 * LAPACKE_dsyev on the particles' 3x3 moment matrices changed last bits, and the graph of
 * experiments/fig4.ini with them (measured with OPENBLAS_NUM_THREADS=1 and 2). A program that
 * builds models calls this first. Safe to call more than once.
 * HDF5 without its exit handler: a file whose flush failed (a full disk) stays half closed in
 * libhdf5 1.10, and the handler's H5F__close_cb then dereferenced freed memory, turning the
 * clean exit 74 into SIGSEGV. opsim closes every file it opens (a discarded run file through a
 * memory file, core/io/runfile_write.c), so the handler has nothing else to do; the operating system
 * reclaims the library's memory. Must come before any other HDF5 call: it is the first thing
 * main() does. */
void op_platform_init(void);

#endif
