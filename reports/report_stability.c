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

/* A variant's place in a ranking: its value in the ranked column and that value's interval
 * (COLUMN_lo, COLUMN_hi; the value itself where the table has no interval for it). */
typedef struct ranked {
    const char *variant;
    double value, lo, hi;
} ranked;

static int by_value(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    return (x->value > y->value) - (x->value < y->value);
}

/* The interval's end `suffix` ("_lo", "_hi") of `column` in row r, or `value` where it has none. */
static double interval_end(const table *t, int r, const char *column, const char *suffix, double value)
{
    char name[128];
    snprintf(name, sizeof name, "%s%s", column, suffix);
    double end = number(cell(t, r, name));
    return isnan(end) ? value : end;
}

/* The variants of `scene` with a number in `column` in both tables, ordered by `in`'s. */
static int rank(const table *in, const table *other, const char *scene, const char *column, ranked *list)
{
    int n = 0;
    for (int r = 0; r < in->rows && n < MAX_RANKED; ++r) {
        if (strcmp(in->cell[r][1], scene) != 0 || row_of(in, in->cell[r][0], scene) != r)
            continue;
        double value = number(cell(in, r, column));
        if (!isnan(value) && !isnan(number(cell(other, row_of(other, in->cell[r][0], scene), column))))
            list[n++] = (ranked){ in->cell[r][0], value, interval_end(in, r, column, "_lo", value),
                                  interval_end(in, r, column, "_hi", value) };
    }
    qsort(list, (size_t)n, sizeof *list, by_value);
    return n;
}

static void write_order(const ranked *list, int n, FILE *out)
{
    for (int k = 0; k < n; ++k)
        fprintf(out, "%s%s", k ? " < " : "", list[k].variant);
}

static const ranked *find_ranked(const ranked *list, int n, const char *variant)
{
    for (int k = 0; k < n; ++k)
        if (strcmp(list[k].variant, variant) == 0)
            return &list[k];
    return NULL;
}

/* Whether two variants' intervals in one run do not overlap: that run orders them. */
static int disjoint(const ranked *x, const ranked *y)
{
    return x->hi < y->lo || y->hi < x->lo;
}

/* The pairs of a scene ordered oppositely by the two runs (a before b in the first, after it in
 * the second): *reversals counts them all, the return value the significant ones (intervals
 * disjoint in both runs), listed in `out` (NULL: not) as "a/b" separated by ", ". */
static int count_reversals(const ranked *a, int n, const ranked *b, int m, int *reversals, FILE *out)
{
    int significant = 0;
    *reversals = 0;
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
            const ranked *bi = find_ranked(b, m, a[i].variant), *bj = find_ranked(b, m, a[j].variant);
            if (!bi || !bj || !((a[i].value - a[j].value) * (bi->value - bj->value) < 0))
                continue;
            ++*reversals;
            if (!disjoint(&a[i], &a[j]) || !disjoint(bi, bj))
                continue;
            if (out)
                fprintf(out, "%s%s/%s", significant ? ", " : "", a[i].variant, a[j].variant);
            ++significant;
        }
    return significant;
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of values[0 … n − 1] (sorts them), NAN when n is 0. */
static double median_of(double *values, int n)
{
    if (n == 0)
        return NAN;
    qsort(values, (size_t)n, sizeof *values, by_double);
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

/* The median over a scene's compared cells holding a number in both runs of second / first,
 * NAN when there is none: how far the scene moved as a whole. */
static double scene_ratio(const table *first, const table *second, const char *scene)
{
    double *ratio = malloc((size_t)first->rows * (size_t)first->columns * sizeof *ratio);
    int n = 0;
    for (int r = 0; ratio && r < first->rows; ++r) {
        int s = row_of(second, first->cell[r][0], scene);
        if (strcmp(first->cell[r][1], scene) != 0 || row_of(first, first->cell[r][0], scene) != r || s < 0)
            continue;
        for (int c = 2; c < first->columns; ++c) {
            double x = number(cell(first, r, first->name[c])), y = number(cell(second, s, first->name[c]));
            if (is_compared(first->name[c]) && x > 0 && !isnan(y))
                ratio[n++] = y / x;
        }
    }
    double median = ratio ? median_of(ratio, n) : NAN;
    free(ratio);
    return median;
}

/* Each scene's ranking by `column` in both runs (scenes in order of first appearance), into the
 * totals: the scenes whose orders differ, the pairs reversed and those reversed significantly. */
static void compare_rankings(const table *first, const table *second, const char *column, FILE *out,
                             report_stability_totals *totals)
{
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
        totals->rankings_differ += !same;
        ++totals->scenes;
        fprintf(out, "%s\t%s\t", scene, column);
        write_order(a, n, out);
        fprintf(out, "\t");
        write_order(b, m, out);
        fprintf(out, "\t%s\t", same ? "same" : "differs");
        double ratio = scene_ratio(first, second, scene);
        if (!isnan(ratio))
            fprintf(out, "%.3f", ratio);
        int reversals, significant = count_reversals(a, n, b, m, &reversals, NULL);
        fprintf(out, "\t%d\t%d\t%s\t", reversals, significant,
                significant ? "reversed" : same ? "same" : "same within intervals");
        count_reversals(a, n, b, m, &reversals, out);
        fprintf(out, "\n");
        if (totals->scenes <= REPORT_STABILITY_MAX_SCENES) {
            snprintf(totals->scene[totals->scenes - 1], REPORT_STABILITY_NAME, "%s", scene);
            totals->cells_ratio[totals->scenes - 1] = ratio;
        }
        totals->reversals += reversals;
        totals->significant_reversals += significant;
        totals->scenes_reversed += significant > 0;
    }
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
    fprintf(ranks, "scene\trank_by\tfirst_order\tsecond_order\torder\tcells_ratio\treversals\t"
                   "significant_reversals\tverdict\tsignificant_pairs\n");
    compare_rankings(first, second, rank_column, ranks, totals);
done:
    if (first)
        free(first->text);
    if (second)
        free(second->text);
    free(first);
    free(second);
    return ctx->status;
}

int report_stability_probe(op_ctx *ctx, const char *path, double *median_ms)
{
    table *t = op_calloc(ctx, 1, sizeof *t);
    double *values = t ? op_calloc(ctx, MAX_ROWS, sizeof *values) : NULL;
    if (values && read_table(ctx, path, t) == OP_OK) {
        int n = 0, c = column_of(t, "probe_ms");
        for (int r = 0; c >= 0 && r < t->rows; ++r)
            if (!isnan(number(cell(t, r, "probe_ms"))))
                values[n++] = number(cell(t, r, "probe_ms"));
        if (n == 0)
            OP_FAIL(ctx, OP_ERR_PARSE, "%s: no column probe_ms with a number in it", path);
        *median_ms = median_of(values, n);
    }
    if (t)
        free(t->text);
    free(t);
    free(values);
    return ctx->status;
}
