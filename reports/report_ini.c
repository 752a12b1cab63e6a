/* One key of a config's typed sections, scaled (report_ini.h): inih walks the file, each
 * matching entry is kept, and all are printed once the file has parsed. */
#include <ini.h>
#include <stdlib.h>
#include <string.h>

#include "report_ini.h"

enum { MAX_SCALED = 64 };

typedef struct scale_walk {
    op_ctx *ctx;
    const char *path, *type, *key;
    double factor;
    int count;
    char line[MAX_SCALED][256];
} scale_walk;

/* Whether `section` is "TYPE NAME" (a blank after the type). */
static int typed(const char *section, const char *type)
{
    size_t length = strlen(type);
    return strncmp(section, type, length) == 0 && (section[length] == ' ' || section[length] == '\t');
}

static int on_entry(void *user, const char *section, const char *name, const char *value)
{
    scale_walk *w = user;
    if (w->ctx->status != OP_OK || !name || !typed(section, w->type) || strcmp(name, w->key) != 0)
        return 1;
    char *end;
    double number = strtod(value, &end);
    if (end == value || *end)
        OP_FAIL(w->ctx, OP_ERR_PARSE, "%s: [%s] %s = '%s' is not a number", w->path, section, name, value);
    else if (w->count == MAX_SCALED)
        OP_FAIL(w->ctx, OP_ERR_PARSE, "%s: more than %d [%s] sections with %s", w->path, MAX_SCALED, w->type, name);
    else
        snprintf(w->line[w->count++], sizeof w->line[0], "%s.%s=%.17g", section, name, number * w->factor);
    return 1;
}

int report_scale_key(op_ctx *ctx, const char *path, const char *section, const char *key, const char *factor,
                     FILE *out)
{
    char *end;
    scale_walk w = { .ctx = ctx, .path = path, .type = section, .key = key, .factor = strtod(factor, &end) };
    if (end == factor || *end)
        return OP_FAIL(ctx, OP_ERR_USAGE, "--factor '%s': expected a number", factor);
    int result = ini_parse(path, on_entry, &w);
    if (ctx->status != OP_OK)
        return ctx->status;
    if (result < 0)
        return OP_FAIL(ctx, OP_ERR_IO, "%s: cannot open", path);
    if (result > 0)
        return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: not an ini line", path, result);
    if (w.count == 0)
        return OP_FAIL(ctx, OP_ERR_PARSE, "%s: no [%s NAME] section has %s", path, section, key);
    for (int k = 0; k < w.count; ++k)
        fprintf(out, "%s\n", w.line[k]);
    return OP_OK;
}
