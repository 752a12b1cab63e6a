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

/* Every test program starts as bin/opsim does (core/base/platform.h): OpenBLAS on one thread, so
 * that the graphs the tests build are the ones opsim builds, on a machine of any core count. */
#include "opsim/platform.h"
__attribute__((constructor)) static void test_platform_init(void)
{
    op_platform_init();
}

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

/* The exit status of a shell command, formatted like printf (the tests run from the project
 * root, so bin/opsim is the program under test); fails the test if it did not exit. */
#include <stdlib.h>
#include <sys/wait.h>
static inline int test_shell(const char *format, ...) __attribute__((format(printf, 1, 2)));
static inline int test_shell(const char *format, ...)
{
    char command[4096];
    va_list args;
    va_start(args, format);
    int length = vsnprintf(command, sizeof command, format, args);
    va_end(args);
    if (length < 0 || (size_t)length >= sizeof command)
        fail_msg("command too long: %.200s", command);
    int status = system(command);
    if (status == -1 || !WIFEXITED(status))
        fail_msg("%s: did not exit (status %d)", command, status);
    return WEXITSTATUS(status);
}

/* "DIR/NAME" in one of four buffers used in turn, so that one call can name up to four paths. */
static inline const char *test_join(const char *dir, const char *name)
{
    static char path[4][600];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "%s/%s", dir, name);
    return p;
}

/* Writes `text` as the whole file at `path`; 0, or -1 when it cannot. */
static inline int test_write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f) == 0 ? 0 : -1;
}

/* A whole text file in a new string (NULL when it cannot be read). */
static inline char *test_read_file(const char *path)
{
    FILE *file = fopen(path, "rb");
    if (!file)
        return NULL;
    char *text = NULL;
    size_t size = 0, used = 0;
    for (;;) {
        if (used + 4096 + 1 > size) {
            size = 2 * size + 4096 + 1;
            char *grown = realloc(text, size);
            if (!grown) {
                free(text);
                fclose(file);
                return NULL;
            }
            text = grown;
        }
        size_t got = fread(text + used, 1, 4096, file);
        used += got;
        if (got < 4096)
            break;
    }
    fclose(file);
    text[used] = '\0';
    return text;
}

#endif
