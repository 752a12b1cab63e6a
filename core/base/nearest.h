/* The nearest of a list of names to a word mistyped: what "did you mean" messages offer for a
 * command, a config key or a body name. */
#ifndef OPSIM_NEAREST_H
#define OPSIM_NEAREST_H

#include <stddef.h>

/* The name of names[0, count) with the fewest single-character edits (insert, delete,
 * substitute, swap of neighbours) from word[0, length), if that is at most a third of the longer
 * of the two (at least 1, at most 3); else NULL. Ties go to the earlier name. */
const char *op_nearest_name(const char *word, size_t length, const char *const *names, int count);

#endif
