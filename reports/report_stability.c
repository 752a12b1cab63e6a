/* Two runs of a timed table compared cell by cell and by ranking (report_stability.h). */
#include "report_stability.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_ROWS = 1024, MAX_COLUMNS = 96, MAX_RANKED = 64 };

/* A table: its column names and its rows' cells, in one block of text split in place. */
typedef struct table {
    char *text;
    int columns, rows;
    char *name[MAX_COLUMNS];
    char *cell[MAX_ROWS][MAX_COLUMNS]; /* NULL past a short row's end */
} table;

/* Splits `line` at its tabs in place into cells[]; returns how many (at most MAX_COLUMNS). */
static int split_line(char *line, char **cells)
{
    int count = 0;
    while (count < MAX_COLUMNS) {
        cells[count++] = line;
        char *tab = strchr(line, '\t');
        if (!tab)
            break;
        *tab = '\0';
        line = tab + 1;
    }
    return count;
}

static int read_table(op_ctx *ctx, const char *path, table *t)
{
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "rb");
    if (!f)
        return OP_FAIL(ctx, OP_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    size_t size = 0;
    if (fseek(f, 0, SEEK_END) == 0 && ftell(f) > 0)
        size = (size_t)ftell(f);
    rewind(f);
    if (!(t->text = op_calloc(ctx, size + 1, 1)) || fread(t->text, 1, size, f) != size) {
        fclose(f);
        return ctx->status != OP_OK ? ctx->status : OP_FAIL(ctx, OP_ERR_IO, "%s: cannot read", path);
    }
    fclose(f);
    int number = 0;
    for (char *line = t->text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        ++number;
        if (!*line)
            continue;
        if (line[0] == '#') {
            if (t->columns == 0 && strncmp(line, "# ", 2) == 0)
                t->columns = split_line(line + 2, t->name);
            continue;
        }
        if (t->columns == 0) { /* the plain header line of docs/results.md */
            t->columns = split_line(line, t->name);
            continue;
        }
        if (t->rows == MAX_ROWS)
            return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: more than %d rows", path, number, MAX_ROWS);
        if (split_line(line, t->cell[t->rows]) < 2)
            return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: fewer than two cells (the row's keys)", path, number);
        t->rows++;
    }
    if (t->columns < 3)
        return OP_FAIL(ctx, OP_ERR_PARSE, "%s: no header line naming two key columns and a measure", path);
    return OP_OK;
}

static int column_of(const table *t, const char *name)
{
    for (int c = 0; c < t->columns; ++c)
        if (strcmp(t->name[c], name) == 0)
            return c;
    return -1;
}

static int row_of(const table *t, const char *key1, const char *key2)
{
    for (int r = t->rows - 1; r >= 0; --r) /* a later row replaces an earlier one */
        if (strcmp(t->cell[r][0], key1) == 0 && strcmp(t->cell[r][1], key2) == 0)
            return r;
    return -1;
}

static const char *cell(const table *t, int row, const char *column)
{
    int c = row < 0 ? -1 : column_of(t, column);
    return c < 0 || !t->cell[row][c] ? "" : t->cell[row][c];
}

/* The cell as a number, or NAN when it is not one (empty, "–", "failed", …). */
static double number(const char *text)
{
    char *end;
    double value = strtod(text, &end);
    return end != text && *end == '\0' && isfinite(value) ? value : NAN;
}

static int noisy_in(const table *t, int row, const char *column)
{
    char name[128];
    snprintf(name, sizeof name, "%s_noisy", column);
    return strcmp(cell(t, row, name), "1") == 0;
}

/* Whether a column is an end of another's interval (NAME_lo, NAME_hi): part of that cell, whose
 * noisy flag already says what its width means, not a cell compared by itself. */
static int is_interval_end(const char *column)
{
    size_t length = strlen(column);
    return length > 3 && (strcmp(column + length - 3, "_lo") == 0 || strcmp(column + length - 3, "_hi") == 0);
}

/* Whether a column holds milliseconds compared (ms_…, own_ms_…), not an interval's end or flag. */
static int is_compared(const char *column)
{
    return (strncmp(column, "ms", 2) == 0 || strncmp(column, "own_ms", 6) == 0) && !strstr(column, "_noisy") &&
           !is_interval_end(column);
}

/* A cell as written: the number as the table has it, or empty for anything else. */
static const char *as_number(const char *text)
{
    return isnan(number(text)) ? "" : text;
}

/* Row r of `first` against its row in `second`, every ms column; returns the unstable cells. */
static int compare_row(const table *first, const table *second, int r, double tolerance, FILE *out, int *compared)
{
    int unstable = 0;
    const char *variant = first->cell[r][0], *scene = first->cell[r][1];
    int s = row_of(second, variant, scene);
    for (int c = 2; c < first->columns; ++c) {
        const char *column = first->name[c];
        if (!is_compared(column))
            continue;
        const char *a = cell(first, r, column), *b = s < 0 ? "" : cell(second, s, column);
        double x = number(a), y = number(b), change = (y - x) / x;
        const char *verdict;
        if (s < 0)
            verdict = "missing";
        else if (!isnan(x) && !isnan(y))
            /* a hair over: the cells are printed to a few places, and 1.1 / 1.0 − 1 rounds above 0.1 */
            verdict = fabs(change) <= tolerance * (1 + 1e-9)                  ? "stable"
                      : noisy_in(first, r, column) && noisy_in(second, s, column) ? "noisy"
                                                                                   : "differs";
        else
            verdict = isnan(x) && isnan(y) && strcmp(a, b) == 0 ? "stable" : "differs";
        unstable += strcmp(verdict, "stable") != 0 && strcmp(verdict, "noisy") != 0;
        ++*compared;
        fprintf(out, "%s\t%s\t%s\t%s\t%s\t", variant, scene, column, as_number(a), as_number(b));
        if (!isnan(change) && isfinite(change))
            fprintf(out, "%.1f", 100 * change);
        fprintf(out, "\t%s\n", verdict);
    }
    return unstable;
}

/* The variants of `scene` with a number in `column` in both tables, ordered by `in`'s. */
typedef struct ranked {
    const char *variant;
    double value;
} ranked;

static int by_value(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    return (x->value > y->value) - (x->value < y->value);
}

static int rank(const table *in, const table *other, const char *scene, const char *column, ranked *list)
{
    int n = 0;
    for (int r = 0; r < in->rows && n < MAX_RANKED; ++r) {
        if (strcmp(in->cell[r][1], scene) != 0 || row_of(in, in->cell[r][0], scene) != r)
            continue;
        double value = number(cell(in, r, column));
        if (!isnan(value) && !isnan(number(cell(other, row_of(other, in->cell[r][0], scene), column))))
            list[n++] = (ranked){ in->cell[r][0], value };
    }
    qsort(list, (size_t)n, sizeof *list, by_value);
    return n;
}

static void write_order(const ranked *list, int n, FILE *out)
{
    for (int k = 0; k < n; ++k)
        fprintf(out, "%s%s", k ? " < " : "", list[k].variant);
}

/* Each scene's ranking by `column` in both runs (scenes in order of first appearance); returns
 * the scenes whose orders differ. */
static int compare_rankings(const table *first, const table *second, const char *column, FILE *out, int *scenes)
{
    int differ = 0;
    for (int r = 0; r < first->rows; ++r) {
        const char *scene = first->cell[r][1];
        int seen = 0;
        for (int q = 0; q < r && !seen; ++q)
            seen = strcmp(first->cell[q][1], scene) == 0;
        if (seen)
            continue;
        ranked a[MAX_RANKED], b[MAX_RANKED];
        int n = rank(first, second, scene, column, a), m = rank(second, first, scene, column, b), same = n == m;
        for (int k = 0; same && k < n; ++k)
            same = strcmp(a[k].variant, b[k].variant) == 0;
        differ += !same;
        ++*scenes;
        fprintf(out, "%s\t%s\t", scene, column);
        write_order(a, n, out);
        fprintf(out, "\t");
        write_order(b, m, out);
        fprintf(out, "\t%s\n", same ? "same" : "differs");
    }
    return differ;
}

int report_stability(op_ctx *ctx, const char *first_path, const char *second_path, double tolerance,
                     const char *rank_column, FILE *cells, FILE *ranks, report_stability_totals *totals)
{
    memset(totals, 0, sizeof *totals);
    table *first = op_calloc(ctx, 1, sizeof *first), *second = op_calloc(ctx, 1, sizeof *second);
    if (!first || !second || read_table(ctx, first_path, first) != OP_OK ||
        read_table(ctx, second_path, second) != OP_OK)
        goto done;
    if (column_of(first, rank_column) < 0 || column_of(second, rank_column) < 0) {
        OP_FAIL(ctx, OP_ERR_PARSE, "%s or %s: no column %s to rank by", first_path, second_path, rank_column);
        goto done;
    }
    fprintf(cells, "variant\tscene\tcolumn\tfirst\tsecond\tchange_pct\tverdict\n");
    for (int r = 0; r < first->rows; ++r)
        if (row_of(first, first->cell[r][0], first->cell[r][1]) == r)
            totals->unstable += compare_row(first, second, r, tolerance, cells, &totals->compared);
    fprintf(ranks, "scene\trank_by\tfirst_order\tsecond_order\tverdict\n");
    totals->rankings_differ = compare_rankings(first, second, rank_column, ranks, &totals->scenes);
done:
    if (first)
        free(first->text);
    if (second)
        free(second->text);
    free(first);
    free(second);
    return ctx->status;
}
