/* Process-wide library settings (platform.h). */
#include "opsim/platform.h"

/* From OpenBLAS's cblas.h, which Debian installs under a variant-specific directory
 * (openblas-pthread/, openblas-openmp/ ...): declared here rather than reaching for one of
 * them. Every variant exports it; the serial one ignores it. */
extern void openblas_set_num_threads(int num_threads);
/* OpenBLAS's pool shutdown, exported but undeclared (its fork handler calls it). Setting one
 * thread only stops new work going to the pool: the workers it started when the library loaded
 * go on spinning until their timeout (measured: 0.1 s of CPU with the main thread idle) unless
 * shut down. Weak, so that a variant without it still links, and the call is skipped there. With
 * one thread set, later LAPACKE calls never restart the pool. */
extern int blas_thread_shutdown_(void) __attribute__((weak));

#include <hdf5.h>

void op_platform_init(void)
{
    openblas_set_num_threads(1);
    if (blas_thread_shutdown_)
        blas_thread_shutdown_();
    H5dont_atexit();
}
