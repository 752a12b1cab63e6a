/* One cell of a CSV or TSV by column names (report_lookup.h): the header read, each row split
 * at the separator and matched against the conditions. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report_lookup.h"

enum { MAX_CELLS = 128, MAX_LINE = 16384 };

typedef struct split_line {
    char text[MAX_LINE];
    const char *cell[MAX_CELLS];
    int count;
} split_line;

/* Splits the line in place at `separator`; returns 0 when it has too many cells. */
static int split(split_line *l, char separator)
{
    l->text[strcspn(l->text, "\r\n")] = '\0';
    char *cell = l->text;
    const char *start = strncmp(cell, "# ", 2) == 0 ? cell + 2 : cell;
    for (l->count = 0; l->count < MAX_CELLS;) {
        char *end = strchr(cell, separator);
        l->cell[l->count] = l->count == 0 ? start : cell;
        ++l->count;
        if (!end)
            return 1;
        *end = '\0';
        cell = end + 1;
    }
    return 0;
}

static int column_index(const split_line *header, const char *name, size_t length)
{
    for (int c = 0; c < header->count; ++c)
        if (strlen(header->cell[c]) == length && strncmp(header->cell[c], name, length) == 0)
            return c;
    return -1;
}

typedef struct lookup_columns {
    int where[REPORT_LOOKUP_MAX_WHERE], column;
    const char *value[REPORT_LOOKUP_MAX_WHERE];
} lookup_columns;

static int find_columns(op_ctx *ctx, const report_lookup_def *def, const split_line *header, lookup_columns *c)
{
    for (int w = 0; w < def->where_count; ++w) {
        const char *equals = strchr(def->where[w], '=');
        if (!equals)
            return OP_FAIL(ctx, OP_ERR_USAGE, "--where '%s': expected NAME=VALUE", def->where[w]);
        c->where[w] = column_index(header, def->where[w], (size_t)(equals - def->where[w]));
        c->value[w] = equals + 1;
        if (c->where[w] < 0)
            return OP_FAIL(ctx, OP_ERR_PARSE, "%s:1: no column '%.*s' in the header", def->in,
                           (int)(equals - def->where[w]), def->where[w]);
    }
    if ((c->column = column_index(header, def->column, strlen(def->column))) < 0)
        return OP_FAIL(ctx, OP_ERR_PARSE, "%s:1: no column '%s' in the header", def->in, def->column);
    return OP_OK;
}

static int matches(const split_line *row, const report_lookup_def *def, const lookup_columns *c)
{
    for (int w = 0; w < def->where_count; ++w)
        if (c->where[w] >= row->count || strcmp(row->cell[c->where[w]], c->value[w]) != 0)
            return 0;
    return 1;
}

/* The matching row's cell into `found` (at most `size` bytes). */
static int find_cell(op_ctx *ctx, const report_lookup_def *def, FILE *in, char *found, size_t size)
{
    static split_line header, row;
    lookup_columns c;
    if (!fgets(header.text, MAX_LINE, in) || !split(&header, def->separator))
        return OP_FAIL(ctx, OP_ERR_PARSE, "%s:1: no header line, or one of more than %d cells", def->in, MAX_CELLS);
    if (find_columns(ctx, def, &header, &c) != OP_OK)
        return ctx->status;
    int found_line = 0;
    for (int number = 2; fgets(row.text, MAX_LINE, in); ++number) {
        if (row.text[0] == '#' || row.text[strspn(row.text, "\r\n")] == '\0')
            continue;
        if (!split(&row, def->separator))
            return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: more than %d cells", def->in, number, MAX_CELLS);
        if (!matches(&row, def, &c))
            continue;
        if (found_line)
            return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: a second row matches (the first at line %d)", def->in,
                           number, found_line);
        found_line = number;
        snprintf(found, size, "%s", c.column < row.count ? row.cell[c.column] : "");
    }
    if (!found_line)
        return OP_FAIL(ctx, OP_ERR_PARSE, "%s: no row matches the --where conditions", def->in);
    return OP_OK;
}

int report_lookup(op_ctx *ctx, const report_lookup_def *def, FILE *out)
{
    FILE *in = fopen(def->in, "r");
    if (!in)
        return OP_FAIL(ctx, OP_ERR_IO, "%s: cannot open: %s", def->in, strerror(errno));
    char cell[MAX_LINE];
    if (find_cell(ctx, def, in, cell, sizeof cell) == OP_OK)
        fprintf(out, "%s\n", cell);
    fclose(in);
    return ctx->status;
}
