/* The report's markdown tables as LaTeX files (report_md_tex.h): finding them under their
 * headings, splitting their rows, converting the markdown of their cells, and naming the files. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/atomic.h"
#include "report_md_tex.h"
#include "report_tex.h"

enum { SLUG_SIZE = 41, PATH_SIZE = 4096, MAX_SLUGS = 256 };

/* ---- Cells: markdown to LaTeX ------------------------------------------------------------- */

static size_t utf8_length(const char *p)
{
    unsigned char c = (unsigned char)*p;
    size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    for (size_t i = 1; i < n; ++i)
        if (!p[i])
            return i;
    return n;
}

static void write_markdown(const char *text, FILE *out);

/* The markup from `text` (just after `open`) to `close` written as COMMAND{...}; the text after
 * it, or NULL when `close` does not follow. */
static const char *write_span(const char *text, const char *close, const char *command, int verbatim, FILE *out)
{
    const char *end = strstr(text, close);
    if (!end)
        return NULL;
    char *inner = strndup(text, (size_t)(end - text));
    if (!inner)
        return NULL;
    fprintf(out, "%s{", command);
    if (verbatim)
        report_tex_escape(inner, out);
    else
        write_markdown(inner, out);
    fputc('}', out);
    free(inner);
    return end + strlen(close);
}

/* [text](url) as its text; the characters after it, or NULL when it is no link. */
static const char *write_link(const char *text, FILE *out)
{
    const char *middle = strstr(text, "](");
    const char *end = middle ? strchr(middle + 2, ')') : NULL;
    if (!end)
        return NULL;
    char *inner = strndup(text + 1, (size_t)(middle - text - 1));
    if (!inner)
        return NULL;
    write_markdown(inner, out);
    free(inner);
    return end + 1;
}

static void write_markdown(const char *text, FILE *out)
{
    while (*text) {
        const char *next = NULL;
        if (*text == '`')
            next = write_span(text + 1, "`", "\\texttt", 1, out);
        else if (strncmp(text, "**", 2) == 0)
            next = write_span(text + 2, "**", "\\textbf", 0, out);
        else if (strncmp(text, "<sup>", 5) == 0)
            next = write_span(text + 5, "</sup>", "\\textsuperscript", 0, out);
        else if (strncmp(text, "<sub>", 5) == 0)
            next = write_span(text + 5, "</sub>", "\\textsubscript", 0, out);
        else if (*text == '[')
            next = write_link(text, out);
        else if (strncmp(text, "<br>", 4) == 0)
            fputc(' ', out), next = text + 4;
        else if (strncmp(text, "\\|", 2) == 0)
            fputs("\\textbar{}", out), next = text + 2;
        if (next) {
            text = next;
            continue;
        }
        char one[8];
        size_t n = utf8_length(text);
        snprintf(one, sizeof one, "%.*s", (int)n, text);
        report_tex_escape(one, out);
        text += n;
    }
}

/* A cell that reads as a number written for people, as siunitx reads it: "5×10<sup>8</sup>" →
 * "5e8", "−0.5" → "-0.5"; NULL when it is not one. */
static char *as_number(const char *cell)
{
    char text[128], *t = text;
    const char *p = cell;
    if (strncmp(p, "−", strlen("−")) == 0)
        *t++ = '-', p += strlen("−");
    const char *times = strstr(p, "×10<sup>");
    size_t mantissa = times ? (size_t)(times - p) : strlen(p);
    if (mantissa + 2 >= sizeof text - 32)
        return NULL;
    memcpy(t, p, mantissa), t += mantissa;
    if (times) {
        const char *exponent = times + strlen("×10<sup>"), *end = strstr(exponent, "</sup>");
        if (!end || end[strlen("</sup>")] || (size_t)(end - exponent) > 16)
            return NULL;
        *t++ = 'e';
        if (strncmp(exponent, "−", strlen("−")) == 0)
            *t++ = '-', exponent += strlen("−");
        memcpy(t, exponent, (size_t)(end - exponent)), t += end - exponent;
    }
    *t = '\0';
    return strcmp(text, cell) != 0 && report_tex_plain_number(text) ? strdup(text) : NULL;
}

/* ---- Rows ------------------------------------------------------------------------------- */

/* Splits a '|' row in place into trimmed cells at the '|' outside `code` and not escaped. */
static int split_row(char *line, char **cell, int max)
{
    int count = 0, code = 0;
    char *p = line + strspn(line, " ");
    p += *p == '|';
    char *start = p;
    for (;; ++p) {
        if (*p == '`')
            code = !code;
        int end = *p == '\0' || (*p == '|' && !code && (p == start || p[-1] != '\\'));
        if (!end)
            continue;
        int last = *p == '\0';
        *p = '\0';
        char *c = start + strspn(start, " \t");
        for (char *e = c + strlen(c); e > c && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'); --e)
            e[-1] = '\0';
        if (!(last && !*c && count > 0) && count < max)
            cell[count++] = c;
        if (last)
            return count;
        start = p + 1;
    }
}

static int separator_row(const char *line, char *align, int columns)
{
    char copy[4096], *cell[REPORT_TEX_MAX_COLUMNS];
    if (line[strspn(line, " ")] != '|' || strlen(line) >= sizeof copy)
        return 0;
    snprintf(copy, sizeof copy, "%s", line);
    int count = split_row(copy, cell, REPORT_TEX_MAX_COLUMNS);
    if (count != columns)
        return 0;
    for (int c = 0; c < count; ++c) {
        const char *s = cell[c] + (cell[c][0] == ':');
        size_t dashes = strspn(s, "-");
        if (dashes == 0 || (s[dashes] && strcmp(s + dashes, ":") != 0))
            return 0;
        align[c] = s[dashes] == ':' ? 'r' : 'l';
    }
    return 1;
}

/* ---- Names ------------------------------------------------------------------------------- */

static void slug_of(const char *heading, char *slug)
{
    size_t n = 0;
    const char *p = heading;
    for (; *p && n < SLUG_SIZE - 1; ++p) {
        char c = *p >= 'A' && *p <= 'Z' ? (char)(*p - 'A' + 'a') : *p;
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
            slug[n++] = c;
        else if (n > 0 && slug[n - 1] != '-')
            slug[n++] = '-';
    }
    slug[n] = '\0';
    int cut = *p && strchr(slug, '-') && isalnum((unsigned char)*p);
    while (cut && n > 0 && slug[n - 1] != '-')
        --n; /* no word cut in half */
    while (n > 0 && slug[n - 1] == '-')
        --n;
    slug[n] = '\0';
    if (n == 0)
        snprintf(slug, SLUG_SIZE, "report");
}

typedef struct slug_counts {
    char slug[MAX_SLUGS][SLUG_SIZE];
    int count[MAX_SLUGS], used;
} slug_counts;

static int next_index(slug_counts *s, const char *slug)
{
    for (int i = 0; i < s->used; ++i)
        if (strcmp(s->slug[i], slug) == 0)
            return ++s->count[i];
    if (s->used == MAX_SLUGS)
        return -1;
    snprintf(s->slug[s->used], SLUG_SIZE, "%s", slug);
    s->count[s->used] = 1;
    return s->count[s->used++];
}

static int is_report_tex(const char *name)
{
    size_t n = strlen(name);
    return strncmp(name, "report-", 7) == 0 && n > 11 && strcmp(name + n - 4, ".tex") == 0;
}

/* The directory made if missing, and the report-*.tex files in it removed. */
static int clear_dir(op_ctx *ctx, const char *dir)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return OP_FAIL(ctx, OP_ERR_IO, "--tex-dir %s: cannot make the directory: %s", dir, strerror(errno));
    DIR *d = opendir(dir);
    if (!d)
        return OP_FAIL(ctx, OP_ERR_IO, "--tex-dir %s: cannot open: %s", dir, strerror(errno));
    for (struct dirent *e; (e = readdir(d));) {
        char path[PATH_SIZE];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (is_report_tex(e->d_name) && unlink(path) != 0) {
            OP_FAIL(ctx, OP_ERR_IO, "%s: cannot remove: %s", path, strerror(errno));
            break;
        }
    }
    closedir(d);
    return ctx->status;
}

/* ---- Tables ------------------------------------------------------------------------------ */

typedef struct md_table {
    const char *report_path, *heading;
    int line, columns, rows;
    char *header[REPORT_TEX_MAX_COLUMNS], align[REPORT_TEX_MAX_COLUMNS];
    const char **cell;
    char **owned; /* the cells read as numbers (as_number), one per cell or NULL */
} md_table;

static void free_table(md_table *t)
{
    for (int i = 0; t->owned && i < t->rows * t->columns; ++i)
        free(t->owned[i]);
    free(t->owned);
    free(t->cell);
}

/* The table's rows from lines[first] on (the '|' lines), read into t. */
static int read_rows(op_ctx *ctx, char **lines, int first, int count, md_table *t)
{
    int rows = 0;
    while (first + rows < count && lines[first + rows][strspn(lines[first + rows], " ")] == '|')
        ++rows;
    size_t cells = (size_t)(rows ? rows : 1) * (size_t)t->columns;
    t->cell = op_calloc(ctx, cells, sizeof *t->cell);
    t->owned = t->cell ? op_calloc(ctx, cells, sizeof *t->owned) : NULL;
    if (!t->owned)
        return ctx->status;
    t->rows = rows;
    for (int r = 0; r < rows; ++r) {
        char *cell[REPORT_TEX_MAX_COLUMNS];
        int n = split_row(lines[first + r], cell, REPORT_TEX_MAX_COLUMNS);
        for (int c = 0; c < n && c < t->columns; ++c) {
            size_t at = (size_t)r * (size_t)t->columns + (size_t)c;
            t->owned[at] = as_number(cell[c]);
            t->cell[at] = t->owned[at] ? t->owned[at] : cell[c];
        }
    }
    return OP_OK;
}

static int write_table(op_ctx *ctx, const md_table *t, const char *dir, slug_counts *slugs, int *written)
{
    char slug[SLUG_SIZE], path[PATH_SIZE], origin[PATH_SIZE + 512];
    slug_of(t->heading, slug);
    int index = next_index(slugs, slug);
    if (index < 0)
        return OP_FAIL(ctx, OP_ERR_PARSE, "%s:%d: more than %d headings with tables", t->report_path, t->line,
                       MAX_SLUGS);
    snprintf(path, sizeof path, "%s/report-%s-%d.tex", dir, slug, index);
    snprintf(origin, sizeof origin, "opsim-report report from %s:%d (under \"%s\")", t->report_path, t->line,
             t->heading);
    op_atomic_file file;
    if (op_atomic_open(ctx, &file, path) != OP_OK)
        return ctx->status;
    report_tex_write(&(report_tex_table){ .columns = t->columns, .rows = t->rows,
                                          .header = (const char *const *)t->header, .cell = t->cell,
                                          .align = t->align, .every_number = 1, .text = write_markdown,
                                          .origin = origin },
                     file.file);
    if (op_atomic_commit(ctx, &file) == OP_OK)
        ++*written;
    return ctx->status;
}

/* The markdown cut into lines in place, ``` fences' lines blanked. */
static char **cut_lines(op_ctx *ctx, char *text, int *count)
{
    int n = 1;
    for (const char *c = text; *c; ++c)
        n += *c == '\n';
    char **lines = op_calloc(ctx, (size_t)n, sizeof *lines);
    if (!lines)
        return NULL;
    int fenced = 0;
    *count = 0;
    for (char *p = text; p;) {
        char *end = strchr(p, '\n');
        if (end)
            *end = '\0';
        int fence = strncmp(p, "```", 3) == 0;
        fenced ^= fence;
        lines[(*count)++] = fenced || fence ? end ? end : p + strlen(p) : p;
        p = end ? end + 1 : NULL;
    }
    return lines;
}

static int write_tables(op_ctx *ctx, char **lines, int count, const char *report_path, const char *dir,
                        int *written)
{
    slug_counts *slugs = op_calloc(ctx, 1, sizeof *slugs);
    if (!slugs)
        return ctx->status;
    const char *heading = "";
    for (int l = 0; l + 1 < count && ctx->status == OP_OK; ++l) {
        if (lines[l][0] == '#') {
            heading = lines[l] + strspn(lines[l], "# ");
            continue;
        }
        md_table t = { .report_path = report_path, .heading = heading, .line = l + 1 };
        if (lines[l][strspn(lines[l], " ")] != '|')
            continue;
        t.columns = split_row(lines[l], t.header, REPORT_TEX_MAX_COLUMNS);
        if (!separator_row(lines[l + 1], t.align, t.columns))
            continue; /* prose starting with '|' */
        if (read_rows(ctx, lines, l + 2, count, &t) == OP_OK)
            write_table(ctx, &t, dir, slugs, written);
        l += 1 + t.rows;
        free_table(&t);
    }
    free(slugs);
    return ctx->status;
}

int report_md_tex(op_ctx *ctx, const char *markdown, const char *report_path, const char *dir, int *written)
{
    *written = 0;
    char *text = strdup(markdown);
    if (!text)
        return OP_FAIL(ctx, OP_ERR_NOMEM, "out of memory");
    int count = 0;
    char **lines = cut_lines(ctx, text, &count);
    if (lines && clear_dir(ctx, dir) == OP_OK)
        write_tables(ctx, lines, count, report_path, dir, written);
    free(lines);
    free(text);
    return ctx->status;
}
