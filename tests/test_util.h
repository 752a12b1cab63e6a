/* Shared helpers for the cmocka tests: double comparisons that print both numbers, and the
 * paths of the test meshes made by `make data`. */
#ifndef OPSIM_TEST_UTIL_H
#define OPSIM_TEST_UTIL_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* |a − b| <= tol * max(1, |a|, |b|) */
#define assert_close(a, b, tol)                                                                    \
    do {                                                                                           \
        double assert_close_a_ = (a), assert_close_b_ = (b);                                       \
        double assert_close_s_ = fmax(1.0, fmax(fabs(assert_close_a_), fabs(assert_close_b_)));   \
        if (!(fabs(assert_close_a_ - assert_close_b_) <= (tol) * assert_close_s_))                 \
            fail_msg("%s = %.17g but %s = %.17g (tolerance %g)", #a, assert_close_a_, #b,          \
                     assert_close_b_, (double)(tol));                                              \
    } while (0)

/* a <= b */
#define assert_le(a, b)                                                                            \
    do {                                                                                           \
        double assert_le_a_ = (a), assert_le_b_ = (b);                                             \
        if (!(assert_le_a_ <= assert_le_b_))                                                       \
            fail_msg("expected %s = %.17g <= %s = %.17g", #a, assert_le_a_, #b, assert_le_b_);     \
    } while (0)

/* Meshes extracted and scaled by `make data` (the tests run from the project root). */
#define TEST_MESH_DIR "data/meshes"

/* A fresh path under build/test-tmp/ for a file a test writes: unique per process and call.
 * The returned buffer is reused by the next call. */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
static inline const char *test_tmp_path(const char *suffix)
{
    static char path[512];
    static int counter;
    mkdir("build", 0777);
    mkdir("build/test-tmp", 0777);
    snprintf(path, sizeof path, "build/test-tmp/%ld-%d%s", (long)getpid(), counter++, suffix);
    return path;
}

#endif
