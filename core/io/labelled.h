/* A labelled setting: a name and the config overrides (SECTION.KEY=VALUE) it stands for, the way
 * a comparison names what it compares. Its one text form,
 *
 *   LABEL:SECTION.KEY=VALUE[;SECTION.KEY=VALUE…]
 *
 * is parsed here for every command that compares settings side by side: bench_scenes -V (the
 * variants matrix's ms per frame) and opsim converge --study (its ms to a tolerance). The label
 * ends at the first ':'; the overrides are split at ';' (so no value holds one; a value may hold
 * ':' or ','), each non-empty with a '=' after a non-empty key. */
#ifndef OPSIM_LABELLED_H
#define OPSIM_LABELLED_H

#include <stddef.h>

#include "opsim/ctx.h"

enum { OP_LABELLED_MAX_OVERRIDES = 8, OP_LABELLED_LABEL_SIZE = 64, OP_LABELLED_TEXT_SIZE = 1024 };

typedef struct op_labelled {
    char label[OP_LABELLED_LABEL_SIZE];
    char text[OP_LABELLED_TEXT_SIZE]; /* the overrides, each NUL-terminated, in override[] order */
    const char *override[OP_LABELLED_MAX_OVERRIDES];
    int override_count;
} op_labelled;

/* *s named by the label_length characters of `label`, its overrides `text` split at `separator`
 * (a character `text` does not hold, e.g. '\n': one override). OP_ERR_USAGE naming `option` and
 * `text` when the label is empty or too long, the text too long, an override empty or more than
 * OP_LABELLED_MAX_OVERRIDES; *s is then unusable. */
int op_labelled_set(op_ctx *ctx, op_labelled *s, const char *option, const char *label, size_t label_length,
                    const char *text, char separator);

/* "LABEL:SECTION.KEY=VALUE[;…]" (the file comment) into *s; OP_ERR_USAGE naming `option` (e.g.
 * "--study") and the text when it is not of that form. */
int op_labelled_parse(op_ctx *ctx, op_labelled *s, const char *option, const char *text);

#endif
