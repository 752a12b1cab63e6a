/* The labelled setting's one parser: see labelled.h. */
#include "io/labelled.h"

#include <string.h>

/* An override is KEY=VALUE with a non-empty KEY. */
static int is_override(const char *text)
{
    const char *equals = strchr(text, '=');
    return equals && equals != text;
}

int op_labelled_set(op_ctx *ctx, op_labelled *s, const char *option, const char *label, size_t label_length,
                    const char *text, char separator)
{
    memset(s, 0, sizeof *s);
    if (label_length == 0 || label_length >= sizeof s->label)
        return OP_FAIL(ctx, OP_ERR_USAGE, "%s '%s': give a label of 1 to %zu characters", option, text,
                       sizeof s->label - 1);
    if (strlen(text) >= sizeof s->text)
        return OP_FAIL(ctx, OP_ERR_USAGE, "%s %.*s: the overrides are longer than %zu characters", option,
                       (int)label_length, label, sizeof s->text - 1);
    memcpy(s->label, label, label_length);
    strcpy(s->text, text);
    for (char *override = s->text;;) {
        char *end = strchr(override, separator);
        if (end)
            *end = '\0';
        if (!is_override(override))
            return OP_FAIL(ctx, OP_ERR_USAGE, "%s %s: '%s' is not SECTION.KEY=VALUE", option, s->label, override);
        if (s->override_count == OP_LABELLED_MAX_OVERRIDES)
            return OP_FAIL(ctx, OP_ERR_USAGE, "%s %s: more than %d overrides", option, s->label,
                           OP_LABELLED_MAX_OVERRIDES);
        s->override[s->override_count++] = override;
        if (!end)
            return OP_OK;
        override = end + 1;
    }
}

int op_labelled_parse(op_ctx *ctx, op_labelled *s, const char *option, const char *text)
{
    const char *colon = strchr(text, ':');
    if (!colon)
        return OP_FAIL(ctx, OP_ERR_USAGE, "%s '%s': expected LABEL:SECTION.KEY=VALUE[;SECTION.KEY=VALUE...]", option,
                       text);
    if (colon == text)
        return OP_FAIL(ctx, OP_ERR_USAGE, "%s '%s': the label before ':' is empty", option, text);
    return op_labelled_set(ctx, s, option, text, (size_t)(colon - text), colon + 1, ';');
}
