/* Tests of core/base/ctx.c's allocation helpers: op_calloc_lines gives zeroed memory starting on a
 * 64-byte line for sizes that are not multiples of it (aligned_alloc refuses those unless
 * rounded up) and for count 0, and records nothing in the context while it succeeds. */
#include <stdlib.h>

#include "opsim/ctx.h"
#include "test_util.h"

static void test_calloc_lines_is_aligned_and_zeroed(void **state)
{
    (void)state;
    const size_t counts[] = { 0, 1, 3, 1000 }, sizes[] = { 1, 8, 40, 64, 72 };
    for (size_t a = 0; a < sizeof counts / sizeof *counts; ++a)
        for (size_t b = 0; b < sizeof sizes / sizeof *sizes; ++b) {
            op_ctx ctx;
            op_ctx_init(&ctx);
            unsigned char *p = op_calloc_lines(&ctx, counts[a], sizes[b]);
            assert_non_null(p);
            assert_int_equal(ctx.status, OP_OK);
            assert_int_equal((uintptr_t)p % 64, 0);
            size_t bytes = (counts[a] ? counts[a] : 1) * sizes[b];
            for (size_t k = 0; k < bytes; ++k)
                assert_int_equal(p[k], 0);
            free(p);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_calloc_lines_is_aligned_and_zeroed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
