/* The tables derived from one experiment TSV (report_tsv.h): a sheet of the file's lines split
 * into cells, the lookups by row keys and column name, and the four table writers. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opsim/ctx.h"
#include "report_status.h"
#include "report_tex.h"
#include "report_tsv.h"

/* One line of the file, split at its tabs. The first line is a header (docs/results.md); so is
 * a '#' line, in a table of before the tidy format, whose first cell has lost its "# ". */
typedef struct tsv_line {
    int header, number, count;
    char **cell;
} tsv_line;

typedef struct tsv_sheet {
    const char *path;
    char *text;
    int count;
    tsv_line *line;
} tsv_sheet;

static void free_sheet(tsv_sheet *s)
{
    for (int l = 0; l < s->count; ++l)
        free(s->line[l].cell);
    free(s->line);
    free(s->text);
    memset(s, 0, sizeof *s);
}

static char *read_whole(op_ctx *ctx, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        OP_FAIL(ctx, OP_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    size_t size = 0, capacity = 4096;
    char *text = malloc(capacity);
    for (size_t got; text && (got = fread(text + size, 1, capacity - size - 1, f)) > 0;) {
        size += got;
        if (capacity - size - 1 == 0) {
            char *more = realloc(text, capacity *= 2);
            if (!more)
                free(text);
            text = more;
        }
    }
    int failed = ferror(f);
    fclose(f);
    if (!text) {
        OP_FAIL(ctx, OP_ERR_NOMEM, "%s: out of memory", path);
        return NULL;
    }
    if (failed) {
        free(text);
        OP_FAIL(ctx, OP_ERR_IO, "%s: cannot read", path);
        return NULL;
    }
    text[size] = '\0';
    return text;
}

/* Splits `text` (one line, no newline) at its tabs in place. */
static int split_cells(op_ctx *ctx, char *text, tsv_line *line)
{
    line->count = 1;
    for (const char *c = text; *c; ++c)
        line->count += *c == '\t';
    line->cell = op_calloc(ctx, (size_t)line->count, sizeof *line->cell);
    if (!line->cell)
        return ctx->status;
    char *cell = text;
    for (int c = 0; c < line->count; ++c) {
        char *tab = strchr(cell, '\t');
        if (tab)
            *tab = '\0';
        line->cell[c] = cell;
        cell = tab ? tab + 1 : cell + strlen(cell);
    }
    return OP_OK;
}

static int read_sheet(op_ctx *ctx, const char *path, tsv_sheet *s)
{
    memset(s, 0, sizeof *s);
    s->path = path;
    if (!(s->text = read_whole(ctx, path)))
        return ctx->status;
    int lines = 1;
    for (const char *c = s->text; *c; ++c)
        lines += *c == '\n';
    if (!(s->line = op_calloc(ctx, (size_t)lines, sizeof *s->line)))
        return ctx->status;
    char *text = s->text;
    for (int number = 1; *text; ++number) {
        char *end = strchr(text, '\n');
        if (end)
            *end = '\0';
        char *next = end ? end + 1 : text + strlen(text);
        if (*text) {
            tsv_line *line = &s->line[s->count++];
            line->number = number;
            line->header = s->count == 1 || text[0] == '#';
            if (strncmp(text, "# ", 2) == 0)
                text += 2;
            if (split_cells(ctx, text, line) != OP_OK)
                return ctx->status;
        }
        text = next;
    }
    return OP_OK;
}

/* The header in effect at line index `l`: the last header line before it, NULL if none. */
static const tsv_line *header_before(const tsv_sheet *s, int l)
{
    for (int h = l - 1; h >= 0; --h)
        if (s->line[h].header)
            return &s->line[h];
    return NULL;
}

/* The index of the column `name` in `header`, OP_ERR_PARSE naming the file when it has none. */
static int column_of(op_ctx *ctx, const tsv_sheet *s, const tsv_line *header, const char *name, int *index)
{
    for (int c = 0; header && c < header->count; ++c)
        if (strcmp(header->cell[c], name) == 0) {
            *index = c;
            return OP_OK;
        }
    if (!header)
        return OP_FAIL(ctx, OP_ERR_PARSE, "%s: no header line names the columns (looking for '%s')", s->path, name);
    return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: no column '%s' in the header", s->path, header->number, name);
}

static const char *cell_or_empty(const tsv_line *line, int c)
{
    return line && c < line->count ? line->cell[c] : "";
}

static const char *first_key(const tsv_line *line)
{
    return line->cell[0];
}

static const char *second_key(const tsv_line *line)
{
    return cell_or_empty(line, 1);
}

/* The last data row whose keys are (key1, key2), NULL if none. */
static const tsv_line *find_row(const tsv_sheet *s, const char *key1, const char *key2)
{
    for (int l = s->count - 1; l >= 0; --l) {
        const tsv_line *line = &s->line[l];
        if (!line->header && strcmp(first_key(line), key1) == 0 && strcmp(second_key(line), key2) == 0)
            return line;
    }
    return NULL;
}

/* Whether data row `l` is the first with its first key. */
static int first_of_its_key(const tsv_sheet *s, int l)
{
    for (int e = 0; e < l; ++e)
        if (!s->line[e].header && strcmp(first_key(&s->line[e]), first_key(&s->line[l])) == 0)
            return 0;
    return 1;
}

/* The first header's first name ("variant"), or "" without one. */
static const char *key_name(const tsv_sheet *s)
{
    for (int l = 0; l < s->count; ++l)
        if (s->line[l].header)
            return s->line[l].cell[0];
    return "";
}

/* Pivot: each row's cell of `column`, looked up in the header in effect at that row. */
static int pivot_cell(op_ctx *ctx, const tsv_sheet *s, const char *key1, const char *key2, const char *column,
                      const char **cell)
{
    const tsv_line *row = find_row(s, key1, key2);
    *cell = "";
    if (!row)
        return OP_OK;
    int c;
    if (column_of(ctx, s, header_before(s, (int)(row - s->line)), column, &c) != OP_OK)
        return ctx->status;
    *cell = cell_or_empty(row, c);
    return OP_OK;
}

/* The names of `column`'s status and bound columns in `header` (report_status.h), NULL where
 * it has none. */
static void companion_names(const tsv_line *header, const char *column, const char **status, const char **bound)
{
    *status = *bound = NULL;
    for (int c = 0; header && c < header->count; ++c)
        if (strcmp(header->cell[c], column) == 0) {
            int s, b;
            report_status_find((const char *const *)header->cell, header->count, c, &s, &b);
            *status = s >= 0 ? header->cell[s] : NULL;
            *bound = b >= 0 ? header->cell[b] : NULL;
        }
}

/* The cell of the row (key1, key2) in the column `name` of its header, "" where either is not
 * there (a companion column a table of before the status columns lacks). */
static const char *cell_if_any(const tsv_sheet *s, const char *key1, const char *key2, const char *name)
{
    const tsv_line *row = find_row(s, key1, key2);
    const tsv_line *header = row ? header_before(s, (int)(row - s->line)) : NULL;
    for (int c = 0; name && header && c < header->count; ++c)
        if (strcmp(header->cell[c], name) == 0)
            return cell_or_empty(row, c);
    return "";
}

/* A timed cell with its interval: "MEDIAN (LO–HI)", "†" after it when COLUMN_noisy is 1; an
 * empty cell its status word where that is not "ok" (else empty); a cell that is not a number
 * (a word in a table of before the status columns) as it stands. */
static int write_interval_cell(op_ctx *ctx, const tsv_sheet *s, const char *key1, const char *key2,
                               const char *column, const char *median, const char *status, FILE *out)
{
    char *end;
    strtod(median, &end);
    if (!*median && strcmp(status, "ok") != 0) {
        fprintf(out, "\t%s", status);
        return OP_OK;
    }
    if (!*median || *end) {
        fprintf(out, "\t%s", median);
        return OP_OK;
    }
    char name[3][256];
    const char *cell[3];
    static const char *const suffix[3] = { "_lo", "_hi", "_noisy" };
    for (int k = 0; k < 3; ++k) {
        snprintf(name[k], sizeof name[k], "%s%s", column, suffix[k]);
        if (pivot_cell(ctx, s, key1, key2, name[k], &cell[k]) != OP_OK)
            return ctx->status;
    }
    fprintf(out, "\t%s (%s–%s)%s", median, cell[0], cell[1], strcmp(cell[2], "1") == 0 ? "†" : "");
    return OP_OK;
}

/* The header; with the column's status and bound columns (not for an interval, a text table),
 * KEY2_status and KEY2_bound for each key after the keys' cells. */
static void write_pivot_header(const tsv_sheet *s, char **keys, int key_count, const char *status,
                               const char *bound, FILE *out)
{
    fputs(key_name(s), out);
    for (int k = 0; k < key_count; ++k)
        fprintf(out, "\t%s", keys[k]);
    for (int k = 0; status && k < key_count; ++k)
        fprintf(out, "\t%s_status", keys[k]);
    for (int k = 0; bound && k < key_count; ++k)
        fprintf(out, "\t%s_bound", keys[k]);
    fputc('\n', out);
}

static int write_pivot(op_ctx *ctx, const tsv_sheet *s, const char *column, char **keys, int key_count, int interval,
                       FILE *out)
{
    const char *status, *bound;
    companion_names(header_before(s, s->count), column, &status, &bound);
    write_pivot_header(s, keys, key_count, interval ? NULL : status, interval ? NULL : bound, out);
    for (int l = 0; l < s->count; ++l) {
        if (s->line[l].header || !first_of_its_key(s, l))
            continue;
        const char *key1 = first_key(&s->line[l]);
        fputs(key1, out);
        for (int k = 0; k < key_count; ++k) {
            const char *cell;
            if (pivot_cell(ctx, s, key1, keys[k], column, &cell) != OP_OK)
                return ctx->status;
            if (!interval)
                fprintf(out, "\t%s", cell);
            else if (write_interval_cell(ctx, s, key1, keys[k], column, cell, cell_if_any(s, key1, keys[k], status),
                                         out) != OP_OK)
                return ctx->status;
        }
        for (int k = 0; !interval && status && k < key_count; ++k)
            fprintf(out, "\t%s", cell_if_any(s, key1, keys[k], status));
        for (int k = 0; !interval && bound && k < key_count; ++k)
            fprintf(out, "\t%s", cell_if_any(s, key1, keys[k], bound));
        fputc('\n', out);
    }
    return OP_OK;
}

int report_tsv_pivot(op_ctx *ctx, const char *in_path, const char *column, const char *keys, int interval, FILE *out)
{
    tsv_sheet s = { 0 };
    char *list = strdup(keys);
    char **key = op_calloc(ctx, strlen(keys) / 2 + 1, sizeof *key);
    if (list && key && read_sheet(ctx, in_path, &s) == OP_OK) {
        int count = 0;
        for (char *word = strtok(list, " "); word; word = strtok(NULL, " "))
            key[count++] = word;
        write_pivot(ctx, &s, column, key, count, interval, out);
    }
    free_sheet(&s);
    free(key);
    free(list);
    return ctx->status;
}

/* "KEY2:COLUMN" split at its last ':' (a column name may hold none; a key may). */
static int split_pick(op_ctx *ctx, const char *pick, char *key2, char *column, size_t size)
{
    const char *colon = strrchr(pick, ':');
    if (!colon || (size_t)(colon - pick) >= size || strlen(colon + 1) >= size)
        return OP_FAIL(ctx, OP_ERR_USAGE, "--column '%s': expected KEY:COLUMN", pick);
    snprintf(key2, size, "%.*s", (int)(colon - pick), pick);
    snprintf(column, size, "%s", colon + 1);
    return OP_OK;
}

/* Pick p's column and the names of its status and bound columns in `header` (NULL where none). */
typedef struct tsv_pick {
    char key2[256], column[256];
    const char *status, *bound;
} tsv_pick;

static int read_picks(op_ctx *ctx, const tsv_sheet *s, const char *const *picks, int pick_count, tsv_pick *pick)
{
    for (int p = 0; p < pick_count; ++p) {
        if (split_pick(ctx, picks[p], pick[p].key2, pick[p].column, sizeof pick[p].key2) != OP_OK)
            return ctx->status;
        companion_names(header_before(s, s->count), pick[p].column, &pick[p].status, &pick[p].bound);
    }
    return OP_OK;
}

/* The picks' columns, then for each pick with a status column COLUMN_status, with a bound
 * column COLUMN_bound. */
static void write_pick_header(const tsv_sheet *s, const tsv_pick *pick, int pick_count, FILE *out)
{
    fputs(key_name(s), out);
    for (int p = 0; p < pick_count; ++p)
        fprintf(out, "\t%s", pick[p].column);
    for (int p = 0; p < pick_count; ++p) {
        if (pick[p].status)
            fprintf(out, "\t%s_status", pick[p].column);
        if (pick[p].bound)
            fprintf(out, "\t%s_bound", pick[p].column);
    }
    fputc('\n', out);
}

int report_tsv_pick(op_ctx *ctx, const char *in_path, const char *const *picks, int pick_count, FILE *out)
{
    tsv_sheet s = { 0 };
    tsv_pick *pick = op_calloc(ctx, (size_t)pick_count + 1, sizeof *pick);
    if (!pick || read_sheet(ctx, in_path, &s) != OP_OK || read_picks(ctx, &s, picks, pick_count, pick) != OP_OK) {
        free(pick);
        free_sheet(&s);
        return ctx->status;
    }
    write_pick_header(&s, pick, pick_count, out);
    const tsv_line *last_header = header_before(&s, s.count);
    for (int l = 0; l < s.count && ctx->status == OP_OK; ++l) {
        if (s.line[l].header || !first_of_its_key(&s, l))
            continue;
        const char *key1 = first_key(&s.line[l]);
        fputs(key1, out);
        for (int p = 0, c; p < pick_count; ++p) {
            if (column_of(ctx, &s, last_header, pick[p].column, &c) != OP_OK)
                break;
            fprintf(out, "\t%s", cell_or_empty(find_row(&s, key1, pick[p].key2), c));
        }
        for (int p = 0; p < pick_count; ++p) {
            if (pick[p].status)
                fprintf(out, "\t%s", cell_if_any(&s, key1, pick[p].key2, pick[p].status));
            if (pick[p].bound)
                fprintf(out, "\t%s", cell_if_any(&s, key1, pick[p].key2, pick[p].bound));
        }
        fputc('\n', out);
    }
    free(pick);
    free_sheet(&s);
    return ctx->status;
}

static void write_cells(const tsv_line *line, FILE *out)
{
    for (int c = 0; c < line->count; ++c)
        fprintf(out, "%s%s", c ? "\t" : "", line->cell[c]);
}

int report_tsv_keyed(op_ctx *ctx, const char *in_path, FILE *out)
{
    tsv_sheet s = { 0 };
    if (read_sheet(ctx, in_path, &s) == OP_OK)
        for (int l = 0; l < s.count; ++l) {
            const tsv_line *line = &s.line[l];
            if (line->header)
                fputs("case\t", out);
            else
                fprintf(out, "%s:%s\t", first_key(line), second_key(line));
            write_cells(line, out);
            fputc('\n', out);
        }
    free_sheet(&s);
    return ctx->status;
}

/* The displayed sheet (display_sheet: one header line, then the rows) as report_tex.h sets it. */
static int write_tex_table(op_ctx *ctx, const tsv_sheet *d, const char *source, FILE *out)
{
    const tsv_line *header = &d->line[0];
    const char **cell = op_calloc(ctx, (size_t)(d->count > 1 ? d->count - 1 : 1) * (size_t)header->count, sizeof *cell);
    if (!cell)
        return ctx->status;
    for (int l = 1; l < d->count; ++l)
        for (int c = 0; c < header->count; ++c)
            cell[(size_t)(l - 1) * (size_t)header->count + (size_t)c] = cell_or_empty(&d->line[l], c);
    char origin[4200];
    snprintf(origin, sizeof origin, "make variants from %s", source);
    report_tex_write(&(report_tex_table){ .columns = header->count, .rows = d->count - 1,
                                          .header = (const char *const *)header->cell, .cell = cell, .origin = origin },
                     out);
    free(cell);
    return OP_OK;
}

/* Frees a sheet made by display_sheet, whose cells are its own. */
static void free_display(tsv_sheet *d)
{
    for (int l = 0; l < d->count; ++l)
        for (int c = 0; c < d->line[l].count; ++c)
            free(d->line[l].cell[c]);
    free_sheet(d);
}

/* Data line `row`'s cells as they read, the columns `keep` lists (kept of them): a number column
 * with a status or bound column shows them (report_status_display), any other cell as it is. */
static int display_line(op_ctx *ctx, const tsv_line *header, const tsv_line *row, const int *keep, int kept,
                        tsv_line *line)
{
    if (!(line->cell = op_calloc(ctx, (size_t)kept, sizeof *line->cell)))
        return ctx->status;
    line->count = kept;
    line->number = row ? row->number : header->number;
    for (int k = 0; k < kept; ++k) {
        int status, bound;
        const char *cell = row ? cell_or_empty(row, keep[k]) : header->cell[keep[k]];
        char text[512];
        report_status_find((const char *const *)header->cell, header->count, keep[k], &status, &bound);
        if (row && (status >= 0 || bound >= 0))
            report_status_display(cell, status >= 0 ? cell_or_empty(row, status) : "",
                                  bound >= 0 ? cell_or_empty(row, bound) : "", text, sizeof text);
        else
            snprintf(text, sizeof text, "%s", cell);
        if (!(line->cell[k] = strdup(text)))
            return OP_FAIL(ctx, OP_ERR_NOMEM, "out of memory");
    }
    return OP_OK;
}

/* The table from `header` on as it reads to a person: the status and bound columns folded into
 * the number columns they describe and left out (report_status.h), the later '#' lines of a
 * table of before the tidy format dropped. */
static int display_sheet(op_ctx *ctx, const tsv_sheet *s, const tsv_line *header, tsv_sheet *d)
{
    memset(d, 0, sizeof *d);
    d->path = s->path;
    int keep[REPORT_TEX_MAX_COLUMNS * 2], kept = 0;
    for (int c = 0; c < header->count && kept < REPORT_TEX_MAX_COLUMNS * 2; ++c)
        if (!report_status_is_companion((const char *const *)header->cell, header->count, c))
            keep[kept++] = c;
    if (kept > REPORT_TEX_MAX_COLUMNS)
        return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: more than %d columns", s->path, header->number,
                       REPORT_TEX_MAX_COLUMNS);
    if (!(d->line = op_calloc(ctx, (size_t)s->count, sizeof *d->line)))
        return ctx->status;
    for (int l = (int)(header - s->line); l < s->count; ++l) {
        if (s->line[l].header && &s->line[l] != header)
            continue;
        tsv_line *line = &d->line[d->count++];
        line->header = &s->line[l] == header;
        if (display_line(ctx, header, line->header ? NULL : &s->line[l], keep, kept, line) != OP_OK)
            return ctx->status;
    }
    return OP_OK;
}

int report_tsv_tex(op_ctx *ctx, const char *in_path, const char *source, FILE *out)
{
    tsv_sheet s = { 0 }, d = { 0 };
    if (read_sheet(ctx, in_path, &s) == OP_OK) {
        const tsv_line *header = NULL;
        for (int l = 0; l < s.count && !header; ++l)
            if (s.line[l].header)
                header = &s.line[l];
        if (!header)
            OP_FAIL(ctx, OP_ERR_PARSE, "%s: no line names the columns", in_path);
        else if (display_sheet(ctx, &s, header, &d) == OP_OK)
            write_tex_table(ctx, &d, source, out);
    }
    free_display(&d);
    free_sheet(&s);
    return ctx->status;
}

/* The ratio a / b to two decimals, empty unless both are plain unsigned numbers and b is not 0. */
static void write_ratio(const char *a, const char *b, FILE *out)
{
    const char *digits = "0123456789.";
    int numbers = *a && *b && a[strspn(a, digits)] == '\0' && b[strspn(b, digits)] == '\0';
    if (numbers && strtod(b, NULL) != 0)
        fprintf(out, "\t%.2f", strtod(a, NULL) / strtod(b, NULL));
    else
        fputs("\t", out);
}

/* One target "NAME:PLAIN:ACCELERATED:SCENE:SUFFIX" split at its colons. */
static int split_target(op_ctx *ctx, const char *target, char word[5][256])
{
    const char *start = target;
    for (int w = 0; w < 5; ++w) {
        size_t length = strcspn(start, ":");
        int last = w == 4;
        if (length == 0 || length >= 256 || (start[length] == ':') == last)
            return OP_FAIL(ctx, OP_ERR_USAGE, "--target '%s': expected NAME:PLAIN:ACCELERATED:SCENE:SUFFIX", target);
        snprintf(word[w], 256, "%.*s", (int)length, start);
        start += length + !last;
    }
    return OP_OK;
}

static int write_target(op_ctx *ctx, const tsv_sheet *s, const char *target, FILE *out)
{
    char word[5][256], name[300];
    int c[2];
    const tsv_line *header = header_before(s, s->count);
    if (split_target(ctx, target, word) != OP_OK)
        return ctx->status;
    for (int k = 0; k < 2; ++k) {
        snprintf(name, sizeof name, "%s_%s", k ? "ms" : "iterations", word[4]);
        if (column_of(ctx, s, header, name, &c[k]) != OP_OK)
            return ctx->status;
    }
    const tsv_line *plain = find_row(s, word[1], word[3]), *fast = find_row(s, word[2], word[3]);
    fputs(word[0], out);
    for (int k = 0; k < 2; ++k) {
        const char *p = cell_or_empty(plain, c[k]), *a = cell_or_empty(fast, c[k]);
        fprintf(out, "\t%s\t%s", p, a);
        write_ratio(p, a, out);
    }
    fputc('\n', out);
    return OP_OK;
}

int report_tsv_targets(op_ctx *ctx, const char *in_path, const char *const *targets, int target_count, FILE *out)
{
    tsv_sheet s = { 0 };
    if (read_sheet(ctx, in_path, &s) == OP_OK) {
        fputs("target\tplain_iterations\taccelerated_iterations\titeration_ratio\tplain_ms\taccelerated_ms"
              "\tms_ratio\n", out);
        for (int t = 0; t < target_count && write_target(ctx, &s, targets[t], out) == OP_OK; ++t)
            ;
    }
    free_sheet(&s);
    return ctx->status;
}

/* One stiffness factor's summary over the rows of table.tsv (experiments/stiffness.mk). */
typedef struct stiffness_factor {
    const char *factor, *k;
    double grid_sum, grid_lo, grid_hi, grid_steady_lo, grid_steady_hi, largest_swing;
    int grid_count;
} stiffness_factor;

enum { STIFFNESS_COLUMNS = 7 };
static const char *const STIFFNESS_COLUMN[STIFFNESS_COLUMNS] = {
    "factor", "stiffness", "iterations", "frame_time", "steady_m", "swing_m", "steady_over_static",
};
enum { S_FACTOR, S_K, S_ITERATIONS, S_FRAME_TIME, S_STEADY, S_SWING, S_RATIO };

static int has_word(const char *list, const char *word)
{
    size_t length = strlen(word);
    for (const char *w = list; (w = strstr(w, word)) != NULL; w += length)
        if ((w == list || w[-1] == ' ') && (w[length] == ' ' || w[length] == '\0'))
            return 1;
    return 0;
}

static double number(const tsv_line *row, const int *column, int which)
{
    return strtod(cell_or_empty(row, column[which]), NULL);
}

/* The grid's sums and extremes and the largest swing of `factor`'s rows. */
static void summarise_factor(const tsv_sheet *s, const int *column, const char *grid, stiffness_factor *f)
{
    f->grid_lo = f->grid_steady_lo = 1e300;
    f->grid_hi = f->grid_steady_hi = -1e300;
    for (int l = 0; l < s->count; ++l) {
        const tsv_line *row = &s->line[l];
        if (row->header || strcmp(cell_or_empty(row, column[S_FACTOR]), f->factor) != 0)
            continue;
        double ratio = number(row, column, S_RATIO), steady = number(row, column, S_STEADY);
        if (has_word(grid, cell_or_empty(row, column[S_ITERATIONS]))) {
            f->grid_sum += steady;
            f->grid_count++;
            f->grid_lo = ratio < f->grid_lo ? ratio : f->grid_lo;
            f->grid_hi = ratio > f->grid_hi ? ratio : f->grid_hi;
            f->grid_steady_lo = steady < f->grid_steady_lo ? steady : f->grid_steady_lo;
            f->grid_steady_hi = steady > f->grid_steady_hi ? steady : f->grid_steady_hi;
        }
        double swing = number(row, column, S_SWING);
        f->largest_swing = swing > f->largest_swing ? swing : f->largest_swing;
    }
}

/* steady_over_static of the last row of `factor` at `iterations` and h = 1/30 s (frame time
 * above 0.03 s), 0 if none. */
static double ratio_at(const tsv_sheet *s, const int *column, const char *factor, const char *iterations)
{
    double ratio = 0;
    for (int l = 0; l < s->count; ++l) {
        const tsv_line *row = &s->line[l];
        if (!row->header && strcmp(cell_or_empty(row, column[S_FACTOR]), factor) == 0 &&
            strcmp(cell_or_empty(row, column[S_ITERATIONS]), iterations) == 0 &&
            number(row, column, S_FRAME_TIME) > 0.03)
            ratio = number(row, column, S_RATIO);
    }
    return ratio;
}

static int write_stiffness_factor(op_ctx *ctx, const tsv_sheet *s, const int *column, const char *iterations,
                                  const char *grid, const tsv_line *first, FILE *out)
{
    stiffness_factor f = { .factor = cell_or_empty(first, column[S_FACTOR]), .k = cell_or_empty(first, column[S_K]) };
    summarise_factor(s, column, grid, &f);
    if (f.grid_count == 0)
        return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: factor %s has no run at the grid's iterations (%s)", s->path,
                       first->number, f.factor, grid);
    fprintf(out, "%ld\t%.3g", (long)strtod(f.factor, NULL), strtod(f.k, NULL));
    char list[1024];
    snprintf(list, sizeof list, "%s", iterations);
    for (char *it = strtok(list, " "); it; it = strtok(NULL, " "))
        fprintf(out, "\t%.3f", ratio_at(s, column, f.factor, it));
    double spread = 100 * (f.grid_steady_hi - f.grid_steady_lo) / (f.grid_sum / f.grid_count);
    fprintf(out, "\t%.1f\t%.3f\t%.3f\t%.3g\n", spread, f.grid_lo, f.grid_hi, 1000 * f.largest_swing);
    return OP_OK;
}

static int write_stiffness(op_ctx *ctx, const tsv_sheet *s, const char *iterations, const char *grid, FILE *out)
{
    int column[STIFFNESS_COLUMNS];
    for (int c = 0; c < STIFFNESS_COLUMNS; ++c)
        if (column_of(ctx, s, header_before(s, s->count), STIFFNESS_COLUMN[c], &column[c]) != OP_OK)
            return ctx->status;
    fputs("factor\tk", out);
    char list[1024];
    snprintf(list, sizeof list, "%s", iterations);
    for (char *it = strtok(list, " "); it; it = strtok(NULL, " "))
        fprintf(out, "\tit_%s", it);
    fputs("\tgrid_spread_pct\tgrid_min\tgrid_max\tlargest_swing_mm\n", out);
    for (int l = 0; l < s->count; ++l) {
        const tsv_line *row = &s->line[l];
        if (row->header)
            continue;
        int first = 1;
        for (int e = 0; e < l && first; ++e)
            first = s->line[e].header || strcmp(cell_or_empty(&s->line[e], column[S_FACTOR]),
                                                cell_or_empty(row, column[S_FACTOR])) != 0;
        if (first && write_stiffness_factor(ctx, s, column, iterations, grid, row, out) != OP_OK)
            return ctx->status;
    }
    return OP_OK;
}

int report_tsv_stiffness(op_ctx *ctx, const char *in_path, const char *iterations, const char *grid, FILE *out)
{
    tsv_sheet s = { 0 };
    if (read_sheet(ctx, in_path, &s) == OP_OK)
        write_stiffness(ctx, &s, iterations, grid, out);
    free_sheet(&s);
    return ctx->status;
}

/* ---- long form ---------------------------------------------------------------------------- */

enum { LONG_MAX_KEYS = 8 };

static int is_number_cell(const char *cell)
{
    char *end;
    strtod(cell, &end);
    return *cell && *end == '\0';
}

/* Whether a later data row has the same cells in the key columns (it replaces row `l`). */
static int replaced_later(const tsv_sheet *s, int l, const int *key, int keys)
{
    for (int e = l + 1; e < s->count; ++e) {
        int same = !s->line[e].header;
        for (int k = 0; k < keys && same; ++k)
            same = strcmp(cell_or_empty(&s->line[e], key[k]), cell_or_empty(&s->line[l], key[k])) == 0;
        if (same)
            return 1;
    }
    return 0;
}

static int is_key(int c, const int *key, int keys)
{
    for (int k = 0; k < keys; ++k)
        if (key[k] == c)
            return 1;
    return 0;
}

/* The rows of the long form, each after `prefix` (the table's name and a tab, or ""); with
 * `named`, a key cell as "NAME=CELL" (one column of keys from tables of different keys). */
static void write_long_rows(const tsv_sheet *s, const tsv_line *header, const int *key, int keys, const char *prefix,
                            int named, FILE *out)
{
    for (int l = 0; l < s->count; ++l) {
        const tsv_line *row = &s->line[l];
        if (row->header || replaced_later(s, l, key, keys))
            continue;
        for (int c = 0; c < header->count; ++c) {
            if (is_key(c, key, keys) || !is_number_cell(cell_or_empty(row, c)))
                continue;
            fputs(prefix, out);
            for (int k = 0; k < keys; ++k)
                fprintf(out, "%s%s%s\t", named ? header->cell[key[k]] : "", named ? "=" : "", cell_or_empty(row, key[k]));
            fprintf(out, "%s\t%s\n", header->cell[c], row->cell[c]);
        }
    }
}

static void write_long(const tsv_sheet *s, const tsv_line *header, const int *key, int keys, FILE *out)
{
    for (int k = 0; k < keys; ++k)
        fprintf(out, "%s\t", header->cell[key[k]]);
    fputs("measure\tvalue\n", out);
    write_long_rows(s, header, key, keys, "", 0, out);
}

int report_tsv_long(op_ctx *ctx, const char *in_path, const char *keys, FILE *out)
{
    tsv_sheet s = { 0 };
    char *list = strdup(keys ? keys : "");
    if (!list)
        return OP_FAIL(ctx, OP_ERR_NOMEM, "out of memory");
    if (read_sheet(ctx, in_path, &s) == OP_OK) {
        const tsv_line *header = header_before(&s, s.count);
        int key[LONG_MAX_KEYS], count = 0;
        if (!header)
            OP_FAIL(ctx, OP_ERR_PARSE, "%s: no header line names the columns", in_path);
        else if (!keys)
            key[count++] = 0;
        for (char *word = strtok(list, " "); word && ctx->status == OP_OK; word = strtok(NULL, " ")) {
            if (count == LONG_MAX_KEYS)
                OP_FAIL(ctx, OP_ERR_USAGE, "--keys '%s': more than %d", keys, LONG_MAX_KEYS);
            else
                column_of(ctx, &s, header, word, &key[count++]);
        }
        if (ctx->status == OP_OK)
            write_long(&s, header, key, count, out);
    }
    free_sheet(&s);
    free(list);
    return ctx->status;
}

int report_tsv_long_tables(op_ctx *ctx, const char *const *in_paths, int count, FILE *out)
{
    fputs("table\tcase\tmeasure\tvalue\n", out);
    for (int t = 0; t < count && ctx->status == OP_OK; ++t) {
        tsv_sheet s = { 0 };
        if (read_sheet(ctx, in_paths[t], &s) == OP_OK) {
            const tsv_line *header = header_before(&s, s.count);
            const char *base = strrchr(in_paths[t], '/') ? strrchr(in_paths[t], '/') + 1 : in_paths[t];
            size_t length = strlen(base) > 4 && strcmp(base + strlen(base) - 4, ".tsv") == 0 ? strlen(base) - 4
                                                                                              : strlen(base);
            char prefix[256];
            snprintf(prefix, sizeof prefix, "%.*s\t", (int)(length < 200 ? length : 200), base);
            int key = 0;
            if (!header)
                OP_FAIL(ctx, OP_ERR_PARSE, "%s: no header line names the columns", in_paths[t]);
            else
                write_long_rows(&s, header, &key, 1, prefix, 1, out);
        }
        free_sheet(&s);
    }
    return ctx->status;
}

/* ---- the variants matrix made a table of numbers ----------------------------------------- */

enum { MATRIX_MAX_COLUMNS = 96 };

/* A cell of the gathered matrix as a number cell: a number (a fraction "1/60" as its value), a
 * bound ("≥1e11": the number, *bound "ge"), empty ("", "–", "-"), or a word (returns 0). */
static int matrix_number(const char *cell, char *text, size_t size, const char **bound)
{
    static const char *const signs[][2] = { { "≥", "ge" }, { "≤", "le" } };
    *bound = "";
    *text = '\0';
    if (report_tex_missing_cell(cell) || strcmp(cell, "—") == 0)
        return 1;
    for (size_t i = 0; i < sizeof signs / sizeof signs[0]; ++i)
        if (strncmp(cell, signs[i][0], strlen(signs[i][0])) == 0) {
            cell += strlen(signs[i][0]);
            *bound = signs[i][1];
        }
    const char *slash = strchr(cell, '/');
    char numerator[64];
    if (slash && (size_t)(slash - cell) < sizeof numerator) {
        snprintf(numerator, sizeof numerator, "%.*s", (int)(slash - cell), cell);
        if (!is_number_cell(numerator) || !is_number_cell(slash + 1) || strtod(slash + 1, NULL) == 0)
            return 0;
        double value = strtod(numerator, NULL) / strtod(slash + 1, NULL);
        for (int digits = 1; digits <= 17; ++digits) { /* the shortest text that reads back as the value */
            snprintf(text, size, "%.*g", digits, value);
            if (strtod(text, NULL) == value)
                break;
        }
        return 1;
    }
    if (!is_number_cell(cell))
        return 0;
    snprintf(text, size, "%s", cell);
    return 1;
}

/* The gathered matrix's columns: each value column's status column (an index into the status
 * names) and whether it has a bound column. */
typedef struct matrix_layout {
    int note, status[MATRIX_MAX_COLUMNS], bounded[MATRIX_MAX_COLUMNS], status_count;
    int group[MATRIX_MAX_COLUMNS]; /* per status: a group's (1) or a column's own (0) */
    char status_name[MATRIX_MAX_COLUMNS][300];
} matrix_layout;

static int is_value_column(const matrix_layout *m, int c)
{
    return c >= 2 && c != m->note;
}

static int lay_out_matrix(op_ctx *ctx, const tsv_sheet *s, const tsv_line *header, matrix_layout *m)
{
    memset(m, 0, sizeof *m);
    m->note = -1;
    if (header->count > MATRIX_MAX_COLUMNS)
        return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: more than %d columns", s->path, header->number, MATRIX_MAX_COLUMNS);
    for (int c = 0; c < header->count; ++c) {
        const char *name = header->cell[c];
        size_t length = strlen(name);
        if ((length > 7 && strcmp(name + length - 7, "_status") == 0) ||
            (length > 6 && strcmp(name + length - 6, "_bound") == 0))
            return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: column '%s': the table has its status columns already", s->path,
                           header->number, name);
        if (strcmp(name, "note") == 0)
            m->note = c;
    }
    for (int c = 2; c < header->count; ++c) {
        if (!is_value_column(m, c))
            continue;
        char name[300];
        int group = report_status_name(header->cell[c], name, sizeof name), k = 0;
        while (k < m->status_count && strcmp(m->status_name[k], name) != 0)
            ++k;
        if (k == m->status_count) {
            snprintf(m->status_name[k], sizeof m->status_name[k], "%s", name);
            m->group[m->status_count++] = group;
        }
        m->status[c] = k;
        m->bounded[c] = report_status_bounded(header->cell[c]);
        for (int l = 0; l < s->count && !m->bounded[c]; ++l) {
            char text[64];
            const char *bound;
            if (!s->line[l].header && matrix_number(cell_or_empty(&s->line[l], c), text, sizeof text, &bound))
                m->bounded[c] = *bound != '\0';
        }
    }
    return OP_OK;
}

/* The header: the columns but note, each status column after the first column it describes
 * (and a column's bound after its status), then note. */
static void write_matrix_header(const tsv_line *header, const matrix_layout *m, FILE *out)
{
    int written[MATRIX_MAX_COLUMNS] = { 0 };
    for (int c = 0; c < header->count; ++c)
        if (c != m->note)
            fprintf(out, "%s%s", c ? "\t" : "", header->cell[c]);
    for (int c = 2; c < header->count; ++c) {
        if (!is_value_column(m, c))
            continue;
        if (!written[m->status[c]]++)
            fprintf(out, "\t%s", m->status_name[m->status[c]]);
        if (m->bounded[c])
            fprintf(out, "\t%s_bound", header->cell[c]);
    }
    fprintf(out, "%s\n", m->note >= 0 ? "\tnote" : "");
}

/* One row: the number cells, then each status (its measures' first word; else "ok" where one
 * is a number; else for a group the row's "refused" or "failed" (the converge run that did not
 * run measures nothing of the own_* groups either) or "ok" (none reached), and empty for a
 * column's own, which does not apply to the row) and bound, then the note. */
static void write_matrix_row(const tsv_line *header, const tsv_line *row, const matrix_layout *m, FILE *out)
{
    const char *word[MATRIX_MAX_COLUMNS] = { 0 }, *bound[MATRIX_MAX_COLUMNS] = { 0 };
    int measured[MATRIX_MAX_COLUMNS] = { 0 }, written[MATRIX_MAX_COLUMNS] = { 0 };
    for (int c = 0; c < header->count; ++c) {
        const char *cell = cell_or_empty(row, c);
        char text[64];
        if (c == m->note)
            continue;
        if (!is_value_column(m, c)) {
            fprintf(out, "%s%s", c ? "\t" : "", cell);
        } else if (matrix_number(cell, text, sizeof text, &bound[c])) {
            fprintf(out, "\t%s", text);
            measured[m->status[c]] |= *text != '\0';
        } else {
            fputc('\t', out);
            bound[c] = "";
            if (!word[m->status[c]])
                word[m->status[c]] = cell;
        }
    }
    const char *stopped = NULL; /* the row's refused or failed: a run that did not measure */
    for (int k = 0; k < m->status_count && !stopped; ++k)
        if (m->group[k] && word[k] && (strcmp(word[k], "refused") == 0 || strcmp(word[k], "failed") == 0))
            stopped = word[k];
    for (int c = 2; c < header->count; ++c) {
        if (!is_value_column(m, c))
            continue;
        int k = m->status[c];
        const char *unmeasured = m->group[k] ? (stopped ? stopped : "ok") : "";
        if (!written[k]++)
            fprintf(out, "\t%s", word[k] ? word[k] : measured[k] ? "ok" : unmeasured);
        if (m->bounded[c])
            fprintf(out, "\t%s", bound[c]);
    }
    fprintf(out, "%s%s\n", m->note >= 0 ? "\t" : "", m->note >= 0 ? cell_or_empty(row, m->note) : "");
}

int report_tsv_matrix(op_ctx *ctx, const char *in_path, FILE *out)
{
    tsv_sheet s = { 0 };
    matrix_layout *m = op_calloc(ctx, 1, sizeof *m);
    if (m && read_sheet(ctx, in_path, &s) == OP_OK) {
        const tsv_line *header = s.count > 0 && s.line[0].header ? &s.line[0] : NULL;
        if (!header || header->count < 3)
            OP_FAIL(ctx, OP_ERR_PARSE, "%s: no header line naming the keys and the measures", in_path);
        else if (lay_out_matrix(ctx, &s, header, m) == OP_OK) {
            write_matrix_header(header, m, out);
            for (int l = 1; l < s.count; ++l)
                if (!s.line[l].header)
                    write_matrix_row(header, &s.line[l], m, out);
        }
    }
    free(m);
    free_sheet(&s);
    return ctx->status;
}
